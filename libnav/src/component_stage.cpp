// Connected components and regions.
//
// Components: weakly connected components over every edge and link taken as undirected, ids
// assigned in node order (the component of node 0 is 0, the next new component met is 1, ...).
// Two nodes in different components can never reach each other, so an unreachable goal is
// rejected in O(1). Computed after the regions below, by union-find over the region DAG's edges
// (a region is strongly connected, so its nodes share a component; every other edge joins two
// regions), which is far fewer unions than one per edge.
//
// Regions: strongly connected components (Tarjan 1972, iterative), numbered by their lowest
// node, plus the transitive closure of the region DAG (which regions each region reaches). The
// same component does not prove reachability, because drops and one-way links lead out of a
// region without a way back (a wall top drops into a sealed room that nothing else reaches);
// regions and their closure answer that exactly (LayeredGraph::canReach).

#include <algorithm>
#include <numeric>

#include "bake_stages.h"

namespace strata::nav {
namespace {

uint32_t findRoot(std::vector<uint32_t>& parent, uint32_t n) {
  while (parent[n] != n) {
    parent[n] = parent[parent[n]];
    n = parent[n];
  }
  return n;
}

void unite(std::vector<uint32_t>& parent, uint32_t a, uint32_t b) {
  a = findRoot(parent, a), b = findRoot(parent, b);
  if (a == b) return;
  if (a < b) parent[b] = a; else parent[a] = b;  // the smaller index is the root: deterministic
}

/// Successors of node n: its 8 neighbour slots, then its links.
template <class Visit>
void forEachSuccessor(const LayeredGraph& g, uint32_t n, Visit&& visit) {
  for (int d = 0; d < kDirectionCount; ++d) {
    const uint32_t m = g.neighbor[static_cast<std::size_t>(n) * kDirectionCount + d];
    if (m != kNoNode) visit(m);
  }
  for (uint32_t l = g.link_offsets[n]; l < g.link_offsets[n + 1]; ++l) visit(g.links[l].to_node);
}

/// Regions, and what the components need from them.
struct Regions {
  std::vector<uint32_t> scc;                 // per node: its strongly connected component (Tarjan order)
  std::vector<std::vector<uint32_t>> out;    // per component: the components its edges lead to (sorted, unique)
};

Regions computeRegions(LayeredGraph& g) {
  const std::size_t nodes = g.nodeCount();
  constexpr uint32_t kUnvisited = kNoNode;
  std::vector<uint32_t> index(nodes, kUnvisited), low(nodes, 0), scc(nodes, kNoNode);
  std::vector<uint8_t> on_stack(nodes, 0);
  std::vector<uint32_t> stack;
  struct Frame {
    uint32_t node;
    uint32_t next;  // next successor position: 0..7 slots, then links
  };
  std::vector<Frame> call;
  uint32_t counter = 0, scc_count = 0;
  auto successorAt = [&](uint32_t n, uint32_t& pos) -> uint32_t {
    while (pos < kDirectionCount) {
      const uint32_t m = g.neighbor[static_cast<std::size_t>(n) * kDirectionCount + pos++];
      if (m != kNoNode) return m;
    }
    const uint32_t link = g.link_offsets[n] + (pos - kDirectionCount);
    if (link < g.link_offsets[n + 1]) {
      ++pos;
      return g.links[link].to_node;
    }
    return kNoNode;
  };
  for (uint32_t root = 0; root < nodes; ++root) {
    if (index[root] != kUnvisited) continue;
    call.push_back({root, 0});
    index[root] = low[root] = counter++;
    stack.push_back(root);
    on_stack[root] = 1;
    while (!call.empty()) {
      Frame& frame = call.back();
      const uint32_t n = frame.node;
      const uint32_t m = successorAt(n, frame.next);
      if (m != kNoNode) {
        if (index[m] == kUnvisited) {
          index[m] = low[m] = counter++;
          stack.push_back(m);
          on_stack[m] = 1;
          call.push_back({m, 0});
        } else if (on_stack[m]) {
          low[n] = std::min(low[n], index[m]);
        }
        continue;
      }
      // n is finished.
      if (low[n] == index[n]) {
        uint32_t w;
        do {
          w = stack.back();
          stack.pop_back();
          on_stack[w] = 0;
          scc[w] = scc_count;
        } while (w != n);
        ++scc_count;
      }
      call.pop_back();
      if (!call.empty()) low[call.back().node] = std::min(low[call.back().node], low[n]);
    }
  }
  // Renumber regions by lowest node (node order), so ids do not depend on traversal details.
  std::vector<uint32_t> renumber(scc_count, kNoNode);
  uint32_t next = 0;
  for (uint32_t n = 0; n < nodes; ++n)
    if (renumber[scc[n]] == kNoNode) renumber[scc[n]] = next++;
  g.region.resize(nodes);
  for (uint32_t n = 0; n < nodes; ++n) g.region[n] = renumber[scc[n]];
  g.region_count = next;
  // Region DAG edges, then the closure in Tarjan's emission order (reverse topological: every
  // successor region was emitted earlier).
  std::vector<std::vector<uint32_t>> out(scc_count);
  for (uint32_t n = 0; n < nodes; ++n)
    forEachSuccessor(g, n, [&](uint32_t m) {
      if (scc[m] != scc[n]) out[scc[n]].push_back(scc[m]);
    });
  std::vector<std::vector<uint32_t>> reach(scc_count);  // in renumbered ids, sorted
  for (uint32_t s = 0; s < scc_count; ++s) {
    std::vector<uint32_t>& r = reach[s];
    std::sort(out[s].begin(), out[s].end());
    out[s].erase(std::unique(out[s].begin(), out[s].end()), out[s].end());
    for (uint32_t t : out[s]) {
      r.push_back(renumber[t]);
      r.insert(r.end(), reach[t].begin(), reach[t].end());
    }
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
  }
  g.region_reach_offsets.assign(static_cast<std::size_t>(next) + 1, 0);
  std::vector<uint32_t> scc_of_region(next);
  for (uint32_t s = 0; s < scc_count; ++s) scc_of_region[renumber[s]] = s;
  for (uint32_t r = 0; r < next; ++r)
    g.region_reach_offsets[r + 1] = g.region_reach_offsets[r] + static_cast<uint32_t>(reach[scc_of_region[r]].size());
  g.region_reach.clear();
  g.region_reach.reserve(g.region_reach_offsets.back());
  for (uint32_t r = 0; r < next; ++r) {
    const auto& list = reach[scc_of_region[r]];
    g.region_reach.insert(g.region_reach.end(), list.begin(), list.end());
  }
  return {std::move(scc), std::move(out)};
}

}  // namespace

void computeComponents(LayeredGraph& graph) {
  const std::size_t nodes = graph.nodeCount();
  const Regions regions = computeRegions(graph);
  std::vector<uint32_t> parent(regions.out.size());
  std::iota(parent.begin(), parent.end(), 0u);
  for (uint32_t s = 0; s < regions.out.size(); ++s)
    for (uint32_t t : regions.out[s]) unite(parent, s, t);
  graph.component.assign(nodes, 0);
  std::vector<uint32_t> id_of_root(parent.size(), kNoNode);
  uint32_t next = 0;
  for (std::size_t n = 0; n < nodes; ++n) {
    const uint32_t root = findRoot(parent, regions.scc[n]);
    if (id_of_root[root] == kNoNode) id_of_root[root] = next++;
    graph.component[n] = id_of_root[root];
  }
  graph.component_count = next;
}

}  // namespace strata::nav
