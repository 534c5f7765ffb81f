// Connected components and regions.
//
// Components: weakly connected components over every edge and link taken as undirected, ids
// assigned in node order (the component of node 0 is 0, the next new component met is 1, ...).
// Two nodes in different components can never reach each other, so an unreachable goal is
// rejected in O(1).
//
// Regions: strongly connected components, numbered by their lowest node, plus the transitive
// closure of the region DAG (which regions each region reaches). The same component does not
// prove reachability, because drops and one-way links lead out of a region without a way back (a
// wall top drops into a sealed room that nothing else reaches); regions and their closure answer
// that exactly (LayeredGraph::canReach). The closure can hold a number of entries quadratic in
// the regions (a slope too steep to climb, whose every step is a drop: each node a region that
// reaches every node below it, 25 million entries for 10,000 nodes); past a budget linear in the
// nodes, the DAG's own edges are stored instead (region_reach_closure false) and canReach walks
// them.
//
// How: two nodes joined by a two-way edge pair (n -> m and m -> n, almost every walk edge) are
// in one region. Those pairs are contracted first, by union-find in parallel over bands of rows
// (each band unites only its own nodes; the few pairs across band borders are united after,
// serially), with the lowest node of each set as its root, so the sets do not depend on the
// order of the unions. What remains is a small graph: one vertex per set ("piece"), and the
// one-way edges and links between pieces (drops, jumps without a way back, one-way links).
// Regions are the strongly connected components of that graph (Tarjan 1972, iterative), and
// components its weakly connected ones (union-find). Every id is numbered by lowest node, so the
// result is the same at any thread count and equals a plain Tarjan over all nodes
// (tests/nav/bake_component_oracle_tests.cpp).

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <numeric>
#include <utility>

#include "bake_stages.h"
#include "strata/nav/layered_graph.h"

namespace strata::nav {
namespace {

/// Rows per band of the parallel contraction.
constexpr int32_t kBandRows = 32;

uint32_t findRoot(uint32_t* parent, uint32_t n) {
  while (parent[n] != n) {
    parent[n] = parent[parent[n]];
    n = parent[n];
  }
  return n;
}

/// The smaller root becomes the parent: every set's root is its lowest member, and parent[n] <= n.
void unite(uint32_t* parent, uint32_t a, uint32_t b) {
  a = findRoot(parent, a), b = findRoot(parent, b);
  if (a == b) return;
  if (a < b) parent[b] = a; else parent[a] = b;
}

using Arc = std::pair<uint32_t, uint32_t>;

/// Strongly connected components of a graph in CSR form (Tarjan, iterative). Returns per vertex
/// its component in emission order (reverse topological: a component's successors come first)
/// and sets `count`.
std::vector<uint32_t> tarjan(const std::vector<uint32_t>& offsets, const std::vector<uint32_t>& targets,
                             uint32_t& count) {
  const uint32_t vertices = static_cast<uint32_t>(offsets.size() - 1);
  constexpr uint32_t kUnvisited = kNoNode;
  std::vector<uint32_t> index(vertices, kUnvisited), low(vertices, 0), scc(vertices, kNoNode);
  std::vector<uint8_t> on_stack(vertices, 0);
  std::vector<uint32_t> stack;
  struct Frame {
    uint32_t vertex;
    uint32_t next;  // next position in targets
  };
  std::vector<Frame> call;
  uint32_t counter = 0;
  count = 0;
  for (uint32_t root = 0; root < vertices; ++root) {
    if (index[root] != kUnvisited) continue;
    call.push_back({root, offsets[root]});
    index[root] = low[root] = counter++;
    stack.push_back(root);
    on_stack[root] = 1;
    while (!call.empty()) {
      Frame& frame = call.back();
      const uint32_t v = frame.vertex;
      if (frame.next < offsets[v + 1]) {
        const uint32_t w = targets[frame.next++];
        if (index[w] == kUnvisited) {
          index[w] = low[w] = counter++;
          stack.push_back(w);
          on_stack[w] = 1;
          call.push_back({w, offsets[w]});
        } else if (on_stack[w]) {
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      if (low[v] == index[v]) {
        uint32_t w;
        do {
          w = stack.back();
          stack.pop_back();
          on_stack[w] = 0;
          scc[w] = count;
        } while (w != v);
        ++count;
      }
      call.pop_back();
      if (!call.empty()) low[call.back().vertex] = std::min(low[call.back().vertex], low[v]);
    }
  }
  return scc;
}

}  // namespace

std::size_t regionClosureBudget(std::size_t nodes) { return std::max<std::size_t>(std::size_t(1) << 20, 8 * nodes); }

void computeComponents(LayeredGraph& g, std::size_t max_closure_entries) {
  const std::size_t nodes = g.nodeCount();
  const GridFrame& grid = g.grid;
  const uint32_t* neighbor = g.neighbor.data();
  NodeArray<uint32_t> parent;  // every entry is set by its band below
  parent.resize(nodes);
  const int32_t bands = std::max<int32_t>(1, (grid.depth_cells + kBandRows - 1) / kBandRows);
  std::vector<std::vector<Arc>> crossing(static_cast<std::size_t>(bands));  // two-way pairs across a band border
  std::vector<std::vector<Arc>> one_way(static_cast<std::size_t>(bands));   // one-way edges and links, node order

  // ---- contract two-way pairs, per band ----
  tbb::parallel_for(tbb::blocked_range<int32_t>(0, bands, 1), [&](const tbb::blocked_range<int32_t>& r) {
    for (int32_t b = r.begin(); b != r.end(); ++b) {
      const int32_t z0 = b * kBandRows, z1 = std::min(grid.depth_cells, z0 + kBandRows);
      const uint32_t lo = g.column_offsets[grid.columnIndex(0, z0)];
      const uint32_t hi = g.column_offsets[grid.columnIndex(0, z1 - 1) + grid.width_cells];
      std::iota(parent.data() + lo, parent.data() + hi, lo);
      std::vector<Arc>& cross = crossing[static_cast<std::size_t>(b)];
      std::vector<Arc>& arcs = one_way[static_cast<std::size_t>(b)];
      for (uint32_t n = lo; n < hi; ++n) {
        const uint32_t* slots = neighbor + static_cast<std::size_t>(n) * kDirectionCount;
        // n's root, found once: it stays a root below, since a union either hangs the other root
        // under it or hangs it under the other root, which then becomes n's root.
        uint32_t root = findRoot(parent.data(), n);
        for (int d = 0; d < kDirectionCount; ++d) {
          const uint32_t m = slots[d];
          if (m == kNoNode) continue;
          // An edge from m back to n can only lie in the opposite direction.
          if (neighbor[static_cast<std::size_t>(m) * kDirectionCount + oppositeDirection(d)] != n) {
            arcs.emplace_back(n, m);
          } else if (n < m) {  // each pair once
            if (m < hi) {
              // unite(n, m) with n's root known: the smaller root becomes the parent.
              const uint32_t other = findRoot(parent.data(), m);
              if (other < root) {
                parent[root] = other;
                root = other;
              } else if (other > root) {
                parent[other] = root;
              }
            } else {
              cross.emplace_back(n, m);
            }
          }
        }
        for (uint32_t l = g.link_offsets[n]; l < g.link_offsets[n + 1]; ++l) arcs.emplace_back(n, g.links[l].to_node);
      }
    }
  });
  for (const auto& list : crossing)
    for (const Arc& arc : list) unite(parent.data(), arc.first, arc.second);

  // Pieces (the contracted sets), numbered in node order: a root is its set's lowest node and
  // parent[n] <= n, so one ascending pass resolves every node.
  NodeArray<uint32_t> piece;  // every entry is written by the pass below
  piece.resize(nodes);
  uint32_t pieces = 0;
  for (uint32_t n = 0; n < nodes; ++n) piece[n] = parent[n] == n ? pieces++ : piece[parent[n]];
  parent.resize(0);

  // ---- the graph of pieces: one-way arcs between different pieces, CSR by source ----
  std::vector<uint32_t> offsets(static_cast<std::size_t>(pieces) + 1, 0);
  for (auto& list : one_way) {
    for (Arc& arc : list) arc = {piece[arc.first], piece[arc.second]};
    for (const Arc& arc : list)
      if (arc.first != arc.second) ++offsets[arc.first + 1];
  }
  for (uint32_t p = 0; p < pieces; ++p) offsets[p + 1] += offsets[p];
  std::vector<uint32_t> targets(offsets.back());
  {
    std::vector<uint32_t> cursor(offsets.begin(), offsets.end() - 1);
    for (const auto& list : one_way)
      for (const Arc& arc : list)
        if (arc.first != arc.second) targets[cursor[arc.first]++] = arc.second;
  }
  std::vector<std::vector<Arc>>().swap(one_way);

  // ---- regions: strongly connected components of the pieces ----
  uint32_t scc_count = 0;
  const std::vector<uint32_t> scc = tarjan(offsets, targets, scc_count);
  // Renumber by lowest node: pieces are in node order, and a region's lowest node is the root
  // of its lowest piece.
  std::vector<uint32_t> renumber(scc_count, kNoNode);
  uint32_t regions = 0;
  for (uint32_t p = 0; p < pieces; ++p)
    if (renumber[scc[p]] == kNoNode) renumber[scc[p]] = regions++;
  g.region_count = regions;
  // Region DAG edges, then the closure in Tarjan's emission order (every successor first).
  std::vector<std::vector<uint32_t>> out(scc_count);
  for (uint32_t p = 0; p < pieces; ++p)
    for (uint32_t i = offsets[p]; i < offsets[p + 1]; ++i)
      if (scc[targets[i]] != scc[p]) out[scc[p]].push_back(scc[targets[i]]);
  for (std::vector<uint32_t>& list : out) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  std::vector<std::vector<uint32_t>> reach(scc_count);  // in renumbered ids, sorted
  std::size_t entries = 0;
  g.region_reach_closure = true;
  for (uint32_t s = 0; s < scc_count && g.region_reach_closure; ++s) {
    std::vector<uint32_t>& r = reach[s];
    bool cut = false;  // the scratch list (duplicates included) outgrew the budget
    for (uint32_t t : out[s]) {
      r.push_back(renumber[t]);
      r.insert(r.end(), reach[t].begin(), reach[t].end());
      if ((cut = entries + r.size() > 2 * max_closure_entries)) break;
    }
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
    entries += r.size();
    if (cut || entries > max_closure_entries) g.region_reach_closure = false;
  }
  if (!g.region_reach_closure)  // the DAG's edges: each region's direct successors
    for (uint32_t s = 0; s < scc_count; ++s) {
      reach[s].clear();
      for (uint32_t t : out[s]) reach[s].push_back(renumber[t]);
      std::sort(reach[s].begin(), reach[s].end());
    }
  g.region_reach_offsets.assign(static_cast<std::size_t>(regions) + 1, 0);
  std::vector<uint32_t> scc_of_region(regions);
  for (uint32_t s = 0; s < scc_count; ++s) scc_of_region[renumber[s]] = s;
  for (uint32_t r = 0; r < regions; ++r)
    g.region_reach_offsets[r + 1] = g.region_reach_offsets[r] + static_cast<uint32_t>(reach[scc_of_region[r]].size());
  g.region_reach.clear();
  g.region_reach.reserve(g.region_reach_offsets.back());
  for (uint32_t r = 0; r < regions; ++r) {
    const auto& list = reach[scc_of_region[r]];
    g.region_reach.insert(g.region_reach.end(), list.begin(), list.end());
  }

  // ---- components: weakly connected pieces (a region's pieces share one) ----
  std::vector<uint32_t> joined(pieces);
  std::iota(joined.begin(), joined.end(), 0u);
  for (uint32_t p = 0; p < pieces; ++p)
    for (uint32_t i = offsets[p]; i < offsets[p + 1]; ++i) unite(joined.data(), p, targets[i]);
  std::vector<uint32_t> component_of_piece(pieces);
  uint32_t components = 0;
  for (uint32_t p = 0; p < pieces; ++p)  // joined[p] <= p: ascending resolves, ids in node order
    component_of_piece[p] = joined[p] == p ? components++ : component_of_piece[joined[p]];
  g.component_count = components;

  g.region.resize(nodes);
  g.component.resize(nodes);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, nodes, 1024), [&](const tbb::blocked_range<std::size_t>& r) {
    for (std::size_t n = r.begin(); n != r.end(); ++n) {
      g.region[n] = renumber[scc[piece[n]]];
      g.component[n] = component_of_piece[piece[n]];
    }
  });
}

}  // namespace strata::nav
