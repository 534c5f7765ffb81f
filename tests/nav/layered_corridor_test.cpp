// The corridor and interval methods (corridor.h): the rectangle decomposition's invariants,
// string pulling, the query's results and failure reasons on small hand-built graphs, a property
// test on random graphs, the samples and the Recast meshes (every route's walking legs pass the
// line test, its actions are edges of the graph, it is found exactly when A* finds one, and its
// length respects the any-angle lower bound of the A* optimum), and an oracle test of the
// interval search against a visibility graph of the same plane.

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <random>

#include "bake_fixtures.h"
#include "column_line.h"
#include "corridor_search.h"
#include "layered_fixtures.h"
#include "strata/formats/import.h"
#include "strata/formats/profile.h"
#include "strata/nav/corridor.h"
#include "strata/nav/layered_search.h"
#include "test_support.h"

using namespace strata;
using namespace strata::nav;
using strata::test::LayeredBuilder;

namespace {

const AgentSettings& defaultAgent() {
  static const AgentSettings agent;
  return agent;
}

LayeredSearchSettings corridorSettings() {
  LayeredSearchSettings s;
  s.method = SearchMethod::Corridor;
  return s;
}

PathResult run(const LayeredGraph& g, sim::Vec3 from, sim::Vec3 to, LayeredSearchSettings s = corridorSettings()) {
  SearchState state;
  return findLayeredPath(g, defaultAgent(), from, to, s, state);
}

// Every rectangle: one floor (twin cluster) per column, one area, every member's walk edge to an
// 8-adjacent column inside lands on that column's floor, and back; every node in exactly one
// rectangle.
void checkDecomposition(const LayeredSearchGraph& view, const CorridorIndex& index) {
  const LayeredGraph& g = view.graph();
  std::vector<int> seen(g.nodeCount(), 0);
  for (uint32_t r = 0; r < index.rectCount(); ++r) {
    const CorridorRect& rect = index.rects()[r];
    for (int32_t z = rect.z0; z <= rect.z1; ++z)
      for (int32_t x = rect.x0; x <= rect.x1; ++x) {
        const NodeId floor = index.nodeAt(r, x, z);
        REQUIRE(floor != kNoNode);
        CHECK(index.clusterOf(floor) == floor);
        for (NodeId n = g.columnBegin(x, z); n < g.columnEnd(x, z); ++n) {
          if (index.rectOf(n) != r) continue;
          ++seen[n];
          CHECK(index.clusterOf(n) == floor);
          CHECK(g.area[n] == rect.area);
          CHECK(g.height[n] - g.height[floor] < view.agent().step_height);
          for (int d = 0; d < kDirectionCount; ++d) {
            const int32_t nx = x + kDirectionDx[d], nz = z + kDirectionDz[d];
            if (nx < rect.x0 || nx > rect.x1 || nz < rect.z0 || nz > rect.z1) continue;
            CHECK(g.edgeKind(n, d) == EdgeKind::Walk);
            REQUIRE(g.neighborOf(n, d) != kNoNode);
            CHECK(index.clusterOf(g.neighborOf(n, d)) == index.nodeAt(r, nx, nz));
          }
        }
      }
  }
  for (NodeId n = 0; n < g.nodeCount(); ++n) CHECK(seen[n] == 1);
  // The line-walk tables: a walk target exactly where the graph has a walk edge into the
  // adjacent column; heights and areas copied.
  for (NodeId n = 0; n < g.nodeCount(); ++n) {
    const auto c = view.column(n);
    CHECK(index.floors()[n].height == g.height[n]);
    CHECK(index.floors()[n].area == g.area[n]);
    for (int d = 0; d < kDirectionCount; ++d) {
      const NodeId to = g.neighborOf(n, d);
      const bool step = g.edgeKind(n, d) == EdgeKind::Walk && to != kNoNode && view.column(to)[0] == c[0] + kDirectionDx[d] &&
                        view.column(to)[1] == c[1] + kDirectionDz[d];
      CHECK(index.walkTarget(n, d) == (step ? to : kNoNode));
      const uint8_t code = index.walkSteps()[std::size_t(n) * kDirectionCount + std::size_t(d)];
      CHECK((code == CorridorIndex::kNoWalkStep) == !step);
    }
  }
}

// True when the graph has an edge (or link) a -> b of this action.
bool hasEdge(const LayeredGraph& g, NodeId a, NodeId b, MoveAction action) {
  for (int d = 0; d < kDirectionCount; ++d)
    if (g.neighborOf(a, d) == b && moveActionOf(g.edgeKind(a, d)) == action) return true;
  for (uint32_t l = g.link_offsets[a]; l < g.link_offsets[a + 1]; ++l)  // custom links and second jumps
    if (g.links[l].to_node == b && moveActionOf(g.links[l].kind) == action) return true;
  return false;
}

// The answer of `method` (corridorSettings() otherwise) between two points.
PathResult answerWith(const LayeredSearchGraph& view, const sim::Vec3& from, const sim::Vec3& to, SearchMethod method,
                      SearchState& state) {
  LayeredSearchSettings settings = corridorSettings();
  settings.method = method;
  return findLayeredPath(view, from, to, settings, state);
}

struct PropertyTotals {
  int pairs = 0, found = 0;
  double corridor_length = 0, theta_length = 0;
  double corridor_cost = 0, astar_cost = 0;  // routes the corridor method answered where areas differ in cost
};

// The corridor answer for the pair against A* (found-ness, lower bound) and the graph (walkable
// legs, real special edges), plus the totals for the length ratio against Theta*.
// `slack`: how much cheaper than the bound the corridor may be because it charges a column's
// area cost for the part of a line inside it, where an edge charges the destination's.
void checkPair(const LayeredSearchGraph& view, const sim::Vec3& a, const sim::Vec3& b, SearchState& state,
               PropertyTotals& totals, bool with_theta, double slack = 0, SearchMethod method = SearchMethod::Corridor) {
  LayeredSearchSettings s = corridorSettings();
  s.method = method;
  s.snap.max_horizontal = 0.5;
  LayeredSearchSettings astar = s;
  astar.method = SearchMethod::AStar;
  const PathResult exact = findLayeredPath(view, a, b, astar, state);
  CorridorStats stats;
  const NodeId start = snapToNode(view.graph(), a, s.snap), goal = snapToNode(view.graph(), b, s.snap);
  REQUIRE(start != kNoNode);
  REQUIRE(goal != kNoNode);
  const PathResult r = view.provablyUnreachable(start, goal)
                           ? findLayeredPath(view, a, b, s, state)
                           : findCorridorPath(view.corridor(), start, goal, a, b, s, state, &stats);
  ++totals.pairs;
  // Where a route's cost is not its length (areas of different costs, links cheaper than
  // walking) Theta* answers for the interval method, and for the corridor method where links
  // are cheaper than walking; elsewhere the method answers itself (its walking legs always pass
  // the line test).
  const bool uniform = view.corridor().costIsLength();
  if (!view.provablyUnreachable(start, goal)) {
    CHECK(stats.fell_back == (!uniform && (method == SearchMethod::Interval || view.corridor().cheapLinks())));
  }
  CHECK((r.answered_by == SearchMethod::Theta) == stats.fell_back);
  CHECK(r.ok() == exact.ok());
  if (!r.ok() || !exact.ok()) return;
  ++totals.found;
  const LayeredGraph& g = view.graph();
  REQUIRE(r.nodes.front() == start);
  REQUIRE(view.corridor().clusterOf(r.nodes.back()) == view.corridor().clusterOf(goal));  // the goal or its twin
  // Straight walking runs are collapsed: no walking waypoint continues straight on (horizontally)
  // within one area (dungeon kept such points where a longer line test had failed).
  for (std::size_t i = 1; i + 1 < r.waypoints.size(); ++i) {
    const Waypoint &a = r.waypoints[i - 1], &b = r.waypoints[i], &c = r.waypoints[i + 1];
    if (b.action != MoveAction::Walk || c.action != MoveAction::Walk || a.area != b.area || b.area != c.area) continue;
    const double dx1 = b.position.x - a.position.x, dz1 = b.position.z - a.position.z;
    const double dx2 = c.position.x - b.position.x, dz2 = c.position.z - b.position.z;
    const bool straight = dx1 * dx2 + dz1 * dz2 > 0 &&
                          std::fabs(dx1 * dz2 - dz1 * dx2) <= 1e-9 * std::hypot(dx1, dz1) * std::hypot(dx2, dz2);
    INFO("waypoint " << i);
    CHECK_FALSE(straight);
  }
  // No zero-length legs: no route node and no waypoint repeats the one before it (the interval
  // method's corner pass moved corners onto their neighbour's column, 360 of 1,689 dungeon
  // routes: an audit).
  for (std::size_t i = 1; i < r.nodes.size(); ++i) {
    INFO("route node " << i);
    CHECK(r.nodes[i] != r.nodes[i - 1]);
  }
  if (r.nodes.size() > 1)
    for (std::size_t i = 1; i < r.waypoints.size(); ++i) {
      const sim::Vec3 &a = r.waypoints[i - 1].position, &b = r.waypoints[i].position;
      INFO("waypoint " << i << " at " << b.x << ", " << b.y << ", " << b.z);
      CHECK_FALSE((a.x == b.x && a.y == b.y && a.z == b.z));
    }
  // Walking legs pass the line test; the others are edges of the graph.
  std::size_t w = 1;
  for (std::size_t i = 1; i < r.nodes.size(); ++i) {
    const NodeId p = r.nodes[i - 1], n = r.nodes[i];
    bool special = false;
    for (int d = 0; d < kDirectionCount && !special; ++d)
      special = g.neighborOf(p, d) == n && g.edgeKind(p, d) != EdgeKind::Walk;
    for (uint32_t l = g.link_offsets[p]; l < g.link_offsets[p + 1] && !special; ++l) special = g.links[l].to_node == n;
    if (!special) CHECK(view.walkLine(p, n, false));
  }
  for (; w < r.waypoints.size(); ++w) {
    const MoveAction action = r.waypoints[w].action;
    if (action == MoveAction::Walk) continue;
    // A special waypoint lands on a node reached by such an edge from the previous one.
    const NodeId to = snapToNode(g, r.waypoints[w].position, {0.01, 0.05, 0.05});
    const NodeId fromNode = snapToNode(g, r.waypoints[w - 1].position, {0.01, 0.05, 0.05});
    CHECK(hasEdge(g, fromNode, to, action));
  }
  // Any-angle routes cost at most 8 % less than the 8-connected optimum (octile / euclid); A*
  // minimises cost (areas, half the height change), not length, so the bound is on the cost.
  const double octile_ratio = std::sqrt(4 - 2 * std::sqrt(2.0));  // 1.0824
  // (A route that ends on a twin of the goal is measured to another node: no bound then.)
  if (r.nodes.back() == goal) CHECK(r.cost >= exact.cost / octile_ratio - slack - 1e-6);
  if (start != goal) CHECK(r.cost > 0);
  if (!uniform && !stats.fell_back && r.nodes.back() == goal) {
    totals.corridor_cost += r.cost;
    totals.astar_cost += exact.cost;
  }
  if (with_theta) {
    LayeredSearchSettings theta = s;
    theta.method = SearchMethod::Theta;
    totals.theta_length += findLayeredPath(view, a, b, theta, state).length;
    totals.corridor_length += r.length;
  }
}

}  // namespace

TEST_CASE("column line: quadrantMaskAt is the walk's quadrantMask at each column it passes, 0 at every other (oracle)", "[nav][layered][corridor][oracle]") {
  // The corridor method answers most failing shortcut tries from one column of the line (no walk
  // there: corridor_path.cpp, blockedNear), so the column test must say exactly what the walk
  // would: which columns it passes (a step through a column corner enters neither side column)
  // and the quadrants it crosses in each. Every segment of up to 12 columns either way, every
  // column of its box and a ring around it.
  int passed_columns = 0, corner_skips = 0;
  for (int64_t dx = -12; dx <= 12; ++dx)
    for (int64_t dz = -12; dz <= 12; ++dz) {
      std::map<std::pair<int64_t, int64_t>, unsigned> walked;
      strata::nav::ColumnLine line(dx, dz);
      int64_t x = 0, z = 0;
      walked[{0, 0}] = line.quadrantMask();
      while (!line.done()) {
        line.step();
        x += line.stepX(), z += line.stepZ();
        walked[{x, z}] = line.quadrantMask();
        corner_skips += line.stepX() != 0 && line.stepZ() != 0;
      }
      REQUIRE((x == dx && z == dz));
      for (int64_t qx = std::min<int64_t>(0, dx) - 2; qx <= std::max<int64_t>(0, dx) + 2; ++qx)
        for (int64_t qz = std::min<int64_t>(0, dz) - 2; qz <= std::max<int64_t>(0, dz) + 2; ++qz) {
          const auto it = walked.find({qx, qz});
          const unsigned expected = it == walked.end() || dx == 0 || dz == 0 ? 0u : it->second;
          INFO("segment " << dx << "," << dz << " column " << qx << "," << qz);
          REQUIRE(strata::nav::ColumnLine::quadrantMaskAt(dx, dz, qx, qz) == expected);
          passed_columns += it != walked.end() && expected != 0;
        }
    }
  CHECK(passed_columns > 1000);
  CHECK(corner_skips > 100);  // diagonal steps through column corners were among the cases
}

TEST_CASE("corridor: an open floor is one rectangle and a route inside it is one straight leg", "[nav][layered][corridor]") {
  LayeredBuilder b(10, 6);
  b.fromAscii(std::vector<std::string>(6, ".........."));
  const auto g = b.build();
  const LayeredSearchGraph view(g, defaultAgent());
  const CorridorIndex& index = view.corridor();
  CHECK(index.rectCount() == 1);
  checkDecomposition(view, index);
  // A side cap splits it; the pieces still satisfy the invariants.
  CorridorSettings capped;
  capped.max_side_cells = 4;
  REQUIRE(capped.validate());
  const CorridorIndex small(view, capped);
  checkDecomposition(view, small);
  CHECK(small.rectCount() == 6);  // 10 x 6 columns in sides of at most 4: 3 x 2
  for (const CorridorRect& rect : small.rects()) CHECK((rect.x1 - rect.x0 < 4 && rect.z1 - rect.z0 < 4));
  capped.max_side_cells = -1;
  CHECK_FALSE(capped.validate());
  const auto r = run(g, {0.7, 0, 0.6}, {9.4, 0, 5.2});
  REQUIRE(r.ok());
  CHECK(r.waypoints.size() == 2);
  CHECK(r.expansions == 0);
  CHECK(r.length == Approx(std::hypot(8.7, 4.6)));
  // Endpoints beyond the outer columns' centres (towards the floor's edge, where the line test's
  // model knows no free space) keep their columns' centres: the route runs between them.
  const auto edge = run(g, {0.3, 0, 0.4}, {9.6, 0, 5.5});
  REQUIRE(edge.ok());
  REQUIRE(edge.waypoints.size() == 4);
  CHECK(edge.waypoints[1].position.x == 0.5);
  CHECK(edge.waypoints[2].position.x == 9.5);
}

TEST_CASE("corridor: columns of more floors than a byte can index still walk", "[nav][layered][corridor]") {
  // 300 storeys 2 m apart: a walk step to a floor at index 254 or above is stored as "far" and
  // read from the graph's neighbour array. A hole in the top row splits each storey into
  // several rectangles, so the straight line below it is walked step by step.
  LayeredBuilder b(8, 3);
  for (int z = 0; z < 3; ++z)
    for (int x = 0; x < 8; ++x)
      if (z != 2 || x != 4)
        for (int storey = 0; storey < 300; ++storey) b.addFloor(x, z, 2.0f * storey);
  const auto g = b.build();
  const LayeredSearchGraph view(g, defaultAgent());
  const CorridorIndex& index = view.corridor();
  checkDecomposition(view, index);  // every walk step decodes to the graph's walk edge
  CHECK(index.rectCount() > 300);
  std::size_t far = 0;
  for (std::size_t slot = 0; slot < g.nodeCount() * kDirectionCount; ++slot)
    far += index.walkSteps()[slot] == CorridorIndex::kFarWalkStep ? 1 : 0;
  CHECK(far > 0);
  for (const int storey : {3, 253, 254, 280, 299}) {
    INFO("storey " << storey);
    const float h = 2.0f * storey;
    const auto r = run(g, {0.5, h + 0.1, 0.5}, {7.5, h + 0.1, 1.5});
    REQUIRE(r.ok());
    for (NodeId n : r.nodes) CHECK(g.height[n] == h);
    CHECK(r.length == Approx(std::hypot(7.0, 1.0)));
    CHECK(r.expansions == 0);  // the straight line test walked it (no search)
  }
}

TEST_CASE("corridor: the decomposition respects walls, areas, stacked floors and cliffs", "[nav][layered][corridor]") {
  // A wall with a door, a dear area, a bridge over the road and a 1 m cliff (no walk edges).
  LayeredBuilder b(12, 8);
  b.area_costs = {1.0f, 4.0f};
  b.fromAscii({"....#.......", "....#..aa...", "....#..aa...", "............", "....#.......", "....#...1111",
               "....#...1111", "....#...1111"});
  for (int x = 2; x <= 9; ++x) b.addFloor(x, 3, 3.0f);
  const auto g = b.build();
  const LayeredSearchGraph view(g, defaultAgent());
  const CorridorIndex& index = view.corridor();
  checkDecomposition(view, index);
  CHECK(index.rectCount() > 4);
  CHECK(index.portalCount() > 0);
  CHECK(index.portalCount() % 2 == 0);  // each portal is stored from both sides
}

TEST_CASE("corridor: string pulling through an L-shaped corridor turns at the inner corner", "[nav][layered][corridor]") {
  // Portals of a corridor heading east then north around the inner corner (4, 2).
  std::vector<FunnelPortal> portals{
      {{0, 0, 1}, {0, 0, 1}},
      {{2, 2, 2}, {2, 0, 3}},
      {{4, 2, 4}, {4, 0, 5}},   // east edge of the lower arm, up to the corner
      {{3, 3, 6}, {7, 3, 7}},   // walking north now: left = west end
      {{5, 6, 8}, {7, 6, 9}},
      {{6, 8, 10}, {6, 8, 10}},
  };
  std::vector<FunnelPoint> corners;
  pullString(portals, corners);
  REQUIRE(corners.size() == 3);
  CHECK(corners[0].node == 1);
  CHECK((corners[1].x == 4 && corners[1].z == 2));
  CHECK(corners[1].node == 4);
  CHECK(corners[2].node == 10);
  // A straight corridor needs no corner.
  corners.clear();
  pullString(std::vector<FunnelPortal>{{{0, 1, 1}, {0, 1, 1}}, {{3, 3, 2}, {3, 0, 3}}, {{6, 2, 4}, {6, 2, 4}}}, corners);
  CHECK(corners.size() == 2);
}

TEST_CASE("corridor: around a wall the route is walkable, taut and no longer than A*'s", "[nav][layered][corridor]") {
  LayeredBuilder b(20, 12);
  std::vector<std::string> rows(12, std::string(20, '.'));
  for (int z = 0; z < 8; ++z) rows[z][10] = '#';
  b.fromAscii(rows);
  const auto g = b.build();
  const LayeredSearchGraph view(g, defaultAgent());
  SearchState state;
  LayeredSearchSettings astar;
  const auto a = findLayeredPath(view, {0.5, 0, 0.5}, {19.5, 0, 1.5}, astar, state);
  const auto c = findLayeredPath(view, {0.5, 0, 0.5}, {19.5, 0, 1.5}, corridorSettings(), state);
  REQUIRE(a.ok());
  REQUIRE(c.ok());
  CHECK(c.length <= a.length + 1e-9);
  CHECK(c.waypoints.size() <= 4);  // start, the corner at the wall's end, goal (+ nothing else)
  for (std::size_t i = 1; i < c.nodes.size(); ++i) CHECK(view.walkLine(c.nodes[i - 1], c.nodes[i], false));
  CHECK(c.expansions > 0);
}

TEST_CASE("corridor: a clear straight line in the cheapest area is answered without searching", "[nav][layered][corridor]") {
  // A wall splits the floor into several rectangles; the line from (0, 10) to (19, 11) passes
  // above it. With a dear patch on that line the search runs (the straight line may not be the
  // cheapest route), and its route is still walkable.
  LayeredBuilder b(20, 12);
  b.area_costs = {1.0f, 3.0f};
  std::vector<std::string> rows(12, std::string(20, '.'));
  for (int z = 0; z < 8; ++z) rows[z][10] = '#';
  b.fromAscii(rows);
  const auto g = b.build();
  const LayeredSearchGraph view(g, defaultAgent());
  const sim::Vec3 from{0.5, 0, 10.5}, to{19.5, 0, 11.5};
  const NodeId start = snapToNode(g, from, {}), goal = snapToNode(g, to, {});
  REQUIRE(view.corridor().rectOf(start) != view.corridor().rectOf(goal));
  SearchState state;
  const auto clear = findLayeredPath(view, from, to, corridorSettings(), state);
  REQUIRE(clear.ok());
  CHECK(clear.expansions == 0);
  CHECK(clear.waypoints.size() == 2);
  CHECK(clear.length == Approx(std::hypot(19.0, 1.0)));
  CHECK(clear.cost == Approx(std::hypot(19.0, 1.0)));

  for (int z = 9; z < 12; ++z) rows[z][14] = 'a';
  LayeredBuilder dear(20, 12);
  dear.area_costs = {1.0f, 3.0f};
  dear.fromAscii(rows);
  const auto g2 = dear.build();
  const LayeredSearchGraph view2(g2, defaultAgent());
  const auto searched = findLayeredPath(view2, from, to, corridorSettings(), state);
  REQUIRE(searched.ok());
  CHECK(searched.expansions > 0);
  for (std::size_t i = 1; i < searched.nodes.size(); ++i) CHECK(view2.walkLine(searched.nodes[i - 1], searched.nodes[i], false));
}

namespace {

// A world drawn in ASCII (LayeredBuilder::fromAscii, as wide as the rows), area 'a' mud of
// cost `mud` (the rest 1).
LayeredGraph mudWorld(const std::vector<std::string>& rows, float mud = 10.0f) {
  LayeredBuilder b(int(rows.front().size()), int(rows.size()));
  b.area_costs = {1.0f, mud};
  b.fromAscii(rows);
  return b.build();
}

}  // namespace

TEST_CASE("interval where areas differ in cost: the cheaper of the corridor method's route and Theta*'s", "[nav][layered][corridor]") {
  // The interval method's plane has no costs, so Theta* answers there; the corridor method's
  // route was not computed, though the documents said it always is and is kept when cheaper (an
  // audit: 9 of 498 random pairs on the sample tower came out up to 0.1 % dearer than
  // `--method corridor`). Mud patches of cost 1.5 and 3 over open floor, random pairs: the
  // answer is exactly the cheaper of the two, expansions both searches' together.
  std::vector<std::string> rows(24, std::string(32, '.'));
  for (int z = 3; z < 9; ++z)
    for (int x = 5; x < 12; ++x) rows[z][x] = 'a';
  for (int z = 14; z < 20; ++z)
    for (int x = 18; x < 27; ++x) rows[z][x] = 'a';
  for (int z = 0; z < 24; ++z) rows[z][15] = z == 11 || z == 12 ? '.' : '#';
  for (const float mud : {1.5f, 3.0f}) {
    const auto g = mudWorld(rows, mud);
    const LayeredSearchGraph view(g, defaultAgent());
    REQUIRE_FALSE(view.corridor().costIsLength());
    SearchState state;
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> x(0.2, 31.8), z(0.2, 23.8);
    int corridor_kept = 0;
    for (int pair = 0; pair < 300; ++pair) {
      const sim::Vec3 from{x(rng), 0, z(rng)}, to{x(rng), 0, z(rng)};
      const PathResult corridor = answerWith(view, from, to, SearchMethod::Corridor, state);
      const PathResult theta = answerWith(view, from, to, SearchMethod::Theta, state);
      const PathResult interval = answerWith(view, from, to, SearchMethod::Interval, state);
      INFO("mud " << mud << ", pair " << pair);
      REQUIRE(interval.ok() == corridor.ok());
      if (!interval.ok()) continue;
      REQUIRE(theta.ok());
      CHECK(interval.cost == std::min(corridor.cost, theta.cost));
      CHECK(interval.answered_by == (corridor.cost < theta.cost ? SearchMethod::Corridor : SearchMethod::Theta));
      if (interval.cost == 0) continue;  // the same node
      CHECK(interval.expansions == corridor.expansions + theta.expansions);
      corridor_kept += corridor.cost < theta.cost;
    }
    CHECK(corridor_kept > 0);  // the case happens
  }
}

TEST_CASE("corridor and interval: where areas differ in cost, no route across a dear area the cheap one goes round", "[nav][layered][corridor]") {
  // Floor x 0..19, z 0..9; mud at x 8..11, z 0..7; the way round is the strip z 8..9 above it.
  // Once, the rectangle search went round, then the greedy shortcuts pulled the route straight
  // through the mud because the line was walkable and shorter: cost 4012 against A*'s 21 (an
  // audit's mesh). The corridor method now charges each rectangle its area's cost, pulls the
  // string separately on each side of a change of cost and takes a shortcut only where it costs
  // no more; the interval method, whose plane has no costs, answers with Theta*.
  for (const float mud : {1000.0f, 10.0f, 2.5f, 1.2f}) {
    std::vector<std::string> rows(10, std::string(20, '.'));
    for (int z = 0; z < 8; ++z)
      for (int x = 8; x < 12; ++x) rows[z][x] = 'a';
    const auto g = mudWorld(rows, mud);
    const LayeredSearchGraph view(g, defaultAgent());
    SearchState state;
    const sim::Vec3 from{1.5, 0, 1.5}, to{18.5, 0, 1.5};
    const PathResult exact = answerWith(view, from, to, SearchMethod::AStar, state);
    REQUIRE(exact.ok());
    CHECK_FALSE(view.corridor().costIsLength());
    for (const SearchMethod method : {SearchMethod::Corridor, SearchMethod::Interval}) {
      INFO(methodName(method) << ", mud costs " << mud);
      const PathResult r = answerWith(view, from, to, method, state);
      REQUIRE(r.ok());
      // Straight through would cost 17 - 4 + 4 * mud; round the mud about 22.8.
      CHECK(r.cost <= 1.05 * exact.cost);
      // (The interval method: Theta*, or the corridor method's route when cheaper.)
      CHECK((r.answered_by == SearchMethod::Corridor || (method == SearchMethod::Interval && r.answered_by == SearchMethod::Theta)));
      // Every walking leg passes the line test, and the cost is the legs' costs.
      double sum = 0;
      for (std::size_t i = 1; i < r.nodes.size(); ++i) {
        double leg = 0;
        std::vector<LayeredSearchGraph::AreaCrossing> crossings;
        REQUIRE(view.walkLineCost(r.nodes[i - 1], r.nodes[i], leg, crossings));
        sum += leg;
      }
      CHECK(r.cost == Approx(sum));
      bool crossed = false;
      for (const Waypoint& w : r.waypoints) crossed = crossed || w.area == 1;
      if (mud >= 10) CHECK_FALSE(crossed);  // (at 2.5 through costs 23, about the same as round)
      if (mud == 1.2f) CHECK(crossed);  // through the mud is cheaper: 13 + 4.8 against about 22.8
    }
  }
  // Start and goal in one dear rectangle (a mud strip one column wide beside open floor): the
  // straight line along it costs 3 x 16 = 48, the way beside it about 18. The rectangle search
  // runs from the start's rectangle with the straight line as the route to beat and finds the
  // way out and back in.
  std::vector<std::string> rows(4, std::string(20, '.'));
  for (int x = 2; x < 19; ++x) rows[0][x] = 'a';
  const auto g = mudWorld(rows, 3.0f);
  const LayeredSearchGraph view(g, defaultAgent());
  SearchState state;
  const sim::Vec3 from{2.5, 0, 0.5}, to{18.5, 0, 0.5};
  const PathResult exact = answerWith(view, from, to, SearchMethod::AStar, state);
  REQUIRE(exact.ok());
  REQUIRE(view.corridor().rectOf(exact.nodes.front()) == view.corridor().rectOf(exact.nodes.back()));
  const PathResult r = answerWith(view, from, to, SearchMethod::Corridor, state);
  REQUIRE(r.ok());
  CHECK(r.cost < 1.05 * exact.cost);
  CHECK(r.answered_by == SearchMethod::Corridor);
  CHECK(r.waypoints.front().area == 1);
  CHECK(r.waypoints.back().area == 1);
  bool out = false;
  for (const Waypoint& w : r.waypoints) out = out || w.area == 0;
  CHECK(out);
  // Where the strip is the cheap way (the floor beside it dearer), the straight line stays.
  LayeredBuilder cheap(20, 4);
  cheap.area_costs = {3.0f, 1.0f};
  cheap.fromAscii(rows);
  const auto g2 = cheap.build();
  const LayeredSearchGraph view2(g2, defaultAgent());
  const PathResult straight = answerWith(view2, from, to, SearchMethod::Corridor, state);
  REQUIRE(straight.ok());
  CHECK(straight.waypoints.size() == 2);
  CHECK(straight.cost == Approx(16.0));
}

TEST_CASE("corridor: areas of different costs, the cases a review found", "[nav][layered][corridor]") {
  SearchState state;
  auto exactCost = [&](const LayeredSearchGraph& view, const sim::Vec3& a, const sim::Vec3& b) {
    const PathResult r = answerWith(view, a, b, SearchMethod::AStar, state);
    REQUIRE(r.ok());
    return r.cost;
  };
  {
    // A dear area (x >= 10, z >= 5, cost 10) beside a wall (z 5, x 0..9): the corridor entered it
    // on the straight line to the goal (the rest of the way taken at the cheapest rate) and
    // crossed it diagonally, 3x A*'s cost; the rest is now taken at the entered area's rate.
    std::vector<std::string> rows(20, std::string(20, '.'));
    for (int x = 0; x < 10; ++x) rows[5][std::size_t(x)] = '#';
    for (int z = 5; z < 20; ++z)
      for (int x = 10; x < 20; ++x) rows[std::size_t(z)][std::size_t(x)] = 'a';
    const auto g = mudWorld(rows);
    const LayeredSearchGraph view(g, defaultAgent());
    const sim::Vec3 from{9.5, 0, 19.5}, to{19.5, 0, 2.5};
    const PathResult r = answerWith(view, from, to, SearchMethod::Corridor, state);
    REQUIRE(r.ok());
    CHECK(r.answered_by == SearchMethod::Corridor);
    CHECK(r.cost <= 1.1 * exactCost(view, from, to));
  }
  {
    // Start and goal in a mud row (cost 10) whose cheap way round is a pocket joined to the
    // rest only through the mud: dead-end pruning cut it off (5.4x A*'s cost).
    std::vector<std::string> rows(14, std::string(20, '.'));
    rows[10] = "#########..#########";
    rows[11] = std::string(20, 'a');
    const auto g = mudWorld(rows);
    const LayeredSearchGraph view(g, defaultAgent());
    const sim::Vec3 from{1.5, 0, 11.5}, to{18.5, 0, 11.5};
    const PathResult r = answerWith(view, from, to, SearchMethod::Corridor, state);
    REQUIRE(r.ok());
    CHECK(r.cost <= 1.1 * exactCost(view, from, to));
    // With a budget of one rectangle the loop search gives up like the others (it answered the
    // straight line through the mud as found).
    LayeredSearchSettings tight = corridorSettings();
    tight.limits.max_expansions = 1;
    const PathResult cut = findLayeredPath(view, from, to, tight, state);
    CHECK(cut.failure == PathFailure::BudgetExhausted);
  }
  {
    // Every floor in "grass" (cost 2), area 0 (cost 1) on no floor, no links: the graph's own
    // rate counts the unused cheaper area, which made the corridor hand the request to Theta*.
    LayeredBuilder b(20, 20);
    b.area_costs = {1.0f, 2.0f};
    b.fromAscii(std::vector<std::string>(20, std::string(20, 'a')));
    const auto g = b.build();
    const LayeredSearchGraph view(g, defaultAgent());
    CHECK_FALSE(view.corridor().cheapLinks());
    CHECK(view.corridor().cheapestAreaCost() == 2.0);
    const sim::Vec3 from{2.5, 0, 2.5}, to{17.5, 0, 17.5};
    const PathResult r = answerWith(view, from, to, SearchMethod::Corridor, state);
    REQUIRE(r.ok());
    CHECK(r.answered_by == SearchMethod::Corridor);
    CHECK(r.cost == Approx(2 * 15 * std::sqrt(2.0)));
  }
  {
    // All floors in one area of cost 3 (area 0, cost 1, on no floor) walled into rooms: the same
    // routes as the same world at cost 1, three times the cost (the unused cheaper area sent such
    // worlds down the mixed-cost path, whose routes differed: a second review).
    std::vector<std::string> rows(24, std::string(24, 'a'));
    for (int z = 0; z < 20; ++z) rows[std::size_t(z)][8] = '#';
    for (int x = 4; x < 24; ++x) rows[14][std::size_t(x)] = '#';
    for (int z = 4; z < 24; ++z) rows[std::size_t(z)][16] = '#';
    LayeredBuilder dear(24, 24), plain(24, 24);
    dear.area_costs = {1.0f, 3.0f};
    plain.area_costs = {1.0f, 1.0f};
    dear.fromAscii(rows);
    plain.fromAscii(rows);
    const auto gd = dear.build(), gp = plain.build();
    const LayeredSearchGraph vd(gd, defaultAgent()), vp(gp, defaultAgent());
    CHECK(vd.corridor().costIsLength());
    std::mt19937 rng(5);
    std::uniform_int_distribution<uint32_t> pick(0, uint32_t(gd.nodeCount() - 1));
    for (int q = 0; q < 40; ++q) {
      const sim::Vec3 a = gd.nodePosition(pick(rng)), b = gd.nodePosition(pick(rng));
      const PathResult rd = answerWith(vd, a, b, SearchMethod::Corridor, state), rp = answerWith(vp, a, b, SearchMethod::Corridor, state);
      REQUIRE(rd.ok() == rp.ok());
      if (!rd.ok()) continue;
      CHECK(rd.nodes == rp.nodes);
      CHECK(rd.cost == Approx(3 * rp.cost));
    }
  }
  {
    // A link inside one dear rectangle (a mud row, cost 10), cheaper than walking its span there
    // but dearer per metre than the cheapest area: the rectangle graph leaves it out, so Theta*
    // answers (the corridor walked the mud: 180 against 20).
    std::vector<std::string> rows(4, std::string(20, '.'));
    rows[0] = std::string(20, 'a');
    rows[1] = std::string(20, '#');
    auto g = mudWorld(rows);
    LayeredBuilder::addLink(g, g.columnBegin(1, 0), g.columnBegin(19, 0), 20.0f);
    LayeredBuilder::computeComponents(g);
    const LayeredSearchGraph view(g, defaultAgent());
    CHECK(view.corridor().cheapLinks());
    const sim::Vec3 from{1.5, 0, 0.5}, to{19.5, 0, 0.5};
    const PathResult r = answerWith(view, from, to, SearchMethod::Corridor, state);
    REQUIRE(r.ok());
    CHECK(r.answered_by == SearchMethod::Theta);
    CHECK(r.cost <= 1.01 * exactCost(view, from, to));
  }
  {
    // Start and goal in one mud row (cost 10), random walls in the cheap rows beside it: the
    // loop search's way out and back in never costs more than the straight line through the mud
    // (a review found 181 against 180: the search's estimate of the crossings).
    std::mt19937 rng(41);
    std::uniform_int_distribution<int> column(0, 29), row(0, 10);
    int loops = 0;
    for (int trial = 0; trial < 30; ++trial) {
      std::vector<std::string> rows(11, std::string(30, '.'));
      rows[5] = std::string(30, 'a');
      for (int k = 0; k < 25; ++k) {
        const int z = row(rng);
        if (z != 5) rows[std::size_t(z)][std::size_t(column(rng))] = '#';
      }
      const auto g = mudWorld(rows);
      const LayeredSearchGraph view(g, defaultAgent());
      const sim::Vec3 from{column(rng) + 0.5, 0, 5.5}, to{column(rng) + 0.5, 0, 5.5};
      const PathResult r = answerWith(view, from, to, SearchMethod::Corridor, state);
      const PathResult line = answerWith(view, from, to, SearchMethod::Direct, state);
      REQUIRE(r.ok());
      REQUIRE(line.ok());
      CHECK(r.cost <= line.cost + 1e-9);
      CHECK(r.cost <= 1.25 * exactCost(view, from, to));
      loops += r.waypoints.size() > 2;
    }
    CHECK(loops > 10);  // most of them leave the mud
  }
  {
    // A loop search out of its budget with --closest: BudgetExhausted (its closest rectangle was
    // the start's, which holds the goal: a "closest" route ending on the goal).
    std::vector<std::string> rows(6, std::string(20, '.'));
    rows[2] = std::string(20, 'a');
    const auto g = mudWorld(rows);
    const LayeredSearchGraph view(g, defaultAgent());
    LayeredSearchSettings tight = corridorSettings();
    tight.limits.max_expansions = 1;
    tight.return_closest = true;
    const PathResult r = findLayeredPath(view, {1.5, 0, 2.5}, {18.5, 0, 2.5}, tight, state);
    CHECK(r.failure == PathFailure::BudgetExhausted);
  }
}

namespace {

// The corridor method's own answer between two points of a world with mud (cost 10): found
// where A* finds one, within 1.1x A*'s cost plus `extra` (the corridor charges a column's share of
// the mud for stepping into it and out, where A*'s edges charge the area they land on), and
// walkable by checkPair.
PathResult corridorNearAStar(const LayeredSearchGraph& view, const sim::Vec3& from, const sim::Vec3& to, double extra,
                             SearchState& state, PropertyTotals& totals) {
  const PathResult r = answerWith(view, from, to, SearchMethod::Corridor, state);
  const PathResult best = answerWith(view, from, to, SearchMethod::AStar, state);
  REQUIRE(r.ok());
  REQUIRE(best.ok());
  CHECK(r.answered_by == SearchMethod::Corridor);
  CHECK(r.cost <= 1.1 * best.cost + extra);
  checkPair(view, from, to, state, totals, false, 20 * 9.0);
  return r;
}

}  // namespace

TEST_CASE("corridor: a dear start or goal rectangle left over cheaper ground and entered again", "[nav][layered][corridor]") {
  // A mud row (cost 10) with a cheap row beside it along most of its length, leading to a room
  // reached only through the mud at the far end. From a start in the mud the cheap way steps out
  // onto the cheap row, walks it, and steps back into the mud to reach the room; the rectangle
  // search entered each rectangle once, so the route walked the mud (4.6x A*'s cost, a review).
  // The same from the room to a goal in the mud, and with random walls in the cheap row, round
  // each of which the route steps into the mud and out again.
  SearchState state;
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> column(0, 22);
  PropertyTotals totals;
  int left_the_mud = 0, trials = 0;
  for (int trial = 0; trial < 24; ++trial) {
    std::vector<std::string> rows(8, "#########################.....");
    rows[0] = ".........................#####";
    rows[1] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    if (trial > 0)  // walls in the cheap row: the route steps into the mud round each
      for (int k = 0; k < trial % 4; ++k) rows[0][std::size_t(column(rng))] = '#';
    const auto g = mudWorld(rows);
    const LayeredSearchGraph view(g, defaultAgent());
    const sim::Vec3 mud{column(rng) + 0.5, 0, 1.5}, room{27.5, 0, 5.5};
    for (const bool from_mud : {true, false}) {
      const sim::Vec3 from = from_mud ? mud : room, to = from_mud ? room : mud;
      INFO("trial " << trial << " from " << from.x << "," << from.z << " to " << to.x << "," << to.z);
      // (Stepping out of the mud costs the corridor half a column of mud, 5; back in, likewise.)
      const PathResult r = corridorNearAStar(view, from, to, 10, state, totals);
      ++trials;
      for (const Waypoint& w : r.waypoints) left_the_mud += w.position.z < 1.0 ? 1 : 0;
    }
  }
  CHECK(trials == 48);
  CHECK(left_the_mud > 24);
}

TEST_CASE("corridor: a link's take-off inside a dear area is entered beside it, where the search costed it", "[nav][layered][corridor]") {
  // Mud (cost 5) at x 0..9 beside a cheap strip x 10..14; a link (dearer than walking, so the
  // corridor answers itself) from the mud column next to the strip at z 25 into a walled room
  // (x 0..9, z 0..3) holding the goal. The rectangle search costed the link from the point of the
  // mud's portal in line with its take-off, but the route crossed the portal at the mud
  // rectangle's own entry point, aimed at the goal across the mud (the portal's far end, 20
  // columns south): it walked the mud to the take-off, 1.8x A*'s cost (an oracle audit on the
  // course sample with a mud modifier; 58 of 717 routes over 1.3x).
  std::vector<std::string> rows(30);
  for (int z = 0; z < 30; ++z) rows[std::size_t(z)] = z < 4 ? "..........#...." : z == 4 ? "###########...." : "aaaaaaaaaa.....";
  auto g = mudWorld(rows, 5.0f);
  LayeredBuilder::addLink(g, g.columnBegin(9, 25), g.columnBegin(5, 1), 40.0f);
  LayeredBuilder::computeComponents(g);
  const LayeredSearchGraph view(g, defaultAgent());
  REQUIRE_FALSE(view.corridor().cheapLinks());
  SearchState state;
  for (const sim::Vec3 from : {sim::Vec3{13.5, 0, 28.5}, sim::Vec3{12.5, 0, 20.5}, sim::Vec3{14.5, 0, 6.5}}) {
    INFO("from " << from.x << "," << from.z);
    const sim::Vec3 to{1.5, 0, 1.5};
    const PathResult exact = answerWith(view, from, to, SearchMethod::AStar, state);
    REQUIRE(exact.ok());
    const PathResult r = answerWith(view, from, to, SearchMethod::Corridor, state);
    REQUIRE(r.ok());
    CHECK(r.answered_by == SearchMethod::Corridor);
    CHECK(r.cost <= 1.05 * exact.cost);
    int in_mud = 0;  // waypoints in the mud before the link: the take-off's column only
    for (const Waypoint& w : r.waypoints) {
      if (w.action == MoveAction::Link) break;
      in_mud += w.area == 1 && w.position.z < 24.9 ? 1 : 0;
    }
    CHECK(in_mud == 0);
  }
}

TEST_CASE("corridor: a dear rectangle between two rooms, with a cheap row beside it broken by walls", "[nav][layered][corridor]") {
  // A second review: with one record per dear rectangle until it was expanded, the entry into a
  // mud strip from the cheap row near its far end lost to the entry at the near end on the key
  // alone and was dropped, and the route walked the mud (2.5-3.5x A*'s cost). Rooms at both
  // ends of two mud rows (cost 10), a cheap row beside them cut by random walls; routes from
  // room to room both ways.
  SearchState state;
  std::mt19937 rng(23);
  std::uniform_int_distribution<int> column(3, 26), room_z(0, 5);
  PropertyTotals totals;
  int routes = 0;
  for (int trial = 0; trial < 30; ++trial) {
    std::vector<std::string> rows(6, "..########################..");
    rows[1] = "............................";
    rows[2] = "..aaaaaaaaaaaaaaaaaaaaaaaa..";
    rows[3] = "..aaaaaaaaaaaaaaaaaaaaaaaa..";
    for (int k = 0; k < 1 + trial % 3; ++k) rows[1][std::size_t(column(rng))] = '#';
    const auto g = mudWorld(rows);
    const LayeredSearchGraph view(g, defaultAgent());
    const sim::Vec3 west{0.5, 0, room_z(rng) + 0.5}, east{27.5, 0, room_z(rng) + 0.5};
    for (const bool eastwards : {true, false}) {
      const sim::Vec3 from = eastwards ? west : east, to = eastwards ? east : west;
      INFO("trial " << trial << (eastwards ? " eastwards" : " westwards"));
      // (Each step into the mud round a wall and back: up to a column of mud, 10.)
      corridorNearAStar(view, from, to, 10 * (1 + trial % 3), state, totals);
      ++routes;
    }
  }
  CHECK(routes == 60);
}

TEST_CASE("corridor and interval: a link cheaper than walking sends the request to Theta*", "[nav][layered][corridor]") {
  // One open floor is one rectangle: start and goal in it were answered by the straight line
  // (0 expansions), past a link along the side that costs 0.5 for 28 m (an audit: 26.1 against
  // A*'s 3.05). The rectangle graph leaves out links inside one rectangle, so where a link is
  // cheaper than walking (CorridorIndex::cheapLinks) Theta* answers, with a wall between the
  // ends or without. A link that costs at least its length keeps the corridor's own answer.
  for (const bool wall : {false, true}) {
    LayeredBuilder b(10, 30);
    std::vector<std::string> rows(30, std::string(10, '.'));
    if (wall) rows[15] = "########..";
    b.fromAscii(rows);
    for (const float link_cost : {0.5f, 40.0f}) {
      auto g = b.build();
      LayeredBuilder::addLink(g, g.columnBegin(1, 1), g.columnBegin(1, 28), link_cost);
      LayeredBuilder::computeComponents(g);
      const LayeredSearchGraph view(g, defaultAgent());
      CHECK(view.corridor().costIsLength() == (link_cost > 28));
      SearchState state;
      const sim::Vec3 from{2.5, 0, 2.5}, to{2.5, 0, 27.5};
      const PathResult exact = answerWith(view, from, to, SearchMethod::AStar, state);
      REQUIRE(exact.ok());
      for (const SearchMethod method : {SearchMethod::Corridor, SearchMethod::Interval}) {
        INFO(methodName(method) << ", link costs " << link_cost << (wall ? ", wall" : ""));
        const PathResult r = answerWith(view, from, to, method, state);
        REQUIRE(r.ok());
        CHECK(r.cost <= 1.01 * exact.cost);
        CHECK(view.corridor().cheapLinks() == (link_cost < 28));
        CHECK(r.answered_by == (link_cost < 28 ? SearchMethod::Theta : method));
        bool linked = false;
        for (const Waypoint& w : r.waypoints) linked = linked || w.action == MoveAction::Link;
        CHECK(linked == (link_cost < 28));
      }
    }
  }
}

TEST_CASE("corridor: jumps and links are taken from their take-off node", "[nav][layered][corridor]") {
  LayeredBuilder b(10, 3);
  b.fromAscii({"....##....", "....##....", "....##...."});
  auto g = b.build();
  const uint32_t take_off = g.columnBegin(3, 1), landing = g.columnBegin(6, 1);
  LayeredBuilder::setEdge(g, take_off, 0, landing, EdgeKind::Jump, 1.0);
  LayeredBuilder::computeComponents(g);
  const auto r = run(g, {0.5, 0, 0.5}, {9.5, 0, 2.5});
  REQUIRE(r.ok());
  std::size_t jump = 0;
  for (std::size_t i = 0; i < r.waypoints.size(); ++i)
    if (r.waypoints[i].action == MoveAction::Jump) jump = i;
  REQUIRE(jump > 0);
  CHECK(r.waypoints[jump].position.x == Approx(6.5));
  CHECK(r.waypoints[jump - 1].position.x == Approx(3.5));
  CHECK(r.waypoints[jump - 1].position.z == Approx(1.5));

  LayeredBuilder lb(10, 1);
  lb.fromAscii({"....##...."});
  auto lg = lb.build();
  LayeredBuilder::addLink(lg, lg.columnBegin(1, 0), lg.columnBegin(8, 0), 2.0f);
  LayeredBuilder::computeComponents(lg);
  const auto link = run(lg, {0.5, 0, 0.5}, {9.5, 0, 0.5});
  REQUIRE(link.ok());
  REQUIRE(link.waypoints.size() == 4);
  CHECK(link.waypoints[2].action == MoveAction::Link);
  CHECK(link.cost == Approx(1 + 2 + 1));
}

TEST_CASE("corridor: stacked floors stay apart and areas are kept", "[nav][layered][corridor]") {
  LayeredBuilder b(10, 3);
  b.fromAscii({"..........", "..........", ".........."});
  for (int x = 3; x <= 6; ++x) b.addFloor(x, 1, 4);
  const auto g = b.build();
  const auto road = run(g, {0.5, 0, 1.5}, {9.5, 0, 1.5});
  REQUIRE(road.ok());
  for (NodeId n : road.nodes) CHECK(g.height[n] == Approx(0));
  const auto deck = run(g, {3.5, 4.1, 1.5}, {6.5, 4, 1.5});
  REQUIRE(deck.ok());
  for (NodeId n : deck.nodes) CHECK(g.height[n] == Approx(4));

  LayeredBuilder a(9, 1);
  a.area_costs = {1.0f, 3.0f};
  a.fromAscii({"...aaa..."});
  const auto ga = a.build();
  const auto r = run(ga, {0.5, 0, 0.5}, {8.5, 0, 0.5});
  REQUIRE(r.ok());
  CHECK(r.cost == Approx(3 + 3 * 3 + 2));  // 3 m, 3 m at cost 3, 2 m (from 0.5 to 8.5)
  bool dear = false;
  for (const auto& w : r.waypoints) dear = dear || w.area == 1;
  CHECK(dear);
}

TEST_CASE("corridor: failure reasons", "[nav][layered][corridor][failure]") {
  SECTION("another component: NoPath with zero expansions") {
    LayeredBuilder b(9, 3);
    b.fromAscii({"....#....", "....#....", "....#...."});
    const auto r = run(b.build(), {0.5, 0, 1.5}, {8.5, 0, 1.5});
    CHECK(r.failure == PathFailure::NoPath);
    CHECK(r.expansions == 0);
  }
  SECTION("no floor near an endpoint") {
    LayeredBuilder b(10, 2);
    b.fromAscii({".....#####", ".....#####"});
    auto s = corridorSettings();
    s.snap.max_horizontal = 1.0;
    const auto g = b.build();
    CHECK(run(g, {9.5, 0, 0.5}, {0.5, 0, 0.5}, s).failure == PathFailure::NoStartNode);
    CHECK(run(g, {0.5, 0, 0.5}, {9.5, 0, 0.5}, s).failure == PathFailure::NoGoalNode);
  }
  SECTION("budget, closest route and one-way drops") {
    // A (floor 0) <-drop- B (floor 3) -drop-> C (floor 0); a link from island D onto B.
    LayeredBuilder b(12, 1);
    b.fromAscii({"...333...#.."});
    auto g = b.build();
    LayeredBuilder::setEdge(g, g.columnBegin(3, 0), 4, g.columnBegin(2, 0), EdgeKind::Drop, 0.5);
    LayeredBuilder::setEdge(g, g.columnBegin(5, 0), 0, g.columnBegin(6, 0), EdgeKind::Drop, 0.5);
    LayeredBuilder::addLink(g, g.columnBegin(10, 0), g.columnBegin(4, 0), 3.0f);
    LayeredBuilder::computeComponents(g);
    const auto drop = run(g, {4.5, 3, 0.5}, {0.5, 0, 0.5});
    REQUIRE(drop.ok());
    bool has_drop = false;
    for (const auto& w : drop.waypoints) has_drop = has_drop || w.action == MoveAction::Drop;
    CHECK(has_drop);
    CHECK(run(g, {0.5, 0, 0.5}, {7.5, 0, 0.5}).failure == PathFailure::NoPath);
    auto s = corridorSettings();
    s.limits.max_expansions = 1;
    CHECK(run(g, {4.5, 3, 0.5}, {10.5, 0, 0.5}).failure == PathFailure::NoPath);
    LayeredBuilder wide(40, 40);
    for (int z = 0; z < 40; ++z)
      for (int x = 0; x < 40; ++x)
        if (!(x % 4 == 2 && z != (x % 8 == 2 ? 39 : 0))) wide.addFloor(x, z, 0);  // a zig-zag of walls
    const auto gw = wide.build();
    const auto budget = run(gw, {0.5, 0, 0.5}, {39.5, 0, 0.5}, s);
    CHECK(budget.failure == PathFailure::BudgetExhausted);
    CHECK(budget.expansions == 1);
    s.return_closest = true;
    const auto closest = run(gw, {0.5, 0, 0.5}, {39.5, 0, 0.5}, s);
    CHECK(closest.failure == PathFailure::ClosestNoPath);
    CHECK(closest.waypoints.size() >= 2);
    s.limits.max_expansions = 0;
    CHECK(run(gw, {0.5, 0, 0.5}, {39.5, 0, 0.5}, s).ok());
  }
  SECTION("interval: a shared budget that always buys the corridor method's answer") {
    LayeredBuilder wide(40, 40);
    for (int z = 0; z < 40; ++z)
      for (int x = 0; x < 40; ++x)
        if (!(x % 4 == 2 && z != (x % 8 == 2 ? 39 : 0))) wide.addFloor(x, z, 0);
    const auto gw = wide.build();
    const sim::Vec3 from{0.5, 0, 0.5}, to{39.5, 0, 0.5};
    auto s = corridorSettings();
    const auto corridor = run(gw, from, to, s);
    REQUIRE(corridor.ok());
    s.method = SearchMethod::Interval;
    const auto unlimited = run(gw, from, to, s);
    REQUIRE(unlimited.ok());
    CHECK(unlimited.cost <= corridor.cost + 1e-9);
    CHECK(unlimited.expansions > corridor.expansions);
    for (int64_t budget = corridor.expansions; budget <= unlimited.expansions + 1; ++budget) {
      INFO("budget " << budget);
      s.limits.max_expansions = budget;
      const auto r = run(gw, from, to, s);
      REQUIRE(r.ok());  // the corridor answer at least
      CHECK(r.expansions <= budget);
      CHECK(r.cost <= corridor.cost + 1e-9);
    }
    s.limits.max_expansions = corridor.expansions - 1;
    CHECK(run(gw, from, to, s).failure == PathFailure::BudgetExhausted);
    s.return_closest = true;
    const auto closest = run(gw, from, to, s);
    CHECK(closest.failure == PathFailure::ClosestNoPath);
    CHECK(closest.expansions <= corridor.expansions - 1);
  }
}

TEST_CASE("corridor: batch mode gives the same answers on any thread count", "[nav][layered][corridor][batch]") {
  std::mt19937 rng(5);
  LayeredBuilder b(40, 40);
  b.addRandomFloors(rng);
  const auto g = b.build();
  const LayeredSearchGraph view(g, defaultAgent());
  std::vector<LayeredPathRequest> requests;
  std::uniform_real_distribution<double> coord(0, 40);
  for (int i = 0; i < 200; ++i) {
    LayeredPathRequest r;
    r.from = {coord(rng), 0, coord(rng)};
    r.to = {coord(rng), 0, coord(rng)};
    r.settings = corridorSettings();
    requests.push_back(r);
  }
  const auto one = findLayeredPaths({&view}, requests, 1);
  const auto two = findLayeredPaths({&view}, requests, 2);
  std::size_t found = 0;
  for (std::size_t i = 0; i < one.size(); ++i) {
    found += one[i].ok();
    CHECK(one[i].nodes == two[i].nodes);
    CHECK(one[i].cost == two[i].cost);
  }
  CHECK(found > 50);
}

TEST_CASE("corridor and interval: random graphs with heights, areas, jumps and links", "[nav][layered][corridor][property]") {
  // Odd trials: one area cost and links dearer than walking, so the corridor and interval
  // methods answer themselves; even trials: a dear area, where the corridor method charges
  // area costs and Theta* answers for the interval method.
  for (const SearchMethod method : {SearchMethod::Corridor, SearchMethod::Interval}) {
  INFO(methodName(method));
  std::mt19937 rng(17);
  SearchState state;
  PropertyTotals totals;
  for (int trial = 0; trial < 30; ++trial) {
    LayeredBuilder b(24, 24);
    b.area_costs = {1.0f, trial % 2 == 1 ? 1.0f : 2.5f};
    std::uniform_int_distribution<int> cell(0, 19);
    for (int z = 0; z < 24; ++z)
      for (int x = 0; x < 24; ++x) {
        const int c = cell(rng);
        if (c == 0) continue;                               // void
        b.addFloor(x, z, c == 1 ? 0.3f : (c == 2 ? 0.9f : 0.0f), c == 3 ? 1 : 0);
        if (c == 4 || c == 5) b.addFloor(x, z, 3.0f);       // an upper floor
      }
    auto g = b.build();
    std::uniform_int_distribution<uint32_t> pick(0, uint32_t(g.nodeCount() - 1));
    for (int k = 0; k < 6; ++k) {  // one-way jumps to any node two columns east and links
      const NodeId a = pick(rng);
      const auto c = g.nodeColumn(a);
      if (c[0] + 2 < 24 && g.columnEnd(c[0] + 2, c[1]) > g.columnBegin(c[0] + 2, c[1]) &&
          g.neighborOf(a, 0) == kNoNode)
        LayeredBuilder::setEdge(g, a, 0, g.columnBegin(c[0] + 2, c[1]), EdgeKind::Jump, 1.0);
      const NodeId from = pick(rng), to = pick(rng);
      const auto p = g.nodeColumn(from), q = g.nodeColumn(to);
      LayeredBuilder::addLink(g, from, to, 4.0f + float(std::hypot(p[0] - q[0], p[1] - q[1])));  // dearer than walking
    }
    LayeredBuilder::computeComponents(g);
    const LayeredSearchGraph view(g, defaultAgent());
    CHECK(view.corridor().costIsLength() == (trial % 2 == 1));
    checkDecomposition(view, view.corridor());
    // Slack: half a column at each end, at the dear area's extra cost.
    for (int q = 0; q < 15; ++q)
      checkPair(view, g.nodePosition(pick(rng)), g.nodePosition(pick(rng)), state, totals, true, 2 * 0.5 * 1.5, method);
  }
  CHECK(totals.found > 100);
  INFO("corridor / theta mean length ratio " << totals.corridor_length / totals.theta_length);
  CHECK(totals.corridor_length <= 1.25 * totals.theta_length);
  if (method == SearchMethod::Corridor) {  // the dear-area trials: the corridor's own routes against A*'s costs
    INFO("corridor / A* cost where areas differ " << totals.corridor_cost / totals.astar_cost);
    WARN("corridor / A* cost where areas differ " << totals.corridor_cost / totals.astar_cost);
    CHECK(totals.astar_cost > 500);
    CHECK(totals.corridor_cost <= 1.05 * totals.astar_cost);
  }
  }
}

TEST_CASE("corridor: random floors with patches of three area costs against A*", "[nav][layered][corridor][property]") {
  // Patches (random boxes) of areas costing 3 and 1000 on a floor of cost 1 with walls: the
  // corridor method's own routes (no cheap links) are walkable with real special edges (checkPair)
  // and on average cost at most 10 % more than A*'s; a route through the 1000-cost area where
  // A*'s avoids it would blow that (measured: 0.99, any-angle against 8-connected).
  std::mt19937 rng(29);
  SearchState state;
  PropertyTotals totals;
  for (int trial = 0; trial < 20; ++trial) {
    constexpr int kSide = 40;
    std::vector<std::string> rows(kSide, std::string(kSide, '.'));
    std::uniform_int_distribution<int> coord(0, kSide - 1), size(2, 12), kind(0, 2);
    for (int k = 0; k < 10; ++k) {
      const int x0 = coord(rng), z0 = coord(rng), w = size(rng), h = size(rng), what = kind(rng);
      for (int z = z0; z < std::min(kSide, z0 + h); ++z)
        for (int x = x0; x < std::min(kSide, x0 + w); ++x)
          rows[std::size_t(z)][std::size_t(x)] = what == 0 ? '#' : (what == 1 ? 'a' : 'b');
    }
    LayeredBuilder b(kSide, kSide);
    b.area_costs = {1.0f, 3.0f, 1000.0f};
    b.fromAscii(rows);
    const auto g = b.build();
    if (g.nodeCount() < 2) continue;
    const LayeredSearchGraph view(g, defaultAgent());
    REQUIRE_FALSE(view.corridor().cheapLinks());
    std::uniform_int_distribution<uint32_t> pick(0, uint32_t(g.nodeCount() - 1));
    for (int q = 0; q < 25; ++q)
      checkPair(view, g.nodePosition(pick(rng)), g.nodePosition(pick(rng)), state, totals, false, 20 * 999.0);
  }
  INFO("corridor / A* cost " << totals.corridor_cost / totals.astar_cost);
  WARN("patches of three area costs: corridor / A* cost " << totals.corridor_cost / totals.astar_cost << " over " << totals.found
                                                           << " routes");
  CHECK(totals.found > 300);
  CHECK(totals.corridor_cost <= 1.10 * totals.astar_cost);
}

TEST_CASE("corridor: samples, Recast and real meshes, walkable routes wherever A* finds one", "[nav][layered][corridor][property]") {
  struct Case {
    std::filesystem::path mesh, profile;
    double scale = 1;
  };
  const auto samples = test::sourceDir() / "samples";
  const auto recast = test::sharedData() / "meshes" / "recast";
  const auto real = test::sharedData() / "meshes" / "real";
  // The real meshes with the default agent, which jumps and drops: take-offs and landings inside
  // stairs, ledges and stacked floors of levels nobody here modelled.
  const std::vector<Case> cases{{samples / "tower.obj", samples / "tower.toml"},
                                {samples / "course.obj", samples / "course.toml"},
                                {samples / "maze.obj", samples / "maze.toml"},
                                {recast / "dungeon.obj", {}},
                                {recast / "nav_test.obj", {}},
                                {recast / "undulating.obj", {}},
                                {real / "godot-demo-projects" / "level_mesh.obj", {}},
                                {real / "game-maps-obj" / "fdm6.obj", {}, 0.05},
                                {real / "game-maps-obj" / "dutility.obj", {}, 0.05}};
  // Each mesh twice: with one area cost, and with areas of different costs (the sample's own
  // rules and modifiers, or on the others a checkerboard of 5 x 5 boxes over the bounds, 12 of
  // them an area of cost 3, as the benchmark's STRATA_BENCH_AREAS), where the corridor method
  // charges area costs and the interval method hands the requests to Theta*.
  for (const Case& c : cases)
  for (const bool dear : {false, true}) {
    formats::ImportOptions import;
    import.in_process = true;
    import.scale = c.scale;
    auto imported = formats::importMeshes({c.mesh}, import);
    REQUIRE(imported.ok());
    AgentProfile agent = test::testAgent();
    if (!c.profile.empty()) {
      auto profile = formats::loadProfile(c.profile);
      REQUIRE(profile.ok());
      agent = profile->agents.front();
      if (!dear) agent.areas.clear(), agent.modifiers.clear();
    } else {
      agent.settings.cell_size = 0.3;
      if (dear) {
        const sim::Aabb b = imported->mesh.bounds();
        const double sx = (b.max.x - b.min.x) / 5, sz = (b.max.z - b.min.z) / 5;
        for (int i = 0; i < 5; ++i)
          for (int j = 0; j < 5; ++j)
            if ((i + j) % 2 == 1)
              agent.modifiers.push_back({{{b.min.x + i * sx, b.min.y - 1, b.min.z + j * sz}, {b.min.x + (i + 1) * sx, b.max.y + 1, b.min.z + (j + 1) * sz}},
                                         "dear", 3.0});
      }
    }
    const BakedAgent baked = test::bakeOne(imported->mesh, agent, 2);
    const LayeredGraph& g = baked.graph;
    const LayeredSearchGraph view(g, baked.profile.settings);
    if (dear && view.corridor().costIsLength()) continue;  // (a sample without areas of another cost)
    INFO((dear ? "with areas of different costs" : "one area cost"));
    if (!dear) checkDecomposition(view, view.corridor());
    // A line charges each column's area for its share, an edge the destination's for the whole
    // step: where areas differ the route can cost up to a step's difference less per crossing.
    const double slack = dear ? 10 * g.grid.cell_size * 2 : 0;
    for (const SearchMethod method : {SearchMethod::Corridor, SearchMethod::Interval}) {
      std::mt19937 rng(23);
      std::uniform_int_distribution<uint32_t> pick(0, uint32_t(g.nodeCount() - 1));
      SearchState state;
      PropertyTotals totals;
      for (int q = 0; q < 40; ++q)
        checkPair(view, g.nodePosition(pick(rng)), g.nodePosition(pick(rng)), state, totals, true, slack, method);
      INFO(c.mesh.filename().string() << " " << methodName(method) << ": " << view.corridor().rectCount() << " rectangles for "
                                      << g.nodeCount() << " nodes; route / theta length "
                                      << totals.corridor_length / totals.theta_length);
      CHECK(totals.found > 5);
      CHECK(totals.corridor_length <= 1.25 * totals.theta_length);
      // The interval method's rectangles hold the shortest route of their plane: on average its
      // routes are close to Theta*'s.
      if (method == SearchMethod::Interval) CHECK(totals.corridor_length <= 1.05 * totals.theta_length);
      WARN(c.mesh.filename().string() << " " << methodName(method) << (dear ? " (areas)" : "") << ": " << view.corridor().rectCount()
                                      << " rectangles / " << g.nodeCount() << " nodes, " << view.corridor().portalCount() << " portals, "
                                      << view.corridor().specialCount() << " special edges; route / theta length "
                                      << totals.corridor_length / totals.theta_length
                                      << (totals.astar_cost > 0 ? "; corridor / A* cost " + std::to_string(totals.corridor_cost / totals.astar_cost) : std::string()));
      // Where areas differ, the corridor's own routes against A*'s costs (A* is exact but
      // 8-connected, so an any-angle route can cost less).
      if (dear && method == SearchMethod::Corridor && totals.astar_cost > 0) CHECK(totals.corridor_cost <= 1.10 * totals.astar_cost);
    }
  }
}

TEST_CASE("corridor: of a ledge's run of drops into one rectangle the search takes the one on the way", "[nav][layered][corridor]") {
  // A platform at 3 m along z 0..1 over the ground (z 2..11), a drop edge from every column of
  // its south rim into the ground: one run of 16 drops into one rectangle. The search relaxes
  // the drop whose way (entry to take-off, landing to goal, octile) is shortest, so the route
  // drops where the line to the goal leaves the platform, not at the run's first column (where
  // the first two routes would drop, more than 3 % longer than Theta*'s).
  LayeredBuilder b(16, 12);
  std::vector<std::string> rows(12, std::string(16, '.'));
  rows[0] = rows[1] = std::string(16, '3');
  b.fromAscii(rows);
  auto g = b.build();
  for (int x = 0; x < 16; ++x) LayeredBuilder::setEdge(g, g.columnBegin(x, 1), 2, g.columnBegin(x, 2), EdgeKind::Drop, 0.5);
  LayeredBuilder::computeComponents(g);
  struct Case {
    sim::Vec3 from, to;
  };
  for (const Case& c : {Case{{0.5, 3, 0.5}, {15.5, 0, 10.5}}, Case{{15.5, 3, 0.5}, {12.5, 0, 11.5}},
                        Case{{8.5, 3, 0.5}, {0.5, 0, 9.5}}}) {
    INFO("from " << c.from.x << "," << c.from.z << " to " << c.to.x << "," << c.to.z);
    LayeredSearchSettings theta;
    theta.method = SearchMethod::Theta;
    const PathResult exact = run(g, c.from, c.to, theta);
    const PathResult corridor = run(g, c.from, c.to);
    REQUIRE(exact.ok());
    REQUIRE(corridor.ok());
    CHECK(corridor.answered_by == SearchMethod::Corridor);
    CHECK(corridor.cost <= 1.03 * exact.cost);
    CHECK(std::count_if(corridor.waypoints.begin(), corridor.waypoints.end(),
                        [](const Waypoint& w) { return w.action == MoveAction::Drop; }) == 1);
  }
}

TEST_CASE("corridor: drops are costed from where the route can reach them (routes an oracle audit found 1.3-1.8x too long)", "[nav][layered][corridor]") {
  // Both pairs drop off a ledge near the start. Before: zdm2's strip below was first reached at
  // its far end through another drop, and the better entry in line with the goal was refused
  // for costing more to reach (10.15 against A*'s 5.64); nav_test's take-off lies in a strip
  // entered where the line to the goal crosses it, 40 columns away, so the drop looked 12 m
  // dearer than it is (41.08 against 30.58). Since drops are found along the diagonals too, the
  // nav_test ledge (which runs diagonally) offers drops every way; the corridor's weighted A*
  // takes one landing 0.6 m south of the best (33.22 against A*'s 30.43), hence 10 %, still far
  // below the 1.3-1.8x this guards against.
  struct Pair {
    const char* mesh;
    sim::Vec3 from, to;
  };
  const auto real = test::sharedData() / "meshes" / "real" / "godot-demo-projects" / "zdm2.glb";
  const auto recast = test::sharedData() / "meshes" / "recast" / "nav_test.obj";
  for (const auto& [mesh, from, to] : {Pair{"zdm2", {16.05, -0.3, 10.35}, {13.65, -1.96, 13.65}},
                                       Pair{"nav_test", {44.85, -0.595, -4.35}, {49.05, -2.265, 21.45}}}) {
    INFO(mesh);
    formats::ImportOptions import;
    import.in_process = true;
    auto imported = formats::importMeshes({std::string(mesh) == "zdm2" ? real : recast}, import);
    REQUIRE(imported.ok());
    const BakedAgent baked = test::bakeOne(imported->mesh, BakeProfile::defaults().agents.front(), 2);
    const LayeredSearchGraph view(baked.graph, baked.profile.settings);
    SearchState state;
    LayeredSearchSettings settings;
    const PathResult exact = findLayeredPath(view, from, to, settings, state);
    REQUIRE(exact.ok());
    settings.method = SearchMethod::Corridor;
    const PathResult corridor = findLayeredPath(view, from, to, settings, state);
    REQUIRE(corridor.ok());
    CHECK(corridor.cost <= (std::string(mesh) == "zdm2" ? 1.02 : 1.10) * exact.cost);
    CHECK(std::count_if(corridor.waypoints.begin(), corridor.waypoints.end(),
                        [](const Waypoint& w) { return w.action == MoveAction::Drop; }) == 1);
  }
}

namespace {

// The plane of the interval search on a flat grid (every floor at 0, every pair of adjacent
// floors joined): the closed cells of the floor columns, crossed between cells that share a side
// (two cells touching at a corner only are not joined there).
struct CellPlane {
  int width, depth;
  std::vector<bool> floor;  // per column
  bool at(int x, int z) const { return x >= 0 && z >= 0 && x < width && z < depth && floor[std::size_t(z) * width + x]; }

  // True when segment p -> q lies in the plane: the pieces between its crossings of the cell
  // lines lie in (or, along a line, beside) floor cells, and a passage through a cell corner
  // from one cell to the diagonal one has a floor cell beside it.
  bool contains(double px, double pz, double qx, double qz) const {
    std::vector<double> ts{0.0, 1.0};
    auto crossings = [&](double a, double b) {
      if (a == b) return;
      for (double k = std::ceil(std::min(a, b) - 0.5) + 0.5; k < std::max(a, b); k += 1.0) {
        const double t = (k - a) / (b - a);
        if (t > 0 && t < 1) ts.push_back(t);
      }
    };
    crossings(px, qx);
    crossings(pz, qz);
    std::sort(ts.begin(), ts.end());
    auto cellOf = [](double v) { return int(std::floor(v + 0.5)); };
    auto onLine = [](double v) { return std::fabs(v - std::floor(v) - 0.5) < 1e-9; };
    int prev_x = 0, prev_z = 0;
    bool first = true;
    for (std::size_t i = 0; i + 1 < ts.size(); ++i) {
      if (ts[i + 1] - ts[i] < 1e-12) continue;
      const double t = 0.5 * (ts[i] + ts[i + 1]);
      const double x = px + t * (qx - px), z = pz + t * (qz - pz);
      // A piece along a cell line lies beside the cells on both sides: one floor is enough.
      if (onLine(x) || onLine(z)) {
        const int x0 = cellOf(x - 0.25), x1 = cellOf(x + 0.25), z0 = cellOf(z - 0.25), z1 = cellOf(z + 0.25);
        if (!(at(x0, z0) || at(x1, z1) || at(x0, z1) || at(x1, z0))) return false;
        first = true;  // no corner rule across a piece along a line
        continue;
      }
      const int cx = cellOf(x), cz = cellOf(z);
      if (!at(cx, cz)) return false;
      if (!first && cx != prev_x && cz != prev_z && !at(cx, prev_z) && !at(prev_x, cz)) return false;  // a pinch
      prev_x = cx, prev_z = cz, first = false;
    }
    return true;
  }
};

}  // namespace

TEST_CASE("interval: on a lattice of pillars the search stays within a bound of the corridor method's", "[nav][layered][corridor]") {
  // Pillars 0.15 m across at a 1 m pitch on an 88 m floor, the default agent (radius 0.3, cell
  // 0.3): lanes a column or two wide, routes far longer than straight lines and tying in
  // length, where the exact interval search's nodes grew far faster than the route (236,536
  // for a 57 m route on a 45 m floor, 903,000 for 198 m on a 150 m one). It gets at most
  // 131,072 + 32 x the corridor method's rectangles; its route is never dearer than the corridor
  // method's.
  strata::test::MeshBuilder level;
  level.box({0, -0.2, 0}, {88, 0, 88});
  for (double x = 1; x < 87; x += 1)
    for (double z = 1; z < 87; z += 1) level.box({x, 0, z}, {x + 0.15, 2.5, z + 0.15});
  nav::AgentProfile agent;
  agent.settings.name = "a";
  const nav::BakedAgent baked = strata::test::bakeOne(level.mesh(), agent);
  const LayeredSearchGraph view(baked.graph, agent.settings);
  LayeredSearchSettings interval, corridor;
  interval.method = SearchMethod::Interval;
  corridor.method = SearchMethod::Corridor;
  interval.limits.max_expansions = corridor.limits.max_expansions = 0;  // no budget: only the bound
  SearchState state;
  int bounded = 0;
  for (const auto& [from, to] : std::vector<std::pair<sim::Vec3, sim::Vec3>>{
           {{0.5, 0, 0.5}, {87.5, 0, 87.5}}, {{0.5, 0, 0.5}, {87.5, 0, 50.5}}, {{2.5, 0, 0.5}, {50.5, 0, 86.5}}, {{0.5, 0, 70.5}, {70.5, 0, 0.5}}}) {
    const PathResult c = findLayeredPath(view, from, to, corridor, state);
    const PathResult i = findLayeredPath(view, from, to, interval, state);
    REQUIRE(c.ok());
    REQUIRE(i.ok());
    CAPTURE(from.x, from.z, to.x, to.z, c.expansions, i.expansions);
    // (The interval method's count includes the corridor search that runs first, and, when the
    // bound stops the interval search, the rectangle search it then falls back on.)
    CHECK(i.expansions <= 2 * c.expansions + 131072 + 32 * c.expansions);
    CHECK(i.cost <= c.cost + 1e-9);
    bounded += i.expansions > 131072 + 32 * c.expansions;
  }
  CHECK(bounded > 0);  // the bound was reached: without it these searches run far longer
}

TEST_CASE("interval search: its cost is the shortest route of the plane, links and stacked floors included (visibility graph oracle)", "[nav][layered][corridor][oracle]") {
  // Random flat grids with holes (no pinches); on odd trials one-way links between random
  // floors; on every other pair of trials a second, independent floor 3 m above the first (the
  // floors meet only through links). For pairs of floors the interval search's route cost
  // equals Dijkstra over the visibility graph of the start, the goal, every cell corner of each
  // floor and the links' ends, plus the links (a shortest route in a polygonal plane turns only
  // at its corners; the two floors are two planes).
  // Trials 60 on: lattices of one-cell pillars (every second or third cell both ways, a few
  // random holes besides), where many staircase routes tie: the search drops a corner reached
  // at the same cost by another node's expansion, and must stay exact.
  int compared = 0, across = 0, lattice_compared = 0;
  for (int trial = 0; trial < 90; ++trial) {
    std::mt19937 rng(1000 + trial);
    const bool lattice = trial >= 60;
    const int w = lattice ? 9 + trial % 7 : 6 + trial % 5, d = lattice ? 8 + trial % 5 : 5 + trial % 4;
    const int pitch = 2 + trial % 2;
    const int levels = trial % 4 >= 2 ? 2 : 1;
    LayeredBuilder b(w, d);
    std::vector<CellPlane> planes(std::size_t(levels), CellPlane{w, d, std::vector<bool>(std::size_t(w) * d, false)});
    std::uniform_int_distribution<int> cell(0, 5);
    for (int level = 0; level < levels; ++level) {
      CellPlane& plane = planes[std::size_t(level)];
      for (int z = 0; z < d; ++z)
        for (int x = 0; x < w; ++x)
          plane.floor[std::size_t(z) * w + x] =
              lattice ? !(x % pitch == 1 && z % pitch == 1) && cell(rng) + cell(rng) != 0 : cell(rng) != 0;
      // No pinches (two floors touching at a corner only, holes on both other sides): there the
      // plane is not joined, and a visibility graph of corner points would pass through them.
      for (bool changed = true; changed;) {
        changed = false;
        for (int z = 0; z + 1 < d; ++z)
          for (int x = 0; x + 1 < w; ++x) {
            const bool p = plane.at(x, z), q = plane.at(x + 1, z), r = plane.at(x, z + 1), t = plane.at(x + 1, z + 1);
            if ((p && t && !q && !r) || (q && r && !p && !t)) {
              plane.floor[std::size_t(z) * w + (p ? x + 1 : x)] = true;
              changed = true;
            }
          }
      }
      for (int z = 0; z < d; ++z)
        for (int x = 0; x < w; ++x)
          if (plane.at(x, z)) b.addFloor(x, z, 3.0f * float(level));
    }
    LayeredGraph g = b.build();
    if (g.nodeCount() < 2) continue;
    auto levelOf = [&](NodeId n) { return g.height[n] > 1.0f ? 1 : 0; };
    // One-way links (special edges) between random floors, at random costs.
    struct Link {
      NodeId from, to;
      float cost;
    };
    std::vector<Link> links;
    std::uniform_int_distribution<uint32_t> any_node(0, uint32_t(g.nodeCount() - 1));
    std::uniform_int_distribution<int> link_cost(1, 6);
    for (int k = 0; (trial % 2 == 1 || levels == 2) && k < 3 * levels; ++k) {
      const Link link{any_node(rng), any_node(rng), float(link_cost(rng))};
      if (link.from == link.to) continue;
      LayeredBuilder::addLink(g, link.from, link.to, link.cost);
      links.push_back(link);
    }
    LayeredBuilder::computeComponents(g);
    const LayeredSearchGraph view(g, defaultAgent());
    const CorridorIndex& index = view.corridor();
    REQUIRE(index.uniformAreaCost() == 1.0);
    // Visibility graph points: column coordinates and level.
    struct Point {
      double x, z;
      int level;
    };
    std::vector<Point> corners;
    for (int level = 0; level < levels; ++level) {
      const CellPlane& plane = planes[std::size_t(level)];
      for (int z = 0; z <= d; ++z)
        for (int x = 0; x <= w; ++x)
          if (plane.at(x, z) || plane.at(x - 1, z) || plane.at(x, z - 1) || plane.at(x - 1, z - 1)) corners.push_back({x - 0.5, z - 0.5, level});
    }
    auto at = [&](NodeId n) {
      const auto c = g.nodeColumn(n);
      return Point{double(c[0]), double(c[1]), levelOf(n)};
    };
    std::uniform_int_distribution<uint32_t> pick(0, uint32_t(g.nodeCount() - 1));
    for (int q = 0; q < 12; ++q) {
      const NodeId s = pick(rng), t = pick(rng);
      if (s == t || g.component[s] != g.component[t] || index.rectOf(s) == index.rectOf(t)) continue;
      std::vector<Point> points{at(s), at(t)};
      points.insert(points.end(), corners.begin(), corners.end());
      // Each link: a point at its take-off column centre joined to one at its landing's.
      const std::size_t first_link = points.size();
      for (const Link& link : links) {
        points.push_back(at(link.from));
        points.push_back(at(link.to));
      }
      std::vector<double> dist(points.size(), std::numeric_limits<double>::infinity());
      std::vector<bool> done(points.size(), false);
      dist[0] = 0;
      for (;;) {
        std::size_t u = points.size();
        for (std::size_t i = 0; i < points.size(); ++i)
          if (!done[i] && (u == points.size() || dist[i] < dist[u])) u = i;
        if (u == points.size() || !std::isfinite(dist[u]) || u == 1) break;
        done[u] = true;
        const CellPlane& plane = planes[std::size_t(points[u].level)];
        for (std::size_t v = 0; v < points.size(); ++v) {
          if (done[v] || points[v].level != points[u].level) continue;
          const double len = std::hypot(points[v].x - points[u].x, points[v].z - points[u].z);
          if (dist[u] + len < dist[v] && plane.contains(points[u].x, points[u].z, points[v].x, points[v].z)) dist[v] = dist[u] + len;
        }
        if (u >= first_link && (u - first_link) % 2 == 0) {  // a take-off: the link to its landing
          const std::size_t landing = u + 1;
          const double cost = links[(u - first_link) / 2].cost;
          if (!done[landing] && dist[u] + cost < dist[landing]) dist[landing] = dist[u] + cost;
        }
      }
      std::vector<const CorridorEdge*> chain;
      const detail::RouteSearch route = detail::searchIntervals(index, s, t, 1.0, 0, chain);
      INFO("trial " << trial << " (" << levels << " floors, " << links.size() << " links) from (" << points[0].x << ","
                    << points[0].z << ", floor " << points[0].level << ") to (" << points[1].x << "," << points[1].z << ", floor "
                    << points[1].level << ")");
      REQUIRE(route.found == std::isfinite(dist[1]));
      if (!route.found) continue;
      CHECK(route.cost == Approx(dist[1]).epsilon(1e-9).margin(1e-9));
      // The chain leads from the start's rectangle to the goal's, edge by edge.
      REQUIRE_FALSE(chain.empty());
      for (std::size_t i = 1; i < chain.size(); ++i) CHECK(chain[i]->to_rect != chain[i - 1]->to_rect);
      CHECK(chain.back()->to_rect == index.rectOf(t));
      ++compared;
      lattice_compared += lattice;
      across += points[0].level != points[1].level;
    }
  }
  CHECK(compared > 400);
  CHECK(lattice_compared > 150);
  CHECK(across > 45);
}

TEST_CASE("corridor index: dead ends are exactly the special-free trees hanging from one rectangle (brute-force oracle)", "[nav][layered][corridor][oracle]") {
  // Random grids with holes (many rooms and stubs hang by one portal), one-way jumps and links.
  // For every rectangle `to` entered from a neighbour `from` and every goal: cut the rectangle
  // graph's link from-to (edges either way taken as one undirected link) and collect `to`'s
  // side by breadth-first search. deadEnd(from, to, goal) may only say yes when that side is cut
  // off from `from`, is a tree, holds no rectangle with a special edge and not the goal; and it
  // must say yes whenever that holds and `from`'s side is not such a tree itself (then the peel
  // cannot have reached `from` first).
  int pruned = 0, sides = 0;
  for (int trial = 0; trial < 40; ++trial) {
    std::mt19937 rng(500 + trial);
    const int size = 8 + trial % 13;
    LayeredBuilder b(size, size);
    b.addRandomFloors(rng);
    LayeredGraph g = b.build();
    if (g.nodeCount() < 2) continue;
    std::uniform_int_distribution<uint32_t> pick(0, uint32_t(g.nodeCount() - 1));
    for (int k = 0; trial % 2 == 1 && k < 8; ++k) LayeredBuilder::addLink(g, pick(rng), pick(rng), 2.0f);
    LayeredBuilder::computeComponents(g);
    const LayeredSearchGraph view(g, defaultAgent());
    const CorridorIndex& index = view.corridor();
    const uint32_t rects = uint32_t(index.rectCount());
    std::vector<std::vector<uint32_t>> links(rects);
    std::vector<bool> special(rects, false);
    for (uint32_t r = 0; r < rects; ++r)
      for (const CorridorEdge& e : index.edgesOf(r)) {
        if (e.to_rect == r) continue;
        links[r].push_back(e.to_rect);
        links[e.to_rect].push_back(r);
        if (!e.portal) special[r] = special[e.to_rect] = true;
      }
    for (auto& l : links) {
      std::sort(l.begin(), l.end());
      l.erase(std::unique(l.begin(), l.end()), l.end());
    }
    // The side of `a` once link a-b is cut; whether it is a special-free tree.
    auto side = [&](uint32_t a, uint32_t b, std::vector<bool>& in, bool& tree) {
      in.assign(rects, false);
      std::vector<uint32_t> queue{a};
      in[a] = true;
      std::size_t link_ends = 0;
      tree = true;
      for (std::size_t head = 0; head < queue.size(); ++head) {
        const uint32_t r = queue[head];
        tree = tree && !special[r];
        for (uint32_t t : links[r]) {
          if ((r == a && t == b) || (r == b && t == a)) continue;
          ++link_ends;
          if (!in[t]) in[t] = true, queue.push_back(t);
        }
      }
      tree = tree && link_ends == 2 * (queue.size() - 1);
    };
    std::vector<bool> to_side, from_side;
    for (uint32_t from = 0; from < rects; ++from)
      for (uint32_t to : links[from]) {
        bool to_tree = false, from_tree = false;
        side(to, from, to_side, to_tree);
        side(from, to, from_side, from_tree);
        const bool cut = !to_side[from];
        sides += cut && to_tree ? 1 : 0;
        for (uint32_t goal = 0; goal < rects; ++goal) {
          const bool brute = cut && to_tree && !to_side[goal];
          const bool said = index.deadEnd(from, to, goal);
          INFO("trial " << trial << " from " << from << " to " << to << " goal " << goal);
          if (said) CHECK(brute);
          if (brute && !from_tree) CHECK(said);
          pruned += said ? 1 : 0;
        }
      }
  }
  CHECK(sides > 100);
  CHECK(pruned > 1000);
}
