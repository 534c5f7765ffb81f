#pragma once
// Internal: where a triangle lies row by row on a grid seen from above, so that a long thin
// triangle across a grid (a wall along a diagonal) is listed only in the cells along it rather
// than in every cell of its bounding box (an audit: 100 walls along a 7 km diagonal at cell 1 m
// took 56 s and 11 GB of tile and sweep-bin lists, almost all of them entries the walls never
// came near).

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

namespace strata::nav {

/// The x extent of the part of the triangle with corners (x[k], z[k]) whose z lies in [lo, hi]:
/// false when it has none. The part is convex and its corners are the triangle's corners inside
/// the band and the points where its edges cross lo or hi, so their least and greatest x are the
/// extent (up to rounding: callers widen it).
inline bool triangleSlabX(const double (&x)[3], const double (&z)[3], double lo, double hi, double& min_x, double& max_x) {
  bool any = false;
  auto take = [&](double v) {
    if (!any || v < min_x) min_x = v;
    if (!any || v > max_x) max_x = v;
    any = true;
  };
  for (int k = 0; k < 3; ++k)
    if (z[k] >= lo && z[k] <= hi) take(x[k]);
  for (int k = 0; k < 3; ++k) {
    const int j = k == 2 ? 0 : k + 1;
    for (const double bound : {lo, hi})
      if ((z[k] < bound && z[j] > bound) || (z[k] > bound && z[j] < bound))
        take(x[k] + (bound - z[k]) / (z[j] - z[k]) * (x[j] - x[k]));
  }
  return any;
}

/// True when the triangle covers less than a quarter of its x/z bounds seen from above (long and
/// thin across the axes, or a wall along a diagonal), where its footprint is worth its cost:
/// most floor triangles cover half their bounds, and a walk of those row by row costs more than
/// a walk of their bounds.
inline bool thinAcrossAxes(const double (&x)[3], const double (&z)[3]) {
  const double twice_area = std::fabs((x[1] - x[0]) * (z[2] - z[0]) - (x[2] - x[0]) * (z[1] - z[0]));
  const double box = (std::max({x[0], x[1], x[2]}) - std::min({x[0], x[1], x[2]})) *
                     (std::max({z[0], z[1], z[2]}) - std::min({z[0], z[1], z[2]}));
  return twice_area < 0.5 * box;
}

/// Items whose rectangle of grid cells has more cells than this, and which are thinAcrossAxes,
/// are listed by their footprint (triangleSlabX row by row); the others by their rectangle.
inline constexpr std::int64_t kFootprintAboveCells = 8;

/// Whether a triangle whose rectangle of grid cells is `r` (x0, x1, z0, z1; empty when x0 > x1)
/// is listed by its footprint: more cells than kFootprintAboveCells and thinAcrossAxes. The one
/// rule of the bake's tile lists and the sweep's bins.
inline bool listedByFootprint(const std::array<int32_t, 4>& r, const double (&x)[3], const double (&z)[3]) {
  return static_cast<std::int64_t>(r[1] - r[0] + 1) * (r[3] - r[2] + 1) > kFootprintAboveCells && thinAcrossAxes(x, z);
}

/// A walk over the columns of a thinAcrossAxes triangle goes row by row over its footprint when
/// its bounds are more columns wide than this: a row's triangleSlabX costs about what a few
/// columns' tests do (the Recast meshes' bakes ran 3 % more instructions with rows from 9
/// columns of bounds on, and none more with rows only past 16 columns across).
inline constexpr int32_t kRowsAboveColumns = 16;

}  // namespace strata::nav
