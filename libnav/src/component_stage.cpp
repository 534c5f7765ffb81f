// Connected components: union-find over every edge and link taken as undirected, ids assigned
// in node order (the component of node 0 is 0, the next new component met is 1, ...). Two nodes
// in different components can never reach each other, so an unreachable goal is rejected in
// O(1); the same component does not prove reachability (drops and links are one-way).

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

}  // namespace

void computeComponents(LayeredGraph& graph) {
  const std::size_t nodes = graph.nodeCount();
  std::vector<uint32_t> parent(nodes);
  std::iota(parent.begin(), parent.end(), 0u);
  for (std::size_t n = 0; n < nodes; ++n)
    for (int d = 0; d < kDirectionCount; ++d) {
      const uint32_t m = graph.neighbor[n * kDirectionCount + d];
      if (m != kNoNode) unite(parent, static_cast<uint32_t>(n), m);
    }
  for (const OffMeshLink& link : graph.links) unite(parent, link.from_node, link.to_node);
  graph.component.assign(nodes, 0);
  std::vector<uint32_t> id_of_root(nodes, kNoNode);
  uint32_t next = 0;
  for (std::size_t n = 0; n < nodes; ++n) {
    const uint32_t root = findRoot(parent, static_cast<uint32_t>(n));
    if (id_of_root[root] == kNoNode) id_of_root[root] = next++;
    graph.component[n] = id_of_root[root];
  }
  graph.component_count = next;
}

}  // namespace strata::nav
