// The oracle test of the edge stage's local sweep tests: the bake tests every swept box against
// the triangles binned near it (triangle_bins.cpp, local_overlap.cpp) and reads each node's
// standing-box bottom from a cache; recomputing the edges of sampled nodes with every sweep sent
// through the query index (EdgeInputs without bins or cache) must give the same neighbour, kind
// and cost in all 8 directions. Real meshes (terrain, rooms, stairs) and the samples (jumps,
// drops, climbing, thin walls), with the default agent and a narrow one whose walk edges need
// sweeps (cell_size > 2 * radius).

#include <catch2/catch.hpp>

#include <algorithm>

#include "bake_fixtures.h"
#include "bake_stages.h"
#include "edge_builder.h"
#include "strata/formats/import.h"
#include "strata/formats/profile.h"
#include "strata/nav/column_builder.h"
#include "strata/sim/query_index.h"
#include "test_support.h"

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
  // Every column's floors as the all-hits ray of the query index finds them.
  const nav::BakedAgent baked = test::bakeOne(mesh, agent, 2);
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
      if (floors.size() > 100) ++deep;
    }
  CHECK(deep > 50);  // most columns hold more than 100 floors
}
