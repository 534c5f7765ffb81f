#pragma once
/// \file
/// The default rasterizer of a grid (spec/grid-pathfinding-library.md, "The default
/// rasterizer"): a grid over a world's geometry without a walkability function of its own probes
/// the world through a query index, for each cell centre:
///
/// 1. Ground: a ray cast straight down from `ray_start_above` (28 m, the spec's 100 studs) above
///    the grid's origin.y, `ray_length` (84 m, 300 studs) long. Triangles and primitives both
///    count; colliders whose `can_collide` is false (decor) are never floor, nor anything the
///    filter leaves out (the spec's character bodies: give their tags or handles to `filter`).
///    No hit: void, not walkable.
/// 2. Standing room: the clearance column over the cell, from the ground plus min(0.56 m,
///    agent_height / 2) (the spec's min(2 studs, AgentHeight / 2): a low lip or loose debris
///    beside the cell does not block it) up to the ground plus agent_height, must touch nothing
///    the filter accepts (a triangle or primitive crossing the column).
/// 3. Real geometry: the spec confirms non-block shapes (a wedge's bounding box is a slab that
///    would block its own slope) with five down-rays. Strata's overlap tests are exact for every
///    triangle and primitive (a bounding box alone never overlaps), so every shape is judged by
///    its own surface, and a thin bar or pole anywhere in the column blocks it, which five rays
///    could miss.
///
/// The probe reports the ground height, so waypoints follow elevation and the grid's step limit
/// refuses cliffs. Its filter is built once per grid and reused for every probe; queries on a
/// QueryIndex are thread-safe, so the probe is too (the grid itself is not: see grid.h).

#include "strata/nav/grid.h"
#include "strata/sim/query_index.h"

namespace strata::nav {

/// How the default rasterizer probes (defaults: the spec's, at 1 stud = 0.28 m).
struct GridRasterizerOptions {
  double ray_start_above = 28.0;  ///< metres above the grid's origin.y where the ground ray starts (spec 100 studs). Finite
  double ray_length = 84.0;       ///< metres the ground ray reaches down (spec 300 studs). > 0
  /// Which colliders count, for the ground ray and the clearance column alike. `require_can_collide`
  /// is always set (the spec's CanCollide rule); add the tags or handles of moving bodies to
  /// exclude_tags / exclude_colliders (a cell probed while someone stood on it would stay cached
  /// as blocked).
  sim::QueryFilter filter;
  /// Checks the values; the message names the field.
  Status validate() const;
};

/// The default rasterizer over `world` for grids of `settings` (its origin.y, cell_size and
/// agent_height are used). `world` must outlive every grid that uses the function.
/// Fails when `settings` or `options` are invalid.
Result<WalkabilityFunction> gridRasterizer(const sim::QueryIndex& world, const GridSettings& settings,
                                           const GridRasterizerOptions& options = {});

/// A grid of `settings` over `world` with the default rasterizer (gridRasterizer, then
/// Grid::create). `world` must outlive the grid.
Result<Grid> makeWorldGrid(const sim::QueryIndex& world, const GridSettings& settings, const GridRasterizerOptions& options = {});

}  // namespace strata::nav
