// Reachability components of the layered graph, for the O(1) rejection of unreachable goals, on
// graphs without the bake's regions (a bake stores exact reachability: LayeredGraph::canReach).
//
// The bake's components treat edges as undirected. One-way edges break that: a 2 m wall top is
// a floor with drop edges down into both rooms it separates, so the sealed room of the maze
// sample shares a component with the corridors although no route enters it. Here:
//  1. strongly connected components (Tarjan 1972, iterative);
//  2. a *source* SCC is one no edge enters from another SCC (nothing but its own nodes can reach
//     it: wall tops, pillars);
//  3. reachability components = undirected components of the edges between non-source nodes.
// A route from a non-source start never enters a source SCC, so all its edges join non-source
// nodes and it stays in one reachability component. Edges of infinite cost are ignored, like in
// the search.

#include <algorithm>
#include <functional>
#include <numeric>

#include "strata/nav/layered_search.h"

namespace strata::nav {
namespace {

template <class Visit>
void forEachTarget(const LayeredGraph& g, uint32_t node, Visit&& visit) {
  const std::size_t base = static_cast<std::size_t>(node) * kDirectionCount;
  for (int d = 0; d < kDirectionCount; ++d) {
    const uint32_t to = g.neighbor[base + d];
    if (to != kNoNode && to < g.nodeCount() && g.edge_cost[base + d] < std::numeric_limits<float>::infinity()) visit(to);
  }
  if (g.link_offsets.size() != g.nodeCount() + 1) return;
  for (uint32_t l = g.link_offsets[node]; l < g.link_offsets[node + 1] && l < g.links.size(); ++l)
    if (g.links[l].to_node < g.nodeCount() && g.links[l].cost < std::numeric_limits<float>::infinity()) visit(g.links[l].to_node);
}

}  // namespace

void LayeredSearchGraph::computeReachability() {
  const LayeredGraph& g = *graph_;
  const auto n = static_cast<uint32_t>(g.nodeCount());
  scc_.assign(n, kNoNode);
  // Iterative Tarjan: explicit stack of (node, next edge index) frames.
  std::vector<uint32_t> index(n, kNoNode), low(n, 0), stack;
  std::vector<uint8_t> on_stack(n, 0);
  std::vector<std::pair<uint32_t, int>> frames;
  std::vector<uint32_t> targets;
  uint32_t next_index = 0, next_scc = 0;
  auto targetAt = [&](uint32_t node, int k) -> uint32_t {  // k-th edge target, kNoNode past the end
    targets.clear();
    forEachTarget(g, node, [&](uint32_t to) { targets.push_back(to); });
    return k < static_cast<int>(targets.size()) ? targets[static_cast<std::size_t>(k)] : kNoNode;
  };
  for (uint32_t root = 0; root < n; ++root) {
    if (index[root] != kNoNode) continue;
    frames.push_back({root, 0});
    index[root] = low[root] = next_index++;
    stack.push_back(root);
    on_stack[root] = 1;
    while (!frames.empty()) {
      auto& [node, k] = frames.back();
      const uint32_t to = targetAt(node, k);
      if (to != kNoNode) {
        ++k;
        if (index[to] == kNoNode) {
          index[to] = low[to] = next_index++;
          stack.push_back(to);
          on_stack[to] = 1;
          frames.push_back({to, 0});
        } else if (on_stack[to]) {
          low[node] = std::min(low[node], index[to]);
        }
        continue;
      }
      const uint32_t done = node;
      frames.pop_back();
      if (!frames.empty()) low[frames.back().first] = std::min(low[frames.back().first], low[done]);
      if (low[done] == index[done]) {
        uint32_t member;
        do {
          member = stack.back();
          stack.pop_back();
          on_stack[member] = 0;
          scc_[member] = next_scc;
        } while (member != done);
        ++next_scc;
      }
    }
  }
  std::vector<uint8_t> entered(next_scc, 0);
  for (uint32_t u = 0; u < n; ++u)
    forEachTarget(g, u, [&](uint32_t v) {
      if (scc_[u] != scc_[v]) entered[scc_[v]] = 1;
    });
  source_.assign(n, 0);
  for (uint32_t u = 0; u < n; ++u) source_[u] = entered[scc_[u]] ? 0 : 1;
  std::vector<uint32_t> parent(n);
  std::iota(parent.begin(), parent.end(), 0u);
  auto find = [&](uint32_t v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
  };
  for (uint32_t u = 0; u < n; ++u) {
    if (source_[u]) continue;
    forEachTarget(g, u, [&](uint32_t v) {
      if (!source_[v]) parent[find(u)] = find(v);
    });
  }
  reach_.assign(n, kNoNode);
  for (uint32_t u = 0; u < n; ++u)
    if (!source_[u]) reach_[u] = find(u);
}

bool LayeredSearchGraph::provablyUnreachable(NodeId start, NodeId goal) const {
  const LayeredGraph& g = *graph_;
  if (start == goal) return false;
  if (g.hasRegions()) return !g.canReach(start, goal);  // exact
  if (g.component.size() == g.nodeCount() && g.component[start] != g.component[goal]) return true;
  if (source_[goal]) return scc_[start] != scc_[goal];
  if (source_[start]) return false;
  return reach_[start] != reach_[goal];
}

}  // namespace strata::nav
