// The lazy grid (spec "Grids", "Cache invalidation", "Forgiving inputs", "Distance fields"):
// probing on first touch, refresh / refreshRegion and Version, nearestWalkable, distanceField.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <random>

#include "grid_fixtures.h"

using namespace strata;
using namespace strata::nav;
using namespace strata::nav::test;

namespace {

// A 10 x 3 room with a door at x = 5 on every row; the door's state and the probe count live
// outside the grid, like a level script's.
struct Door {
  bool closed = false;
  int probes = 0;
};

Grid doorGrid(std::shared_ptr<Door> door) {
  GridSettings s = unitSettings();
  s.width_cells = 10;
  s.depth_cells = 3;
  auto grid = Grid::create(s, [door](const sim::Vec3& c) {
    ++door->probes;
    CellProbe p;
    p.walkable = !(door->closed && c.x > 5 && c.x < 6);
    return p;
  });
  REQUIRE(grid.ok());
  return std::move(*grid);
}

}  // namespace

TEST_CASE("grid cache: nothing is probed until touched, then cached", "[nav][grid][cache]") {
  auto door = std::make_shared<Door>();
  Grid grid = doorGrid(door);
  CHECK(door->probes == 0);
  CHECK(grid.isWalkable(1, 1));
  CHECK(door->probes == 1);
  CHECK(grid.isWalkable(1, 1));
  CHECK(door->probes == 1);
  CHECK_FALSE(grid.isWalkable(-1, 1));  // out of bounds: false, no probe
  CHECK(door->probes == 1);
}

TEST_CASE("grid cache: geometry changes are invisible until refresh, which bumps Version", "[nav][grid][cache]") {
  auto door = std::make_shared<Door>();
  Grid grid = doorGrid(door);
  CHECK(route(grid, SearchMethod::AStar, at(0, 1), at(9, 1)).ok());
  const std::uint64_t v0 = grid.version();
  door->closed = true;
  // Cached: the search still answers from the old raster.
  CHECK(route(grid, SearchMethod::AStar, at(0, 1), at(9, 1)).ok());
  SECTION("refreshRegion clears only the cells inside the rectangle") {
    const int before = door->probes;
    grid.refreshRegion({5.1, 0, 0.1}, {5.9, 0, 2.9});
    CHECK(grid.version() == v0 + 1);
    CHECK(route(grid, SearchMethod::AStar, at(0, 1), at(9, 1)).failure == PathFailure::NoPath);
    CHECK(door->probes - before == 3);  // only the three door cells were probed again
    door->closed = false;
    grid.refreshRegion({5.5, 0, 0}, {5.5, 0, 3});
    CHECK(grid.version() == v0 + 2);
    CHECK(route(grid, SearchMethod::AStar, at(0, 1), at(9, 1)).ok());
  }
  SECTION("refreshRegion with an infinite or huge rectangle clears everything") {
    const double inf = std::numeric_limits<double>::infinity();
    for (const double extent : {inf, 1e12, 1e300}) {
      door->closed = !door->closed;
      grid.refreshRegion({-extent, 0, -extent}, {extent, 0, extent});
      CHECK(route(grid, SearchMethod::AStar, at(0, 1), at(9, 1)).ok() == !door->closed);
    }
    const std::uint64_t v = grid.version();
    door->closed = !door->closed;
    grid.refreshRegion({std::nan(""), 0, 0}, {1, 0, 1});  // NaN: nothing, but still a new version
    CHECK(grid.version() == v + 1);
  }
  SECTION("refresh clears everything") {
    grid.refresh();
    CHECK(grid.version() == v0 + 1);
    CHECK(route(grid, SearchMethod::AStar, at(0, 1), at(9, 1)).failure == PathFailure::NoPath);
  }
}

TEST_CASE("grid: worldToCell and cellToWorld", "[nav][grid]") {
  GridSettings s;  // spec defaults: 1.12 m cells
  s.origin = {-10, 2, -20};
  s.width_cells = 4;
  s.depth_cells = 3;
  auto grid = Grid::create(s, [](const sim::Vec3&) { return CellProbe{true, 7.5, 0}; });
  REQUIRE(grid.ok());
  CHECK(grid->worldToCell({-10, 0, -20}) == CellCoord{0, 0});
  CHECK(grid->worldToCell({-10 + 1.12 * 4 - 1e-9, 0, -20 + 1.12 * 3 - 1e-9}) == CellCoord{3, 2});
  CHECK_FALSE(grid->worldToCell({-10.01, 0, -19}));
  CHECK_FALSE(grid->worldToCell({-10 + 1.12 * 4, 0, -19}));
  const sim::Vec3 c = grid->cellToWorld(1, 2);
  CHECK(c.x == Approx(-10 + 1.5 * 1.12));
  CHECK(c.y == Approx(7.5));  // the rasterized ground height
  CHECK(c.z == Approx(-20 + 2.5 * 1.12));
  Grid flat = ascii({"..."});
  CHECK(flat.cellToWorld(0, 0).y == 0.0);  // no ground reported: origin.y
  CHECK_FALSE(flat.groundY(0, 0));
}

TEST_CASE("grid nearestWalkable: rings outward from the clamped point", "[nav][grid]") {
  Grid grid = ascii({
      "#######",
      "###.###",
      "#######",
      "#######",
      "#######",
      "......#",
  });
  // A click on top of the wall snaps to the ground beside it.
  auto snapped = grid.nearestWalkable(at(3, 2));
  REQUIRE(snapped);
  CHECK(*snapped == at(3, 1));
  // A walkable cell is its own answer.
  CHECK(*grid.nearestWalkable({0.2, 0, 5.7}) == at(0, 5));
  // Off-grid points are clamped first.
  CHECK(*grid.nearestWalkable({-50, 0, 5.5}) == at(0, 5));
  // The closest centre, not the first ring's best: from (1.99, 1.5) in blocked cell (1, 1), ring 1
  // holds (0, 0) at 1.79 cells, ring 2 holds (3, 1) at 1.51.
  Grid rings = ascii({".####", "###..", "#####"});
  CHECK(*rings.nearestWalkable({1.99, 0, 1.5}) == at(3, 1));
  CHECK(*rings.nearestWalkable({1.2, 0, 1.5}) == at(0, 0));  // 1.22 against 2.3: ring 1 wins
  // Against a brute force over every walkable centre, on random maps and points on and off them.
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> coordinate(-3, 15);
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<std::string> rows(9, std::string(12, '#'));
    for (auto& row : rows)
      for (char& c : row)
        if (rng() % 6 == 0) c = '.';
    Grid grid2 = ascii(rows);
    for (int q = 0; q < 20; ++q) {
      const sim::Vec3 p{coordinate(rng), 0, coordinate(rng)};
      const double px = std::clamp(p.x, 0.0, 12.0), pz = std::clamp(p.z, 0.0, 9.0);
      const int pcx = std::min(int(px), 11), pcz = std::min(int(pz), 8);
      double best = 1e300;
      for (int z = 0; z < 9; ++z)
        for (int x = 0; x < 12; ++x)
          if (rows[z][x] == '.' && std::max(std::abs(x - pcx), std::abs(z - pcz)) <= 8)
            best = std::min(best, std::hypot(x + 0.5 - px, z + 0.5 - pz));
      const auto found = grid2.nearestWalkable(p);
      INFO(p.x << "," << p.z);
      REQUIRE(found.has_value() == (best < 1e300));
      if (found) CHECK(std::hypot(found->x - px, found->z - pz) == Approx(best));
    }
  }
  // Nothing within the ring limit: nullopt.
  CHECK_FALSE(grid.nearestWalkable(at(6, 1), 1));
  CHECK(grid.nearestWalkable(at(6, 1), 3));
  // A limit far past the grid's edges ("search everything") answers after the last ring that
  // holds a cell: it walked every empty ring up to the limit (INT_MAX: forever, and overflowed).
  Grid sealed = ascii({"###", "###", "###"});
  CHECK_FALSE(sealed.nearestWalkable({1.5, 0, 1.5}, std::numeric_limits<int>::max()));
  CHECK(*grid.nearestWalkable({6.5, 0, 0.5}, std::numeric_limits<int>::max()) == at(3, 1));
  CHECK(*grid.nearestWalkable({500, 0, -500}, std::numeric_limits<int>::max()) == at(3, 1));
  // Within a ring the closest centre wins.
  Grid two = ascii({
      ".#.",
      "###",
  });
  CHECK(*two.nearestWalkable({1.9, 0, 0.5}) == at(2, 0));
  CHECK(*two.nearestWalkable({1.1, 0, 0.5}) == at(0, 0));
}

TEST_CASE("grid distanceField: Dijkstra route distances under the step rules", "[nav][grid][field]") {
  Grid grid = ascii({
      "0000#000",
      "0000#000",
      "0000#050",
      "00000000",
  });
  const auto field = distanceField(grid, at(0, 0));
  REQUIRE(field);
  for (int z = 0; z < 4; ++z)
    for (int x = 0; x < 8; ++x) {
      const double oracle = dijkstraOracle(grid, {0, 0}, {x, z});
      INFO(x << "," << z);
      if (oracle < 0) CHECK_FALSE(field->at(x, z));
      else CHECK(*field->at(x, z) == Approx(oracle));
    }
  CHECK_FALSE(field->at(6, 2));  // the 5 m pillar top is a cliff away from everything
  CHECK_FALSE(field->at(4, 0));  // blocked
  // MaxDistance limits the flood; distances are in metres (cell size 2 here).
  GridSettings big = unitSettings();
  big.cell_size = 2.0;
  Grid scaled = ascii({"......"}, big);
  const auto limited = distanceField(scaled, {1, 0, 1}, 6.0);
  REQUIRE(limited);
  CHECK(*limited->at(3, 0) == Approx(6.0));
  CHECK_FALSE(limited->at(4, 0));
  // nil when the origin is off the grid or blocked.
  CHECK_FALSE(distanceField(grid, {-1, 0, 0}));
  CHECK_FALSE(distanceField(grid, at(4, 1)));
}

TEST_CASE("grid distanceField: links are traversed one way", "[nav][grid][field]") {
  Grid grid = ascii({"...#..."});
  REQUIRE(grid.addLink(at(2, 0), at(4, 0), 3.0).ok());
  const auto forward = distanceField(grid, at(0, 0));
  REQUIRE(forward);
  CHECK(*forward->at(6, 0) == Approx(2 + 3 + 2));
  const auto back = distanceField(grid, at(6, 0));
  CHECK_FALSE(back->at(0, 0));
}

TEST_CASE("grid and search state: moved-from objects are empty and safe, not crashing", "[nav][grid]") {
  // An audit: a moved-from SearchState kept its record count with no records (its next search
  // read through a null pointer), and a moved-from Grid kept its width with no cells.
  auto made = makeAsciiGrid({"....", "....", "...."});
  REQUIRE(made.ok());
  Grid grid = std::move(*made);
  SearchState a;
  GridPathRequest request;
  request.start = {0.5, 0, 0.5};
  request.goal = {3.5, 0, 2.5};
  REQUIRE(findGridPath(grid, request, a).ok());
  SearchState b = std::move(a);
  CHECK(findGridPath(grid, request, b).ok());
  CHECK(findGridPath(grid, request, a).ok());  // the moved-from state searches as a new one
  SearchState c;
  c = std::move(b);
  CHECK(findGridPath(grid, request, b).ok());
  Grid other = std::move(grid);
  CHECK(findGridPath(other, request, c).ok());
  CHECK(grid.cellCount() == 0);
  CHECK_FALSE(grid.inBounds(0, 0));
  CHECK_FALSE(grid.isWalkable(0, 0));
  const PathResult off = findGridPath(grid, request, c);
  CHECK(off.failure == PathFailure::StartOutsideGrid);
}

TEST_CASE("grid stepAllowed probes both cells first, so a fresh grid gates cliffs too", "[nav][grid]") {
  // An audit: on a fresh heightmap {0, 100, 0} the 100 m step was allowed until the cells had
  // been probed by something else.
  GridSettings s;
  s.width_cells = 3;
  s.depth_cells = 1;
  s.max_step_height = 1.0;
  for (int round = 0; round < 2; ++round) {
    auto grid = makeHeightmapGrid({0.0, 100.0, 0.0}, s);
    REQUIRE(grid.ok());
    if (round == 1) grid->refresh();
    CHECK_FALSE(grid->stepAllowed(0, 1));
    CHECK_FALSE(grid->stepAllowed(1, 2));
    grid->refresh();
    CHECK_FALSE(grid->stepAllowed(1, 0));
  }
}

TEST_CASE("grid settings: a far edge at infinity is refused", "[nav][grid]") {
  GridSettings s;
  s.width_cells = 100;
  s.depth_cells = 1;
  s.origin = {1e308, 0, 0};
  s.cell_size = 1e308;
  const Status valid = s.validate();
  REQUIRE_FALSE(valid.ok());
  CHECK_THAT(valid.error().message, Catch::Contains("far edge"));
  s.origin = {0, 0, 0};
  s.cell_size = 1e300;
  CHECK(s.validate().ok());
}
