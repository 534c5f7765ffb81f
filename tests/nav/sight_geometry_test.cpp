// sightLine with the world's geometry: a thin pane standing between two column centres, which the
// column walk (it samples only centres) cannot see, blocks the eyes once the query index is given.

#include <catch2/catch.hpp>

#include "bake_fixtures.h"
#include "strata/nav/nav_queries.h"

using namespace strata;

TEST_CASE("sightLine: a pane thinner than a column between two centres blocks the eyes given the geometry",
          "[nav][query][sight]") {
  // Cells of 0.5 m and an agent of radius 0.1 m: a 2 cm pane on the boundary x = 2.5 between two
  // column centres (2.25 and 2.75) leaves both columns standing room, so both keep their floors.
  nav::AgentProfile agent = test::testAgent();
  agent.settings.cell_size = 0.5;
  agent.settings.radius = 0.1;
  test::MeshBuilder open_level, pane_level;
  open_level.floor(0, 0, 5, 1, 0);
  pane_level.floor(0, 0, 5, 1, 0).box({2.49, 0.0, 0.0}, {2.51, 3.0, 1.0});
  const nav::BakedAgent open_baked = test::bakeOne(open_level.mesh(), agent);
  const nav::BakedAgent pane_baked = test::bakeOne(pane_level.mesh(), agent);
  const sim::QueryIndex open_index(open_level.mesh()), pane_index(pane_level.mesh());

  const sim::Vec3 from{0.25, 0.5, 0.25}, to{4.75, 0.5, 0.25};
  const nav::SnapSettings snap;
  const nav::SightSettings sight;
  const nav::LayeredGraph& g = pane_baked.graph;
  // Both columns beside the pane keep a floor: the column walk alone sees through it.
  REQUIRE(g.findNode(g.grid.columnX(2.25), g.grid.columnZ(0.25), 0, 0.1, 0.1) != nav::kNoNode);
  REQUIRE(g.findNode(g.grid.columnX(2.75), g.grid.columnZ(0.25), 0, 0.1, 0.1) != nav::kNoNode);
  CHECK(nav::sightLine(g, from, to, snap, sight));
  CHECK_FALSE(nav::sightLine(g, from, to, snap, sight, &pane_index));
  // sightStop says where: on the pane's near face, 1.6 m over the floor, 2.24 m from the start's centre.
  const nav::LineStop stop = nav::sightStop(g, from, to, snap, sight, &pane_index);
  CHECK(stop.why == nav::LineStop::Why::Surface);
  CHECK(stop.point.x == Approx(2.49).margin(1e-9));
  CHECK(stop.point.y == Approx(1.6).margin(1e-6));
  CHECK(stop.point.z == Approx(0.25).margin(1e-9));
  CHECK(stop.distance == Approx(2.24).margin(1e-9));
  CHECK(stop.label != sim::kInvalidId);
  CHECK(nav::sightStop(g, from, to, snap, sight).clear());
  // The feet are blocked either way: no walk edge crosses the pane.
  const nav::LayeredSearchGraph view(g, pane_baked.profile.settings);
  CHECK_FALSE(nav::lineOfSight(view, from, to, snap));

  // Without the pane the geometry changes nothing; a line along the pane's side stays clear.
  CHECK(nav::sightLine(open_baked.graph, from, to, snap, sight, &open_index));
  CHECK(nav::sightLine(g, {0.25, 0.5, 0.25}, {2.25, 0.5, 0.75}, snap, sight, &pane_index));
  // A pane lower than the eyes does not block them.
  test::MeshBuilder low_level;
  low_level.floor(0, 0, 5, 1, 0).box({2.49, 0.0, 0.0}, {2.51, 1.0, 1.0});
  const nav::BakedAgent low_baked = test::bakeOne(low_level.mesh(), agent);
  const sim::QueryIndex low_index(low_level.mesh());
  CHECK(nav::sightLine(low_baked.graph, from, to, snap, sight, &low_index));
}

TEST_CASE("sightLine: a column without floors is left to the geometry - a narrow trench and a ledge's foot are open air",
          "[nav][query][sight]") {
  // Columns of 0.25 m, radius 0.3: the floor of a 0.5 m wide, 0.5 m deep trench has no standing
  // room (its walls are within the radius), so the trench's columns hold no floor; nor do the
  // columns at the foot of a 1 m ledge. The eye segment 1.6 m up crosses neither: an audit found
  // them blocking the eyes at any --eye, a wall to the column walk.
  nav::AgentProfile agent = test::testAgent();
  agent.settings.cell_size = 0.25;
  agent.settings.radius = 0.3;
  const nav::SnapSettings snap;
  const nav::SightSettings sight;
  {
    test::MeshBuilder level;
    level.floor(0, 0, 5, 4, 0).floor(5.5, 0, 11, 4, 0).floor(5, 0, 5.5, 4, -0.5);
    level.quad({5, -0.5, 0}, {5, 0, 0}, {5, 0, 4}, {5, -0.5, 4}, {1, 0, 0});
    level.quad({5.5, -0.5, 0}, {5.5, 0, 0}, {5.5, 0, 4}, {5.5, -0.5, 4}, {-1, 0, 0});
    const nav::BakedAgent baked = test::bakeOne(level.mesh(), agent);
    const sim::QueryIndex index(level.mesh());
    const nav::LayeredGraph& g = baked.graph;
    REQUIRE(g.columnEnd(g.grid.columnX(5.2), g.grid.columnZ(2.1)) == g.columnBegin(g.grid.columnX(5.2), g.grid.columnZ(2.1)));
    CHECK(nav::sightLine(g, {2, 0, 2.1}, {9, 0, 2.1}, snap, sight, &index));
    CHECK(nav::sightLine(g, {9, 0, 2.1}, {2, 0, 2.1}, snap, sight, &index));
    CHECK_FALSE(nav::sightLine(g, {2, 0, 2.1}, {9, 0, 2.1}, snap, sight));  // without geometry: wall or hole
    // A wall across the trench still blocks: triangles.
    level.box({5, -0.5, 1.9}, {5.5, 2.5, 2.3});
    const nav::BakedAgent walled = test::bakeOne(level.mesh(), agent);
    const sim::QueryIndex walled_index(level.mesh());
    CHECK_FALSE(nav::sightLine(walled.graph, {2, 0, 2.1}, {9, 0, 2.1}, snap, sight, &walled_index));
  }
  {
    test::MeshBuilder level;  // ground at 0 for x < 5, a 1 m face, a top at 1 for x > 5
    level.floor(0, 0, 5, 4, 0).box({5, 0, 0}, {10, 1, 4});
    const nav::BakedAgent baked = test::bakeOne(level.mesh(), agent);
    const sim::QueryIndex index(level.mesh());
    CHECK(nav::sightLine(baked.graph, {2, 0, 2.1}, {8, 1, 2.1}, snap, sight, &index));
    CHECK(nav::sightLine(baked.graph, {8, 1, 2.1}, {2, 0, 2.1}, snap, sight, &index));
    // Eyes at the ground (0): the face is in the way.
    nav::SightSettings ground;
    ground.eye_height = 0.2;
    CHECK_FALSE(nav::sightLine(baked.graph, {2, 0, 2.1}, {8, 1, 2.1}, snap, ground, &index));
  }
}

TEST_CASE("sightLine: a segment over a beam no one stands on is left to the geometry", "[nav][query][sight]") {
  // A beam across the room, underside 1.9 m, a 60-degree ridge up to 2.25 m: its sides are too
  // steep to stand on, so its columns hold only the ground, with 1.9 m of headroom. An eye
  // segment at 2.4 m passes over the beam and crosses no triangle: it is clear (an audit found it
  // blocked at any eye height, the space over the ground's ceiling taken for solid); at 2.0 m it
  // crosses the beam and is blocked. Without the geometry the graph cannot tell a beam from a
  // slab, and both block.
  nav::AgentProfile agent = test::testAgent();
  test::MeshBuilder level;
  level.floor(0, 0, 12, 4, 0);
  level.quad({5.8, 1.9, 0}, {5.8, 1.9, 4}, {6.2, 1.9, 4}, {6.2, 1.9, 0}, {0, -1, 0});
  level.quad({5.8, 1.9, 0}, {5.8, 1.9, 4}, {6.0, 2.25, 4}, {6.0, 2.25, 0}, {-1, 0.6, 0});
  level.quad({6.2, 1.9, 0}, {6.2, 1.9, 4}, {6.0, 2.25, 4}, {6.0, 2.25, 0}, {1, 0.6, 0});
  const nav::BakedAgent baked = test::bakeOne(level.mesh(), agent);
  const sim::QueryIndex index(level.mesh());
  const nav::LayeredGraph& g = baked.graph;
  const int32_t bx = g.grid.columnX(5.95), bz = g.grid.columnZ(2.1);
  REQUIRE(g.columnEnd(bx, bz) - g.columnBegin(bx, bz) == 1);  // the ground only
  REQUIRE(g.headroom[g.columnBegin(bx, bz)] == Approx(1.9).margin(0.01));
  const nav::SnapSettings snap;
  nav::SightSettings high, low;
  high.eye_height = 2.4;
  low.eye_height = 2.0;
  CHECK(nav::sightLine(g, {2, 0, 2.1}, {10, 0, 2.1}, snap, high, &index));
  CHECK(nav::sightLine(g, {10, 0, 2.1}, {2, 0, 2.1}, snap, high, &index));
  CHECK_FALSE(nav::sightLine(g, {2, 0, 2.1}, {10, 0, 2.1}, snap, low, &index));
  CHECK_FALSE(nav::sightLine(g, {2, 0, 2.1}, {10, 0, 2.1}, snap, high));
  // Under the beam the eyes see as before.
  CHECK(nav::sightLine(g, {2, 0, 2.1}, {10, 0, 2.1}, snap, nav::SightSettings{}, &index));
}
