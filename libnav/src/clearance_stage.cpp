// Clearance: the horizontal distance from a node to the edge of walkable space, so one bake
// can answer for any agent radius up to the node's clearance (query: clearance >= radius).
//
// A border node lacks a walk edge in some cardinal direction; its clearance is the baked agent
// radius (its standing box fits, nothing more is known). Every other node adds the shortest
// walk-edge route (cell_size per cardinal step, cell_size * sqrt(2) per diagonal) to the nearest
// border node. Computed by alternating forward and backward relaxation sweeps in node order
// until a sweep changes nothing (a distance transform on the layered grid; exact shortest routes, and
// independent of threads).

#include <cmath>
#include <limits>

#include "bake_stages.h"

namespace strata::nav {

void computeClearance(double radius, LayeredGraph& graph) {
  const std::size_t nodes = graph.nodeCount();
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> distance(nodes, inf);
  const auto walk = static_cast<uint8_t>(EdgeKind::Walk);
  for (std::size_t n = 0; n < nodes; ++n) {
    bool border = false;
    for (int d = 0; d < kDirectionCount; d += 2)
      if (graph.edge_kind[n * kDirectionCount + d] != walk) border = true;
    if (border) {
      graph.flags[n] |= kNodeBorder;
      distance[n] = 0;
    }
  }
  const double step[2] = {graph.grid.cell_size, graph.grid.cell_size * M_SQRT2};
  auto relax = [&](std::size_t n) {
    bool changed = false;
    if (distance[n] == 0) return changed;  // a border node: nothing is shorter
    for (int d = 0; d < kDirectionCount; ++d) {
      const std::size_t slot = n * kDirectionCount + d;
      if (graph.edge_kind[slot] != walk) continue;
      const double via = distance[graph.neighbor[slot]] + step[d & 1];
      if (via < distance[n]) distance[n] = via, changed = true;
    }
    return changed;
  };
  // Alternate directions until a whole pass changes nothing: then every node is at its fixed
  // point, the shortest route (the same values as any other relaxation order).
  for (bool forward = true;; forward = !forward) {
    bool changed = false;
    if (forward)
      for (std::size_t n = 0; n < nodes; ++n) changed |= relax(n);
    else
      for (std::size_t n = nodes; n-- > 0;) changed |= relax(n);
    if (!changed) break;
  }
  graph.clearance.resize(nodes);
  for (std::size_t n = 0; n < nodes; ++n)
    graph.clearance[n] = static_cast<float>(std::isfinite(distance[n]) ? radius + distance[n] : inf);
}

}  // namespace strata::nav
