#pragma once
/// \file
/// Searching a `Grid`: AStar / ThetaStar / Direct with the spec's request shape and failure
/// reasons (spec/grid-pathfinding-library.md, "Searching", "Failure reasons"), and the Dijkstra
/// distance field ("Distance fields").
///
/// AStar on a uniform-cost grid (no links, no ground heights) takes the jump point search fast
/// path, which returns the same optimal lengths; everything else runs the plain search core.

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "strata/nav/grid.h"
#include "strata/nav/search.h"

namespace strata::nav {

/// One grid search request.
struct GridPathRequest {
  SearchMethod method = SearchMethod::Direct;  ///< the spec's default method is Direct
  sim::Vec3 start;                             ///< world position (metres)
  sim::Vec3 goal;                              ///< world position (metres)
  std::int64_t max_expansions = 8192;          ///< AStar/Theta budget in expanded cells; 0 = unlimited (and only then can jump point search run: docs/search.md). >= 0 (a negative value counts as 0)
  double waypoint_spacing = 0;                 ///< metres; > 0 adds points every this far along walking segments (a spacing under 1/20 of the cell size counts as 1/20 of it)
  bool use_jump_points = true;                 ///< allow the jump point fast path for AStar and Theta on uniform, fully rasterized grids without a budget (AStar's routes are the same; Theta* over jump points sees fewer parents, so its routes, pulled taut after, can be a little longer than plain Theta*'s: 0 to 0.4 % in total over each Moving AI map's scenarios, a few per cent at worst; never longer than AStar's)
};

/// Runs one request. `state` is reusable per-thread search memory.
PathResult findGridPath(Grid& grid, const GridPathRequest& request, SearchState& state);
/// Same, with a thread-local SearchState.
PathResult findGridPath(Grid& grid, const GridPathRequest& request);

/// True when AStar on this grid may use jump point search: no links and no ground heights seen.
bool gridIsUniform(const Grid& grid);

/// Route distances from one origin cell (metres), flooded by Dijkstra under the same step rules
/// as AStar (8-connected, no corner cutting, cliff gate, links traversed).
struct DistanceField {
  int width = 0;                ///< cells along X
  int depth = 0;                ///< cells along Z
  std::vector<double> metres;   ///< per cell key; +infinity where unreachable within the limit
  /// Distance to (x, z) in metres, or nullopt when unreachable or off the grid.
  std::optional<double> at(int x, int z) const {
    if (x < 0 || z < 0 || x >= width || z >= depth) return std::nullopt;
    const double d = metres[static_cast<std::size_t>(z) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x)];
    if (d == std::numeric_limits<double>::infinity()) return std::nullopt;
    return d;
  }
};

/// Floods route distances outward from `origin` up to `max_distance` metres. nullopt when the
/// origin is off the grid or its cell is blocked, or `max_distance` is NaN.
std::optional<DistanceField> distanceField(Grid& grid, const sim::Vec3& origin,
                                           double max_distance = std::numeric_limits<double>::infinity());

}  // namespace strata::nav
