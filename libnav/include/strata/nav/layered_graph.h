#pragma once
/// \file
/// The layered surface graph of one agent type: what the column bake produces, what the world
/// file stores (docs/format.md, "Navigation data (per agent)") and what the search runs on.
///
/// Shape (flat arrays, CSR style, so it maps 1:1 onto HDF5 datasets):
///  - a horizontal grid of columns (GridFrame). Column (x, z) has index `z * width_cells + x`.
///  - `column_offsets[c] .. column_offsets[c + 1]` are the floor nodes of column c, ordered by
///    ascending height (a road, a bridge and a roof at the same x/z are three nodes).
///  - per-node arrays (height, normal, area, headroom, clearance, component, region, flags).
///  - per node and direction (8 directions, see kDirectionDx/kDirectionDz) one outgoing edge:
///    `neighbor[node * 8 + d]` (kNoNode when none), its kind and its cost. A jump or drop edge
///    may skip columns (crossing the clearance gap around a ledge), so the neighbour is not
///    always in the adjacent column.
///  - off-mesh links, sorted by source node, with per-node offsets `link_offsets` (size
///    node_count + 1): the custom links from the profile, and the bake's second jumps (a node
///    holds one edge per direction, so where a ledge's slot holds the drop into a pit, the jump
///    across the pit to a landing the drop does not reach is stored here, kind Jump).
///  - named route-distance fields: one float per node.
///
/// Units: metres, Y up. Costs are metres of walking on a cost-1 area.

#include <array>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "strata/nav/search.h"
#include "strata/sim/math.h"

namespace strata::nav {

/// The spacing of float32 values at magnitude |v| (its unit in the last place: 2^-23 of the
/// binade's bottom; 7.8 mm at 1e5, 6.25 cm at 1e6), how far apart two stored floor heights there
/// can be. Rules that compare float32 heights far from the origin allow it (docs/format.md).
inline double float32Spacing(double v) {
  const double a = std::fabs(v);
  if (!(a >= 0x1p-126)) return 0x1p-149;  // zero and subnormals (and NaN)
  if (!std::isfinite(a)) return a;
  int exponent = 0;
  (void)std::frexp(a, &exponent);  // a = m 2^exponent, m in [0.5, 1)
  return std::ldexp(1.0, exponent - 24);
}

// "No node" (an empty neighbour slot, or a point that snaps to no node) is strata::nav::kNoNode,
// defined once in search.h (NodeId is uint32_t) so that both headers can be included together.

/// Number of neighbour directions of a node.
inline constexpr int kDirectionCount = 8;
/// Column step along X of direction d: E, NE, N, NW, W, SW, S, SE (N is +Z). Even d are cardinal.
inline constexpr std::array<int, kDirectionCount> kDirectionDx{1, 1, 0, -1, -1, -1, 0, 1};
/// Column step along Z of direction d (see kDirectionDx).
inline constexpr std::array<int, kDirectionCount> kDirectionDz{0, 1, 1, 1, 0, -1, -1, -1};
/// The direction opposite to d.
constexpr int oppositeDirection(int d) { return (d + 4) % kDirectionCount; }
/// True for the four diagonal directions.
constexpr bool isDiagonal(int d) { return (d & 1) != 0; }
/// A slot of the per-direction arrays (node * kDirectionCount + direction) for messages: "node
/// 20, direction 2 (slot 162)".
std::string slotName(std::size_t slot);

/// How an edge is traversed. Stored as uint8 in the world file; values are stable.
enum class EdgeKind : uint8_t {
  None = 0,   ///< no edge in this slot
  Walk = 1,   ///< rise or fall within the step height
  Jump = 2,   ///< up more than the step height (within the jump height), or across a gap
  Drop = 3,   ///< down more than the step height (within the allowed drop)
  Climb = 4,  ///< along a surface labelled climbable (both ways)
  Link = 5,   ///< a custom off-mesh link from the profile
};

/// Lower-case name of an edge kind ("walk", "jump", ...).
const char* edgeKindName(EdgeKind kind);

/// Per-node flag bits (`LayeredGraph::flags`).
enum NodeFlag : uint8_t {
  kNodeBorder = 1 << 0,     ///< some direction (of the 8) has no walk edge (edge of walkable space)
  kNodeModified = 1 << 1,   ///< inside a modifier volume of the profile
  kNodeLinkEnd = 1 << 2,    ///< an endpoint of a custom link
};

namespace detail {
/// std::nearbyint in the default rounding mode (ties to even), sign of zero included, inline:
/// without SSE4.1 std::nearbyint is a libm call, about 3 % of a bake (GridFrame::centerX for
/// every column visited). Adding 2^52 to a magnitude below 2^52 lands where the spacing of
/// doubles is 1, so the sum is rounded to an integer in the current (default) rounding mode, and
/// subtracting 2^52 again is exact; ties to even are symmetric, so the sign is put back after.
/// Magnitudes of 2^52 and more are integers already; infinities and NaN pass through.
inline double roundToEven(double v) {
  const double magnitude = std::fabs(v);
  if (!(magnitude < 0x1p52)) return v;
  return std::copysign((magnitude + 0x1p52) - 0x1p52, v);
}
}  // namespace detail

/// The horizontal column grid. Column (x, z) covers
/// [origin_x + x * cell_size, origin_x + (x + 1) * cell_size) and likewise along Z; its centre
/// is where floors are sampled.
struct GridFrame {
  double origin_x = 0;     ///< min-X corner of column (0, 0), metres
  double origin_z = 0;     ///< min-Z corner of column (0, 0), metres
  double cell_size = 0.3;  ///< column width, metres (> 0)
  int32_t width_cells = 0; ///< columns along X
  int32_t depth_cells = 0; ///< columns along Z

  /// Number of columns.
  std::size_t columnCount() const { return static_cast<std::size_t>(width_cells) * static_cast<std::size_t>(depth_cells); }
  /// Column index of (x, z); the caller checks `contains`.
  std::size_t columnIndex(int32_t x, int32_t z) const {
    return static_cast<std::size_t>(z) * static_cast<std::size_t>(width_cells) + static_cast<std::size_t>(x);
  }
  /// True when (x, z) is a column of the grid.
  bool contains(int32_t x, int32_t z) const { return x >= 0 && z >= 0 && x < width_cells && z < depth_cells; }
  // Positions on the lattice. A grid whose origin is a multiple k of the cell size (makeGridFrame's:
  // the bake's, every on-demand region's and their windows') places column x at (k + x) * cell_size,
  // one rounding of an exact product: two grids on one lattice give a column the same centre bit for
  // bit whatever their origins, so their floors, edges and routes are the same (origin + x * cell
  // rounds differently per origin). Any other origin: origin + x * cell_size.

  /// World X of the centre of column x.
  double centerX(int32_t x) const { return onLattice(origin_x, x, 0.5); }
  /// World Z of the centre of column z.
  double centerZ(int32_t z) const { return onLattice(origin_z, z, 0.5); }
  /// World X of the min-X side of column x (origin_x for x = 0).
  double cornerX(int32_t x) const { return onLattice(origin_x, x, 0.0); }
  /// World Z of the min-Z side of column z (origin_z for z = 0).
  double cornerZ(int32_t z) const { return onLattice(origin_z, z, 0.0); }
  /// Column containing world X (may be outside the grid; saturated at +-2^30).
  int32_t columnX(double world_x) const;
  /// Column containing world Z (may be outside the grid; saturated at +-2^30).
  int32_t columnZ(double world_z) const;
  /// True when world (X, Z) lies on column (x, z)'s square, its sides included (within a
  /// nanometre a metre of them): a point on the border between columns is on both, whichever
  /// columnX / columnZ name.
  bool onColumn(int32_t x, int32_t z, double world_x, double world_z) const {
    auto within = [](double w, double lo, double hi) {
      const double slack = 1e-9 * (1.0 + std::fabs(w));
      return w >= lo - slack && w <= hi + slack;
    };
    return within(world_x, cornerX(x), cornerX(x + 1)) && within(world_z, cornerZ(z), cornerZ(z + 1));
  }

 private:
  // True when `origin` is the multiple `k` of the cell size (the lattice form applies).
  bool latticeIndex(double origin, double& k) const {
    k = detail::roundToEven(origin / cell_size);
    return k * cell_size == origin;
  }

  double onLattice(double origin, int32_t i, double offset) const {
    double k;
    return latticeIndex(origin, k) ? (k + (i + offset)) * cell_size : origin + (i + offset) * cell_size;
  }
  int32_t columnAlong(double world, double origin) const;
};

/// `OffMeshLink::label` and `profile_index` of a second jump (kind Jump): no label, no profile link.
inline constexpr uint32_t kNoLinkLabel = 0xFFFFFFFFu;

/// One edge outside the 8 direction slots, between two floor nodes (one direction): a custom
/// off-mesh link (kind Link; a two-way link from the profile is stored as two entries), or a
/// second jump of the bake (kind Jump: the jump across a pit from a node whose slot in that
/// direction holds the drop into it; label and profile_index are kNoLinkLabel).
struct OffMeshLink {
  uint32_t from_node = kNoNode;  ///< source node
  uint32_t to_node = kNoNode;    ///< destination node
  float cost = 0;                ///< traversal cost (metres-equivalent, > 0)
  uint32_t label = 0;            ///< index into LayeredGraph::link_labels (kNoLinkLabel for a second jump)
  uint32_t profile_index = 0;    ///< which link of the agent's profile it came from (kNoLinkLabel for a second jump)
  bool bidirectional = false;    ///< the profile link is two-way (this entry is one of the pair)
  EdgeKind kind = EdgeKind::Link;///< Link (from the profile) or Jump (a second jump)
};

/// A named route-distance field: Dijkstra route cost from `origin` to every node.
struct RouteField {
  std::string name;              ///< from the profile
  sim::Vec3 origin;              ///< as given in the profile, metres
  double max_distance = 0;       ///< flood limit, metres-equivalent
  uint32_t origin_node = kNoNode;///< the node the origin snapped to
  std::vector<float> distance;   ///< per node; +infinity when unreachable within max_distance
};

namespace detail {
/// Arrays of at least this many bytes are allocated in whole huge pages (allocateLargeArray).
inline constexpr std::size_t kLargeArrayBytes = std::size_t(2) << 20;
/// `bytes` (>= kLargeArrayBytes) aligned to 2 MiB and advised to the kernel as wanting
/// transparent huge pages (madvise MADV_HUGEPAGE; where the system grants them only on request,
/// as by default, every 4 KiB page is otherwise a fault of its own: loading a 47-million-node
/// world's 5.6 GB took 1.4 million faults, 10 s of system time). Throws std::bad_alloc.
void* allocateLargeArray(std::size_t bytes);
void freeLargeArray(void* p) noexcept;
}  // namespace detail

/// std::allocator, except that a value-less construction default-initialises: `resize` leaves
/// new numbers unset instead of zeroing them. The bake and the world reader fill every entry of
/// a graph's large arrays in parallel, so the serial zero-fill before it (about 3 s for the
/// 3.4 GB of edge arrays of a 47-million-node world, most of it the kernel handing out fresh
/// pages to one thread) is skipped, and the pages are first touched by the threads that fill
/// them. Large arrays come in huge pages (detail::allocateLargeArray).
template <class T>
struct UninitializedAllocator : std::allocator<T> {
  UninitializedAllocator() noexcept = default;
  template <class U>
  UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) throw std::bad_array_new_length();
    if (n * sizeof(T) >= detail::kLargeArrayBytes) return static_cast<T*>(detail::allocateLargeArray(n * sizeof(T)));
    return std::allocator<T>::allocate(n);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) >= detail::kLargeArrayBytes) detail::freeLargeArray(p);
    else std::allocator<T>::deallocate(p, n);
  }
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    // Plain aggregates such as sim::Vec3f (whose members have default values) are left as the
    // allocation made them: it already holds such objects (C++20 implicit object creation), and
    // writing the default values would be the serial fill this allocator exists to skip.
    if constexpr (!(std::is_aggregate_v<U> && std::is_trivially_copyable_v<U> && std::is_trivially_destructible_v<U>))
      ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

/// A per-node (or per node and direction) array of a LayeredGraph: a std::vector whose `resize`
/// leaves new entries unset (UninitializedAllocator); `assign`, `push_back` and the rest behave
/// as usual.
template <class T>
using NodeArray = std::vector<T, UninitializedAllocator<T>>;

/// The baked navigation graph of one agent type. See the file comment for the layout.
struct LayeredGraph {
  GridFrame grid;                       ///< the column grid

  std::vector<uint32_t> column_offsets; ///< size columnCount() + 1; nodes of column c are [off[c], off[c+1])

  NodeArray<float> height;              ///< per node: floor height (Y), metres
  NodeArray<sim::Vec3f> normal;         ///< per node: unit surface normal of the floor (y > 0)
  NodeArray<uint16_t> area;             ///< per node: index into area_names / area_costs
  NodeArray<float> headroom;            ///< per node: vertical distance to the next surface above the floor at the column centre, metres (+inf: none)
  NodeArray<float> clearance;           ///< per node: horizontal distance from the node to the edge of walkable space, metres (>= agent radius)
  NodeArray<uint32_t> component;        ///< per node: connected-component id (edges taken as undirected), 0-based, assigned in node order
  NodeArray<uint8_t> flags;             ///< per node: NodeFlag bits

  NodeArray<uint32_t> neighbor;         ///< per node * 8 + direction: destination node or kNoNode
  NodeArray<uint8_t> edge_kind;         ///< per node * 8 + direction: EdgeKind
  NodeArray<float> edge_cost;           ///< per node * 8 + direction: cost (0 when no edge)

  std::vector<OffMeshLink> links;       ///< custom links and second jumps, sorted by (from_node, profile_index, to_node)
  NodeArray<uint32_t> link_offsets;     ///< size nodeCount() + 1; links leaving node n are [off[n], off[n+1])
  std::vector<std::string> link_labels; ///< labels of the profile's links

  std::vector<std::string> area_names;  ///< area 0 is "default" (cost 1)
  std::vector<float> area_costs;        ///< per area: cost multiplier (>= 1 ... or +inf: never entered)

  uint32_t component_count = 0;         ///< number of components

  /// Per node: strongly connected region id (same region = mutually reachable), 0-based,
  /// numbered by each region's lowest node. Regions refine components: drops and one-way links
  /// lead from one region to another without a way back.
  NodeArray<uint32_t> region;
  uint32_t region_count = 0;            ///< number of regions
  std::vector<uint32_t> region_reach_offsets; ///< size region_count + 1: CSR into region_reach
  /// Per region (sorted ascending): with region_reach_closure, every other region reachable from
  /// it; without, the regions one edge or link away (the region DAG's edges: a closure too large
  /// for the bake's budget, see component_stage.cpp).
  std::vector<uint32_t> region_reach;
  bool region_reach_closure = true;     ///< what region_reach holds (above)
  std::vector<RouteField> fields;       ///< named route-distance fields

  /// Number of floor nodes.
  std::size_t nodeCount() const { return height.size(); }
  /// Number of non-empty neighbour slots plus links (second jumps included).
  std::size_t edgeCount() const;
  /// Number of entries of `links` that are custom links (kind Link; a two-way link counts twice).
  std::size_t customLinkCount() const;
  /// Number of entries of `links` that are second jumps of the bake (kind Jump).
  std::size_t secondJumpCount() const;
  /// First node of column (x, z) (the caller checks grid.contains).
  uint32_t columnBegin(int32_t x, int32_t z) const { return column_offsets[grid.columnIndex(x, z)]; }
  /// One past the last node of column (x, z).
  uint32_t columnEnd(int32_t x, int32_t z) const { return column_offsets[grid.columnIndex(x, z) + 1]; }
  /// Column (x, z) of a node (binary search over column_offsets).
  std::array<int32_t, 2> nodeColumn(uint32_t node) const;
  /// World position of a node: its column centre at its floor height; NaN coordinates for
  /// kNoNode or any id past the nodes.
  sim::Vec3 nodePosition(uint32_t node) const;
  /// Edge kind of slot (node, direction).
  EdgeKind edgeKind(uint32_t node, int direction) const {
    return static_cast<EdgeKind>(edge_kind[static_cast<std::size_t>(node) * kDirectionCount + static_cast<std::size_t>(direction)]);
  }
  /// Destination of slot (node, direction), kNoNode when empty.
  uint32_t neighborOf(uint32_t node, int direction) const {
    return neighbor[static_cast<std::size_t>(node) * kDirectionCount + static_cast<std::size_t>(direction)];
  }
  /// Cost of slot (node, direction).
  float edgeCost(uint32_t node, int direction) const {
    return edge_cost[static_cast<std::size_t>(node) * kDirectionCount + static_cast<std::size_t>(direction)];
  }
  /// The height of floor node `node`'s surface under world (x, z): its centre's height carried
  /// along its plane (its normal) to the point, the point clamped into the node's column (so a
  /// point snapped from beside the column takes the surface at the column's edge).
  double surfaceAt(uint32_t node, double x, double z) const { return surfaceAt(node, nodeColumn(node), x, z); }
  /// The same with the node's column given (nodeColumn is a binary search over the columns).
  double surfaceAt(uint32_t node, std::array<int32_t, 2> column, double x, double z) const {
    const double half = 0.5 * grid.cell_size;
    const double dx = std::clamp(x - grid.centerX(column[0]), -half, half);
    const double dz = std::clamp(z - grid.centerZ(column[1]), -half, half);
    const sim::Vec3f n = normal[node];
    const double rise = n.y > 0 ? -(n.x * dx + n.z * dz) / n.y : 0.0;
    return double(height[node]) + (std::isfinite(rise) ? rise : 0.0);
  }
  /// The floor node of column (x, z) whose height is closest to `y` within [y - below, y + above],
  /// kNoNode when there is none (or the column is outside the grid).
  uint32_t findNode(int32_t x, int32_t z, double y, double below, double above) const;
  /// The node nearest to `point` (3-D distance to node positions) among the nodes of columns
  /// within `max_horizontal` metres whose height is within `max_vertical` metres of the point's,
  /// kNoNode when none. Distances within a micrometre are a tie, which goes to the lower node
  /// index (a point on a column border takes the lower column, as nearestWalkable does). Without
  /// `through_ceilings`, a node above the point is left out when a lower floor of its column has
  /// the point in its room (at or above that floor, inRoomOver): the point is under a ceiling
  /// that lies below the node (a point inside a slab or under the level may still take the floor
  /// above it).
  uint32_t nearestNode(const sim::Vec3& point, double max_horizontal, double max_vertical,
                       bool through_ceilings = true) const;
  /// Whether height `y` lies in the room over floor node `floor`: under its ceiling (height plus
  /// headroom, raised by `ceiling_lift`, as on a slope) by more than ceilingMargin() (heights and
  /// headroom are float32, and a thin floor's ceiling is its own surface). A floor above such a
  /// point is through that ceiling (nearestWalkable's and nearestNode's rule).
  bool inRoomOver(uint32_t floor, double y, double ceiling_lift = 0) const {
    const double ceiling = double(height[floor]) + double(headroom[floor]) + ceiling_lift;
    return y < ceiling - ceilingMargin(ceiling);
  }
  /// Whether height `y` lies over the ceiling of floor node `floor` (raised by `ceiling_lift`) by
  /// more than the same margin (plus `slack`): the floor is then under the point through a slab,
  /// not below it in its room (nearestWalkable's rule).
  bool overCeilingOf(uint32_t floor, double y, double ceiling_lift = 0, double slack = 0) const {
    const double ceiling = double(height[floor]) + double(headroom[floor]) + ceiling_lift;
    return y > ceiling + ceilingMargin(ceiling) + slack;
  }
  /// Metres: how far under (inRoomOver) or over (overCeilingOf) a ceiling at height `ceiling` a
  /// height must lie to count as such: kCeilingMargin plus float32's spacing there
  /// (float32Spacing: 7.8 mm at 1e5 m, 6.25 cm at 1e6 m), since the floor over the ceiling is
  /// stored to that spacing (an audit: 1e6 m up, a ramp's own stored height, 1.6 cm under its
  /// surface, was in the room of the ground below, so a point there snapped to the ground and a
  /// route's walk leg failed `query los`). Floors closer than that to a ceiling cannot be told
  /// from it there.
  static double ceilingMargin(double ceiling) { return kCeilingMargin + float32Spacing(ceiling); }
  /// The centimetre of ceilingMargin(): a thin floor's ceiling is its own surface.
  static constexpr double kCeilingMargin = 0.01;
  /// Whether the bake's reachability is present (component, region and region_reach_offsets
  /// sized for the nodes): every bake and every world file has it; canReach needs it.
  bool hasRegions() const;
  /// Exact reachability from node `from` to node `to` over edges and links: O(1) when their
  /// components differ (false) or their regions match (true), else a binary search in the
  /// closure, or without one a walk of the region DAG (O(regions) at worst). Needs hasRegions().
  /// Thread-safe (the walk's scratch is per thread).
  bool canReach(uint32_t from, uint32_t to) const;
  /// Rebuilds link_offsets (size nodeCount() + 1) from `links`, which must be sorted by
  /// from_node with every from_node below nodeCount(); in parallel over the nodes.
  void indexLinkOffsets();
  /// The label (index into link_labels) of the link a route takes from node `from` to node
  /// `to`: the cheapest such custom link, the first in `links` on a tie (the one a search
  /// relaxes first); -1 when no custom link joins them.
  int32_t linkLabel(uint32_t from, uint32_t to) const;
  /// Index of the named field, or -1.
  int findField(const std::string& name) const;
  /// Empty string when the arrays are mutually consistent (sizes, offsets monotone, indices in
  /// range), else what is wrong. Used by the world-file reader.
  std::string validate() const;
};

}  // namespace strata::nav
