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
/// - The open set has no decrease-key: an improved node is pushed again and its stale entry is
///   skipped when it pops (a radix heap on f beside a 4-ary heap for entries below its base;
///   SearchState, docs/search.md).
/// - Node records live in one flat array stamped with a generation number, so starting a new
///   search is O(1) and a `SearchState` can be reused by one thread for any number of searches.
/// - In any-angle mode, relaxing a walking edge s -> n first tries parent(s) -> n: when that
///   segment passes the graph's lineOfSight and is no longer, n is routed through the grandparent.
///   Only walking edges are shortcut: links, jumps, drops and climbs are never cut across.
/// - The graph supplies the heuristic (octile on grids, euclidean in any-angle mode, because
///   octile overestimates a straight segment and an inadmissible heuristic gives worse paths).

#include <algorithm>
#include <array>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
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
  Interval, ///< layered graphs: the corridor method with the rectangles chosen by an exact interval search (shortest in the rectangles' plane) and corners tightened; slower than Corridor, routes about as short as Theta*'s on average (not always: in passages one or two columns wide the plane of whole cells can prefer a route that is longer through the column centres, up to about 10 %; docs/search.md). Grids answer it as AStar
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
/// Every search method, in the order the tools list them.
inline constexpr std::array<SearchMethod, 5> kSearchMethods = {SearchMethod::AStar, SearchMethod::Theta, SearchMethod::Direct,
                                                               SearchMethod::Corridor, SearchMethod::Interval};
/// "astar", "theta", "direct", "corridor" or "interval".
std::string_view methodName(SearchMethod method);
/// The names of `methods` for a message: "astar, theta or direct" (every method by default).
std::string methodNames(std::span<const SearchMethod> methods = kSearchMethods);
/// Parses a method name (methodName), case-insensitively; "thetastar" is also Theta.
std::optional<SearchMethod> parseMethod(std::string_view text);
/// "walk", "jump", "drop", "climb" or "link".
std::string_view actionName(MoveAction action);

/// One point of a route. The first waypoint is the exact start, the last the exact goal.
struct Waypoint {
  sim::Vec3 position;                    ///< metres; Y is the surface height where known (on a grid the first and last
                                         ///< waypoints are the request's start and goal as given, Y included: the spec's
                                         ///< "Start itself" and "the exact Goal"; on a layered world they stand on the floor)
  MoveAction action = MoveAction::Walk;  ///< how the agent arrives here from the previous waypoint (Walk for the first)
  std::uint16_t area = 0;                ///< area id of the surface at this waypoint (0 = default area)
  /// Action Link on a layered graph: the taken link's label, an index into the graph's
  /// `link_labels` (LayeredGraph::linkLabel); -1 otherwise.
  std::int32_t link = -1;
};

/// What every search returns: waypoints on success, a reason on failure.
struct PathResult {
  PathFailure failure = PathFailure::None;  ///< None on success
  std::vector<Waypoint> waypoints;          ///< start first, goal last; for ClosestNoPath the closest route
  std::vector<NodeId> nodes;                ///< the raw node chain of the search, start to end (cell keys on grids)
  double cost = 0;                          ///< route cost in the graph's unit (cells on grids)
  double length = 0;                        ///< horizontal length of the waypoint polyline (metres)
  std::int64_t expansions = 0;              ///< nodes expanded by the search
  /// The method that answered: the one asked for, except where another answers for it (corridor
  /// and interval hand a layered request to Theta with a link cheaper than walking, interval
  /// also where areas differ in cost, either when a walking leg fails the line test; grids answer both as AStar; the interval method's answer
  /// may be the corridor method's route, see SearchMethod::Interval).
  SearchMethod answered_by = SearchMethod::AStar;
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

namespace detail {
/// Zeroed memory for a search state's arrays. Below kZeroedHugeBytes it comes from calloc; from
/// there to below kZeroedHugeMaxBytes, fresh anonymous pages (zero by definition) advised to the
/// kernel as wanting transparent huge pages, so that the first search over a large graph does
/// not fault on every 4 KiB page it reaches (an audit: on a 2048 x 1536 Moving AI map the first
/// of three identical queries took 140-190 ms, the others 5-7 ms, most of it the kernel handing
/// out pages one by one). Larger arrays keep 4 KiB pages (calloc): a search that writes a few
/// nodes in every 2 MiB of them would hold them whole (a re-audit: a search down one column of
/// a 4096 x 4096 map, one node a row, kept the whole 268 MB of records resident, 574 MB at peak
/// against 279 MB), where with small pages it holds only the pages it writes. Throws
/// std::bad_alloc.
class ZeroedBlock {
 public:
  static constexpr std::size_t kZeroedHugeBytes = std::size_t(4) << 20;
  static constexpr std::size_t kZeroedHugeMaxBytes = std::size_t(64) << 20;
  ZeroedBlock() = default;
  explicit ZeroedBlock(std::size_t bytes);
  ~ZeroedBlock() { release(); }
  ZeroedBlock(ZeroedBlock&& other) noexcept : data_(other.data_), bytes_(other.bytes_), mapped_(other.mapped_) {
    other.data_ = nullptr;
    other.bytes_ = 0;
    other.mapped_ = false;
  }
  ZeroedBlock& operator=(ZeroedBlock&& other) noexcept {
    if (this != &other) {
      release();
      data_ = other.data_;
      bytes_ = other.bytes_;
      mapped_ = other.mapped_;
      other.data_ = nullptr;
      other.bytes_ = 0;
      other.mapped_ = false;
    }
    return *this;
  }
  ZeroedBlock(const ZeroedBlock&) = delete;
  ZeroedBlock& operator=(const ZeroedBlock&) = delete;
  void* get() const { return data_; }

 private:
  void release() noexcept;
  void* data_ = nullptr;
  std::size_t bytes_ = 0;  // mapped length (mapped_) or the calloc'd size
  bool mapped_ = false;
};
}  // namespace detail

/// Reusable per-thread search memory: per node a stamp (4 bytes: the search generation that
/// reached it, closed or not, and how it was arrived at) and a record (16 bytes), and the open
/// set: a radix heap on f (entries at or above the f it is based on: every entry, with a
/// consistent heuristic) beside a 4-ary heap (entries below it: Theta*'s shortcuts can make f
/// drop). f is kept rounded to float32, so that routes of equal length tie exactly instead of
/// by the rounding noise of their cost sums (which ordered a parallelogram of equal routes across
/// open ground at random: A* expanded most of it). Every pop is an entry of the smallest rounded
/// f, so A* stays exact to float32's precision (a relative 6e-8); among equal f the order is
/// deterministic (the last pushed, usually the deeper node, first within the radix heap's lowest
/// bucket). The stamps are a
/// separate, small array, so the test whether a node is new or closed -- made for every edge a
/// search looks at -- reads 4 bytes instead of the record's cache line.
/// Starting a search costs O(1) (plus growth the first time a larger graph is searched).
/// Not thread-safe: give each thread its own.
class SearchState {
 public:
  SearchState() = default;
  /// Moves leave `other` as a default-constructed state, ready for any search (an audit: the
  /// implicit move emptied the records but kept their count, so the moved-from state's next
  /// search read through a null pointer).
  SearchState(SearchState&& other) noexcept { *this = std::move(other); }
  SearchState& operator=(SearchState&& other) noexcept {
    if (this == &other) return *this;
    records_ = std::move(other.records_);
    stamps_ = std::move(other.stamps_);
    record_count_ = std::exchange(other.record_count_, 0);
    heap_ = std::exchange(other.heap_, {});
    for (std::size_t b = 0; b < buckets_.size(); ++b) buckets_[b] = std::exchange(other.buckets_[b], {});
    occupied_ = std::exchange(other.occupied_, 0);
    bucketed_ = std::exchange(other.bucketed_, 0);
    base_f_ = std::exchange(other.base_f_, 0);
    generation_ = std::exchange(other.generation_, 0);
    tag_ = std::exchange(other.tag_, 0);
    return *this;
  }
  SearchState(const SearchState&) = delete;
  SearchState& operator=(const SearchState&) = delete;

  /// One node's search record; valid only while the node is reached() by the current search.
  struct Record {
    double g = 0;             ///< best known cost from the start
    NodeId parent = kNoNode;  ///< predecessor on the best known route (the grandparent after a shortcut)
    NodeId from = kNoNode;    ///< node whose expansion gave the best known route (== parent without shortcuts)
  };
  /// One open-set entry. 16 bytes: the IEEE bits of f rounded to float32 and held as a double
  /// (non-negative numbers order like their bit
  /// patterns, which the radix buckets use), g's bits inverted and the node, laid out so that on
  /// a little-endian machine the entry read as one unsigned 128-bit number is the heap's order
  /// key (f ascending, then g descending: the deeper node first, then node id ascending).
  /// Stale entries need no test of their own: a node's entries share its heuristic, so the one
  /// with the best g (the smallest f) pops first and closes the node, and the others pop closed.
  struct HeapEntry {
    NodeId node;             ///< the node
    std::uint32_t g_order;   ///< ~bits of g at push time as a float (tie-breaking only)
    std::uint64_t f_order;   ///< bits of f = g + heuristic
    HeapEntry() = default;
    /// An entry for `node` with priority `f` (>= 0) and cost so far `g` (>= 0).
    HeapEntry(double f, double g, NodeId node_)
        : node(node_),
          g_order(~std::bit_cast<std::uint32_t>(static_cast<float>(g) + 0.0f)),  // + 0: -0 reads as +0
          f_order(std::bit_cast<std::uint64_t>(static_cast<double>(static_cast<float>(f)) + 0.0)) {}
  };

  /// Starts a new search over a graph of `node_count` nodes: O(1) unless the graph grew.
  /// Stamps and records are zeroed memory from the system (calloc): a zero stamp is never
  /// current, and only the pages a search touches are ever written, so a search over a few
  /// thousand nodes of a 50-million-node world costs no gigabyte fill.
  void begin(std::size_t node_count) {
    if (record_count_ < node_count) allocate(node_count, false);
    if (++generation_ >= kGenerations) {  // the stamps wrapped: old ones could look current
      allocate(record_count_, false);
      generation_ = 1;
    }
    tag_ = generation_ << kGenerationShift;
    heap_.clear();
    buckets_[0].clear();
    for (std::uint64_t bits = occupied_; bits != 0; bits &= bits - 1)
      buckets_[static_cast<std::size_t>(std::countr_zero(bits)) + 1].clear();
    occupied_ = 0;
    bucketed_ = 0;
    base_f_ = 0;
  }
  /// The record of `node`, initialised (g = infinity, open, arrived at by walking) if this
  /// search has not touched it. Grows the records when a graph discovers nodes while it is
  /// searched (the on-demand layered search builds columns as it goes), which invalidates
  /// references from earlier calls: the core never holds one across a touch().
  Record& touch(NodeId node) {
    if (node >= record_count_) [[unlikely]]
      allocate(std::max<std::size_t>(std::size_t(node) + 1, record_count_ * 2), true);
    Record& r = records()[node];
    std::uint32_t& stamp = stamps()[node];
    if ((stamp & ~kLowBits) != tag_) {
      r = Record{std::numeric_limits<double>::infinity(), kNoNode, kNoNode};
      stamp = tag_;
    }
    return r;
  }
  /// True when this search has reached `node`.
  bool reached(NodeId node) const { return node < record_count_ && (stamps()[node] & ~kLowBits) == tag_; }
  /// True when this search has expanded (closed) `node`.
  bool closed(NodeId node) const { return node < record_count_ && (stamps()[node] & ~kArriveBits) == (tag_ | kClosed); }
  /// Marks a reached node expanded.
  void close(NodeId node) { stamps()[node] |= kClosed; }
  /// How a reached node was arrived at: the kind of the edge from its parent.
  MoveAction arrival(NodeId node) const { return static_cast<MoveAction>(stamps()[node] & kArriveBits); }
  /// Sets how a reached node was arrived at.
  void setArrival(NodeId node, MoveAction kind) {
    std::uint32_t& stamp = stamps()[node];
    stamp = (stamp & ~kArriveBits) | static_cast<std::uint32_t>(kind);
  }
  /// The record of a node this search has touched (check `reached` first).
  const Record& record(NodeId node) const { return records()[node]; }

  /// Pushes an open-set entry: into the radix buckets when its f is at least the f they are
  /// based on (always, for a consistent heuristic), else into the heap.
  void push(HeapEntry entry) {
    if (entry.f_order >= base_f_) {
      bucketPush(entry);
      return;
    }
    heap_.push_back(entry);
    siftUp(heap_.size() - 1, entry);
  }
  /// True when the open set is empty.
  bool heapEmpty() const { return heap_.empty() && bucketed_ == 0; }
  /// Removes and returns an entry of the smallest f: the heap's top while the heap holds any
  /// (they lie below every bucketed f), else the last entry of bucket 0 (f equal to the base),
  /// after rebasing on the smallest f of the lowest non-empty bucket when bucket 0 is empty.
  HeapEntry pop() {
    if (!heap_.empty()) return popHeap();
    std::vector<HeapEntry>& zero = buckets_[0];
    if (zero.empty()) {
      const int b = std::countr_zero(occupied_) + 1;
      // Every entry of bucket b agrees with the base above bit b - 1 and has that bit set, as
      // does their minimum: rebased on it, they all land in buckets below b.
      std::vector<HeapEntry>& from = buckets_[static_cast<std::size_t>(b)];
      occupied_ &= ~(std::uint64_t{1} << (b - 1));
      std::uint64_t m = from.front().f_order;
      for (const HeapEntry& e : from) m = std::min(m, e.f_order);
      base_f_ = m;
      bucketed_ -= from.size();
      for (const HeapEntry& e : from) bucketPush(e);
      from.clear();
    }
    const HeapEntry top = zero.back();
    zero.pop_back();
    --bucketed_;
    return top;
  }

  /// The node chain from the start to `node` (inclusive), following parents; empty if unreached.
  std::vector<NodeId> pathTo(NodeId node) const;
  /// The arrival action of every node of `pathTo(node)`, same order (the start's is Walk).
  std::vector<MoveAction> actionsTo(NodeId node) const;

 private:
  // Removes and returns the heap's top. Floyd's bottom-up deletion: the hole left at
  // the top moves down to a leaf along the best children, then the last entry rises from there
  // (it belongs near the bottom, so the rise is short).
  HeapEntry popHeap() {
    const HeapEntry top = heap_.front();
    const HeapEntry last = heap_.back();
    heap_.pop_back();
    const std::size_t n = heap_.size();
    if (n > 0) {
      HeapEntry* h = heap_.data();
      std::size_t i = 0;
      for (std::size_t first = 1; first < n; first = kArity * i + 1) {
        std::size_t best = first;
        if (first + kArity <= n) {  // all four children: a tournament without branches
          const std::size_t a = before(h[first + 1], h[first]) ? first + 1 : first;
          const std::size_t b = before(h[first + 3], h[first + 2]) ? first + 3 : first + 2;
          best = before(h[b], h[a]) ? b : a;
        } else {
          for (std::size_t c = first + 1; c < n; ++c) best = before(h[c], h[best]) ? c : best;
        }
        h[i] = h[best];
        i = best;
      }
      siftUp(i, last);
    }
    return top;
  }
  // Radix heap (Ahuja, Mehlhorn, Orlin & Tarjan 1990) on f's bits: bucket 0 holds f equal to
  // the base, bucket b the f whose highest bit differing from the base is b - 1.
  void bucketPush(const HeapEntry& entry) {
    const std::uint64_t diff = entry.f_order ^ base_f_;
    const int b = diff == 0 ? 0 : 64 - std::countl_zero(diff);
    buckets_[static_cast<std::size_t>(b)].push_back(entry);
    if (b != 0) occupied_ |= std::uint64_t{1} << (b - 1);
    ++bucketed_;
  }
  // Puts `entry` into the hole at `i`, moving it up past the parents it comes before.
  void siftUp(std::size_t i, const HeapEntry& entry) {
    HeapEntry* h = heap_.data();
    while (i > 0) {
      const std::size_t up = (i - 1) / kArity;
      if (!before(entry, h[up])) break;
      h[i] = h[up];
      i = up;
    }
    h[i] = entry;
  }

  // The order of entries as one unsigned 128-bit key (f's bits, g's inverted bits, the node),
  // so that one wide comparison replaces three branches. (GCC and Clang: __int128 is an
  // extension, hence the marker for -Wpedantic.)
  __extension__ using Key = unsigned __int128;
  static Key key(const HeapEntry& e) {
    if constexpr (std::endian::native == std::endian::little) {
      Key k;
      std::memcpy(&k, &e, sizeof k);
      return k;
    } else {
      return (static_cast<Key>(e.f_order) << 64) | (static_cast<Key>(e.g_order) << 32) | e.node;
    }
  }
  static bool before(const HeapEntry& a, const HeapEntry& b) { return key(a) < key(b); }
  static constexpr std::size_t kArity = 4;  // a 4-ary heap: half the levels of a binary one
  static_assert(sizeof(HeapEntry) == sizeof(Key) && std::is_trivially_copyable_v<HeapEntry>, "an entry is its key");
  static_assert(std::is_trivially_copyable_v<Record> && std::is_aggregate_v<Record>,
                "records live in calloc'd memory");
  // A stamp: the generation above kGenerationShift, then the closed bit, then the arrival kind.
  static constexpr std::uint32_t kArriveBits = 7, kClosed = 8, kLowBits = 15;
  static constexpr int kGenerationShift = 4;
  static constexpr std::uint32_t kGenerations = std::uint32_t{1} << (32 - kGenerationShift);
  static_assert(static_cast<std::uint32_t>(MoveAction::Link) <= kArriveBits, "every MoveAction fits in the stamp");
  // `count` zeroed stamps and records; `keep`: the current ones copied over (a graph that grew
  // mid-search).
  void allocate(std::size_t count, bool keep) {
    if (count > std::numeric_limits<std::size_t>::max() / sizeof(Record)) throw std::bad_alloc();
    detail::ZeroedBlock records(count * sizeof(Record));
    detail::ZeroedBlock stamps(count * sizeof(std::uint32_t));
    if (keep && record_count_ > 0) {
      std::memcpy(records.get(), records_.get(), record_count_ * sizeof(Record));
      std::memcpy(stamps.get(), stamps_.get(), record_count_ * sizeof(std::uint32_t));
    }
    records_ = std::move(records);
    stamps_ = std::move(stamps);
    record_count_ = count;
  }
  Record* records() const { return static_cast<Record*>(records_.get()); }
  std::uint32_t* stamps() const { return static_cast<std::uint32_t*>(stamps_.get()); }
  detail::ZeroedBlock records_;
  detail::ZeroedBlock stamps_;
  std::size_t record_count_ = 0;
  std::vector<HeapEntry> heap_;
  std::array<std::vector<HeapEntry>, 65> buckets_;  // radix buckets (bucketPush)
  std::uint64_t occupied_ = 0;      // bit b - 1 set: bucket b (1..64) is not empty
  std::size_t bucketed_ = 0;        // entries in the buckets
  std::uint64_t base_f_ = 0;        // the f the buckets are based on (never above a bucketed f)
  std::uint32_t generation_ = 0;
  std::uint32_t tag_ = 0;           // generation_ << kGenerationShift
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
/// - `straightCost(a, b)`: cost of a straight walking segment (any-angle mode only); with
///   `shortcutCost`, a lower bound of it that decides whether the segment is worth walking.
/// - `lineOfSight(a, b)`: whether that segment can be walked (any-angle mode only).
/// - optionally `shortcutCost(a, b)`: the exact cost of walking the segment, +infinity when it
///   cannot be walked (one walk instead of lineOfSight's; a graph whose segment cost depends on
///   the ground crossed, such as the heights of a layered world, gives it).
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
    if (state.closed(top.node)) continue;  // a stale entry: the node popped earlier with a better g
    state.close(top.node);
    const SearchState::Record& current = state.record(top.node);
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
    const bool can_shortcut = any_angle && parent != kNoNode && state.arrival(node) == MoveAction::Walk;
    const double parent_g = can_shortcut ? state.record(parent).g : 0.0;
    const auto offer = [&](NodeId to, double cost, MoveAction kind) {
      if (state.closed(to)) return;
      // Theta*'s g in the measure its route is costed in: a walk edge between areas of
      // different costs costs each area's share of it, as a shortcut does (its stored cost
      // charges the destination's rate; mixing the two, a route dearer by its own measure than
      // the A* route won: 2.190 against 2.048 across a floor of patchy mud, an audit).
      if constexpr (requires { graph.walkStepCost(node, to, cost); })
        if (any_angle && kind == MoveAction::Walk) cost = graph.walkStepCost(node, to, cost);
      SearchState::Record& next = state.touch(to);
      double g = node_g + cost;
      NodeId via = node;
      if (can_shortcut && kind == MoveAction::Walk) {
        double through_parent = parent_g + graph.straightCost(parent, to);
        // Walked only when it can win: a lower bound no cheaper than `to`'s best known cost
        // cannot be taken (nor can this edge then), so its line (O(length): a long route's
        // Theta* spent 87 % of its time in these walks, mostly for successors already reached
        // more cheaply by a sibling) is not walked. The outcome is the same either way.
        if (through_parent <= g && through_parent < next.g) {
          bool walkable;
          if constexpr (requires { graph.shortcutCost(parent, to); }) {
            through_parent = parent_g + graph.shortcutCost(parent, to);
            walkable = through_parent <= g;
          } else {
            walkable = graph.lineOfSight(parent, to);
          }
          if (walkable) {
            g = through_parent;
            via = parent;
          }
        }
      }
      if (g < next.g) {
        next.g = g;
        next.parent = via;
        next.from = node;
        state.setArrival(to, kind);
        state.push({g + graph.heuristic(to, goal, any_angle), g, to});
      }
    };
    // An edge node -> via -> to whose middle node is recorded (so the route reads back through
    // it) but never queued: a provider's pruned intermediate node. A middle node reached before
    // at a lower or equal cost by another expansion offers nothing new; at equal cost from this
    // expansion it is the same middle node offering its next successor.
    const auto offer_through = [&](NodeId via, double via_cost, NodeId to, double cost) {
      if (state.closed(via)) return;
      SearchState::Record& middle = state.touch(via);
      const double g_middle = node_g + via_cost;
      if (g_middle < middle.g) {
        middle.g = g_middle;
        middle.parent = node;
        middle.from = node;
        state.setArrival(via, MoveAction::Walk);
      } else if (g_middle > middle.g || middle.parent != node) {
        return;
      }
      if (state.closed(to)) return;
      SearchState::Record& next = state.touch(to);
      const double g = g_middle + cost;
      if (g < next.g) {
        next.g = g;
        next.parent = via;
        next.from = via;
        state.setArrival(to, MoveAction::Walk);
        state.push({g + graph.heuristic(to, goal, any_angle), g, to});
      }
    };
    graph.forEachEdge(node, from, detail::EdgeVisitor<decltype(offer), decltype(offer_through)>{offer, offer_through});
  }
  outcome.status = SearchStatus::NoPath;
  return outcome;
}

/// The reach of a flood limited to `max_distance`: a node whose route cost sums to at most this
/// is within the limit. Edge costs are stored as float32 (a 0.3 m step is 0.30000001192), so a
/// node exactly 25 steps of 0.3 m away summed to 7.5000003 and fell outside a 7.5 m limit; the
/// slack (one part in a million, far above the rounding of any sum of float32 costs) keeps such
/// nodes in. Every flood (baked fields, `query field --origin`, grid distance fields) and the
/// world reader's check of stored distances use it.
inline double fieldReach(double max_distance) { return max_distance * (1.0 + 1e-6); }

}  // namespace strata::nav
