// The default rasterizer of a grid over a world's geometry (spec/grid-pathfinding-library.md,
// "The default rasterizer"); see strata/nav/grid_rasterizer.h.

#include "strata/nav/grid_rasterizer.h"

#include <algorithm>
#include <cmath>
#include <memory>

namespace strata::nav {

namespace {

// The clearance column is inset this far from the cell's sides, so that a wall standing on the
// line between two cells (touching counts as overlapping) blocks only the cells it stands in,
// not their neighbours whose columns it merely touches.
constexpr double kColumnInset = 1e-4;  // metres

}  // namespace

Status GridRasterizerOptions::validate() const {
  auto bad = [](const std::string& what) { return Error::badInput("grid rasterizer options: " + what); };
  if (!std::isfinite(ray_start_above)) return bad("ray_start_above must be finite");
  if (!std::isfinite(ray_length) || ray_length <= 0) return bad("ray_length must be a finite number > 0");
  return Ok{};
}

Result<WalkabilityFunction> gridRasterizer(const sim::QueryIndex& world, const GridSettings& settings,
                                           const GridRasterizerOptions& options) {
  if (Status valid = settings.validate(); !valid) return valid.error();
  if (Status valid = options.validate(); !valid) return valid.error();
  // Built once per grid and shared by every probe (and every copy of the function).
  auto filter = std::make_shared<const sim::QueryFilter>([&] {
    sim::QueryFilter f = options.filter;
    f.require_can_collide = true;
    return f;
  }());
  const double top = settings.origin.y + options.ray_start_above;
  const double length = options.ray_length;
  const double half = std::max(0.0, settings.cell_size / 2 - kColumnInset);
  const double column_start = std::min(0.56, settings.agent_height / 2);  // spec: min(2 studs, AgentHeight / 2)
  const double column_top = settings.agent_height;
  const sim::QueryIndex* index = &world;
  return WalkabilityFunction([index, filter, top, length, half, column_start, column_top](const sim::Vec3& center) {
    CellProbe probe;
    const std::optional<sim::RayHit> ground = index->raycast({center.x, top, center.z}, {0, -1, 0}, length, *filter);
    if (!ground) return probe;  // void
    const double y = ground->point.y;
    probe.ground_y = y;
    const sim::Aabb column{{center.x - half, y + column_start, center.z - half}, {center.x + half, y + column_top, center.z + half}};
    probe.walkable = !index->overlapsBox(column, *filter);
    return probe;
  });
}

Result<Grid> makeWorldGrid(const sim::QueryIndex& world, const GridSettings& settings, const GridRasterizerOptions& options) {
  auto rasterizer = gridRasterizer(world, settings, options);
  if (!rasterizer) return rasterizer.error();
  return Grid::create(settings, std::move(*rasterizer));
}

}  // namespace strata::nav
