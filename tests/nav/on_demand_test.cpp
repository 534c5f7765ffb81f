// On-demand layered search (on_demand.h): columns built as the search reaches them must give the
// baked graph's answers wherever the two grids coincide, the region follows the spec's rules
// (span / 128 cell size, expansion factors 1, 2, 4), and failures are the baked search's.

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

#include "bake_fixtures.h"
#include "sample_fixtures.h"
#include "strata/nav/on_demand.h"
#include "test_support.h"

using namespace strata;

namespace {

using test::sampleAgent;
using test::sampleMesh;

// A region that covers the whole sample at the agent's own cell size: the bake's grid.
nav::OnDemandSettings wholeLevel() {
  nav::OnDemandSettings settings;
  settings.margin = 200;
  settings.max_columns_per_side = 1e6;
  settings.vertical_extent = 1000;
  return settings;
}

// The waypoints without a walking waypoint within half a cell of an exact endpoint (the
// centre of the column it snapped to). The waypoint pass keeps that centre unless the leg from
// the exact point is clear by the line test (end_legs.h), which reads columns beside the route:
// the bake has them all, an on-demand search those it built (the bands along the route's end
// runs), which a region's border can cut. Everything else must be the bake's.
std::vector<nav::Waypoint> withoutEndCentres(const nav::PathResult& r, double cell) {
  std::vector<nav::Waypoint> w = r.waypoints;
  auto near = [&](const nav::Waypoint& a, const nav::Waypoint& b) {
    return std::fabs(a.position.x - b.position.x) <= cell / 2 + 1e-9 && std::fabs(a.position.z - b.position.z) <= cell / 2 + 1e-9;
  };
  if (w.size() > 2 && w[w.size() - 2].action == nav::MoveAction::Walk && w.back().action == nav::MoveAction::Walk &&
      near(w[w.size() - 2], w.back()))
    w.erase(w.end() - 2);
  if (w.size() > 2 && w[1].action == nav::MoveAction::Walk && near(w[0], w[1])) w.erase(w.begin() + 1);
  return w;
}

// A sample with its bake, the baked search's view and the query index an on-demand search reads.
struct BakedSample {
  explicit BakedSample(const char* name)
      : mesh(sampleMesh(name)), agent(sampleAgent(name)), baked(test::bakeOne(mesh, agent)),
        view(baked.graph, baked.profile.settings), index(mesh) {}
  BakedSample(const BakedSample&) = delete;  // the view points into the bake
  sim::TriangleMesh mesh;
  nav::AgentProfile agent;
  nav::BakedAgent baked;
  nav::LayeredSearchGraph view;
  sim::QueryIndex index;
};

}  // namespace

TEST_CASE("on-demand search finds the baked search's costs on every sample", "[nav][ondemand]") {
  for (const char* name : {"tower", "course", "maze"}) {
    INFO(name);
    const BakedSample sample(name);
    const nav::LayeredGraph& g = sample.baked.graph;
    nav::LayeredSearchSettings settings;
    settings.snap.max_horizontal = 0.2;
    nav::SearchState baked_state, lazy_state;
    std::mt19937 rng(7);
    std::uniform_int_distribution<uint32_t> pick(0, static_cast<uint32_t>(g.nodeCount() - 1));
    int found = 0, pairs = 0;
    for (; pairs < 40; ++pairs) {
      const sim::Vec3 a = g.nodePosition(pick(rng)), b = g.nodePosition(pick(rng));
      const nav::PathResult expected = nav::findLayeredPath(sample.view, a, b, settings, baked_state);
      auto lazy = nav::findOnDemandPath(sample.mesh, sample.index, sample.agent, a, b, settings, wholeLevel(), lazy_state);
      REQUIRE(lazy.ok());
      INFO("from " << a.x << "," << a.y << "," << a.z << " to " << b.x << "," << b.y << "," << b.z);
      CHECK(lazy->region.grid.cell_size == g.grid.cell_size);
      CHECK(lazy->path.failure == expected.failure);
      if (!expected.ok()) continue;
      ++found;
      CHECK(lazy->path.cost == Approx(expected.cost).epsilon(1e-9));
      CHECK(lazy->path.length == Approx(expected.length).epsilon(1e-9));
      REQUIRE(lazy->path.waypoints.size() == expected.waypoints.size());
      for (std::size_t i = 0; i < expected.waypoints.size(); ++i)
        CHECK(lazy->path.waypoints[i].action == expected.waypoints[i].action);
      // Endpoints on a column border and on a column corner, equally far from two or four
      // centres: both grids break the tie the same way.
      const double half = g.grid.cell_size / 2;
      const sim::Vec3 a_border{a.x + half, a.y, a.z}, b_corner{b.x + half, b.y, b.z + half};
      nav::LayeredSearchSettings wide;
      const nav::PathResult border = nav::findLayeredPath(sample.view, a_border, b_corner, wide, baked_state);
      auto lazy_border =
          nav::findOnDemandPath(sample.mesh, sample.index, sample.agent, a_border, b_corner, wide, wholeLevel(), lazy_state);
      REQUIRE(lazy_border.ok());
      CHECK(lazy_border->path.failure == border.failure);
      if (border.ok()) CHECK(lazy_border->path.cost == Approx(border.cost).epsilon(1e-9));
    }
    CHECK(found >= 10);
  }
}

TEST_CASE("on-demand search leaves out an endpoint's centre where the bake does, from points off the centres",
          "[nav][ondemand]") {
  // An audit: a 1 m walk on the tower's open road came out 1.57 m on demand, by the centre of the
  // column the start snapped to, which the bake leaves out: the line test from the exact point
  // read the edges of nodes the search had not expanded.
  for (const char* name : {"tower", "course", "maze"}) {
    INFO(name);
    const BakedSample sample(name);
    const nav::LayeredGraph& g = sample.baked.graph;
    const nav::LayeredSearchSettings settings;
    nav::SearchState baked_state, lazy_state;
    std::mt19937 rng(11);
    std::uniform_int_distribution<uint32_t> pick(0, static_cast<uint32_t>(g.nodeCount() - 1));
    std::uniform_real_distribution<double> off(-0.45 * g.grid.cell_size, 0.45 * g.grid.cell_size);
    int compared = 0, dropped = 0;
    for (int pair = 0; pair < 40; ++pair) {
      const sim::Vec3 a = g.nodePosition(pick(rng)) + sim::Vec3{off(rng), 0, off(rng)};
      const sim::Vec3 b = g.nodePosition(pick(rng)) + sim::Vec3{off(rng), 0, off(rng)};
      const nav::PathResult expected = nav::findLayeredPath(sample.view, a, b, settings, baked_state);
      auto lazy = nav::findOnDemandPath(sample.mesh, sample.index, sample.agent, a, b, settings, wholeLevel(), lazy_state);
      REQUIRE(lazy.ok());
      INFO("from " << a.x << "," << a.y << "," << a.z << " to " << b.x << "," << b.y << "," << b.z);
      CHECK(lazy->path.failure == expected.failure);
      if (!expected.ok() || !lazy->path.ok() || lazy->path.cost != Approx(expected.cost).epsilon(1e-9)) continue;
      ++compared;
      REQUIRE(lazy->path.waypoints.size() == expected.waypoints.size());
      for (std::size_t i = 0; i < expected.waypoints.size(); ++i) {
        CHECK(lazy->path.waypoints[i].position.x == Approx(expected.waypoints[i].position.x).margin(1e-9));
        CHECK(lazy->path.waypoints[i].position.z == Approx(expected.waypoints[i].position.z).margin(1e-9));
      }
      CHECK(lazy->path.length == Approx(expected.length).epsilon(1e-9));
      // (Routes whose start's centre the bake leaves out: the case at stake.)
      dropped += std::hypot(expected.waypoints[1].position.x - a.x, expected.waypoints[1].position.z - a.z) > g.grid.cell_size;
    }
    CHECK(compared >= 10);
    CHECK(dropped >= 3);
  }
}

TEST_CASE("on-demand search builds only what it reaches", "[nav][ondemand]") {
  const sim::TriangleMesh mesh = sampleMesh("tower");
  const nav::AgentProfile agent = sampleAgent("tower");
  const sim::QueryIndex index(mesh);
  nav::SearchState state;
  auto lazy = nav::findOnDemandPath(mesh, index, agent, {20, 0, 20}, {18, 0, 20}, {}, wholeLevel(), state);
  REQUIRE(lazy.ok());
  CHECK(lazy->path.ok());
  CHECK(lazy->columns_built > 0);
  CHECK(lazy->columns_built < lazy->region.grid.columnCount() / 10);
}

TEST_CASE("on-demand region: span / 128 cell size, aligned grid, vertical extent", "[nav][ondemand]") {
  nav::AgentSettings agent;
  agent.cell_size = 0.3;
  const nav::OnDemandSettings settings;  // margin 8 m, 128 columns a side
  // A short request keeps the agent's cell size.
  const auto near = nav::onDemandRegion(agent, {0, 0, 0}, {10, 2, 0}, 1, settings);
  CHECK(near.grid.cell_size == 0.3);
  CHECK(near.grid.origin_x == Approx(std::floor(-8 / 0.3) * 0.3));
  CHECK(near.min_height == Approx(-26.88));
  CHECK(near.max_height == Approx(2 + 26.88 + agent.height));
  // A long one coarsens it: the region's longer side over 128.
  const auto far = nav::onDemandRegion(agent, {0, 0, 0}, {200, 0, 50}, 1, settings);
  CHECK(far.grid.cell_size == Approx((200 + 16) / 128.0));
  CHECK(far.grid.width_cells <= 130);
  // Factor 2 doubles the longer side about the centre (and so the cell size here); the shorter
  // side grows by as much (108 m a side): half-depth 25 + 8 + 108.
  const auto wide = nav::onDemandRegion(agent, {0, 0, 0}, {200, 0, 50}, 2, settings);
  CHECK(wide.grid.cell_size == Approx(2 * far.grid.cell_size));
  CHECK(wide.grid.width_cells <= 130);
  CHECK(wide.grid.depth_cells * wide.grid.cell_size >= 2 * (25 + 8 + 108));
  CHECK(wide.grid.origin_z <= 25 - (25 + 8 + 108));
  // A region as narrow as its endpoints (margin 0, the same x) widens with the factor too.
  nav::OnDemandSettings tight;
  tight.margin = 0;
  const auto line = nav::onDemandRegion(agent, {0, 0, 0}, {0, 0, 20}, 1, tight);
  CHECK(line.grid.width_cells <= 2);
  const auto band = nav::onDemandRegion(agent, {0, 0, 0}, {0, 0, 20}, 2, tight);
  CHECK(band.grid.cell_size == Approx(40.0 / 128));  // the longer side doubled: 40 m
  CHECK(band.grid.origin_x <= -10);
  CHECK(band.grid.width_cells * band.grid.cell_size >= 20);
}

TEST_CASE("on-demand search widens the region (factors 1, 2, 4) around a long wall", "[nav][ondemand]") {
  // A 60 x 60 m floor with a wall across x = 0 from z = -24 to z = 24; the endpoints are 5 m
  // either side of it. The factor-1 region (endpoints +- 8 m: z within -8..8) cannot get round
  // the wall; factor 2 (every side grown by the longer half-side, 13 m: z within -21..21) cannot
  // either; factor 4 (grown by 39 m: -47..47) can.
  test::MeshBuilder level;
  level.floor(-30, -30, 30, 30, 0).box({-0.25, 0, -24}, {0.25, 3, 24});
  nav::AgentProfile agent = test::testAgent();
  agent.settings.cell_size = 0.5;
  const sim::QueryIndex index(level.mesh());
  nav::SearchState state;
  auto lazy = nav::findOnDemandPath(level.mesh(), index, agent, {-5, 0, 0}, {5, 0, 0}, {}, {}, state);
  REQUIRE(lazy.ok());
  REQUIRE(lazy->path.ok());
  CHECK(lazy->region.factor == 4);
  CHECK(lazy->regions == 3);
  CHECK(lazy->path.length > 48);  // round the end of the wall: at least 2 * hypot(5, 24)
  // One budget for the request: expansions count the three regions' searches, and a budget of
  // that many finds the route while one less does not (each region had its own budget, and the
  // count was the last region's: an audit).
  {
    const std::int64_t all = lazy->path.expansions;
    nav::LayeredSearchSettings budget;
    budget.limits.max_expansions = all;
    auto enough = nav::findOnDemandPath(level.mesh(), index, agent, {-5, 0, 0}, {5, 0, 0}, budget, {}, state);
    REQUIRE(enough.ok());
    CHECK(enough->path.ok());
    CHECK(enough->path.expansions == all);
    budget.limits.max_expansions = all - 1;
    auto short_by_one = nav::findOnDemandPath(level.mesh(), index, agent, {-5, 0, 0}, {5, 0, 0}, budget, {}, state);
    REQUIRE(short_by_one.ok());
    CHECK(short_by_one->path.failure == nav::PathFailure::BudgetExhausted);
    CHECK(short_by_one->path.expansions == all - 1);
  }
  // --closest never loses that route: the regions that run out are enlarged first.
  nav::LayeredSearchSettings closest;
  closest.return_closest = true;
  auto near = nav::findOnDemandPath(level.mesh(), index, agent, {-5, 0, 0}, {5, 0, 0}, closest, {}, state);
  REQUIRE(near.ok());
  CHECK(near->path.ok());
  CHECK(near->region.factor == 4);
  CHECK(near->path.cost == Approx(lazy->path.cost));
  // Margin 0 and endpoints sharing an x: the region is one column wide at factor 1, and the
  // enlarged ones must widen (scaled about its centre, it stayed one column wide: NoPath). A
  // wall across z = 0 from x = -5 to 5 between (0, 0, -3) and (0, 0, 3): factor 2 reaches x
  // +-3, factor 4 x +-9, round the wall.
  test::MeshBuilder across;
  across.floor(-30, -30, 30, 30, 0).box({-5, 0, -0.25}, {5, 3, 0.25});
  const sim::QueryIndex across_index(across.mesh());
  nav::OnDemandSettings tight;
  tight.margin = 0;
  auto round = nav::findOnDemandPath(across.mesh(), across_index, agent, {0, 0, -3}, {0, 0, 3}, {}, tight, state);
  REQUIRE(round.ok());
  REQUIRE(round->path.ok());
  CHECK(round->region.factor == 4);
  CHECK(round->path.length > 2 * std::hypot(5.0, 3.0));
  // A sealed room: NoPath after every factor.
  test::MeshBuilder sealed;
  sealed.floor(-30, -30, 30, 30, 0)
      .box({-3, 0, -3}, {3, 3, -2.5})
      .box({-3, 0, 2.5}, {3, 3, 3})
      .box({-3, 0, -3}, {-2.5, 3, 3})
      .box({2.5, 0, -3}, {3, 3, 3});
  const sim::QueryIndex sealed_index(sealed.mesh());
  auto none = nav::findOnDemandPath(sealed.mesh(), sealed_index, agent, {0, 0, 0}, {10, 0, 0}, {}, {}, state);
  REQUIRE(none.ok());
  CHECK(none->path.failure == nav::PathFailure::NoPath);
  CHECK(none->region.factor == 4);
  CHECK(none->path.expansions > 0);
}

TEST_CASE("on-demand search: an endpoint snaps as in the bake whatever the margin", "[nav][ondemand]") {
  // A 10 x 10 m floor; the start lies 0.5 m off its east edge, within the 1 m snap radius. With
  // a margin under the snap radius the region ended before the floor it snaps to: NoStartNode
  // where the bake finds the route (an audit), and NoStartNode is final (only NoPath enlarges).
  test::MeshBuilder plate;
  plate.floor(0, 0, 10, 10, 0);
  const sim::QueryIndex index(plate.mesh());
  nav::AgentProfile agent = test::testAgent();
  agent.settings.cell_size = 0.3;
  const nav::BakedAgent baked = test::bakeOne(plate.mesh(), agent);
  const nav::LayeredSearchGraph view(baked.graph, baked.profile.settings);
  nav::SearchState state;
  const sim::Vec3 from{10.5, 0, 5}, to{10.5, 0, 9};
  const nav::PathResult expected = nav::findLayeredPath(view, from, to, {}, state);
  REQUIRE(expected.ok());
  for (const double margin : {0.0, 0.5, 8.0}) {
    INFO("margin " << margin);
    nav::OnDemandSettings region;
    region.margin = margin;
    auto lazy = nav::findOnDemandPath(plate.mesh(), index, agent, from, to, {}, region, state);
    REQUIRE(lazy.ok());
    REQUIRE(lazy->path.ok());
    CHECK(lazy->region.grid.cell_size == baked.graph.grid.cell_size);
    CHECK(lazy->path.cost == Approx(expected.cost));
  }
}

TEST_CASE("on-demand search: an endpoint that is no point is NoStartNode or NoGoalNode, as baked", "[nav][ondemand]") {
  test::MeshBuilder level;
  level.floor(-5, -5, 5, 5, 0);
  const nav::AgentProfile agent = test::testAgent();
  const sim::QueryIndex index(level.mesh());
  nav::SearchState state;
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  auto start = nav::findOnDemandPath(level.mesh(), index, agent, {nan, 0, 0}, {1, 0, 1}, {}, {}, state);
  REQUIRE(start.ok());
  CHECK(start->path.failure == nav::PathFailure::NoStartNode);
  auto goal = nav::findOnDemandPath(level.mesh(), index, agent, {0, 0, 0}, {inf, 0, 1}, {}, {}, state);
  REQUIRE(goal.ok());
  CHECK(goal->path.failure == nav::PathFailure::NoGoalNode);
  CHECK(goal->regions == 0);
}

TEST_CASE("on-demand search: a link reaching beyond the region is left out, not an error", "[nav][ondemand]") {
  // An elevator from the ground to a slab 40 m up; a route on the ground never reaches that
  // height (the region's vertical extent), so the link is the region's limit, as one whose ends
  // lie beyond its edge.
  test::MeshBuilder level;
  level.floor(-20, -20, 20, 20, 0).floor(10, 10, 16, 16, 40);
  nav::AgentProfile agent = test::testAgent();
  agent.links.push_back({{9, 0, 13}, {13, 40, 13}, "elevator", 5.0, true, ""});
  const sim::QueryIndex index(level.mesh());
  nav::SearchState state;
  auto ground = nav::findOnDemandPath(level.mesh(), index, agent, {0, 0, 0}, {5, 0, 5}, {}, {}, state);
  REQUIRE(ground.ok());
  CHECK(ground->path.ok());
  // Up the elevator: the region reaches the slab, and the link is taken.
  auto up = nav::findOnDemandPath(level.mesh(), index, agent, {8, 0, 13}, {13, 40, 14}, {}, {}, state);
  REQUIRE(up.ok());
  REQUIRE(up->path.ok());
  bool linked = false;
  for (const auto& w : up->path.waypoints) linked = linked || w.action == nav::MoveAction::Link;
  CHECK(linked);
  // A long request samples coarser than the agent's cell: a 0.7 m pillar a link lands on may
  // hold no column of the region. That link is left out there, not an error (an audit: a valid
  // world's request failed as bad input); at the agent's own cell such an end is an error, as
  // in the bake.
  test::MeshBuilder strip;
  strip.floor(0, -5, 120, 5, 0).box({60, 0, 2}, {60.7, 3, 2.7});
  nav::AgentProfile onto = test::testAgent();
  onto.settings.cell_size = 0.3;
  onto.links.push_back({{60.35, 0, 0}, {60.35, 3, 2.35}, "onto", -1, true, ""});
  const sim::QueryIndex strip_index(strip.mesh());
  auto along = nav::findOnDemandPath(strip.mesh(), strip_index, onto, {18, 0.1, 0}, {102, 0.1, 0}, {}, {}, state);
  REQUIRE(along.ok());
  CHECK(along->path.ok());
  CHECK(along->region.grid.cell_size > 0.3);
  onto.links[0].to = {60.35, 6, 4.2};  // 3 m over the pillar, 6 m over the ground: no floor within 2 m
  auto near = nav::findOnDemandPath(strip.mesh(), strip_index, onto, {58, 0.1, 0}, {62, 0.1, 0}, {}, {}, state);
  REQUIRE_FALSE(near.ok());
  CHECK_THAT(near.error().message, Catch::Contains("'onto'") && Catch::Contains("of its to point"));
}

TEST_CASE("on-demand search: only astar, settings checked, no floor is NoStartNode", "[nav][ondemand]") {
  test::MeshBuilder level;
  level.floor(0, 0, 10, 10, 0);
  const nav::AgentProfile agent = test::testAgent();
  const sim::QueryIndex index(level.mesh());
  nav::SearchState state;
  nav::LayeredSearchSettings theta;
  theta.method = nav::SearchMethod::Theta;
  auto refused = nav::findOnDemandPath(level.mesh(), index, agent, {1, 0, 1}, {9, 0, 9}, theta, {}, state);
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.error().message, Catch::Contains("astar"));
  nav::OnDemandSettings bad;
  bad.margin = -1;
  CHECK_FALSE(nav::findOnDemandPath(level.mesh(), index, agent, {1, 0, 1}, {9, 0, 9}, {}, bad, state).ok());
  auto off = nav::findOnDemandPath(level.mesh(), index, agent, {50, 0, 50}, {9, 0, 9}, {}, {}, state);
  REQUIRE(off.ok());
  CHECK(off->path.failure == nav::PathFailure::NoStartNode);
}

TEST_CASE("on-demand search jumps a pit within max_drop as the bake does", "[nav][ondemand]") {
  // The rim's slot holds the drop into the 1.5 m trench; the jump across is a second jump
  // (edge_builder.h), which the on-demand columns must find too.
  test::MeshBuilder trench;
  trench.floor(0, 0, 3, 2, 0).floor(4, 0, 7, 2, 0).floor(3, 0, 4, 2, -1.5);
  const sim::TriangleMesh mesh = trench.mesh();
  const nav::AgentProfile agent = test::testAgent();
  const nav::BakedAgent baked = test::bakeOne(mesh, agent);
  REQUIRE(baked.graph.secondJumpCount() > 0);
  const sim::QueryIndex index(mesh);
  nav::SearchState baked_state, lazy_state;
  for (const double z : {0.4, 1.0, 1.6}) {
    const sim::Vec3 from{1, 0, z}, to{6, 0, 2 - z};
    const nav::PathResult expected = nav::findLayeredPath(baked.graph, baked.profile.settings, from, to, {}, baked_state);
    REQUIRE(expected.ok());
    auto lazy = nav::findOnDemandPath(mesh, index, agent, from, to, {}, wholeLevel(), lazy_state);
    REQUIRE(lazy.ok());
    REQUIRE(lazy->path.ok());
    CHECK(lazy->path.cost == Approx(expected.cost).epsilon(1e-9));
    const auto lazy_points = withoutEndCentres(lazy->path, baked.graph.grid.cell_size);
    const auto baked_points = withoutEndCentres(expected, baked.graph.grid.cell_size);
    REQUIRE(lazy_points.size() == baked_points.size());
    for (std::size_t i = 0; i < baked_points.size(); ++i) CHECK(lazy_points[i].action == baked_points[i].action);
  }
}

TEST_CASE("on-demand search and the bake agree bit for bit on uneven ground far from the origin", "[nav][ondemand]") {
  // Rolling ground of random heights (a 24 x 24 m patch of 1 m quads, each split in two) placed
  // far from the origin and on a lattice (0.3 m) that decimal offsets do not fit, so a column
  // centre computed from two different grid origins rounds differently. Both grids lie on the
  // same lattice of multiples of the cell size: every centre, and so every floor height, edge
  // and route, must be the bake's exactly, not within a tolerance.
  const double ox = 1000.37, oz = -777.11;
  test::MeshBuilder level;
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> bump(0.0, 0.35);
  constexpr int kSide = 24;
  std::vector<double> y((kSide + 1) * (kSide + 1));
  for (double& h : y) h = bump(rng);
  auto at = [&](int i, int j) { return sim::Vec3{ox + i, y[static_cast<std::size_t>(j * (kSide + 1) + i)], oz + j}; };
  for (int j = 0; j < kSide; ++j)
    for (int i = 0; i < kSide; ++i) level.quad(at(i, j), at(i, j + 1), at(i + 1, j + 1), at(i + 1, j), {0, 1, 0});
  nav::AgentProfile agent = test::testAgent();
  agent.settings.cell_size = 0.3;
  const nav::BakedAgent baked = test::bakeOne(level.mesh(), agent);
  const nav::LayeredGraph& g = baked.graph;
  const nav::LayeredSearchGraph view(g, baked.profile.settings);
  const sim::QueryIndex index(level.mesh());
  nav::LayeredSearchSettings settings;
  nav::SearchState baked_state, lazy_state;
  std::uniform_int_distribution<uint32_t> pick(0, static_cast<uint32_t>(g.nodeCount() - 1));
  int found = 0;
  for (int pair = 0; pair < 40; ++pair) {
    const sim::Vec3 a = g.nodePosition(pick(rng)), b = g.nodePosition(pick(rng));
    const nav::PathResult expected = nav::findLayeredPath(view, a, b, settings, baked_state);
    auto lazy = nav::findOnDemandPath(level.mesh(), index, agent, a, b, settings, wholeLevel(), lazy_state);
    REQUIRE(lazy.ok());
    INFO("pair " << pair);
    REQUIRE(lazy->region.grid.cell_size == g.grid.cell_size);
    REQUIRE(lazy->path.failure == expected.failure);
    if (!expected.ok()) continue;
    ++found;
    CHECK(lazy->path.cost == expected.cost);
    CHECK(lazy->path.length == expected.length);
    REQUIRE(lazy->path.waypoints.size() == expected.waypoints.size());
    for (std::size_t i = 0; i < expected.waypoints.size(); ++i) {
      INFO("waypoint " << i);
      CHECK(lazy->path.waypoints[i].position.x == expected.waypoints[i].position.x);
      CHECK(lazy->path.waypoints[i].position.y == expected.waypoints[i].position.y);
      CHECK(lazy->path.waypoints[i].position.z == expected.waypoints[i].position.z);
    }
  }
  CHECK(found >= 30);
}

TEST_CASE("on-demand search jumps a chasm across the diagonal as the bake does", "[nav][ondemand]") {
  // A 2 m chasm turned 45 degrees is crossed only along a diagonal ray (2.8 m along the axes):
  // the window of columns the edge rules read holds the diagonal rays as far as the jump reaches.
  const test::TurnedChasm level = test::turnedChasm(2.0, 45);
  const nav::AgentProfile agent = test::testAgent();
  const nav::BakedAgent baked = test::bakeOne(level.mesh, agent);
  const nav::LayeredSearchGraph view(baked.graph, baked.profile.settings);
  const sim::QueryIndex index(level.mesh);
  nav::LayeredSearchSettings settings;
  nav::SearchState baked_state, lazy_state;
  const nav::PathResult expected = nav::findLayeredPath(view, level.a, level.b, settings, baked_state);
  REQUIRE(expected.ok());
  auto lazy = nav::findOnDemandPath(level.mesh, index, agent, level.a, level.b, settings, {}, lazy_state);
  REQUIRE(lazy.ok());
  REQUIRE(lazy->path.ok());
  CHECK(lazy->region.grid.cell_size == baked.graph.grid.cell_size);
  CHECK(lazy->path.cost == expected.cost);
  const auto lazy_points = withoutEndCentres(lazy->path, baked.graph.grid.cell_size);
  const auto baked_points = withoutEndCentres(expected, baked.graph.grid.cell_size);
  REQUIRE(lazy_points.size() == baked_points.size());
  for (std::size_t i = 0; i < baked_points.size(); ++i) {
    CHECK(lazy_points[i].action == baked_points[i].action);
    CHECK(lazy_points[i].position.x == baked_points[i].position.x);
    CHECK(lazy_points[i].position.z == baked_points[i].position.z);
  }
}

TEST_CASE("on-demand search: a link left out for landing in an inf area does not weaken the heuristic",
          "[nav][ondemand]") {
  // An audit: a cheap one-way link into an area of cost inf is left out of both graphs, but the
  // on-demand search still counted its rate in the heuristic: the same cost by another route of
  // equal cost (another length), and up to 6x the expansions.
  test::MeshBuilder level;
  level.floor(0, 0, 40, 12, 0).box({18, 0, 4}, {20, 2, 12});
  nav::AgentProfile agent = test::testAgent();
  agent.settings.cell_size = 0.3;
  agent.modifiers.push_back({sim::Aabb{{34, -1, 0}, {40, 1, 12}}, "fire", std::numeric_limits<double>::infinity()});
  agent.links.push_back({{2, 0, 2}, {37, 0, 6}, "into_fire", 0.01, false, ""});
  const nav::BakedAgent baked = test::bakeOne(level.mesh(), agent);
  const nav::LayeredGraph& g = baked.graph;
  CHECK(g.customLinkCount() == 0);
  const nav::LayeredSearchGraph view(g, baked.profile.settings);
  const sim::QueryIndex index(level.mesh());
  nav::SearchState baked_state, lazy_state;
  int found = 0;
  for (const auto& [a, b] : {std::pair{sim::Vec3{1, 0, 1}, sim::Vec3{30, 0, 10}}, {sim::Vec3{3, 0, 9}, sim::Vec3{28, 0, 2}},
                             {sim::Vec3{25, 0, 11}, sim::Vec3{4, 0, 5}}}) {
    const nav::PathResult expected = nav::findLayeredPath(view, a, b, {}, baked_state);
    auto lazy = nav::findOnDemandPath(level.mesh(), index, agent, a, b, {}, wholeLevel(), lazy_state);
    REQUIRE(lazy.ok());
    REQUIRE(expected.ok());
    REQUIRE(lazy->path.ok());
    ++found;
    CHECK(lazy->region.grid.cell_size == g.grid.cell_size);
    CHECK(lazy->path.cost == Approx(expected.cost).epsilon(1e-9));
    CHECK(nav::horizontalLength(withoutEndCentres(lazy->path, g.grid.cell_size)) ==
          Approx(nav::horizontalLength(withoutEndCentres(expected, g.grid.cell_size))).epsilon(1e-9));
    CHECK(lazy->path.expansions == expected.expansions);
  }
  CHECK(found == 3);
}

TEST_CASE("on-demand search: a link priced by its label costs what the bake's does", "[nav][ondemand]") {
  test::MeshBuilder level;
  level.floor(0, 0, 40, 12, 0).box({18, 0, 0}, {20, 2, 12});  // a wall across the whole floor
  nav::AgentProfile agent = test::testAgent();
  agent.settings.cell_size = 0.3;
  agent.links.push_back({{15, 0, 6}, {23, 0, 6}, "gate", -1, true, ""});
  agent.areas.push_back({"gate", "", "gated", 4.0});
  const nav::BakedAgent baked = test::bakeOne(level.mesh(), agent);
  REQUIRE(baked.graph.customLinkCount() == 2);
  const nav::LayeredSearchGraph view(baked.graph, baked.profile.settings);
  const sim::QueryIndex index(level.mesh());
  nav::SearchState baked_state, lazy_state;
  const sim::Vec3 a{3, 0, 3}, b{35, 0, 9};
  const nav::PathResult expected = nav::findLayeredPath(view, a, b, {}, baked_state);
  auto lazy = nav::findOnDemandPath(level.mesh(), index, agent, a, b, {}, wholeLevel(), lazy_state);
  REQUIRE(expected.ok());
  REQUIRE(lazy.ok());
  REQUIRE(lazy->path.ok());
  CHECK(expected.cost > 4.0 * 8.0);  // the link's 8 m at 4 per metre, not 8
  CHECK(lazy->path.cost == Approx(expected.cost).epsilon(1e-9));
}

TEST_CASE("on-demand search: a coarse region that misses an endpoint's floor does not answer for the floor below", "[nav][ondemand]") {
  // A pillar whose top is narrower than a coarse region's cells: no column centre of such a
  // region falls on it, so the goal over it snapped to the ground beside the pillar and the
  // answer was a route to the ground 6 m below the goal asked for (an audit, on the sample tower
  // with a wide --margin).
  nav::AgentProfile agent = test::testAgent();
  agent.settings.cell_size = 0.3;
  nav::SearchState state;
  SECTION("the first region is coarse: NoGoalNode") {
    test::MeshBuilder level;
    level.floor(-260, -10, 10, 10, 0).box({-0.6, 0, -0.6}, {0.6, 6, 0.6});
    const sim::QueryIndex index(level.mesh());
    auto lazy = nav::findOnDemandPath(level.mesh(), index, agent, {-250, 0, 0}, {0, 6, 0}, {}, {}, state);
    REQUIRE(lazy.ok());
    CHECK(lazy->region.grid.cell_size > 2.0);
    CHECK(lazy->regions == 1);
    CHECK(lazy->path.failure == nav::PathFailure::NoGoalNode);
    // The same start over the ground beside the pillar is answered.
    auto beside = nav::findOnDemandPath(level.mesh(), index, agent, {-250, 0, 0}, {0, 0, 3}, {}, {}, state);
    REQUIRE(beside.ok());
    CHECK(beside->path.ok());
  }
  SECTION("an enlarged region's cells leave an endpoint no floor: the NoPath of the region before it") {
    // A 0.5 m platform and, 28 m away, a floor nothing joins to it (a hunt): the first region
    // (0.25 m cells) answers NoPath; at factor 4 (0.97 m cells) no column centre near the start
    // lies on the platform, and the answer was NoStartNode for a start standing on a floor.
    test::MeshBuilder level;
    level.floor(0.6, 0.6, 1.1, 1.1, 0).floor(28, -1, 32, 3, 0);
    const sim::QueryIndex index(level.mesh());
    nav::AgentProfile small = test::testAgent();
    small.settings.radius = 0.2;
    small.settings.cell_size = 0.25;
    nav::OnDemandSettings tight;
    tight.margin = 1;
    for (const bool reversed : {false, true}) {
      const sim::Vec3 platform{0.85, 0.05, 0.85}, far{30, 0.05, 0.85};
      auto lazy = nav::findOnDemandPath(level.mesh(), index, small, reversed ? far : platform, reversed ? platform : far, {},
                                        tight, state);
      REQUIRE(lazy.ok());
      CHECK(lazy->path.failure == nav::PathFailure::NoPath);
      CHECK(lazy->regions < 3);
    }
  }
  SECTION("an enlarged region is coarse: the NoPath of the region before it") {
    // The sample tower, from the road to the roof with a 200 m margin: the first two regions'
    // cells (3.3 and 6.6 m) lose the stairs (NoPath); the third's (13.3 m) lose the roof too, and
    // the goal snapped to the road under it: "found", a route to the road.
    const sim::TriangleMesh mesh = sampleMesh("tower");
    const nav::AgentProfile tower = sampleAgent("tower");
    const sim::QueryIndex index(mesh);
    nav::OnDemandSettings wide;
    wide.margin = 200;
    auto lazy = nav::findOnDemandPath(mesh, index, tower, {20, 0, 20}, {0, 8, -4}, {}, wide, state);
    REQUIRE(lazy.ok());
    CHECK(lazy->path.failure == nav::PathFailure::NoPath);
    CHECK(lazy->regions == 2);
    CHECK(lazy->region.factor == 2);
    // At the default margin the route reaches the roof.
    auto near = nav::findOnDemandPath(mesh, index, tower, {20, 0, 20}, {0, 8, -4}, {}, {}, state);
    REQUIRE(near.ok());
    REQUIRE(near->path.ok());
    CHECK(near->path.waypoints.back().position.y == Approx(8).margin(0.05));
  }
}

TEST_CASE("on-demand search: the heuristic's rate is the cheapest area a floor can have", "[nav][ondemand]") {
  // A plate all of mud at cost 2 (the table's "default" area at cost 1 is no floor's): A* on
  // demand expands about the route's columns, as the bake's search does, not the plate.
  test::MeshBuilder plate;
  plate.floor(0, 0, 40, 20, 0, "mud");
  nav::AgentProfile agent = test::testAgent();
  agent.areas.push_back({"mud", "", "mud", 2.0});
  const sim::QueryIndex index(plate.mesh());
  nav::SearchState state;
  nav::LayeredSearchSettings settings;
  settings.method = nav::SearchMethod::AStar;
  auto lazy = nav::findOnDemandPath(plate.mesh(), index, agent, {1, 0, 10}, {39, 0, 10}, settings, {}, state);
  REQUIRE(lazy.ok());
  REQUIRE(lazy->path.ok());
  const double columns = 38 / lazy->region.grid.cell_size;
  CHECK(lazy->path.cost == Approx(2 * 38).epsilon(0.05));
  CHECK(lazy->path.expansions < 2 * columns);
}
