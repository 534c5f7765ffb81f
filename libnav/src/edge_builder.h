#pragma once
// Internal: the edge rules of the layered graph (spec: character-movement-and-navigation.md,
// "Search edges, costs, and waypoints"; grid-pathfinding-library.md, "Heights, cliffs and step
// limits"). Fills neighbor / edge_kind / edge_cost of a graph whose nodes, areas and column
// offsets are set.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "strata/nav/column_builder.h"
#include "strata/nav/layered_graph.h"

namespace strata::nav {

class TriangleBins;

/// Inputs of the edge stage besides the graph.
struct EdgeInputs {
  const ColumnBuilder* columns = nullptr;       ///< settings, index, grid
  const std::vector<uint8_t>* climbable = nullptr; ///< per mesh triangle: 1 when its label is climbable (null: none)
  const TriangleBins* bins = nullptr;           ///< sweeps tested on these (same answers); null: the query index
  const NodeArray<double>* box_bottom = nullptr;  ///< per node: columns->standingBoxBottom(its normal); null: computed
  const NodeArray<uint16_t>* diagonal_free = nullptr; ///< diagonalBandsFree(); null: every diagonal decided in place
};

/// The diagonal walk rule (side columns, then the band, swept where the standing boxes do not
/// cover it), decided once per pair instead of once per direction: bit slot * kBandsPerDirection
/// + i of node n is set when n and the i-th node of the column diagonally ahead toward +z
/// (slot 0: +x, 1: -x), within a step of n, may walk to each other. Needs `inputs` without
/// `diagonal_free`; thread-safe, parallel over rows.
NodeArray<uint16_t> diagonalBandsFree(LayeredGraph& graph, const EdgeInputs& inputs);
/// Nodes of the column ahead covered by diagonalBandsFree (a band to a higher one is swept directly).
inline constexpr uint32_t kBandsPerDirection = 8;

/// Columns of the clearance gap round a ledge: ceil(2 × radius / cell_size) + 1 (a lower floor
/// within them is dropped to, one beyond is jumped to).
inline int ledgeCells(const AgentSettings& settings, double cell_size) {
  return static_cast<int>(std::ceil(2 * settings.radius / cell_size)) + 1;
}
/// Columns the gap search examines along direction d: the clearance gap (as many along a
/// diagonal as along an axis), or the columns a jump reaches along the ray (jump_distance between
/// column centres), whichever is more. An on-demand window holds the largest, an axis's.
inline int gapReach(const AgentSettings& settings, double cell_size, int d) {
  const double step = cell_size * (isDiagonal(d) ? M_SQRT2 : 1.0);
  const int jump_cells = settings.can_jump ? static_cast<int>(std::floor(settings.jump_distance / step + 1e-9)) : 0;
  return std::max(ledgeCells(settings, cell_size), jump_cells);
}

/// The outgoing edges of one node, all 8 directions (deterministic, thread-safe). Where a
/// slot holds a way down and a jump past it reaches a landing that way does not (the
/// far rim of a pit within max_drop), that second jump is appended to `jumps` (kind Jump,
/// label and profile_index kNoLinkLabel); null `jumps`: none are looked for.
void buildNodeEdges(LayeredGraph& graph, const EdgeInputs& inputs, uint32_t node, int32_t x, int32_t z,
                    std::vector<OffMeshLink>* jumps);
/// buildNodeEdges for every node of row z, in node order (the same edges, with the per-bake
/// constants set up once).
void buildRowEdges(LayeredGraph& graph, const EdgeInputs& inputs, int32_t z, std::vector<OffMeshLink>* jumps);

/// Cost of an edge of `kind` covering `horizontal` metres and `rise` metres into area cost
/// `area_cost` (spec: horizontal distance plus half the absolute height change, times the
/// destination area's cost, plus jump/drop penalties; climbing counts the full height change).
inline double edgeCost(const AgentSettings& settings, EdgeKind kind, double horizontal, double rise, double area_cost) {
  switch (kind) {
    case EdgeKind::Walk: return (horizontal + 0.5 * std::fabs(rise)) * area_cost;
    case EdgeKind::Jump: return (horizontal + 0.5 * std::fabs(rise)) * area_cost + settings.jump_penalty;
    case EdgeKind::Drop: return (horizontal + 0.5 * std::fabs(rise)) * area_cost + settings.drop_penalty;
    case EdgeKind::Climb: return (horizontal + std::fabs(rise)) * area_cost + settings.climb_penalty;
    default: return (horizontal + 0.5 * std::fabs(rise)) * area_cost;
  }
}

}  // namespace strata::nav
