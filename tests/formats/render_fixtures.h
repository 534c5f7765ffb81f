#pragma once
// Hand-built layered graphs for the render and export tests: a grid of columns whose floors are
// given by a function, with no edges until a test adds them. Each graph passes
// LayeredGraph::validate().

#include <functional>
#include <limits>
#include <vector>

#include "strata/nav/layered_graph.h"

namespace strata::test {

/// One reachability region covering every node, when the graph type has regions (the bake adds
/// them; the renderer does not read them).
template <class Graph>
void finishReachability(Graph& graph) {
  if constexpr (requires { graph.region; graph.region_count; graph.region_reach_offsets; }) {
    graph.region.assign(graph.height.size(), 0);
    graph.region_count = 1;
    graph.region_reach_offsets = {0, 0};
  }
}

/// Columns of `width` x `depth` cells of `cell` metres from the origin; `floors(x, z)` returns the
/// floor heights of column (x, z), ascending. One area "default", one component, no edges.
inline nav::LayeredGraph buildColumnGraph(int width, int depth, double cell,
                                          const std::function<std::vector<float>(int, int)>& floors) {
  nav::LayeredGraph graph;
  graph.grid.cell_size = cell;
  graph.grid.width_cells = width;
  graph.grid.depth_cells = depth;
  graph.column_offsets.push_back(0);
  for (int z = 0; z < depth; ++z)
    for (int x = 0; x < width; ++x) {
      for (float h : floors(x, z)) {
        graph.height.push_back(h);
        graph.normal.push_back({0, 1, 0});
        graph.area.push_back(0);
        graph.headroom.push_back(std::numeric_limits<float>::infinity());
        graph.clearance.push_back(1.0f);
        graph.component.push_back(0);
        graph.flags.push_back(0);
      }
      graph.column_offsets.push_back(static_cast<uint32_t>(graph.height.size()));
    }
  const std::size_t nodes = graph.height.size();
  graph.neighbor.assign(nodes * nav::kDirectionCount, nav::kNoNode);
  graph.edge_kind.assign(nodes * nav::kDirectionCount, 0);
  graph.edge_cost.assign(nodes * nav::kDirectionCount, 0.0f);
  graph.link_offsets.assign(nodes + 1, 0);
  graph.area_names = {"default"};
  graph.area_costs = {1.0f};
  graph.component_count = 1;
  finishReachability(graph);
  return graph;
}

/// Sets slot (node, direction) to an edge of `kind` towards `to`.
inline void setEdge(nav::LayeredGraph& graph, uint32_t node, int direction, uint32_t to, nav::EdgeKind kind) {
  const std::size_t slot = static_cast<std::size_t>(node) * nav::kDirectionCount + static_cast<std::size_t>(direction);
  graph.neighbor[slot] = to;
  graph.edge_kind[slot] = static_cast<uint8_t>(kind);
  graph.edge_cost[slot] = 1.0f;
}

/// A three-storey block: a 20 x 10 ground at y 0 everywhere, a floor at y 4 over x 5..14, and a
/// roof at y 8 over x 8..11 (the tower's road, bridge and roof in miniature). Cells of 0.5 m.
inline nav::LayeredGraph threeStoreyGraph() {
  return buildColumnGraph(20, 10, 0.5, [](int x, int) {
    std::vector<float> floors{0.0f};
    if (x >= 5 && x <= 14) floors.push_back(4.0f);
    if (x >= 8 && x <= 11) floors.push_back(8.0f);
    return floors;
  });
}

}  // namespace strata::test
