// The distance field: one Dijkstra flood of route distances from an origin cell under the
// same step rules as AStar (spec/grid-pathfinding-library.md, "Distance fields"). One flood
// answers "how far by the actual route" for every listener at once.
//
// Dijkstra, "A note on two problems in connexion with graphs" (1959); the open set is the
// search core's binary heap without decrease-key.

#include <cmath>
#include <limits>

#include "grid_graph.h"
#include "strata/nav/grid_search.h"

namespace strata::nav {

std::optional<DistanceField> distanceField(Grid& grid, const sim::Vec3& origin, double max_distance) {
  if (std::isnan(max_distance)) return std::nullopt;  // no limit at all: it flooded without one
  const auto cell = grid.worldToCell(origin);
  if (!cell || !grid.isWalkable(cell->x, cell->z)) return std::nullopt;
  const double cell_size = grid.settings().cell_size;
  const double limit_cells = fieldReach(max_distance) / cell_size;

  DistanceField field;
  field.width = grid.width();
  field.depth = grid.depth();
  field.metres.assign(grid.cellCount(), std::numeric_limits<double>::infinity());

  thread_local SearchState state;
  const detail::GridGraph graph(grid);
  state.begin(grid.cellCount());
  const NodeId source = grid.key(cell->x, cell->z);
  state.touch(source).g = 0;
  state.push({0.0, 0.0, source});
  while (!state.heapEmpty()) {
    const SearchState::HeapEntry top = state.pop();
    if (state.closed(top.node)) continue;  // stale entry
    state.close(top.node);
    const double g = state.record(top.node).g;
    field.metres[top.node] = g * cell_size;
    graph.forEachEdge(top.node, kNoNode, [&](NodeId to, double cost, MoveAction) {
      const double next_g = g + cost;
      if (next_g > limit_cells) return;
      if (state.closed(to)) return;
      SearchState::Record& next = state.touch(to);
      if (next_g >= next.g) return;
      next.g = next_g;
      state.push({next_g, next_g, to});
    });
  }
  return field;
}

}  // namespace strata::nav
