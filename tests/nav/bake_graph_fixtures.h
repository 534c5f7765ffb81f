#pragma once
// Random layered graphs for the oracle tests of the bake's graph stages (clearance, components):
// only the arrays those stages read (grid, column offsets, neighbour slots, edge kinds, links),
// with the bake's shape (one edge per node and direction, into the column that direction leads
// to; cardinal jumps and drops may skip columns), and plain reference algorithms.

#include <tbb/task_arena.h>

#include <algorithm>
#include <cstdint>
#include <queue>
#include <random>
#include <vector>

#include "strata/nav/layered_graph.h"

namespace strata::test {

/// Shape of a random graph.
struct RandomGraphSpec {
  int32_t width = 24;            ///< columns along x
  int32_t depth = 24;            ///< columns along z
  int max_layers = 3;            ///< floors per column: 0 .. max_layers
  double empty_column = 0.15;    ///< probability of a column without floors (holes, so routes wind)
  double two_way_walk = 0.85;    ///< probability that a same-layer neighbour pair is walked both ways
  double one_way_walk = 0.05;    ///< ... walked one way only
  double one_way_drop = 0.10;    ///< per free slot: a drop or jump into another layer, or across a column
  int links = 6;                 ///< off-mesh links (half of them two-way)
  double cell_size = 0.3;        ///< metres
};

/// A random graph per `spec` from `seed` (deterministic).
inline nav::LayeredGraph randomGraph(const RandomGraphSpec& spec, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  nav::LayeredGraph g;
  g.grid.cell_size = spec.cell_size;
  g.grid.width_cells = spec.width;
  g.grid.depth_cells = spec.depth;
  const std::size_t columns = g.grid.columnCount();
  g.column_offsets.assign(columns + 1, 0);
  for (std::size_t c = 0; c < columns; ++c) {
    const int layers = unit(rng) < spec.empty_column ? 0 : 1 + static_cast<int>(rng() % spec.max_layers);
    g.column_offsets[c + 1] = g.column_offsets[c] + static_cast<uint32_t>(layers);
  }
  const uint32_t nodes = g.column_offsets.back();
  g.height.resize(nodes);
  for (uint32_t n = 0; n < nodes; ++n) g.height[n] = static_cast<float>(n);  // unused by the stages
  g.flags.assign(nodes, 0);
  g.neighbor.assign(static_cast<std::size_t>(nodes) * nav::kDirectionCount, nav::kNoNode);
  g.edge_kind.assign(static_cast<std::size_t>(nodes) * nav::kDirectionCount, static_cast<uint8_t>(nav::EdgeKind::None));
  g.edge_cost.assign(static_cast<std::size_t>(nodes) * nav::kDirectionCount, 1.0f);
  auto set = [&](uint32_t n, int d, uint32_t m, nav::EdgeKind kind) {
    const std::size_t slot = static_cast<std::size_t>(n) * nav::kDirectionCount + d;
    if (g.neighbor[slot] != nav::kNoNode) return;
    g.neighbor[slot] = m;
    g.edge_kind[slot] = static_cast<uint8_t>(kind);
  };
  // Walk edges between the same layer of adjacent columns (both ways, or one way).
  for (int32_t z = 0; z < spec.depth; ++z)
    for (int32_t x = 0; x < spec.width; ++x)
      for (int d = 0; d < 4; ++d) {  // each unordered pair once: +x, +x+z, +z, -x+z
        const int32_t mx = x + nav::kDirectionDx[d], mz = z + nav::kDirectionDz[d];
        if (!g.grid.contains(mx, mz)) continue;
        const uint32_t a0 = g.columnBegin(x, z), a1 = g.columnEnd(x, z);
        const uint32_t b0 = g.columnBegin(mx, mz), b1 = g.columnEnd(mx, mz);
        for (uint32_t i = 0; a0 + i < a1 && b0 + i < b1; ++i) {
          const double roll = unit(rng);
          const uint32_t a = a0 + i, b = b0 + i;
          if (roll < spec.two_way_walk) {
            set(a, d, b, nav::EdgeKind::Walk);
            set(b, nav::oppositeDirection(d), a, nav::EdgeKind::Walk);
          } else if (roll < spec.two_way_walk + spec.one_way_walk) {
            if (rng() % 2) set(a, d, b, nav::EdgeKind::Walk);
            else set(b, nav::oppositeDirection(d), a, nav::EdgeKind::Walk);
          }
        }
      }
  // Drops and jumps into free slots: another layer of the adjacent column, or up to 3 columns
  // away along a cardinal direction.
  for (int32_t z = 0; z < spec.depth; ++z)
    for (int32_t x = 0; x < spec.width; ++x)
      for (uint32_t n = g.columnBegin(x, z); n < g.columnEnd(x, z); ++n)
        for (int d = 0; d < nav::kDirectionCount; ++d) {
          if (unit(rng) >= spec.one_way_drop) continue;
          const int k = nav::isDiagonal(d) ? 1 : 1 + static_cast<int>(rng() % 3);
          const int32_t mx = x + nav::kDirectionDx[d] * k, mz = z + nav::kDirectionDz[d] * k;
          if (!g.grid.contains(mx, mz) || g.columnBegin(mx, mz) == g.columnEnd(mx, mz)) continue;
          const uint32_t m = g.columnBegin(mx, mz) + static_cast<uint32_t>(rng() % (g.columnEnd(mx, mz) - g.columnBegin(mx, mz)));
          set(n, d, m, rng() % 2 ? nav::EdgeKind::Drop : nav::EdgeKind::Jump);
        }
  // Links, sorted by source as the bake stores them.
  for (int l = 0; l < spec.links && nodes > 1; ++l) {
    const uint32_t a = static_cast<uint32_t>(rng() % nodes), b = static_cast<uint32_t>(rng() % nodes);
    g.links.push_back({a, b, 1.0f, 0, static_cast<uint32_t>(l), l % 2 == 1});
    if (l % 2 == 1) g.links.push_back({b, a, 1.0f, 0, static_cast<uint32_t>(l), true});
  }
  std::sort(g.links.begin(), g.links.end(), [](const nav::OffMeshLink& p, const nav::OffMeshLink& q) {
    return p.from_node != q.from_node ? p.from_node < q.from_node : p.to_node < q.to_node;
  });
  g.link_offsets.assign(static_cast<std::size_t>(nodes) + 1, 0);
  for (const nav::OffMeshLink& link : g.links) ++g.link_offsets[link.from_node + 1];
  for (uint32_t n = 0; n < nodes; ++n) g.link_offsets[n + 1] += g.link_offsets[n];
  return g;
}

/// Runs `body` inside a task arena of `threads` threads (the stages split their work by the
/// arena's concurrency, so this exercises other band splits than the machine's core count).
template <class Body>
void inArena(int threads, Body&& body) {
  tbb::task_arena arena(threads);
  arena.execute(body);
}

}  // namespace strata::test
