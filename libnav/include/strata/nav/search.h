#pragma once
/// \file
/// The one search implementation: A* over any graph that satisfies `SearchGraph`, with an
/// any-angle flag that turns it into Theta*.
///
/// Sources: Hart, Nilsson & Raphael, "A Formal Basis for the Heuristic Determination of Minimum
/// Cost Paths" (1968); Nash, Daniel, Koenig & Felner, "Theta*: Any-Angle Path Planning on Grids"
/// (AAAI 2007). Behaviour follows spec/grid-pathfinding-library.md ("Mental model", "Searching")
/// and spec/character-movement-and-navigation.md ("Search edges, costs, and waypoints").
///
/// - The open set is a binary min-heap without decrease-key: an improved node is pushed again
///   and its stale entry is skipped when it pops.
/// - Node records live in one flat array stamped with a generation number, so starting a new
///   search is O(1) and a `SearchState` can be reused by one thread for any number of searches.
/// - In any-angle mode, relaxing a walking edge s -> n first tries parent(s) -> n: when that
///   segment passes the graph's lineOfSight and is no longer, n is routed through the grandparent.
///   Only walking edges are shortcut: links, jumps, drops and climbs are never cut across.
/// - The graph supplies the heuristic (octile on grids, euclidean in any-angle mode, because
///   octile overestimates a straight segment and an inadmissible heuristic gives worse paths).

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "strata/sim/math.h"
#include "strata/sim/result.h"

namespace strata::nav {

/// Index of a node in a search graph (a cell key on grids).
using NodeId = std::uint32_t;
/// "No node": the parent of the start, or a missing result.
inline constexpr NodeId kNoNode = std::numeric_limits<NodeId>::max();

/// How an agent moves along an edge, and how it arrives at a waypoint.
enum class MoveAction : std::uint8_t {
  Walk,   ///< ordinary walking within the step limit; the only kind any-angle search may shortcut
  Jump,   ///< upward change past step reach (layered graph)
  Drop,   ///< allowed downward drop (layered graph)
  Climb,  ///< climbing edge (layered graph)
  Link,   ///< an off-mesh link (grid addLink or a custom link), one-way
};

/// The search methods of the request (spec "Mental model").
enum class SearchMethod : std::uint8_t {
  AStar,  ///< 8-connected A*, octile heuristic, no corner cutting; exact
  Theta,  ///< any-angle A* (Theta*) through lineOfSight; euclidean heuristic
  Direct, ///< one straight-line test
  Corridor, ///< layered graphs: A* over a coarse decomposition, then string pulling; walkable, not optimal. Grids answer it as AStar (exact; jump point search makes that fast)
  Interval, ///< layered graphs: the corridor method with the rectangles chosen by an exact interval search (shortest in the rectangles' plane) and corners tightened; slower than Corridor, routes as short as Theta*'s. Grids answer it as AStar
};

/// Why a search failed (spec "Failure reasons"; the last three come from the layered provider).
enum class PathFailure : std::uint8_t {
  None,              ///< success
  StartOutsideGrid,  ///< the start is off the grid rectangle
  GoalOutsideGrid,   ///< the goal is off the grid rectangle
  StartBlocked,      ///< the start cell rasterized as not walkable
  GoalBlocked,       ///< the goal cell rasterized as not walkable
  NoPath,            ///< the search ran out of nodes: the goal is sealed off (or beyond the horizontal limit)
  BudgetExhausted,   ///< more than the expansion budget was expanded
  Blocked,           ///< Direct: the straight line is obstructed
  NoStartNode,       ///< layered: no floor node near the start
  NoGoalNode,        ///< layered: no floor node near the goal
  ClosestNoPath,     ///< layered: the goal was not reached; the result carries the closest route found
};

/// The spec's name of a failure reason ("NoPath", "BudgetExhausted", ...); "None" for success.
std::string_view failureName(PathFailure failure);
/// "astar", "theta" or "direct".
std::string_view methodName(SearchMethod method);
/// Parses "astar", "theta" (also "thetastar") or "direct", case-insensitively.
std::optional<SearchMethod> parseMethod(std::string_view text);
/// "walk", "jump", "drop", "climb" or "link".
std::string_view actionName(MoveAction action);

/// One point of a route. The first waypoint is the exact start, the last the exact goal.
struct Waypoint {
  sim::Vec3 position;                    ///< metres; Y is the surface height where known
  MoveAction action = MoveAction::Walk;  ///< how the agent arrives here from the previous waypoint (Walk for the first)
  std::uint16_t area = 0;                ///< area id of the surface at this waypoint (0 = default area)
};

/// What every search returns: waypoints on success, a reason on failure.
struct PathResult {
  PathFailure failure = PathFailure::None;  ///< None on success
  std::vector<Waypoint> waypoints;          ///< start first, goal last; for ClosestNoPath the closest route
  std::vector<NodeId> nodes;                ///< the raw node chain of the search, start to end (cell keys on grids)
  double cost = 0;                          ///< route cost in the graph's unit (cells on grids)
  double length = 0;                        ///< horizontal length of the waypoint polyline (metres)
  std::int64_t expansions = 0;              ///< nodes expanded by the search
  /// True on success.
  bool ok() const { return failure == PathFailure::None; }
};

/// Horizontal (X/Z) length of a waypoint polyline in metres.
double horizontalLength(const std::vector<Waypoint>& waypoints);

/// Limits the spec gives for the layered search (character-movement-and-navigation.md,
/// "Surface columns"). The layered provider reads them; grids use their own budget.
struct LayeredSearchLimits {
  double max_horizontal_distance = 573.44;  ///< metres (2,048 studs); endpoints farther apart return NoPath. > 0
  std::int64_t max_expansions = 400000;     ///< node expansions per search; 0 = unlimited. >= 0
  /// Checks every field; the message names the field.
  Status validate() const;
};

/// Options of one run of the search core.
struct SearchOptions {
  bool any_angle = false;              ///< Theta*: shortcut walking edges through the graph's lineOfSight
  std::int64_t max_expansions = 8192;  ///< expansions before BudgetExhausted; 0 = unlimited. >= 0
  bool track_closest = false;          ///< remember the expanded node closest (by heuristic) to the goal
};

/// How a run of the search core ended.
enum class SearchStatus : std::uint8_t { Found, NoPath, BudgetExhausted };

/// The outcome of `search()`. The route itself is read back with `SearchState::pathTo`.
struct SearchOutcome {
  SearchStatus status = SearchStatus::NoPath;  ///< Found when the goal was reached
  double cost = 0;                             ///< cost of the route to the goal (Found only)
  std::int64_t expansions = 0;                 ///< nodes expanded
  NodeId closest = kNoNode;                    ///< closest expanded node (track_closest only)
};

/// Reusable per-thread search memory: node records stamped with a generation, and the heap.
/// Starting a search costs O(1) (plus growth the first time a larger graph is searched).
/// Not thread-safe: give each thread its own.
class SearchState {
 public:
  /// One node's search record; valid only while `stamp` equals the state's generation.
  struct Record {
    double g = 0;                          ///< best known cost from the start
    NodeId parent = kNoNode;               ///< predecessor on the best known route (the grandparent after a shortcut)
    NodeId from = kNoNode;                 ///< node whose expansion gave the best known route (== parent without shortcuts)
    std::uint32_t stamp = 0;               ///< generation in which this record was written
    MoveAction arrive = MoveAction::Walk;  ///< kind of the edge from `parent`
    bool closed = false;                   ///< expanded
  };
  /// One open-set entry. Ties on f prefer the larger g (deeper node), which expands fewer nodes.
  /// 16 bytes. Stale entries need no test of their own: a node's entries share its heuristic,
  /// so the one with the best g pops first and closes the node, and the others pop closed.
  struct HeapEntry {
    double f;     ///< g + heuristic
    float g;      ///< g at push time (tie-breaking only)
    NodeId node;  ///< the node
    HeapEntry() = default;
    /// An entry for `node` with priority `f_` and cost so far `g_`.
    HeapEntry(double f_, double g_, NodeId node_) : f(f_), g(static_cast<float>(g_)), node(node_) {}
  };

  /// Starts a new search over a graph of `node_count` nodes: O(1) unless the graph grew.
  /// The records are zeroed memory from the system (calloc): a zero stamp is never current, and
  /// only the pages of records a search touches are ever written, so a search over a few
  /// thousand nodes of a 50-million-node world costs no 1.5 GB fill.
  void begin(std::size_t node_count) {
    if (record_count_ < node_count) allocate(node_count, false);
    if (++generation_ == 0) {  // the stamp wrapped: old records could look current
      allocate(record_count_, false);
      generation_ = 1;
    }
    heap_.clear();
  }
  /// The record of `node`, initialised (g = infinity, open) if this search has not touched it.
  /// Grows the records when a graph discovers nodes while it is searched (the on-demand layered
  /// search builds columns as it goes), which invalidates references from earlier calls: the
  /// core never holds one across a touch().
  Record& touch(NodeId node) {
    if (node >= record_count_) [[unlikely]]
      allocate(std::max<std::size_t>(std::size_t(node) + 1, record_count_ * 2), true);
    Record& r = records_.get()[node];
    if (r.stamp != generation_) {
      r.g = std::numeric_limits<double>::infinity();
      r.parent = kNoNode;
      r.from = kNoNode;
      r.stamp = generation_;
      r.arrive = MoveAction::Walk;
      r.closed = false;
    }
    return r;
  }
  /// True when this search has reached `node`.
  bool reached(NodeId node) const { return node < record_count_ && records_.get()[node].stamp == generation_; }
  /// The record of a node this search has touched (check `reached` first).
  const Record& record(NodeId node) const { return records_.get()[node]; }

  /// Pushes an open-set entry (sift up).
  void push(HeapEntry entry) {
    heap_.push_back(entry);
    std::size_t i = heap_.size() - 1;
    while (i > 0) {
      const std::size_t up = (i - 1) / 2;
      if (!before(entry, heap_[up])) break;
      heap_[i] = heap_[up];
      i = up;
    }
    heap_[i] = entry;
  }
  /// True when the open set is empty.
  bool heapEmpty() const { return heap_.empty(); }
  /// Removes and returns the best open-set entry (sift down).
  HeapEntry pop() {
    const HeapEntry top = heap_.front();
    const HeapEntry last = heap_.back();
    heap_.pop_back();
    const std::size_t n = heap_.size();
    if (n > 0) {
      std::size_t i = 0;
      for (;;) {
        std::size_t child = 2 * i + 1;
        if (child >= n) break;
        if (child + 1 < n && before(heap_[child + 1], heap_[child])) ++child;
        if (!before(heap_[child], last)) break;
        heap_[i] = heap_[child];
        i = child;
      }
      heap_[i] = last;
    }
    return top;
  }

  /// The node chain from the start to `node` (inclusive), following parents; empty if unreached.
  std::vector<NodeId> pathTo(NodeId node) const;
  /// The arrival action of every node of `pathTo(node)`, same order (the start's is Walk).
  std::vector<MoveAction> actionsTo(NodeId node) const;

 private:
  static bool before(const HeapEntry& a, const HeapEntry& b) {
    return a.f < b.f || (a.f == b.f && a.g > b.g);
  }
  static_assert(std::is_trivially_copyable_v<Record> && std::is_aggregate_v<Record>,
                "records live in calloc'd memory");
  struct Free {
    void operator()(Record* p) const { std::free(p); }
  };
  // `count` zeroed records; `keep`: the current ones copied over (a graph that grew mid-search).
  void allocate(std::size_t count, bool keep) {
    auto* fresh = static_cast<Record*>(std::calloc(count, sizeof(Record)));
    if (fresh == nullptr && count > 0) throw std::bad_alloc();
    if (keep && record_count_ > 0) std::memcpy(static_cast<void*>(fresh), records_.get(), record_count_ * sizeof(Record));
    records_.reset(fresh);
    record_count_ = count;
  }
  std::unique_ptr<Record, Free> records_;
  std::size_t record_count_ = 0;
  std::vector<HeapEntry> heap_;
  std::uint32_t generation_ = 0;
};

/// What the search core needs from a graph. All calls are made on a const graph; a provider
/// that rasterizes lazily keeps a reference to its mutable cache.
///
/// - `nodeCount()`: node ids are below this.
/// - `forEachEdge(node, from, visit)`: calls `visit(NodeId to, double cost, MoveAction kind)`
///   for every edge leaving `node`. `from` is the node whose edge reached `node` (kNoNode at the
///   start; in any-angle mode not the shortcut parent but the graph predecessor), so pruning
///   providers such as jump point search choose successors by the direction of arrival; others
///   ignore it.
/// - `heuristic(node, goal, any_angle)`: admissible estimate of the remaining cost.
/// - `straightCost(a, b)`: cost of a straight walking segment (any-angle mode only).
/// - `lineOfSight(a, b)`: whether that segment can be walked (any-angle mode only).
template <class G>
concept SearchGraph = requires(const G& graph, NodeId node, bool any_angle) {
  { graph.nodeCount() } -> std::convertible_to<std::size_t>;
  { graph.heuristic(node, node, any_angle) } -> std::convertible_to<double>;
  { graph.straightCost(node, node) } -> std::convertible_to<double>;
  { graph.lineOfSight(node, node) } -> std::convertible_to<bool>;
  graph.forEachEdge(node, node, [](NodeId, double, MoveAction) {});
};

namespace detail {
/// What the search core hands to `forEachEdge`: call it as `visit(to, cost, kind)` for an edge;
/// `visit.through(via, via_cost, to, cost)` offers `to` by way of a middle node that is recorded
/// but not queued (jump point search's pruned intermediate jump points, plain walking only).
template <class Offer, class Through>
struct EdgeVisitor {
  const Offer& offer;
  const Through& offer_through;
  void operator()(NodeId to, double cost, MoveAction kind) const { offer(to, cost, kind); }
  void through(NodeId via, double via_cost, NodeId to, double cost) const { offer_through(via, via_cost, to, cost); }
};
}  // namespace detail

/// Runs A* (or Theta* with `options.any_angle`) from `start` to `goal` over `graph`, using and
/// overwriting `state`. Read the route back with `state.pathTo(goal)` when Found.
template <SearchGraph G>
SearchOutcome search(const G& graph, SearchState& state, NodeId start, NodeId goal, const SearchOptions& options) {
  SearchOutcome outcome;
  state.begin(graph.nodeCount());
  const bool any_angle = options.any_angle;
  {
    SearchState::Record& s = state.touch(start);
    s.g = 0;
    state.push({graph.heuristic(start, goal, any_angle), 0.0, start});
  }
  double closest_h = std::numeric_limits<double>::infinity();
  while (!state.heapEmpty()) {
    const SearchState::HeapEntry top = state.pop();
    SearchState::Record& current = state.touch(top.node);
    if (current.closed) continue;  // a stale entry: the node popped earlier with a better g
    current.closed = true;
    if (top.node == goal) {
      outcome.status = SearchStatus::Found;
      outcome.cost = current.g;
      outcome.closest = goal;
      return outcome;
    }
    if (options.max_expansions > 0 && outcome.expansions >= options.max_expansions) {
      outcome.status = SearchStatus::BudgetExhausted;
      return outcome;
    }
    ++outcome.expansions;
    if (options.track_closest) {
      const double h = graph.heuristic(top.node, goal, any_angle);
      if (h < closest_h) closest_h = h, outcome.closest = top.node;
    }
    const NodeId node = top.node;
    const double node_g = current.g;
    const NodeId parent = current.parent;
    const NodeId from = current.from;
    const bool can_shortcut = any_angle && parent != kNoNode && current.arrive == MoveAction::Walk;
    const double parent_g = can_shortcut ? state.record(parent).g : 0.0;
    const auto offer = [&](NodeId to, double cost, MoveAction kind) {
      SearchState::Record& next = state.touch(to);
      if (next.closed) return;
      double g = node_g + cost;
      NodeId via = node;
      if (can_shortcut && kind == MoveAction::Walk) {
        const double through_parent = parent_g + graph.straightCost(parent, to);
        if (through_parent <= g && graph.lineOfSight(parent, to)) {
          g = through_parent;
          via = parent;
        }
      }
      if (g < next.g) {
        next.g = g;
        next.parent = via;
        next.from = node;
        next.arrive = kind;
        state.push({g + graph.heuristic(to, goal, any_angle), g, to});
      }
    };
    // An edge node -> via -> to whose middle node is recorded (so the route reads back through
    // it) but never queued: a provider's pruned intermediate node. A middle node reached before
    // at a lower or equal cost by another expansion offers nothing new; at equal cost from this
    // expansion it is the same middle node offering its next successor.
    const auto offer_through = [&](NodeId via, double via_cost, NodeId to, double cost) {
      SearchState::Record& middle = state.touch(via);
      if (middle.closed) return;
      const double g_middle = node_g + via_cost;
      if (g_middle < middle.g) {
        middle.g = g_middle;
        middle.parent = node;
        middle.from = node;
        middle.arrive = MoveAction::Walk;
      } else if (g_middle > middle.g || middle.parent != node) {
        return;
      }
      SearchState::Record& next = state.touch(to);
      if (next.closed) return;
      const double g = g_middle + cost;
      if (g < next.g) {
        next.g = g;
        next.parent = via;
        next.from = via;
        next.arrive = MoveAction::Walk;
        state.push({g + graph.heuristic(to, goal, any_angle), g, to});
      }
    };
    graph.forEachEdge(node, from, detail::EdgeVisitor<decltype(offer), decltype(offer_through)>{offer, offer_through});
  }
  outcome.status = SearchStatus::NoPath;
  return outcome;
}

}  // namespace strata::nav
