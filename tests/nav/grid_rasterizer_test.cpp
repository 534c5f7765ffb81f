// The grid's default rasterizer over a world's geometry (spec/grid-pathfinding-library.md, "The
// default rasterizer"): ground by a down-ray, the clearance column, CanCollide, excluded bodies,
// heights and cliffs; and an oracle over random boxes that computes each cell's answer from the
// boxes alone (the top under the centre, then the boxes crossing the column).

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <vector>

#include "strata/nav/grid_rasterizer.h"
#include "strata/nav/grid_search.h"

using namespace strata;
using namespace strata::nav;

namespace {

GridSettings settingsOf(int width, int depth, double cell) {
  GridSettings s;
  s.origin = {0, 0, 0};
  s.width_cells = width;
  s.depth_cells = depth;
  s.cell_size = cell;
  s.agent_height = 1.68;
  s.max_step_height = 0.4;
  return s;
}

sim::Vec3 centreOf(const GridSettings& s, int x, int z) {
  return {s.origin.x + (x + 0.5) * s.cell_size, s.origin.y, s.origin.z + (z + 0.5) * s.cell_size};
}

}  // namespace

TEST_CASE("grid rasterizer: ground under the centre, void, and the clearance column", "[nav][grid][rasterizer]") {
  sim::QueryIndex world;
  REQUIRE(world.addBox({{0, -0.2, 0}, {10, 0, 10}}).ok());  // the floor, cells 0..9
  const GridSettings s = settingsOf(12, 10, 1.0);
  auto probe = gridRasterizer(world, s);
  REQUIRE(probe.ok());
  // Ground: the floor's top, walkable.
  const CellProbe floor = (*probe)(centreOf(s, 2, 2));
  CHECK(floor.walkable);
  REQUIRE(floor.ground_y.has_value());
  CHECK(*floor.ground_y == Approx(0.0).margin(1e-9));
  // Off the floor: void, not walkable, no height.
  const CellProbe void_cell = (*probe)(centreOf(s, 11, 2));
  CHECK_FALSE(void_cell.walkable);
  CHECK_FALSE(void_cell.ground_y.has_value());

  // A bar across cell (5, 5) off the centre ray, at head height: the column is not open.
  REQUIRE(world.addBox({{5.05, 1.0, 5.05}, {5.15, 1.1, 5.95}}).ok());
  const CellProbe barred = (*probe)(centreOf(s, 5, 5));
  CHECK_FALSE(barred.walkable);
  REQUIRE(barred.ground_y.has_value());
  CHECK(*barred.ground_y == Approx(0.0).margin(1e-9));  // the ray missed the bar
  // Debris below the column's start (min(0.56, 1.68 / 2) = 0.56 m) off the centre: open.
  REQUIRE(world.addBox({{7.05, 0, 7.05}, {7.2, 0.5, 7.2}}).ok());
  CHECK((*probe)(centreOf(s, 7, 7)).walkable);
  // ... and up to it: blocked.
  REQUIRE(world.addBox({{3.05, 0, 3.05}, {3.2, 0.6, 3.2}}).ok());
  CHECK_FALSE((*probe)(centreOf(s, 3, 3)).walkable);
  // A slab over the centre is the ground (the grid sees the topmost surface): walkable on top
  // when its column is open.
  REQUIRE(world.addBox({{1, 2.0, 7}, {2, 2.2, 8}}).ok());
  const CellProbe slab = (*probe)(centreOf(s, 1, 7));
  CHECK(slab.walkable);
  CHECK(*slab.ground_y == Approx(2.2).margin(1e-9));
  // A wall on the line between two cells blocks neither neighbour's column by touching it.
  REQUIRE(world.addBox({{9.0, 0, 0}, {9.0, 3, 10}}).ok());  // zero thickness at x = 9
  CHECK((*probe)(centreOf(s, 8, 1)).walkable);
  CHECK((*probe)(centreOf(s, 9, 1)).walkable);
  // The column's start is min(2 studs, agent_height / 2): a short agent's column starts lower.
  GridSettings short_agent = s;
  short_agent.agent_height = 0.9;  // column from 0.45 to 0.9 m
  auto short_probe = gridRasterizer(world, short_agent);
  REQUIRE(short_probe.ok());
  CHECK_FALSE((*short_probe)(centreOf(s, 7, 7)).walkable);  // the 0.5 m debris now reaches into it
}

TEST_CASE("grid rasterizer: CanCollide, excluded bodies and bad options", "[nav][grid][rasterizer]") {
  sim::QueryIndex world;
  REQUIRE(world.addBox({{0, -0.2, 0}, {10, 0, 10}}).ok());
  sim::ColliderProperties decor;
  decor.can_collide = false;
  REQUIRE(world.addBox({{2, 0, 2}, {3, 1, 3}}, decor).ok());  // a non-colliding bush over cell (2, 2)
  sim::ColliderProperties npc;
  npc.tag = "npc/guard";
  REQUIRE(world.addCapsule({{5.5, 0.3, 5.5}, {5.5, 1.5, 5.5}, 0.3}, npc).ok());  // someone standing in cell (5, 5)
  const GridSettings s = settingsOf(10, 10, 1.0);
  auto plain = gridRasterizer(world, s);
  REQUIRE(plain.ok());
  // Decor is never floor and never blocks.
  const CellProbe bush = (*plain)(centreOf(s, 2, 2));
  CHECK(bush.walkable);
  CHECK(*bush.ground_y == Approx(0.0).margin(1e-9));
  // A body blocks (its top is the ground the ray finds) unless the filter leaves it out.
  CHECK((*plain)(centreOf(s, 5, 5)).ground_y.value() > 1.0);
  GridRasterizerOptions options;
  options.filter.exclude_tags = {world.findTag("npc")};
  auto without_bodies = gridRasterizer(world, s, options);
  REQUIRE(without_bodies.ok());
  const CellProbe guard = (*without_bodies)(centreOf(s, 5, 5));
  CHECK(guard.walkable);
  CHECK(*guard.ground_y == Approx(0.0).margin(1e-9));
  // A filter that asked for non-colliding things gets CanCollide anyway.
  GridRasterizerOptions loose;
  loose.filter.require_can_collide = false;
  auto still = gridRasterizer(world, s, loose);
  REQUIRE(still.ok());
  CHECK(*(*still)(centreOf(s, 2, 2)).ground_y == Approx(0.0).margin(1e-9));
  // The ray starts 28 m above origin.y: a slab higher than that is not the ground.
  REQUIRE(world.addBox({{8, 29, 8}, {9, 30, 9}}).ok());
  CHECK(*(*plain)(centreOf(s, 8, 8)).ground_y == Approx(0.0).margin(1e-9));
  GridRasterizerOptions high;
  high.ray_start_above = 40;
  auto from_higher = gridRasterizer(world, s, high);
  REQUIRE(from_higher.ok());
  CHECK(*(*from_higher)(centreOf(s, 8, 8)).ground_y == Approx(30.0));
  // It reaches 84 m down: a floor further below is void.
  GridRasterizerOptions short_ray;
  short_ray.ray_length = 27.9;
  auto shallow = gridRasterizer(world, s, short_ray);
  REQUIRE(shallow.ok());
  CHECK_FALSE((*shallow)(centreOf(s, 1, 1)).ground_y.has_value());
  CHECK_FALSE((*shallow)(centreOf(s, 1, 1)).walkable);
  // Bad values name the field.
  GridRasterizerOptions bad;
  bad.ray_length = 0;
  auto refused = gridRasterizer(world, s, bad);
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.error().message, Catch::Contains("ray_length"));
  GridSettings no_cells = s;
  no_cells.width_cells = 0;
  REQUIRE_FALSE(makeWorldGrid(world, no_cells).ok());
  // A grid without a walkability function points at this one.
  auto none = Grid::create(s, {});
  REQUIRE_FALSE(none.ok());
  CHECK_THAT(none.error().message, Catch::Contains("makeWorldGrid"));
}

TEST_CASE("grid rasterizer: a world grid routes through a gap, follows a ramp and refuses a cliff", "[nav][grid][rasterizer]") {
  sim::QueryIndex world;
  REQUIRE(world.addBox({{0, -0.2, 0}, {20, 0, 10}}).ok());
  // A wall along x = 10 with a gap at z in [8, 9].
  REQUIRE(world.addBox({{10, 0, 0}, {10.5, 3, 8}}).ok());
  REQUIRE(world.addBox({{10, 0, 9}, {10.5, 3, 10}}).ok());
  auto grid = makeWorldGrid(world, settingsOf(40, 20, 0.5));
  REQUIRE(grid.ok());
  GridPathRequest request;
  request.method = SearchMethod::AStar;
  request.start = {2, 0, 2};
  request.goal = {18, 0, 2};
  PathResult route = findGridPath(*grid, request);
  REQUIRE(route.ok());
  // Where the route crosses the wall's middle (x = 10.25), it is in the gap.
  int crossings = 0;
  for (std::size_t k = 1; k < route.waypoints.size(); ++k) {
    const sim::Vec3 a = route.waypoints[k - 1].position, b = route.waypoints[k].position;
    if ((a.x - 10.25) * (b.x - 10.25) > 0 || a.x == b.x) continue;
    const double z = a.z + (b.z - a.z) * (10.25 - a.x) / (b.x - a.x);
    CHECK(z > 8.0);
    CHECK(z < 9.0);
    ++crossings;
  }
  CHECK(crossings == 1);
  CHECK(route.length > 2 * std::hypot(8.0, 6.0));  // up to the gap and back down

  // A ramp (a mesh) up to a 2 m platform, and the platform's open side a cliff.
  sim::QueryIndex hill;
  REQUIRE(hill.addBox({{0, -0.2, 0}, {20, 0, 10}}).ok());
  REQUIRE(hill.addBox({{10, 0, 0}, {20, 2, 10}}).ok());  // the platform, x 10..20, top at 2 m
  sim::TriangleMesh ramp;  // x 4..10 rising 0 -> 2 m, z 0..3
  ramp.vertices = {{4, 0, 0}, {10, 2, 0}, {10, 2, 3}, {4, 0, 3}};
  ramp.triangles = {{0, 2, 1}, {0, 3, 2}};
  ramp.triangle_labels = {0, 0};
  ramp.triangle_tags = {0, 0};
  ramp.labels = {"ramp"};
  ramp.tags = {"ramp"};
  REQUIRE(hill.addMesh(ramp).ok());
  GridSettings s = settingsOf(40, 20, 0.5);
  s.max_step_height = 0.4;
  auto hill_grid = makeWorldGrid(hill, s);
  REQUIRE(hill_grid.ok());
  // On the ramp the ground follows the slope.
  const auto ramp_cell = hill_grid->worldToCell({7.25, 0, 1.25});
  REQUIRE(ramp_cell.has_value());
  REQUIRE(hill_grid->isWalkable(ramp_cell->x, ramp_cell->z));
  CHECK(hill_grid->groundY(ramp_cell->x, ramp_cell->z).value() == Approx((7.25 - 4) / 3).margin(1e-6));
  // From the floor to the platform: up the ramp (z < 3), never up the 2 m cliff.
  request.start = {2, 0, 8};
  request.goal = {15, 2, 8};
  route = findGridPath(*hill_grid, request);
  REQUIRE(route.ok());
  bool on_ramp = false;
  for (const Waypoint& w : route.waypoints) on_ramp = on_ramp || (w.position.x > 4.5 && w.position.x < 9.5 && w.position.z < 3);
  CHECK(on_ramp);
  CHECK(route.waypoints.back().position.y == Approx(2.0));
}

TEST_CASE("grid rasterizer: every cell of random box worlds agrees with an oracle over the boxes", "[nav][grid][rasterizer]") {
  // The oracle reads the boxes alone: the ground is the highest top over the cell centre (the
  // down-ray's first hit), the column [ground + 0.56, ground + 1.68] over the cell (inset by
  // 1e-4 m) is blocked when some box crosses it (closed intervals). Non-colliding boxes count
  // for neither.
  std::mt19937 rng(20261207);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int world_index = 0; world_index < 12; ++world_index) {
    struct Box {
      sim::Aabb box;
      bool collides;
    };
    std::vector<Box> boxes;
    boxes.push_back({{{0, -0.2, 0}, {20, 0, 20}}, true});
    for (int k = 0; k < 40; ++k) {
      const double x = unit(rng) * 19, z = unit(rng) * 19, y = unit(rng) * 3;
      const sim::Aabb b{{x, y, z}, {x + 0.05 + unit(rng) * 3, y + 0.05 + unit(rng) * 2, z + 0.05 + unit(rng) * 3}};
      boxes.push_back({b, unit(rng) > 0.15});
    }
    sim::QueryIndex world;
    for (const Box& b : boxes) {
      sim::ColliderProperties p;
      p.can_collide = b.collides;
      REQUIRE(world.addBox(b.box, p).ok());
    }
    const GridSettings s = settingsOf(45, 45, 0.5);  // past the floor's edge too
    auto probe = gridRasterizer(world, s);
    REQUIRE(probe.ok());
    int mismatches = 0, walkable = 0, blocked = 0, voids = 0;
    for (int z = 0; z < s.depth_cells; ++z)
      for (int x = 0; x < s.width_cells; ++x) {
        const sim::Vec3 c = centreOf(s, x, z);
        std::optional<double> ground;
        for (const Box& b : boxes)
          if (b.collides && c.x >= b.box.min.x && c.x <= b.box.max.x && c.z >= b.box.min.z && c.z <= b.box.max.z && b.box.max.y <= 28)
            ground = std::max(ground.value_or(-1e9), b.box.max.y);
        bool open = false;
        if (ground) {
          const double h = 0.25 - 1e-4;
          const sim::Aabb column{{c.x - h, *ground + 0.56, c.z - h}, {c.x + h, *ground + 1.68, c.z + h}};
          open = std::none_of(boxes.begin(), boxes.end(), [&](const Box& b) {
            return b.collides && b.box.min.x <= column.max.x && b.box.max.x >= column.min.x && b.box.min.y <= column.max.y &&
                   b.box.max.y >= column.min.y && b.box.min.z <= column.max.z && b.box.max.z >= column.min.z;
          });
        }
        const CellProbe p = (*probe)(c);
        const bool same = p.walkable == open && p.ground_y.has_value() == ground.has_value() &&
                          (!ground || std::abs(*p.ground_y - *ground) < 1e-9);
        if (!same) ++mismatches;
        (!ground ? voids : open ? walkable : blocked) += 1;
      }
    INFO("world " << world_index << ": walkable " << walkable << ", blocked " << blocked << ", void " << voids);
    CHECK(mismatches == 0);
    CHECK(walkable > 0);
    CHECK(blocked > 0);
    CHECK(voids > 0);
  }
}
