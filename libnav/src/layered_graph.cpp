// Accessors and the consistency check of the layered graph (see layered_graph.h).

#include "strata/nav/layered_graph.h"
#include "strata/nav/first_failing.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include <sys/mman.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <new>
#include <string>

namespace strata::nav {

void* detail::allocateLargeArray(std::size_t bytes) {
  constexpr std::size_t kHugePage = std::size_t(2) << 20;
  if (bytes > std::numeric_limits<std::size_t>::max() - kHugePage) throw std::bad_alloc();
  const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  void* p = nullptr;
  if (posix_memalign(&p, kHugePage, rounded) != 0 || p == nullptr) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  // Advice only: where it is refused (no transparent huge pages), the pages are the usual ones.
  (void)madvise(p, rounded, MADV_HUGEPAGE);
#endif
  return p;
}

void detail::freeLargeArray(void* p) noexcept { std::free(p); }

const char* edgeKindName(EdgeKind kind) {
  switch (kind) {
    case EdgeKind::None: return "none";
    case EdgeKind::Walk: return "walk";
    case EdgeKind::Jump: return "jump";
    case EdgeKind::Drop: return "drop";
    case EdgeKind::Climb: return "climb";
    case EdgeKind::Link: return "link";
  }
  return "unknown";
}

namespace {

// floor(v) as a column index, saturated at +-2^30 (far outside any grid, with room for callers to
// add a search radius): a modifier box of +-1e9 m means "everywhere", and a cast of an index
// beyond int32 is undefined (in practice INT_MIN, an empty range). NaN is far outside too.
int32_t saturatedColumn(double v) {
  constexpr double kLimit = 1 << 30;
  if (!(v > -kLimit)) return -(1 << 30);
  if (v >= kLimit) return 1 << 30;
  return static_cast<int32_t>(std::floor(v));
}

}  // namespace

// Column of a world coordinate along one axis: on the lattice, floor(world / cell) - k, which does
// not depend on the origin (both terms are integers); otherwise floor((world - origin) / cell).
int32_t GridFrame::columnAlong(double world, double origin) const {
  double k;
  if (latticeIndex(origin, k)) return saturatedColumn(std::floor(world / cell_size) - k);
  return saturatedColumn((world - origin) / cell_size);
}

int32_t GridFrame::columnX(double world_x) const { return columnAlong(world_x, origin_x); }
int32_t GridFrame::columnZ(double world_z) const { return columnAlong(world_z, origin_z); }

std::size_t LayeredGraph::edgeCount() const {
  std::size_t count = links.size();
  for (uint8_t kind : edge_kind)
    if (kind != static_cast<uint8_t>(EdgeKind::None)) ++count;
  return count;
}

std::size_t LayeredGraph::customLinkCount() const {
  return static_cast<std::size_t>(
      std::count_if(links.begin(), links.end(), [](const OffMeshLink& l) { return l.kind == EdgeKind::Link; }));
}

std::size_t LayeredGraph::secondJumpCount() const {
  return static_cast<std::size_t>(
      std::count_if(links.begin(), links.end(), [](const OffMeshLink& l) { return l.kind == EdgeKind::Jump; }));
}

std::array<int32_t, 2> LayeredGraph::nodeColumn(uint32_t node) const {
  // The column c with offsets[c] <= node < offsets[c + 1].
  const auto it = std::upper_bound(column_offsets.begin(), column_offsets.end(), node);
  const auto column = static_cast<std::size_t>(it - column_offsets.begin()) - 1;
  const auto width = static_cast<std::size_t>(grid.width_cells);
  return {static_cast<int32_t>(column % width), static_cast<int32_t>(column / width)};
}

sim::Vec3 LayeredGraph::nodePosition(uint32_t node) const {
  // kNoNode (a snap that found nothing) or any id past the nodes: no position (it was read out
  // of bounds), as the other accessors answer false or -1 for such ids.
  if (node >= height.size()) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    return {nan, nan, nan};
  }
  const auto column = nodeColumn(node);
  return {grid.centerX(column[0]), static_cast<double>(height[node]), grid.centerZ(column[1])};
}

uint32_t LayeredGraph::findNode(int32_t x, int32_t z, double y, double below, double above) const {
  if (!grid.contains(x, z)) return kNoNode;
  uint32_t best = kNoNode;
  double best_distance = 0;
  for (uint32_t n = columnBegin(x, z); n < columnEnd(x, z); ++n) {
    const double dy = height[n] - y;
    if (dy < -below || dy > above) continue;
    if (best == kNoNode || std::fabs(dy) < best_distance) best = n, best_distance = std::fabs(dy);
  }
  return best;
}

uint32_t LayeredGraph::nearestNode(const sim::Vec3& point, double max_horizontal, double max_vertical,
                                   bool through_ceilings) const {
  if (grid.width_cells <= 0 || grid.depth_cells <= 0) return kNoNode;
  const int32_t x0 = std::max(0, grid.columnX(point.x - max_horizontal));
  const int32_t x1 = std::min(grid.width_cells - 1, grid.columnX(point.x + max_horizontal));
  const int32_t z0 = std::max(0, grid.columnZ(point.z - max_horizontal));
  const int32_t z1 = std::min(grid.depth_cells - 1, grid.columnZ(point.z + max_horizontal));
  // Distances within a micrometre are a tie, kept by the node met first: the lowest index (nodes
  // are met in index order). A point on a column border is equally far from both centres, but
  // the centres' rounding depends on the grid's origin; without the tolerance a field origin or
  // link end on a border took the other column than nearestWalkable's query at the same point,
  // and the baked grid and an on-demand window could differ (nav_queries_nearest.cpp, same rule).
  constexpr double kTie = 1e-6;  // metres
  uint32_t best = kNoNode;
  double best_distance = 0;
  for (int32_t z = z0; z <= z1; ++z)
    for (int32_t x = x0; x <= x1; ++x) {
      const double dx = grid.centerX(x) - point.x, dz = grid.centerZ(z) - point.z;
      if (dx * dx + dz * dz > max_horizontal * max_horizontal) continue;
      const uint32_t begin = columnBegin(x, z), end = columnEnd(x, z);
      // Floors rise with the index within a column: the first above the point, and whether the
      // point lies in the room of the floor below that one.
      uint32_t ceiling_above = end;
      if (!through_ceilings) {
        uint32_t first_above = begin;
        while (first_above < end && height[first_above] <= point.y) ++first_above;
        if (first_above > begin && inRoomOver(first_above - 1, point.y)) ceiling_above = first_above;
      }
      for (uint32_t n = begin; n < end; ++n) {
        if (n >= ceiling_above) break;
        const double dy = height[n] - point.y;
        if (std::fabs(dy) > max_vertical) continue;
        const double d = std::sqrt(dx * dx + dy * dy + dz * dz);
        if (best == kNoNode || d < best_distance - kTie) best = n, best_distance = d;
      }
    }
  return best;
}

void LayeredGraph::indexLinkOffsets() {
  // link_offsets[n] = the number of links leaving nodes below n: each block finds its first
  // link by binary search, then walks the sorted links alongside its nodes.
  const std::size_t nodes = nodeCount();
  link_offsets.resize(nodes + 1);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, nodes + 1, 1 << 16), [&](const tbb::blocked_range<std::size_t>& range) {
    auto link = std::lower_bound(links.begin(), links.end(), range.begin(),
                                 [](const OffMeshLink& l, std::size_t n) { return l.from_node < n; });
    for (std::size_t n = range.begin(); n != range.end(); ++n) {
      while (link != links.end() && link->from_node < n) ++link;
      link_offsets[n] = static_cast<uint32_t>(link - links.begin());
    }
  });
}

std::string slotName(std::size_t slot) {
  return "node " + std::to_string(slot / kDirectionCount) + ", direction " + std::to_string(slot % kDirectionCount) + " (slot " +
         std::to_string(slot) + ")";
}

bool LayeredGraph::hasRegions() const {
  return component.size() == nodeCount() && region.size() == nodeCount() &&
         region_reach_offsets.size() == std::size_t(region_count) + 1;
}

bool LayeredGraph::canReach(uint32_t from, uint32_t to) const {
  if (from >= nodeCount() || to >= nodeCount()) return false;
  if (component[from] != component[to]) return false;
  const uint32_t a = region[from], b = region[to];
  if (a == b) return true;
  if (region_reach_closure)
    return std::binary_search(region_reach.begin() + region_reach_offsets[a],
                              region_reach.begin() + region_reach_offsets[a + 1], b);
  // The region DAG's edges only: a depth-first walk from a, each region once (stamps per thread,
  // a new stamp per walk).
  thread_local std::vector<uint32_t> seen;
  thread_local std::vector<uint32_t> stack;
  thread_local uint32_t stamp = 0;
  if (seen.size() < region_count) seen.resize(region_count, 0);
  if (++stamp == 0) {
    std::fill(seen.begin(), seen.end(), 0u);
    stamp = 1;
  }
  stack.clear();
  stack.push_back(a);
  seen[a] = stamp;
  while (!stack.empty()) {
    const uint32_t r = stack.back();
    stack.pop_back();
    for (uint32_t i = region_reach_offsets[r]; i < region_reach_offsets[r + 1]; ++i) {
      const uint32_t next = region_reach[i];
      if (next == b) return true;
      if (seen[next] != stamp) seen[next] = stamp, stack.push_back(next);
    }
  }
  return false;
}

int32_t LayeredGraph::linkLabel(uint32_t from, uint32_t to) const {
  if (from + 1 >= link_offsets.size()) return -1;
  const OffMeshLink* best = nullptr;
  for (uint32_t l = link_offsets[from]; l < link_offsets[from + 1]; ++l)
    if (links[l].to_node == to && links[l].kind == EdgeKind::Link && (best == nullptr || links[l].cost < best->cost))
      best = &links[l];
  return best == nullptr ? -1 : static_cast<int32_t>(best->label);
}

int LayeredGraph::findField(const std::string& name) const {
  for (std::size_t i = 0; i < fields.size(); ++i)
    if (fields[i].name == name) return static_cast<int>(i);
  return -1;
}


std::string LayeredGraph::validate() const {
  if (!(grid.cell_size > 0) || !std::isfinite(grid.cell_size)) return "grid cell_size must be positive";
  if (grid.width_cells < 0 || grid.depth_cells < 0) return "grid size must not be negative";
  if (column_offsets.size() != grid.columnCount() + 1) return "column_offsets has the wrong length";
  if (column_offsets.front() != 0) return "column_offsets must start at 0";
  for (std::size_t i = 1; i < column_offsets.size(); ++i)
    if (column_offsets[i] < column_offsets[i - 1]) return "column_offsets is not monotone at " + std::to_string(i);
  const std::size_t nodes = nodeCount();
  if (column_offsets.back() != nodes) return "column_offsets does not end at the node count";
  if (column_offsets.empty()) return "column_offsets is empty";
  if (normal.size() != nodes || area.size() != nodes || headroom.size() != nodes || clearance.size() != nodes ||
      component.size() != nodes || flags.size() != nodes)
    return "per-node arrays differ in length";
  if (neighbor.size() != nodes * kDirectionCount || edge_kind.size() != nodes * kDirectionCount ||
      edge_cost.size() != nodes * kDirectionCount)
    return "per-direction arrays must have 8 entries per node";
  if (area_names.size() != area_costs.size() || area_names.empty()) return "area tables are inconsistent";
  // The per-node and per-slot checks run in parallel (a large world has hundreds of millions of
  // slots); each reports the lowest failing index, as a serial scan would.
  const std::size_t bad_node =
      firstFailing(nodes, [&](std::size_t n) { return area[n] < area_names.size() && component[n] < component_count; });
  if (bad_node < nodes)
    return "node " + std::to_string(bad_node) +
           (area[bad_node] >= area_names.size() ? ": area out of range" : ": component out of range");
  if (region.size() != nodes) return "region has the wrong length";
  const std::size_t bad_region = firstFailing(nodes, [&](std::size_t n) { return region[n] < region_count; });
  if (bad_region < nodes) return "node " + std::to_string(bad_region) + ": region out of range";
  if (region_reach_offsets.size() != static_cast<std::size_t>(region_count) + 1 ||
      region_reach_offsets.back() != region_reach.size())
    return "region_reach_offsets is inconsistent";
  for (std::size_t r = 0; r < region_count; ++r) {
    if (region_reach_offsets[r + 1] < region_reach_offsets[r]) return "region_reach_offsets is not monotone";
    for (uint32_t i = region_reach_offsets[r]; i < region_reach_offsets[r + 1]; ++i)
      if (region_reach[i] >= region_count || (i > region_reach_offsets[r] && region_reach[i] <= region_reach[i - 1]))
        return "region_reach of region " + std::to_string(r) + " is not sorted or out of range";
  }
  auto slotProblem = [&](std::size_t s) -> const char* {
    // A slot holds a walk, jump, drop or climb; custom links live in `links` (a 5 there was read
    // as a link crossing by a route).
    if (edge_kind[s] > static_cast<uint8_t>(EdgeKind::Climb)) return "bad edge kind";
    const bool empty = edge_kind[s] == static_cast<uint8_t>(EdgeKind::None);
    if (empty != (neighbor[s] == kNoNode)) return "kind and neighbour disagree";
    if (!empty && neighbor[s] >= nodes) return "neighbour out of range";
    return nullptr;
  };
  const std::size_t bad_slot = firstFailing(neighbor.size(), [&](std::size_t s) { return slotProblem(s) == nullptr; });
  if (bad_slot < neighbor.size()) return slotName(bad_slot) + ": " + slotProblem(bad_slot);
  if (link_offsets.size() != nodes + 1 || link_offsets.back() != links.size()) return "link_offsets is inconsistent";
  for (std::size_t i = 1; i < link_offsets.size(); ++i)
    if (link_offsets[i] < link_offsets[i - 1]) return "link_offsets is not monotone";
  for (std::size_t i = 0; i < links.size(); ++i) {
    const OffMeshLink& link = links[i];
    if (link.from_node >= nodes || link.to_node >= nodes) return "link " + std::to_string(i) + ": node out of range";
    if (link.kind == EdgeKind::Link) {
      if (link.label >= link_labels.size()) return "link " + std::to_string(i) + ": label out of range";
    } else if (link.kind == EdgeKind::Jump) {
      if (link.label != kNoLinkLabel || link.profile_index != kNoLinkLabel || link.bidirectional)
        return "link " + std::to_string(i) + ": a second jump with a label, a profile link or two ways";
    } else {
      return "link " + std::to_string(i) + ": bad kind";
    }
    if (i < link_offsets[link.from_node] || i >= link_offsets[link.from_node + 1])
      return "link " + std::to_string(i) + ": not under its source node's offsets";
  }
  for (const RouteField& field : fields) {
    if (field.distance.size() != nodes) return "field '" + field.name + "': wrong length";
    if (field.origin_node != kNoNode && field.origin_node >= nodes) return "field '" + field.name + "': origin node out of range";
  }
  return {};
}

}  // namespace strata::nav
