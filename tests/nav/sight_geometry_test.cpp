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
