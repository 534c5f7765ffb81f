// Grid requests: endpoint checks and failure reasons, the choice between jump point search and
// the plain search core, and turning a cell chain into waypoints
// (spec/grid-pathfinding-library.md, "Searching", "Failure reasons";
// spec/character-movement-and-navigation.md, "Search edges, costs, and waypoints").

#include "strata/nav/grid_search.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "grid_graph.h"
#include "jump_point_search.h"

namespace strata::nav {

namespace {

PathResult failed(PathFailure failure, std::int64_t expansions = 0) {
  PathResult result;
  result.failure = failure;
  result.expansions = expansions;
  return result;
}

// Jump points are joined by pure straight or diagonal runs: put the cells back in between.
std::vector<NodeId> expandRuns(const Grid& grid, const std::vector<NodeId>& jump_points) {
  std::vector<NodeId> cells;
  if (jump_points.empty()) return cells;
  cells.push_back(jump_points.front());
  for (std::size_t i = 1; i < jump_points.size(); ++i) {
    CellCoord a = grid.coord(jump_points[i - 1]);
    const CellCoord b = grid.coord(jump_points[i]);
    const int dx = (b.x > a.x) - (b.x < a.x), dz = (b.z > a.z) - (b.z < a.z);
    while (!(a == b)) {
      a.x += dx, a.z += dz;
      cells.push_back(grid.key(a.x, a.z));
    }
  }
  return cells;
}

// Greedy string pulling: from each kept cell, walk along the route while the straight line from
// it stays in lineOfSight. Every segment passes lineOfSight and, by the triangle inequality, the result is
// never longer than the route it pulls.
std::vector<NodeId> pullTaut(Grid& grid, const std::vector<NodeId>& cells) {
  std::vector<NodeId> taut;
  if (cells.empty()) return taut;
  taut.push_back(cells.front());
  std::size_t anchor = 0;
  while (anchor + 1 < cells.size()) {
    const CellCoord a = grid.coord(cells[anchor]);
    std::size_t next = anchor + 1;
    while (next + 1 < cells.size()) {
      const CellCoord b = grid.coord(cells[next + 1]);
      if (!grid.lineOfSight(a.x, a.z, b.x, b.z)) break;
      ++next;
    }
    taut.push_back(cells[next]);
    anchor = next;
  }
  return taut;
}

// String pulling by galloping: from each kept cell, the route's cells at 1, 2, 4, ... steps ahead
// are tested until one is out of lineOfSight, then the last one in sight before it is found by
// bisection. Visibility along a route is not always a prefix, so this can keep an earlier cell
// than pullTaut, but every segment passes lineOfSight and the result is never longer than the
// route it pulls, for O(log n) line tests per kept cell instead of O(n).
std::vector<NodeId> pullTautGalloping(Grid& grid, const std::vector<NodeId>& cells) {
  std::vector<NodeId> taut;
  if (cells.empty()) return taut;
  taut.push_back(cells.front());
  std::size_t anchor = 0;
  const std::size_t last = cells.size() - 1;
  while (anchor < last) {
    const CellCoord a = grid.coord(cells[anchor]);
    auto sees = [&](std::size_t k) {
      const CellCoord b = grid.coord(cells[k]);
      return grid.lineOfSight(a.x, a.z, b.x, b.z);
    };
    std::size_t seen = anchor + 1, blocked = last + 1;  // seen: in sight (a route step); blocked: not, or past the end
    for (std::size_t step = 1; seen < last;) {
      const std::size_t probe = std::min(last, seen + step);
      if (!sees(probe)) {
        blocked = probe;
        break;
      }
      seen = probe;
      step *= 2;
    }
    while (blocked - seen > 1 && seen < last) {
      const std::size_t middle = seen + (blocked - seen) / 2;
      if (sees(middle)) seen = middle;
      else blocked = middle;
    }
    taut.push_back(cells[seen]);
    anchor = seen;
  }
  return taut;
}

// The length of a chain of cells, from centre to centre, in cells.
double cellLength(const Grid& grid, const std::vector<NodeId>& nodes) {
  double length = 0;
  for (std::size_t i = 1; i < nodes.size(); ++i) {
    const CellCoord a = grid.coord(nodes[i - 1]), b = grid.coord(nodes[i]);
    length += std::hypot(double(a.x - b.x), double(a.z - b.z));
  }
  return length;
}

// Keeps corners (direction or slope changes), action changes, link ends and area boundaries;
// drops the cells along straight walking runs. The first and last points are the exact request
// endpoints. Optional spacing then adds points along walking segments.
std::vector<Waypoint> buildWaypoints(Grid& grid, const std::vector<NodeId>& cells, const std::vector<MoveAction>& actions,
                                     const GridPathRequest& request) {
  const std::size_t n = cells.size();
  std::vector<sim::Vec3> centers(n);
  std::vector<std::uint16_t> areas(n);
  for (std::size_t i = 0; i < n; ++i) {
    const CellCoord c = grid.coord(cells[i]);
    centers[i] = grid.cellToWorld(c.x, c.z);
    areas[i] = grid.area(c.x, c.z);
  }
  auto straight_through = [&](std::size_t i) {
    const sim::Vec3 a = centers[i] - centers[i - 1], b = centers[i + 1] - centers[i];
    const double cross_xz = a.x * b.z - a.z * b.x;
    if (std::abs(cross_xz) > 1e-9 * (1 + std::abs(a.x * b.x + a.z * b.z))) return false;
    if (a.x * b.x + a.z * b.z <= 0) return false;
    const double la = std::hypot(a.x, a.z), lb = std::hypot(b.x, b.z);
    return std::abs(a.y * lb - b.y * la) <= 1e-9 * (la + lb);  // same slope
  };
  // A walking leg across several cells (Theta*, Direct): its line's cells as lineOfSight walks
  // them; a waypoint where it enters another area, on the line at the centre of the first cell
  // of that area along the line's major axis (inside that cell), with its surface height and
  // area. Its end cells are not kept again for that boundary.
  auto longWalk = [&](std::size_t i) {
    const CellCoord a = grid.coord(cells[i - 1]), b = grid.coord(cells[i]);
    return actions[i] == MoveAction::Walk && std::max(std::abs(b.x - a.x), std::abs(b.z - a.z)) > 1;
  };
  std::vector<CellCoord> line;
  // `end_kept`: cell i is a waypoint itself, so an area entered at it needs no other.
  auto addCrossings = [&](std::size_t i, bool end_kept, std::vector<Waypoint>& out) {
    if (!longWalk(i)) return;
    const CellCoord a = grid.coord(cells[i - 1]), b = grid.coord(cells[i]);
    grid.lineCells(a.x, a.z, b.x, b.z, line);
    const bool along_x = std::abs(b.x - a.x) >= std::abs(b.z - a.z);
    for (std::size_t k = 1; k + (end_kept ? 1 : 0) < line.size(); ++k) {
      const std::uint16_t area = grid.area(line[k].x, line[k].z);
      if (area == grid.area(line[k - 1].x, line[k - 1].z)) continue;
      const double t = along_x ? double(line[k].x - a.x) / double(b.x - a.x) : double(line[k].z - a.z) / double(b.z - a.z);
      Waypoint w;
      w.position = centers[i - 1] + (centers[i] - centers[i - 1]) * std::clamp(t, 0.0, 1.0);
      w.position.y = grid.surfaceY(line[k].x, line[k].z);
      w.area = area;
      out.push_back(w);
    }
  };
  std::vector<Waypoint> waypoints;
  for (std::size_t i = 0; i < n; ++i) {
    bool keep = i == 0 || i + 1 == n;
    if (!keep) {
      keep = actions[i] != MoveAction::Walk || actions[i + 1] != MoveAction::Walk ||
             (areas[i] != areas[i - 1] && !longWalk(i)) || (areas[i] != areas[i + 1] && !longWalk(i + 1)) ||
             !straight_through(i);
    }
    if (i > 0) addCrossings(i, keep, waypoints);
    if (!keep) continue;
    Waypoint w;
    w.position = centers[i];
    w.action = actions[i];
    w.area = areas[i];
    waypoints.push_back(w);
  }
  if (n == 1) waypoints.push_back(waypoints.front());  // start and goal share a cell: still start first, goal last
  waypoints.front().position = request.start;
  waypoints.back().position = request.goal;

  if (request.waypoint_spacing > 0 && std::isfinite(request.waypoint_spacing)) {
    // At most 20 points per cell crossed: a spacing of 1e-9 m put points on one leg until the
    // process ran out of memory (t += spacing stopped growing t). (20, not 16: `strata path`
    // takes spacings down to 0.05 cells, and gave 0.0625 apart for them; an audit.)
    const double spacing = std::max(request.waypoint_spacing, grid.settings().cell_size / 20);
    std::vector<Waypoint> spaced;
    spaced.push_back(waypoints.front());
    for (std::size_t i = 1; i < waypoints.size(); ++i) {
      const Waypoint& a = waypoints[i - 1];
      const Waypoint& b = waypoints[i];
      if (b.action == MoveAction::Walk) {
        const double d = std::hypot(b.position.x - a.position.x, b.position.z - a.position.z);
        for (int64_t k = 1; static_cast<double>(k) * spacing < d - 1e-9; ++k) {
          const double t = static_cast<double>(k) * spacing;
          Waypoint mid;
          mid.position = a.position + (b.position - a.position) * (t / d);
          if (const auto cell = grid.worldToCell(mid.position); cell && grid.isWalkable(cell->x, cell->z)) {
            mid.position.y = grid.surfaceY(cell->x, cell->z);
            mid.area = grid.area(cell->x, cell->z);
          }
          spaced.push_back(mid);
        }
      }
      spaced.push_back(b);
    }
    waypoints = std::move(spaced);
  }
  return waypoints;
}

}  // namespace

bool gridIsUniform(const Grid& grid) { return grid.links().empty() && !grid.hasHeights() && !grid.hasAreas(); }

namespace {

PathResult gridPath(Grid& grid, const GridPathRequest& request, SearchState& state) {
  const auto start = grid.worldToCell(request.start);
  if (!start) return failed(PathFailure::StartOutsideGrid);
  const auto goal = grid.worldToCell(request.goal);
  if (!goal) return failed(PathFailure::GoalOutsideGrid);
  const NodeId start_key = grid.key(start->x, start->z), goal_key = grid.key(goal->x, goal->z);

  // The straight line from start to goal, when it passed lineOfSight (Direct, and Theta* below).
  auto line = [&] {
    PathResult result;
    result.nodes = {start_key};
    if (goal_key != start_key) result.nodes.push_back(goal_key);
    result.cost = std::hypot(double(goal->x - start->x), double(goal->z - start->z));
    result.waypoints = buildWaypoints(grid, result.nodes, std::vector<MoveAction>(result.nodes.size(), MoveAction::Walk), request);
    result.length = horizontalLength(result.waypoints);
    return result;
  };
  if (request.method == SearchMethod::Direct) {
    if (!grid.lineOfSight(start->x, start->z, goal->x, goal->z)) return failed(PathFailure::Blocked);
    return line();
  }

  if (!grid.isWalkable(start->x, start->z)) return failed(PathFailure::StartBlocked);
  if (!grid.isWalkable(goal->x, goal->z)) return failed(PathFailure::GoalBlocked);

  SearchOptions options;
  options.any_angle = request.method == SearchMethod::Theta;
  options.max_expansions = std::max<std::int64_t>(0, request.max_expansions);

  // Theta* on a uniform grid where the start sees the goal: no route is shorter than the straight
  // line and every cell costs the same, so the line is the answer without a search. (Theta*
  // over jump points, which sees fewer parents, missed it: on arena 1,10 -> 16,46 it gave 39.358
  // for the line's 39.0, and 11 of 30 such arena scenarios came out up to 0.92 % longer: an
  // audit.) Grids of areas, heights or links run the search.
  if (options.any_angle && start_key != goal_key && gridIsUniform(grid) && grid.lineOfSight(start->x, start->z, goal->x, goal->z))
    return line();

  SearchOutcome outcome;
  bool jumped = false;
  // Jump point search only without a budget: it expands jump points, not cells, so under a
  // budget the same request would succeed or run out depending on whether earlier queries had
  // filled the lazy cache (the fast path needs the whole grid rasterized). The budget counts the
  // plain search's cells, whatever the cache holds.
  if (request.use_jump_points && options.max_expansions == 0 && gridIsUniform(grid)) {
    if (const GridBitmap* bitmap = grid.bitmap()) {  // only on fully rasterized grids
      outcome = search(detail::JumpPointGraph(grid, *bitmap, goal_key, !options.any_angle), state, start_key, goal_key, options);
      jumped = true;
    }
  }
  if (!jumped) outcome = search(detail::GridGraph(grid), state, start_key, goal_key, options);

  if (outcome.status == SearchStatus::BudgetExhausted) return failed(PathFailure::BudgetExhausted, outcome.expansions);
  if (outcome.status == SearchStatus::NoPath) return failed(PathFailure::NoPath, outcome.expansions);

  PathResult result;
  result.expansions = outcome.expansions;
  result.cost = outcome.cost;
  std::vector<NodeId> nodes = state.pathTo(goal_key);
  std::vector<MoveAction> actions = state.actionsTo(goal_key);
  const CellCoord s_cell = grid.coord(start_key), g_cell = grid.coord(goal_key);
  const double octile_bound = detail::octile(g_cell.x - s_cell.x, g_cell.z - s_cell.z);
  bool pulled = false;  // the exact route pulled taut replaced Theta*'s
  // No 8-connected route is shorter than the octile distance: a Theta* route within it needs no check.
  if (jumped && options.any_angle && result.cost > octile_bound + 1e-9) {
    // Theta* over jump points prunes by the direction of arrival, which can (rarely) leave it
    // longer than the exact 8-connected route. Keep the any-angle promise: run the exact search
    // too and, when it is shorter, return its route pulled taut through lineOfSight.
    SearchOptions exact = options;  // unlimited, as jump point search runs only without a budget
    exact.any_angle = false;
    const SearchOutcome astar = search(detail::JumpPointGraph(grid, *grid.bitmap(), goal_key, true), state, start_key, goal_key, exact);
    result.expansions += astar.expansions;
    if (astar.status == SearchStatus::Found && astar.cost < result.cost) {
      const std::vector<NodeId> cells = expandRuns(grid, state.pathTo(goal_key));
      nodes = pullTaut(grid, cells);
      result.cost = cellLength(grid, nodes);
      actions.assign(nodes.size(), MoveAction::Walk);
      pulled = true;
    }
  }
  if (jumped && options.any_angle && !pulled && nodes.size() > 2) {
    // Over jump points Theta* sees fewer parents than over every cell: its corners sit at jump
    // points, where plain Theta* would have cut across earlier (an audit: arena 1,11 -> 8,29 gave
    // the 8-connected 20.899 for plain Theta*'s 19.417; 1-2 % longer in total over the Moving AI
    // maps). Its route's cells pulled taut through lineOfSight, when that is shorter.
    std::vector<NodeId> cells;
    std::vector<CellCoord> line;
    cells.push_back(nodes.front());
    for (std::size_t i = 1; i < nodes.size(); ++i) {
      const CellCoord a = grid.coord(nodes[i - 1]), b = grid.coord(nodes[i]);
      grid.lineCells(a.x, a.z, b.x, b.z, line);
      for (std::size_t k = 1; k < line.size(); ++k) cells.push_back(grid.key(line[k].x, line[k].z));
    }
    std::vector<NodeId> taut = pullTautGalloping(grid, cells);
    double taut_length = cellLength(grid, taut);
    std::reverse(cells.begin(), cells.end());
    std::vector<NodeId> back = pullTautGalloping(grid, cells);
    const double back_length = cellLength(grid, back);
    if (back_length < taut_length) {
      std::reverse(back.begin(), back.end());
      taut = std::move(back);
      taut_length = back_length;
    }
    if (taut_length < result.cost - 1e-9) {
      nodes = std::move(taut);
      result.cost = taut_length;
      actions.assign(nodes.size(), MoveAction::Walk);
    }
  }
  if (jumped && !options.any_angle) {  // Theta* segments stay as they are: each passes lineOfSight
    nodes = expandRuns(grid, nodes);
    actions.assign(nodes.size(), MoveAction::Walk);
  }
  result.waypoints = buildWaypoints(grid, nodes, actions, request);
  result.nodes = std::move(nodes);
  result.length = horizontalLength(result.waypoints);
  return result;
}

}  // namespace

PathResult findGridPath(Grid& grid, const GridPathRequest& request, SearchState& state) {
  PathResult result = gridPath(grid, request, state);
  // Grids answer corridor and interval as A* (search.h).
  const bool own = request.method == SearchMethod::Direct || request.method == SearchMethod::Theta;
  result.answered_by = own ? request.method : SearchMethod::AStar;
  return result;
}

PathResult findGridPath(Grid& grid, const GridPathRequest& request) {
  thread_local SearchState state;
  return findGridPath(grid, request, state);
}

}  // namespace strata::nav
