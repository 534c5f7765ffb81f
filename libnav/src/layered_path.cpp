// One layered path request: limits, endpoint snapping, the O(1) component rejection, the search
// core (A* / Theta*) or the Direct line test, and the failure reasons.
//
// Order of the checks (each is cheaper than the next, and none expands a node):
//  1. no floor near the start -> NoStartNode, near the goal -> NoGoalNode (first: a point off
//     the map, a unit or axis mistake, is named as such even when it is also far away);
//  2. endpoints farther apart horizontally than limits.max_horizontal_distance -> NoPath
//     (spec "Surface columns": 2,048 studs);
//  3. Direct: one walking line test -> Blocked when it fails;
//  4. the goal provably unreachable in O(1): different connected components (the bake's
//     undirected ones, refined by LayeredSearchGraph for one-way edges, layered_reachability.cpp)
//     -> NoPath with zero expansions: no edge sequence joins them, so the search is not run
//     (unless return_closest asks for the closest route, which takes the search);
//  5. Corridor and Interval: the rectangle search (A* or interval search) and string pulling of
//     corridor_path.cpp (same reasons);
//  6. the search: Found, or BudgetExhausted / NoPath (open set ran out: one-way drops or links
//     lead away), replaced by ClosestNoPath with the closest route when `return_closest` is set
//     and the search got closer to the goal than the start.

#include <cmath>
#include <limits>
#include <utility>

#include "end_legs.h"
#include "strata/nav/corridor.h"
#include "strata/nav/layered_search.h"
#include "strata/nav/nav_queries.h"

namespace strata::nav {

Status SnapSettings::validate() const {
  if (!std::isfinite(max_horizontal) || max_horizontal < 0)
    return Error::badInput("snap: max_horizontal must be a finite number >= 0");
  if (!std::isfinite(above) || above < 0) return Error::badInput("snap: above must be a finite number >= 0");
  if (std::isnan(below) || below < 0) return Error::badInput("snap: below must be >= 0 (inf allowed)");
  return Ok{};
}

Status LayeredSearchSettings::validate() const {
  // (An audit: a cast out of range was searched and reported as the method that answered.)
  if (static_cast<unsigned>(method) > static_cast<unsigned>(SearchMethod::Interval))
    return Error::badInput("method: " + std::to_string(static_cast<unsigned>(method)) + " is not a SearchMethod");
  if (Status s = limits.validate(); !s) return s;
  if (Status s = snap.validate(); !s) return s;
  if (!std::isfinite(waypoint_spacing) || waypoint_spacing < 0 || (waypoint_spacing > 0 && waypoint_spacing < kMinWaypointSpacing))
    return Error::badInput("waypoint_spacing must be 0 (none) or a finite number >= 0.05 (metres)");
  return Ok{};
}

NodeId snapToNode(const LayeredGraph& graph, const sim::Vec3& point, const SnapSettings& snap) {
  const auto hit = nearestWalkable(graph, point, snap);
  return hit ? hit->node : kNoNode;
}

namespace {

PathResult failure(PathFailure reason, SearchMethod method) {
  PathResult result;
  result.failure = reason;
  result.answered_by = method;
  return result;
}

// The corridor method's answer, then `second`'s with the budget it left (`rest`: `settings`
// with max_expansions cut to that), the cheaper kept (`second`'s on a tie), expansions summed.
// The corridor method runs first so that a budget always buys its answer, and its failures
// (NoPath, BudgetExhausted, ClosestNoPath) are the answer.
template <class Second>
PathResult corridorThen(const LayeredSearchGraph& view, NodeId start, NodeId goal, const sim::Vec3& from, const sim::Vec3& to,
                        const LayeredSearchSettings& settings, SearchState& state, Second&& second) {
  LayeredSearchSettings corridor_settings = settings;
  corridor_settings.method = SearchMethod::Corridor;
  PathResult corridor = findCorridorPath(view.corridor(), start, goal, from, to, corridor_settings, state);
  if (corridor.failure != PathFailure::None) return corridor;
  LayeredSearchSettings rest = settings;
  const int64_t budget = settings.limits.max_expansions;
  if (budget > 0) {
    if (corridor.expansions >= budget) return corridor;
    rest.limits.max_expansions = budget - corridor.expansions;
  }
  PathResult answer = second(rest, corridor.expansions);
  const int64_t expansions = answer.expansions + corridor.expansions;
  PathResult& kept = answer.failure == PathFailure::None && !(corridor.cost < answer.cost) ? answer : corridor;
  kept.expansions = expansions;
  return std::move(kept);
}

}  // namespace

PathResult findLayeredPath(const LayeredGraph& graph, const AgentSettings& agent, const sim::Vec3& from,
                           const sim::Vec3& to, const LayeredSearchSettings& settings, SearchState& state) {
  const LayeredSearchGraph view(graph, agent);
  return findLayeredPath(view, from, to, settings, state);
}

PathResult findLayeredPath(const LayeredSearchGraph& view, const sim::Vec3& from, const sim::Vec3& to,
                           const LayeredSearchSettings& settings, SearchState& state) {
  const LayeredGraph& graph = view.graph();
  const NodeId start = snapToNode(graph, from, settings.snap);
  if (start == kNoNode) return failure(PathFailure::NoStartNode, settings.method);
  const NodeId goal = snapToNode(graph, to, settings.snap);
  if (goal == kNoNode) return failure(PathFailure::NoGoalNode, settings.method);
  if (!(std::hypot(to.x - from.x, to.z - from.z) <= settings.limits.max_horizontal_distance))
    return failure(PathFailure::NoPath, settings.method);

  PathResult result;
  result.answered_by = settings.method;
  if (settings.method == SearchMethod::Direct) {
    // One line, costed as the corridor method costs its segments (each area's share of the
    // length at its cost), with a waypoint where it enters another area.
    std::vector<LayeredSearchGraph::AreaCrossing> crossings;
    double cost = 0;
    if (!view.walkLineCost(start, goal, cost, crossings)) return failure(PathFailure::Blocked, settings.method);
    result.nodes = {start, goal};
    result.cost = cost;
    const GridFrame& grid = graph.grid;
    auto centre = [&](NodeId n) {
      const auto c = view.column(n);
      return sim::Vec3{grid.centerX(c[0]), static_cast<double>(graph.height[n]), grid.centerZ(c[1])};
    };
    // The end nodes' centres go where the line from the exact point is clear (end_legs.h).
    detail::EndCentres ends;
    if (start != goal) ends = detail::endCentres(view, from, start, goal, true, to, goal, start, true);
    const bool drop_start = ends.drop_start, drop_goal = ends.drop_goal;
    std::vector<Waypoint>& points = result.waypoints;
    points.push_back({{from.x, graph.surfaceAt(start, view.column(start), from.x, from.z), from.z}, MoveAction::Walk, graph.area[start]});
    if (start != goal && !drop_start) points.push_back({centre(start), MoveAction::Walk, graph.area[start]});
    if (start == goal && detail::oneNodeThroughCentre(view, start, from, to))
      points.push_back({centre(start), MoveAction::Walk, graph.area[start]});
    const sim::Vec3 a = centre(start), b = centre(goal);
    const std::size_t first_crossing = points.size();
    for (const auto& c : crossings) points.push_back({a + (b - a) * c.t, MoveAction::Walk, graph.area[c.node]});
    if (drop_start || drop_goal)
      detail::moveCrossingsOntoLeg(grid, std::span(points).subspan(first_crossing), a, b, drop_start ? from : a, drop_goal ? to : b);
    // Each crossing stands on the surface of the floor it enters, under it (where it lies now).
    for (std::size_t k = 0; k < crossings.size(); ++k) {
      sim::Vec3& p = points[first_crossing + k].position;
      p.y = graph.surfaceAt(crossings[k].node, view.column(crossings[k].node), p.x, p.z);
    }
    if (start != goal && !drop_goal) points.push_back({centre(goal), MoveAction::Walk, graph.area[goal]});
    points.push_back({{to.x, graph.surfaceAt(goal, view.column(goal), to.x, to.z), to.z}, MoveAction::Walk, graph.area[goal]});
    if (settings.waypoint_spacing > 0) points = spaceWaypoints(view, std::move(points), settings.waypoint_spacing);
    result.length = horizontalLength(result.waypoints);
    return result;
  }
  // With return_closest the search runs anyway: an unreachable goal is when the closest route
  // is wanted (spec: "If the search makes progress but does not reach the goal, it can return
  // ClosestNoPath with the closest discovered route").
  if (!settings.return_closest && view.provablyUnreachable(start, goal)) return failure(PathFailure::NoPath, settings.method);
  // The interval method where a route's cost is not its length (areas of different costs,
  // links cheaper than walking), the corridor method where links are cheaper than walking:
  // Theta* answers (corridor.h), once (not once per method the interval method runs).
  if ((settings.method == SearchMethod::Corridor || settings.method == SearchMethod::Interval) &&
      view.corridor().answersWithTheta(settings.method)) {
    if (settings.method == SearchMethod::Corridor || view.corridor().answersWithTheta(SearchMethod::Corridor)) {
      LayeredSearchSettings theta = settings;
      theta.method = SearchMethod::Theta;
      return findLayeredPath(view, from, to, theta, state);
    }
    // The interval method on a world of area costs that the corridor method weighs: as below,
    // with Theta* in the interval search's place (Theta* alone answered, up to 0.1 % dearer
    // than the corridor method in 9 of 498 random pairs on the sample tower; an audit, the
    // documents saying the corridor route was always computed and kept when cheaper).
    return corridorThen(view, start, goal, from, to, settings, state, [&](const LayeredSearchSettings& rest, int64_t) {
      LayeredSearchSettings second = rest;
      second.method = SearchMethod::Theta;
      return findLayeredPath(view, from, to, second, state);
    });
  }
  if (settings.method == SearchMethod::Corridor) return findCorridorPath(view.corridor(), start, goal, from, to, settings, state);
  if (settings.method == SearchMethod::Interval) {
    // The interval search is exact in the plane of whole column cells, which in passages one or
    // two columns wide cuts every turn by up to a column: there it can prefer a route of many
    // turns that is longer through column centres than the corridor method's (a maze: 49.3 m
    // against 44.2). Both run; the cheaper answer is kept (the interval one on a tie). The
    // corridor method runs first, so that a budget (shared: the two together expand at most
    // --budget nodes) always buys its answer, and its failures (NoPath, BudgetExhausted,
    // ClosestNoPath) are the answer; the interval search gets what it left.
    //
    // The interval search is exact, so it expands every node whose cost plus the straight rest
    // is below the route's cost: where routes are far longer than straight lines and tie in
    // length (a lattice of pillars, lanes between them), that grew far faster than the route
    // (a 198 m route: 903,000 nodes, 2.9 s and 424 MB against the corridor method's 1,920
    // rectangles in 0.23 s). So it gets at most 32 times the rectangles the corridor method
    // expanded, plus 131,072 nodes (the Recast meshes' queries stay far below: 8 times on
    // average, at most 12,596 nodes on dungeon for an agent that jumps; 4,096 was reached
    // there, and 65,536 on fine lattices of pillars); beyond, the corridor method's route is
    // the answer.
    return corridorThen(view, start, goal, from, to, settings, state, [&](const LayeredSearchSettings& rest, int64_t corridor_expansions) {
      LayeredSearchSettings capped = rest;
      const int64_t cap = 131072 + 32 * corridor_expansions;
      if (capped.limits.max_expansions <= 0 || capped.limits.max_expansions > cap) capped.limits.max_expansions = cap;
      return findCorridorPath(view.corridor(), start, goal, from, to, capped, state);
    });
  }

  const bool any_angle = settings.method == SearchMethod::Theta;
  SearchOptions options;
  options.any_angle = any_angle;
  options.max_expansions = settings.limits.max_expansions;
  options.track_closest = settings.return_closest;
  // Theta* for the closest route to a goal the bake proves unreachable: the search floods the
  // start's component up to the budget whatever the method, and Theta*'s line tests back to
  // each node's parent grow with the flood (a 250 m floor with the goal on a block: 400,000
  // expansions took 50 s, A*'s 0.8 s). So A* floods, and its route to the closest node is
  // straightened below as Theta*'s routes are (one line per run of walking legs, then the greedy
  // pass over corners).
  if (any_angle && settings.return_closest && view.provablyUnreachable(start, goal)) options.any_angle = false;
  // Theta* where the start sees the goal across ground no route can cross for less: when the
  // straight line walks for straightCost (its horizontal length plus half the height change of
  // its ends, at the cheapest rate: the line keeps to areas of that rate and never climbs to
  // come down again), no route is cheaper (straightCostBoundsRoutes), and it is the answer
  // without a search. (An open 600 m floor: a 540 m line took Theta* 14,000 expansions and
  // 2.8 s, each expansion testing lines hundreds of columns long.) Elsewhere the search runs.
  // (Relative slack 1e-9: the line's cost and its bound sum the same lengths in another order.)
  double line_cost = std::numeric_limits<double>::infinity();
  if (options.any_angle && start != goal && view.straightCostBoundsRoutes()) {
    const double across = view.shortcutCost(start, goal);
    if (across <= view.straightCost(start, goal) * (1 + 1e-9)) line_cost = across;
  }
  const bool line = std::isfinite(line_cost);
  SearchOutcome outcome;
  if (line) outcome.status = SearchStatus::Found;
  else outcome = search(view, state, start, goal, options);
  result.expansions = outcome.expansions;
  NodeId end = goal;
  if (outcome.status != SearchStatus::Found) {
    const bool progressed = settings.return_closest && outcome.closest != kNoNode && outcome.closest != start &&
                            view.heuristic(outcome.closest, goal, false) < view.heuristic(start, goal, false);
    if (!progressed) {
      result.failure = outcome.status == SearchStatus::BudgetExhausted ? PathFailure::BudgetExhausted : PathFailure::NoPath;
      return result;
    }
    result.failure = PathFailure::ClosestNoPath;
    end = outcome.closest;
  }
  result.nodes = line ? std::vector<NodeId>{start, goal} : state.pathTo(end);
  std::vector<MoveAction> actions = line ? std::vector<MoveAction>{MoveAction::Walk, MoveAction::Walk} : state.actionsTo(end);
  result.cost = line ? line_cost : state.record(end).g;
  if (any_angle && !line) {
    // Theta*'s g charges a shortcut by what walking it costs (each area's share of the line) but
    // a plain walk edge at its destination's cost, so a route leaving a dear area by a plain
    // edge was charged the cheap cost for the half column still inside it (a straight route
    // through mud at cost 10 read 50.875 where direct and A* read 52). The reported cost is what
    // every walking segment costs walked, as direct and corridor cost them; jumps, drops,
    // climbs and links cost their edges (and so does a walking leg whose line does not pass).
    std::vector<NodeId>& nodes = result.nodes;
    std::vector<double> leg(nodes.size(), 0.0);  // leg[i]: the cost of nodes[i - 1] -> nodes[i]
    for (std::size_t i = 1; i < nodes.size(); ++i) {
      const double walked =
          actions[i] == MoveAction::Walk ? view.shortcutCost(nodes[i - 1], nodes[i]) : std::numeric_limits<double>::infinity();
      leg[i] = std::isfinite(walked) ? walked : state.record(nodes[i]).g - state.record(nodes[i - 1]).g;
    }
    // Theta* tries a line only from a node's parent, and a parent reached diagonally past a
    // column corner can hide a straight line the route could take (a hunt: six cells stepping
    // diagonally, the start in sight of the goal, and Theta* walked the staircase, 39 % longer).
    // So each run of walking legs (between jumps, drops, climbs and links) is first tried as one
    // line, kept when it walks for no more than the run costs; then one greedy pass over the
    // walking corners left: a corner goes when the line between the corner kept before it and
    // the next one walks for no more than the two legs cost.
    auto keep = [&](std::size_t to, std::size_t from) {
      nodes[to] = nodes[from];
      actions[to] = actions[from];
      leg[to] = leg[from];
    };
    auto cut = [&](std::size_t count) {
      nodes.resize(count);
      actions.resize(count);
      leg.resize(count);
    };
    std::vector<uint8_t> drop(nodes.size(), 0);
    for (std::size_t first = 0; first + 1 < nodes.size();) {
      std::size_t last = first + 1;
      while (last + 1 < nodes.size() && actions[last + 1] == MoveAction::Walk) ++last;
      if (actions[first + 1] == MoveAction::Walk && last > first + 1) {
        double run = 0;
        for (std::size_t i = first + 1; i <= last; ++i) run += leg[i];
        const double across = view.shortcutCost(nodes[first], nodes[last]);
        if (std::isfinite(across) && across <= run * (1 + 1e-12)) {
          for (std::size_t i = first + 1; i < last; ++i) drop[i] = 1;
          leg[last] = across;
        }
      }
      first = actions[first + 1] == MoveAction::Walk ? last : first + 1;
    }
    std::size_t kept = 1;
    for (std::size_t i = 1; i < nodes.size(); ++i)
      if (!drop[i]) keep(kept++, i);
    cut(kept);
    kept = 1;
    for (std::size_t i = 1; i < nodes.size(); ++i) {
      if (i + 1 < nodes.size() && actions[i] == MoveAction::Walk && actions[i + 1] == MoveAction::Walk) {
        const double across = view.shortcutCost(nodes[kept - 1], nodes[i + 1]);
        // (Relative slack: along a straight run the sum of legs and the line tie, and rounding
        // kept corners in open floor: a route to a closest node came out 81.36 m for 79.25.)
        if (std::isfinite(across) && across <= (leg[i] + leg[i + 1]) * (1 + 1e-12)) {
          leg[i + 1] = across;  // the leg from the corner kept before i
          continue;
        }
      }
      keep(kept++, i);
    }
    cut(kept);
    double cost = 0;
    for (std::size_t i = 1; i < nodes.size(); ++i) cost += leg[i];
    result.cost = cost;
  }
  const sim::Vec3 end_point = end == goal ? to : graph.nodePosition(end);
  result.waypoints = layeredWaypoints(view, result.nodes, actions, from, end_point, settings.waypoint_spacing);
  result.length = horizontalLength(result.waypoints);
  return result;
}

}  // namespace strata::nav
