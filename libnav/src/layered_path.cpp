// One layered path request: limits, endpoint snapping, the O(1) component rejection, the search
// core (A* / Theta*) or the Direct line test, and the failure reasons.
//
// Order of the checks (each is cheaper than the next, and none expands a node):
//  1. endpoints farther apart horizontally than limits.max_horizontal_distance -> NoPath
//     (spec "Surface columns": 2,048 studs);
//  2. no floor near the start -> NoStartNode, near the goal -> NoGoalNode;
//  3. Direct: one walking line test -> Blocked when it fails;
//  4. the goal provably unreachable in O(1): different connected components (the bake's
//     undirected ones, refined by LayeredSearchGraph for one-way edges, layered_reachability.cpp)
//     -> NoPath with zero expansions: no edge sequence joins them, so the search is not run;
//  5. Corridor and Interval: the rectangle search (A* or interval search) and string pulling of
//     corridor_path.cpp (same reasons);
//  6. the search: Found, or BudgetExhausted / NoPath (open set ran out: one-way drops or links
//     lead away), replaced by ClosestNoPath with the closest route when `return_closest` is set
//     and the search got closer to the goal than the start.

#include <cmath>

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
  if (Status s = limits.validate(); !s) return s;
  if (Status s = snap.validate(); !s) return s;
  if (!std::isfinite(waypoint_spacing) || waypoint_spacing < 0 || (waypoint_spacing > 0 && waypoint_spacing < 0.05))
    return Error::badInput("waypoint_spacing must be 0 (none) or a finite number >= 0.05 (metres)");
  return Ok{};
}

NodeId snapToNode(const LayeredGraph& graph, const sim::Vec3& point, const SnapSettings& snap) {
  const auto hit = nearestWalkable(graph, point, snap);
  return hit ? hit->node : kNoNode;
}

namespace {

PathResult failure(PathFailure reason) {
  PathResult result;
  result.failure = reason;
  return result;
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
  if (!(std::hypot(to.x - from.x, to.z - from.z) <= settings.limits.max_horizontal_distance))
    return failure(PathFailure::NoPath);
  const NodeId start = snapToNode(graph, from, settings.snap);
  if (start == kNoNode) return failure(PathFailure::NoStartNode);
  const NodeId goal = snapToNode(graph, to, settings.snap);
  if (goal == kNoNode) return failure(PathFailure::NoGoalNode);

  PathResult result;
  if (settings.method == SearchMethod::Direct) {
    if (!view.walkLine(start, goal, false)) return failure(PathFailure::Blocked);
    result.nodes = {start, goal};
    result.waypoints = layeredWaypoints(view, result.nodes, {MoveAction::Walk, MoveAction::Walk}, from, to,
                                        settings.waypoint_spacing);
    result.cost = view.straightCost(start, goal);
    result.length = horizontalLength(result.waypoints);
    return result;
  }
  if (view.provablyUnreachable(start, goal)) return failure(PathFailure::NoPath);
  if (settings.method == SearchMethod::Corridor || settings.method == SearchMethod::Interval)
    return findCorridorPath(view.corridor(), start, goal, from, to, settings, state);

  SearchOptions options;
  options.any_angle = settings.method == SearchMethod::Theta;
  options.max_expansions = settings.limits.max_expansions;
  options.track_closest = settings.return_closest;
  const SearchOutcome outcome = search(view, state, start, goal, options);
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
  result.nodes = state.pathTo(end);
  const std::vector<MoveAction> actions = state.actionsTo(end);
  result.cost = state.record(end).g;
  const sim::Vec3 end_point = end == goal ? to : graph.nodePosition(end);
  result.waypoints = layeredWaypoints(view, result.nodes, actions, from, end_point, settings.waypoint_spacing);
  result.length = horizontalLength(result.waypoints);
  return result;
}

}  // namespace strata::nav
