// Clearance: the horizontal distance from a node to the edge of walkable space, so one bake
// can answer for any agent radius up to the node's clearance (query: clearance >= radius).
//
// A border node lacks a walk edge in some direction (any of the 8); its clearance is the baked
// agent radius (its standing box fits, nothing more is known). Every other node adds the
// shortest walk-edge route to the nearest border node, cell_size per step, diagonal or not: the
// standing box is square and axis-aligned, so the room it has is a distance in the maximum norm
// (the larger of the x and z gaps), which a diagonal step changes by one cell like a straight
// one. On level ground an agent of radius r then fits wherever clearance >= r: from a node, the
// columns in the direction of the nearest obstacle come one cell nearer it per step, the first
// column whose baked box meets it is missing, and the one before that is a border node. (Borders
// were cardinal only, at sqrt(2) per diagonal: a node diagonal to a pillar's corner, or beside a
// diagonal wall, claimed up to 41 % more room than its box has.)
//
// The values are the fixed point of the relaxation d(n) = min over walk edges n -> m of
// d(m) + step (borders 0). Every step is positive and floating-point addition is monotone, so
// the fixed point is the minimum over all walk routes of the route's sum taken from the border,
// whatever the order of the relaxations: the same bits at any thread count and with any schedule
// (tests/nav/bake_clearance_oracle_tests.cpp compares with a plain Dijkstra). It is reached in
// two steps:
//  1. four sweeps of a chamfer distance transform (Rosenfeld & Pfaltz 1966), alternately forward
//     and backward in node order, each in parallel over bands of rows. A sweep looks only at the
//     neighbours already swept in its direction (the others were looked at by the sweep before,
//     after their own update in it). A band reads the nodes of an adjacent band from a copy of
//     its edge rows taken between sweeps (no data race). Four sweeps settle about 98 % of the
//     nodes;
//  2. a worklist (label-correcting, serial, small) settles the rest: it starts from the nodes
//     that may have seen a stale value (the band edge rows, and every node with a walk edge into
//     a node the last sweep changed: a node swept before that neighbour's change looked at it
//     in the previous sweep, or not at all) and re-relaxes over all 8 directions, pushing the
//     walk predecessors of every node that changes, until it is empty. Then every node satisfies
//     the relaxation with respect to every neighbour's current value: the fixed point.

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <utility>

#include "bake_stages.h"

namespace strata::nav {
namespace {

/// Fewest rows per band: narrower bands leave more of the work to the serial worklist.
constexpr int32_t kMinBandRows = 16;
/// Parallel sweeps before the worklist (alternating forward and backward): on terrain the
/// third sweep still changes ~5 % of the nodes, the fourth ~1.5 %.
constexpr int kSweeps = 4;
// The worklist relies on every (node, neighbour) pair having been looked at in both sweep
// directions at least once.
static_assert(kSweeps >= 2, "at least one forward and one backward sweep");

/// Directions to nodes earlier in node order (row-major columns): -x, and every step to -z.
constexpr uint8_t kEarlierDirections = (1u << 4) | (1u << 5) | (1u << 6) | (1u << 7);
constexpr uint8_t kLaterDirections = static_cast<uint8_t>(~kEarlierDirections);
constexpr uint8_t kAllDirections = 0xFFu;

/// A node and its column index (the worklist needs the column to find walk predecessors).
using Located = std::pair<uint32_t, uint32_t>;

}  // namespace

void computeClearance(double radius, LayeredGraph& graph) {
  const std::size_t nodes = graph.nodeCount();
  const double inf = std::numeric_limits<double>::infinity();
  const GridFrame& grid = graph.grid;
  const auto walk = static_cast<uint8_t>(EdgeKind::Walk);
  // Per node: bit d set when the edge in direction d is a walk edge; distance 0 on border nodes,
  // +inf elsewhere; `copied` holds the band edge rows as adjacent bands read them. (No zero-fill:
  // every entry is written here.)
  std::unique_ptr<double[]> distance(new double[nodes]);
  std::unique_ptr<double[]> copied(new double[nodes]);
  std::unique_ptr<uint8_t[]> walks(new uint8_t[nodes]);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, nodes, 1024), [&](const tbb::blocked_range<std::size_t>& r) {
    for (std::size_t n = r.begin(); n != r.end(); ++n) {
      uint8_t mask = 0;
      for (int d = 0; d < kDirectionCount; ++d)
        if (graph.edge_kind[n * kDirectionCount + d] == walk) mask = static_cast<uint8_t>(mask | 1u << d);
      walks[n] = mask;
      const bool border = mask != 0xFFu;  // a direction without a walk edge
      if (border) graph.flags[n] |= kNodeBorder;
      distance[n] = copied[n] = border ? 0.0 : inf;
    }
  });

  // Bands: a few per thread (any split gives the same values).
  const int32_t threads = std::max(1, tbb::this_task_arena::max_concurrency());
  const int32_t bands = threads == 1 ? 1 : std::clamp(grid.depth_cells / kMinBandRows, 1, 2 * threads);
  auto bandRows = [&](int32_t b, int32_t& z0, int32_t& z1) {
    z0 = static_cast<int32_t>(static_cast<int64_t>(grid.depth_cells) * b / bands);
    z1 = static_cast<int32_t>(static_cast<int64_t>(grid.depth_cells) * (b + 1) / bands);
  };
  const double step = grid.cell_size;  // every direction (the maximum norm)
  const uint32_t* neighbor = graph.neighbor.data();
  const int32_t width = grid.width_cells;

  // Relaxes node n over the walk edges in `directions`, reading nodes outside [lo, hi) from
  // `copied`; true when its distance dropped. kInside: every walk neighbour of n lies in
  // [lo, hi) (n is not on a band's first or last row), so no node is read from `copied`.
  auto relax = [&]<bool kInside>(uint32_t n, uint8_t directions, uint32_t lo, uint32_t hi) {
    const double current = distance[n];
    if (current == 0) return false;  // a border node: nothing is shorter
    double best = current;
    uint32_t mask = walks[n] & directions;
    const uint32_t* slots = neighbor + static_cast<std::size_t>(n) * kDirectionCount;
    while (mask != 0) {
      const int d = __builtin_ctz(mask);
      mask &= mask - 1;
      const uint32_t m = slots[d];
      const double via = (kInside || (m >= lo && m < hi) ? distance[m] : copied[m]) + step;
      if (via < best) best = via;
    }
    if (!(best < current)) return false;
    distance[n] = best;
    return true;
  };

  // ---- 1. parallel sweeps ----
  std::vector<std::vector<Located>> changed(static_cast<std::size_t>(bands));  // by the last sweep
  for (int pass = 0; pass < kSweeps; ++pass) {
    const bool forward = pass % 2 == 0, last = pass == kSweeps - 1;
    const uint8_t directions = forward ? kEarlierDirections : kLaterDirections;
    tbb::parallel_for(tbb::blocked_range<int32_t>(0, bands, 1), [&](const tbb::blocked_range<int32_t>& r) {
      for (int32_t b = r.begin(); b != r.end(); ++b) {
        int32_t z0, z1;
        bandRows(b, z0, z1);
        if (z0 == z1) continue;
        const uint32_t lo = graph.column_offsets[grid.columnIndex(0, z0)];
        const uint32_t hi = graph.column_offsets[grid.columnIndex(0, z1 - 1) + width];
        std::vector<Located>& list = changed[static_cast<std::size_t>(b)];
        // Row by row, in node order (forward) or against it; a walk edge joins adjacent rows
        // only, so nodes off the band's first and last rows read no copies.
        auto row = [&]<bool kInside>(int32_t z) {
          const std::size_t first = grid.columnIndex(0, z), end = first + static_cast<std::size_t>(width);
          auto column = [&](std::size_t c) {
            const uint32_t begin = graph.column_offsets[c], stop = graph.column_offsets[c + 1];
            for (uint32_t n = begin; n < stop; ++n)
              if (relax.template operator()<kInside>(n, directions, lo, hi) && last) list.emplace_back(n, static_cast<uint32_t>(c));
          };
          if (forward)
            for (std::size_t c = first; c < end; ++c) column(c);
          else
            for (std::size_t c = end; c-- > first;) column(c);
        };
        for (int32_t i = 0; i < z1 - z0; ++i) {
          const int32_t z = forward ? z0 + i : z1 - 1 - i;
          if (z == z0 || z == z1 - 1) row.template operator()<false>(z);
          else row.template operator()<true>(z);
        }
      }
    });
    // Refresh the copies of the band edge rows (read by the adjacent bands in the next sweep).
    for (int32_t b = 0; b < bands; ++b) {
      int32_t z0, z1;
      bandRows(b, z0, z1);
      if (z0 == z1) continue;
      for (const int32_t z : {z0, z1 - 1})
        for (uint32_t n = graph.columnBegin(0, z); n < graph.columnEnd(width - 1, z); ++n) copied[n] = distance[n];
    }
  }

  // ---- 2. the worklist ----
  std::unique_ptr<uint8_t[]> queued(new uint8_t[nodes]());
  std::vector<Located> queue;
  auto push = [&](uint32_t n, uint32_t c) {
    if (queued[n] || distance[n] == 0) return;
    queued[n] = 1;
    queue.emplace_back(n, c);
  };
  // Walk predecessors of node m of column c: nodes p of the column one step back in direction d
  // whose walk edge d leads to m.
  auto pushPredecessors = [&](uint32_t m, uint32_t c) {
    const int32_t x = static_cast<int32_t>(c % static_cast<uint32_t>(width));
    const int32_t z = static_cast<int32_t>(c / static_cast<uint32_t>(width));
    for (int d = 0; d < kDirectionCount; ++d) {
      const int32_t px = x - kDirectionDx[d], pz = z - kDirectionDz[d];
      if (!grid.contains(px, pz)) continue;
      const std::size_t pc = grid.columnIndex(px, pz);
      for (uint32_t p = graph.column_offsets[pc]; p < graph.column_offsets[pc + 1]; ++p)
        if ((walks[p] >> d & 1u) && neighbor[static_cast<std::size_t>(p) * kDirectionCount + d] == m)
          push(p, static_cast<uint32_t>(pc));
    }
  };
  if (bands > 1)
    for (int32_t b = 0; b < bands; ++b) {
      int32_t z0, z1;
      bandRows(b, z0, z1);
      if (z0 == z1) continue;
      for (const int32_t z : {z0, z1 - 1})
        for (int32_t x = 0; x < width; ++x) {
          const std::size_t c = grid.columnIndex(x, z);
          for (uint32_t n = graph.column_offsets[c]; n < graph.column_offsets[c + 1]; ++n)
            push(n, static_cast<uint32_t>(c));
        }
    }
  for (const auto& list : changed)
    for (const Located& e : list) pushPredecessors(e.first, e.second);
  std::vector<std::vector<Located>>().swap(changed);
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const auto [n, c] = queue[head];
    queued[n] = 0;
    if (relax.template operator()<true>(n, kAllDirections, 0, static_cast<uint32_t>(nodes))) pushPredecessors(n, c);
    if (head >= 65536 && head * 2 >= queue.size()) {  // drop the processed front now and then
      queue.erase(queue.begin(), queue.begin() + static_cast<std::ptrdiff_t>(head) + 1);
      head = static_cast<std::size_t>(-1);
    }
  }

  graph.clearance.resize(nodes);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, nodes, 1024), [&](const tbb::blocked_range<std::size_t>& r) {
    for (std::size_t n = r.begin(); n != r.end(); ++n)
      graph.clearance[n] = static_cast<float>(std::isfinite(distance[n]) ? radius + distance[n] : inf);
  });
}

}  // namespace strata::nav
