// The oracle test of the column builder: for random columns of every real mesh and sample, the
// floors the bake finds by rasterizing triangles equal those found by casting an all-hits ray
// down the column centre through the query index, under the same slope, merge and standing-room
// rules (column_builder.h). A few hundred columns per mesh keep it fast.

#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "bake_fixtures.h"
#include "local_overlap.h"
#include "strata/formats/import.h"
#include "strata/nav/column_builder.h"
#include "strata/sim/query_index.h"
#include "test_support.h"

using namespace strata;

namespace {

struct MeshCase {
  std::filesystem::path path;
  double scale;
};

std::vector<MeshCase> oracleMeshes() {
  const auto data = test::sharedData() / "meshes";
  const auto samples = test::sourceDir() / "samples";
  return {
      {data / "recast/dungeon.obj", 1},
      {data / "recast/nav_test.obj", 1},
      {data / "recast/undulating.obj", 1},
      {data / "real/converted/dungeon.ply", 1},
      {data / "real/converted/nav_test.fbx", 1},
      {data / "real/godot-demo-projects/level_mesh.obj", 1},
      {data / "real/godot-demo-projects/town_model.gltf", 1},
      {data / "real/godot-demo-projects/zdm2.glb", 1},
      {data / "real/game-maps-obj/pandora.obj", 0.05},
      {data / "real/game-maps-obj/fdm6.obj", 0.05},
      {data / "real/game-maps-obj/dutility.obj", 0.05},
      {samples / "tower.obj", 1},
      {samples / "maze.obj", 1},
      {samples / "course.obj", 1},
  };
}

sim::TriangleMesh importMesh(const MeshCase& c) {
  formats::ImportOptions options;
  options.scale = c.scale;
  options.in_process = true;
  auto imported = formats::importMeshes({c.path}, options);
  if (!imported.ok()) FAIL(imported.error().message);
  return std::move(imported->mesh);
}

/// Compares the bake path (buildRect over the triangles touching the column, with the bake's
/// shared candidate records and with records of its own) with the on-demand path (buildColumn:
/// raycastAll) for one column.
void compareColumn(const nav::ColumnBuilder& builder, const nav::TriangleCandidates& candidates,
                   const sim::QueryIndex& index, int32_t x, int32_t z, const sim::Aabb& bounds) {
  const auto& grid = builder.grid();
  // The column's footprint grown by the agent radius: every triangle that can touch the column
  // centre or its standing box (buildRect's contract).
  const double r = builder.settings().radius + 0.01;
  sim::Aabb footprint;
  footprint.min = {grid.origin_x + x * grid.cell_size - r, bounds.min.y - 1, grid.origin_z + z * grid.cell_size - r};
  footprint.max = {footprint.min.x + grid.cell_size + 2 * r, bounds.max.y + 1, footprint.min.z + grid.cell_size + 2 * r};
  std::vector<sim::OverlapHit> touching;
  index.overlapBox(footprint, touching);
  std::vector<uint32_t> triangles;
  for (const auto& hit : touching) triangles.push_back(hit.triangle);
  const auto by_ray = builder.buildColumn(x, z);
  INFO("column " << x << ", " << z << " centre " << grid.centerX(x) << ", " << grid.centerZ(z));
  for (const nav::TriangleCandidates* shared : {&candidates, static_cast<const nav::TriangleCandidates*>(nullptr)}) {
    INFO((shared ? "shared candidate records" : "records of its own"));
    nav::RectFloors rect;
    builder.buildRect(x, z, x + 1, z + 1, triangles, rect, shared);
    REQUIRE(rect.offsets.size() == 2);
    const auto floors = rect.column(0);
    REQUIRE(floors.size() == by_ray.size());
    for (std::size_t i = 0; i < by_ray.size(); ++i) {
      CHECK(floors[i].height == Approx(by_ray[i].height).margin(1e-9));
      CHECK(floors[i].triangle == by_ray[i].triangle);
      CHECK(floors[i].normal.y == Approx(by_ray[i].normal.y).margin(1e-12));
      if (std::isinf(by_ray[i].headroom)) CHECK(std::isinf(floors[i].headroom));
      else CHECK(floors[i].headroom == Approx(by_ray[i].headroom).margin(1e-9));
    }
  }
}

}  // namespace

TEST_CASE("rasterized columns equal all-hits rays on every real mesh and sample", "[nav][column][oracle]") {
  std::size_t columns_with_floors = 0;
  for (const MeshCase& c : oracleMeshes()) {
    INFO(c.path.string());
    const sim::TriangleMesh mesh = importMesh(c);
    const sim::QueryIndex index(mesh);
    nav::AgentSettings settings;
    settings.cell_size = 0.3;
    const sim::Aabb bounds = mesh.bounds();
    const nav::GridFrame grid = nav::makeGridFrame(bounds, settings.cell_size);
    const nav::ColumnBuilder builder(mesh, index, settings, grid);
    const nav::TriangleCandidates candidates(mesh);
    std::mt19937_64 rng(20261129);
    // Half the columns uniformly over the grid, half under random triangles (where floors are).
    for (int i = 0; i < 300; ++i) {
      int32_t x, z;
      if (i % 2 == 0) {
        x = static_cast<int32_t>(rng() % static_cast<uint64_t>(grid.width_cells));
        z = static_cast<int32_t>(rng() % static_cast<uint64_t>(grid.depth_cells));
      } else {
        const auto t = static_cast<uint32_t>(rng() % mesh.triangleCount());
        std::uniform_real_distribution<double> unit(0, 1);
        double u = unit(rng), v = unit(rng);
        if (u + v > 1) u = 1 - u, v = 1 - v;
        const sim::Vec3 p = mesh.vertex(t, 0) + (mesh.vertex(t, 1) - mesh.vertex(t, 0)) * u +
                            (mesh.vertex(t, 2) - mesh.vertex(t, 0)) * v;
        x = std::clamp(grid.columnX(p.x), 0, grid.width_cells - 1);
        z = std::clamp(grid.columnZ(p.z), 0, grid.depth_cells - 1);
      }
      compareColumn(builder, candidates, index, x, z, bounds);
      if (!builder.buildColumn(x, z).empty()) ++columns_with_floors;
    }
  }
  CHECK(columns_with_floors > 1000);  // the sample is meaningful: most columns have floors
}

TEST_CASE("every baked column of the samples equals buildColumn", "[nav][column][oracle]") {
  for (const char* name : {"tower.obj", "course.obj"}) {
    INFO(name);
    const sim::TriangleMesh mesh = importMesh({test::sourceDir() / "samples" / name, 1});
    const auto baked = test::bakeOne(mesh, test::testAgent(), 2);
    const auto& g = baked.graph;
    const sim::QueryIndex index(mesh);
    const nav::ColumnBuilder builder(mesh, index, baked.profile.settings, g.grid);
    for (int32_t z = 0; z < g.grid.depth_cells; z += 3)  // every third row: ~20k columns
      for (int32_t x = 0; x < g.grid.width_cells; ++x) {
        const auto floors = builder.buildColumn(x, z);
        REQUIRE(floors.size() == g.columnEnd(x, z) - g.columnBegin(x, z));
        for (std::size_t i = 0; i < floors.size(); ++i)
          REQUIRE(g.height[g.columnBegin(x, z) + i] == static_cast<float>(floors[i].height));
      }
  }
}
