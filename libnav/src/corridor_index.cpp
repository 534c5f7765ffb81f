// The rectangle decomposition of the corridor method (corridor.h): rectangles of columns, the
// node -> rectangle table, and the rectangle graph (portals and special edges) in CSR form.
//
// A rectangle holds one node per column; all its nodes share one area, and every pair of
// 8-adjacent nodes inside is joined by walk edges of finite cost both ways. Then a straight
// segment between two of its column centres only crosses its own columns, and each step of the
// line test (LayeredSearchGraph::walkLine) between them is one of those walk edges. A portal is a
// maximal run of column pairs across a rectangle side joined the same way (cardinal edges of the
// pairs, diagonals between consecutive pairs), so the two-column strip of the run has the same
// property and a line through rectangle, strip and rectangle stays walkable.
//
// Floors of one column closer than the step height (stairs and ramps can leave two surfaces
// 0.1-0.2 m apart in a column) are twins: one cluster, represented by its lowest node, and all
// rules above apply to clusters (every member's walk edge lands in the expected cluster). A line
// then walks through cluster members and may end on the twin of the node aimed at; the query
// continues from the node it reached.
//
// Growth is greedy and deterministic: nodes in index order (columns row by row, floors bottom
// up), each unassigned node grows a rectangle along +X while the next column qualifies, then
// along +Z while the next row does, and another one along +Z first, then +X; the larger is kept.
// Sides are capped at CorridorSettings::max_side_cells, so each seed looks at a bounded number of
// nodes (O(nodes) overall).

#include <algorithm>
#include <cmath>
#include <mutex>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "strata/nav/corridor.h"

namespace strata::nav {

Status CorridorSettings::validate() const {
  if (max_side_cells < 0) return Error::badInput("corridor: max_side_cells must be 0 (unlimited) or >= 1");
  return Ok{};
}

struct LayeredSearchGraph::LazyCorridor {
  std::once_flag once;
  std::unique_ptr<CorridorIndex> index;
};

LayeredSearchGraph::~LayeredSearchGraph() = default;

std::shared_ptr<LayeredSearchGraph::LazyCorridor> LayeredSearchGraph::makeLazyCorridor() {
  return std::make_shared<LazyCorridor>();
}

const CorridorIndex& LayeredSearchGraph::corridor() const {
  // The build runs parallel loops of its own. Isolated, the thread that runs it takes only their
  // pieces while it waits for them: without isolation it may take another task of its caller's
  // loop (another request of a batch), and a corridor request there would call this again on the
  // same thread, inside call_once, and wait for ever. (A ThreadSanitizer audit of 2026-12-06 read
  // this in the code; 20 of its runs and 60 rounds of a stress loop did not hang without it.)
  std::call_once(corridor_->once, [&] {
    tbb::this_task_arena::isolate([&] { corridor_->index = std::make_unique<CorridorIndex>(*this); });
  });
  return *corridor_->index;
}

namespace {

constexpr int kEast = 0, kNorthEast = 1, kNorth = 2, kNorthWest = 3, kWest = 4, kSouthWest = 5, kSouth = 6, kSouthEast = 7;

// Walk-edge helpers over the raw graph.
struct Edges {
  const LayeredGraph& g;
  const LayeredSearchGraph& view;

  // Destination of a finite-cost walk edge from `node` in direction d that lands in the
  // adjacent column, kNoNode otherwise.
  NodeId walkTo(NodeId node, int d) const {
    const std::size_t slot = static_cast<std::size_t>(node) * kDirectionCount + static_cast<std::size_t>(d);
    if (static_cast<EdgeKind>(g.edge_kind[slot]) != EdgeKind::Walk) return kNoNode;
    if (!(g.edge_cost[slot] < std::numeric_limits<float>::infinity())) return kNoNode;
    const NodeId to = g.neighbor[slot];
    if (to == kNoNode || to >= g.nodeCount()) return kNoNode;
    const auto a = view.column(node), b = view.column(to);
    if (b[0] != a[0] + kDirectionDx[d] || b[1] != a[1] + kDirectionDz[d]) return kNoNode;
    return to;
  }
  // Twin clusters (see the file comment): `rep[n]` is the lowest node of n's cluster; the
  // members of a cluster are consecutive nodes of one column.
  const NodeArray<NodeId>& rep;

  // The cluster every member of cluster `r` reaches by a walk edge in direction d (its
  // representative), kNoNode when a member has no such edge or they disagree.
  NodeId step(NodeId r, int d) const {
    NodeId target = kNoNode;
    for (NodeId m = r; m < g.nodeCount() && rep[m] == r; ++m) {
      const NodeId t = walkTo(m, d);
      if (t == kNoNode) return kNoNode;
      if (target == kNoNode) target = rep[t];
      else if (rep[t] != target) return kNoNode;
    }
    return target;
  }
  // Cluster a -> cluster b in direction d and back.
  bool mutual(NodeId a, int d, NodeId b) const {
    return a != kNoNode && b != kNoNode && step(a, d) == b && step(b, oppositeDirection(d)) == a;
  }
};

}  // namespace

CorridorIndex::CorridorIndex(const LayeredSearchGraph& view, const CorridorSettings& settings) : view_(&view) {
  const LayeredGraph& g = view.graph();
  const std::size_t nodes = g.nodeCount();
  // 0. Twin clusters: floors of one column closer than the step height (and of one area), which
  // the bake can leave on stairs and ramps, are one cluster; the decomposition works on clusters.
  // The per-node tables below are sized without zeroing (NodeArray) and filled in parallel: on a
  // world of tens of millions of nodes, serial fills of fresh memory were most of the build.
  rep_.resize(nodes);
  const double twin_gap = view.agent().step_height;
  const std::size_t columns = g.column_offsets.empty() ? 0 : g.column_offsets.size() - 1;
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, columns, 4096), [&](const tbb::blocked_range<std::size_t>& range) {
    for (std::size_t c = range.begin(); c != range.end(); ++c)
      for (uint32_t n = g.column_offsets[c]; n < g.column_offsets[c + 1] && n < nodes; ++n) {
        const bool joins = n > g.column_offsets[c] && g.area[n] == g.area[rep_[n - 1]] &&
                           double(g.height[n]) - double(g.height[rep_[n - 1]]) < twin_gap;
        rep_[n] = joins ? rep_[n - 1] : n;
      }
  });
  const Edges edges{g, view, rep_};
  auto fill = [](auto& array, std::size_t size, auto value) {
    array.resize(size);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, size, 1 << 16), [&](const tbb::blocked_range<std::size_t>& range) {
      std::fill(array.begin() + static_cast<std::ptrdiff_t>(range.begin()), array.begin() + static_cast<std::ptrdiff_t>(range.end()), value);
    });
  };
  const int32_t cap = settings.max_side_cells > 0 ? settings.max_side_cells : std::numeric_limits<int32_t>::max();
  fill(rect_of_, nodes, kNoNode);

  // 1. Rectangles. Each seed grows two candidates, lines along X stacked along +Z and lines
  // along Z stacked along +X; the larger one is kept (ties: along X). `block` holds the nodes of
  // a candidate line by line.
  std::vector<NodeId> block, best, line;
  auto grow = [&](NodeId seed, bool along_x, int32_t& length, int32_t& lines) {
    const int forward = along_x ? kEast : kNorth;  // direction along a line
    const int stack = along_x ? kNorth : kEast;    // direction to the next line
    const int back_diagonal = along_x ? kNorthWest : kSouthEast;  // from line k-1 at i to line k at i-1
    const uint16_t area = g.area[seed];
    auto fits = [&](NodeId n) { return n != kNoNode && rect_of_[n] == kNoNode && g.area[n] == area; };
    block.assign(1, seed);
    length = 1, lines = 1;
    if (!std::isfinite(view.areaCost(seed))) return;  // never entered: a rectangle of its own
    for (NodeId last = seed; length < cap;) {
      const NodeId next = edges.step(last, forward);
      if (!fits(next) || !edges.mutual(last, forward, next)) break;
      block.push_back(next);
      last = next;
      ++length;
    }
    while (lines < cap) {
      const NodeId* previous = block.data() + static_cast<std::size_t>(lines - 1) * static_cast<std::size_t>(length);
      line.clear();
      bool ok = true;
      for (int32_t i = 0; i < length && ok; ++i) {
        const NodeId n = edges.step(previous[i], stack);
        ok = fits(n) && edges.mutual(previous[i], stack, n);
        if (ok && i > 0)
          ok = edges.mutual(line.back(), forward, n) && edges.mutual(previous[i - 1], kNorthEast, n) &&
               edges.mutual(previous[i], back_diagonal, line.back());
        line.push_back(n);
      }
      if (!ok) break;
      block.insert(block.end(), line.begin(), line.end());
      ++lines;
    }
  };
  for (NodeId seed = 0; seed < nodes; ++seed) {
    if (rect_of_[seed] != kNoNode || rep_[seed] != seed) continue;
    const auto rect_id = static_cast<uint32_t>(rects_.size());
    int32_t length_x = 1, lines_x = 1, length_z = 1, lines_z = 1;
    grow(seed, true, length_x, lines_x);
    best.swap(block);
    grow(seed, false, length_z, lines_z);
    int32_t width = length_x, depth = lines_x;
    if (int64_t(length_z) * lines_z > int64_t(length_x) * lines_x) {
      best.swap(block);
      width = lines_z, depth = length_z;
    }
    const auto c = view.column(seed);
    rects_.push_back({c[0], c[1], c[0] + width - 1, c[1] + depth - 1, g.area[seed]});
    for (NodeId r : best)
      for (NodeId m = r; m < nodes && rep_[m] == r; ++m) rect_of_[m] = rect_id;
  }

  // 2. Portals, side by side, and the walk slots they cover (covered walk edges are implicit).
  NodeArray<uint8_t> covered;
  fill(covered, nodes * kDirectionCount, uint8_t{0});
  auto cover = [&](NodeId r, int d) {  // the slots of every member of cluster r
    for (NodeId m = r; m < nodes && rep_[m] == r; ++m)
      covered[static_cast<std::size_t>(m) * kDirectionCount + static_cast<std::size_t>(d)] = 1;
  };
  std::vector<std::vector<CorridorEdge>> per_rect(rects_.size());
  for (uint32_t r = 0; r < rects_.size(); ++r) {
    const CorridorRect& rect = rects_[r];
    for (const int side : {kEast, kNorth, kWest, kSouth}) {
      const bool along_z = side == kEast || side == kWest;  // the side runs along Z
      const int32_t line = side == kEast ? rect.x1 : side == kWest ? rect.x0 : side == kNorth ? rect.z1 : rect.z0;
      const int32_t first = along_z ? rect.z0 : rect.x0, last = along_z ? rect.z1 : rect.x1;
      // Diagonals from the source pair at u-1 to the destination at u ("forward"), and from the
      // source at u to the destination at u-1 ("back"), for stepping along the side.
      const int forward = side == kEast ? kNorthEast : side == kWest ? kNorthWest : side == kNorth ? kNorthEast : kSouthEast;
      const int back = side == kEast ? kSouthEast : side == kWest ? kSouthWest : side == kNorth ? kNorthWest : kSouthWest;
      CorridorEdge open;
      bool is_open = false;
      NodeId prev_from = kNoNode, prev_to = kNoNode;
      auto close = [&] {
        if (is_open) per_rect[r].push_back(open);
        is_open = false;
      };
      for (int32_t u = first; u <= last; ++u) {
        const int32_t x = along_z ? line : u, z = along_z ? u : line;
        const NodeId from = nodeAt(r, x, z);
        const NodeId to = edges.step(from, side);
        const bool pair = to != kNoNode && rect_of_[to] != r && edges.mutual(from, side, to);
        if (!pair) {
          close();
          prev_from = prev_to = kNoNode;
          continue;
        }
        const bool extends = is_open && rect_of_[to] == open.to_rect && edges.mutual(prev_from, forward, to) &&
                             edges.mutual(from, back, prev_to);
        if (extends) {
          open.hi = u;
          open.from_hi = from;
          open.to_hi = to;
          cover(prev_from, forward), cover(to, oppositeDirection(forward));
          cover(from, back), cover(prev_to, oppositeDirection(back));
        } else {
          close();
          open = CorridorEdge{};
          open.to_rect = rect_of_[to];
          open.portal = true;
          open.direction = static_cast<uint8_t>(side);
          open.lo = open.hi = u;
          open.line = line;
          open.from_lo = open.from_hi = from;
          open.to_lo = open.to_hi = to;
          is_open = true;
        }
        cover(from, side), cover(to, oppositeDirection(side));
        prev_from = from;
        prev_to = to;
      }
      close();
    }
  }

  // 3. Special edges: every other finite edge or link leaving a rectangle.
  auto setColumns = [&](CorridorEdge& e) {
    const auto a = view.column(e.from_lo), b = view.column(e.to_lo);
    e.lo = a[0], e.hi = a[1], e.line = b[0], e.to_z = b[1];
  };
  for (NodeId n = 0; n < nodes; ++n) {
    const uint32_t r = rect_of_[n];
    const std::size_t base = static_cast<std::size_t>(n) * kDirectionCount;
    for (int d = 0; d < kDirectionCount; ++d) {
      const NodeId to = g.neighbor[base + d];
      const auto kind = static_cast<EdgeKind>(g.edge_kind[base + d]);
      if (to == kNoNode || to >= nodes || kind == EdgeKind::None) continue;
      if (!(g.edge_cost[base + d] < std::numeric_limits<float>::infinity())) continue;
      if (rect_of_[to] == r || covered[base + d]) continue;
      if (kind == EdgeKind::Walk && isDiagonal(d)) {
        // A diagonal walk whose two cardinal steps (through either side column) are walk edges
        // too adds nothing the rectangle graph lacks: those steps are inside rectangles, portals
        // or special edges themselves. Leaving it out keeps the rectangle graph small.
        const int ccw = (d + 1) % kDirectionCount, cw = (d + kDirectionCount - 1) % kDirectionCount;
        const NodeId side_a = edges.walkTo(n, ccw), side_b = edges.walkTo(n, cw);
        if ((side_a != kNoNode && edges.walkTo(side_a, cw) == to) || (side_b != kNoNode && edges.walkTo(side_b, ccw) == to))
          continue;
      }
      CorridorEdge e;
      e.to_rect = rect_of_[to];
      e.action = moveActionOf(kind);
      e.from_lo = n;
      e.to_lo = to;
      setColumns(e);
      e.cost = g.edge_cost[base + d];
      per_rect[r].push_back(e);
    }
    if (g.link_offsets.size() != nodes + 1) continue;
    for (uint32_t l = g.link_offsets[n]; l < g.link_offsets[n + 1] && l < g.links.size(); ++l) {
      const OffMeshLink& link = g.links[l];
      if (link.to_node >= nodes || !(link.cost < std::numeric_limits<float>::infinity())) continue;
      if (rect_of_[link.to_node] == r) continue;
      CorridorEdge e;
      e.to_rect = rect_of_[link.to_node];
      e.action = moveActionOf(link.kind);  // a custom link or a second jump
      e.from_lo = n;
      e.to_lo = link.to_node;
      setColumns(e);
      e.cost = link.cost;
      per_rect[r].push_back(e);
    }
  }

  // Each rectangle's special edges into one rectangle by one action side by side, in node order
  // within such a run (the rectangle search relaxes one edge of a run: corridor_path.cpp).
  for (auto& list : per_rect)
    std::stable_sort(list.begin(), list.end(), [](const CorridorEdge& a, const CorridorEdge& b) {
      if (a.portal || b.portal) return a.portal && !b.portal;  // portals first, as built
      return a.to_rect != b.to_rect ? a.to_rect < b.to_rect : a.action < b.action;
    });

  // 4. CSR.
  edge_offsets_.assign(rects_.size() + 1, 0);
  for (std::size_t r = 0; r < rects_.size(); ++r) edge_offsets_[r + 1] = edge_offsets_[r] + static_cast<uint32_t>(per_rect[r].size());
  edges_.reserve(edge_offsets_.back());
  for (auto& list : per_rect)
    for (const CorridorEdge& e : list) {
      portal_count_ += e.portal ? 1 : 0;
      edges_.push_back(e);
    }

  // 5. One area cost for all rectangles (those of a finite cost)? And the cheapest.
  for (const CorridorRect& r : rects_) {
    const double cost = g.area_costs[r.area];
    if (std::isfinite(cost)) min_area_cost_ = std::min(min_area_cost_, cost);
  }
  // The cheapest custom link per metre of its span (as LayeredSearchGraph's heuristic rate).
  for (const OffMeshLink& link : g.links) {
    if (link.kind != EdgeKind::Link || link.from_node >= nodes || link.to_node >= nodes) continue;
    const auto a = view.column(link.from_node), b = view.column(link.to_node);
    const double span = std::hypot(double(b[0] - a[0]), double(b[1] - a[1])) * g.grid.cell_size;
    if (span > 0) min_link_rate_ = std::min(min_link_rate_, std::max(0.0, double(link.cost)) / span);
    // A link inside one rectangle is no edge of the rectangle graph: cheaper than walking its
    // span there, only a route by the graph's own edges finds it.
    const uint32_t r = rect_of_[link.from_node];
    if (r == rect_of_[link.to_node] && double(link.cost) < span * double(g.area_costs[rects_[r].area])) inner_cheap_link_ = true;
  }
  for (const CorridorRect& r : rects_) {
    const double cost = g.area_costs[r.area];
    if (!std::isfinite(cost)) continue;
    if (uniform_area_cost_ == 0) uniform_area_cost_ = cost;
    else if (cost != uniform_area_cost_) {
      uniform_area_cost_ = 0;
      break;
    }
  }

  // 6. Line-walk tables: walk steps into the adjacent column, heights and areas side by side.
  walk_step_.resize(nodes * kDirectionCount);
  floors_.resize(nodes);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, nodes, 4096), [&](const tbb::blocked_range<std::size_t>& range) {
    for (std::size_t n = range.begin(); n != range.end(); ++n) {
      floors_[n] = {g.height[n], g.area[n], 0};
      const auto c = view.column(static_cast<NodeId>(n));
      for (int d = 0; d < kDirectionCount; ++d) {
        const std::size_t slot = n * kDirectionCount + static_cast<std::size_t>(d);
        const NodeId to = g.neighbor[slot];
        uint8_t step = kNoWalkStep;
        if (static_cast<EdgeKind>(g.edge_kind[slot]) == EdgeKind::Walk && to != kNoNode && to < nodes) {
          const auto t = view.column(to);
          if (t[0] == c[0] + kDirectionDx[d] && t[1] == c[1] + kDirectionDz[d]) {
            const uint32_t index = to - g.columnBegin(t[0], t[1]);
            step = index < kFarWalkStep ? static_cast<uint8_t>(index) : kFarWalkStep;
          }
        }
        walk_step_[slot] = step;
        if (step != kNoWalkStep) floors_[n].walks = static_cast<uint8_t>(floors_[n].walks | (1u << d));
      }
    }
  });

  // 7. Portal ends that are corners of the walkable plane (the route search turns only there):
  // an end is flat when the columns one step beyond it, on both sides, are joined to the end
  // pair and to each other the way a portal's pairs are (Edges::mutual, on clusters).
  auto joined = [&](NodeId from, int d) -> NodeId {
    if (from == kNoNode) return kNoNode;
    const NodeId to = edges.step(from, d);
    return edges.mutual(from, d, to) ? to : kNoNode;
  };
  for (CorridorEdge& e : edges_) {
    if (!e.portal) continue;
    const bool along_z = e.direction == kEast || e.direction == kWest;
    for (int end = 0; end < 2; ++end) {
      const int beyond = end == 0 ? (along_z ? kSouth : kWest) : (along_z ? kNorth : kEast);
      const NodeId from = joined(end == 0 ? e.from_lo : e.from_hi, beyond);
      const NodeId to = joined(end == 0 ? e.to_lo : e.to_hi, beyond);
      const bool flat = from != kNoNode && to != kNoNode && joined(from, e.direction) == to;
      (end == 0 ? e.lo_corner : e.hi_corner) = !flat;
    }
  }

  // 8. Dead ends (Shen, Harabor, Cui & Grastien 2020 prune them from navigation meshes): peel
  // rectangles with at most one neighbour (rectangles joined by any edge, either way) until none
  // is left; each peeled rectangle hangs from the neighbour still there when it went (its parent
  // towards the rest). A route that enters a peeled rectangle from its parent must leave the same
  // way, and within the parent, which is convex, the straight line between where it went in and
  // where it came out is shorter: so no shortest route does, unless the goal lies beyond. A
  // rectangle with a special edge (in or out) is never peeled: a cheap link could make such an
  // excursion pay. Subtrees are numbered in depth-first order, so "the goal lies beyond" is one
  // interval test.
  const std::size_t rect_count = rects_.size();
  std::vector<std::vector<uint32_t>> around(rect_count);
  std::vector<char> special(rect_count, 0);
  for (uint32_t r = 0; r < rect_count; ++r)
    for (const CorridorEdge& e : edgesOf(r)) {
      if (e.to_rect == r) continue;
      around[r].push_back(e.to_rect);
      around[e.to_rect].push_back(r);
      if (!e.portal) special[r] = special[e.to_rect] = 1;
    }
  std::vector<uint32_t> degree(rect_count);
  for (uint32_t r = 0; r < rect_count; ++r) {
    std::sort(around[r].begin(), around[r].end());
    around[r].erase(std::unique(around[r].begin(), around[r].end()), around[r].end());
    degree[r] = static_cast<uint32_t>(around[r].size());
  }
  constexpr uint32_t kCore = 0xffffffffu;
  dead_parent_.assign(rect_count, kCore);
  std::vector<char> peeled(rect_count, 0);
  std::vector<uint32_t> queue;
  for (uint32_t r = 0; r < rect_count; ++r)
    if (degree[r] <= 1 && !special[r]) queue.push_back(r);
  std::vector<uint32_t> order;  // peeled rectangles, in peeling order
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const uint32_t r = queue[head];
    if (peeled[r]) continue;
    peeled[r] = 1;
    order.push_back(r);
    uint32_t parent = kCore;
    for (uint32_t t : around[r])
      if (!peeled[t]) parent = t;
    dead_parent_[r] = parent == kCore ? r : parent;  // a whole tree's last rectangle is its own parent
    if (parent != kCore && --degree[parent] <= 1 && !special[parent]) queue.push_back(parent);
  }
  // Depth-first numbers: peeled in reverse order is parents before children, so each subtree's
  // size is summed child to parent, then numbers are handed out parent to child.
  dead_first_.assign(rect_count, 0);
  dead_end_.assign(rect_count, 0);
  std::vector<uint32_t> size(rect_count, 1), next_free(rect_count, 0);
  for (uint32_t r : order)
    if (dead_parent_[r] != r && peeled[dead_parent_[r]]) size[dead_parent_[r]] += size[r];
  uint32_t counter = 1;  // 0: outside every dead end (the rectangles still there)
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const uint32_t r = *it, parent = dead_parent_[r];
    if (parent == r || !peeled[parent]) {  // the top of a dead end
      dead_first_[r] = counter;
      counter += size[r];
    } else {
      dead_first_[r] = next_free[parent];
    }
    next_free[r] = dead_first_[r] + 1;
    if (parent != r && peeled[parent]) next_free[parent] += size[r];
    dead_end_[r] = dead_first_[r] + size[r];
  }
  dead_count_ = order.size();
}

NodeId CorridorIndex::walkTarget(NodeId node, int d) const {
  const std::size_t slot = static_cast<std::size_t>(node) * kDirectionCount + static_cast<std::size_t>(d);
  const uint8_t step = walk_step_[slot];
  if (step == kNoWalkStep) return kNoNode;
  if (step == kFarWalkStep) return view_->graph().neighbor[slot];
  const auto c = view_->column(node);
  return view_->graph().columnBegin(c[0] + kDirectionDx[d], c[1] + kDirectionDz[d]) + step;
}

NodeId CorridorIndex::nodeAt(uint32_t rect, int32_t x, int32_t z) const {
  const CorridorRect& r = rects_[rect];
  if (x < r.x0 || x > r.x1 || z < r.z0 || z > r.z1) return kNoNode;
  const LayeredGraph& g = view_->graph();
  for (uint32_t n = g.columnBegin(x, z); n < g.columnEnd(x, z); ++n)
    if (rect_of_[n] == rect) return n;
  return kNoNode;
}

}  // namespace strata::nav
