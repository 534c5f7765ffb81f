#pragma once
/// \file
/// Path search over a baked layered graph (issue 5): a provider that lets the shared search core
/// (strata/nav/search.h) run A*, Theta* and Direct on a `LayeredGraph`, endpoint snapping, the
/// O(1) component rejection, and the waypoint pass.
///
/// Behaviour follows spec/character-movement-and-navigation.md ("Surface columns", "Search edges,
/// costs, and waypoints") and spec/grid-pathfinding-library.md ("Searching", "Failure reasons"):
///  - A*: 8 directions plus the graph's jump/drop/climb edges and custom links; heuristic is the
///    octile horizontal distance scaled by the cheapest area cost (and by the cheapest link cost
///    per metre, so a cheap link never makes it inadmissible).
///  - Theta*: euclidean heuristic; only walking edges are shortcut. The any-angle line test walks
///    the columns the segment crosses, following walk edges (which the bake checked for standing
///    clearance and the step height), so the line stays on one connected floor. It never crosses
///    a link, jump, drop or climb.
///  - Direct: one such line test from the start node to the goal node (Blocked when it fails).
///  - Failure reasons: NoStartNode / NoGoalNode (no floor near an endpoint), NoPath (endpoints
///    farther apart than the horizontal limit, goal in another connected component — decided in
///    O(1) with zero expansions — or the open set ran out), BudgetExhausted (expansion bound),
///    ClosestNoPath (only when `return_closest` is set: the goal was not reached but the search
///    got closer than the start; the result carries that route), Blocked (Direct).
///  - Waypoints: the exact start first and the exact goal last; heights from the surface;
///    corners, action changes, area boundaries and link ends retained; straight walking runs
///    collapsed; optional spacing along walking segments.

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "strata/nav/agent.h"
#include "strata/nav/layered_graph.h"
#include "strata/nav/search.h"
#include "strata/sim/math.h"
#include "strata/sim/result.h"

namespace strata::nav {

/// How a point snaps to a floor node of the layered graph (endpoints, queries).
struct SnapSettings {
  double max_horizontal = 1.0;  ///< furthest horizontal distance from the point to a node's column centre, metres. [Limit: >= 0, finite]
  double above = 0.5;           ///< a floor may lie up to this far above the point, metres (point slightly under the surface). [Limit: >= 0, finite]
  double below = std::numeric_limits<double>::infinity();  ///< a floor may lie up to this far below the point, metres; +inf = any floor beneath. [Limit: >= 0]
  /// Checks every field; the message names the field.
  Status validate() const;
};

/// The smallest waypoint spacing of a layered request, metres (LayeredSearchSettings::validate()
/// refuses a smaller one; the search itself counts a smaller one as this).
inline constexpr double kMinWaypointSpacing = 0.05;

/// Settings of one layered path request.
struct LayeredSearchSettings {
  SearchMethod method = SearchMethod::AStar;  ///< AStar, Theta, Direct, Corridor or Interval
  LayeredSearchLimits limits;                 ///< 573.44 m horizontal limit, 400,000 expansions
  SnapSettings snap;                          ///< endpoint snapping
  double waypoint_spacing = 0;                ///< extra waypoints at most this far apart along walking segments, metres; 0 = none. [Limit: 0 or >= 0.05]
  bool return_closest = false;                ///< report ClosestNoPath with the closest route instead of NoPath/BudgetExhausted when the search made progress
  /// Checks every field; the message names the field.
  Status validate() const;
};

class CorridorIndex;

/// The layered graph seen through the `SearchGraph` concept of the search core.
/// Holds references: the graph and agent must outlive it. Built in O(nodes + edges) (a column
/// table per node, the heuristic scale and the reachability components); build it once per graph and share it. Thread-safe for concurrent searches (const only).
class LayeredSearchGraph {
 public:
  /// Wraps `graph` for an agent with `agent`'s step height.
  LayeredSearchGraph(const LayeredGraph& graph, const AgentSettings& agent);
  ~LayeredSearchGraph();
  /// Not copyable or movable: the lazily built corridor index points back at the view.
  LayeredSearchGraph(const LayeredSearchGraph&) = delete;
  /// Not assignable.
  LayeredSearchGraph& operator=(const LayeredSearchGraph&) = delete;

  /// Number of floor nodes.
  std::size_t nodeCount() const { return graph_->nodeCount(); }
  /// Calls `visit(to, cost, action)` for every edge (8 slots, then custom links and second
  /// jumps) leaving `node`.
  template <class Visit>
  void forEachEdge(NodeId node, NodeId /*parent*/, Visit&& visit) const;
  /// Octile (A*) or euclidean (any-angle) horizontal distance to `goal`, times the cheapest cost per metre.
  double heuristic(NodeId node, NodeId goal, bool any_angle) const;
  /// A lower bound of shortcutCost: horizontal distance plus half the height change of the ends,
  /// times the cheapest cost per metre.
  double straightCost(NodeId a, NodeId b) const;
  /// Cost of walking straight from a to b as walkLineCost sums it (every height change along the
  /// line, each area's share at its cost), or +infinity when lineOfSight(a, b) is false. Theta*'s
  /// shortcuts cost this, so a route's cost is what its segments cost walked, over a hill too.
  double shortcutCost(NodeId a, NodeId b) const;
  /// Theta*'s cost of the walk edge from a to b whose stored cost is `stored`: shortcutCost
  /// (each area's share) where the two areas' costs differ and the line walks, else `stored`.
  double walkStepCost(NodeId a, NodeId b, double stored) const {
    if (areaCost(a) == areaCost(b)) return stored;
    const double walked = shortcutCost(a, b);
    return walked < std::numeric_limits<double>::infinity() ? walked : stored;
  }
  /// True when an agent can walk straight from node a to node b on one connected floor: every
  /// column the segment crosses is entered by a walk edge from the previous one (no corner
  /// threading; a diagonal crossing needs the diagonal walk edge), ends on b, and no crossed
  /// node is in an area dearer than the dearer end.
  bool lineOfSight(NodeId a, NodeId b) const { return walkLine(a, b, true); }
  /// The walking line test of lineOfSight; `same_cost_only` = false drops the area rule (the
  /// `los` query, Direct).
  bool walkLine(NodeId a, NodeId b, bool same_cost_only) const;
  /// Where and why walkLine(a, b, false) fails (the `los` query's report).
  struct WalkStop {
    enum class Why : uint8_t {
      None,        ///< the line is clear (or a or b is not a node)
      NoRoom,      ///< the line passes off the centre of `last`'s column on a side without room for the agent
      NoEdge,      ///< no walk edge from `last` in `direction`, the column the line enters next
      OtherFloor,  ///< the line reaches b's column on another floor, `last`
    };
    Why why = Why::None;
    NodeId last = kNoNode;  ///< the last node the line stands on (b when clear)
    int direction = -1;     ///< NoEdge: the step's direction from `last` (kDirectionDx); else -1
    double t = 0;           ///< parameter along the segment between the column centres where the line stops:
                            ///< where it leaves `last`'s column (NoEdge), enters it (NoRoom; 0 at a), 1 (OtherFloor)
  };
  WalkStop walkLineStop(NodeId a, NodeId b) const;
  /// True when walking straight from `point`, a point on node `from`'s column off its centre, to
  /// node `to`'s centre stays where walkLine's model lets the agent stand: the quarter of the
  /// column the point lies in is free (`from`'s diagonal walk edge towards the point) and
  /// walkLine(·, to, false) holds from each corner of that quarter (`from` and its three
  /// neighbours towards the point), so the hull of the quarter and `to` is free (an obstacle
  /// between two of the lines would have to cross one). The waypoint passes drop an endpoint's
  /// column centre only then (an audit: from 0.2 m off a column centre the line to the next
  /// corner came 0.07 m closer to a wall's end than the radius).
  bool walkLineFrom(const sim::Vec3& point, NodeId from, NodeId to) const;
  /// The same for a walk from `point` on node `from`'s column to `end` on node `to`'s column, both
  /// off their centres: both quarters free and walkLine(·, ·, false) from each corner of the
  /// one to each corner of the other.
  bool walkLineBetween(const sim::Vec3& point, NodeId from, const sim::Vec3& end, NodeId to) const;
  /// True when node n has its four diagonal walk edges: its column's whole square is free in
  /// walkLine's model (a straight walk between two points on it stays there).
  bool squareFree(NodeId n) const;
  /// Where a walked line enters another area: at parameter t along it, onto `node`.
  struct AreaCrossing {
    double t;
    NodeId node;
  };
  /// walkLine(a, b, false) that also sums the cost of the line as the corridor method does
  /// (each run of one area: its share of the length times the area cost, plus half its height
  /// changes times the cost of the area they enter) and lists where it enters another area.
  /// False (cost and crossings unspecified) when walkLine would be.
  bool walkLineCost(NodeId a, NodeId b, double& cost, std::vector<AreaCrossing>& crossings) const;
  /// The nodes walkLine(a, b, false) steps through, a first and b last, into `nodes`; false
  /// (nodes unspecified) when it would be false.
  bool lineNodes(NodeId a, NodeId b, std::vector<NodeId>& nodes) const;
  /// Column (x, z) of a node in O(1).
  std::array<int32_t, 2> column(NodeId node) const { return {node_x_[node], node_z_[node]}; }
  /// Cost multiplier of the node's area.
  double areaCost(NodeId node) const { return graph_->area_costs[graph_->area[node]]; }

  /// True when no route can lead from `start` to `goal`. On a baked graph
  /// (LayeredGraph::hasRegions) this is exact, !LayeredGraph::canReach: a component test and a
  /// binary search in the start region's reachable regions. On a graph without regions the view
  /// computes its own at construction: the undirected components refined because one-way edges
  /// (drops from a wall top into two rooms) merge regions no route joins: nodes of a *source*
  /// strongly connected component (one no edge enters from outside, such as a wall top) are left
  /// out of the reachability components. A route from a non-source start never passes through a
  /// source component, so different reachability components prove the goal unreachable; a goal
  /// in a source component is reachable only from inside it. False ("maybe") otherwise.
  bool provablyUnreachable(NodeId start, NodeId goal) const;

  /// The wrapped graph.
  const LayeredGraph& graph() const { return *graph_; }
  /// The agent.
  const AgentSettings& agent() const { return *agent_; }
  /// The euclidean heuristic's cost per metre (the cheapest cost of an area some node has,
  /// lowered by cheap links; A*'s octile heuristic uses the same rule per octile metre of each
  /// link's span).
  double costPerMetre() const { return cost_per_metre_; }
  /// True when straightCost(a, b) is a lower bound of every route from a to b: walk, jump, drop
  /// and climb edges cost their horizontal distance plus half their height change at an area
  /// cost of at least costPerMetre (plus penalties), and so do all of the graph's links. (A
  /// custom link may cost less: its default cost, the straight 3D distance, is below that bound
  /// for a steep link.)
  bool straightCostBoundsRoutes() const { return straight_bounds_routes_; }
  /// The rectangle decomposition of the corridor method (corridor.h), built with default
  /// CorridorSettings on the first call (O(nodes); thread-safe), then shared.
  const CorridorIndex& corridor() const;

 private:
  // The four corners of the quarter of node n's column that `point` lies in (n, then its
  // neighbours towards the point along X, along Z, and diagonally); false when a neighbour is not
  // joined by a walk edge (the quarter is not free).
  bool quarterCorners(const sim::Vec3& point, NodeId n, NodeId (&corners)[4]) const;

  // The column walk of walkLine and walkLineCost: from a towards b, one walk edge into the next
  // column per step of the line; `visit(current, next, line)` may stop it (false). True when every
  // step was a walk edge into the expected column, none was stopped, and the walk ended on b.
  template <class Visit>
  bool walkColumns(NodeId a, NodeId b, Visit&& visit) const;
  // The same, calling `fail(why, last, direction, t)` (WalkStop's fields) where it returns false
  // for any reason but `visit`.
  template <class Visit, class Fail>
  bool walkColumns(NodeId a, NodeId b, Visit&& visit, Fail&& fail) const;
  // The cost walk of walkLineCost and shortcutCost: `crossing(t, node)` at each area change; a
  // crossed node dearer than `max_cost` stops it (false).
  template <class Crossing>
  bool walkCost(NodeId a, NodeId b, double max_cost, double& cost, Crossing&& crossing) const;

  const LayeredGraph* graph_;
  const AgentSettings* agent_;
  double cost_per_metre_ = 1.0;         ///< of the euclidean heuristic (any-angle, corridor)
  double octile_cost_per_metre_ = 1.0;  ///< of A*'s octile heuristic (at most cost_per_metre_)
  bool straight_bounds_routes_ = true;  ///< straightCostBoundsRoutes()
  NodeArray<int32_t> node_x_;    // column x per node (nodeColumn is a binary search)
  NodeArray<int32_t> node_z_;    // column z per node
  std::vector<uint32_t> scc_;    // strongly connected component per node
  std::vector<uint8_t> source_;  // per node: its SCC has no edge entering from another SCC
  std::vector<uint32_t> reach_;  // reachability component of non-source nodes (kNoNode for source nodes)
  struct LazyCorridor;           // once_flag + the index, built on first use (corridor_index.cpp)
  std::shared_ptr<LazyCorridor> corridor_;  // shared_ptr: its deleter is bound where LazyCorridor is complete
  static std::shared_ptr<LazyCorridor> makeLazyCorridor();
  void computeReachability();
};

/// The floor node a point snaps to: the ring search of `nearestWalkable` (nav_queries.h) limited
/// by `snap`, taking in each column the floor below the point (never one through a ceiling).
/// kNoNode when none.
NodeId snapToNode(const LayeredGraph& graph, const sim::Vec3& point, const SnapSettings& snap);

/// Finds a route from `from` to `to` on `graph` for `agent`, using `state` (one per thread).
/// Never fails on bad geometry: failures are reasons in the result. `settings` must be valid.
PathResult findLayeredPath(const LayeredGraph& graph, const AgentSettings& agent, const sim::Vec3& from,
                           const sim::Vec3& to, const LayeredSearchSettings& settings, SearchState& state);

/// The same with a prebuilt view (batch mode and benchmarks build it once per graph).
PathResult findLayeredPath(const LayeredSearchGraph& graph, const sim::Vec3& from, const sim::Vec3& to,
                           const LayeredSearchSettings& settings, SearchState& state);

/// One request of a batch.
struct LayeredPathRequest {
  std::size_t agent = 0;           ///< index into the batch's agent views
  sim::Vec3 from;                  ///< start, metres
  sim::Vec3 to;                    ///< goal, metres
  LayeredSearchSettings settings;  ///< method, limits, snapping, spacing (must be valid)
};

/// Runs every request, in parallel on `threads` worker threads (0 or less: oneTBB's default,
/// the CPUs the process may run on) with oneTBB, one SearchState per thread. Results are in
/// request order and do not depend on the thread count. A request whose agent index is out of range gets NoStartNode.
std::vector<PathResult> findLayeredPaths(const std::vector<const LayeredSearchGraph*>& agents,
                                         std::span<const LayeredPathRequest> requests, int threads);
/// The same, `chunk` requests at a time (0 counts as 1): after each chunk, `done(first, results)`
/// is called on the calling thread with the index of the chunk's first request and its results,
/// in request order, so that a caller can write them out and a batch's memory stays that of one
/// chunk's results. The worker threads and their search states are kept from chunk to chunk.
/// Stops early when `done` returns false.
void findLayeredPaths(const std::vector<const LayeredSearchGraph*>& agents, std::span<const LayeredPathRequest> requests,
                      int threads, std::size_t chunk,
                      const std::function<bool(std::size_t first, std::vector<PathResult>& results)>& done);

/// The waypoint pass over a node chain (exposed for tests): exact `from` first, exact `to` last,
/// corners, action changes, area boundaries and link ends kept, straight walking runs collapsed,
/// then `spacing` (> 0) subdivides walking segments.
std::vector<Waypoint> layeredWaypoints(const LayeredSearchGraph& graph, const std::vector<NodeId>& nodes,
                                       const std::vector<MoveAction>& actions, const sim::Vec3& from,
                                       const sim::Vec3& to, double spacing);

/// The spacing step of the waypoint pass: subdivides walking segments of `points` so that no
/// two waypoints are farther apart than `spacing` (> 0; 0 returns `points` unchanged). Inserted
/// points take the height and area of the floor found under them near the interpolated height.
std::vector<Waypoint> spaceWaypoints(const LayeredSearchGraph& graph, std::vector<Waypoint> points, double spacing);

// ---- implementation of the template member ----

/// Maps a baked edge kind to the search core's action.
inline MoveAction moveActionOf(EdgeKind kind) {
  switch (kind) {
    case EdgeKind::Jump: return MoveAction::Jump;
    case EdgeKind::Drop: return MoveAction::Drop;
    case EdgeKind::Climb: return MoveAction::Climb;
    case EdgeKind::Link: return MoveAction::Link;
    default: return MoveAction::Walk;
  }
}

template <class Visit>
void LayeredSearchGraph::forEachEdge(NodeId node, NodeId /*parent*/, Visit&& visit) const {
  const LayeredGraph& g = *graph_;
  const std::size_t base = static_cast<std::size_t>(node) * kDirectionCount;
  for (int d = 0; d < kDirectionCount; ++d) {
    const uint32_t to = g.neighbor[base + d];
    if (to == kNoNode) continue;
    const float cost = g.edge_cost[base + d];
    if (!(cost < std::numeric_limits<float>::infinity())) continue;
    visit(to, static_cast<double>(cost), moveActionOf(static_cast<EdgeKind>(g.edge_kind[base + d])));
  }
  if (g.link_offsets.empty()) return;
  for (uint32_t l = g.link_offsets[node], end = g.link_offsets[node + 1]; l < end; ++l) {
    const OffMeshLink& link = g.links[l];
    if (!(link.cost < std::numeric_limits<float>::infinity())) continue;
    visit(link.to_node, static_cast<double>(link.cost), moveActionOf(link.kind));  // a link or a second jump
  }
}

}  // namespace strata::nav
