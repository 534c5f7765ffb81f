// The oracle test of the clearance stage (clearance_stage.cpp: parallel chamfer sweeps over bands
// of rows, then a worklist): every node's clearance must equal, bit for bit, the baked radius plus
// a plain multi-source Dijkstra over walk edges from the border nodes (distance + step in the
// same double arithmetic; the minimum over routes does not depend on the order of relaxation), and
// the border flags must mark exactly the nodes missing a cardinal walk edge. On random graphs
// (holes and one-way walk edges, so routes wind and cross band borders) at 1, 2, 3 and 8
// threads (the band split follows the thread count), and on baked real meshes and samples.

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <queue>

#include "bake_fixtures.h"
#include "bake_graph_fixtures.h"
#include "bake_stages.h"
#include "sample_fixtures.h"
#include "strata/formats/import.h"
#include "test_support.h"

using namespace strata;

namespace {

/// Route distance over walk edges to the nearest border node, per node (+inf: none reachable).
std::vector<double> referenceDistance(const nav::LayeredGraph& g) {
  const std::size_t nodes = g.nodeCount();
  const auto walk = static_cast<uint8_t>(nav::EdgeKind::Walk);
  std::vector<std::vector<std::pair<uint32_t, int>>> predecessors(nodes);  // (p, d): p -> n by walk d
  std::vector<double> distance(nodes, std::numeric_limits<double>::infinity());
  using Entry = std::pair<double, uint32_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> open;
  for (uint32_t n = 0; n < nodes; ++n) {
    bool border = false;
    for (int d = 0; d < nav::kDirectionCount; ++d) {
      const bool walks = g.edge_kind[static_cast<std::size_t>(n) * nav::kDirectionCount + d] == walk;
      if (walks) predecessors[g.neighbor[static_cast<std::size_t>(n) * nav::kDirectionCount + d]].emplace_back(n, d);
      if (!walks && d % 2 == 0) border = true;
    }
    if (border) distance[n] = 0, open.push({0.0, n});
  }
  const double step[2] = {g.grid.cell_size, g.grid.cell_size * M_SQRT2};
  while (!open.empty()) {
    const auto [d, n] = open.top();
    open.pop();
    if (d != distance[n]) continue;
    for (const auto& [p, dir] : predecessors[n]) {
      const double via = distance[n] + step[dir & 1];
      if (via < distance[p]) distance[p] = via, open.push({via, p});
    }
  }
  return distance;
}

/// Checks flags and clearance of a graph whose clearance stage has run.
void checkClearance(const nav::LayeredGraph& g, double radius) {
  const std::vector<double> distance = referenceDistance(g);
  REQUIRE(g.clearance.size() == g.nodeCount());
  std::size_t finite = 0, far = 0;
  for (uint32_t n = 0; n < g.nodeCount(); ++n) {
    INFO("node " << n);
    const float expected = static_cast<float>(std::isfinite(distance[n]) ? radius + distance[n]
                                                                          : std::numeric_limits<double>::infinity());
    REQUIRE(g.clearance[n] == expected);
    REQUIRE(((g.flags[n] & nav::kNodeBorder) != 0) == (distance[n] == 0));
    finite += std::isfinite(distance[n]);
    far += distance[n] > 3 * g.grid.cell_size && std::isfinite(distance[n]);
  }
  CHECK(finite > 0);
  CHECK(far > 0);  // routes longer than a few steps exist, so the test can tell orders apart
}

sim::TriangleMesh importShared(const std::string& path) {
  formats::ImportOptions options;
  options.in_process = true;
  auto imported = formats::importMeshes({test::sharedData() / path}, options);
  if (!imported.ok()) FAIL(imported.error().message);
  return std::move(imported->mesh);
}

}  // namespace

TEST_CASE("clearance equals a multi-source Dijkstra on random graphs at any thread count",
          "[nav][bake][clearance][oracle]") {
  test::RandomGraphSpec spec;
  spec.width = 70;
  spec.depth = 90;  // several bands of rows at 2 .. 8 threads
  spec.max_layers = 2;
  spec.empty_column = 0.04;
  spec.two_way_walk = 0.94;
  spec.one_way_walk = 0.03;
  for (uint32_t seed = 1; seed <= 6; ++seed)
    for (int threads : {1, 2, 3, 8}) {
      INFO("seed " << seed << ", threads " << threads);
      spec.cell_size = seed % 2 ? 0.3 : 0.25;
      nav::LayeredGraph g = test::randomGraph(spec, seed);
      test::inArena(threads, [&] { nav::computeClearance(0.3, g); });
      checkClearance(g, 0.3);
    }
}

TEST_CASE("clearance of a one-row and a one-column grid", "[nav][bake][clearance][oracle]") {
  // Degenerate band splits: a single row (one band whatever the threads) and a single column.
  for (auto [w, d] : {std::pair{200, 1}, std::pair{1, 200}, std::pair{3, 40}}) {
    test::RandomGraphSpec spec;
    spec.width = w, spec.depth = d, spec.empty_column = 0, spec.one_way_drop = 0;
    nav::LayeredGraph g = test::randomGraph(spec, 7);
    test::inArena(4, [&] { nav::computeClearance(0.5, g); });
    const std::vector<double> distance = referenceDistance(g);
    for (uint32_t n = 0; n < g.nodeCount(); ++n)
      REQUIRE(g.clearance[n] == static_cast<float>(std::isfinite(distance[n]) ? 0.5 + distance[n]
                                                                            : std::numeric_limits<double>::infinity()));
  }
}

TEST_CASE("baked clearance equals a multi-source Dijkstra on real meshes and samples",
          "[nav][bake][clearance][oracle]") {
  nav::AgentProfile agent = test::testAgent();
  agent.settings.cell_size = 0.3;
  for (const char* path : {"meshes/recast/dungeon.obj", "meshes/recast/undulating.obj"}) {
    INFO(path);
    const sim::TriangleMesh mesh = importShared(path);
    for (int threads : {1, 2}) {
      const nav::BakedAgent baked = test::bakeOne(mesh, agent, threads);
      checkClearance(baked.graph, baked.profile.settings.radius);
    }
  }
  for (const char* name : {"course", "maze", "tower"}) {
    INFO(name);
    const nav::BakedAgent baked = test::bakeOne(test::sampleMesh(name), test::sampleAgent(name), 2);
    checkClearance(baked.graph, baked.profile.settings.radius);
  }
}
