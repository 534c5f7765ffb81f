// The spec's grid search rules (spec/grid-pathfinding-library.md) over ASCII maps: routes,
// every failure reason, Theta* shortcuts, height gates, off-mesh links, waypoints.

#include <catch2/catch.hpp>

#include <limits>

#include <random>

#include "grid_fixtures.h"

using namespace strata;
using namespace strata::nav;
using namespace strata::nav::test;

namespace {

// An open grid of unit cells whose columns first..last (cell x) are of `area`, the rest of 0.
Grid columnAreaGrid(int width, int depth, int first, int last, std::uint16_t area) {
  GridSettings settings = unitSettings();
  settings.width_cells = width;
  settings.depth_cells = depth;
  auto grid = Grid::create(settings, [=](const sim::Vec3& c) {  // c: the cell's centre
    CellProbe p;
    p.walkable = true;
    p.area = c.x > first && c.x < last + 1 ? area : 0;
    return p;
  });
  REQUIRE(grid.ok());
  return std::move(*grid);
}

}  // namespace

TEST_CASE("grid astar: routes around a wall with the exact endpoints first and last", "[nav][grid]") {
  // A wall with a gap at the bottom: the route must go through (3, 4).
  Grid grid = ascii({
      "...#...",
      "...#...",
      "...#...",
      "...#...",
      ".......",
  });
  const sim::Vec3 from{0.2, 0.0, 0.3}, to{6.7, 0.0, 0.9};
  const PathResult r = route(grid, SearchMethod::AStar, from, to);
  REQUIRE(r.ok());
  CHECK(r.waypoints.front().position == from);
  CHECK(r.waypoints.back().position == to);
  // Around the wall without cutting its end: down to (2,3), diagonal-free past (3,4), up again.
  CHECK(r.cost == Approx(dijkstraOracle(grid, {0, 0}, {6, 0})));
  CHECK(r.cost == Approx(6 + 4 * std::sqrt(2.0)));
  // Every cell of the node chain is walkable, adjacent to the next, and passes (2..4, 4) or the gap.
  for (std::size_t i = 1; i < r.nodes.size(); ++i) {
    const CellCoord a = grid.coord(r.nodes[i - 1]), b = grid.coord(r.nodes[i]);
    CHECK(std::max(std::abs(a.x - b.x), std::abs(a.z - b.z)) == 1);
    CHECK(grid.isWalkable(b.x, b.z));
  }
  // Straight runs are collapsed: fewer waypoints than cells.
  CHECK(r.waypoints.size() < r.nodes.size());
  for (const Waypoint& w : r.waypoints) CHECK(w.action == MoveAction::Walk);
}

TEST_CASE("grid corridor requests are answered as astar", "[nav][grid]") {
  Grid grid = ascii({
      "........",
      "..####..",
      "........",
  });
  const sim::Vec3 from{0.5, 0.0, 1.5}, to{7.5, 0.0, 1.5};
  const PathResult exact = route(grid, SearchMethod::AStar, from, to);
  const PathResult corridor = route(grid, SearchMethod::Corridor, from, to);
  REQUIRE(exact.ok());
  REQUIRE(corridor.ok());
  CHECK(corridor.cost == exact.cost);
  CHECK(corridor.nodes == exact.nodes);
  CHECK(corridor.answered_by == SearchMethod::AStar);
  CHECK(route(grid, SearchMethod::Interval, from, to).answered_by == SearchMethod::AStar);
  CHECK(route(grid, SearchMethod::Theta, from, to).answered_by == SearchMethod::Theta);
}

TEST_CASE("grid search: a budget means the same whether or not the lazy cache is full", "[nav][grid]") {
  // An open 300 x 3 strip: the route needs 299 cell expansions. Once every cell was probed (a
  // distance field, rasterizeAll) jump point search could run and answered with 1 expansion,
  // so the same request on an unchanged grid flipped between BudgetExhausted and a route (an
  // audit). A budget counts cells: jump point search runs only without one. (One blocked cell
  // mid-strip hides the goal, which Theta* would otherwise reach by its line without a search.)
  std::vector<std::string> rows(3, std::string(300, '.'));
  rows[1][150] = '#';
  Grid grid = ascii(rows);
  const sim::Vec3 from{0.5, 0, 0.5}, to{299.5, 0, 2.5};
  for (const SearchMethod method : {SearchMethod::AStar, SearchMethod::Theta}) {
    INFO(methodName(method));
    grid.refresh();
    const PathResult cold = route(grid, method, from, to, 100);
    CHECK(cold.failure == PathFailure::BudgetExhausted);
    CHECK(cold.expansions == 100);
    grid.rasterizeAll();
    const PathResult warm = route(grid, method, from, to, 100);
    CHECK(warm.failure == PathFailure::BudgetExhausted);
    CHECK(warm.expansions == 100);
    // Unlimited, the fast path answers with the exact length.
    const PathResult fast = route(grid, method, from, to, 0);
    REQUIRE(fast.ok());
    CHECK(fast.expansions < 100);
    const PathResult enough = route(grid, method, from, to, 1000);
    REQUIRE(enough.ok());
    CHECK(fast.length == Approx(enough.length));
  }
}

TEST_CASE("grid astar: no corner cutting between two diagonal blocks", "[nav][grid]") {
  // The only connection between the halves is a diagonal squeeze between two blocked corners.
  Grid grid = ascii({
      "..#",
      ".#.",
      "#..",
  });
  for (bool jump_points : {true, false}) {
    GridPathRequest request;
    request.method = SearchMethod::AStar;
    request.start = at(0, 0);
    request.goal = at(2, 2);
    request.use_jump_points = jump_points;
    CHECK(findGridPath(grid, request).failure == PathFailure::NoPath);
  }
  CHECK(route(grid, SearchMethod::Theta, at(0, 0), at(2, 2)).failure == PathFailure::NoPath);
  CHECK_FALSE(grid.lineOfSight(0, 1, 1, 0));  // walking may not thread the corner ...
  CHECK(grid.sightLine(0, 1, 1, 0));          // ... but seeing may
}

TEST_CASE("grid search: a side cell a cliff away is a corner too", "[nav][grid]") {
  // An audit: on the heights "09" over "00" (step limit 1 m) A* went diagonally from (0,0) to
  // (1,1) past the corner of the 9 m plateau (cost sqrt 2), and lineOfSight allowed it; a
  // blocked cell there gives 2. A side cell must be within a step of both ends, as if the two
  // cardinal steps through it were taken; so must a pit's edge.
  for (const std::vector<std::string>& rows : {std::vector<std::string>{"09", "00"}, std::vector<std::string>{"50", "55"}}) {
    INFO(rows[0] << " / " << rows[1]);
    Grid grid = ascii(rows);
    const double y = grid.surfaceY(0, 0);
    const PathResult astar = route(grid, SearchMethod::AStar, at(0, 0, y), at(1, 1, y));
    REQUIRE(astar.ok());
    CHECK(astar.cost == Approx(2.0));
    CHECK(astar.cost == Approx(dijkstraOracle(grid, {0, 0}, {1, 1})));
    const PathResult theta = route(grid, SearchMethod::Theta, at(0, 0, y), at(1, 1, y));
    REQUIRE(theta.ok());
    CHECK(theta.cost == Approx(2.0));
    CHECK(route(grid, SearchMethod::Direct, at(0, 0, y), at(1, 1, y)).failure == PathFailure::Blocked);
    CHECK_FALSE(grid.lineOfSight(0, 0, 1, 1));
    CHECK_FALSE(grid.lineOfSight(1, 1, 0, 0));
    const auto field = distanceField(grid, at(0, 0, y));
    REQUIRE(field);
    CHECK(*field->at(1, 1) == Approx(2.0));
  }
  // Sides within a step of both ends: the diagonal stands (a gentle slope, one side 1 m up).
  Grid slope = ascii({"01", "01"});
  CHECK(route(slope, SearchMethod::AStar, at(0, 0), at(1, 1, 1)).cost == Approx(std::sqrt(2.0)));
  CHECK(slope.lineOfSight(0, 0, 1, 1));
}

TEST_CASE("grid search: every failure reason", "[nav][grid]") {
  Grid grid = ascii({
      "....###.",
      "....#.#.",
      "....###.",
      "#.......",
  });
  SECTION("StartOutsideGrid and GoalOutsideGrid, for every method") {
    for (SearchMethod m : {SearchMethod::AStar, SearchMethod::Theta, SearchMethod::Direct}) {
      CHECK(route(grid, m, {-0.5, 0, 1}, at(1, 1)).failure == PathFailure::StartOutsideGrid);
      CHECK(route(grid, m, at(1, 1), {1, 0, 4.0}).failure == PathFailure::GoalOutsideGrid);
      CHECK(route(grid, m, at(1, 1), {8.0, 0, 1}).failure == PathFailure::GoalOutsideGrid);
    }
  }
  SECTION("StartBlocked and GoalBlocked") {
    CHECK(route(grid, SearchMethod::AStar, at(4, 0), at(1, 1)).failure == PathFailure::StartBlocked);
    CHECK(route(grid, SearchMethod::Theta, at(1, 1), at(0, 3)).failure == PathFailure::GoalBlocked);
  }
  SECTION("NoPath: the goal is sealed off") {
    CHECK(route(grid, SearchMethod::AStar, at(0, 0), at(5, 1)).failure == PathFailure::NoPath);
    CHECK(route(grid, SearchMethod::Theta, at(0, 0), at(5, 1)).failure == PathFailure::NoPath);
  }
  SECTION("BudgetExhausted: more than MaxExpansions expanded") {
    const PathResult r = route(grid, SearchMethod::Theta, at(0, 0), at(7, 0), 3);
    CHECK(r.failure == PathFailure::BudgetExhausted);
    CHECK(r.expansions == 3);
    CHECK(route(grid, SearchMethod::Theta, at(0, 0), at(7, 0), 0).ok());  // 0 = unlimited
  }
  SECTION("Blocked: Direct's straight line is obstructed") {
    CHECK(route(grid, SearchMethod::Direct, at(0, 0), at(7, 0)).failure == PathFailure::Blocked);
    const PathResult r = route(grid, SearchMethod::Direct, at(0, 0), at(3, 2));
    REQUIRE(r.ok());
    REQUIRE(r.waypoints.size() == 2);
    CHECK(r.waypoints[1].position == at(3, 2));
  }
  SECTION("the default budget is 8192 and the default method is Direct") {
    GridPathRequest request;
    CHECK(request.max_expansions == 8192);
    CHECK(request.method == SearchMethod::Direct);
  }
  SECTION("names") {
    CHECK(failureName(PathFailure::BudgetExhausted) == "BudgetExhausted");
    CHECK(failureName(PathFailure::ClosestNoPath) == "ClosestNoPath");
    CHECK(parseMethod("ThetaStar") == SearchMethod::Theta);
    CHECK_FALSE(parseMethod("roblox"));
  }
}

TEST_CASE("grid theta: shortcuts through line of sight on open ground", "[nav][grid][theta]") {
  Grid grid = ascii({
      "..........",
      "..........",
      "..........",
      "..........",
  });
  const PathResult astar = route(grid, SearchMethod::AStar, at(0, 0), at(9, 3));
  const PathResult theta = route(grid, SearchMethod::Theta, at(0, 0), at(9, 3));
  REQUIRE(theta.ok());
  CHECK(theta.waypoints.size() == 2);  // one straight segment
  CHECK(theta.expansions == 0);        // the start sees the goal: the line, without a search
  CHECK(theta.cost == Approx(std::hypot(9.0, 3.0)));
  CHECK(astar.cost == Approx(6 + 3 * std::sqrt(2.0)));
  CHECK(theta.cost < astar.cost);
}

TEST_CASE("grid theta: bends at a corner and never cuts it", "[nav][grid][theta]") {
  Grid grid = ascii({
      "......",
      "######",  // replaced below by a wall with a gap on the right
  });
  Grid walls = ascii({
      "........",
      "#######.",
      "........",
  });
  const PathResult theta = route(walls, SearchMethod::Theta, at(0, 0), at(0, 2));
  REQUIRE(theta.ok());
  REQUIRE(theta.nodes.size() >= 3);
  for (std::size_t i = 1; i < theta.nodes.size(); ++i) {
    const CellCoord a = walls.coord(theta.nodes[i - 1]), b = walls.coord(theta.nodes[i]);
    CHECK(walls.lineOfSight(a.x, a.z, b.x, b.z));
  }
  CHECK(theta.cost <= route(walls, SearchMethod::AStar, at(0, 0), at(0, 2)).cost + 1e-9);
  (void)grid;
}

TEST_CASE("grid heights: cliffs over MaxStepHeight are refused, ramps are walked", "[nav][grid][heights]") {
  // Ground heights in metres, max step 1 m: the 0 -> 5 edge is a cliff; the ramp on the last row
  // climbs one metre per cell.
  Grid grid = ascii({
      "000055555",
      "000055555",
      "000055555",
      "012345555",
  });
  const PathResult r = route(grid, SearchMethod::AStar, at(0, 0), at(8, 0));
  REQUIRE(r.ok());
  bool used_ramp = false;
  for (NodeId n : r.nodes) used_ramp |= grid.coord(n).z == 3;
  CHECK(used_ramp);
  for (std::size_t i = 1; i < r.nodes.size(); ++i) {
    const CellCoord a = grid.coord(r.nodes[i - 1]), b = grid.coord(r.nodes[i]);
    CHECK(std::abs(grid.surfaceY(a.x, a.z) - grid.surfaceY(b.x, b.z)) <= 1.0);
  }
  // Waypoint heights come from the surface.
  CHECK(r.waypoints[r.waypoints.size() - 2].position.y == Approx(5.0));
  // Theta* may not shortcut down the cliff either.
  const PathResult theta = route(grid, SearchMethod::Theta, at(0, 0), at(8, 0));
  REQUIRE(theta.ok());
  for (std::size_t i = 1; i < theta.nodes.size(); ++i) {
    const CellCoord a = grid.coord(theta.nodes[i - 1]), b = grid.coord(theta.nodes[i]);
    CHECK(grid.lineOfSight(a.x, a.z, b.x, b.z));
  }
  // A higher step limit lets the search step straight up.
  GridSettings tall = unitSettings();
  tall.max_step_height = 5.0;
  Grid easy = ascii({"000055555"}, tall);
  CHECK(route(easy, SearchMethod::AStar, at(0, 0), at(8, 0)).cost == Approx(8.0));
  Grid hard = ascii({"000055555"});
  CHECK(route(hard, SearchMethod::AStar, at(0, 0), at(8, 0)).failure == PathFailure::NoPath);
}

TEST_CASE("grid links: one-way edges, never shortcut, survive refresh", "[nav][grid][links]") {
  Grid grid = ascii({
      "...#...",
      "...#...",
      "...#...",
  });
  CHECK(route(grid, SearchMethod::AStar, at(0, 1), at(6, 1)).failure == PathFailure::NoPath);
  REQUIRE(grid.addLink(at(2, 1), at(4, 1)).ok());  // default cost: straight-line distance, 2 cells
  REQUIRE(grid.links().size() == 1);
  CHECK(grid.links()[0].cost == Approx(2.0));

  const PathResult there = route(grid, SearchMethod::AStar, at(0, 1), at(6, 1));
  REQUIRE(there.ok());
  CHECK(there.cost == Approx(6.0));
  bool has_link = false;
  for (std::size_t i = 0; i < there.waypoints.size(); ++i)
    if (there.waypoints[i].action == MoveAction::Link) {
      has_link = true;
      CHECK(there.waypoints[i].position == at(4, 1));      // the landing
      CHECK(there.waypoints[i - 1].position == at(2, 1));  // the take-off is kept too
    }
  CHECK(has_link);
  // One-way: no way back.
  CHECK(route(grid, SearchMethod::AStar, at(6, 1), at(0, 1)).failure == PathFailure::NoPath);
  // Theta* crosses it as an edge, never through a shortcut over the wall.
  const PathResult theta = route(grid, SearchMethod::Theta, at(0, 0), at(6, 2));
  REQUIRE(theta.ok());
  for (std::size_t i = 1; i < theta.nodes.size(); ++i) {
    const CellCoord a = grid.coord(theta.nodes[i - 1]), b = grid.coord(theta.nodes[i]);
    const bool is_link = a == CellCoord{2, 1} && b == CellCoord{4, 1};
    CHECK((is_link || grid.lineOfSight(a.x, a.z, b.x, b.z)));
  }
  // Links survive refresh().
  grid.refresh();
  CHECK(grid.links().size() == 1);
  CHECK(route(grid, SearchMethod::AStar, at(0, 1), at(6, 1)).ok());
  // An endpoint off the grid is an error.
  CHECK_FALSE(grid.addLink(at(0, 0), {100, 0, 0}).ok());
  CHECK_FALSE(grid.addLink({-1, 0, 0}, at(0, 0)).ok());
  CHECK_FALSE(grid.addLink(at(0, 0), at(1, 1), -1.0).ok());
}

TEST_CASE("grid links: the cost decides between a link and the walk around", "[nav][grid][links]") {
  Grid grid = ascii({
      "...#...",
      "...#...",
      ".......",
  });
  REQUIRE(grid.addLink(at(2, 0), at(4, 0), 20.0).ok());  // an expensive climb
  const PathResult r = route(grid, SearchMethod::AStar, at(0, 0), at(6, 0));
  REQUIRE(r.ok());
  for (const Waypoint& w : r.waypoints) CHECK(w.action == MoveAction::Walk);
  Grid cheap = ascii({
      "...#...",
      "...#...",
      ".......",
  });
  REQUIRE(cheap.addLink(at(2, 0), at(4, 0), 0.5).ok());  // cheaper than walking: still optimal
  const PathResult c = route(cheap, SearchMethod::AStar, at(0, 0), at(6, 0));
  REQUIRE(c.ok());
  CHECK(c.cost == Approx(4.5));
}

TEST_CASE("grid links at a slant: A* and Theta* stay exact against a Dijkstra oracle", "[nav][grid][links][property]") {
  // A default-cost link costs its straight length, less than its octile span unless it runs
  // straight or at 45 degrees: A*'s octile heuristic must be scaled below it.
  Grid line = ascii({"......", "......", "......"});
  REQUIRE(line.addLink(at(1, 0), at(5, 2)).ok());
  const PathResult r = route(line, SearchMethod::AStar, at(0, 0), at(5, 2), 0);
  REQUIRE(r.ok());
  CHECK(r.cost == Approx(1 + std::sqrt(20.0)));
  CHECK(r.waypoints[r.waypoints.size() - 1].action == MoveAction::Link);

  std::mt19937 rng(11);
  std::uniform_int_distribution<int> wall(0, 5), x(0, 13), z(0, 9);
  for (int trial = 0; trial < 60; ++trial) {
    std::vector<std::string> rows(10, std::string(14, '.'));
    for (auto& row : rows)
      for (char& c : row)
        if (wall(rng) == 0) c = '#';
    Grid grid = ascii(rows);
    for (int l = 0; l < 3; ++l) {
      const CellCoord a{x(rng), z(rng)}, b{x(rng), z(rng)};
      if (grid.isWalkable(a.x, a.z) && grid.isWalkable(b.x, b.z)) REQUIRE(grid.addLink(at(a.x, a.z), at(b.x, b.z)).ok());
    }
    for (int q = 0; q < 10; ++q) {
      const CellCoord a{x(rng), z(rng)}, b{x(rng), z(rng)};
      if (!grid.isWalkable(a.x, a.z) || !grid.isWalkable(b.x, b.z)) continue;
      const double oracle = dijkstraOracle(grid, a, b);
      const PathResult astar = route(grid, SearchMethod::AStar, at(a.x, a.z), at(b.x, b.z), 0);
      INFO("trial " << trial << ": " << a.x << "," << a.z << " -> " << b.x << "," << b.z);
      if (oracle < 0) {
        CHECK(astar.failure == PathFailure::NoPath);
        continue;
      }
      REQUIRE(astar.ok());
      CHECK(astar.cost == Approx(oracle).epsilon(1e-9));
      const PathResult theta = route(grid, SearchMethod::Theta, at(a.x, a.z), at(b.x, b.z), 0);
      REQUIRE(theta.ok());
      CHECK(theta.cost <= astar.cost + 1e-9);
    }
  }
}

TEST_CASE("grid waypoints: area boundaries kept, spacing along walking segments", "[nav][grid]") {
  // Cells 4..6 are a different area (say mud): both sides of each boundary stay waypoints.
  Grid grid = columnAreaGrid(10, 1, 4, 6, 3);
  const PathResult r = route(grid, SearchMethod::AStar, at(0, 0), at(9, 0));
  REQUIRE(r.ok());
  std::vector<double> xs;
  for (const Waypoint& w : r.waypoints) xs.push_back(w.position.x);
  CHECK(xs == std::vector<double>{0.5, 3.5, 4.5, 6.5, 7.5, 9.5});
  CHECK(r.waypoints[2].area == 3);
  // Theta* and Direct cross the strip in one leg: a waypoint where the line enters each area
  // (they returned only the two ends, so the strip was not in the route at all).
  for (const SearchMethod m : {SearchMethod::Theta, SearchMethod::Direct}) {
    INFO(methodName(m));
    const PathResult any = route(grid, m, at(0, 0), at(9, 0));
    REQUIRE(any.ok());
    std::vector<double> at_x;
    std::vector<std::uint16_t> areas;
    for (const Waypoint& w : any.waypoints) at_x.push_back(w.position.x), areas.push_back(w.area);
    CHECK(at_x == std::vector<double>{0.5, 4.5, 7.5, 9.5});
    CHECK(areas == std::vector<std::uint16_t>{0, 3, 0, 0});
    CHECK(any.length == Approx(9.0));
  }
  // Diagonally, the crossing lies on the line inside the first cell of the other area.
  Grid band = columnAreaGrid(12, 6, 5, 5, 2);  // column 5 only
  const PathResult diagonal = route(band, SearchMethod::Direct, at(0, 0), at(11, 5));
  REQUIRE(diagonal.ok());
  REQUIRE(diagonal.waypoints.size() == 4);
  for (std::size_t i : {std::size_t{1}, std::size_t{2}}) {
    const sim::Vec3 p = diagonal.waypoints[i].position;
    INFO(p.x << "," << p.z);
    CHECK(std::fabs((p.z - 0.5) * 11.0 - (p.x - 0.5) * 5.0) < 1e-9);  // on the line
    const auto cell = band.worldToCell(p);
    REQUIRE(cell);
    CHECK(band.area(cell->x, cell->z) == diagonal.waypoints[i].area);
  }
  CHECK(diagonal.waypoints[1].area == 2);
  CHECK(diagonal.waypoints[2].area == 0);

  Grid open = ascii({"..........."});
  GridPathRequest request;
  request.method = SearchMethod::AStar;
  request.start = at(0, 0);
  request.goal = at(10, 0);
  request.waypoint_spacing = 3.0;
  const PathResult spaced = findGridPath(open, request);
  REQUIRE(spaced.ok());
  REQUIRE(spaced.waypoints.size() == 5);  // 0.5, 3.5, 6.5, 9.5, 10.5
  CHECK(spaced.waypoints[1].position.x == Approx(3.5));
  CHECK(spaced.length == Approx(10.0));
}

TEST_CASE("grid search: a tiny waypoint spacing counts as 1/20 of a cell", "[nav][grid]") {
  // An audit: 1e-9 m stopped `t += spacing` from growing and filled memory (std::bad_alloc).
  // 1/20, the smallest spacing `strata path` takes on a map (0.05 cells), is honoured (an
  // audit: 0.05 gave points 1/16 apart).
  Grid open = ascii({"........"});
  GridPathRequest request;
  request.method = SearchMethod::AStar;
  request.start = at(0, 0);
  request.goal = at(7, 0);
  for (const double spacing : {1e-9, 1e-300, 0.05}) {
    request.waypoint_spacing = spacing;
    const PathResult spaced = findGridPath(open, request);
    REQUIRE(spaced.ok());
    CHECK(spaced.waypoints.size() == 7 * 20 + 1);  // a point every 1/20 cell along the 7 cells, the goal last
    CHECK(spaced.waypoints.back().position == request.goal);
    for (std::size_t i = 1; i < spaced.waypoints.size(); ++i)
      CHECK(spaced.waypoints[i].position.x - spaced.waypoints[i - 1].position.x <= 0.05 + 1e-9);
  }
}

TEST_CASE("grid: heightmap cells of infinite height are blocked - probes stay on the grid", "[nav][grid]") {
  GridSettings settings;
  settings.width_cells = 3;
  settings.depth_cells = 1;
  settings.cell_size = 1;
  auto wall = makeHeightmapGrid({0.0, std::numeric_limits<double>::infinity(), 0.0}, settings);
  REQUIRE(wall.ok());
  CHECK_FALSE(wall->isWalkable(1, 0));  // it was walkable at origin.y
  GridPathRequest request;
  request.method = SearchMethod::AStar;
  request.start = {0.5, 0, 0.5};
  request.goal = {2.5, 0, 0.5};
  CHECK(findGridPath(*wall, request).failure == PathFailure::NoPath);
  // A cell size tiny against the origin: the centres round, and the probe's cell index came out
  // as the width (read past the heights' end); it stays on the grid now.
  settings.origin = {1e6, 0, 0};
  settings.cell_size = 7e-11;
  auto tiny = makeHeightmapGrid({1.0, 2.0, 3.0}, settings);
  REQUIRE(tiny.ok());
  for (int x = 0; x < 3; ++x) {
    const auto y = tiny->groundY(x, 0);
    REQUIRE(y.has_value());
    CHECK(*y >= 1.0);
    CHECK(*y <= 3.0);
  }
}

TEST_CASE("grid distanceField: a NaN limit gives no field - it flooded without a limit", "[nav][grid][field]") {
  Grid row = ascii({"....."});
  CHECK_FALSE(distanceField(row, at(0, 0), std::numeric_limits<double>::quiet_NaN()).has_value());
  const auto limited = distanceField(row, at(0, 0), 1.0);
  REQUIRE(limited.has_value());
  CHECK(limited->at(1, 0).has_value());
  CHECK_FALSE(limited->at(2, 0).has_value());
}

TEST_CASE("grid nearestWalkable: an infinite coordinate clamps to the edge - NaN finds nothing", "[nav][grid]") {
  Grid row = ascii({"....."});
  const auto far = row.nearestWalkable({std::numeric_limits<double>::infinity(), 0, 0.5});
  REQUIRE(far.has_value());
  CHECK(far->x == Approx(4.5));
  const auto near = row.nearestWalkable({-std::numeric_limits<double>::infinity(), 0, 0.5});
  REQUIRE(near.has_value());
  CHECK(near->x == Approx(0.5));
  CHECK_FALSE(row.nearestWalkable({std::numeric_limits<double>::quiet_NaN(), 0, 0.5}).has_value());
}

TEST_CASE("grid search: start and goal in one cell give two waypoints", "[nav][grid]") {
  Grid grid = ascii({"..."});
  const PathResult r = route(grid, SearchMethod::AStar, {0.2, 0, 0.2}, {0.8, 0, 0.7});
  REQUIRE(r.ok());
  REQUIRE(r.waypoints.size() == 2);
  CHECK(r.waypoints[0].position == sim::Vec3{0.2, 0, 0.2});
  CHECK(r.waypoints[1].position == sim::Vec3{0.8, 0, 0.7});
}

TEST_CASE("grid settings: validate names the field", "[nav][grid]") {
  GridSettings s = unitSettings();
  s.width_cells = 4;
  s.depth_cells = 4;
  s.cell_size = 0;
  auto bad = Grid::create(s, [](const sim::Vec3&) { return CellProbe{}; });
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("cell_size") != std::string::npos);
  s.cell_size = 1;
  s.max_step_height = -1;
  CHECK(s.validate().error().message.find("max_step_height") != std::string::npos);
  CHECK_FALSE(makeAsciiGrid({"...", ".."}).ok());
  // The spec's defaults at 1 stud = 0.28 m.
  const GridSettings d;
  CHECK(d.cell_size == Approx(4 * 0.28));
  CHECK(d.agent_height == Approx(6 * 0.28));
  CHECK(d.max_step_height == Approx(4 * 0.28));
}
