// The sample levels against the feature coordinates in samples/README.md, baked with the sample
// profiles (samples/*.toml): layers, slopes, steps, ceilings, thin walls, doorways, gaps, ladders
// and custom links.

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <queue>

#include "bake_fixtures.h"
#include "sample_fixtures.h"
#include "test_support.h"

using namespace strata;
using nav::EdgeKind;
using nav::kNoNode;

namespace {

using test::sampleAgent;
using test::sampleMesh;

/// Nodes reachable from `start` over edges accepted by `use`.
std::vector<bool> reachable(const nav::LayeredGraph& g, uint32_t start, const std::function<bool(EdgeKind)>& use) {
  std::vector<bool> seen(g.nodeCount(), false);
  std::queue<uint32_t> open;
  seen[start] = true;
  open.push(start);
  while (!open.empty()) {
    const uint32_t n = open.front();
    open.pop();
    for (int d = 0; d < nav::kDirectionCount; ++d) {
      const uint32_t m = g.neighborOf(n, d);
      if (m != kNoNode && !seen[m] && use(g.edgeKind(n, d))) seen[m] = true, open.push(m);
    }
  }
  return seen;
}

/// The node at world (x, z) nearest height y (within 0.35 m), or kNoNode.
uint32_t at(const nav::LayeredGraph& g, double x, double y, double z) {
  return g.findNode(g.grid.columnX(x), g.grid.columnZ(z), y, 0.35, 0.35);
}

/// Edges (between nodes within [lo, hi] in height) whose ends lie on both sides of x = line_x,
/// with both ends' z inside [z0, z1].
std::vector<std::pair<uint32_t, int>> edgesAcross(const nav::LayeredGraph& g, double line_x, double z0, double z1,
                                                  double lo = -0.1, double hi = 0.1) {
  std::vector<std::pair<uint32_t, int>> found;
  for (uint32_t n = 0; n < g.nodeCount(); ++n)
    for (int d = 0; d < nav::kDirectionCount; ++d) {
      const uint32_t m = g.neighborOf(n, d);
      if (m == kNoNode) continue;
      const auto a = g.nodePosition(n), b = g.nodePosition(m);
      if (a.y < lo || a.y > hi || b.y < lo || b.y > hi) continue;
      if ((a.x < line_x) == (b.x < line_x)) continue;
      if (a.z < z0 || a.z > z1 || b.z < z0 || b.z > z1) continue;
      found.emplace_back(n, d);
    }
  return found;
}

}  // namespace

TEST_CASE("tower: road, bridge and roof are three distinct layers where they cross", "[nav][bake][samples]") {
  const auto baked = test::bakeOne(sampleMesh("tower"), sampleAgent("tower"), 2);
  const auto& g = baked.graph;
  const auto nodes = test::nodesAt(g, 0.1, -4.1);
  REQUIRE(nodes.size() == 3);
  CHECK(g.height[nodes[0]] == Approx(0.0).margin(1e-4));
  CHECK(g.height[nodes[1]] == Approx(4.0).margin(1e-4));
  CHECK(g.height[nodes[2]] == Approx(8.0).margin(1e-4));
  CHECK(g.headroom[nodes[0]] == Approx(3.8).margin(1e-4));  // the bridge deck is 0.2 m thick
  // The ramp joins road and bridge; the stairs join bridge and roof: one walkable component.
  const auto walked = reachable(g, nodes[0], [](EdgeKind k) { return k == EdgeKind::Walk; });
  CHECK(walked[nodes[1]]);
  CHECK(walked[nodes[2]]);
  CHECK(g.area_names[g.area[at(g, 0.1, 2.0, 13.1)]] == "ramp");
  CHECK(g.validate().empty());
  REQUIRE(g.fields.size() == 1);
  CHECK(std::isfinite(g.fields[0].distance[nodes[2]]));
  CHECK(g.fields[0].distance[nodes[2]] > g.fields[0].distance[nodes[1]]);
  // No floor inside the closed ramp: the road under it meets the ramp's bottom face at 0 (the
  // road hit rounds to about 1e-15 above it), so every column under the ramp holds the ramp alone,
  // and the whole level is one component.
  for (const auto& [x, z] : {std::pair{1.35, 11.55}, {1.35, 12.45}, {1.05, 10.05}, {1.65, 10.05}, {-0.15, 13.05}}) {
    INFO(x << ", " << z);
    const auto column = test::nodesAt(g, x, z);
    REQUIRE(column.size() == 1);
    CHECK(g.area_names[g.area[column[0]]] == "ramp");
  }
  CHECK(g.component_count == 1);
}

TEST_CASE("course: 30 and 45 degree ramps are walkable at max_slope 50, the 60 degree one is not", "[nav][bake][samples]") {
  auto agent = sampleAgent("course");
  REQUIRE(agent.settings.max_slope == 50);
  const auto baked = test::bakeOne(sampleMesh("course"), agent, 2);
  const auto& g = baked.graph;
  const uint32_t start = at(g, -2, 0, -7.5);
  REQUIRE(start != kNoNode);
  const auto walked = reachable(g, start, [](EdgeKind k) { return k == EdgeKind::Walk; });
  const uint32_t on30 = at(g, 1.3, 1.3 * std::tan(M_PI / 6), -7.5), on45 = at(g, 8.75, 0.75, -7.5);
  REQUIRE(on30 != kNoNode);
  REQUIRE(on45 != kNoNode);
  CHECK(walked[on30]);
  CHECK(walked[on45]);
  CHECK(walked[at(g, 3.6, 1.5, -7.5)]);   // the platform after the 30 degree ramp
  CHECK(walked[at(g, 10.5, 1.5, -7.5)]);  // after the 45 degree ramp
  // No floor on the 60 degree ramp and no walk up to its platform.
  for (double x = 16.05; x < 16.85; x += 0.1)
    for (uint32_t n : test::nodesAt(g, x, -7.5)) CHECK((g.height[n] < 0.05 || g.height[n] > 1.45));
  const uint32_t after60 = at(g, 17.9, 1.5, -7.5);
  REQUIRE(after60 != kNoNode);
  CHECK_FALSE(walked[after60]);
}

TEST_CASE("course: 0.2 and 0.4 m steps walk, 0.6 and 1.0 m need a jump", "[nav][bake][samples]") {
  auto agent = sampleAgent("course");
  REQUIRE(agent.settings.step_height == 0.4);
  REQUIRE(agent.settings.jump_height >= 1.0);
  const auto baked = test::bakeOne(sampleMesh("course"), agent, 2);
  const auto& g = baked.graph;
  // The kind of edge from the ground onto each step block (lane B, z -4..-1), east-bound.
  auto ontoStep = [&](double block_x0, double block_h) {
    std::vector<EdgeKind> kinds;
    for (const auto& [n, d] : edgesAcross(g, block_x0, -3.5, -1.5, -0.1, block_h + 0.1))
      if (g.height[n] < 0.05 && g.height[g.neighborOf(n, d)] > block_h - 0.05) kinds.push_back(g.edgeKind(n, d));
    return kinds;
  };
  for (auto [x0, h] : {std::pair{0.0, 0.2}, std::pair{5.0, 0.4}}) {
    INFO("step " << h);
    const auto kinds = ontoStep(x0, h);
    REQUIRE_FALSE(kinds.empty());
    for (EdgeKind k : kinds) CHECK(k == EdgeKind::Walk);
  }
  for (auto [x0, h] : {std::pair{10.0, 0.6}, std::pair{15.0, 1.0}}) {
    INFO("step " << h);
    const auto kinds = ontoStep(x0, h);
    REQUIRE_FALSE(kinds.empty());
    for (EdgeKind k : kinds) CHECK(k == EdgeKind::Jump);
  }
  // With a 0.8 m jump the 1.0 m step has no way up at all.
  agent.settings.jump_height = 0.8;
  const auto low_jump = test::bakeOne(sampleMesh("course"), agent, 2);
  for (const auto& [n, d] : edgesAcross(low_jump.graph, 15.0, -3.5, -1.5, -0.1, 1.1))
    CHECK(low_jump.graph.height[low_jump.graph.neighborOf(n, d)] < 0.9);
}

TEST_CASE("course: the low ceiling, the thin wall, the doorways, the gap, the ladder, the link", "[nav][bake][samples]") {
  auto agent = sampleAgent("course");
  REQUIRE(agent.settings.height == 1.8);
  REQUIRE(agent.settings.radius == 0.3);
  const auto mesh = sampleMesh("course");
  const auto baked = test::bakeOne(mesh, agent, 2);
  const auto& g = baked.graph;
  // Low ceiling (underside 1.2 m over x 0..4, z 2..6): no standing room on the ground beneath.
  for (double x = 0.6; x < 3.5; x += 0.3)
    for (double z = 2.6; z < 5.5; z += 0.3) CHECK(at(g, x, 0, z) == kNoNode);
  CHECK(at(g, -1.5, 0, 4) != kNoNode);
  // Thin wall x 44..44.05, z -4..4: no edge of any kind crosses it.
  CHECK(edgesAcross(g, 44.025, -3.9, 3.9, -0.1, 2.5).empty());
  CHECK(at(g, 43.2, 0, 0) != kNoNode);
  CHECK(at(g, 44.9, 0, 0) != kNoNode);
  // Doorway wall x 50..50.2: closed except through the 1.2 m door (z 4.4..5.6).
  CHECK(edgesAcross(g, 50.1, -10, 4.3, -0.1, 2.6).empty());
  CHECK(edgesAcross(g, 50.1, 5.7, 10, -0.1, 2.6).empty());
  CHECK_FALSE(edgesAcross(g, 50.1, 4.4, 5.6).empty());
  // Gap x 34..36: crossed, and only by jump edges.
  const auto over_gap = edgesAcross(g, 35.0, -10, 10);
  REQUIRE_FALSE(over_gap.empty());
  for (const auto& [n, d] : over_gap) CHECK(g.edgeKind(n, d) == EdgeKind::Jump);
  // Ladder (label climbable) on the west face of the 3 m platform at x 66, z -3..-2.
  bool climb_up = false;
  for (uint32_t n = 0; n < g.nodeCount(); ++n)
    for (int d = 0; d < nav::kDirectionCount; ++d)
      if (g.edgeKind(n, d) == EdgeKind::Climb && g.height[g.neighborOf(n, d)] > 2.9) {
        climb_up = true;
        CHECK(g.nodePosition(n).z > -3.4);
        CHECK(g.nodePosition(n).z < -1.6);
      }
  CHECK(climb_up);
  // The custom link keeps its label, both ways (the other entries of `links` are second jumps:
  // from the blocks and platforms, across the ground between them).
  REQUIRE(g.customLinkCount() == 2);
  std::vector<nav::OffMeshLink> custom;
  for (const auto& link : g.links) {
    if (link.kind != EdgeKind::Link) {
      CHECK(link.kind == EdgeKind::Jump);
      continue;
    }
    custom.push_back(link);
    CHECK(g.link_labels[link.label] == "moving_platform");
    CHECK(link.bidirectional);
    const bool up = g.height[link.from_node] < 1;
    CHECK(g.height[link.from_node] == Approx(up ? 0.2 : 3.0).margin(1e-4));
    CHECK(g.height[link.to_node] == Approx(up ? 3.0 : 0.2).margin(1e-4));
  }
  CHECK(custom[0].to_node == custom[1].from_node);

  // Without jumping the gap is not crossed; a 0.15 m radius agent fits the 0.5 m door.
  auto no_jump = agent;
  no_jump.settings.can_jump = false;
  CHECK(edgesAcross(test::bakeOne(mesh, no_jump, 2).graph, 35.0, -10, 10).empty());
  auto thin = agent;
  thin.settings.radius = 0.15;  // 0.3 m wide: fits the 0.5 m door on 0.1 m cells
  thin.settings.cell_size = 0.1;
  CHECK_FALSE(edgesAcross(test::bakeOne(mesh, thin, 2).graph, 50.1, -5.25, -4.75).empty());
}

TEST_CASE("maze: the sealed room is its own component", "[nav][bake][samples]") {
  const auto baked = test::bakeOne(sampleMesh("maze"), sampleAgent("maze"), 2);
  const auto& g = baked.graph;
  const uint32_t entrance = at(g, 0.6, 0, 0.6), exit = at(g, 12.7, 0, 12.7), sealed = at(g, 17.5, 0, 3.5);
  REQUIRE(entrance != kNoNode);
  REQUIRE(exit != kNoNode);
  REQUIRE(sealed != kNoNode);
  CHECK(g.canReach(entrance, exit));
  CHECK(g.canReach(exit, entrance));
  CHECK(g.region[entrance] == g.region[exit]);
  // Wall tops are floors too (a 0.1 m top has standing room above it); with max_drop 1.5 they
  // drop nowhere (the walls are 2 m tall), so the sealed room is its own component: a path into
  // it is rejected by component, in O(1) (with the 2 m drops it shared the maze's component
  // through the wall tops, rejected by region instead).
  CHECK(g.component[sealed] != g.component[entrance]);
  CHECK(g.component[entrance] == g.component[exit]);
  CHECK_FALSE(g.canReach(entrance, sealed));
  CHECK_FALSE(g.canReach(sealed, entrance));
  CHECK(g.validate().empty());
  REQUIRE(g.fields.size() == 1);
  CHECK(std::isfinite(g.fields[0].distance[exit]));
  CHECK(g.fields[0].distance[exit] > 12.0 * 1.1 * std::sqrt(2.0));  // longer than the straight line
  CHECK(std::isinf(g.fields[0].distance[sealed]));
}
