// The oracle test of the edge stage's local sweep tests: the bake tests every swept box against
// the triangles binned near it (triangle_bins.cpp, local_overlap.cpp) and reads each node's
// standing-box bottom from a cache; recomputing the edges of sampled nodes with every sweep sent
// through the query index (EdgeInputs without bins or cache) must give the same neighbour, kind
// and cost in all 8 directions. Real meshes (terrain, rooms, stairs) and the samples (jumps,
// drops, climbing, thin walls), with the default agent and a narrow one whose walk edges need
// sweeps (cell_size > 2 * radius).

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>

#include "bake_fixtures.h"
#include "bake_stages.h"
#include "edge_builder.h"
#include "local_overlap.h"
#include "strata/formats/import.h"
#include "strata/formats/profile.h"
#include "strata/nav/column_builder.h"
#include "strata/sim/query_index.h"
#include "test_support.h"
#include "triangle_bins.h"

using namespace strata;

namespace {

sim::TriangleMesh importMesh(const std::filesystem::path& path) {
  formats::ImportOptions options;
  options.in_process = true;
  auto imported = formats::importMeshes({path}, options);
  if (!imported.ok()) FAIL(imported.error().message);
  return std::move(imported->mesh);
}

/// Bakes `agent` on `mesh` and checks the edges of about `samples` nodes against the index path.
void checkEdges(const sim::TriangleMesh& mesh, const nav::AgentProfile& agent, std::size_t samples) {
  const nav::BakedAgent baked = test::bakeOne(mesh, agent);
  const nav::LayeredGraph& g = baked.graph;
  REQUIRE(g.nodeCount() > 0);
  const sim::QueryIndex index(mesh);
  const nav::ColumnBuilder builder(mesh, index, baked.profile.settings, g.grid);
  std::vector<uint8_t> climbable;
  if (baked.profile.settings.can_climb && !agent.climbable.empty()) climbable = nav::climbableTriangles(mesh, agent);
  const nav::EdgeInputs by_index{&builder, climbable.empty() ? nullptr : &climbable, nullptr, nullptr};
  nav::LayeredGraph fresh = g;
  const std::size_t stride = std::max<std::size_t>(1, g.nodeCount() / samples);
  std::size_t checked = 0, edges = 0;
  for (int32_t z = 0; z < g.grid.depth_cells; ++z)
    for (int32_t x = 0; x < g.grid.width_cells; ++x)
      for (uint32_t n = g.columnBegin(x, z); n < g.columnEnd(x, z); ++n) {
        if (n % stride != 0) continue;
        for (int d = 0; d < nav::kDirectionCount; ++d) {
          const std::size_t slot = static_cast<std::size_t>(n) * nav::kDirectionCount + d;
          fresh.neighbor[slot] = nav::kNoNode;
          fresh.edge_kind[slot] = static_cast<uint8_t>(nav::EdgeKind::None);
          fresh.edge_cost[slot] = 0;
        }
        std::vector<nav::OffMeshLink> jumps;
        nav::buildNodeEdges(fresh, by_index, n, x, z, &jumps);
        INFO("node " << n << " column " << x << ", " << z);
        // The node's second jumps (links of kind Jump) as the bake stored them, in order.
        std::vector<nav::OffMeshLink> stored;
        for (uint32_t l = g.link_offsets[n]; l < g.link_offsets[n + 1]; ++l)
          if (g.links[l].kind == nav::EdgeKind::Jump) stored.push_back(g.links[l]);
        std::sort(jumps.begin(), jumps.end(), [](const nav::OffMeshLink& a, const nav::OffMeshLink& b) { return a.to_node < b.to_node; });
        REQUIRE(jumps.size() == stored.size());
        for (std::size_t i = 0; i < jumps.size(); ++i) {
          REQUIRE(jumps[i].to_node == stored[i].to_node);
          REQUIRE(jumps[i].cost == stored[i].cost);
        }
        for (int d = 0; d < nav::kDirectionCount; ++d) {
          const std::size_t slot = static_cast<std::size_t>(n) * nav::kDirectionCount + d;
          INFO("direction " << d);
          REQUIRE(fresh.neighbor[slot] == g.neighbor[slot]);
          REQUIRE(fresh.edge_kind[slot] == g.edge_kind[slot]);
          REQUIRE(fresh.edge_cost[slot] == g.edge_cost[slot]);
          if (g.neighbor[slot] != nav::kNoNode) ++edges;
        }
        ++checked;
      }
  CHECK(checked >= samples / 2);
  CHECK(edges > checked);  // the sample is meaningful: most sampled nodes have edges
}

/// Checks every column's floors in `baked` against the all-hits ray of the query index
/// (buildColumn); returns how many columns hold more than `deep_above` floors.
std::size_t checkFloors(const sim::TriangleMesh& mesh, const nav::BakedAgent& baked, std::size_t deep_above = SIZE_MAX) {
  const nav::LayeredGraph& g = baked.graph;
  const sim::QueryIndex index(mesh);
  const nav::ColumnBuilder builder(mesh, index, baked.profile.settings, g.grid);
  std::size_t deep = 0;
  for (int32_t z = 0; z < g.grid.depth_cells; ++z)
    for (int32_t x = 0; x < g.grid.width_cells; ++x) {
      const auto floors = builder.buildColumn(x, z);
      REQUIRE(floors.size() == g.columnEnd(x, z) - g.columnBegin(x, z));
      for (std::size_t i = 0; i < floors.size(); ++i)
        REQUIRE(g.height[g.columnBegin(x, z) + i] == static_cast<float>(floors[i].height));
      if (floors.size() > deep_above) ++deep;
    }
  return deep;
}

nav::AgentProfile agentWithCell(double cell_size, double radius) {
  nav::AgentProfile agent = test::testAgent();
  agent.settings.cell_size = cell_size;
  agent.settings.radius = radius;
  return agent;
}

}  // namespace

TEST_CASE("binned sweep tests give the query index's edges on real meshes", "[nav][bake][oracle]") {
  const auto recast = test::sharedData() / "meshes" / "recast";
  for (const char* name : {"dungeon.obj", "undulating.obj", "nav_test.obj"}) {
    INFO(name);
    const sim::TriangleMesh mesh = importMesh(recast / name);
    SECTION(std::string(name) + ", default agent") { checkEdges(mesh, agentWithCell(0.3, 0.3), 1500); }
    SECTION(std::string(name) + ", narrow agent: walk edges are swept") { checkEdges(mesh, agentWithCell(0.3, 0.1), 1500); }
  }
}

TEST_CASE("binned sweep tests give the query index's edges on the samples", "[nav][bake][oracle][samples]") {
  for (const char* name : {"tower", "course", "maze"}) {
    INFO(name);
    const auto samples = test::sourceDir() / "samples";
    const sim::TriangleMesh mesh = importMesh(samples / (std::string(name) + ".obj"));
    auto profile = formats::loadProfile(samples / (std::string(name) + ".toml"));
    REQUIRE(profile.ok());
    checkEdges(mesh, profile->agents.at(0), 3000);
  }
}

TEST_CASE("a stack of many storeys: height-ordered candidates and bins give the index's floors and edges",
          "[nav][bake][oracle]") {
  // 120 storeys 2.5 m apart, each a 3 x 3 m floor of nine quads with a hole, a ramp, a low
  // block and a ledge that differ from storey to storey, and one wall face spanning them all
  // (a tall triangle early in height order): every column holds far more candidates and floors,
  // and every bin far more triangles, than the limits above which they are ordered by height
  // (local_overlap.h), so the bake's standing-room and sweep tests run on the ordered lists.
  test::MeshBuilder stack;
  for (int s = 0; s < 120; ++s) {
    const double y = 2.5 * s;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        if ((i + j + s) % 7 != 3) stack.floor(i, j, i + 1, j + 1, y + ((i * 3 + j + s) % 5 == 0 ? 0.6 : 0.0));
    stack.ramp(0, y, 1.5, y + 0.5, 1.0 + 0.1 * (s % 4), 1.6);
    stack.box({2.2, y, 0.3 + 0.05 * (s % 6)}, {2.5, y + 0.35, 0.9});
  }
  stack.quad({3.05, 0, -0.2}, {3.05, 300, -0.2}, {3.05, 300, 3.2}, {3.05, 0, 3.2}, {-1, 0, 0});
  const sim::TriangleMesh& mesh = stack.mesh();
  // A narrow agent too: its walk edges are swept (cell_size > 2 x radius), on the ordered bins.
  checkEdges(mesh, agentWithCell(0.25, 0.1), 2000);
  const auto agent = agentWithCell(0.25, 0.3);
  checkEdges(mesh, agent, 2000);
  // Every column's floors as the all-hits ray of the query index finds them; most columns hold
  // more than 100 floors.
  CHECK(checkFloors(mesh, test::bakeOne(mesh, agent, 2), 100) > 50);
}

namespace {

// Long walls at many angles (thin triangles whose bounding boxes cover most of the grid), and a
// long thin ramp and a long thin bridge along diagonals.
void addDiagonals(test::MeshBuilder& level) {
  for (int w = 0; w < 9; ++w) {
    const double angle = 0.13 + w * 0.37;  // radians: every octant
    const double cx = 30 + 3 * std::cos(w * 1.7), cz = 30 + 3 * std::sin(w * 1.7);
    const double dx = std::cos(angle) * 28, dz = std::sin(angle) * 28;
    const double h = w % 3 == 0 ? 0.35 : 2.5;  // some low enough to step over
    // A gap in the middle of each wall, so routes cross the walls' lines.
    for (const double f : {-1.0, 1.0}) {
      const sim::Vec3 a{cx + f * 0.06 * dx, 0, cz + f * 0.06 * dz}, b{cx + f * dx, 0, cz + f * dz};
      level.quad(a, {a.x, h, a.z}, {b.x, h, b.z}, b, {-dz, 0, dx});
    }
  }
  const sim::Vec3 r0{4, 0, 6}, r1{52, 2.0, 50};
  level.quad({r0.x - 0.4, r0.y, r0.z + 0.4}, {r0.x + 0.4, r0.y, r0.z - 0.4}, {r1.x + 0.4, r1.y, r1.z - 0.4},
             {r1.x - 0.4, r1.y, r1.z + 0.4}, {0, 1, 0});
  level.quad({5, 3, 56}, {6, 3, 56}, {56, 3, 5}, {55, 3, 5}, {0, 1, 0});
}

// The diagonals on a floor, with walls all but along an axis and small blocks: the tile and
// sweep-bin lists take the thin long triangles by their footprints (triangle_footprint.h).
sim::TriangleMesh longWalls() {
  test::MeshBuilder level;
  level.floor(0, 0, 60, 60, 0);
  addDiagonals(level);
  // Walls all but along an axis, 0.1 m across it over 56 m, at many offsets: some lie within the
  // radius of a tile's edge (whatever the tiling), where only the lists' widening finds them.
  for (int k = 0; k < 7; ++k) {
    const double x = 7.0 + 8 * k + 0.27 * k;
    level.quad({x, 0, 2}, {x, 2.5, 2}, {x + 0.1, 2.5, 58}, {x + 0.1, 0, 58}, {1, 0, 0});
    const double z = 7.5 + 8 * k + 0.31 * k;
    level.quad({2, 0, z}, {2, 2.5, z}, {58, 2.5, z + 0.1}, {58, 0, z + 0.1}, {0, 0, 1});
  }
  for (int i = 0; i < 12; ++i) level.box({4.0 + 4 * i, 0, 50.0 - 3.5 * i}, {4.6 + 4 * i, 1.2, 50.8 - 3.5 * i});
  return level.mesh();
}

}  // namespace

TEST_CASE("long walls across the grid: footprint-listed tiles and bins give the index's floors and edges",
          "[nav][bake][oracle]") {
  const sim::TriangleMesh mesh = longWalls();
  checkEdges(mesh, agentWithCell(0.25, 0.3), 3000);
  checkEdges(mesh, agentWithCell(0.25, 0.1), 3000);  // walk edges swept
  for (const int threads : {1, 2}) {
    INFO(threads << " threads");
    checkFloors(mesh, test::bakeOne(mesh, agentWithCell(0.25, 0.3), threads));
  }
}

TEST_CASE("sweep bins list long triangles by their footprints and answer box tests as the query index",
          "[nav][bake][oracle]") {
  const int32_t bin_cells = 4;
  {
    // The entries a listing by bounding boxes would make (each triangle in every bin its bounds
    // touch): the footprints of the diagonals are a small part of that.
    test::MeshBuilder diagonals;
    addDiagonals(diagonals);
    const sim::TriangleMesh& mesh = diagonals.mesh();
    const nav::TriangleCandidates candidates(mesh);
    const nav::GridFrame grid = nav::makeGridFrame(mesh.bounds(), 0.25);
    const nav::TriangleBins bins(candidates, grid, bin_cells);
    REQUIRE_FALSE(bins.full());
    const double bin = grid.cell_size * bin_cells;
    const int32_t bins_x = (grid.width_cells + bin_cells - 1) / bin_cells, bins_z = (grid.depth_cells + bin_cells - 1) / bin_cells;
    auto binOf = [&](double v, double origin, int32_t count) {
      return std::clamp(static_cast<int32_t>(std::floor((v - origin) / bin)), 0, count - 1);
    };
    std::uint64_t by_bounds = 0;
    for (const nav::TriangleBounds& b : candidates.bounds)
      by_bounds += static_cast<std::uint64_t>(binOf(b.max_x, grid.origin_x, bins_x) - binOf(b.min_x, grid.origin_x, bins_x) + 1) *
                   static_cast<std::uint64_t>(binOf(b.max_z, grid.origin_z, bins_z) - binOf(b.min_z, grid.origin_z, bins_z) + 1);
    INFO("entries " << bins.entries() << ", by bounds " << by_bounds);
    CHECK(bins.entries() * 4 < by_bounds);
  }
  const sim::TriangleMesh mesh = longWalls();
  const sim::QueryIndex index(mesh);
  const nav::TriangleCandidates candidates(mesh);
  const nav::GridFrame grid = nav::makeGridFrame(mesh.bounds(), 0.25);
  const nav::TriangleBins bins(candidates, grid, bin_cells);
  REQUIRE_FALSE(bins.full());
  // Random boxes, axis-aligned and turned, from a few centimetres to several bins across, many
  // of them at the walls (where the answer changes).
  std::mt19937_64 rng(20261205);
  std::uniform_real_distribution<double> unit(0, 1);
  std::size_t blocked = 0;
  for (int i = 0; i < 20000; ++i) {
    sim::Vec3 centre{60 * unit(rng), 3 * unit(rng), 60 * unit(rng)};
    if (i % 2 == 1) {  // on a random triangle
      const auto t = static_cast<uint32_t>(rng() % mesh.triangleCount());
      double u = unit(rng), v = unit(rng);
      if (u + v > 1) u = 1 - u, v = 1 - v;
      centre = mesh.vertex(t, 0) + (mesh.vertex(t, 1) - mesh.vertex(t, 0)) * u + (mesh.vertex(t, 2) - mesh.vertex(t, 0)) * v;
      centre.x += 0.3 * (unit(rng) - 0.5), centre.z += 0.3 * (unit(rng) - 0.5), centre.y += 0.2 + 0.5 * unit(rng);
    }
    const double size = i % 5 == 0 ? 3.0 * unit(rng) : 0.02 + 0.5 * unit(rng);
    const sim::Vec3 half{size, 0.1 + 0.8 * unit(rng), size * (0.2 + unit(rng))};
    bool free_index, free_bins;
    if (i % 3 == 0) {
      const sim::OrientedBox box = sim::OrientedBox::fromYaw(centre, half, 6.283185307179586 * unit(rng));
      free_index = !index.overlapsOrientedBox(box);
      free_bins = bins.boxFree(nav::LocalBoxTest(box));
    } else {
      sim::Aabb box;
      box.min = centre - half;
      box.max = centre + half;
      free_index = !index.overlapsBox(box);
      free_bins = bins.boxFree(nav::LocalBoxTest(box));
    }
    INFO("box " << i << " centre " << centre.x << ", " << centre.y << ", " << centre.z << " size " << size);
    REQUIRE(free_bins == free_index);
    if (!free_index) ++blocked;
  }
  CHECK(blocked > 2000);  // the sample is meaningful: many boxes meet a triangle
  CHECK(blocked < 18000);
}
