// Navigation queries on hand-built layered graphs: nearestWalkable's floor-below rule, heights
// of all layers, lineOfSight vs sightLine, components, fields and clearance.

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bake_fixtures.h"
#include "layered_fixtures.h"
#include "strata/nav/nav_queries.h"
#include "test_support.h"

using namespace strata;
using namespace strata::nav;
using strata::test::LayeredBuilder;
using strata::test::MeshBuilder;
using strata::test::bakeOne;
using strata::test::testAgent;

TEST_CASE("nearestWalkable: the floor below the point, not the nearest through a ceiling", "[nav][query]") {
  // Column (2, 2) has a road at 0 and a roof at 3. A point at y 2.4 is nearer the roof in 3-D
  // (0.6 m, through the roof slab) but stands on the road.
  LayeredBuilder b(5, 5);
  b.fromAscii({".....", ".....", ".....", ".....", "....."});
  b.addFloor(2, 2, 3);
  const auto g = b.build();
  const SnapSettings snap;
  // The height of the floor a point snaps to (the test fails when there is none).
  auto snappedHeight = [&](const LayeredGraph& graph, const sim::Vec3& point) {
    const auto found = nearestWalkable(graph, point, snap);
    REQUIRE(found);
    return found->position.y;
  };
  auto hit = nearestWalkable(g, {2.5, 2.4, 2.5}, snap);
  REQUIRE(hit);
  CHECK(hit->position.y == Approx(0));
  CHECK(g.nearestNode({2.5, 2.4, 2.5}, 0.5, 10.0) != hit->node);  // the 3-D nearest would be the roof
  // The vertical limit (link_snap_height): the roof at 3 is 0.6 away, the ground 2.4.
  CHECK(g.nearestNode({2.5, 2.4, 2.5}, 0.5, 1.0) == g.nearestNode({2.5, 2.4, 2.5}, 0.5, 10.0));
  CHECK(g.nearestNode({2.5, 2.4, 2.5}, 0.5, 0.5) == kNoNode);
  CHECK(g.nearestNode({2.5, -1.0, 2.5}, 0.5, 1.0) == hit->node);  // 1 m below the ground
  CHECK(g.nearestNode({2.5, -1.5, 2.5}, 0.5, 1.0) == kNoNode);
  CHECK(snappedHeight(g, {2.5, 3.2, 2.5}) == Approx(3));
  // Slightly under a floor (within `above`), inside its slab, still counts as on it; the fixture's
  // slabs are 0.2 m thick, so the road's ceiling is at 2.8.
  CHECK(snappedHeight(g, {2.5, 2.9, 2.5}) == Approx(3));
  // Under the slab, in the road's room, the roof is through the ceiling although within `above`
  // (an audit found a point 0.2 m under a ceiling snapped onto the floor above it).
  for (const double y : {2.7, 2.55, 2.785}) {
    CHECK(snappedHeight(g, {2.5, y, 2.5}) == Approx(0));
  }
  // A thin floor (a single plane: the road's ceiling is the floor itself, stored in float32): a
  // point at its height, or a centimetre under it, is on it; 10 cm under it, in the room below
  // (a review found points at exactly a thin floor's height snapped to the ground).
  LayeredBuilder thin(5, 5);
  thin.fromAscii({".....", ".....", ".....", ".....", "....."});
  thin.addFloor(2, 2, 2.2f);
  auto thin_graph = thin.build();
  const NodeId road = thin_graph.columnBegin(2, 2);
  thin_graph.headroom[road] = 2.2f;
  for (const double y : {2.2, 2.195}) {
    CHECK(snappedHeight(thin_graph, {2.5, y, 2.5}) == Approx(2.2));
  }
  CHECK(snappedHeight(thin_graph, {2.5, 2.1, 2.5}) == Approx(0));
  // Far up, the ceiling margin grows with float32's spacing: 1e6 m up a floor 2.0156 m over the
  // ground is stored 1.6 cm under its surface (999962.0), and a point at that stored height was
  // in the ground's room (1 cm under the ceiling), so it snapped to the ground (an audit: a
  // route from a ramp's own waypoint started on the ground, and its leg failed `query los`).
  // At every height the floor's own position snaps to it, and a point 0.2 m under its ceiling
  // (more than the margin, 1 cm + 6.25 cm at 1e6 m) stays in the room below.
  for (const double up : {0.0, 1e5, 3e5, 999960.0}) {
    INFO("y " << up);
    const double surface = up + 2.015625 + 0.0000001;  // the upper floor's true surface
    LayeredBuilder high(1, 1);
    high.addFloor(0, 0, static_cast<float>(up));
    high.addFloor(0, 0, static_cast<float>(surface));
    auto high_graph = high.build();
    const NodeId ground = high_graph.columnBegin(0, 0);
    high_graph.headroom[ground] = static_cast<float>(surface - double(high_graph.height[ground]));
    const double stored = high_graph.height[ground + 1];
    const auto own = nearestWalkable(high_graph, {0.5, stored, 0.5}, snap);
    REQUIRE(own);
    CHECK(own->node == ground + 1);
    CHECK(high_graph.nearestNode({0.5, stored, 0.5}, 1.0, 1.0, /*through_ceilings=*/false) == ground + 1);
    const auto below = nearestWalkable(high_graph, {0.5, surface - 0.2, 0.5}, snap);
    REQUIRE(below);
    CHECK(below->node == ground);
  }
  // A thin 45-degree ramp as the upper floor, rising toward +x: 0.4 m west of the centre its
  // surface is at 1.8, so a point 5 cm above it there is on the ramp, while at the centre a
  // point 0.3 m under it is in the room below (a review found a worst-case allowance for the
  // slope snapping such points up through the slab).
  thin_graph.normal[road + 1] = {-0.70710678f, 0.70710678f, 0};
  CHECK(snappedHeight(thin_graph, {2.1, 1.85, 2.5}) == Approx(2.2));
  CHECK(snappedHeight(thin_graph, {2.5, 1.9, 2.5}) == Approx(0));
  // 0.4 m east the surface is at 2.6: a point 5 cm under it lies above the centre's height but
  // still in the room below.
  CHECK(snappedHeight(thin_graph, {2.9, 2.55, 2.5}) == Approx(0));
  // A steeper ramp (60 degrees): 0.45 m down-slope its surface is 0.78 m under the centre's
  // height, more than `above`; a point 1 cm above it there is on it (a review found such points
  // in wide columns judged by the centre's height and snapped to the ground).
  thin_graph.normal[road + 1] = {-0.8660254f, 0.5f, 0};
  const double surface = 2.2 - 0.45 * std::sqrt(3.0);
  CHECK(snappedHeight(thin_graph, {2.05, surface + 0.01, 2.5}) == Approx(2.2));
  CHECK(snappedHeight(thin_graph, {2.05, surface - 0.1, 2.5}) == Approx(0));
  // A roof with nothing under it keeps the tolerance.
  LayeredBuilder lone(5, 5);
  lone.fromAscii({".....", ".....", ".....", ".....", "....."});
  const auto flat = lone.build();
  CHECK(snappedHeight(flat, {2.5, -0.4, 2.5}) == Approx(0));
  // Heights are float32: a floor at 0.1 is stored as 0.100000001, and a point 0.5 m under it as
  // written is within `above` (an audit found it outside by the rounding); 1 cm further is not.
  LayeredBuilder plate(1, 1);
  plate.addFloor(0, 0, 0.1f);
  const auto plate_graph = plate.build();
  CHECK(snappedHeight(plate_graph, {0.5, -0.4, 0.5}) == Approx(0.1));
  CHECK_FALSE(nearestWalkable(plate_graph, {0.5, -0.41, 0.5}, snap));
  // The slack is float32's spacing at the height, not a micrometre a metre: 100 km up that was
  // 0.1 m, and a floor 0.55 m over a point counted as below it (a hunt; 1 m near 1e6 m).
  for (const auto& [up, over] : {std::pair{1e5, 0.55}, std::pair{5e5, 0.55}, std::pair{9.9e5, 0.75}}) {
    INFO("y " << up);
    const float floor = static_cast<float>(up + over);  // float32 steps: 7.8 mm, 3.1 cm, 6.3 cm
    LayeredBuilder high(1, 1);
    high.addFloor(0, 0, floor);
    const auto high_graph = high.build();
    CHECK_FALSE(nearestWalkable(high_graph, {0.5, up, 0.5}, snap));
    CHECK(nearestWalkable(high_graph, {0.5, static_cast<double>(floor) - 0.5, 0.5}, snap));
  }
}

TEST_CASE("nearestWalkable far up: a point on a deck's surface past its column takes the deck, not the road under it", "[nav][query]") {
  // An audit: 999 km up a deck's stored height is 3.1 cm over its surface (float32's spacing is
  // 6.25 cm there), so a point on the surface, just past the deck's last column, was "more than
  // 3 cm under" the deck by the level rule and snapped to the road 3.4 m below (component, path,
  // fields and links from it went wrong alike). The same level at y 0 is the control.
  for (const double up : {0.0, 999000.0}) {
    INFO("y " << up);
    MeshBuilder level;
    level.floor(-2, 0, 6, 4, up - 4).ramp(-2, up, 2.0625, up + 3.375, 0, 4);
    auto agent = testAgent();
    const auto baked = bakeOne(level.mesh(), agent);
    const auto& g = baked.graph;
    const auto hit = nearestWalkable(g, {2.05, up + 3.3646153846, 2.125}, SnapSettings{});
    REQUIRE(hit);
    CHECK(hit->position.y > up);  // the deck, not the road at up - 4
    CHECK(hit->position.x == Approx(1.875));
  }
}

TEST_CASE("nearestWalkable: never a floor below the point through a slab, and the level rule reads the point's own column and a ramp's plane", "[nav][query]") {
  const SnapSettings snap;
  // A slab over the whole ground (headroom 2.8) with no standing room on it (a crawl space under
  // a plate): a point 5 cm over the slab's top has no floor, not the ground 3 m under it (an
  // audit: the route from such a point started downstairs). In the room, and at its ceiling
  // within a centimetre, the ground.
  LayeredBuilder b(5, 5);
  b.fromAscii({".....", ".....", ".....", ".....", "....."});
  auto covered = b.build();
  for (auto& h : covered.headroom) h = 2.8f;
  CHECK_FALSE(nearestWalkable(covered, {2.5, 3.05, 2.5}, snap));
  CHECK_FALSE(nearestWalkable(covered, {2.5, 2.9, 2.5}, snap));  // inside the slab
  for (const double y : {0.0, 2.5, 2.805}) {
    INFO("y " << y);
    const auto hit = nearestWalkable(covered, {2.5, y, 2.5}, snap);
    REQUIRE(hit);
    CHECK(hit->position.y == Approx(0));
  }
  // The slab over one column only: a point over it takes the open ground beside it, never the
  // floor under the slab; a floor with no ceiling (headroom infinite) is below any height.
  auto pillar = b.build();
  pillar.headroom[pillar.columnBegin(2, 2)] = 2.8f;
  {
    const auto hit = nearestWalkable(pillar, {2.5, 3.05, 2.5}, snap);
    REQUIRE(hit);
    CHECK(hit->node != pillar.columnBegin(2, 2));
    CHECK(hit->horizontal_distance == Approx(1.0));
    const auto sky = nearestWalkable(pillar, {1.5, 100.0, 2.5}, snap);
    REQUIRE(sky);
    CHECK(sky->node == pillar.columnBegin(1, 2));
  }
  // A point on a column border (z 2.0 between rows 1 and 2) standing on the tread of row 2 (at 1)
  // over row 1's floor (at 0): the tie of the two columns goes to the lower one, row 1's; the
  // level rule then takes the tread in the point's own column, 0.5 m away, not one beside it.
  LayeredBuilder stairs(5, 5);
  stairs.fromAscii({"00000", "00000", "11111", "11111", "11111"});
  const auto steps = stairs.build();
  {
    const auto hit = nearestWalkable(steps, {2.5, 1.0, 2.0}, snap);
    REQUIRE(hit);
    CHECK(hit->position.y == Approx(1));
    CHECK(hit->position.x == Approx(2.5));
    CHECK(hit->position.z == Approx(2.5));
  }
  // A ramp rising toward +x (0.5 m a column, normals tilted to match): a point 0.12 m over the
  // ramp near its own column's uphill edge stays on its own column; the next column's plane at
  // the point is the same surface (carried to its square's edge it read 0.095 m under the point,
  // "level", and the point took that column).
  LayeredBuilder ramp(5, 5);
  for (int z = 0; z < 5; ++z)
    for (int x = 0; x < 5; ++x) ramp.addFloor(x, z, 0.5f * float(x));
  auto slope = ramp.build();
  LayeredBuilder::tiltAlongX(slope, 0.5f);
  for (const double px : {2.95, 2.05, 2.5}) {
    INFO("x " << px);
    const double surface = 1.0 + 0.5 * (px - 2.5);
    const auto hit = nearestWalkable(slope, {px, surface + 0.12, 2.5}, snap);
    REQUIRE(hit);
    CHECK(hit->position.x == Approx(2.5));
  }
}

TEST_CASE("nearestWalkable: a point just under a thin sloped ramp over the ground is in the ground's room, in every column", "[nav][query]") {
  // The ground, and a thin ramp over it rising toward +x (4 m at column 0, 0.5 m a column, its
  // normal tilted to match): the ground's headroom is the ramp over each column's centre. A point
  // 2 cm under the ramp is under that ceiling: its own column's rule gives the ground, so must the
  // columns around (an audit: the level rule took the ramp one column downhill, whose plane at
  // the point is the same surface 2 cm over the point; and a point off its column's centre
  // uphill was over the ground's ceiling carried along the flat ground, so its column gave no
  // floor and the ramp one column over was taken, through the ramp).
  LayeredBuilder b(6, 5);
  for (int z = 0; z < 5; ++z)
    for (int x = 0; x < 6; ++x) {
      b.addFloor(x, z, 0.0f);
      b.addFloor(x, z, 4.0f + 0.5f * float(x));
    }
  auto g = b.build();
  const float n = static_cast<float>(1 / std::sqrt(1.25));
  for (int z = 0; z < 5; ++z)
    for (int x = 0; x < 6; ++x) {
      const uint32_t ground = g.columnBegin(x, z);
      g.headroom[ground] = 4.0f + 0.5f * float(x);
      g.normal[ground + 1] = {-0.5f * n, n, 0};
    }
  const SnapSettings snap;
  int checked = 0;
  for (const double px : {2.5, 2.3, 2.7, 2.95, 2.05})
    for (const double under : {0.02, 0.025, 0.029}) {
      const double ramp = 4.0 + 0.5 * (px - 0.5);
      INFO("x " << px << ", " << under << " m under the ramp");
      const auto hit = nearestWalkable(g, {px, ramp - under, 2.5}, snap);
      REQUIRE(hit);
      CHECK(hit->position.y == Approx(0));
      CHECK(hit->position.x == Approx(2.5));
      ++checked;
    }
  // Within the ceiling margin under the ramp, and over it: the ramp of its own column.
  for (const double px : {2.5, 2.3, 2.7})
    for (const double over : {-0.005, 0.0, 0.05}) {
      const double ramp = 4.0 + 0.5 * (px - 0.5);
      INFO("x " << px << ", " << over << " m over the ramp");
      const auto hit = nearestWalkable(g, {px, ramp + over, 2.5}, snap);
      REQUIRE(hit);
      CHECK(hit->position.y == Approx(5.0));
      CHECK(hit->position.x == Approx(2.5));
    }
  CHECK(checked == 15);
}

TEST_CASE("nearestWalkable: a point on a deck near its edge stays on the deck, one inside a slab or over a step keeps its column", "[nav][query]") {
  SnapSettings snap;
  auto snapped = [&](const LayeredGraph& g, const sim::Vec3& p) {
    const auto hit = nearestWalkable(g, p, snap);
    REQUIRE(hit);
    return hit->position;
  };
  // A road at 0 and a bridge deck at 4 over columns x 0..1: a point standing on the deck at
  // x 2.05 (the deck's real edge may lie past its last column's centre) has only the road in its
  // own column. By horizontal distance alone it took the road 4 m down (an audit: NoPath from a
  // point on a bridge near its edge); a floor at the point's level in the next column comes first.
  LayeredBuilder bridge(5, 5);
  bridge.fromAscii({".....", ".....", ".....", ".....", "....."});
  for (int z = 0; z < 5; ++z)
    for (int x = 0; x < 2; ++x) bridge.addFloor(x, z, 4);
  const auto deck = bridge.build();
  for (const double y : {4.0, 4.08, 3.98}) {
    INFO("y " << y);
    CHECK(snapped(deck, {2.05, y, 2.5}).y == Approx(4));
    CHECK(snapped(deck, {2.05, y, 2.5}).x == Approx(1.5));
    // The same for every radius that reaches the deck's column (path snaps within 1 m, query
    // nearest within 2.4 m).
    for (const double radius : {0.6, 1.0, 2.4}) {
      snap.max_horizontal = radius;
      CHECK(snapped(deck, {2.05, y, 2.5}).y == Approx(4));
    }
    snap = SnapSettings{};
  }
  // On the road under the deck's edge, and on the road beside it: the road.
  CHECK(snapped(deck, {1.9, 0.0, 2.5}).y == Approx(0));
  CHECK(snapped(deck, {2.05, 0.0, 2.5}).y == Approx(0));
  // Not at the deck's level: hovering 1 m over the road beside it, or two columns away from it,
  // the horizontally nearest column (the road below).
  CHECK(snapped(deck, {2.05, 3.0, 2.5}).x == Approx(2.5));
  CHECK(snapped(deck, {3.5, 4.0, 2.5}).y == Approx(0));
  // A review of a first version (a floor below charged its drop, a floor over the point only
  // when nothing else was in reach) found these wrong; they keep the horizontal rule:
  // a point inside the deck's 0.2 m slab, near its edge, is on the deck, not on the road;
  CHECK(snapped(deck, {1.5, 3.84, 2.5}).y == Approx(4));
  // a point 3 cm over a floor, before a 0.12 m step in the next column, is on its own floor.
  LayeredBuilder steps(5, 5);
  steps.fromAscii({".....", ".....", ".....", ".....", "....."});
  auto step = steps.build();
  for (uint32_t n = step.columnBegin(3, 2); n < step.columnEnd(3, 2); ++n) step.height[n] = 0.15f;
  CHECK(snapped(step, {2.9, 0.03, 2.5}).x == Approx(2.5));
  CHECK(snapped(step, {3.1, 0.1, 2.5}).x == Approx(3.5));
  // A second review: hovering 0.15 m over the ground 0.4 m from a 0.15 m step (its top at the
  // point's level) is over the ground, not on the step; at ground level inside the step's column
  // 0.3 m from its edge, the step's top (0.12 m up) is nearer than the ground's column.
  CHECK(snapped(step, {2.6, 0.15, 2.5}).x == Approx(2.5));
  CHECK(snapped(step, {3.3, 0.03, 2.5}).x == Approx(3.5));
  // But 0.05 m from the step's edge, hovering at its height, the point is on the step.
  CHECK(snapped(step, {2.95, 0.15, 2.5}).x == Approx(3.5));
  // A third review: a point inside a solid stair keeps the tread it is in (0.3 m under tread
  // 0.8's top, 0.1 m above tread 0.4 in the next column), and one hovering 0.2 m over the
  // ground just before a riser whose top is 0.07 m above it is not on that tread.
  auto stair = steps.build();
  for (uint32_t n = stair.columnBegin(1, 2); n < stair.columnEnd(1, 2); ++n) stair.height[n] = 0.4f;
  for (uint32_t n = stair.columnBegin(2, 2); n < stair.columnEnd(2, 2); ++n) stair.height[n] = 0.8f;
  for (uint32_t n = stair.columnBegin(4, 2); n < stair.columnEnd(4, 2); ++n) stair.height[n] = 0.27f;
  CHECK(snapped(stair, {2.05, 0.5, 2.5}).y == Approx(0.8));
  CHECK(snapped(stair, {3.95, 0.2, 2.5}).y == Approx(0));
  // A fourth: a point exactly 0.1 m over a floor at 1 keeps its own column (1.1 - 1.0 rounds
  // above 0.1 while 1.1 - 0.1 rounds to 1.0: a neighbouring column of the same floor counted as
  // level and won).
  LayeredBuilder raised(5, 5);
  raised.fromAscii({"11111", "11111", "11111", "11111", "11111"});
  const auto one = raised.build();
  const sim::Vec3 at{2.066, 1.1, 2.111};
  CHECK(snapped(one, at).x == Approx(2.5));
  CHECK(snapped(one, at).z == Approx(2.5));
}

TEST_CASE("nearestWalkable: ring search snaps beside a wall - off the grid, distances from the point itself", "[nav][query]") {
  LayeredBuilder b(7, 7);
  b.fromAscii({".......", ".......", ".......", "...##..", ".......", ".......", "......."});
  const auto g = b.build();
  SnapSettings snap;
  snap.max_horizontal = 3;
  auto hit = nearestWalkable(g, {3.5, 2, 3.5}, snap);
  REQUIRE(hit);
  CHECK(hit->horizontal_distance == Approx(1));
  CHECK(hit->position.x == Approx(3.5));  // ties go to the lower node id: column (3, 2)
  CHECK(hit->position.z == Approx(2.5));
  // Off the grid: 20 m out is too far for a 3 m radius (no snapping to the edge column), 1 m out
  // reaches the edge column 1.5 m away.
  CHECK_FALSE(nearestWalkable(g, {-20, 0, 3.5}, snap));
  CHECK_FALSE(nearestWalkable(g, {3.5, 0, 100}, snap));
  hit = nearestWalkable(g, {-1, 0, 3.5}, snap);
  REQUIRE(hit);
  CHECK(hit->position.x == Approx(0.5));
  CHECK(hit->horizontal_distance == Approx(1.5));
  snap.max_horizontal = 0.4;
  CHECK_FALSE(nearestWalkable(g, {3.5, 0, 3.5}, snap));
  LayeredBuilder empty(3, 3);
  CHECK_FALSE(nearestWalkable(empty.build(), {1, 0, 1}, snap));
}

TEST_CASE("nearestNode and nearestWalkable agree on a point on a column border, whatever the grid's origin", "[nav][query]") {
  // A point on the border of two columns is equally far from both centres; the centres' rounding
  // depends on the grid's origin (tower's field origin x = 0 with cell 0.3 was nearer the +x
  // column by 3e-15 in nearestNode and went to the -x column in nearestWalkable, so the field
  // read 0.3 at its own origin). Both take the lower node within a micrometre, on every origin.
  LayeredBuilder b(40, 3);
  b.fromAscii(std::vector<std::string>(3, std::string(40, '.')));
  auto g = b.build();
  g.grid.cell_size = 0.3;
  SnapSettings snap;
  snap.max_horizontal = 0.5;
  int checked = 0;
  for (int k = 1; k < 40; ++k)
    for (const double shift : {0.0, 0.1, -7.3, 1000.0}) {
      // The border between columns k - 1 and k at x = shift: origin = shift - k * cell_size.
      g.grid.origin_x = shift - k * g.grid.cell_size;
      g.grid.origin_z = -0.45;
      const sim::Vec3 point{shift, 0.0, 0.0};
      if (g.grid.origin_x + k * g.grid.cell_size != shift) continue;  // only exact borders
      ++checked;
      CAPTURE(k, shift);
      const uint32_t expected = g.columnBegin(k - 1, 1);
      CHECK(g.nearestNode(point, 0.5, 1.0) == expected);
      const auto hit = nearestWalkable(g, point, snap);
      REQUIRE(hit);
      CHECK(hit->node == expected);
      // A radius of exactly half a cell reaches both centres, and the tie goes the same way
      // (centres that round a little beyond it count as within: the tie's micrometre).
      SnapSettings half = snap;
      half.max_horizontal = 0.5 * g.grid.cell_size;
      const auto at_half = nearestWalkable(g, point, half);
      REQUIRE(at_half);
      CHECK(at_half->node == expected);
    }
  CHECK(checked > 60);
}

TEST_CASE("nearestWalkable with a radius of 0: a point on a column border takes the lower column, however it rounds", "[nav][query]") {
  // The column holding the point always counts, whatever the radius; on a border the point is on
  // both columns (and on four at a corner). floor(x / cell) put 0.9 on a 0.3 m grid in the +X
  // column and -2.1 in the -X one, so a radius of 0 answered the +X floor at 0.9 and the -X floor
  // at -2.1 (an audit). Both now take the lower column, the tie rule of any radius.
  LayeredBuilder b(40, 40);
  b.fromAscii(std::vector<std::string>(40, std::string(40, '.')));
  auto g = b.build();
  g.grid.cell_size = 0.3;
  g.grid.origin_x = g.grid.origin_z = -6.0;  // a multiple of the cell: columns are floor(x / 0.3) + 20
  SnapSettings snap;
  snap.max_horizontal = 0;
  int checked = 0, rounded_up = 0, rounded_down = 0;
  for (int k = -19; k <= 19; ++k) {
    const double border = k * 0.3;  // typed: 0.9, -2.1, ... as the nearest double
    const int32_t lower = k - 1 + 20;
    for (const bool corner : {false, true}) {
      const sim::Vec3 point{border, 0.0, corner ? border : 0.15};
      CAPTURE(k, border, corner);
      const int32_t x = g.grid.columnX(border);
      (x == lower ? rounded_down : rounded_up) += 1;
      const int32_t z = corner ? lower : g.grid.columnZ(0.15);
      const auto hit = nearestWalkable(g, point, snap);
      REQUIRE(hit);
      CHECK(hit->node == g.columnBegin(lower, z));
      ++checked;
    }
  }
  CHECK(checked == 78);
  CHECK(rounded_up > 0);    // columnX gave the +X column for some borders
  CHECK(rounded_down > 0);  // and the -X one for others
}

TEST_CASE("floorsAt: heights of every layer of a column", "[nav][query]") {
  LayeredBuilder b(3, 3);
  b.fromAscii({"...", "...", "..."});
  b.addFloor(1, 1, 4);
  b.addFloor(1, 1, 8);
  const auto g = b.build();
  const auto layers = floorsAt(g, 1.5, 1.5);
  REQUIRE(layers.size() == 3);
  CHECK(layers[0].height == Approx(0));
  CHECK(layers[1].height == Approx(4));
  CHECK(layers[2].height == Approx(8));
  CHECK(layers[0].headroom == Approx(3.8));
  CHECK(std::isinf(layers[2].headroom));
  CHECK(floorsAt(g, 0.5, 0.5).size() == 1);
  CHECK(floorsAt(g, -1, 0.5).empty());
  CHECK(floorsAt(g, std::nan(""), 0.5).empty());
}

TEST_CASE("floorsAt and clearanceAt: a floor's height is its surface under the point, not its column centre's", "[nav][query]") {
  // An audit: on a slope `query height` read the column centre's height, up to 0.15 m off the
  // heights of a route's waypoints through the same point. A 30-degree ramp rising along x over
  // a flat ground under a deck: every layer carried to the point along its own plane.
  MeshBuilder level;
  const double rise = std::tan(30.0 * M_PI / 180.0);
  level.floor(-1, 0, 11, 4, 0).ramp(0, 0, 10, 10 * rise, 0, 4).floor(-1, 0, 11, 4, 9);
  auto agent = testAgent();
  const auto baked = bakeOne(level.mesh(), agent);
  const auto& g = baked.graph;
  std::mt19937 random(5);
  std::uniform_real_distribution<double> along(1.0, 4.0), across(0.5, 3.5);
  int checked = 0;
  for (int i = 0; i < 200; ++i) {
    const double x = along(random), z = across(random);
    const auto layers = floorsAt(g, x, z);
    INFO("x " << x << " z " << z);
    // The ramp's floor (the ground under it has no standing room where the ramp is low; the
    // deck at 9 m has its own) reads the ramp's plane at the point, not at the centre.
    bool ramp = false;
    for (const auto& l : layers)
      if (std::fabs(l.height - x * rise) < 1e-4) ramp = true;
    CHECK(ramp);
    for (const auto& l : layers) CHECK(l.height == Approx(g.surfaceAt(l.node, x, z)).margin(1e-12));
    const auto floor = clearanceAt(g, {x, x * rise + 0.05, z}, SnapSettings{});
    REQUIRE(floor);
    CHECK(floor->height == Approx(x * rise).margin(1e-4));
    ++checked;
  }
  CHECK(checked == 200);
}

TEST_CASE("floorsAt: a typed border between columns reads the +X / +Z column whatever the rounding", "[nav][query]") {
  // x = -2.1 with cell 0.3 is the border between columns -8 and -7 (relative to origin 0), but
  // -2.1 / 0.3 is -7.000000000000001 in doubles: the query read the -X column (an audit).
  // Every border typed as a decimal (as `strata query height --at` reads it) must give the
  // floors of a point clearly inside the column on its +X (or +Z) side; each column here has
  // its own number of floors, so a wrong column shows.
  LayeredBuilder b(40, 40);
  b.fromAscii(std::vector<std::string>(40, std::string(40, '.')));
  for (int x = 0; x < 40; ++x)
    for (int z = 0; z < 40; ++z)
      for (int extra = 0; extra < (x + 2 * z) % 3; ++extra) b.addFloor(x, z, 4.0f * float(extra + 1));
  auto g = b.build();
  for (const double cell : {0.3, 0.1, 0.7, 0.25}) {
    for (const double origin : {-6.0, -4.2, 3.3}) {
      g.grid.cell_size = cell;
      g.grid.origin_x = origin;
      g.grid.origin_z = origin;
      int checked = 0;
      for (int k = 1; k < 40; ++k) {
        // The border as a user types it: the decimal of (origin + k cell) to 6 places.
        const double border = std::stod(fmt::format("{:.6f}", origin + k * cell));
        if (std::fabs(border - (origin + k * cell)) > 1e-9) continue;
        ++checked;
        CAPTURE(cell, origin, k, border);
        const double inside = origin + (k + 0.5) * cell, middle = origin + 20.5 * cell;
        CHECK(floorsAt(g, border, middle).size() == floorsAt(g, inside, middle).size());
        CHECK(floorsAt(g, middle, border).size() == floorsAt(g, middle, inside).size());
        const auto at = floorsAt(g, border, border), in = floorsAt(g, inside, inside);
        REQUIRE(at.size() == in.size());
        for (std::size_t i = 0; i < at.size(); ++i) CHECK(at[i].node == in[i].node);
      }
      CHECK(checked >= 39);
    }
  }
}

TEST_CASE("lineOfSight vs sightLine: a trench blocks feet not eyes, a ridge blocks both", "[nav][query]") {
  const AgentSettings agent;
  const SnapSettings snap;
  const SightSettings sight;
  // Row: floor, trench (floor at -3), floor.
  LayeredBuilder trench(7, 1);
  trench.fromAscii({"...#..."});
  trench.addFloor(3, 0, -3);
  const auto gt = trench.build();
  const LayeredSearchGraph vt(gt, agent);
  CHECK_FALSE(lineOfSight(vt, {0.5, 0, 0.5}, {6.5, 0, 0.5}, snap));
  CHECK(sightLine(gt, {0.5, 0, 0.5}, {6.5, 0, 0.5}, snap, sight));
  // Row: floor, ridge (floor at 3), floor.
  LayeredBuilder ridge(7, 1);
  ridge.fromAscii({"...3..."});
  const auto gr = ridge.build();
  const LayeredSearchGraph vr(gr, agent);
  CHECK_FALSE(lineOfSight(vr, {0.5, 0, 0.5}, {6.5, 0, 0.5}, snap));
  CHECK_FALSE(sightLine(gr, {0.5, 0, 0.5}, {6.5, 0, 0.5}, snap, sight));
  // A low step (1 m) blocks feet (beyond the step height) but not eyes at 1.6 m.
  LayeredBuilder step(7, 1);
  step.fromAscii({"...1..."});
  const auto gs = step.build();
  const LayeredSearchGraph vs(gs, agent);
  CHECK_FALSE(lineOfSight(vs, {0.5, 0, 0.5}, {6.5, 0, 0.5}, snap));
  CHECK(sightLine(gs, {0.5, 0, 0.5}, {6.5, 0, 0.5}, snap, sight));
  // Open floor: both clear.
  LayeredBuilder open(7, 3);
  open.fromAscii({".......", ".......", "......."});
  const auto go = open.build();
  const LayeredSearchGraph vo(go, agent);
  CHECK(lineOfSight(vo, {0.5, 0, 0.5}, {6.5, 0, 2.5}, snap));
  CHECK(sightLine(go, {0.5, 0, 0.5}, {6.5, 0, 2.5}, snap, sight));
}

// A row of 7 columns of 1 m drawn as LayeredBuilder::fromAscii draws one.
static LayeredBuilder row(const char* ascii) {
  LayeredBuilder b(7, 1);
  b.fromAscii({ascii});
  return b;
}

TEST_CASE("lineStop: where a walking line stops and why", "[nav][query]") {
  const AgentSettings agent;  // step height 0.4
  const SnapSettings snap;
  const sim::Vec3 from{0.5, 0, 0.5}, to{6.5, 0, 0.5};
  // The line leaves column 2 at x = 3 (2.5 m from column 0's centre) on its floor, towards (3.5, 0.5).
  const auto checkAtColumnThree = [&](const LineStop& stop) {
    CHECK(stop.point.x == Approx(3.0));
    CHECK(stop.point.y == Approx(0.0).margin(1e-12));
    CHECK(stop.point.z == Approx(0.5));
    CHECK(stop.distance == Approx(2.5));
    CHECK(stop.x == Approx(3.5));
    CHECK(stop.z == Approx(0.5));
  };
  SECTION("nothing to stand on") {
    const auto g = row("...#...").build();
    const LineStop stop = lineStop(LayeredSearchGraph(g, agent), from, to, snap);
    CHECK(stop.why == LineStop::Why::NoFloor);
    checkAtColumnThree(stop);
  }
  SECTION("a step over the step height") {
    const auto g = row("...1...").build();
    const LineStop stop = lineStop(LayeredSearchGraph(g, agent), from, to, snap);
    CHECK(stop.why == LineStop::Why::Step);
    CHECK(stop.rise == Approx(1.0));
    checkAtColumnThree(stop);
  }
  SECTION("only a jump leads on") {
    auto g = row("...1...").build();
    LayeredBuilder::setEdge(g, g.columnBegin(2, 0), 0, g.columnBegin(3, 0), EdgeKind::Jump);  // direction 0: +X
    const LineStop stop = lineStop(LayeredSearchGraph(g, agent), from, to, snap);
    CHECK(stop.why == LineStop::Why::OnlyAction);
    CHECK(stop.edge == EdgeKind::Jump);
    CHECK(stop.rise == Approx(1.0));
    checkAtColumnThree(stop);
  }
  SECTION("a floor within a step but no walk edge to it") {
    auto g = row(".......").build();
    g.neighbor[std::size_t(g.columnBegin(2, 0)) * 8] = kNoNode;
    g.edge_kind[std::size_t(g.columnBegin(2, 0)) * 8] = uint8_t(EdgeKind::None);
    const LineStop stop = lineStop(LayeredSearchGraph(g, agent), from, to, snap);
    CHECK(stop.why == LineStop::Why::NoWalkEdge);
    CHECK(stop.rise == Approx(0.0).margin(1e-12));
    checkAtColumnThree(stop);
  }
  SECTION("the end's column reached on another floor") {
    LayeredBuilder b = row(".......");
    b.addFloor(6, 0, 3);  // a deck over the last column: --to at y 3 snaps to it
    const auto g = b.build();
    const LineStop stop = lineStop(LayeredSearchGraph(g, agent), from, {6.5, 3, 0.5}, snap);
    CHECK(stop.why == LineStop::Why::OtherFloor);
    CHECK(stop.rise == Approx(-3.0));
    CHECK(stop.point.x == Approx(6.5));
    CHECK(stop.distance == Approx(6.0));
    CHECK(stop.x == Approx(6.5));
  }
  SECTION("an end with no floor") {
    const auto g = row(".......").build();
    const LayeredSearchGraph view(g, agent);
    CHECK(lineStop(view, {20, 0, 0.5}, to, snap).why == LineStop::Why::NoStartNode);
    CHECK(lineStop(view, from, {20, 0, 0.5}, snap).why == LineStop::Why::NoGoalNode);
    CHECK(lineStop(view, from, to, snap).clear());
  }
}

TEST_CASE("lineStop agrees with lineOfSight on random floors, and its reason matches the columns", "[nav][query]") {
  // Floors at 0, 0.25, 0.5 or 1 m with holes: every way a walking line can stop but a special
  // edge. Each blocked line's reason is checked against the graph itself.
  AgentSettings agent;
  std::mt19937 rng(55);
  std::map<LineStop::Why, int> seen;
  for (int round = 0; round < 4; ++round) {
    LayeredBuilder b(24, 24);
    std::uniform_int_distribution<int> cell(0, 11);
    const float heights[4] = {0.0f, 0.25f, 0.5f, 1.0f};
    for (int z = 0; z < 24; ++z)
      for (int x = 0; x < 24; ++x)
        if (const int c = cell(rng); c != 0) b.addFloor(x, z, c < 9 ? 0.0f : heights[c - 8]);
    const auto g = b.build();
    const LayeredSearchGraph view(g, agent);
    std::uniform_real_distribution<double> coordinate(0.0, 24.0);
    for (int i = 0; i < 3000; ++i) {
      const sim::Vec3 p{coordinate(rng), 1.5, coordinate(rng)}, q{coordinate(rng), 1.5, coordinate(rng)};
      const NodeId a = snapToNode(g, p, {}), c = snapToNode(g, q, {});
      if (a == kNoNode || c == kNoNode) continue;
      const LineStop stop = lineStop(view, p, q, {});
      CAPTURE(round, i, int(stop.why));
      REQUIRE(stop.clear() == lineOfSight(view, p, q, {}));
      ++seen[stop.why];
      if (stop.clear()) continue;
      // On the segment between the ends' column centres, at `distance` from the first.
      const sim::Vec3 pa = g.nodePosition(a), pc = g.nodePosition(c);
      const double length = std::hypot(pc.x - pa.x, pc.z - pa.z);
      CHECK(stop.distance >= 0);
      CHECK(stop.distance <= length + 1e-9);
      CHECK(std::hypot(stop.point.x - pa.x, stop.point.z - pa.z) == Approx(stop.distance).margin(1e-9));
      const double cross = (pc.x - pa.x) * (stop.point.z - pa.z) - (pc.z - pa.z) * (stop.point.x - pa.x);
      CHECK(std::fabs(cross) <= 1e-9 * std::max(1.0, length * length));
      // The column at fault lies within a column of the stop point (it is the one the line enters
      // or passes through there).
      CHECK(std::fabs(stop.x - stop.point.x) <= 1.0 + 1e-9);
      CHECK(std::fabs(stop.z - stop.point.z) <= 1.0 + 1e-9);
      const int32_t cx = g.grid.columnX(stop.x), cz = g.grid.columnZ(stop.z);
      const auto nearest = [&] {
        double best = std::numeric_limits<double>::infinity();
        for (uint32_t n = g.columnBegin(cx, cz); n < g.columnEnd(cx, cz); ++n)
          if (std::fabs(g.height[n] - stop.point.y) < std::fabs(best)) best = g.height[n] - stop.point.y;
        return best;
      };
      switch (stop.why) {
        case LineStop::Why::NoFloor: CHECK((!g.grid.contains(cx, cz) || g.columnBegin(cx, cz) == g.columnEnd(cx, cz))); break;
        case LineStop::Why::Step:
          CHECK(std::fabs(stop.rise) > agent.step_height);
          CHECK(nearest() == Approx(stop.rise));
          break;
        case LineStop::Why::NoWalkEdge:
          CHECK(std::fabs(stop.rise) <= agent.step_height);
          CHECK(nearest() == Approx(stop.rise));
          break;
        case LineStop::Why::NoRoom: {
          // A column the line passes off its centre, missing a diagonal walk edge.
          NodeId standing = kNoNode;
          for (uint32_t n = g.columnBegin(cx, cz); n < g.columnEnd(cx, cz); ++n)
            if (std::fabs(g.height[n] - stop.point.y) < 1e-6) standing = n;
          REQUIRE(standing != kNoNode);
          CHECK_FALSE(view.squareFree(standing));
          break;
        }
        case LineStop::Why::OtherFloor: CHECK(stop.rise != 0); break;
        default: FAIL("a reason the walking line cannot give");
      }
    }
  }
  // (No NoWalkEdge: the fixture joins every pair of floors within a step, and a diagonal step
  // past a corner is stopped as NoRoom first, its quadrant having no diagonal edge.)
  for (const auto why : {LineStop::Why::Clear, LineStop::Why::NoFloor, LineStop::Why::Step, LineStop::Why::NoRoom}) {
    CAPTURE(int(why));
    CHECK(seen[why] > 10);
  }
}

TEST_CASE("sightStop: where the eyes are blocked and why", "[nav][query]") {
  const SnapSettings snap;
  const SightSettings sight;  // eyes 1.6 m up
  const sim::Vec3 from{0.5, 0, 0.5}, to{6.5, 0, 0.5};
  SECTION("rising ground") {
    const auto g = row("...3...").build();
    const LineStop stop = sightStop(g, from, to, snap, sight);
    CHECK(stop.why == LineStop::Why::GroundRises);
    CHECK(stop.rise == Approx(1.4));
    CHECK(stop.point.x == Approx(3.5));
    CHECK(stop.point.y == Approx(1.6));
    CHECK(stop.distance == Approx(3.0));
    CHECK(stop.x == Approx(3.5));
  }
  SECTION("a ceiling over the floor below the eyes, without the geometry") {
    LayeredBuilder b = row(".......");
    b.addFloor(4, 0, 1.7f);  // headroom 1.5 below it
    const auto g = b.build();
    const LineStop stop = sightStop(g, from, to, snap, sight);
    CHECK(stop.why == LineStop::Why::Ceiling);
    CHECK(stop.point.x == Approx(4.5));
    CHECK(stop.x == Approx(4.5));
  }
  SECTION("eyes over an end's ceiling") {
    LayeredBuilder b = row(".......");
    b.addFloor(6, 0, 1.7f);
    const auto g = b.build();
    const LineStop stop = sightStop(g, from, to, snap, sight);
    CHECK(stop.why == LineStop::Why::EyesCovered);
    CHECK_FALSE(stop.at_start);
    CHECK(stop.rise == Approx(1.5));
    CHECK(stop.point.x == Approx(6.5));
    CHECK(stop.distance == Approx(6.0));
    CHECK(sightStop(g, to, from, snap, sight).at_start);
  }
}

TEST_CASE("lineOfSight: no corner threading, sightLine passes diagonal gaps", "[nav][query]") {
  // Two blocked cells touching at a corner: the diagonal between them.
  LayeredBuilder b(2, 2);
  b.fromAscii({".#", "#."});
  const auto g = b.build();
  const AgentSettings agent;
  const LayeredSearchGraph view(g, agent);
  CHECK_FALSE(lineOfSight(view, {0.5, 0, 0.5}, {1.5, 0, 1.5}, {}));
  CHECK(sightLine(g, {0.5, 0, 0.5}, {1.5, 0, 1.5}, {}, {}));
}

TEST_CASE("lineOfSight and sightLine snap their ends as a path does, so they agree with Direct", "[nav][query]") {
  // A floor of columns 0..9 with a hole at column 6: a point beside it (in no column's floor)
  // snaps within 1 m to the nearest one, as Direct's ends do.
  LayeredBuilder b(10, 1);
  b.fromAscii({"......#..."});
  const auto g = b.build();
  const AgentSettings agent;
  const LayeredSearchGraph view(g, agent);
  const SnapSettings snap;
  const sim::Vec3 beside{6.7, 0, 0.5}, near_start{0.5, 0, 0.5}, off_grid{10.4, 0, 0.5};
  CHECK(lineOfSight(view, near_start, {4.5, 0, 0.5}, snap));
  CHECK(lineOfSight(view, beside, {9.5, 0, 0.5}, snap));  // snaps to column 7
  CHECK(lineOfSight(view, off_grid, {7.5, 0, 0.5}, snap));  // 0.9 m from column 9's centre
  CHECK(sightLine(g, off_grid, {7.5, 0, 0.5}, snap, {}));
  LayeredSearchSettings direct;
  direct.method = SearchMethod::Direct;
  SearchState state;
  for (const sim::Vec3& to : {sim::Vec3{9.5, 0, 0.5}, sim::Vec3{4.5, 0, 0.5}}) {
    const bool walked = findLayeredPath(view, off_grid, to, direct, state).ok();
    CHECK(lineOfSight(view, off_grid, to, snap) == walked);
  }
  CHECK_FALSE(lineOfSight(view, {12.0, 0, 0.5}, {7.5, 0, 0.5}, snap));  // 2.5 m away: no floor
}

TEST_CASE("sightLine: a low ceiling in between blocks the eyes", "[nav][query]") {
  LayeredBuilder b(7, 1);
  b.fromAscii({"......."});
  b.addFloor(3, 0, 1.7f);  // a slab with its top 1.7 m up: headroom 1.5 below it
  const auto g = b.build();
  CHECK_FALSE(sightLine(g, {0.5, 0, 0.5}, {6.5, 0, 0.5}, {}, {}));
  SightSettings low;
  low.eye_height = 0.5;
  CHECK(sightLine(g, {0.5, 0, 0.5}, {6.5, 0, 0.5}, {}, low));
  CHECK_FALSE(SightSettings{-1}.validate());
  CHECK_FALSE(SightSettings{0}.validate());  // eyes in the floor's surface touch every pit's rim
  CHECK(SightSettings{1e-3}.validate());
}

TEST_CASE("componentAt and clearanceAt", "[nav][query]") {
  LayeredBuilder b(5, 1);
  b.fromAscii({"..#.."});
  const auto g = b.build();
  const SnapSettings snap{0, 0.5, 1};
  CHECK(componentAt(g, {0.5, 0, 0.5}, snap) == 0u);
  CHECK(componentAt(g, {4.5, 0, 0.5}, snap) == 1u);
  CHECK_FALSE(componentAt(g, {2.5, 0, 0.5}, snap));
  const auto c = clearanceAt(g, {0.5, 0, 0.5}, snap);
  REQUIRE(c);
  CHECK(c->clearance == Approx(0.5));
  CHECK(std::isinf(c->headroom));
}

TEST_CASE("distance fields: baked lookup and the on-demand flood agree", "[nav][query][field]") {
  LayeredBuilder b(6, 4);
  b.fromAscii({"......", ".##...", "......", "......"});
  auto g = b.build();
  const AgentSettings agent;
  const LayeredSearchGraph view(g, agent);
  const NodeId origin = g.columnBegin(0, 0);
  RouteField field;
  field.name = "spawn";
  field.origin_node = origin;
  field.max_distance = 100;
  field.distance = floodDistanceField(view, origin, 100);
  g.fields.push_back(field);
  CHECK(g.fields[0].distance[origin] == 0);
  // Five steps east along row 0.
  auto value = fieldValueAt(g, "spawn", {5.5, 0, 0.5}, {});
  REQUIRE(value);
  CHECK(*value == Approx(5));
  // Around the wall to (1, 2): diagonal to (1,0)->... the flood's answer equals the A* cost.
  SearchState state;
  LayeredSearchSettings s;
  const auto r = findLayeredPath(view, {0.5, 0, 0.5}, {1.5, 0, 2.5}, s, state);
  REQUIRE(r.ok());
  value = fieldValueAt(g, "spawn", {1.5, 0, 2.5}, {});
  REQUIRE(value);
  CHECK(*value == Approx(r.cost));
  CHECK_FALSE(fieldValueAt(g, "nope", {0.5, 0, 0.5}, {}));
  // A bounded flood leaves far nodes unreached.
  const auto near = floodDistanceField(view, origin, 2.0);
  CHECK(std::isinf(near[g.columnBegin(5, 3)]));
  CHECK(near[g.columnBegin(2, 0)] == Approx(2));
}

TEST_CASE("fieldDistanceBetween is the whole flood's value at the target, exactly", "[nav][query][field][oracle]") {
  // Random multi-floor worlds with links (one-way and cheap ones too): the flood stopped at the
  // target gives the very float the whole flood gives there, within and beyond the limit.
  // The last trials are 90 x 90 columns: a flood past 4,096 nodes, where the one-value flood's
  // map of costs turns into an array midway.
  std::mt19937 rng(20261205);
  for (int trial = 0; trial < 14; ++trial) {
    LayeredBuilder b(trial < 12 ? 4 + int(rng() % 12) : 90, trial < 12 ? 4 + int(rng() % 12) : 90);
    b.addRandomFloors(rng);
    auto g = b.build();
    const auto pick = [&] { return NodeId(rng() % g.nodeCount()); };
    for (int l = 0; l < 4; ++l) LayeredBuilder::addLink(g, pick(), pick(), float(0.5 + rng() % 6));
    LayeredBuilder::computeComponents(g);
    const AgentSettings agent;
    const LayeredSearchGraph view(g, agent);
    for (const double limit : {std::numeric_limits<double>::infinity(), 4.0, 0.0}) {
      const NodeId origin = pick();
      const auto whole = floodDistanceField(view, origin, limit);
      for (int q = 0; q < 30; ++q) {
        const NodeId target = q == 0 ? origin : pick();
        CAPTURE(trial, limit, origin, target);
        const double one = fieldDistanceBetween(view, origin, target, limit);
        CHECK((std::isinf(one) ? std::isinf(whole[target]) : one == double(whole[target])));
      }
    }
    CHECK(std::isinf(fieldDistanceBetween(view, 0, NodeId(g.nodeCount()), 10.0)));
  }
}

TEST_CASE("nearestWalkable equals a brute force over every column, on and off the grid", "[nav][query][oracle]") {
  std::mt19937 rng(20261130);
  for (int trial = 0; trial < 20; ++trial) {
    LayeredBuilder b(3 + int(rng() % 12), 3 + int(rng() % 12));
    b.addRandomFloors(rng);
    for (int k = 0; k < 6; ++k) b.addFloor(int(rng() % b.width), int(rng() % b.depth), float(1 + rng() % 6));
    const auto g = b.build();
    std::uniform_real_distribution<double> x(-6, b.width + 6), z(-6, b.depth + 6), y(-1, 7), r(0, 5), near(-0.12, 0.12);
    for (int q = 0; q < 400; ++q) {
      sim::Vec3 p{x(rng), y(rng), z(rng)};
      if (q % 3 == 0) p.y = std::round(p.y) + near(rng);  // about a floor's height (they are whole metres)
      SnapSettings snap;
      snap.max_horizontal = q % 10 == 0 ? 0.0 : r(rng);
      if (q % 10 == 5) {
        // Far off the grid, where many columns are within a micrometre of the nearest: the tie
        // goes to the lowest node among those within a micrometre of the nearest (choosing
        // against a running best drifted, a micrometre a column: 1e6 m off, 3.3 m along the
        // edge; an audit).
        p.x = b.width + std::pow(10.0, 5 + int(rng() % 3)) * (1 + r(rng));
        snap.max_horizontal = 1e9;
      }
      // Brute force: every column; its floor below the point; the distance from the point to the
      // column centre within the radius, or the column holding the point; the horizontally
      // nearest, except that a floor within 0.1 m of the point's height in the point's own
      // column or the eight around it (a point on the grid) comes first.
      const bool inside = p.x >= 0 && p.x <= b.width && p.z >= 0 && p.z <= b.depth;
      const int own_x = std::min(b.width - 1, int(std::floor(p.x))), own_z = std::min(b.depth - 1, int(std::floor(p.z)));
      // Of candidates (node, distance): the lowest node within a micrometre of the nearest.
      auto pick = [](const std::vector<std::pair<NodeId, double>>& candidates, NodeId& node, double& distance) {
        double nearest = std::numeric_limits<double>::infinity();
        for (const auto& c : candidates) nearest = std::min(nearest, c.second);
        node = kNoNode;
        for (const auto& c : candidates)
          if (c.second <= nearest + 1e-6 && (node == kNoNode || c.first < node)) node = c.first, distance = c.second;
      };
      std::vector<std::pair<NodeId, double>> candidates;
      for (int cz = 0; cz < b.depth; ++cz)
        for (int cx = 0; cx < b.width; ++cx) {
          const NodeId n = floorBelowAt(g, cx, cz, p, snap.above, snap.below);
          if (n == kNoNode) continue;
          const double d = std::hypot(cx + 0.5 - p.x, cz + 0.5 - p.z);
          if (d > snap.max_horizontal + 1e-6 && !(inside && cx == own_x && cz == own_z)) continue;
          REQUIRE(g.normal[n].y == 1.0f);  // level floors: the surface under the point is the height
          candidates.push_back({n, d});
        }
      NodeId best = kNoNode;
      double best_d = 0;
      pick(candidates, best, best_d);
      // Then, when that floor lies more than 0.1 m below the point, a floor from 0.1 m below the
      // point to 0.03 m above it in a column next to the point's own whose square is nearer the
      // point than the floor found is to it vertically.
      if (best != kNoNode && inside && p.y - g.height[best] > 0.1) {
        const double gap = p.y - g.height[best];
        std::vector<std::pair<NodeId, double>> level_candidates;
        for (int cz = own_z - 1; cz <= own_z + 1; ++cz)
          for (int cx = own_x - 1; cx <= own_x + 1; ++cx) {
            if ((cx == own_x && cz == own_z) || cx < 0 || cz < 0 || cx >= b.width || cz >= b.depth) continue;
            const NodeId n = floorBelowAt(g, cx, cz, p, snap.above, snap.below);
            if (n == kNoNode || p.y - g.height[n] > 0.1 || g.height[n] - p.y > 0.03) continue;
            const double d = std::hypot(cx + 0.5 - p.x, cz + 0.5 - p.z);
            const double edge = std::hypot(std::max(0.0, std::fabs(cx + 0.5 - p.x) - 0.5), std::max(0.0, std::fabs(cz + 0.5 - p.z) - 0.5));
            if (d > snap.max_horizontal + 1e-6 || !(edge < gap)) continue;
            level_candidates.push_back({n, d});
          }
        NodeId level = kNoNode;
        double level_d = 0;
        pick(level_candidates, level, level_d);
        if (level != kNoNode) best = level, best_d = level_d;
      }
      const auto hit = nearestWalkable(g, p, snap);
      INFO("trial " << trial << " point " << p.x << "," << p.y << "," << p.z << " radius " << snap.max_horizontal);
      REQUIRE(hit.has_value() == (best != kNoNode));
      if (hit) {
        CHECK(hit->node == best);
        CHECK(hit->horizontal_distance == best_d);
      }
    }
  }
}
