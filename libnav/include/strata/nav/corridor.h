#pragma once
/// \file
/// The corridor method of the layered search (issue 5): a coarse abstraction of the layered graph
/// into axis-aligned rectangles of columns, A* over the rectangles, and string pulling through
/// the rectangles it chose — the layered graph's counterpart of a navmesh's polygon corridor and
/// straight path (Detour's findPath + findStraightPath).
///
/// Guarantees: every walking leg of a corridor route is a straight line that passes
/// `LayeredSearchGraph::walkLine` (checked per query; a failing query falls back to Theta*), the
/// route's jumps, drops, climbs and links are edges of the graph, and a route is found whenever
/// one exists (within the expansion budget, which counts rectangles). Not guaranteed: optimality.
/// The rectangle sequence comes from A* over approximate costs (entry points on the rectangle
/// boundaries), so a route can be longer than Theta*'s; see docs/search.md for figures.
///
/// Decomposition (built once per graph, O(nodes), deterministic): nodes are scanned in index
/// order; each unassigned node seeds a rectangle that grows along +X, then along +Z (and another
/// along +Z, then +X; the larger is kept), while the new column / row qualifies: one floor per
/// column, all nodes of one area, and every pair of 8-adjacent floors inside joined by walk
/// edges both ways. A "floor" here is a twin cluster: the nodes of a column closer together than
/// the step height count as one (every member's edges must agree). Inside such a rectangle any straight
/// segment between column centres is walkable and costs its length times the area cost.
/// Between rectangles:
///  - portals: maximal runs of boundary column pairs joined by cardinal walk edges both ways,
///    with the diagonal walk edges (both ways) between consecutive pairs, so that any line
///    through the run's strip of two columns is walkable;
///  - special edges: every other edge leaving a rectangle (jump, drop, climb, custom link, a
///    one-way walk, a walk across a rectangle corner), from a node to a node. A diagonal walk
///    whose two cardinal steps through a side column are walk edges is left out (the rectangle
///    graph has those steps).
/// Stored in flat arrays: rectangles, a node -> rectangle table and the edges of each rectangle
/// in CSR form, plus two per-node tables for the query's line walks (walk steps into the
/// adjacent column; heights and areas side by side: 40 bytes per node).

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "strata/nav/layered_search.h"

namespace strata::nav {

/// Settings of the rectangle decomposition.
struct CorridorSettings {
  int32_t max_side_cells = 128;  ///< longest rectangle side, columns; 0 = unlimited. Smaller gives more rectangles (slower queries) but entry points closer to the route. [Limit: 0 or >= 1]
  /// Checks every field; the message names the field.
  Status validate() const;
};

/// One rectangle of the decomposition: columns [x0, x1] x [z0, z1] (inclusive), one node each.
struct CorridorRect {
  int32_t x0 = 0;   ///< first column along X
  int32_t z0 = 0;   ///< first column along Z
  int32_t x1 = 0;   ///< last column along X (>= x0)
  int32_t z1 = 0;   ///< last column along Z (>= z0)
  uint16_t area = 0;///< the area of all its nodes
  /// Number of columns.
  int64_t cellCount() const { return int64_t(x1 - x0 + 1) * int64_t(z1 - z0 + 1); }
};

/// A node's height and area, packed for line walks.
struct CorridorFloor {
  float height = 0;   ///< floor height, metres
  uint16_t area = 0;  ///< area id
  uint8_t walks = 0;  ///< bit d: a walk step in direction d (walkSteps()), so the line walk's room test reads one byte
};

/// One edge of the rectangle graph: a portal to an adjacent rectangle, or a special edge.
struct CorridorEdge {
  uint32_t to_rect = 0;              ///< destination rectangle
  bool portal = false;               ///< true: portal; false: special edge (from_node -> to_node)
  uint8_t direction = 0;             ///< portal: side of the source rectangle (0 E, 2 N, 4 W, 6 S; see kDirectionDx)
  MoveAction action = MoveAction::Walk; ///< special edge: how it is traversed
  int32_t lo = 0;                    ///< portal: first column of the run along the side (z for E/W, x for N/S); special: source column x
  int32_t hi = 0;                    ///< portal: last column of the run (>= lo); special: source column z
  int32_t line = 0;                  ///< portal: column across the side on the source rectangle's edge (x for E/W, z for N/S); special: destination column x
  int32_t to_z = 0;                  ///< special: destination column z
  NodeId from_lo = kNoNode;          ///< portal: source node at `lo`; special: the source node
  NodeId from_hi = kNoNode;          ///< portal: source node at `hi`
  NodeId to_lo = kNoNode;            ///< portal: destination node at `lo`; special: the destination node
  NodeId to_hi = kNoNode;            ///< portal: destination node at `hi`
  float cost = 0;                    ///< special edge: its cost (metres-equivalent)
  bool lo_corner = true;             ///< portal: the run's `lo` end is a corner of the walkable plane (the two columns beyond it are not both joined to the run's end pair and to each other)
  bool hi_corner = true;             ///< portal: the same at the `hi` end
};

/// The rectangle decomposition and rectangle graph of one layered graph (see the file comment).
/// Immutable after construction; safe to share between threads.
class CorridorIndex {
 public:
  /// Builds the decomposition of `view`'s graph in O(nodes). `settings` must be valid. Keeps a
  /// reference to `view`, which must outlive the index.
  explicit CorridorIndex(const LayeredSearchGraph& view, const CorridorSettings& settings = {});

  /// Number of rectangles.
  std::size_t rectCount() const { return rects_.size(); }
  /// The rectangles, by id.
  const std::vector<CorridorRect>& rects() const { return rects_; }
  /// Rectangle of a node.
  uint32_t rectOf(NodeId node) const { return rect_of_[node]; }
  /// The edges leaving rectangle `rect`: its portals, then its special edges, those into one
  /// rectangle by one action side by side (in node order among themselves).
  std::span<const CorridorEdge> edgesOf(uint32_t rect) const {
    return {edges_.data() + edge_offsets_[rect], edges_.data() + edge_offsets_[rect + 1]};
  }
  /// Number of portal edges (each portal counted once per direction).
  std::size_t portalCount() const { return portal_count_; }
  /// Number of special edges.
  std::size_t specialCount() const { return edges_.size() - portal_count_; }
  /// Every edge, portals and special edges.
  std::size_t edgeCount() const { return edges_.size(); }
  /// The node of rectangle `rect` in column (x, z) (its twin cluster's lowest node), kNoNode when
  /// the column is outside it.
  NodeId nodeAt(uint32_t rect, int32_t x, int32_t z) const;
  /// The lowest node of `node`'s twin cluster: floors of one column closer than the step height
  /// (and of one area) form one cluster, which the decomposition treats as one floor.
  NodeId clusterOf(NodeId node) const { return rep_[node]; }
  /// The area cost shared by every rectangle of a finite area cost, 0 when they differ.
  double uniformAreaCost() const { return uniform_area_cost_; }
  /// True when a route's cost is its length times one rate: one area cost for every rectangle
  /// and no link cheaper per metre than walking (LayeredSearchGraph::costPerMetre). Otherwise
  /// the corridor method charges each rectangle its area's cost and pulls the route area by
  /// area (findCorridorPath), unless cheapLinks(), and the interval method, whose plane has no
  /// costs, answers with Theta*.
  /// (Areas no floor has do not count.)
  bool costIsLength() const { return uniform_area_cost_ > 0 && !(min_link_rate_ < uniform_area_cost_); }
  /// True when a custom link costs less per metre of its span than walking the cheapest area a
  /// rectangle has, or a link that starts and ends in one rectangle costs less than walking its
  /// span there (the rectangle graph leaves such links out): the corridor method answers with
  /// Theta* then.
  bool cheapLinks() const { return min_link_rate_ < min_area_cost_ || inner_cheap_link_; }
  /// The cheapest finite area cost of a rectangle (infinity when none): what a route pays per
  /// metre at least when !cheapLinks() (areas no floor has do not count, unlike
  /// LayeredSearchGraph::costPerMetre).
  double cheapestAreaCost() const { return min_area_cost_; }
  /// True when a request by `method` (Corridor or Interval) is answered with Theta* on this
  /// index: with cheapLinks(), and for the interval method, whose plane has no costs, also
  /// where !costIsLength().
  bool answersWithTheta(SearchMethod method) const {
    return cheapLinks() || (method == SearchMethod::Interval && !costIsLength());
  }
  /// True when rectangle `to`, entered from its neighbour `from`, leads into a dead end (a part
  /// of the rectangle graph joined to the rest only through `from`, without special edges) that
  /// does not hold rectangle `goal`: no shortest route to `goal` goes there.
  bool deadEnd(uint32_t from, uint32_t to, uint32_t goal) const {
    return dead_parent_[to] == from && (dead_first_[goal] < dead_first_[to] || dead_first_[goal] >= dead_end_[to]);
  }
  /// Number of rectangles in dead ends.
  std::size_t deadEndCount() const { return dead_count_; }
  /// The wrapped search view.
  const LayeredSearchGraph& view() const { return *view_; }
  /// Per node and direction (node * 8 + d, see kDirectionDx), one byte: where its walk edge lands
  /// when it lands in the adjacent column (the steps the walking line test may take), so that a
  /// line walk reads one small table instead of the graph's kind, neighbour and column arrays:
  /// the destination's index among the floors of that column (its node is the column's first
  /// node plus the index), kNoWalkStep when there is no such edge, kFarWalkStep when the index
  /// does not fit in a byte (the graph's neighbour array holds the destination then).
  const uint8_t* walkSteps() const { return walk_step_.data(); }
  static constexpr uint8_t kNoWalkStep = 255;
  static constexpr uint8_t kFarWalkStep = 254;
  /// walkSteps() decoded: the destination of node's walk step in direction d, kNoNode when none.
  NodeId walkTarget(NodeId node, int d) const;
  /// Per node: its height and area together (the other two reads of a line walk step).
  const CorridorFloor* floors() const { return floors_.data(); }

 private:
  const LayeredSearchGraph* view_;
  std::vector<CorridorRect> rects_;
  NodeArray<uint32_t> rect_of_;          // per node
  NodeArray<NodeId> rep_;                // per node: lowest node of its twin cluster
  std::vector<uint32_t> edge_offsets_;   // size rects + 1
  std::vector<CorridorEdge> edges_;
  std::size_t portal_count_ = 0;
  NodeArray<uint8_t> walk_step_;         // per node * 8 + direction (walkSteps())
  NodeArray<CorridorFloor> floors_;      // per node
  double uniform_area_cost_ = 0;
  double min_area_cost_ = std::numeric_limits<double>::infinity();  // cheapest finite area cost of a rectangle
  double min_link_rate_ = std::numeric_limits<double>::infinity();  // cheapest custom link cost per metre of span
  bool inner_cheap_link_ = false;        // a link inside one rectangle cheaper than walking its span there
  std::vector<uint32_t> dead_parent_;    // per rectangle: the neighbour a dead end hangs from (itself at a tree's top; ~0u: not in one)
  std::vector<uint32_t> dead_first_;     // per rectangle: depth-first number of its dead-end subtree (0: none)
  std::vector<uint32_t> dead_end_;       // per rectangle: one past its subtree's numbers
  std::size_t dead_count_ = 0;
};

/// A point of a funnel portal in column coordinates (the column centres), with its node.
struct FunnelPoint {
  int32_t x = 0;         ///< column along X
  int32_t z = 0;         ///< column along Z
  NodeId node = kNoNode; ///< the node at this point
};

/// One portal of the string-pulling pass: its left and right ends as seen by someone walking
/// through it (left = counter-clockwise side, X east and Z north).
struct FunnelPortal {
  FunnelPoint left;   ///< left end
  FunnelPoint right;  ///< right end
};

/// String pulling (the funnel algorithm, after Lee & Preparata 1984 as popularised for navmesh
/// corridors by Mononen's "simple stupid funnel"): the shortest polyline from the first portal
/// (a point: left == right) to the last (a point) through every portal in order, as the list of
/// its corners, first and last included. Exact: integer coordinates, integer orientation tests.
/// Appends to `out` (the caller clears it).
void pullString(std::span<const FunnelPortal> portals, std::vector<FunnelPoint>& out);

/// What a corridor query did beyond its result (tests and benchmarks).
struct CorridorStats {
  bool fell_back = false;     ///< Theta* answered instead: a walking leg failed the line test, cheapLinks(), or the interval method and !costIsLength()
  std::size_t corridor_rects = 0;  ///< rectangles in the chosen corridor
};

/// The corridor query between two snapped nodes (`findLayeredPath` with SearchMethod::Corridor
/// calls it after snapping and the O(1) rejection). `from` / `to` are the exact endpoints of
/// the waypoints. Uses a per-thread scratch state; `state` serves the Theta* fallback only.
/// Where areas differ in cost (!index.costIsLength()), the rectangle search charges the way across each rectangle at its area's cost (as Detour's
/// findPath charges polygons), the string is pulled separately on each side of a change of area
/// cost (from and to the search's entry point on that portal), and a greedy shortcut is taken
/// only where it costs no more than the corners it drops. Not optimal (like Detour's): the
/// crossing point is the search's; see docs/search.md for the figures. The interval method
/// answers with Theta* there, and so does the corridor method where a link is cheaper per metre
/// than walking (index.cheapLinks()).
PathResult findCorridorPath(const CorridorIndex& index, NodeId start, NodeId goal, const sim::Vec3& from,
                            const sim::Vec3& to, const LayeredSearchSettings& settings, SearchState& state,
                            CorridorStats* stats = nullptr);

}  // namespace strata::nav
