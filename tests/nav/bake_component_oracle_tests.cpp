// The oracle test of the component stage (component_stage.cpp: two-way pairs contracted by a
// parallel union-find, then Tarjan on the small graph of one-way arcs): components, regions and
// the region closure must equal plain definitions computed by breadth-first search:
//  - component: connected over edges and links taken as undirected, numbered in node order;
//  - region: the nodes reachable from n that also reach n, numbered by lowest node;
//  - region_reach: the other regions reachable from a region, ascending.
// On random graphs (two-way and one-way walks, drops and jumps across columns, links) at 1, 2
// and 8 threads, and on baked samples and a real mesh.

#include <catch2/catch.hpp>

#include <queue>
#include <random>

#include "bake_fixtures.h"
#include "bake_graph_fixtures.h"
#include "bake_stages.h"
#include "sample_fixtures.h"
#include "strata/formats/import.h"
#include "strata/nav/layered_search.h"
#include "test_support.h"

using namespace strata;

namespace {

/// Successor lists (edges then links) of every node, and the reverse lists.
struct Adjacency {
  std::vector<std::vector<uint32_t>> out, in;
};

Adjacency adjacency(const nav::LayeredGraph& g) {
  Adjacency a;
  a.out.resize(g.nodeCount());
  a.in.resize(g.nodeCount());
  for (uint32_t n = 0; n < g.nodeCount(); ++n) {
    for (int d = 0; d < nav::kDirectionCount; ++d)
      if (const uint32_t m = g.neighborOf(n, d); m != nav::kNoNode) a.out[n].push_back(m);
    for (uint32_t l = g.link_offsets[n]; l < g.link_offsets[n + 1]; ++l) a.out[n].push_back(g.links[l].to_node);
    for (uint32_t m : a.out[n]) a.in[m].push_back(n);
  }
  return a;
}

/// Nodes reachable from `start` over `lists` (start included).
std::vector<uint8_t> search(const std::vector<std::vector<uint32_t>>& lists, uint32_t start) {
  std::vector<uint8_t> seen(lists.size(), 0);
  std::queue<uint32_t> open;
  seen[start] = 1;
  open.push(start);
  while (!open.empty()) {
    const uint32_t n = open.front();
    open.pop();
    for (uint32_t m : lists[n])
      if (!seen[m]) seen[m] = 1, open.push(m);
  }
  return seen;
}

/// Checks component, region and region_reach of `g` against the definitions.
void checkComponents(const nav::LayeredGraph& g) {
  const std::size_t nodes = g.nodeCount();
  REQUIRE(g.component.size() == nodes);
  REQUIRE(g.region.size() == nodes);
  const Adjacency a = adjacency(g);
  // Components: undirected search from each unlabelled node in node order.
  std::vector<std::vector<uint32_t>> both(nodes);
  for (uint32_t n = 0; n < nodes; ++n) {
    both[n] = a.out[n];
    both[n].insert(both[n].end(), a.in[n].begin(), a.in[n].end());
  }
  std::vector<uint32_t> component(nodes, nav::kNoNode), region(nodes, nav::kNoNode);
  uint32_t components = 0, regions = 0;
  std::vector<uint32_t> region_root;  // lowest node of each region
  for (uint32_t n = 0; n < nodes; ++n) {
    if (component[n] == nav::kNoNode) {
      const std::vector<uint8_t> seen = search(both, n);
      for (uint32_t m = 0; m < nodes; ++m)
        if (seen[m]) component[m] = components;
      ++components;
    }
    if (region[n] == nav::kNoNode) {
      const std::vector<uint8_t> forward = search(a.out, n), backward = search(a.in, n);
      for (uint32_t m = 0; m < nodes; ++m)
        if (forward[m] && backward[m]) region[m] = regions;
      region_root.push_back(n);
      ++regions;
    }
  }
  CHECK(g.component_count == components);
  CHECK(g.region_count == regions);
  for (uint32_t n = 0; n < nodes; ++n) {
    INFO("node " << n);
    REQUIRE(g.component[n] == component[n]);
    REQUIRE(g.region[n] == region[n]);
  }
  REQUIRE(g.region_reach_offsets.size() == static_cast<std::size_t>(regions) + 1);
  for (uint32_t r = 0; r < regions; ++r) {
    // The closure: every region reachable; the DAG's edges: every region one arc away.
    std::vector<uint32_t> expected;
    if (g.region_reach_closure) {
      const std::vector<uint8_t> seen = search(a.out, region_root[r]);
      for (uint32_t m = 0; m < nodes; ++m)
        if (seen[m] && region[m] != r) expected.push_back(region[m]);
    } else {
      for (uint32_t n = 0; n < nodes; ++n)
        if (region[n] == r)
          for (uint32_t m : a.out[n])
            if (region[m] != r) expected.push_back(region[m]);
    }
    std::sort(expected.begin(), expected.end());
    expected.erase(std::unique(expected.begin(), expected.end()), expected.end());
    const std::vector<uint32_t> got(g.region_reach.begin() + g.region_reach_offsets[r],
                                    g.region_reach.begin() + g.region_reach_offsets[r + 1]);
    INFO("region " << r);
    REQUIRE(got == expected);
  }
  // canReach against a breadth-first search from every node (small graphs) or from a sample.
  const uint32_t step = nodes > 400 ? static_cast<uint32_t>(nodes / 97) : 1;
  for (uint32_t n = 0; n < nodes; n += step) {
    const std::vector<uint8_t> seen = search(a.out, n);
    for (uint32_t m = 0; m < nodes; ++m)
      if (g.canReach(n, m) != bool(seen[m])) {
        INFO("from node " << n << " to node " << m);
        REQUIRE(g.canReach(n, m) == bool(seen[m]));
      }
  }
}

}  // namespace

TEST_CASE("components and regions equal breadth-first definitions on random graphs",
          "[nav][bake][components][oracle]") {
  struct Case {
    test::RandomGraphSpec spec;
    const char* what;
  };
  test::RandomGraphSpec dense;  // mostly two-way walks: a few big regions, drops between layers
  dense.width = 30, dense.depth = 40;
  test::RandomGraphSpec sparse = dense;  // many one-way walks and holes: many small regions
  sparse.two_way_walk = 0.4, sparse.one_way_walk = 0.4, sparse.empty_column = 0.3, sparse.one_way_drop = 0.2;
  test::RandomGraphSpec oneway = dense;  // no two-way pair at all: nothing to contract
  oneway.two_way_walk = 0, oneway.one_way_walk = 0.9;
  for (const Case& c : {Case{dense, "dense"}, Case{sparse, "sparse"}, Case{oneway, "one-way"}})
    for (uint32_t seed = 1; seed <= 3; ++seed)
      for (int threads : {1, 2, 8}) {
        INFO(c.what << ", seed " << seed << ", threads " << threads);
        nav::LayeredGraph g = test::randomGraph(c.spec, seed);
        test::inArena(threads, [&] { nav::computeComponents(g); });
        CHECK(g.region_reach_closure);
        checkComponents(g);
      }
}

TEST_CASE("regions: past the closure budget region_reach holds the region DAG's edges and canReach stays exact",
          "[nav][bake][components][oracle]") {
  // Many small regions (one-way walks): the closure of the sparse and one-way graphs above holds
  // thousands of entries; with a budget of 100 the DAG's edges are stored instead.
  test::RandomGraphSpec sparse;
  sparse.width = 30, sparse.depth = 40;
  sparse.two_way_walk = 0.4, sparse.one_way_walk = 0.4, sparse.empty_column = 0.3, sparse.one_way_drop = 0.2;
  test::RandomGraphSpec oneway;
  oneway.width = 30, oneway.depth = 40;
  oneway.two_way_walk = 0, oneway.one_way_walk = 0.9;
  for (const test::RandomGraphSpec& spec : {sparse, oneway})
    for (uint32_t seed = 1; seed <= 2; ++seed) {
      nav::LayeredGraph full = test::randomGraph(spec, seed);
      nav::computeComponents(full);
      REQUIRE(full.region_reach_closure);
      REQUIRE(full.region_reach.size() > 100);
      nav::LayeredGraph g = test::randomGraph(spec, seed);
      nav::computeComponents(g, 100);
      CHECK_FALSE(g.region_reach_closure);
      CHECK(g.region == full.region);
      CHECK(g.component == full.component);
      checkComponents(g);
    }
  // A slope too steep to climb baked with a low step: every step down a drop, every node its own
  // region (the closure of n nodes grows as n^2 / 4). The bake stores the DAG's edges, and the
  // world's reachability still answers exactly.
  sim::TriangleMesh slope;
  const double side = 16.0, rise = std::tan(20.0 * 3.14159265358979 / 180.0) * side;
  slope.vertices = {{0, 0, 0}, {float(side), float(rise), 0}, {float(side), float(2 * rise), float(side)}, {0, float(rise), float(side)}};
  slope.triangles = {{0, 2, 1}, {0, 3, 2}};
  slope.labels = {"ground"};
  slope.tags = {"/slope"};
  slope.triangle_labels = {0, 0};
  slope.triangle_tags = {0, 0};
  nav::BakeProfile profile = nav::BakeProfile::defaults();
  profile.agents[0].settings.step_height = 0.05;
  profile.agents[0].settings.can_jump = false;
  profile.agents[0].settings.cell_size = 0.3;
  auto baked = nav::bakeWorld(slope, profile, nav::BakeOptions{}, "slope");
  INFO((baked.ok() ? std::string() : baked.error().message));
  REQUIRE(baked.ok());
  const nav::LayeredGraph& g = baked->agents[0].graph;
  REQUIRE(g.nodeCount() > 1000);
  CHECK(g.region_count == g.nodeCount());
  CHECK_FALSE(g.region_reach_closure);
  CHECK(g.region_reach.size() <= 8 * g.nodeCount());
  checkComponents(g);
}

TEST_CASE("baked components and regions equal breadth-first definitions on samples",
          "[nav][bake][components][oracle][samples]") {
  for (const char* name : {"course", "maze", "tower"}) {
    INFO(name);
    const nav::BakedAgent baked = test::bakeOne(test::sampleMesh(name), test::sampleAgent(name), 2);
    REQUIRE(baked.graph.nodeCount() < 60000);  // the breadth-first definitions are quadratic
    checkComponents(baked.graph);
  }
}

TEST_CASE("baked components and regions equal the definitions on a real mesh, at 1 and 2 threads",
          "[nav][bake][components][oracle]") {
  formats::ImportOptions options;
  options.in_process = true;
  auto imported = formats::importMeshes({test::sharedData() / "meshes/recast/dungeon.obj"}, options);
  REQUIRE(imported.ok());
  nav::AgentProfile agent = test::testAgent();
  agent.settings.cell_size = 0.3;
  agent.settings.can_jump = false;  // drops one way only (a jump back up would join them)
  const nav::BakedAgent one = test::bakeOne(imported->mesh, agent, 1);
  const nav::BakedAgent two = test::bakeOne(imported->mesh, agent, 2);
  CHECK(one.graph.component == two.graph.component);
  CHECK(one.graph.region == two.graph.region);
  CHECK(one.graph.region_reach_offsets == two.graph.region_reach_offsets);
  CHECK(one.graph.region_reach == two.graph.region_reach);
  CHECK(one.graph.component_count > 1);
  CHECK(one.graph.region_count > one.graph.component_count);  // drops make one-way regions
  checkComponents(two.graph);
}

TEST_CASE("component oracle: the search's rejection of unreachable goals is exact on baked samples",
          "[nav][bake][components][oracle]") {
  // Drops from wall tops (maze, with max_drop 2 m as the walls are tall: its profile's 1.5 m keeps
  // them apart), one-way drops (course), stairs and a bridge (tower): the view's
  // provablyUnreachable (findLayeredPath's rejection before searching) and canReach must say
  // what a breadth-first search over the graph's edges and links finds.
  for (const char* name : {"maze", "course", "tower"}) {
    INFO(name);
    auto agent = test::sampleAgent(name);
    if (std::string(name) == "maze") agent.settings.max_drop = 2.0;
    const auto baked = test::bakeOne(test::sampleMesh(name), agent, 2);
    const auto& g = baked.graph;
    const nav::LayeredSearchGraph view(g, baked.profile.settings);
    REQUIRE(g.hasRegions());
    const Adjacency a = adjacency(g);
    const auto n = static_cast<uint32_t>(g.nodeCount());
    std::mt19937 rng(7);
    int unreachable = 0;
    for (int trial = 0; trial < 30; ++trial) {
      const uint32_t start = rng() % n;
      const std::vector<uint8_t> seen = search(a.out, start);
      for (int k = 0; k < 300; ++k) {
        const uint32_t goal = rng() % n;
        INFO("start " << start << ", goal " << goal);
        CHECK(g.canReach(start, goal) == bool(seen[goal]));
        CHECK(view.provablyUnreachable(start, goal) == !seen[goal]);
        unreachable += seen[goal] ? 0 : 1;
      }
    }
    // maze and course have places some starts cannot reach (the sealed room, one-way drops);
    // tower is one component, every place reachable from every other.
    if (std::string(name) != "tower") CHECK(unreachable > 0);
  }
}
