// The column and edge rules of the bake (spec: character-movement-and-navigation.md, "Surface
// columns instead of a single height field", "Search edges, costs, and waypoints";
// grid-pathfinding-library.md, "Heights, cliffs and step limits", "Off-mesh links"), each on a
// tiny inline level.

#include <catch2/catch.hpp>

#include <set>

#include <cmath>
#include <limits>

#include "bake_fixtures.h"
#include "strata/nav/column_builder.h"
#include "strata/nav/layered_search.h"
#include "strata/nav/nav_queries.h"
#include "strata/sim/query_index.h"

using namespace strata;
using strata::nav::EdgeKind;
using strata::nav::kNoNode;
using strata::test::bakeOne;
using strata::test::MeshBuilder;
using strata::test::nodeNear;
using strata::test::nodesAt;
using strata::test::testAgent;

namespace {

constexpr int kEast = 0, kWest = 4;

/// True when some edge (any kind) between nodes at or above min_height leads from a node with
/// centre x < wall_x to one with x > wall_x or back.
bool anyEdgeCrosses(const nav::LayeredGraph& g, double wall_x, double min_height = -1e9) {
  for (uint32_t n = 0; n < g.nodeCount(); ++n)
    for (int d = 0; d < nav::kDirectionCount; ++d) {
      const uint32_t m = g.neighborOf(n, d);
      if (m == kNoNode || g.height[n] < min_height || g.height[m] < min_height) continue;
      const double a = g.nodePosition(n).x, b = g.nodePosition(m).x;
      if ((a < wall_x) != (b < wall_x)) return true;
    }
  return false;
}

}  // namespace

TEST_CASE("a flat floor gives one node per column, walk edges all round, one component", "[nav][bake]") {
  // 5 x 5 m floor at y = 0, 0.25 m cells: 20 x 20 columns with a floor.
  MeshBuilder level;
  level.floor(0, 0, 5, 5, 0);
  const auto baked = bakeOne(level.mesh(), testAgent());
  const auto& g = baked.graph;
  CHECK(g.nodeCount() == 400);
  CHECK(g.component_count == 1);
  CHECK(g.validate().empty());
  const uint32_t centre = nodeNear(g, 2.4, 0, 2.4);
  REQUIRE(centre != kNoNode);
  for (int d = 0; d < nav::kDirectionCount; ++d) {
    CHECK(g.edgeKind(centre, d) == EdgeKind::Walk);
    CHECK(g.edgeCost(centre, d) == Approx(nav::isDiagonal(d) ? 0.25 * std::sqrt(2.0) : 0.25));
  }
  // Clearance: the baked radius on the border, growing inward by the route distance.
  const uint32_t corner = nodeNear(g, 0.1, 0, 0.1);
  CHECK(g.clearance[corner] == Approx(0.3));
  CHECK((g.flags[corner] & nav::kNodeBorder) != 0);
  CHECK(g.clearance[centre] == Approx(0.3 + 9 * 0.25));
  CHECK(std::isinf(g.headroom[centre]));
  CHECK(g.normal[centre].y == Approx(1.0));
}

TEST_CASE("stacked floors at the same x/z stay distinct, bottom to top, with headroom", "[nav][bake]") {
  // Ground at 0 under a 0.2 m slab whose top is at 3: two floors in the overlap.
  MeshBuilder level;
  level.floor(0, 0, 4, 4, 0).box({1, 2.8, 1}, {3, 3.0, 3});
  const auto baked = bakeOne(level.mesh(), testAgent());
  const auto& g = baked.graph;
  const auto nodes = nodesAt(g, 2.1, 2.1);
  REQUIRE(nodes.size() == 2);
  CHECK(g.height[nodes[0]] == Approx(0.0));
  CHECK(g.height[nodes[1]] == Approx(3.0));
  CHECK(g.headroom[nodes[0]] == Approx(2.8));
  CHECK(std::isinf(g.headroom[nodes[1]]));
  // 3 m apart: no step, jump (1 m) or drop (2 m) joins them.
  CHECK(g.component[nodes[0]] != g.component[nodes[1]]);
}

TEST_CASE("a level floor's nodes stand exactly at its height", "[nav][bake][column]") {
  // Storeys of boxes at odd offsets: the ray arithmetic through a column centre leaves heights
  // like -1.8e-15 for a floor at 0 (an audit saw it in `query nearest`'s JSON); a level
  // triangle's nodes take its vertices' height.
  MeshBuilder level;
  level.box({-3.1, -0.2, -2.7}, {3.3, 0, 3.9}).box({-3.1, 2.0, -2.7}, {3.3, 2.2, 3.9}).box({-3.1, 4.9, -2.7}, {3.3, 5.3, 3.9});
  level.quad({3.3, 0, -2.7}, {3.3, 0, 3.9}, {7.3, 1.7, 3.9}, {7.3, 1.7, -2.7}, {-0.39, 0.92, 0});  // a ramp: heights vary
  const auto baked = bakeOne(level.mesh(), testAgent());
  const auto& g = baked.graph;
  std::size_t level_nodes = 0;
  for (uint32_t n = 0; n < g.nodeCount(); ++n) {
    if (g.nodePosition(n).x > 3.3) continue;  // the ramp
    ++level_nodes;
    const float h = g.height[n];
    INFO("node " << n << " height " << h);
    CHECK((h == 0.0f || h == 2.2f || h == 5.3f));
  }
  CHECK(level_nodes > 500);
}

TEST_CASE("surfaces closer than the merge distance are one floor", "[nav][bake][column]") {
  // Synthetic hits through an empty world (standing room always free).
  sim::TriangleMesh empty;
  empty.labels = {"default"};
  empty.tags = {""};
  const sim::QueryIndex index(empty);
  nav::AgentSettings settings;
  nav::GridFrame grid;
  const sim::Vec3 up{0, 1, 0}, down{0, -1, 0};
  std::vector<nav::ColumnFloor> floors;
  SECTION("3 cm apart (below the 5.6 cm default): merged at the upper height") {
    const nav::ColumnBuilder builder(empty, index, settings, grid);
    std::vector<nav::SurfaceHit> hits{{0.97, up, 1}, {1.0, up, 0}};
    builder.floorsFromHits(hits, 0, 0, floors);
    REQUIRE(floors.size() == 1);
    CHECK(floors[0].height == 1.0);
    CHECK(floors[0].triangle == 0);
  }
  SECTION("merge distance 0 keeps both apart, and the lower one has no standing room") {
    settings.merge_distance = 0;
    const nav::ColumnBuilder builder(empty, index, settings, grid);
    std::vector<nav::SurfaceHit> hits{{0.97, up, 1}, {1.0, up, 0}};
    builder.floorsFromHits(hits, 0, 0, floors);
    REQUIRE(floors.size() == 1);  // 0.97 has the other surface 3 cm over it, under the standing box
    CHECK(floors[0].height == 1.0);
    std::vector<nav::SurfaceHit> apart{{0.97, up, 1}, {3.0, up, 0}};
    builder.floorsFromHits(apart, 0, 0, floors);
    REQUIRE(floors.size() == 2);
    CHECK(floors[0].height == 0.97);  // ascending
    CHECK(floors[0].headroom == Approx(2.03));
    // One surface hit twice (the edge two triangles share, coincident triangles) is one floor
    // also at merge distance 0 (each column on a quad's diagonal held two nodes: an audit).
    std::vector<nav::SurfaceHit> twice{{1.0, up, 1}, {1.0, up, 0}, {1.0, up, 2}};
    builder.floorsFromHits(twice, 0, 0, floors);
    REQUIRE(floors.size() == 1);
    CHECK(floors[0].triangle == 0);
  }
  SECTION("downward-facing and steep hits are never floors but bound headroom") {
    const nav::ColumnBuilder builder(empty, index, settings, grid);
    const sim::Vec3 steep = sim::normalize({1, 0.5, 0});  // ~63 degrees
    std::vector<nav::SurfaceHit> hits{{2.5, down, 2}, {1.0, steep, 1}, {0.0, up, 0}};
    builder.floorsFromHits(hits, 0, 0, floors);
    REQUIRE(floors.size() == 1);
    CHECK(floors[0].height == 0.0);
    CHECK(floors[0].headroom == Approx(1.0));
  }
}

TEST_CASE("floors exactly the merge distance apart stay two in every column", "[nav][bake][column]") {
  // An audit: floors 0.5 m apart at merge_distance 0.5 merged in 15 of 100 columns, as their
  // hits' rounding fell (a hole pattern that lengthened routes by 14 %).
  for (const double base : {0.0, 10.0, -3.7}) {
    for (const double gap : {0.5, 0.25}) {
      INFO("floors at " << base << " and " << base + gap);
      test::MeshBuilder level;
      level.floor(0, 0, 3, 3, base);
      level.floor(0, 0, 3, 3, base + gap);
      nav::AgentProfile agent = test::testAgent();
      agent.settings.cell_size = 0.3;
      agent.settings.height = gap - 0.05;
      agent.settings.step_height = 0.1;
      agent.settings.merge_distance = gap;
      const auto baked = test::bakeOne(level.mesh(), agent);
      // Closer than the merge distance by a millimetre: one floor in each column of the floors.
      test::MeshBuilder close;
      close.floor(0, 0, 3, 3, base);
      close.floor(0, 0, 3, 3, base + gap - 0.001);
      const std::size_t columns = test::bakeOne(close.mesh(), agent).graph.nodeCount();
      CHECK(columns == 100);  // 3 m at 0.3 m
      CHECK(baked.graph.nodeCount() == 2 * columns);
    }
  }
}

TEST_CASE("floors steeper than max_slope are not walkable - ramps are judged by their surface", "[nav][bake]") {
  // A 30 degree ramp from y 0 to 1.155 over x 0..2 (top face only).
  MeshBuilder level;
  level.ramp(0, 0, 2, 2 * std::tan(M_PI / 6), 0, 2);
  auto agent = testAgent();
  agent.settings.max_slope = 25;
  CHECK(bakeOne(level.mesh(), agent).graph.nodeCount() == 0);
  agent.settings.max_slope = 35;
  const auto baked = bakeOne(level.mesh(), agent);
  const auto& g = baked.graph;
  REQUIRE(g.nodeCount() > 0);
  const uint32_t mid = nodeNear(g, 1.1, 1.1 * std::tan(M_PI / 6), 1.1);
  REQUIRE(mid != kNoNode);
  CHECK(g.height[mid] == Approx(1.125 * std::tan(M_PI / 6)).margin(1e-4));  // exact height at the centre
  CHECK(g.edgeKind(mid, kEast) == EdgeKind::Walk);  // 0.144 m rise per 0.25 m column
  CHECK(g.normal[mid].y == Approx(std::cos(M_PI / 6)).margin(1e-5));
}

TEST_CASE("far up a ramp rising just under step_height a column still walks - the stored heights rounding is in the limit", "[nav][bake]") {
  // An audit: 300 km up, a ramp rising 0.3953 m per 0.5 m column (corners exact in float32)
  // stored column heights 0.406 m apart (float32's spacing there is 3.1 cm), over step_height
  // plus 1 mm: the bake made jumps of the walks, and routes up the ramp cost 31 instead of 18.
  for (const double up : {0.0, 1e5, 3e5, 999000.0}) {
    INFO("y " << up);
    MeshBuilder level;
    const double rise = 7.90625;  // over 20 columns
    level.floor(-3, 0, 0, 4, up).ramp(0, up, 10, up + rise, 0, 4).floor(10, 0, 13, 4, up + rise);
    auto agent = testAgent();
    agent.settings.cell_size = 0.5;
    agent.settings.radius = 0.3;
    agent.settings.step_height = 0.4;
    agent.settings.max_slope = 45;
    const auto baked = bakeOne(level.mesh(), agent);
    const auto& g = baked.graph;
    int ramp = 0;
    for (uint32_t n = 0; n < g.nodeCount(); ++n) {
      const auto p = g.nodePosition(n);
      if (p.x < 0.5 || p.x > 9.5 || p.z < 1 || p.z > 3) continue;
      INFO(p.x << "," << p.y << "," << p.z);
      CHECK(g.edgeKind(n, kEast) == EdgeKind::Walk);
      CHECK(g.edgeKind(n, kWest) == EdgeKind::Walk);
      ++ramp;
    }
    CHECK(ramp == 18 * 4);  // centres x 0.75 .. 9.25, z 1.25 .. 2.75
  }
  // The allowance is the spacing at the heights compared, not at the mesh's largest: a triangle
  // 900 km up made a ledge 1.05 m high at the origin a jump for a 1.0 m jump_height (the
  // re-audit), and rises over the step and jump limits near the origin still fail there.
  for (const double far : {0.0, 900000.0, -900000.0}) {
    INFO("far triangle at y " << far);
    MeshBuilder level;
    level.floor(0, 0, 3, 4, 0).box({3, 0, 0}, {6, 1.05, 4});
    if (far != 0) level.floor(500, 500, 501, 501, far);
    auto agent = testAgent();
    agent.settings.can_jump = true;
    agent.settings.jump_height = 1.0;
    agent.settings.max_drop = 2.0;
    const auto baked = bakeOne(level.mesh(), agent);
    const auto& g = baked.graph;
    int ledge = 0;  // edges from the ground up onto the box: nothing climbs the 1.05 m ledge
    for (uint32_t n = 0; n < g.nodeCount(); ++n)
      for (int d = 0; d < nav::kDirectionCount; ++d) {
        const uint32_t m = g.neighborOf(n, d);
        ledge += m != kNoNode && g.height[m] > 1 && g.height[n] < 1;
      }
    for (const auto& link : g.links) CHECK_FALSE((g.height[link.from_node] < 1 && g.height[link.to_node] > 1));
    CHECK(ledge == 0);
  }
}

TEST_CASE("a ramp at exactly max_slope is walkable, and one a hundredth of a degree steeper is not", "[nav][bake]") {
  // 45 degrees: the normal's y comes out 0.7071067811865475, 1 ulp below cos 45 (the ramp baked
  // no floors: an audit); 40 degrees with its corners in float32 too.
  for (const double degrees : {45.0, 40.0}) {
    INFO(degrees << " degrees");
    MeshBuilder level;
    level.ramp(0, 0, 2, 2 * std::tan(degrees * M_PI / 180), 0, 2);
    auto agent = testAgent();
    agent.settings.max_slope = degrees;
    CHECK(bakeOne(level.mesh(), agent).graph.nodeCount() > 20);
    agent.settings.max_slope = degrees - 0.01;
    CHECK(bakeOne(level.mesh(), agent).graph.nodeCount() == 0);
  }
  // 2 km from the origin the corners' rounding to float32 tilts a 45-degree ramp to 45.0017
  // degrees (the run 2 m -> 1.99988 m): it was no floor at max_slope 45 (an audit). The rule
  // allows for the corners' rounding, and no more: 0.1 degree steeper is no floor.
  MeshBuilder far;
  far.ramp(2047.93, 0, 2049.93, 2, -2, 2);
  auto agent = testAgent();
  agent.settings.max_slope = 45;
  CHECK(bakeOne(far.mesh(), agent).graph.nodeCount() > 20);
  agent.settings.max_slope = 44.9;
  CHECK(bakeOne(far.mesh(), agent).graph.nodeCount() == 0);
}

TEST_CASE("a wall exactly touching a diagonal move's swept band blocks it wherever it stands", "[nav][bake]") {
  // Touching counts as blocked. A thin wall at 45 degrees whose face lies exactly on the side of
  // the band swept by a north-east move (x - z = 6.25 from the centre line x - z = 6, radius
  // 0.125 at 0.5 m cells): the rounded band let the move through here and blocked it 4.5 m west
  // (an audit: 14 of 36 such walls walked through). All corners are exact binary fractions.
  auto agent = testAgent();
  agent.settings.radius = 0.125;
  agent.settings.cell_size = 0.5;
  agent.settings.can_jump = false;
  for (const double shift : {0.0, -4.5}) {
    INFO("wall shifted " << shift);
    MeshBuilder level;
    level.floor(0, 0, 9, 3, 0);
    auto at = [&](double x, double y, double z) { return sim::Vec3{x + shift, y, z}; };
    const double p[4][2] = {{6.90625, 0.65625}, {7.0625, 0.8125}, {7.078125, 0.796875}, {6.921875, 0.640625}};
    for (int i = 0; i < 4; ++i) {
      const auto& a = p[i];
      const auto& b = p[(i + 1) % 4];
      const sim::Vec3 outward{b[1] - a[1], 0, a[0] - b[0]};  // the right of a -> b (corners run clockwise seen from above)
      level.quad(at(a[0], 0, a[1]), at(b[0], 0, b[1]), at(b[0], 2, b[1]), at(a[0], 2, a[1]), outward);
    }
    level.quad(at(p[0][0], 2, p[0][1]), at(p[1][0], 2, p[1][1]), at(p[2][0], 2, p[2][1]), at(p[3][0], 2, p[3][1]), {0, 1, 0});
    const auto baked = bakeOne(level.mesh(), agent);
    const uint32_t from = nodeNear(baked.graph, 6.75 + shift, 0, 0.75);
    REQUIRE(from != kNoNode);
    constexpr int kNorthEast = 1;
    CHECK(baked.graph.edgeKind(from, kNorthEast) != EdgeKind::Walk);
    const uint32_t to = nodeNear(baked.graph, 7.25 + shift, 0, 1.25);
    REQUIRE(to != kNoNode);
    CHECK(baked.graph.edgeKind(to, nav::oppositeDirection(kNorthEast)) != EdgeKind::Walk);
    // The same move three columns north, clear of the wall, walks.
    const uint32_t clear = nodeNear(baked.graph, 6.75 + shift, 0, 2.25);
    REQUIRE(clear != kNoNode);
    CHECK(baked.graph.edgeKind(clear, kNorthEast) == EdgeKind::Walk);
  }
}

TEST_CASE("a low ceiling removes standing room", "[nav][bake]") {
  // Ceiling slab with its underside 1.5 m above the ground over x 2..4.
  MeshBuilder level;
  level.floor(0, 0, 6, 4, 0).box({2, 1.5, 0}, {4, 1.7, 4});
  auto agent = testAgent();
  agent.settings.height = 1.8;
  auto tall = bakeOne(level.mesh(), agent);
  auto under = nodesAt(tall.graph, 3.1, 2.1);
  REQUIRE(under.size() == 1);  // only the slab's top
  CHECK(tall.graph.height[under[0]] == Approx(1.7));
  agent.settings.height = 1.4;
  auto short_agent = bakeOne(level.mesh(), agent);
  under = nodesAt(short_agent.graph, 3.1, 2.1);
  REQUIRE(under.size() == 2);
  CHECK(short_agent.graph.height[under[0]] == Approx(0.0));
  CHECK(short_agent.graph.headroom[under[0]] == Approx(1.5));
}

TEST_CASE("a step as high as the agent's standing ranges allow is walked - unless a wall stands between", "[nav][bake]") {
  // A hunt: with step_height 0.5 and height 1.0 a 0.5 m ledge leaves the two ends' standing
  // ranges (0.501..1.0 over the ground, 1.001..1.5 over the ledge) no height in common; the walk
  // rule's sweep was empty and counted as blocked, the gap search took the rise for a step: no
  // edge, two components. Now the move is free when either end's standing range sweeps free;
  // a thin wall between the columns (outside both standing boxes) still blocks.
  auto agent = testAgent();
  agent.settings.radius = 0.1;
  agent.settings.cell_size = 0.5;
  agent.settings.step_height = 0.5;
  agent.settings.height = 1.0;
  agent.settings.can_jump = false;
  for (const bool wall : {false, true}) {
    INFO("wall " << wall);
    MeshBuilder level;
    level.floor(0, 0, 2, 3, 0).box({2, 0, 0}, {4, 0.5, 3});
    if (wall) level.box({1.995, 0, 0}, {2.005, 3, 3});
    const auto baked = bakeOne(level.mesh(), agent);
    const auto& g = baked.graph;
    int up = 0, down = 0;
    for (uint32_t n = 0; n < g.nodeCount(); ++n)
      for (int d = 0; d < nav::kDirectionCount; ++d) {
        if (g.edgeKind(n, d) != EdgeKind::Walk) continue;
        const uint32_t m = g.neighborOf(n, d);
        up += g.height[m] > g.height[n] + 0.25;
        down += g.height[m] < g.height[n] - 0.25;
      }
    if (wall) {
      CHECK(up == 0);
      CHECK(g.component_count == 2);
    } else {
      CHECK(up > 0);
      CHECK(up == down);  // the same rule both ways
      CHECK(g.component_count == 1);
    }
  }
}

TEST_CASE("a ceiling exactly at the agent's height blocks standing and walking wherever the level stands", "[nav][bake]") {
  // Touching counts as blocked. An audit: with the ground at -2 and the ceiling at -0.5 (1.5 m,
  // the agent's height) the standing box, held as centre and half extents, reached
  // -0.5000000000000001 and every column under the ceiling kept its ground; at 0 and 1.5 four
  // columns did. A beam whose underside is at the agent's height was walked under likewise.
  auto agent = testAgent();
  agent.settings.height = 1.5;
  for (const double y : {-2.0, 0.0, -1.0, 0.5, 3.0, 7.0, -3.7, 11.3}) {
    INFO("ground at " << y);
    MeshBuilder level;
    level.floor(-5, -5, 5, 5, y).quad({-2, y + 1.5, -2}, {2, y + 1.5, -2}, {2, y + 1.5, 2}, {-2, y + 1.5, 2}, {0, -1, 0});
    const auto baked = bakeOne(level.mesh(), agent);
    const auto& g = baked.graph;
    for (uint32_t n = 0; n < g.nodeCount(); ++n) {
      const auto p = g.nodePosition(n);
      INFO("node at " << p.x << "," << p.z);
      CHECK((std::fabs(p.x) > 2 + agent.settings.radius - 1e-9 || std::fabs(p.z) > 2 + agent.settings.radius - 1e-9));
    }
    CHECK(g.component_count == 1);
    // A beam 0.125 m wide across the floor, its underside at the agent's height.
    MeshBuilder beam;
    beam.floor(-5, -5, 5, 5, y).box({0.9375, y + 1.5, -5}, {1.0625, y + 1.75, 5});
    auto narrow = agent;
    narrow.settings.radius = 0.1;
    narrow.settings.cell_size = 1;
    CHECK(bakeOne(beam.mesh(), narrow).graph.component_count == 2);
  }
}

TEST_CASE("a plate lower than the step height over the floor leaves no standing room under it", "[nav][bake]") {
  // A 5 cm plate from 0.30 to 0.35 m over x 2..4: the standing box (from the step height, 0.4 m,
  // up) does not reach it, but the agent's feet would be inside it. A 0.3 m lip beside the
  // centre (x 4.5..6) still leaves room next to it.
  MeshBuilder level;
  level.floor(0, 0, 8, 4, 0).box({2, 0.30, 0}, {4, 0.35, 4}).box({4.5, 0, 0}, {6, 0.3, 4});
  auto baked = bakeOne(level.mesh(), testAgent());
  const auto under = nodesAt(baked.graph, 3.1, 2.1);
  REQUIRE(under.size() == 1);  // only the plate's top
  CHECK(baked.graph.height[under[0]] == Approx(0.35));
  const auto beside = nodesAt(baked.graph, 4.35, 2.1);  // 0.15 m from the lip
  REQUIRE(beside.size() == 1);
  CHECK(baked.graph.height[beside[0]] == Approx(0.0));
}

TEST_CASE("a floor inside a solid has no node - a surface facing down at the floor alone does not bury it", "[nav][bake][column]") {
  const sim::Vec3 down{0, -1, 0};
  auto agent = testAgent();
  auto heights = [](const nav::LayeredGraph& g, double x, double z) {
    std::vector<double> out;
    for (const uint32_t n : nodesAt(g, x, z)) out.push_back(g.height[n]);
    return out;
  };
  SECTION("a double-sided floor is a floor") {
    // Both windings of one quad: the back face at the floor's own height removed every node.
    MeshBuilder one, both;
    one.floor(0, 0, 6, 6, 0);
    both.floor(0, 0, 6, 6, 0).quad({0, 0, 0}, {0, 0, 6}, {6, 0, 6}, {6, 0, 0}, down);
    const auto single = bakeOne(one.mesh(), agent), twice = bakeOne(both.mesh(), agent);
    CHECK(twice.graph.nodeCount() == single.graph.nodeCount());
    CHECK(twice.graph.nodeCount() > 400);
  }
  SECTION("a double-sided bridge plane and the ground under it are both floors") {
    MeshBuilder level;
    level.floor(0, 0, 10, 4, 0).floor(2, 0, 8, 4, 3).quad({2, 3, 0}, {2, 3, 4}, {8, 3, 4}, {8, 3, 0}, down);
    const auto baked = bakeOne(level.mesh(), agent);
    CHECK(heights(baked.graph, 5.1, 2.1) == std::vector<double>{0.0, 3.0});
  }
  SECTION("stacked rooms: the upper floor on the lower room's ceiling is a floor") {
    // Two inward-facing rooms, y 0..3 and 3..6: the lower ceiling (facing down) and the upper
    // floor (facing up) coincide at 3.
    MeshBuilder level;
    for (const double y : {0.0, 3.0}) {
      level.floor(0, 0, 6, 6, y).quad({0, y + 3, 0}, {0, y + 3, 6}, {6, y + 3, 6}, {6, y + 3, 0}, down);
      level.quad({0, y, 0}, {0, y + 3, 0}, {0, y + 3, 6}, {0, y, 6}, {1, 0, 0});
      level.quad({6, y, 0}, {6, y + 3, 0}, {6, y + 3, 6}, {6, y, 6}, {-1, 0, 0});
      level.quad({0, y, 0}, {6, y, 0}, {6, y + 3, 0}, {0, y + 3, 0}, {0, 0, 1});
      level.quad({0, y, 6}, {6, y, 6}, {6, y + 3, 6}, {0, y + 3, 6}, {0, 0, -1});
    }
    const auto baked = bakeOne(level.mesh(), agent);
    CHECK(heights(baked.graph, 3.1, 3.1) == std::vector<double>{0.0, 3.0});
  }
  SECTION("a tall stack of boxes, each with a plate inside: every plate is inside its box") {
    // 40 boxes 2.5 m tall, 3 m apart, each holding a plate 0.2 m over its bottom (2.3 m of
    // headroom: only the solid rule removes it): 120 surfaces over each column, more than the
    // column builder scans hit by hit for a piece's next surface below a floor (it follows each
    // piece's own hits there; an audit's 8,000 stacked plates took 54 s that way). Only the top
    // box's top is a floor (every other top is 0.5 m under the next box).
    MeshBuilder level;
    for (int k = 0; k < 40; ++k) {
      const double y = 3.0 * k;
      level.box({0, y, 0}, {4, y + 2.5, 4}).floor(0.5, 0.5, 3.5, 3.5, y + 0.2);
    }
    const auto baked = bakeOne(level.mesh(), agent);
    for (const double at : {1.05, 2.05, 2.95})
      CHECK(heights(baked.graph, at, 2.05) == std::vector<double>{119.5});
  }
  SECTION("a box resting on the floor or sunk through it covers the floor inside it") {
    // A 2 m box over x, z 2..4 (wider than the standing box, whose walls it cannot touch),
    // resting on the floor, sunk 1 mm, and sunk 1 m: only its top is a floor there. The sunk
    // ones left 16 nodes at 0 inside the box, an island.
    for (const double bottom : {0.0, -0.001, -1.0}) {
      INFO("bottom " << bottom);
      MeshBuilder level;
      level.floor(0, 0, 6, 6, 0).box({2, bottom, 2}, {4, 3, 4});
      const auto baked = bakeOne(level.mesh(), agent);
      CHECK(heights(baked.graph, 3.1, 3.1) == std::vector<double>{3.0});
      CHECK(heights(baked.graph, 1.1, 3.1) == std::vector<double>{0.0});
      std::set<uint32_t> components(baked.graph.component.begin(), baked.graph.component.end());
      CHECK(components.size() == 2);  // the floor round the box and the box's top
    }
  }
  SECTION("a solid whose top something else touches still covers the floor") {
    // A pillar from the floor to a ceiling slab, and a crate on a crate: the first level above
    // the floor holds the pillar's top and the slab's underside (or the upper crate's bottom),
    // and a surface facing down there made the lower solid's top not count (121 and 25 nodes
    // left inside).
    MeshBuilder pillar;
    pillar.floor(0, 0, 8, 8, 0).box({2, 0, 2}, {6, 3, 6}).box({0, 3, 0}, {8, 3.5, 8});
    CHECK(heights(bakeOne(pillar.mesh(), agent).graph, 4.1, 4.1) == std::vector<double>{3.5});
    MeshBuilder crates;
    crates.floor(0, 0, 8, 8, 0).box({2, 0, 2}, {6, 2.5, 6}).box({3, 2.5, 3}, {5, 3.5, 5});
    CHECK(heights(bakeOne(crates.mesh(), agent).graph, 2.6, 2.6) == std::vector<double>{2.5});
    CHECK(heights(bakeOne(crates.mesh(), agent).graph, 4.1, 4.1) == std::vector<double>{3.5});
    // Crates stacked corner on corner share vertices, so they are one piece, whose first level
    // over the ground holds the lower crate's top and the upper one's bottom: the ground inside
    // the lower crate is covered all the same (it stayed, an island: an audit). The lower crate's
    // top inside the upper one is the piece's own floor and stays (a piece's own floor is never
    // inside it: parameters.md).
    MeshBuilder welded;
    welded.floor(0, 0, 8, 8, 0).box({2, 0, 2}, {6, 2.5, 6}).box({2, 2.5, 2}, {6, 5, 6});
    CHECK(heights(bakeOne(welded.mesh(), agent).graph, 4.1, 4.1) == std::vector<double>{2.5, 5.0});
    CHECK(heights(bakeOne(welded.mesh(), agent).graph, 1.1, 4.1) == std::vector<double>{0.0});
  }
  SECTION("a double-sided ground joined to a deck above keeps the ground under the deck") {
    // Ground both ways round, a single-sided deck at 3 m reached by ramps that share the
    // ground's corners (one piece): the ground's own back face at its height made it 'inside'.
    MeshBuilder level;
    level.floor(0, 0, 15, 4, 0).quad({0, 0, 0}, {0, 0, 4}, {15, 0, 4}, {15, 0, 0}, down);
    level.quad({0, 0, 0}, {0, 0, 4}, {3, 3, 4}, {3, 3, 0}, {-1, 1, 0});
    level.floor(3, 0, 7, 4, 3);
    level.quad({7, 3, 0}, {7, 3, 4}, {10, 0, 4}, {10, 0, 0}, {1, 1, 0});
    CHECK(heights(bakeOne(level.mesh(), agent).graph, 5.1, 2.1) == std::vector<double>{0.0, 3.0});
  }
  SECTION("a slab's top under a platform without an underside stays a floor") {
    // The ground is a closed slab (top at 0, bottom at -0.5), a platform above it a single
    // up-facing plane: the first surface over the ground faces up and the first one under it
    // faces down, but they belong to different pieces, so the ground is not inside anything.
    MeshBuilder level;
    level.box({0, -0.5, 0}, {6, 0, 6}).floor(2, 2, 4, 4, 3);
    const auto baked = bakeOne(level.mesh(), agent);
    CHECK(heights(baked.graph, 3.1, 3.1) == std::vector<double>{0.0, 3.0});
  }
}

TEST_CASE("a wall thinner than one column blocks every edge across it", "[nav][bake]") {
  // 4 cm wall, 2 m tall, across the whole floor at x 2.98..3.02 (no column centre inside it).
  MeshBuilder level;
  level.floor(0, 0, 6, 4, 0).box({2.98, 0, 0}, {3.02, 2, 4});
  auto agent = testAgent();
  agent.settings.radius = 0.1;  // nodes right beside the wall exist
  const auto baked = bakeOne(level.mesh(), agent);
  CHECK(nodeNear(baked.graph, 2.875, 0, 2) != kNoNode);
  CHECK(nodeNear(baked.graph, 3.125, 0, 2) != kNoNode);
  CHECK_FALSE(anyEdgeCrosses(baked.graph, 3.0));
  CHECK(baked.graph.component_count == 2);
  // The same wall only 0.3 m tall is a lip below the step height: walked over.
  MeshBuilder lip;
  lip.floor(0, 0, 6, 4, 0).box({2.98, 0, 0}, {3.02, 0.3, 4});
  const auto over = bakeOne(lip.mesh(), agent);
  CHECK(over.graph.edgeKind(nodeNear(over.graph, 2.875, 0, 2), kEast) == EdgeKind::Walk);
}

TEST_CASE("step height gates walk edges - higher ledges need a jump, lower ones a drop", "[nav][bake]") {
  auto levelWithBlock = [](double h) {
    MeshBuilder level;
    level.floor(0, 0, 3, 3, 0).box({3, 0, 0}, {6, h, 3});
    return level;
  };
  auto agent = testAgent();
  agent.settings.step_height = 0.4;
  agent.settings.jump_height = 1.0;
  SECTION("0.3 m: walk both ways between adjacent columns") {
    const auto baked = bakeOne(levelWithBlock(0.3).mesh(), agent);
    const uint32_t low = nodeNear(baked.graph, 2.875, 0, 1.5), high = nodeNear(baked.graph, 3.125, 0.3, 1.5);
    REQUIRE(low != kNoNode);
    REQUIRE(high != kNoNode);
    CHECK(baked.graph.edgeKind(low, kEast) == EdgeKind::Walk);
    CHECK(baked.graph.neighborOf(low, kEast) == high);
    CHECK(baked.graph.edgeKind(high, kWest) == EdgeKind::Walk);
    CHECK(baked.graph.edgeCost(low, kEast) == Approx(0.25 + 0.15));  // horizontal + half the rise
  }
  SECTION("0.6 m: a jump up and a drop down, across the clearance gap at the foot") {
    const auto baked = bakeOne(levelWithBlock(0.6).mesh(), agent);
    const auto& g = baked.graph;
    CHECK(nodeNear(g, 2.875, 0, 1.5) == kNoNode);  // no standing room against the block
    const uint32_t low = nodeNear(g, 2.625, 0, 1.5), high = nodeNear(g, 3.125, 0.6, 1.5);
    REQUIRE(low != kNoNode);
    REQUIRE(high != kNoNode);
    CHECK(g.edgeKind(low, kEast) == EdgeKind::Jump);
    CHECK(g.neighborOf(low, kEast) == high);
    CHECK(g.edgeCost(low, kEast) == Approx(0.5 + 0.3 + agent.settings.jump_penalty));
    CHECK(g.edgeKind(high, kWest) == EdgeKind::Drop);
    CHECK(g.neighborOf(high, kWest) == low);
    CHECK(g.edgeCost(high, kWest) == Approx(0.5 + 0.3 + agent.settings.drop_penalty));  // horizontal + half the fall + penalty
    agent.settings.can_jump = false;
    const auto no_jump = bakeOne(levelWithBlock(0.6).mesh(), agent);
    CHECK(no_jump.graph.edgeKind(nodeNear(no_jump.graph, 2.625, 0, 1.5), kEast) == EdgeKind::None);
    CHECK(no_jump.graph.edgeKind(nodeNear(no_jump.graph, 3.125, 0.6, 1.5), kWest) == EdgeKind::Drop);
  }
  SECTION("1.2 m: above the jump height, and 2.5 m: below the allowed drop") {
    auto baked = bakeOne(levelWithBlock(1.2).mesh(), agent);
    const uint32_t bottom = nodeNear(baked.graph, 2.625, 0, 1.5), top = nodeNear(baked.graph, 3.125, 1.2, 1.5);
    CHECK(baked.graph.edgeKind(bottom, kEast) == EdgeKind::None);
    CHECK(baked.graph.edgeKind(top, kWest) == EdgeKind::Drop);
    // One-way: the same component, different regions, reachable downward only.
    CHECK(baked.graph.component[bottom] == baked.graph.component[top]);
    CHECK(baked.graph.region[bottom] != baked.graph.region[top]);
    CHECK(baked.graph.canReach(top, bottom));
    CHECK_FALSE(baked.graph.canReach(bottom, top));
    baked = bakeOne(levelWithBlock(2.5).mesh(), agent);
    CHECK(baked.graph.edgeKind(nodeNear(baked.graph, 3.125, 2.5, 1.5), kWest) == EdgeKind::None);
    CHECK(baked.graph.component_count == 2);
  }
}

namespace {
// Floors at x 0..3 (height 0) and 4..7 (height `far`), a pit 5 m down between them.
sim::TriangleMesh gapLevel(double far) {
  MeshBuilder level;
  level.floor(0, 0, 3, 2, 0).floor(4, 0, 7, 2, far).floor(3, 0, 4, 2, -5);
  return level.mesh();
}

// The take-off node at the pit's west rim, whose east edge jumps to the far floor's first column.
uint32_t gapTakeOff(const nav::LayeredGraph& g) {
  const uint32_t edge = nodeNear(g, 2.875, 0, 1);
  REQUIRE(edge != kNoNode);
  REQUIRE(g.edgeKind(edge, kEast) == EdgeKind::Jump);
  CHECK(g.nodePosition(g.neighborOf(edge, kEast)).x == Approx(4.125));
  return edge;
}
}  // namespace

TEST_CASE("a gap is crossed only by a jump edge within the jump distance", "[nav][bake]") {
  const sim::TriangleMesh level = gapLevel(0);
  auto agent = testAgent();
  const auto baked = bakeOne(level, agent);
  const auto& g = baked.graph;
  const uint32_t edge = gapTakeOff(g);
  CHECK(g.edgeKind(g.neighborOf(edge, kEast), kWest) == EdgeKind::Jump);
  // Every edge over the pit is a jump.
  for (uint32_t n = 0; n < g.nodeCount(); ++n)
    for (int d = 0; d < nav::kDirectionCount; ++d)
      if (g.neighborOf(n, d) != kNoNode && g.height[n] == 0 && g.height[g.neighborOf(n, d)] == 0) {
        const bool crosses = (g.nodePosition(n).x < 3.5) != (g.nodePosition(g.neighborOf(n, d)).x < 3.5);
        if (crosses) CHECK(g.edgeKind(n, d) == EdgeKind::Jump);
      }
  agent.settings.can_jump = false;
  CHECK_FALSE(anyEdgeCrosses(bakeOne(level, agent).graph, 3.5, -1));
  agent.settings.can_jump = true;
  agent.settings.jump_distance = 0.9;  // shorter than the 1.25 m between the edge columns
  CHECK_FALSE(anyEdgeCrosses(bakeOne(level, agent).graph, 3.5, -1));
}

TEST_CASE("a jump across a gap never lands lower than max_drop - also below step_height", "[nav][bake]") {
  // An audit: with max_drop below step_height (0 or 0.1 m), a jump across a gap still landed up
  // to step_height (0.4 m) lower: a landing within a step of the take-off's level skipped the
  // max_drop test. The far side 0.3 m lower: jumped to with max_drop 0.5, not with 0.1.
  auto agent = testAgent();
  for (double max_drop : {0.5, 0.1}) {
    INFO("max_drop " << max_drop);
    agent.settings.max_drop = max_drop;
    const auto baked = bakeOne(gapLevel(-0.3), agent);
    const auto& g = baked.graph;
    std::size_t down = 0;
    for (uint32_t n = 0; n < g.nodeCount(); ++n)
      for (int d = 0; d < nav::kDirectionCount; ++d) {
        const uint32_t m = g.neighborOf(n, d);
        if (m == kNoNode || g.edgeKind(n, d) == EdgeKind::Walk) continue;  // a walk may step down
        CHECK(g.height[n] - g.height[m] <= max_drop + 0.001);
        down += g.height[n] - g.height[m] > 0.2;
      }
    for (const nav::OffMeshLink& link : g.links) CHECK(g.height[link.from_node] - g.height[link.to_node] <= max_drop + 0.001);
    if (max_drop > 0.3) CHECK(down > 0);
    else CHECK(down == 0);
  }
}

TEST_CASE("a chasm is jumped across the grid's diagonals as along its axes - the gap search looks along all 8 directions",
          "[nav][bake]") {
  // The 2.5 m jump (between column centres) crosses a 1.6 m or 2.0 m chasm along the grid's
  // axes, across its diagonal and at 30 degrees; with the cardinal rays alone, the 2.0 m one
  // turned by 45 degrees (2.8 m along either axis) and by 30 degrees (2.3 m and 4 m) was not
  // crossed. A 2.8 m chasm is never crossed, a 1.6 m one never by a walker.
  const nav::AgentProfile agent = testAgent();
  nav::AgentProfile walker = testAgent();
  walker.settings.can_jump = false;
  nav::LayeredSearchSettings settings;
  nav::SearchState state;
  for (double degrees : {0.0, 30.0, 45.0, 135.0}) {
    for (double width : {1.6, 2.0, 2.8}) {
      INFO(degrees << " degrees, " << width << " m");
      const test::TurnedChasm level = test::turnedChasm(width, degrees);
      const nav::BakedAgent baked = bakeOne(level.mesh, agent);
      const nav::LayeredSearchGraph view(baked.graph, baked.profile.settings);
      const nav::PathResult route = nav::findLayeredPath(view, level.a, level.b, settings, state);
      if (width > 2.5) {
        CHECK(route.failure == nav::PathFailure::NoPath);
        continue;
      }
      REQUIRE(route.ok());
      std::size_t jumps = 0;
      for (const nav::Waypoint& w : route.waypoints) jumps += w.action == nav::MoveAction::Jump;
      CHECK(jumps == 1);
      // The route jumps straight across: no longer than the straight line plus a column or two.
      CHECK(route.length < width + 6 + 2 * agent.settings.cell_size * M_SQRT2 + 0.5);
      const nav::BakedAgent on_foot = bakeOne(level.mesh, walker);
      const nav::LayeredSearchGraph walk_view(on_foot.graph, on_foot.profile.settings);
      CHECK(nav::findLayeredPath(walk_view, level.a, level.b, settings, state).failure == nav::PathFailure::NoPath);
    }
  }
}

TEST_CASE("a drop or jump never passes through geometry in the shaft over its lower end", "[nav][bake]") {
  // A block 1.9 m high (x < 0) over ground, a 6 cm beam over the ground at x 0.52..0.58 from y
  // -0.05 to 0.3: below the sweep at the block's top (which starts at the standing-box bottom,
  // 0.4 m up) and above the standing box of a node on the ground (to 1.8 m over it). A drop
  // landing within the agent's radius of the beam would fall through it (an audit found the
  // edge from the block's rim to the ground at x 0.45); with jump_height 2 the jump back up as
  // well. Landings clear of the beam stay (reached by a jump past the clearance gap).
  MeshBuilder level;
  level.box({-4, -1.9, -3}, {0, 0, 3}).floor(0, -3, 4, 3, -1.9).box({0.52, -0.05, -3}, {0.58, 0.3, 3});
  for (double jump_height : {1.0, 2.0}) {
    INFO("jump_height " << jump_height);
    auto agent = testAgent();
    agent.settings.cell_size = 0.3;
    agent.settings.jump_height = jump_height;
    const auto baked = bakeOne(level.mesh(), agent);
    const auto& g = baked.graph;
    std::size_t down = 0, up = 0;
    for (uint32_t n = 0; n < g.nodeCount(); ++n)
      for (int d = 0; d < nav::kDirectionCount; ++d) {
        const EdgeKind kind = g.edgeKind(n, d);
        if (kind != EdgeKind::Drop && kind != EdgeKind::Jump) continue;
        const uint32_t m = g.neighborOf(n, d);
        const bool falls = g.height[n] > -0.5 && g.height[m] < -1.5, rises = g.height[n] < -1.5 && g.height[m] > -0.5;
        if (!falls && !rises) continue;
        const double lower_x = g.nodePosition(falls ? m : n).x;
        INFO("edge from " << g.nodePosition(n).x << " to " << g.nodePosition(m).x);
        CHECK(std::fabs(lower_x - 0.55) >= 0.03 + agent.settings.radius);  // the shaft clears the beam
        (falls ? down : up) += 1;
      }
    CHECK(down > 0);  // off the rim, landing past the beam
    // No jump up: the ground nodes whose shaft clears the beam have level ground between them
    // and the block, so the gap search stops there (they walk closer first).
    CHECK(up == 0);
  }
}

TEST_CASE("a jump up never passes a lip higher than the jump - a drop steps over it", "[nav][bake]") {
  // Ground at y 0 (x < 0.1 + shift), a block 0.8 m high beyond, and on the block's rim a lip 5 cm
  // thick whose top is 1.1 m up: within a step of the block's top (walking over the rim steps
  // over it, so the drop down stays), but 0.1 m above the 1 m jump (where a column centre falls
  // on the lip, its top is a floor of its own, too high to jump to). The jump up onto the block
  // would carry the feet through the lip, in every direction and wherever the grid falls; a
  // lip 0.95 m up is cleared. Before this rule the sweep at the higher floor left out the step
  // band above it, and every jump up passed the 1.1 m lip.
  auto agent = testAgent();
  agent.settings.cell_size = 0.3;
  agent.settings.step_height = 0.4;
  agent.settings.jump_height = 1.0;
  for (double shift : {0.0, 0.07, 0.14, 0.21}) {
    for (double lip : {1.1, 0.95}) {
      INFO("shift " << shift << " lip " << lip);
      const double rim = 0.1 + shift;
      MeshBuilder level;
      level.floor(-3, -3, rim, 3, 0).box({rim, 0, -3}, {rim + 3, 0.8, 3}).box({rim, 0.8, -3}, {rim + 0.05, lip, 3});
      const auto baked = bakeOne(level.mesh(), agent);
      const auto& g = baked.graph;
      std::size_t up = 0, down = 0;
      for (uint32_t n = 0; n < g.nodeCount(); ++n)
        for (int d = 0; d < nav::kDirectionCount; ++d) {
          const uint32_t m = g.neighborOf(n, d);
          if (m == kNoNode) continue;
          // The block's top, or the lip's where a column centre falls on it.
          if (std::fabs(g.height[n]) < 0.01 && g.height[m] > 0.5) {
            CHECK(g.edgeKind(n, d) == EdgeKind::Jump);
            ++up;
          }
          if (g.height[n] > 0.5 && std::fabs(g.height[m]) < 0.01) ++down;
        }
      CHECK(down > 0);
      if (lip > 1.0) CHECK(up == 0);
      else CHECK(up > 0);
    }
  }
}

TEST_CASE("diagonal jumps and drops keep the limits of the axes", "[nav][bake]") {
  // A platform 0.8 m high (above the step height, within the jump height) on level ground: along
  // the diagonals as along the axes, its rim is jumped up to and dropped from, each edge along
  // the ray of its slot and within the height and distance limits.
  MeshBuilder level;
  level.floor(-6, -6, 6, 6, 0).box({0, 0, 0}, {4, 0.8, 4});
  const auto agent = testAgent();
  const auto baked = bakeOne(level.mesh(), agent);
  const auto& g = baked.graph;
  std::size_t drops = 0, jumps = 0;
  for (uint32_t n = 0; n < g.nodeCount(); ++n)
    for (int d = 1; d < nav::kDirectionCount; d += 2) {
      const EdgeKind kind = g.edgeKind(n, d);
      if (kind == EdgeKind::None || kind == EdgeKind::Walk) continue;
      const uint32_t m = g.neighborOf(n, d);
      const double rise = g.height[m] - g.height[n];
      const auto a = g.nodeColumn(n), b = g.nodeColumn(m);
      const int32_t k = (b[0] - a[0]) * nav::kDirectionDx[d];
      CHECK(k >= 1);  // along the diagonal ray of its slot
      CHECK(b[0] - a[0] == k * nav::kDirectionDx[d]);
      CHECK(b[1] - a[1] == k * nav::kDirectionDz[d]);
      CHECK(std::fabs(rise) > agent.settings.step_height);
      if (kind == EdgeKind::Drop) {
        ++drops;
        CHECK(rise < 0);
        CHECK(-rise <= agent.settings.max_drop + 1e-3);
      } else {
        REQUIRE(kind == EdgeKind::Jump);
        ++jumps;
        CHECK(rise <= agent.settings.jump_height + 1e-3);
        CHECK(k * g.grid.cell_size * M_SQRT2 <= agent.settings.jump_distance + 1e-9);
      }
    }
  CHECK(drops > 0);
  CHECK(jumps > 0);
}

TEST_CASE("a roof high over a gap does not stop the jump across it, a beam in the way does", "[nav][bake]") {
  // The gap search stopped at any column holding a floor at or above the take-off, however high:
  // a roof 20 m up removed the jump (and an on-demand region, which leaves such floors out,
  // jumped where the bake did not). Only floors within the agent's height stop it now; the
  // jump's own sweep still meets anything in the way.
  auto agent = testAgent();
  MeshBuilder roofed;
  roofed.floor(0, 0, 3, 2, 0).floor(4, 0, 7, 2, 0).floor(3, 0, 4, 2, -5).box({-1, 20, -1}, {8, 20.2, 3});
  const auto baked = bakeOne(roofed.mesh(), agent);
  const auto& g = baked.graph;
  const uint32_t edge = gapTakeOff(g);
  CHECK(g.edgeKind(g.neighborOf(edge, kEast), kWest) == EdgeKind::Jump);
  CHECK(g.edgeCost(edge, kEast) == bakeOne(gapLevel(0), agent).graph.edgeCost(gapTakeOff(bakeOne(gapLevel(0), agent).graph), kEast));
  // A beam across the gap at chest height (its top a floor 1.2 m over the rims, within the
  // agent's height): no jump through it.
  MeshBuilder beam;
  beam.floor(0, 0, 3, 2, 0).floor(4, 0, 7, 2, 0).floor(3, 0, 4, 2, -5).box({3.3, 1.0, -1}, {3.7, 1.2, 3});
  const auto blocked = bakeOne(beam.mesh(), agent);
  const auto& b = blocked.graph;
  REQUIRE(nodeNear(b, 2.875, 0, 1) != kNoNode);
  for (uint32_t n = 0; n < b.nodeCount(); ++n)
    for (int d = 0; d < nav::kDirectionCount; ++d) {
      const uint32_t m = b.neighborOf(n, d);
      if (m == kNoNode || b.height[n] != 0 || b.height[m] != 0) continue;
      CHECK((b.nodePosition(n).x < 3.5) == (b.nodePosition(m).x < 3.5));  // rim to rim: none
    }
}

TEST_CASE("a gap to a lower landing is crossed by a jump, not a drop", "[nav][bake]") {
  // The far floor 1.5 m lower: walking off the edge falls into the pit, so only a jump reaches
  // the far side (an audit found such crossings labelled drops, with the drop penalty, although
  // the bake required can_jump).
  const sim::TriangleMesh level = gapLevel(-1.5);
  auto agent = testAgent();
  const auto baked = bakeOne(level, agent);
  const auto& g = baked.graph;
  const uint32_t edge = gapTakeOff(g);
  CHECK(g.edgeCost(edge, kEast) == Approx(1.25 + 0.75 + agent.settings.jump_penalty));
  // Back up: 1.5 m is above the 1 m jump height.
  CHECK(g.edgeKind(g.neighborOf(edge, kEast), kWest) == EdgeKind::None);
  // Every edge from the upper floor across the pit to the lower one is a jump.
  std::size_t crossings = 0;
  for (uint32_t n = 0; n < g.nodeCount(); ++n)
    for (int d = 0; d < nav::kDirectionCount; ++d) {
      const uint32_t m = g.neighborOf(n, d);
      if (m == kNoNode || g.height[n] != 0 || g.height[m] != Approx(-1.5)) continue;
      ++crossings;
      CHECK(g.edgeKind(n, d) == EdgeKind::Jump);
    }
  CHECK(crossings > 0);
  agent.settings.can_jump = false;
  CHECK_FALSE(anyEdgeCrosses(bakeOne(level, agent).graph, 3.5, -2));  // the pit floor left out
}

namespace {
// The second jumps (links of kind Jump) leaving node n.
std::vector<nav::OffMeshLink> secondJumps(const nav::LayeredGraph& g, uint32_t n) {
  std::vector<nav::OffMeshLink> jumps;
  for (uint32_t l = g.link_offsets[n]; l < g.link_offsets[n + 1]; ++l)
    if (g.links[l].kind == EdgeKind::Jump) jumps.push_back(g.links[l]);
  return jumps;
}
// The second jumps of the node at the near rim (x 2.875, z 1) of the pit levels below, whose east
// slot must hold the drop into the pit.
std::vector<nav::OffMeshLink> rimJumps(const nav::LayeredGraph& g) {
  const uint32_t rim = nodeNear(g, 2.875, 0, 1);
  REQUIRE(rim != kNoNode);
  REQUIRE(g.edgeKind(rim, kEast) == EdgeKind::Drop);
  return secondJumps(g, rim);
}
// Bakes a pit level with the test agent: the near rim's one second jump lands on the far rim
// (height far_y, past x far_x), and routes cross both ways between (1, 0, 1) and `far`.
void checkJumpsToFarRim(const MeshBuilder& pit, double far_y, double far_x, const sim::Vec3& far) {
  const auto baked = bakeOne(pit.mesh(), testAgent());
  const auto& g = baked.graph;
  const auto jumps = rimJumps(g);
  REQUIRE(jumps.size() == 1);
  CHECK(g.height[jumps[0].to_node] == Approx(far_y));
  CHECK(g.nodePosition(jumps[0].to_node).x > far_x);
  nav::SearchState state;
  CHECK(nav::findLayeredPath(g, baked.profile.settings, {1, 0, 1}, far, {}, state).ok());
  CHECK(nav::findLayeredPath(g, baked.profile.settings, far, {1, 0, 1}, {}, state).ok());
}
}  // namespace

TEST_CASE("a pit within max_drop is jumped across as well as dropped into", "[nav][bake]") {
  // A 1 m wide trench 1.5 m deep: deeper than the 1 m jump height (no way out of it), within the
  // 2 m max_drop. The rim's east slot holds the drop into it, and the jump across it to the far
  // rim, which the gap search never looked for once the drop had the slot, is a second jump:
  // before, the far side was cut off from that rim (an audit's trench).
  MeshBuilder trench;
  trench.floor(0, 0, 3, 2, 0).floor(4, 0, 7, 2, 0).floor(3, 0, 4, 2, -1.5);
  auto agent = testAgent();
  const auto baked = bakeOne(trench.mesh(), agent);
  const auto& g = baked.graph;
  const uint32_t rim = nodeNear(g, 2.875, 0, 1);
  REQUIRE(rim != kNoNode);
  REQUIRE(g.edgeKind(rim, kEast) == EdgeKind::Drop);
  CHECK(g.height[g.neighborOf(rim, kEast)] == Approx(-1.5));
  const auto jumps = secondJumps(g, rim);
  REQUIRE(jumps.size() == 1);
  CHECK(g.nodePosition(jumps[0].to_node).x == Approx(4.125));
  CHECK(g.height[jumps[0].to_node] == 0);
  CHECK(jumps[0].cost == Approx(1.25 + agent.settings.jump_penalty));  // level: horizontal + penalty
  CHECK(jumps[0].label == nav::kNoLinkLabel);
  CHECK(g.linkLabel(rim, jumps[0].to_node) == -1);  // not a custom link
  CHECK(g.customLinkCount() == 0);
  // The far rim jumps back the same way, and every rim node along the trench has its pair.
  const auto back = secondJumps(g, jumps[0].to_node);
  REQUIRE(back.size() == 1);
  CHECK(back[0].to_node == rim);
  CHECK(g.secondJumpCount() % 2 == 0);
  CHECK(g.secondJumpCount() >= 2 * 6);  // rows z 0.375 .. 1.625 at least
  // The two sides now reach each other (they are one region), and a route crosses by a jump.
  const uint32_t far_node = nodeNear(g, 6, 0, 1);
  REQUIRE(far_node != kNoNode);
  CHECK(g.canReach(nodeNear(g, 1, 0, 1), far_node));
  nav::SearchState state;
  const nav::PathResult path = nav::findLayeredPath(g, baked.profile.settings, {1, 0, 1}, {6, 0, 1}, {}, state);
  REQUIRE(path.ok());
  bool jumped = false;
  for (const nav::Waypoint& w : path.waypoints) jumped = jumped || w.action == nav::MoveAction::Jump;
  CHECK(jumped);
  CHECK(path.cost < 7);  // across, not round by anything else (there is nothing else)

  // A pit the agent can jump out of (0.8 m): dropping in and jumping up is a way across already,
  // but the jump straight across is the agent's move and is stored too (its landing is more than
  // a step above the pit floor).
  MeshBuilder shallow;
  shallow.floor(0, 0, 3, 2, 0).floor(4, 0, 7, 2, 0).floor(3, 0, 4, 2, -0.8);
  const auto shallow_baked = bakeOne(shallow.mesh(), agent);
  CHECK(shallow_baked.graph.secondJumpCount() >= 2 * 6);
  // No jumping agent, no second jumps (and the far side stays cut off).
  agent.settings.can_jump = false;
  const auto walker = bakeOne(trench.mesh(), agent);
  CHECK(walker.graph.secondJumpCount() == 0);
  CHECK_FALSE(walker.graph.canReach(nodeNear(walker.graph, 1, 0, 1), nodeNear(walker.graph, 6, 0, 1)));
  agent.settings.can_jump = true;
  // Too far to jump: none.
  agent.settings.jump_distance = 0.9;
  CHECK(bakeOne(trench.mesh(), agent).graph.secondJumpCount() == 0);
  agent.settings.jump_distance = 2.5;
  // A lava trench (an area never entered): the drop into it is no edge, and the jump across it
  // is still the way over.
  MeshBuilder lava;
  lava.floor(0, 0, 3, 2, 0).floor(4, 0, 7, 2, 0).floor(3, 0, 4, 2, -1.5, "lava");
  agent.areas.push_back({"lava", "", "lava", std::numeric_limits<double>::infinity()});
  const auto hot = bakeOne(lava.mesh(), agent);
  const uint32_t hot_rim = nodeNear(hot.graph, 2.875, 0, 1);
  REQUIRE(hot_rim != kNoNode);
  CHECK(hot.graph.edgeKind(hot_rim, kEast) == EdgeKind::None);
  REQUIRE(secondJumps(hot.graph, hot_rim).size() == 1);
  CHECK(hot.graph.canReach(nodeNear(hot.graph, 1, 0, 1), nodeNear(hot.graph, 6, 0, 1)));
}

TEST_CASE("a stepped pit is jumped to its far rim, not to the step inside it", "[nav][bake]") {
  // An audit's reproducer: the pit floor 1.8 m down, a step inside it 1.2 m down, the far rim
  // level with the take-off. The first landing past the drop is the step, from which there is
  // no way out (1.2 m is above the 1 m jump height); the jump worth storing is the one to the
  // rim, the landing nearest the take-off's level.
  MeshBuilder pit;
  pit.box({0, -1.8, 0}, {3, 0, 2}).floor(3, 0, 3.9, 2, -1.8).box({3.9, -1.8, 0}, {4.5, -1.2, 2}).box({4.5, -1.8, 0}, {7.5, 0, 2});
  checkJumpsToFarRim(pit, 0, 4.5, {6.5, 0, 1});
}

TEST_CASE("a far rim above the take-off is jumped to rather than a ledge inside the pit", "[nav][bake]") {
  // An audit's reproducer: the pit floor 1.8 m down, a ledge inside it 0.7 m down that the pit
  // floor does not reach (1.1 m up), and the far rim 0.8 m up. The ledge is nearer the take-off's
  // level, and was the second jump: a dead end, with the crossing one way (the far rim still
  // jumped back). A landing a step or more below the take-off is inside the pit; the far rim,
  // where the search stops, comes first.
  MeshBuilder pit;
  pit.box({0, -1.8, 0}, {3, 0, 2}).floor(3, 0, 4.8, 2, -1.8).box({4.2, -1.8, 0}, {4.6, -0.7, 2}).box({4.8, -1.8, 0}, {7.8, 0.8, 2});
  checkJumpsToFarRim(pit, 0.8, 4.8, {6.5, 0.8, 1});
  // Without the far rim (beyond the jump distance), the ledge is the landing: the nearest level
  // among the landings inside the pit.
  auto agent = testAgent();
  agent.settings.jump_distance = 1.9;
  const auto short_jump = bakeOne(pit.mesh(), agent);
  const auto ledge_jumps = rimJumps(short_jump.graph);
  REQUIRE(ledge_jumps.size() == 1);
  CHECK(short_jump.graph.height[ledge_jumps[0].to_node] == Approx(-0.7));
}

TEST_CASE("a far rim the ground below never reaches on foot is jumped to", "[nav][bake]") {
  // A second audit's reproducers. The ground past the drop's landing falls away (a slope down to
  // 3 m below the take-off), and the far rim lies level with that landing: being within a step of
  // it is not being reachable from it. And the ground past the landing rises to within a step
  // of the take-off before the far rim: ground walked to is under the jump, not in its way.
  auto agent = testAgent();
  agent.settings.jump_distance = 4;
  MeshBuilder down;
  down.box({0, -3.5, 0}, {3.013, 0, 2}).ramp(3.013, -1.5, 6.013, -3.0, 0, 2).box({6.013, -3.5, 0}, {9.013, -1.5, 2});
  const auto baked_down = bakeOne(down.mesh(), agent);
  auto jumps = rimJumps(baked_down.graph);
  REQUIRE(jumps.size() == 1);
  CHECK(baked_down.graph.height[jumps[0].to_node] == Approx(-1.5));
  nav::SearchState state;
  CHECK(nav::findLayeredPath(baked_down.graph, baked_down.profile.settings, {1, 0, 1}, {7.5, -1.5, 1}, {}, state).ok());

  agent.settings.jump_height = 0.5;
  agent.settings.jump_distance = 3;
  MeshBuilder up;
  up.box({0, -1.5, 0}, {3.013, 0, 2}).floor(3.013, 0, 4.513, 2, -0.8).ramp(4.513, -0.8, 5.513, -0.05, 0, 2).box({5.513, -1.5, 0}, {8.513, 0.45, 2});
  const auto baked_up = bakeOne(up.mesh(), agent);
  jumps = rimJumps(baked_up.graph);
  REQUIRE(jumps.size() == 1);
  CHECK(baked_up.graph.height[jumps[0].to_node] == Approx(0.45));
  CHECK(nav::findLayeredPath(baked_up.graph, baked_up.profile.settings, {1, 0, 1}, {7, 0.45, 1}, {}, state).ok());
}

TEST_CASE("a ledge whose foot is a strip of lava or mud is jumped past the strip", "[nav][bake]") {
  // An audit: a 1.5 m ledge down to level ground whose first metre is lava (never entered): the
  // drop into it is no edge, and the ground past it, on foot from the drop's landing, got no
  // second jump, so the ledge was cut off (NoPath); with the strip at cost 1000 the route walked
  // it. Over a hole of the same width the agent jumps. Ground past a strip dearer than the
  // take-off's area is a landing; a landing in the strip is none (never entered) or comes after
  // the cheaper ground.
  MeshBuilder ledge;
  ledge.floor(0, 0, 3, 2, 0).floor(3, 0, 4, 2, -1.5, "lava").floor(4, 0, 8, 2, -1.5);
  for (const double cost : {std::numeric_limits<double>::infinity(), 1000.0}) {
    INFO("strip cost " << cost);
    auto agent = testAgent();
    agent.areas.push_back({"lava", "", "lava", cost});
    const auto baked = bakeOne(ledge.mesh(), agent);
    const uint32_t rim = nodeNear(baked.graph, 2.875, 0, 1);
    REQUIRE(rim != kNoNode);
    const auto jumps = secondJumps(baked.graph, rim);
    REQUIRE(jumps.size() == 1);
    const uint32_t landing = jumps[0].to_node;
    CHECK(baked.graph.height[landing] == Approx(-1.5));
    CHECK(baked.graph.area_costs[baked.graph.area[landing]] == 1.0f);
    CHECK(baked.graph.nodePosition(landing).x > 4);
    nav::SearchState state;
    const auto route = nav::findLayeredPath(baked.graph, baked.profile.settings, {1, 0, 1}, {7, -1.5, 1}, {}, state);
    REQUIRE(route.ok());
    CHECK(route.cost < 20);  // jumped, not walked through the strip
  }
  // The same ledge with the strip at the take-off's cost: walked to from the drop's landing, as
  // a plain ledge (no second jumps).
  auto agent = testAgent();
  agent.areas.push_back({"lava", "", "lava", 1.0});
  CHECK(bakeOne(ledge.mesh(), agent).graph.secondJumpCount() == 0);
}

TEST_CASE("a plain ledge down to level ground gets no second jumps", "[nav][bake]") {
  // The ground below continues level: every landing a jump past the drop reaches is walked to
  // from the drop's landing, so nothing is added (only landings more than a step above it are).
  MeshBuilder ledge;
  ledge.floor(0, 0, 3, 2, 0).floor(3, 0, 7, 2, -1.5);
  const auto baked = bakeOne(ledge.mesh(), testAgent());
  const uint32_t rim = nodeNear(baked.graph, 2.875, 0, 1);
  REQUIRE(rim != kNoNode);
  CHECK(baked.graph.edgeKind(rim, kEast) == EdgeKind::Drop);
  CHECK(baked.graph.secondJumpCount() == 0);
  // A pit too deep to drop into (5 m) is crossed by the slot's own jump, as before.
  CHECK(bakeOne(gapLevel(0), testAgent()).graph.secondJumpCount() == 0);
  // Ground rising away below the ledge (a slope from the drop's foot up to the ledge's level):
  // every landing past the drop is walked to from its foot, so none is stored.
  MeshBuilder slope;
  slope.floor(0, 0, 3, 2, 0).ramp(3, -1.5, 7, 0, 0, 2);
  const auto sloped = bakeOne(slope.mesh(), testAgent());
  REQUIRE(sloped.graph.edgeKind(nodeNear(sloped.graph, 2.875, 0, 1), kEast) == EdgeKind::Drop);
  CHECK(sloped.graph.secondJumpCount() == 0);
  // A thin wall on the far rim, 1 m above it, in the way of every jump across: no second jump
  // through it.
  MeshBuilder walled;
  walled.floor(0, 0, 3, 2, 0).floor(4, 0, 7, 2, 0).floor(3, 0, 4, 2, -1.5).box({3.9, -1.5, -1}, {4.0, 1.0, 3});
  CHECK(bakeOne(walled.mesh(), testAgent()).graph.secondJumpCount() == 0);
}

TEST_CASE("a field's origin and a link's ends snap to the floor under them, never through a ceiling - a field's limit is inclusive",
          "[nav][bake][field]") {
  // An audit: an origin at head height in a room under a slab snapped (nearest in 3-D) to the
  // slab's top 1.3 m above instead of the floor 1.7 m below, so the field did not read 0 at its
  // origin and `query field --name` and `--origin` disagreed for the same point.
  MeshBuilder room;
  room.box({0, -0.2, 0}, {10, 0, 10}).box({0, 2.8, 0}, {10, 3.0, 5});
  auto agent = testAgent();
  agent.settings.cell_size = 0.3;
  agent.fields.push_back({"shot", {2.0, 1.7, 2.0}, 100.0, ""});
  // A point 25 columns of 0.3 m east of the floor's first column: exactly at a 7.5 m limit. The
  // stored costs are float32 (0.30000001192 a step), whose sum is 7.5000003.
  agent.fields.push_back({"near", {0.15, 0, 8.55}, 7.5, ""});
  // A link end at head height under the slab snaps the same way (it took the slab's top too).
  agent.links.push_back({{2.0, 1.7, 2.0}, {8.0, 0.0, 8.0}, "door", -1, false, {}});
  const auto baked = bakeOne(room.mesh(), agent);
  const auto& g = baked.graph;
  REQUIRE(g.links.size() == 1);
  CHECK(g.links[0].from_node == nav::snapToNode(g, {2.0, 1.7, 2.0}, {}));
  CHECK(g.height[g.links[0].from_node] == 0);
  const auto& shot = g.fields[0];
  REQUIRE(shot.origin_node != kNoNode);
  CHECK(g.height[shot.origin_node] == 0);
  CHECK(shot.distance[shot.origin_node] == 0.0f);
  // The same as the flood from the same point on demand (query field --origin).
  const nav::LayeredSearchGraph view(g, baked.profile.settings);
  const nav::NodeId origin = nav::snapToNode(g, {2.0, 1.7, 2.0}, {});
  CHECK(origin == shot.origin_node);
  CHECK(nav::floodDistanceField(view, origin, 100.0) == shot.distance);
  const auto& near = g.fields[1];
  const uint32_t at_limit = nodeNear(g, 0.15 + 7.5, 0, 8.55);
  REQUIRE(at_limit != kNoNode);
  CHECK(near.distance[at_limit] == Approx(7.5));
  CHECK(std::isinf(near.distance[nodeNear(g, 0.15 + 7.8, 0, 8.55)]));
  // On demand too (query field --origin ... --max 1.5: five columns).
  const auto on_demand = nav::floodDistanceField(view, near.origin_node, 1.5);
  CHECK(on_demand[nodeNear(g, 0.15 + 1.5, 0, 8.55)] == Approx(1.5));
}

TEST_CASE("a field's origin snaps as the queries do, and a link end's 3-D fallback never takes a floor above a ceiling",
          "[nav][bake][field]") {
  // An audit: an origin 2.3 m up in a room (more than link_snap_height over its floor) took the
  // slab above the room's ceiling, and an origin 1.5 m off the mesh baked a field that neither
  // `query field --name --at` nor `--origin` could read at that point.
  MeshBuilder room;
  room.box({0, -0.2, 0}, {10, 0, 10}).box({0, 2.8, 0}, {10, 3.0, 5});
  auto bakeWith = [&](const nav::AgentProfile& agent) {
    nav::BakeProfile profile;
    profile.agents.push_back(agent);
    return nav::bakeWorld(room.mesh(), profile, nav::BakeOptions{}, "room.obj");
  };
  auto agent = testAgent();
  agent.settings.cell_size = 0.3;
  agent.fields.push_back({"tall", {2.0, 2.3, 2.0}, 100.0, ""});
  const auto baked = bakeWith(agent);
  REQUIRE(baked.ok());
  const auto& g = baked->agents[0].graph;
  const auto& tall = g.fields[0];
  CHECK(tall.origin_node == nav::snapToNode(g, {2.0, 2.3, 2.0}, {}));
  CHECK(g.height[tall.origin_node] == 0);
  CHECK(tall.distance[tall.origin_node] == 0.0f);
  // Off the mesh by more than the queries' 1 m: refused, naming the rule.
  auto off = testAgent();
  off.fields.push_back({"off", {11.5, 0.0, 2.0}, 100.0, ""});
  const auto refused = bakeWith(off);
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.error().message,
             Catch::Contains("field 'off': no walkable floor below origin (11.5, 0, 2) within 1 m across (or up to 0.5 m above it)"));
  // A link end 2.3 m up in the room: the floor is beyond link_snap_height, the slab's top 0.7 m
  // above lies over the room's ceiling: no floor, an error (it took the slab's top).
  auto tall_link = testAgent();
  tall_link.links.push_back({{2.0, 2.3, 2.0}, {8.0, 0.0, 8.0}, "tall", -1, false, {}});
  const auto no_floor = bakeWith(tall_link);
  REQUIRE_FALSE(no_floor.ok());
  CHECK_THAT(no_floor.error().message, Catch::Contains("no floor within 2 m across and 2 m up or down of from (2, 2.3, 2)"));
  // Under the level, and inside the slab: the floor above is no floor upstairs, and is taken.
  auto under = testAgent();
  under.links.push_back({{8.0, -1.0, 8.0}, {2.0, 2.9, 2.0}, "under", -1, false, {}});
  under.links.push_back({{8.0, 0.0, 8.0}, {2.0, 2.85, 2.0}, "slab", -1, false, {}});
  const auto kept = bakeWith(under);
  INFO((kept.ok() ? std::string() : kept.error().message));
  REQUIRE(kept.ok());
  const auto& k = kept->agents[0].graph;
  REQUIRE(k.links.size() == 2);
  for (const auto& link : k.links) {
    CHECK(k.height[link.from_node] == 0);
    CHECK(k.height[link.to_node] == Approx(3.0));
  }
}

TEST_CASE("a link whose two ends snap to one floor node is left out with a warning", "[nav][bake]") {
  // An audit: such a link was kept as a self-loop edge (cost 0.001) that no route takes, and the
  // bake said nothing of it. A link shorter than a cell, two-way or not, beside one that is kept.
  MeshBuilder floor;
  floor.box({0, -0.2, 0}, {10, 0, 10});
  auto agent = testAgent();
  agent.settings.cell_size = 0.3;
  agent.links.push_back({{2.0, 0.0, 2.0}, {2.05, 0.0, 2.02}, "hop", -1, true, {}});
  agent.links.push_back({{2.0, 0.0, 2.0}, {8.0, 0.0, 8.0}, "far", -1, false, {}});
  nav::BakeProfile profile;
  profile.agents.push_back(agent);
  const auto baked = nav::bakeWorld(floor.mesh(), profile, nav::BakeOptions{}, "floor.obj");
  REQUIRE(baked.ok());
  const auto& result = baked->agents[0];
  REQUIRE(result.graph.links.size() == 1);
  CHECK(result.graph.links[0].profile_index == 1);
  CHECK(result.graph.link_labels == std::vector<std::string>{"far"});
  REQUIRE(result.warnings.size() == 1);
  CHECK_THAT(result.warnings[0], Catch::StartsWith("floor.obj: agent " + agent.settings.name + ": link 0 ('hop'): both ends snap to the one floor node at (") &&
                                     Catch::EndsWith(": the link leads nowhere and is left out"));
  // The link that is kept marks its ends; the one left out marks nothing.
  const uint32_t hop = nav::snapToNode(result.graph, {2.0, 0.0, 2.0}, {});
  CHECK(hop == result.graph.links[0].from_node);
  CHECK((result.graph.flags[hop] & nav::kNodeLinkEnd) != 0);
  // Without the far link nothing is marked.
  agent.links.pop_back();
  profile.agents[0] = agent;
  const auto alone = nav::bakeWorld(floor.mesh(), profile, nav::BakeOptions{}, "floor.obj");
  REQUIRE(alone.ok());
  CHECK(alone->agents[0].graph.links.empty());
  CHECK(alone->agents[0].warnings.size() == 1);
  CHECK((alone->agents[0].graph.flags[hop] & nav::kNodeLinkEnd) == 0);
}

TEST_CASE("a bake of more floor nodes than large_bake_nodes warns with the level's size and the advice", "[nav][bake]") {
  // An audit imported a Cube map in its own units (20 times too large) and baked 15 million nodes
  // in 2.4 GB with no word about it. A 10 x 6 m floor at 0.3 m: 660 nodes.
  MeshBuilder floor;
  floor.box({0, -0.2, 0}, {10, 0, 6});
  auto agent = testAgent();
  agent.settings.cell_size = 0.3;
  nav::BakeProfile profile;
  profile.agents.push_back(agent);
  nav::BakeOptions options;
  options.large_bake_nodes = 500;
  const auto big = nav::bakeWorld(floor.mesh(), profile, options, "floor.obj");
  REQUIRE(big.ok());
  REQUIRE(big->agents[0].graph.nodeCount() > 500);
  REQUIRE(big->agents[0].warnings.size() == 1);
  const std::size_t nodes = big->agents[0].graph.nodeCount();
  char gb[32];
  std::snprintf(gb, sizeof gb, "%.2g", double(nodes) * nav::kBakeBytesPerNode / 1e9);
  CHECK(big->agents[0].warnings[0] ==
        "floor.obj: agent " + agent.settings.name + ": " + std::to_string(nodes) +
            " floor nodes at cell_size 0.3 m on a level 10 x 6 m across (a graph of about " + gb + " GB): a large bake; if the "
            "level's units are not metres, import it with --scale; else a larger cell_size bakes faster (nodes fall as "
            "1 / cell_size^2)");
  // At the limit, with none (0), and at the default (1e7): no warning.
  for (const double limit : {double(big->agents[0].graph.nodeCount()), 0.0, nav::BakeOptions{}.large_bake_nodes}) {
    options.large_bake_nodes = limit;
    const auto quiet = nav::bakeWorld(floor.mesh(), profile, options, "floor.obj");
    REQUIRE(quiet.ok());
    CHECK(quiet->agents[0].warnings.empty());
  }
  options.large_bake_nodes = -1;
  CHECK_FALSE(nav::bakeWorld(floor.mesh(), profile, options, "floor.obj").ok());
}

TEST_CASE("a grid over the column limit is refused before any agent is baked", "[nav][bake]") {
  // Two small floors 2 km apart: little walkable area (the memory estimate lets it by), but at
  // 0.02 m the second agent's grid has 1e10 columns. An audit saw the first agent baked for
  // seconds before the second was refused.
  MeshBuilder level;
  level.floor(0, 0, 2, 2, 0).floor(2000, 2000, 2002, 2002, 0);
  nav::BakeProfile profile;
  profile.agents.push_back(testAgent());
  profile.agents[0].settings.name = "coarse";
  profile.agents[0].settings.cell_size = 8.0;
  profile.agents[0].settings.radius = 2.0;
  profile.agents.push_back(testAgent());
  profile.agents[1].settings.name = "fine";
  profile.agents[1].settings.cell_size = 0.02;
  struct Stages : nav::BakeObserver {
    int started = 0;
    void stageStarted(const std::string&, const std::string&, std::size_t) override { ++started; }
  } stages;
  nav::BakeOptions options;
  options.observer = &stages;
  const auto result = nav::bakeWorld(level.mesh(), profile, options, "wide.obj");
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().kind == ErrorKind::BadInput);
  CHECK(result.error().message ==
        "wide.obj: agent fine: 100101 x 100101 columns at cell_size 0.02 m is more than the limit of 4e8; raise cell_size");
  CHECK(stages.started == 0);
  // The coarse agent alone bakes.
  profile.agents.pop_back();
  CHECK(nav::bakeWorld(level.mesh(), profile, nav::BakeOptions{}, "wide.obj").ok());
}

TEST_CASE("diagonal edges need both side columns (no corner cutting)", "[nav][bake]") {
  // 0.5 m cells, a thin agent, a pillar in column (1, 1) that the diagonal sweep would miss.
  MeshBuilder level;
  level.floor(0, 0, 3, 3, 0).box({0.65, 0, 0.65}, {0.85, 2, 0.85});
  auto agent = testAgent();
  agent.settings.cell_size = 0.5;
  agent.settings.radius = 0.1;
  const auto baked = bakeOne(level.mesh(), agent);
  const auto& g = baked.graph;
  const uint32_t west = nodeNear(g, 0.25, 0, 0.75), south = nodeNear(g, 0.75, 0, 0.25);
  REQUIRE(west != kNoNode);
  REQUIRE(south != kNoNode);
  CHECK(nodeNear(g, 0.75, 0, 0.75) == kNoNode);
  CHECK(g.edgeKind(west, 7) == EdgeKind::None);   // SE past the pillar's column
  CHECK(g.edgeKind(south, 3) == EdgeKind::None);  // NW back
  // Every diagonal walk edge in the level has both side columns walkable.
  for (uint32_t n = 0; n < g.nodeCount(); ++n)
    for (int d = 1; d < nav::kDirectionCount; d += 2) {
      if (g.edgeKind(n, d) != EdgeKind::Walk) continue;
      const auto c = g.nodeColumn(n);
      CHECK(g.findNode(c[0] + nav::kDirectionDx[d], c[1], g.height[n], 0.4, 0.4) != kNoNode);
      CHECK(g.findNode(c[0], c[1] + nav::kDirectionDz[d], g.height[n], 0.4, 0.4) != kNoNode);
    }
}

TEST_CASE("climb edges follow surfaces labelled climbable", "[nav][bake]") {
  // A 3 m platform with a ladder on its west face.
  MeshBuilder level;
  level.floor(0, 0, 8, 4, 0).box({4, 0, 0}, {8, 3, 4}).box({3.9, 0, 1.5}, {4, 3, 2.5}, "ladder");
  auto agent = testAgent();
  agent.settings.can_climb = true;
  agent.climbable = {"ladder"};
  const auto baked = bakeOne(level.mesh(), agent);
  const auto& g = baked.graph;
  bool up = false, down = false;
  for (uint32_t n = 0; n < g.nodeCount(); ++n)
    for (int d = 0; d < nav::kDirectionCount; ++d)
      if (g.edgeKind(n, d) == EdgeKind::Climb) {
        const uint32_t m = g.neighborOf(n, d);
        (g.height[m] > g.height[n] ? up : down) = true;
        CHECK(std::fabs(g.nodePosition(n).z - 2.0) < 0.5 + 0.3 + 0.25);
        // Its cost: the horizontal distance plus the full height change (not half, as a walk's),
        // plus the climb penalty (an audit found no test of it).
        const sim::Vec3 a = g.nodePosition(n), b = g.nodePosition(m);
        CHECK(g.edgeCost(n, d) ==
              Approx(std::hypot(b.x - a.x, b.z - a.z) + std::fabs(b.y - a.y) + agent.settings.climb_penalty).epsilon(1e-5));
      }
  CHECK(up);
  CHECK(down);
  agent.settings.can_climb = false;
  const auto no_climb = bakeOne(level.mesh(), agent);
  for (uint8_t kind : no_climb.graph.edge_kind) CHECK(kind != static_cast<uint8_t>(EdgeKind::Climb));
}

TEST_CASE("a climb needs the climbable surface to span it, gaps no wider than a step", "[nav][bake]") {
  // An audit: a climbable patch anywhere on a wall (at its foot, halfway up, at its top) made
  // climbs up the whole 5 m wall. A ladder starts within a step of the lower floor and ends within
  // a step of the higher one; rungs a step apart or closer are one ladder.
  auto agent = testAgent();
  agent.settings.can_climb = true;
  agent.climbable = {"ladder"};
  auto climbs = [&](const std::vector<std::pair<double, double>>& pieces) {
    MeshBuilder level;
    level.floor(0, 0, 8, 4, 0).box({4, 0, 0}, {8, 5, 4});
    for (const auto& [bottom, top] : pieces) level.box({3.9, bottom, 1.5}, {4, top, 2.5}, "ladder");
    const auto baked = bakeOne(level.mesh(), agent);
    std::size_t count = 0;
    for (uint8_t kind : baked.graph.edge_kind) count += kind == static_cast<uint8_t>(EdgeKind::Climb);
    return count;
  };
  CHECK(climbs({{0, 5}}) > 0);               // the whole face
  CHECK(climbs({{0.3, 4.7}}) > 0);           // within a step of either floor
  CHECK(climbs({{0, 0.45}}) == 0);           // at its foot only
  CHECK(climbs({{2.0, 2.3}}) == 0);          // halfway up
  CHECK(climbs({{4.6, 5.0}}) == 0);          // at its top only
  CHECK(climbs({{0, 2.0}, {2.5, 5}}) == 0);  // a gap of 0.5 m, wider than the 0.4 m step
  std::vector<std::pair<double, double>> rungs;
  for (double y = 0.2; y < 5; y += 0.35) rungs.push_back({y, y + 0.04});
  CHECK(climbs(rungs) > 0);  // rungs 0.31 m apart
}

TEST_CASE("a climb never passes through a slab over the ladder's foot - and every climb has a way back", "[nav][bake]") {
  // An audit's reproducer: a 1.5 m platform with a ladder on its west face, and a slab 2.0..2.2 m
  // up over the ground west of the ladder, up to the ladder. The jump up was blocked by the slab,
  // but the climb, which tested only for the climbable surface, went up through it; and with no
  // climb back down (that slot jumped onto the slab), it was one way. Also a climb past a floor
  // between: dungeon with every surface climbable had 626 climbs through ceilings.
  auto agent = testAgent();
  agent.settings.radius = 0.3;
  agent.settings.cell_size = 0.1;
  agent.settings.can_climb = true;
  agent.climbable = {"ladder"};
  for (bool slab : {false, true}) {
    INFO("slab " << slab);
    // With the slab, a jump of 1.6 m would be cheaper than the climb (the audit's agent); without
    // it, a 1 m jump leaves the 1.5 m platform to the ladder.
    agent.settings.jump_height = slab ? 1.6 : 1.0;
    MeshBuilder level;
    level.floor(-4, -4, 9, 4, 0).box({3, 0, -2}, {6, 1.5, 2}).box({2.96, 0, -0.5}, {3.0, 1.5, 0.5}, "ladder");
    if (slab) level.box({0, 2.0, -4}, {2.96, 2.2, 4});
    const auto baked = bakeOne(level.mesh(), agent);
    const auto& g = baked.graph;
    std::size_t up = 0;
    for (uint32_t n = 0; n < g.nodeCount(); ++n)
      for (int d = 0; d < nav::kDirectionCount; ++d) {
        if (g.edgeKind(n, d) != EdgeKind::Climb) continue;
        const uint32_t m = g.neighborOf(n, d);
        const uint32_t low = g.height[n] < g.height[m] ? n : m;
        INFO("climb from " << g.nodePosition(n).x << "," << g.height[n] << " to " << g.nodePosition(m).x << "," << g.height[m]);
        // Standing room over the lower end up to the higher floor plus the agent's height.
        CHECK(g.height[low] + g.headroom[low] >= std::max(g.height[n], g.height[m]) + agent.settings.height);
        CHECK(g.canReach(m, n));  // a way back
        if (g.height[m] > g.height[n]) ++up;
      }
    if (slab) CHECK(up == 0);  // every column at the ladder's foot lies under the slab
    else CHECK(up > 0);
  }
}

TEST_CASE("a ladder climbs only the face it is on - onto the nearest floor at the top and back down", "[nav][bake]") {
  // An audit's reproducer: a 2 x 2 x 3 m block with a ladder (one quad) on its west face near
  // the south-west corner. The climb test's rectangle (between the column centres, a radius
  // either side) of a move north up the block's south face reached the ladder's corner, so
  // the south face was climbed too, onto the fourth column of the top (passing over three
  // floors of the top), and one way only: the top's rim walks to the next column instead.
  MeshBuilder level;
  level.floor(0, 0, 10, 6, 0).box({4, 0, 2}, {6, 3, 4});
  level.quad({3.95, 0, 2.5}, {3.95, 0, 3.5}, {3.95, 3, 3.5}, {3.95, 3, 2.5}, {-1, 0, 0}, "ladder");
  auto agent = testAgent();
  agent.settings.can_climb = true;
  agent.climbable = {"ladder"};
  const auto baked = bakeOne(level.mesh(), agent);
  const auto& g = baked.graph;
  int climbs = 0;
  for (uint32_t n = 0; n < g.nodeCount(); ++n)
    for (int d = 0; d < nav::kDirectionCount; ++d) {
      if (g.edgeKind(n, d) != EdgeKind::Climb) continue;
      ++climbs;
      const uint32_t m = g.neighborOf(n, d);
      const auto a = g.nodePosition(n), b = g.nodePosition(m);
      INFO("climb from " << a.x << "," << a.y << "," << a.z << " to " << b.x << "," << b.y << "," << b.z);
      CHECK(a.z == b.z);  // across the west face, along x
      CHECK(std::min(a.x, b.x) < 3.95);
      CHECK(std::max(a.x, b.x) > 4.0);
      CHECK(std::max(a.x, b.x) < 4.25);  // onto the first column of the top
      // The climb back: the reverse slot of the landing holds the climb down.
      CHECK(g.edgeKind(m, nav::oppositeDirection(d)) == EdgeKind::Climb);
      CHECK(g.neighborOf(m, nav::oppositeDirection(d)) == n);
    }
  CHECK(climbs > 0);
  // A climbable panel facing the move but set 0.55 m into the block: the rectangle of a move
  // north from the foot of the south face reaches it only four columns on, over three floors of
  // the top; such a climb would land past them and have no way back. There is none.
  MeshBuilder inset;
  inset.floor(0, 0, 10, 6, 0).box({4, 0, 2}, {6, 3, 4});
  inset.quad({3.9, 0, 2.55}, {4.4, 0, 2.55}, {4.4, 3, 2.55}, {3.9, 3, 2.55}, {0, 0, -1}, "ladder");
  for (uint8_t kind : bakeOne(inset.mesh(), agent).graph.edge_kind) CHECK(kind != static_cast<uint8_t>(EdgeKind::Climb));
}

TEST_CASE("a ladder beside a ledge never makes an edge dearer for an agent that can climb", "[nav][bake]") {
  // Ledges of 0.9 m (jumped up, dropped down) and 1.5 m (dropped down only), each with a ladder
  // over its whole face. The climb edge (full height change plus its penalty) replaced the
  // cheaper jump and drop: down the 1.5 m ledge 3.0 against 1.75 (an audit's mesh).
  MeshBuilder level;
  level.floor(0, 0, 7, 2, 0).box({7, 0, 0}, {9, 1.5, 2}).box({6.98, 0, 0}, {7, 1.5, 2}, "ladder");
  level.floor(0, 4, 7, 6, 0).box({7, 0, 4}, {9, 0.9, 6}).box({6.98, 0, 4}, {7, 0.9, 6}, "ladder");
  auto agent = testAgent();
  agent.settings.can_jump = true;
  agent.settings.jump_height = 1.0;
  agent.settings.max_drop = 2.0;
  agent.climbable = {"ladder"};
  agent.settings.can_climb = false;
  const auto walker = bakeOne(level.mesh(), agent);
  agent.settings.can_climb = true;
  const auto climber = bakeOne(level.mesh(), agent);
  const auto& w = walker.graph;
  const auto& c = climber.graph;
  REQUIRE(w.nodeCount() == c.nodeCount());
  int climbs = 0, cheaper = 0, drops_at_ladder = 0;
  for (uint32_t n = 0; n < c.nodeCount(); ++n)
    for (int d = 0; d < nav::kDirectionCount; ++d) {
      const EdgeKind kind = c.edgeKind(n, d);
      if (kind == EdgeKind::None) {
        CHECK(w.edgeKind(n, d) == EdgeKind::None);
        continue;
      }
      climbs += kind == EdgeKind::Climb;
      if (w.edgeKind(n, d) == EdgeKind::None) {
        CHECK(kind == EdgeKind::Climb);  // only climbing adds edges
        continue;
      }
      INFO("node " << n << " direction " << d);
      CHECK(c.edgeCost(n, d) <= w.edgeCost(n, d));
      if (c.edgeCost(n, d) < w.edgeCost(n, d)) ++cheaper;
      const double x = c.nodePosition(n).x;
      if (kind == EdgeKind::Drop && x > 7 && x < 7.5) ++drops_at_ladder;
    }
  CHECK(climbs > 0);                // up the 1.5 m ledge only a ladder leads
  CHECK(drops_at_ladder > 0);       // down it, the drop stays
  CHECK(cheaper == 0);              // no climb here is cheaper than a jump or drop
}

TEST_CASE("custom links snap to the nearest floors and keep label and direction", "[nav][bake]") {
  MeshBuilder level;
  level.floor(0, 0, 5, 5, 0).floor(10, 10, 15, 15, 2);
  auto agent = testAgent();
  agent.links.push_back({{2.1, 0.5, 2.1}, {12.1, 2, 12.1}, "teleport", 3.0, false, ""});
  auto baked = bakeOne(level.mesh(), agent);
  auto& g = baked.graph;
  REQUIRE(g.links.size() == 1);
  CHECK(g.link_labels.at(g.links[0].label) == "teleport");
  CHECK(g.links[0].cost == 3.0f);
  CHECK(g.links[0].from_node == nodeNear(g, 2.1, 0, 2.1));
  CHECK(g.links[0].to_node == nodeNear(g, 12.1, 2, 12.1));
  CHECK(g.link_offsets[g.links[0].from_node + 1] - g.link_offsets[g.links[0].from_node] == 1);
  CHECK(g.link_offsets[g.links[0].to_node + 1] - g.link_offsets[g.links[0].to_node] == 0);
  CHECK(g.component_count == 1);
  CHECK(g.validate().empty());
  agent.links[0].bidirectional = true;
  agent.links[0].cost = -1;  // default: the straight-line distance
  baked = bakeOne(level.mesh(), agent);
  REQUIRE(baked.graph.links.size() == 2);
  CHECK(baked.graph.links[0].cost == Approx(std::sqrt(200.0 + 1.5 * 1.5)));
  // An endpoint with no floor near it is an error naming the link.
  agent.links[0].to = {40, 0, 40};
  nav::BakeProfile profile;
  profile.agents.push_back(agent);
  auto failed = nav::bakeWorld(level.mesh(), profile, {}, "level.obj");
  REQUIRE_FALSE(failed.ok());
  CHECK_THAT(failed.error().message, Catch::Contains("level.obj: agent test: link 0 ('teleport')"));
  // link_snap_height 0 and ends written at the floors' modelled heights (0.2 m and 2.3 m, which
  // float32 stores a few nanometres off): they snap, within the rules' 1 mm tolerance (an audit
  // found such an end refused). 2 mm above the floor is still refused.
  MeshBuilder pads;
  pads.floor(0, 0, 5, 5, 0.2).floor(10, 10, 15, 15, 2.3);
  agent.settings.link_snap_height = 0;
  agent.links[0].from = {2.1, 0.2, 2.1};
  agent.links[0].to = {12.1, 2.3, 12.1};
  REQUIRE(bakeOne(pads.mesh(), agent).graph.links.size() == 2);
  agent.links[0].to = {12.1, 2.302, 12.1};
  profile.agents.front() = agent;
  CHECK_FALSE(nav::bakeWorld(pads.mesh(), profile, {}, "pads.obj").ok());
}

TEST_CASE("a link without a cost is priced by its label's area rule - inf leaves it out", "[nav][bake]") {
  // Spec: "A custom link can use its own label's cost."
  MeshBuilder level;
  level.floor(0, 0, 5, 5, 0).floor(10, 10, 15, 15, 2);
  auto agent = testAgent();
  const sim::Vec3 from{2.1, 0, 2.1}, to{12.1, 2, 12.1};
  const double length = std::sqrt(200.0 + 4.0);
  agent.links.push_back({from, to, "zipline", -1, true, ""});
  agent.areas.push_back({"zip*", "", "zips", 5.0});    // the first matching label rule prices it
  agent.areas.push_back({"zipline", "", "other", 9.0});
  auto baked = bakeOne(level.mesh(), agent);
  REQUIRE(baked.graph.links.size() == 2);
  CHECK(baked.graph.links[0].cost == Approx(5.0 * length).epsilon(1e-6));
  CHECK(baked.graph.links[1].cost == Approx(5.0 * length).epsilon(1e-6));
  // The rule matched a link's label, not a surface's: no warning that it changes nothing.
  CHECK(std::none_of(baked.warnings.begin(), baked.warnings.end(),
                     [](const std::string& w) { return w.find("area rule 0") != std::string::npos; }));
  CHECK(std::any_of(baked.warnings.begin(), baked.warnings.end(),
                    [](const std::string& w) { return w.find("area rule 1") != std::string::npos; }));
  // A route over the link costs what the link does (the floors are apart: no walk between them).
  const nav::LayeredSearchGraph view(baked.graph, baked.profile.settings);
  nav::SearchState state;
  const auto route = nav::findLayeredPath(view, from, to, {}, state);
  REQUIRE(route.ok());
  CHECK(route.cost == Approx(5.0 * length).epsilon(1e-5));
  // An explicit cost wins over the label's.
  agent.links[0].cost = 3.0;
  baked = bakeOne(level.mesh(), agent);
  REQUIRE(baked.graph.links.size() == 2);
  CHECK(baked.graph.links[0].cost == 3.0f);
  // A label whose area costs inf: no candidate, the link is left out both ways.
  agent.links[0].cost = -1;
  agent.areas[0].cost = std::numeric_limits<double>::infinity();
  baked = bakeOne(level.mesh(), agent);
  CHECK(baked.graph.customLinkCount() == 0);
  CHECK(baked.graph.component_count == 2);
  // ... with a warning that says so (it was silent, its label still listed).
  CHECK(baked.graph.link_labels.empty());
  CHECK(std::count_if(baked.warnings.begin(), baked.warnings.end(), [](const std::string& w) {
          return w.find("link 0 ('zipline'): its label matches area rule 0, whose area 'zips' costs inf (never entered): "
                        "the link is left out") != std::string::npos;
        }) == 1);
  // A label no rule matches: the straight-line length.
  agent.areas.clear();
  agent.links[0].label = "ladder";
  baked = bakeOne(level.mesh(), agent);
  REQUIRE(baked.graph.links.size() == 2);
  CHECK(baked.graph.links[0].cost == Approx(length).epsilon(1e-6));
}

TEST_CASE("a link direction landing in an area of cost inf is left out with a warning", "[nav][bake]") {
  // An audit: a link whose label's area costs inf was left out with a warning, one landing on a
  // floor of such an area (a modifier box) silently.
  MeshBuilder level;
  level.floor(0, 0, 3, 3, 0).floor(10, 0, 13, 3, 0);
  auto agent = testAgent();
  agent.modifiers.push_back({{{10, -1, 0}, {13, 1, 3}}, "lava", std::numeric_limits<double>::infinity()});
  const sim::Vec3 ground{1.5, 0, 1.5}, lava{11.5, 0, 1.5}, lava2{12.5, 0, 2.5};
  const auto warned = [](const nav::BakedAgent& baked, const std::string& text) {
    return std::count_if(baked.warnings.begin(), baked.warnings.end(),
                         [&](const std::string& w) { return w.find(text) != std::string::npos; });
  };
  // One way into the lava: no link, its label not listed.
  agent.links = {{ground, lava, "in", 2.0, false, ""}};
  auto baked = bakeOne(level.mesh(), agent);
  CHECK(baked.graph.customLinkCount() == 0);
  CHECK(baked.graph.link_labels.empty());
  CHECK(warned(baked, "link 0 ('in'): its to end lands in area 'lava', which costs inf (never entered): the link is left out") == 1);
  // Two ways: the way out of the lava is kept.
  agent.links = {{ground, lava, "both", 2.0, true, ""}};
  baked = bakeOne(level.mesh(), agent);
  REQUIRE(baked.graph.customLinkCount() == 1);
  CHECK(baked.graph.nodePosition(baked.graph.links[0].from_node).x > 10);
  CHECK(warned(baked, "link 0 ('both'): its to end lands in area 'lava', which costs inf (never entered): only the way from its "
                      "to end to its from end is kept") == 1);
  agent.links = {{lava, ground, "back", 2.0, true, ""}};
  baked = bakeOne(level.mesh(), agent);
  REQUIRE(baked.graph.customLinkCount() == 1);
  CHECK(baked.graph.nodePosition(baked.graph.links[0].from_node).x > 10);
  CHECK(warned(baked, "link 0 ('back'): its from end lands in area 'lava', which costs inf (never entered): only the way from its "
                      "from end to its to end is kept") == 1);
  // Both ends in the lava: left out.
  agent.links = {{lava, lava2, "inside", 2.0, true, ""}};
  baked = bakeOne(level.mesh(), agent);
  CHECK(baked.graph.customLinkCount() == 0);
  CHECK(baked.graph.link_labels.empty());
  CHECK(warned(baked, "link 0 ('inside'): both ends land in area 'lava', which costs inf (never entered): the link is left out") == 1);
  // Into an area that can be entered: no warning.
  agent.links = {{ground, {11.5, 0, 1.5}, "fine", 2.0, true, ""}};
  agent.modifiers.clear();
  baked = bakeOne(level.mesh(), agent);
  CHECK(baked.graph.customLinkCount() == 2);  // both ways
  CHECK(warned(baked, "never entered") == 0);
}

TEST_CASE("areas set edge costs - an infinite cost removes the edges into it", "[nav][bake]") {
  // Mud on x 2..3, lava on x 4..5 of a 6 m strip; a modifier box makes a slow zone at x 0..1.
  MeshBuilder level;
  level.floor(0, 0, 2, 2, 0).floor(2, 0, 3, 2, 0, "mud").floor(3, 0, 4, 2, 0).floor(4, 0, 5, 2, 0, "lava").floor(5, 0, 6, 2, 0);
  auto agent = testAgent();
  agent.areas.push_back({"mud", "", "mud", 3.0});
  agent.areas.push_back({"la*", "", "lava", std::numeric_limits<double>::infinity()});
  agent.modifiers.push_back({{{0, -1, 0}, {1, 1, 2}}, "slow", 2.0});
  const auto baked = bakeOne(level.mesh(), agent);
  const auto& g = baked.graph;
  const uint32_t into_mud = nodeNear(g, 1.875, 0, 1);
  REQUIRE(into_mud != kNoNode);
  CHECK(g.area_names[g.area[g.neighborOf(into_mud, kEast)]] == "mud");
  CHECK(g.edgeCost(into_mud, kEast) == Approx(0.25 * 3));
  CHECK(g.edgeKind(nodeNear(g, 3.875, 0, 1), kEast) == EdgeKind::None);  // into lava
  CHECK(g.edgeKind(nodeNear(g, 4.125, 0, 1), kWest) == EdgeKind::Walk);  // out of lava is fine
  const uint32_t slow = nodeNear(g, 0.5, 0, 1);
  CHECK(g.area_names[g.area[slow]] == "slow");
  CHECK((g.flags[slow] & nav::kNodeModified) != 0);
}

TEST_CASE("a modifier box's sides on column centres hold those columns, both sides alike", "[nav][bake]") {
  // An audit: at cell 0.3 a box from x 0.45 to 1.05 held the centre at 1.05 (3.5 * 0.3, exact)
  // but not the one at 0.45 (1.5 * 0.3 = 0.44999999999999996), so a box placed from printed
  // positions was one-sided. The same for z. The on-demand search assigns areas alike.
  MeshBuilder level;
  level.floor(0, 0, 3, 3, 0);
  auto agent = testAgent();
  agent.settings.cell_size = 0.3;
  agent.modifiers.push_back({{{0.45, -1, 0.45}, {1.05, 1, 1.05}}, "zone", 2.0});
  const auto baked = bakeOne(level.mesh(), agent);
  const auto& g = baked.graph;
  int zone = 0;
  for (uint32_t n = 0; n < g.nodeCount(); ++n) {
    const auto p = g.nodePosition(n);
    const bool inside = p.x > 0.4 && p.x < 1.1 && p.z > 0.4 && p.z < 1.1;
    INFO(p.x << "," << p.z);
    CHECK((g.area_names[g.area[n]] == "zone") == inside);
    zone += inside;
  }
  CHECK(zone == 9);  // centres 0.45, 0.75, 1.05 both ways
}

TEST_CASE("a modifier box as flat as its floor takes it - its height within 1 mm", "[nav][bake]") {
  // An audit: a box from 3.2 to 3.2 missed a floor authored at 3.2, stored as 3.2000000477.
  MeshBuilder level;
  level.floor(0, 0, 3, 2, 0).box({4, 0, 0}, {7, 3.2, 2});
  auto agent = testAgent();
  agent.modifiers.push_back({{{4, 3.2, 0}, {7, 3.2, 2}}, "roof", 2.0});
  agent.modifiers.push_back({{{0, 0.0011, 0}, {3, 5, 2}}, "above", 3.0});  // 1.1 mm over the ground
  const auto baked = bakeOne(level.mesh(), agent);
  const auto& g = baked.graph;
  int roof = 0;
  for (uint32_t n = 0; n < g.nodeCount(); ++n) {
    const auto p = g.nodePosition(n);
    INFO(p.x << "," << p.y << "," << p.z);
    CHECK(g.area_names[g.area[n]] == (p.x > 4 ? "roof" : "default"));
    roof += p.x > 4;
  }
  CHECK(roof > 0);
  // Far up, the tolerance grows with float32's spacing (an audit: 70 km up, a box authored at a
  // crate's top, 70000.3, missed the floor stored as 70000.296875, 3 mm under it).
  for (const double up : {7e4, 1e5, 999960.0}) {
    INFO("y " << up);
    MeshBuilder high;
    high.floor(0, 0, 3, 2, up).box({4, up, 0}, {7, up + 0.3, 2});
    auto raised = testAgent();
    raised.modifiers.push_back({{{4, up + 0.3, 0}, {7, up + 0.3, 2}}, "roof", 2.0});
    const auto raised_bake = bakeOne(high.mesh(), raised);
    int top = 0;
    for (uint32_t n = 0; n < raised_bake.graph.nodeCount(); ++n) {
      const auto p = raised_bake.graph.nodePosition(n);
      CHECK(raised_bake.graph.area_names[raised_bake.graph.area[n]] == (p.x > 4 ? "roof" : "default"));
      top += p.x > 4;
    }
    CHECK(top > 0);
  }
}

TEST_CASE("an area rule or climbable glob that matches nothing is warned about", "[nav][bake]") {
  // An audit: a misspelt label or a tag written as the source file's path ("level/pit*" for an
  // OBJ object imported as "m2/level_pit") baked without a word and changed nothing.
  MeshBuilder level;
  level.floor(0, 0, 3, 2, 0, "ground").box({4, 0, 0}, {7, 1, 2}, "crate", "level/crate");
  auto agent = testAgent();
  agent.areas.push_back({"lava*", "", "lava", 10.0});
  agent.areas.push_back({"", "level/cr*", "crates", 2.0});
  agent.areas.push_back({"", "level/pit*", "pit", 5.0});
  agent.areas.push_back({"gr?und", "", "grass", 2.0});
  agent.climbable = {"ladder", "cr*"};
  nav::BakeProfile profile;
  profile.agents.push_back(agent);
  auto baked = nav::bakeWorld(level.mesh(), profile, nav::BakeOptions{}, "level.obj");
  REQUIRE(baked.ok());
  const std::string prefix = "level.obj: agent " + agent.settings.name + ": ";
  // Climbable globs are checked only for an agent that can climb; for one that cannot, the
  // climbable labels themselves change nothing (an audit: can_climb forgotten, no word of it).
  CHECK(baked->agents[0].warnings ==
        std::vector<std::string>{prefix + "area rule 0 (label 'lava*') matches no surface label of the mesh and no link priced by its label, and changes nothing",
                                 prefix + "area rule 2 (tag 'level/pit*') matches no surface tag of the mesh and changes nothing",
                                 prefix + "climbable: can_climb is false, so the climbable labels change nothing (set can_climb = true to climb them)"});
  profile.agents[0].settings.can_climb = true;
  baked = nav::bakeWorld(level.mesh(), profile, nav::BakeOptions{}, "level.obj");
  REQUIRE(baked.ok());
  REQUIRE(baked->agents[0].warnings.size() == 3);
  CHECK(baked->agents[0].warnings[2] == prefix + "climbable 'ladder' matches no surface label of the mesh and changes nothing");
  // Where the parser says where each entry was written, the warnings say it, and name the mesh.
  profile.agents[0].area_sources = {"p.toml:5:1: agent.a.areas[0]", "p.toml:9:1: agent.a.areas[1]",
                                    "p.toml:13:1: agent.a.areas[2]", "p.toml:17:1: agent.a.areas[3]"};
  profile.agents[0].climbable_source = "p.toml:3:13: agent.a.climbable";
  baked = nav::bakeWorld(level.mesh(), profile, nav::BakeOptions{}, "level.obj");
  REQUIRE(baked.ok());
  CHECK(baked->agents[0].warnings ==
        std::vector<std::string>{"p.toml:5:1: agent.a.areas[0] (label 'lava*') matches no surface label of level.obj and no link priced by its label, and changes nothing",
                                 "p.toml:13:1: agent.a.areas[2] (tag 'level/pit*') matches no surface tag of level.obj and changes nothing",
                                 "p.toml:3:13: agent.a.climbable: 'ladder' matches no surface label of level.obj and changes nothing"});
}

TEST_CASE("a modifier box that holds no floor node is warned about", "[nav][bake]") {
  // An audit: a 6 cm wall of lava (cost inf) across a corridor held no column centre, baked
  // without a word, and routes walked through it; a box away from the level likewise.
  MeshBuilder level;
  level.floor(0, 0, 10, 2, 0);
  auto agent = testAgent();
  agent.settings.cell_size = 0.25;
  const double inf = std::numeric_limits<double>::infinity();
  agent.modifiers.push_back({{{5.02, -1, -1}, {5.08, 2, 3}}, "lava", inf});  // between the centres 4.875 and 5.125
  agent.modifiers.push_back({{{3.0, -1, -1}, {3.3, 2, 3}}, "mud", 2.0});     // holds the column at 3.125
  agent.modifiers.push_back({{{50, -1, 0}, {51, 2, 1}}, "far", 2.0});       // off the level
  agent.modifiers.push_back({{{1, 5, 0}, {2, 6, 2}}, "high", 2.0});         // above the floor
  nav::BakeProfile profile;
  profile.agents.push_back(agent);
  auto baked = nav::bakeWorld(level.mesh(), profile, nav::BakeOptions{}, "level.obj");
  REQUIRE(baked.ok());
  const std::string tail = ": holds no floor node and changes nothing (a floor counts as inside when its column's centre, "
                           "at the floor's height, lies in the box; columns are 0.25 m apart)";
  const std::string prefix = "level.obj: agent " + agent.settings.name + ": ";
  CHECK(baked->agents[0].warnings == std::vector<std::string>{prefix + "modifier 0 (area 'lava')" + tail,
                                                              prefix + "modifier 2 (area 'far')" + tail,
                                                              prefix + "modifier 3 (area 'high')" + tail});
  profile.agents[0].modifier_sources = {"p.toml:2:1: agent.a.modifiers[0]"};  // known for the first only
  baked = nav::bakeWorld(level.mesh(), profile, nav::BakeOptions{}, "level.obj");
  REQUIRE(baked.ok());
  REQUIRE(baked->agents[0].warnings.size() == 3);
  CHECK(baked->agents[0].warnings[0] == "p.toml:2:1: agent.a.modifiers[0] (area 'lava') in level.obj" + tail);
  CHECK(baked->agents[0].warnings[1] == prefix + "modifier 2 (area 'far')" + tail);
  // The warning is all it does: the route still crosses where the box holds no node.
  const auto& g = baked->agents[0].graph;
  CHECK(g.edgeKind(nodeNear(g, 4.875, 0, 1), kEast) == EdgeKind::Walk);
  // A volume whose area another entry uses may give it the cost that entry takes (a re-audit: an
  // area rule without `cost` after it): it holds no node, and the warning claims no more.
  profile.agents[0].modifiers.resize(1);
  profile.agents[0].modifier_sources.clear();
  profile.agents[0].areas.push_back({"default", "", "lava", inf});
  baked = nav::bakeWorld(level.mesh(), profile, nav::BakeOptions{}, "level.obj");
  REQUIRE(baked.ok());
  CHECK(baked->agents[0].warnings ==
        std::vector<std::string>{prefix + "modifier 0 (area 'lava'): holds no floor node, so it marks none with its area (a floor "
                                          "counts as inside when its column's centre, at the floor's height, lies in the box; columns "
                                          "are 0.25 m apart)"});
}

TEST_CASE("a custom link whose every way an earlier link adds is kept and warned about", "[nav][bake]") {
  // An audit: two identical links baked without a word, counted as two. A way is the same when
  // it joins the same floors in the same direction with the same label and cost.
  MeshBuilder floor;
  floor.box({0, -0.2, 0}, {10, 0, 10});
  auto agent = testAgent();
  agent.settings.cell_size = 0.3;
  agent.links.push_back({{1, 0, 1}, {8, 0, 8}, "zip", -1, false, {}});
  agent.links.push_back({{1, 0, 1}, {8, 0, 8}, "zip", -1, true, {}});   // adds the way back: not a copy
  agent.links.push_back({{1, 0, 1}, {8, 0, 8}, "zip", 5.0, false, {}});  // its own cost: not a copy
  agent.links.push_back({{1, 0, 1}, {8, 0, 8}, "zap", -1, false, {}});   // another label: not a copy
  agent.links.push_back({{1.05, 0, 1.02}, {8, 0, 8}, "zip", 5.0, false, {}});  // other ends on the same floors, the same cost: a copy of 2
  agent.links.push_back({{8, 0, 8}, {1, 0, 1}, "zip", -1, false, "p.toml:20:1: agent.a.links[5]"});  // along link 1's way back
  agent.links.push_back({{2, 0, 2}, {2.05, 0, 2.02}, "hop", -1, false, {}});  // leads nowhere: left out, one warning
  agent.links.push_back({{2, 0, 2}, {2.05, 0, 2.02}, "hop", -1, false, {}});  // (so is its copy, with no other)
  nav::BakeProfile profile;
  profile.agents.push_back(agent);
  const auto baked = nav::bakeWorld(floor.mesh(), profile, nav::BakeOptions{}, "floor.obj");
  REQUIRE(baked.ok());
  const auto& result = baked->agents[0];
  const std::string prefix = "floor.obj: agent " + agent.settings.name + ": ";
  for (const auto& w : result.warnings) UNSCOPED_INFO(w);
  REQUIRE(result.warnings.size() == 4);
  CHECK(result.warnings[0] == prefix + "link 4 ('zip'): link 2 already joins the same floors the same way, with the same label and "
                                       "cost: the copy adds nothing a route needs");
  CHECK(result.warnings[1] == "p.toml:20:1: agent.a.links[5] ('zip'): link 1 already joins the same floors the same way, with the "
                              "same label and cost in floor.obj: the copy adds nothing a route needs");
  CHECK_THAT(result.warnings[2], Catch::StartsWith(prefix + "link 6 ('hop'): both ends snap to the one floor node"));
  CHECK_THAT(result.warnings[3], Catch::StartsWith(prefix + "link 7 ('hop'): both ends snap to the one floor node"));
  // Kept as written: one edge per way of every link but the two that lead nowhere.
  CHECK(result.graph.links.size() == 7);
}
TEST_CASE("area rules: the first matching rule in profile order wins - literal or wildcard - among many names", "[nav][bake]") {
  // Literal globs go through a hash index and wildcard ones are matched in turn: the rule chosen
  // must still be the first in profile order, and the area table keeps profile order.
  MeshBuilder level;
  level.floor(0, 0, 2, 2, 0, "abc").floor(3, 0, 5, 2, 0, "abd").floor(6, 0, 8, 2, 0, "xyz").floor(9, 0, 11, 2, 0, "other");
  auto agent = testAgent();
  agent.areas.push_back({"ab?", "", "wild_first", 2.0});   // before the literal "abc": wins for abc and abd
  agent.areas.push_back({"abc", "", "literal_abc", 3.0});
  agent.areas.push_back({"xyz", "", "literal_xyz", 4.0});  // before the wildcard: wins for xyz
  agent.areas.push_back({"x*", "", "wild_x", 5.0});
  for (int i = 0; i < 3000; ++i) agent.areas.push_back({"unused" + std::to_string(i), "", "a" + std::to_string(i % 1500), 1.5});
  agent.modifiers.push_back({{{9.2, -1, 0.2}, {10.8, 1, 1.8}}, "a1499", 1.5});  // an existing name: no new entry
  const auto baked = bakeOne(level.mesh(), agent);
  const auto& g = baked.graph;
  REQUIRE(g.area_names.size() == 1 + 4 + 1500);
  CHECK(g.area_names[1] == "wild_first");
  CHECK(g.area_names[4] == "wild_x");
  CHECK(g.area_names[5] == "a0");
  CHECK(g.area_names.back() == "a1499");
  const auto areaAt = [&](double x, double z) {
    const uint32_t n = g.columnBegin(g.grid.columnX(x), g.grid.columnZ(z));
    REQUIRE(n < g.columnEnd(g.grid.columnX(x), g.grid.columnZ(z)));
    return g.area_names[g.area[n]];
  };
  CHECK(areaAt(1, 1) == "wild_first");
  CHECK(areaAt(4, 1) == "wild_first");
  CHECK(areaAt(7, 1) == "literal_xyz");
  CHECK(areaAt(10, 1) == "a1499");
  CHECK(areaAt(9.1, 1) == "default");
}

TEST_CASE("a modifier box of +-1e9 m covers every node", "[nav][bake]") {
  // Beyond int32 columns: the box's column range saturates instead of overflowing to empty.
  MeshBuilder level;
  level.floor(0, 0, 3, 2, 0);
  for (const double extent : {1e9, 1e30, std::numeric_limits<double>::max()}) {
    auto agent = testAgent();
    agent.modifiers.push_back({{{-extent, -extent, -extent}, {extent, extent, extent}}, "slow", 2.0});
    const auto baked = bakeOne(level.mesh(), agent);
    const auto& g = baked.graph;
    REQUIRE(g.nodeCount() > 0);
    INFO(extent);
    for (uint32_t n = 0; n < g.nodeCount(); ++n) CHECK(g.area_names[g.area[n]] == "slow");
  }
}

TEST_CASE("a bake whose estimated graph exceeds the memory limit is refused before any work", "[nav][bake]") {
  // 40 m x 40 m of floor at 0.3 m: about 17,800 nodes, about 2.1 MB at kBakeBytesPerNode.
  MeshBuilder level;
  level.floor(-20, -20, 20, 20, 0).box({30, 0, 30}, {31, 50, 31});  // a pillar: its walls are not floor
  nav::BakeProfile profile;
  profile.agents.push_back(testAgent());
  profile.agents[0].settings.cell_size = 0.3;
  nav::BakeOptions options;
  options.memory_limit_bytes = 1'000'000;
  auto refused = nav::bakeWorld(level.mesh(), profile, options, "level.obj");
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().kind == strata::ErrorKind::BadInput);
  CHECK_THAT(refused.error().message, Catch::StartsWith("level.obj: agent test: about 1.78e+04 floor nodes in 2.92e+04 columns at cell_size 0.3 m") &&
                                          Catch::Contains("raise cell_size"));
  options.memory_limit_bytes = 3'000'000;
  auto baked = nav::bakeWorld(level.mesh(), profile, options, "level.obj");
  REQUIRE(baked.ok());
  const double nodes = static_cast<double>(baked->agents[0].graph.nodeCount());
  CHECK(nodes == Approx(1600 / 0.09).epsilon(0.05));  // the estimate is close to the real count
  // Agents are held together: two that fit alone but not together are refused, before any work.
  profile.agents.push_back(testAgent());
  profile.agents[1].settings.name = "twin";
  profile.agents[1].settings.cell_size = 0.3;
  auto both = nav::bakeWorld(level.mesh(), profile, options, "level.obj");
  REQUIRE_FALSE(both.ok());
  CHECK_THAT(both.error().message, Catch::Contains("agent test: about 1.78e+04 floor nodes in 2.92e+04 columns at cell_size 0.3 m, agent twin: about") &&
                                       Catch::Contains("GB together, more than the 0.003 GB of memory"));
  // Columns count as well: two 2 m floors 600 m apart at 0.3 m are few floors in 4e6 columns,
  // which the graph keeps (4 bytes each) and the bake holds more of while it runs (an audit:
  // two floors 2 km apart at 0.2 m took 0.4 GB an agent past an estimate of 24 kB).
  MeshBuilder sparse;
  sparse.floor(0, 0, 2, 2, 0).floor(598, 598, 600, 600, 0);
  profile.agents.resize(1);
  options.memory_limit_bytes = 20'000'000;
  auto wide = nav::bakeWorld(sparse.mesh(), profile, options, "sparse.obj");
  REQUIRE_FALSE(wide.ok());
  CHECK_THAT(wide.error().message, Catch::StartsWith("sparse.obj: agent test: about 88.9 floor nodes in 4e+06 columns") &&
                                       Catch::Contains("would need about 0.036 GB, more than the 0.02 GB of memory"));
  options.memory_limit_bytes = 40'000'000;
  CHECK(nav::bakeWorld(sparse.mesh(), profile, options, "sparse.obj").ok());
}

TEST_CASE("sweep bins that would not fit in the memory left beside the graph refuse the agent", "[nav][bake]") {
  // 50 slopes of 60 degrees (no floor) over one 60 m square, each triangle in every 4 x 4-column
  // bin of it (2,500 at 0.3 m): about 250,000 entries of 36-40 bytes, 10 MB, for a graph of a
  // 4 m floor and 40,000 columns (under 0.5 MB). The tiles' lists (4-byte entries per 32-column
  // tile) fit. The bins are built beside the column stage against the estimated graph and asked
  // again at the edge stage: at any thread count the same refusal, and nothing refused with room.
  MeshBuilder level;
  level.floor(0, 0, 4, 4, 0);
  for (int i = 0; i < 50; ++i) {
    const double y = 2.0 * i;
    level.quad({0, y, 0}, {0, y, 60}, {60, y + 104, 60}, {60, y + 104, 0}, {-1, 0.6, 0});
  }
  nav::BakeProfile profile;
  profile.agents.push_back(testAgent());
  profile.agents[0].settings.cell_size = 0.3;
  for (const int threads : {1, 2}) {
    INFO("threads " << threads);
    nav::BakeOptions options;
    options.threads = threads;
    options.memory_limit_bytes = 4'000'000;
    auto refused = nav::bakeWorld(level.mesh(), profile, options, "level.obj");
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().kind == strata::ErrorKind::BadInput);
    CHECK_THAT(refused.error().message,
               Catch::StartsWith("level.obj: agent test: its triangles, each listed once per sweep bin of columns it spans, make 2.") &&
                   Catch::Contains("e+05 entries at cell_size 0.3 m"));
    options.memory_limit_bytes = 40'000'000;
    auto baked = nav::bakeWorld(level.mesh(), profile, options, "level.obj");
    REQUIRE(baked.ok());
    CHECK(baked->agents[0].graph.nodeCount() > 0);
  }
}

TEST_CASE("the memory estimate counts route-distance fields - a float per node each", "[nav][bake]") {
  // An audit: 10,000 fields of max_distance 0.5 on a 100 m square were estimated at 13 MB and
  // ran out of memory after the whole bake (4.4 GB kept, twice that while written).
  MeshBuilder level;
  level.floor(-20, -20, 20, 20, 0);
  nav::BakeProfile profile;
  profile.agents.push_back(testAgent());
  profile.agents[0].settings.cell_size = 0.3;
  nav::BakeOptions options;
  options.memory_limit_bytes = 3'000'000;  // about 2.4 MB without fields: baked (the test above)
  REQUIRE(nav::bakeWorld(level.mesh(), profile, options, "level.obj").ok());
  for (int i = 0; i < 10; ++i) profile.agents[0].fields.push_back({"f" + std::to_string(i), {0.15 * i, 0, 0.15}, 0.5, ""});
  auto refused = nav::bakeWorld(level.mesh(), profile, options, "level.obj");
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().kind == strata::ErrorKind::BadInput);
  CHECK_THAT(refused.error().message,
             Catch::StartsWith("level.obj: agent test: about 1.78e+04 floor nodes in 1.8e+04 columns at cell_size 0.3 m with 10 route-distance fields would need about") &&
                 Catch::EndsWith("raise cell_size or bake fewer fields"));
  options.memory_limit_bytes = 5'000'000;
  auto baked = nav::bakeWorld(level.mesh(), profile, options, "level.obj");
  REQUIRE(baked.ok());
  CHECK(baked->agents[0].graph.fields.size() == 10);
}

TEST_CASE("components are numbered in node order and split unconnected floors", "[nav][bake]") {
  MeshBuilder level;
  level.floor(0, 0, 2, 2, 0).floor(5, 0, 7, 2, 0).floor(0, 5, 2, 7, 0);
  const auto baked = bakeOne(level.mesh(), testAgent());
  const auto& g = baked.graph;
  CHECK(g.component_count == 3);
  CHECK(g.component[0] == 0);
  uint32_t highest = 0;
  for (uint32_t n = 0; n < g.nodeCount(); ++n) {
    CHECK(g.component[n] <= highest + 1);  // a new id is always the next one
    highest = std::max(highest, g.component[n]);
  }
}

TEST_CASE("route-distance fields equal a brute-force shortest-route oracle", "[nav][bake][field]") {
  // An L-shaped floor with a 0.3 m step and a 0.8 m ledge: walk, jump and drop edges.
  MeshBuilder level;
  level.floor(0, 0, 4, 1.5, 0).floor(0, 1.5, 1.5, 4, 0).box({2.5, 0, 0}, {4, 0.3, 1.5}).box({0, 0, 3}, {1.5, 0.8, 4});
  auto agent = testAgent();
  agent.fields.push_back({"origin", {0.2, 0, 0.2}, 6.0, ""});
  const auto baked = bakeOne(level.mesh(), agent);
  const auto& g = baked.graph;
  REQUIRE(g.fields.size() == 1);
  const auto& field = g.fields[0];
  CHECK(field.distance[field.origin_node] == 0.0f);
  // Bellman-Ford over every edge.
  std::vector<double> best(g.nodeCount(), std::numeric_limits<double>::infinity());
  best[field.origin_node] = 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t n = 0; n < g.nodeCount(); ++n)
      for (int d = 0; d < nav::kDirectionCount; ++d) {
        const uint32_t m = g.neighborOf(n, d);
        if (m != kNoNode && best[n] + g.edgeCost(n, d) < best[m] - 1e-12) best[m] = best[n] + g.edgeCost(n, d), changed = true;
      }
  }
  std::size_t reached = 0;
  for (uint32_t n = 0; n < g.nodeCount(); ++n) {
    if (best[n] <= 6.0 * (1 + 1e-6)) {  // up to max_distance, with the float32 costs' slack
      ++reached;
      CHECK(field.distance[n] == Approx(best[n]).margin(1e-4));
    } else {
      CHECK(std::isinf(field.distance[n]));
    }
  }
  CHECK(reached > 100);
}

TEST_CASE("the bake is identical at 1 and 2 threads", "[nav][bake][determinism]") {
  MeshBuilder level;
  level.floor(0, 0, 20, 20, 0).box({5, 0, 5}, {8, 0.6, 9}).box({10, 2.8, 0}, {14, 3, 20}).box({2, 0, 12}, {2.05, 2, 18});
  auto agent = testAgent();
  agent.fields.push_back({"f", {1, 0, 1}, 50, ""});
  const auto one = bakeOne(level.mesh(), agent, 1);
  const auto two = bakeOne(level.mesh(), agent, 2);
  const auto& a = one.graph;
  const auto& b = two.graph;
  CHECK(a.column_offsets == b.column_offsets);
  CHECK(a.height == b.height);
  CHECK(a.headroom == b.headroom);
  CHECK(a.clearance == b.clearance);
  CHECK(a.component == b.component);
  CHECK(a.neighbor == b.neighbor);
  CHECK(a.edge_kind == b.edge_kind);
  CHECK(a.edge_cost == b.edge_cost);
  CHECK(a.fields[0].distance == b.fields[0].distance);
}

TEST_CASE("the bake does not depend on the tile size or the thread count", "[nav][bake][determinism]") {
  // Tiles are the unit of parallel work of the column stage, and their size follows the thread
  // count on small grids; bands of rows split clearance and components by thread count. Floors
  // straddling tile borders, a thin wall, a raised block and a ledge exercise every stage.
  MeshBuilder level;
  level.floor(0, 0, 20, 20, 0).box({5, 0, 5}, {8, 0.6, 9}).box({10, 2.8, 0}, {14, 3, 20}).box({2, 0, 12}, {2.05, 2, 18});
  level.box({15, 0, 3}, {19, 1.2, 7});
  auto bake = [&](int tile_cells, int threads) {
    nav::BakeProfile profile;
    profile.agents.push_back(testAgent());
    nav::BakeOptions options;
    options.tile_cells = tile_cells;
    options.threads = threads;
    auto result = nav::bakeWorld(level.mesh(), profile, options, "fixture");
    REQUIRE(result.ok());
    return std::move(result->agents.front().graph);
  };
  const nav::LayeredGraph reference = bake(32, 1);
  REQUIRE(reference.nodeCount() > 6000);
  for (auto [tile_cells, threads] : {std::pair{4, 1}, std::pair{7, 2}, std::pair{13, 3}, std::pair{1024, 2}, std::pair{32, 8}}) {
    INFO("tile_cells " << tile_cells << ", threads " << threads);
    const nav::LayeredGraph g = bake(tile_cells, threads);
    CHECK(g.column_offsets == reference.column_offsets);
    CHECK(g.height == reference.height);
    CHECK(g.headroom == reference.headroom);
    CHECK(g.area == reference.area);
    CHECK(g.neighbor == reference.neighbor);
    CHECK(g.edge_kind == reference.edge_kind);
    CHECK(g.edge_cost == reference.edge_cost);
    CHECK(g.clearance == reference.clearance);
    CHECK(g.flags == reference.flags);
    CHECK(g.component == reference.component);
    CHECK(g.region == reference.region);
    CHECK(g.region_reach == reference.region_reach);
  }
}

TEST_CASE("bad settings and meshes are errors, never crashes", "[nav][bake]") {
  MeshBuilder level;
  level.floor(0, 0, 1, 1, 0);
  nav::BakeProfile profile;
  profile.agents.push_back(testAgent());
  profile.agents[0].settings.radius = -1;
  auto result = nav::bakeWorld(level.mesh(), profile, {}, "x.obj");
  REQUIRE_FALSE(result.ok());
  CHECK_THAT(result.error().message, Catch::Contains("radius"));
  // A mesh with no triangles bakes to an empty graph.
  sim::TriangleMesh empty;
  empty.labels = {"default"};
  empty.tags = {""};
  profile.agents[0] = testAgent();
  auto baked = nav::bakeWorld(empty, profile, {}, "empty");
  REQUIRE(baked.ok());
  CHECK(baked->agents[0].graph.nodeCount() == 0);
  CHECK(baked->agents[0].graph.validate().empty());
  // Tiny cell over a huge extent: refused with a message, not an allocation failure.
  MeshBuilder huge;
  huge.floor(-500000, -500000, 500000, 500000, 0);
  profile.agents[0].settings.cell_size = 0.02;
  auto refused = nav::bakeWorld(huge.mesh(), profile, {}, "huge.obj");
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.error().message, Catch::Contains("raise cell_size"));
}

TEST_CASE("layered A*: across an open floor it expands about the route's columns, not every route of equal length",
          "[nav][layered]") {
  // On open ground every 8-connected route that goes diagonally for the shorter axis and
  // straight for the rest has the same length: a parallelogram of ties (here 150 x 150 columns).
  // Their f values differed in the last bits of the sums of their edge costs, so the open set
  // ordered them by rounding noise and A* expanded most of them (a 600 m floor: 84,000
  // expansions for a 262 m route, the 400,000 budget spent on a 540 m one). Keyed on f rounded to
  // float32 they tie, and the deeper node (pushed last) goes first.
  MeshBuilder m;
  m.floor(0, 0, 90, 60, 0);
  nav::AgentProfile agent = testAgent();
  agent.settings.cell_size = 0.3;
  const nav::BakedAgent baked = bakeOne(m.mesh(), agent);
  const nav::LayeredSearchGraph view(baked.graph, baked.profile.settings);
  nav::SearchState state;
  nav::LayeredSearchSettings settings;
  settings.method = nav::SearchMethod::AStar;
  const sim::Vec3 from{1.05, 0, 1.05}, to{1.05 + 0.3 * 280, 0, 1.05 + 0.3 * 150};  // column centres
  const nav::PathResult route = nav::findLayeredPath(view, from, to, settings, state);
  REQUIRE(route.ok());
  CHECK(route.cost == Approx(0.3 * (130 + 150 * std::sqrt(2.0))).epsilon(1e-6));  // the octile distance: still exact
  CHECK(route.expansions < 2 * 280);
}

TEST_CASE("layered Theta*: a straight line no route can beat is the answer without a search", "[nav][layered]") {
  // On an open floor the line from start to goal walks for its lower bound (length plus half
  // the height change at the cheapest rate), so no route costs less: it is the answer, with no
  // node expanded (a 540 m line on an open floor took Theta* 14,000 expansions and 2.8 s).
  nav::AgentProfile agent = testAgent();
  agent.settings.cell_size = 0.3;
  nav::SearchState state;
  nav::LayeredSearchSettings settings;
  settings.method = nav::SearchMethod::Theta;
  const sim::Vec3 from{1.05, 0, 1.05}, to{1.05 + 0.3 * 280, 0, 1.05 + 0.3 * 150};  // column centres
  const double straight = std::hypot(to.x - from.x, to.z - from.z);
  {
    MeshBuilder m;
    m.floor(0, 0, 90, 60, 0);
    const nav::BakedAgent baked = bakeOne(m.mesh(), agent);
    const nav::LayeredSearchGraph view(baked.graph, baked.profile.settings);
    CHECK(view.straightCostBoundsRoutes());
    const nav::PathResult route = nav::findLayeredPath(view, from, to, settings, state);
    REQUIRE(route.ok());
    CHECK(route.expansions == 0);
    CHECK(route.cost == Approx(straight).epsilon(1e-9));
    CHECK(route.length == Approx(straight).epsilon(1e-9));
    // A budget of one expansion still buys it; A* still searches.
    nav::LayeredSearchSettings one = settings;
    one.limits.max_expansions = 1;
    CHECK(nav::findLayeredPath(view, from, to, one, state).ok());
    nav::LayeredSearchSettings astar = settings;
    astar.method = nav::SearchMethod::AStar;
    CHECK(nav::findLayeredPath(view, from, to, astar, state).expansions > 0);
  }
  {
    // A low step across the line (up 0.2 m, down again): the line walks for more than its
    // bound, so the search runs (a way round could be cheaper), and its route is no dearer.
    MeshBuilder m;
    m.floor(0, 0, 90, 60, 0).box({40, 0, -1}, {42, 0.2, 61});
    const nav::BakedAgent baked = bakeOne(m.mesh(), agent);
    const nav::LayeredSearchGraph view(baked.graph, baked.profile.settings);
    const nav::PathResult route = nav::findLayeredPath(view, from, to, settings, state);
    REQUIRE(route.ok());
    CHECK(route.expansions > 0);
    CHECK(route.cost <= view.shortcutCost(nav::snapToNode(baked.graph, from, settings.snap),
                                          nav::snapToNode(baked.graph, to, settings.snap)) * (1 + 1e-12));
  }
  {
    // A link cheaper than walking its span lowers the cheapest rate to its own (cost per metre
    // of span), so the line walks for far more than its bound: the search runs and takes it.
    MeshBuilder m;
    m.floor(0, 0, 90, 60, 0);
    nav::AgentProfile linked = agent;
    linked.links.push_back({{2.0, 0.0, 2.0}, {80.0, 0.0, 45.0}, "tube", 1.0, false, ""});
    const nav::BakedAgent baked = bakeOne(m.mesh(), linked);
    const nav::LayeredSearchGraph view(baked.graph, baked.profile.settings);
    CHECK(view.costPerMetre() < 0.02);
    const nav::PathResult route = nav::findLayeredPath(view, from, to, settings, state);
    REQUIRE(route.ok());
    CHECK(route.expansions > 0);
    CHECK(route.cost < 0.2 * straight);
    CHECK(std::any_of(route.waypoints.begin(), route.waypoints.end(), [](const nav::Waypoint& w) { return w.action == nav::MoveAction::Link; }));
  }
  {
    // The default cost of a steep link, its straight 3D length, is below the bound (length plus
    // half the rise): that alone ends it.
    MeshBuilder m;
    m.floor(0, 0, 10, 10, 0).floor(20, 0, 30, 10, 8);
    nav::AgentProfile steep = agent;
    steep.links.push_back({{8.0, 0.0, 5.0}, {22.0, 8.0, 5.0}, "lift", -1, false, ""});
    const nav::BakedAgent baked = bakeOne(m.mesh(), steep);
    REQUIRE(baked.graph.links.size() == 1);
    CHECK_FALSE(nav::LayeredSearchGraph(baked.graph, baked.profile.settings).straightCostBoundsRoutes());
  }
}

TEST_CASE("layered search: the heuristic's rate is the cheapest area a node has, not one of the table alone",
          "[nav][layered]") {
  // A floor all of mud at cost 2: the "default" area (cost 1) stays in the table but no node has
  // it. Its rate halved the heuristic: a straight 240 m walk took A* 303,000 expansions and
  // Theta* 346,000 (an audit), where a floor at cost 1 takes a few hundred and none.
  MeshBuilder m;
  m.floor(0, 0, 90, 60, 0, "mud");
  nav::AgentProfile agent = testAgent();
  agent.settings.cell_size = 0.3;
  agent.areas.push_back({"mud", "", "mud", 2.0});
  const nav::BakedAgent baked = bakeOne(m.mesh(), agent);
  REQUIRE(baked.graph.area_costs.size() == 2);
  REQUIRE(baked.graph.area_costs[0] == 1.0f);  // "default", which no node has
  const nav::LayeredSearchGraph view(baked.graph, baked.profile.settings);
  CHECK(view.costPerMetre() == 2.0);
  CHECK(view.straightCostBoundsRoutes());
  nav::SearchState state;
  nav::LayeredSearchSettings settings;
  const sim::Vec3 from{1.05, 0, 1.05}, to{1.05 + 0.3 * 280, 0, 1.05 + 0.3 * 150};  // column centres
  settings.method = nav::SearchMethod::AStar;
  const nav::PathResult astar = nav::findLayeredPath(view, from, to, settings, state);
  REQUIRE(astar.ok());
  CHECK(astar.cost == Approx(2 * 0.3 * (130 + 150 * std::sqrt(2.0))).epsilon(1e-6));
  CHECK(astar.expansions < 2 * 280);
  settings.method = nav::SearchMethod::Theta;
  const nav::PathResult theta = nav::findLayeredPath(view, from, to, settings, state);
  REQUIRE(theta.ok());
  CHECK(theta.expansions == 0);
  CHECK(theta.cost == Approx(2 * std::hypot(to.x - from.x, to.z - from.z)).epsilon(1e-9));
}

TEST_CASE("layered search: the way out of a never-entered area costs what the area it leads into costs", "[nav][layered]") {
  // A start inside lava (cost inf: never entered, only a start can lie in it). A* charges the
  // step out at the road's cost; the line tests charged the lava part at the heuristic's rate,
  // which a cheap link lowers below every area's cost: 0.29 for a 0.5 m step (an audit).
  MeshBuilder m;
  m.floor(0, 0, 20, 50, 0, "road").floor(20, 0, 30, 50, 0, "lava").floor(30, 0, 50, 50, 0, "road");
  nav::AgentProfile agent = testAgent();
  agent.settings.cell_size = 0.5;
  agent.areas.push_back({"lava", "", "lava", std::numeric_limits<double>::infinity()});
  agent.areas.push_back({"road", "", "road", 2.0});
  agent.links.push_back({{2.0, 0.0, 2.0}, {45.0, 0.0, 45.0}, "tube", 1.0, false, ""});
  const nav::BakedAgent baked = bakeOne(m.mesh(), agent);
  const nav::LayeredSearchGraph view(baked.graph, baked.profile.settings);
  REQUIRE(view.costPerMetre() < 0.1);  // the link's rate
  nav::SearchState state;
  for (const double to_x : {19.75, 17.25}) {
    INFO(to_x);
    const sim::Vec3 from{20.25, 0, 25.25}, to{to_x, 0, 25.25};  // column centres
    const double road = 2.0 * (20.25 - to_x);  // every step at the road's cost, as A* charges it
    for (const nav::SearchMethod method : {nav::SearchMethod::AStar, nav::SearchMethod::Direct, nav::SearchMethod::Theta}) {
      INFO(nav::methodName(method));
      nav::LayeredSearchSettings settings;
      settings.method = method;
      const nav::PathResult route = nav::findLayeredPath(view, from, to, settings, state);
      REQUIRE(route.ok());
      CHECK(route.cost == Approx(road).epsilon(1e-9));
    }
  }
}

TEST_CASE("closedPieceWinding tells boxes wound outward from boxes turned inside out", "[nav][mesh]") {
  auto mirrored = [](sim::TriangleMesh mesh) {
    for (sim::Vec3f& v : mesh.vertices) v.x = -v.x;  // a mirror keeps the corners' order: the winding turns
    return mesh;
  };
  SECTION("boxes") {
    MeshBuilder level;
    level.box({0, 0, 0}, {2, 1, 3}).box({5, 0, 0}, {6, 4, 1}).box({10, 0, 0}, {11, 1, 1});
    const auto w = nav::closedPieceWinding(level.mesh());
    CHECK(w.closed == 3);
    CHECK(w.inside_out == 0);
    CHECK(w.volume == Approx(6 + 4 + 1));
    const auto m = nav::closedPieceWinding(mirrored(level.mesh()));
    CHECK(m.closed == 3);
    CHECK(m.inside_out == 3);
    CHECK(m.inside_out_volume == Approx(11));
    CHECK(m.volume == 0);
  }
  SECTION("far from the origin the volume keeps its digits") {
    MeshBuilder level;
    level.box({90000, 5000, -90000}, {90001, 5001, -89999});
    const auto w = nav::closedPieceWinding(level.mesh());
    CHECK(w.closed == 1);
    CHECK(w.inside_out == 0);
    CHECK(w.volume == Approx(1).epsilon(1e-6));
  }
  SECTION("an inward-facing box round the whole level is an enclosure, not inside out") {
    // A re-audit: terrain under a 200 m skybox facing inward was called inside out.
    MeshBuilder level;
    level.floor(-50, -50, 50, 50, 0);
    MeshBuilder sky;
    sky.box({-100, -100, -100}, {100, 100, 100});
    sim::TriangleMesh mesh = level.mesh();
    const sim::TriangleMesh inward = mirrored(sky.mesh());
    const auto base = static_cast<uint32_t>(mesh.vertices.size());
    mesh.vertices.insert(mesh.vertices.end(), inward.vertices.begin(), inward.vertices.end());
    for (std::size_t t = 0; t < inward.triangles.size(); ++t) {
      auto tri = inward.triangles[t];
      for (uint32_t& v : tri) v += base;
      mesh.triangles.push_back(tri);
      mesh.triangle_labels.push_back(0);
      mesh.triangle_tags.push_back(0);
    }
    const auto w = nav::closedPieceWinding(mesh);
    CHECK(w.enclosures == 1);
    CHECK(w.closed == 0);
    CHECK(w.inside_out == 0);
    // A smaller inward-facing box inside the level is inside out.
    MeshBuilder crate;
    crate.floor(-50, -50, 50, 50, 0).box({1, 0, 1}, {2, 1, 2});
    sim::TriangleMesh flipped = crate.mesh();
    for (std::size_t t = 2; t < flipped.triangles.size(); ++t) std::swap(flipped.triangles[t][1], flipped.triangles[t][2]);
    const auto c = nav::closedPieceWinding(flipped);
    CHECK(c.enclosures == 0);
    CHECK(c.inside_out == 1);
  }
  SECTION("open and flat pieces have no orientation") {
    MeshBuilder level;
    level.floor(0, 0, 10, 10, 0);  // a single-sided floor: open
    // A double-sided sheet: each edge is shared once either way, but it encloses nothing.
    level.floor(20, 0, 22, 2, 0).quad({20, 0, 0}, {20, 0, 2}, {22, 0, 2}, {22, 0, 0}, {0, -1, 0});
    const auto w = nav::closedPieceWinding(level.mesh());
    CHECK(w.closed == 0);
    CHECK(w.inside_out == 0);
  }
  SECTION("a box with a face missing or one face flipped is not closed") {
    MeshBuilder holed;
    holed.box({0, 0, 0}, {1, 1, 1});
    auto mesh = holed.mesh();
    mesh.triangles.resize(mesh.triangles.size() - 2);  // its last face gone
    mesh.triangle_labels.resize(mesh.triangles.size());
    mesh.triangle_tags.resize(mesh.triangles.size());
    CHECK(nav::closedPieceWinding(mesh).closed == 0);
    MeshBuilder flipped;
    flipped.box({0, 0, 0}, {1, 1, 1});
    mesh = flipped.mesh();
    std::swap(mesh.triangles[0][1], mesh.triangles[0][2]);  // one triangle wound against its neighbours
    CHECK(nav::closedPieceWinding(mesh).closed == 0);
  }
}
