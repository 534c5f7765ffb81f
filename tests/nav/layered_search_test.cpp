// Layered path search on small hand-built graphs: every failure reason, the component rejection,
// actions, areas, floors, Theta* and the waypoint pass.

#include <catch2/catch.hpp>

#include <random>

#include "layered_fixtures.h"
#include "strata/nav/layered_search.h"
#include "strata/nav/nav_queries.h"
#include "test_support.h"

using namespace strata;
using namespace strata::nav;
using strata::test::LayeredBuilder;

namespace {

PathResult run(const LayeredGraph& g, sim::Vec3 from, sim::Vec3 to, LayeredSearchSettings s = {}) {
  static const AgentSettings agent;
  SearchState state;
  return findLayeredPath(g, agent, from, to, s, state);
}

LayeredSearchSettings method(SearchMethod m) {
  LayeredSearchSettings s;
  s.method = m;
  return s;
}

}  // namespace

TEST_CASE("layered A*: straight run collapses to the exact endpoints", "[nav][layered]") {
  LayeredBuilder b(10, 3);
  b.fromAscii({"..........", "..........", ".........."});
  const auto g = b.build();
  const auto r = run(g, {0.3, 0, 1.5}, {9.6, 0, 1.5});
  REQUIRE(r.ok());
  REQUIRE(r.waypoints.size() == 2);
  CHECK(r.waypoints.front().position == sim::Vec3{0.3, 0, 1.5});
  CHECK(r.waypoints.back().position == sim::Vec3{9.6, 0, 1.5});
  CHECK(r.length == Approx(9.3));
  CHECK(r.cost == Approx(9.0));
  CHECK(r.expansions > 0);
}

TEST_CASE("layered search: endpoints on column borders need no leg to a column centre", "[nav][layered]") {
  // A point on the border between columns is as far from both centres and snaps to the lower
  // node id (nearestWalkable), whatever column columnX names for it: it still lies on its node's
  // column, so the route starts (and ends) straight at the exact point, for every method. (Round
  // coordinates on a 0.3 m or 1 m grid are such points: routes between them were a leg longer.)
  LayeredBuilder b(10, 4);
  b.fromAscii({"..........", "..........", "..........", ".........."});
  const auto g = b.build();
  struct Case {
    sim::Vec3 from, to;
  };
  const Case cases[] = {
      {{1.0, 0, 2.0}, {8.0, 0, 2.0}},  // both on column corners
      {{1.0, 0, 1.5}, {8.0, 0, 1.5}},  // on X borders
      {{1.5, 0, 2.0}, {8.5, 0, 2.0}},  // on Z borders
      {{2.0, 0, 1.0}, {7.0, 0, 3.0}},  // corners, a slanted line
  };
  for (const SearchMethod m : {SearchMethod::AStar, SearchMethod::Theta, SearchMethod::Direct, SearchMethod::Corridor,
                               SearchMethod::Interval}) {
    for (const Case& c : cases) {
      INFO("method " << static_cast<int>(m) << " from " << c.from.x << "," << c.from.z << " to " << c.to.x << "," << c.to.z);
      const auto r = run(g, c.from, c.to, method(m));
      REQUIRE(r.ok());
      CHECK(r.waypoints.front().position == c.from);
      CHECK(r.waypoints.back().position == c.to);
      const double straight = std::hypot(c.to.x - c.from.x, c.to.z - c.from.z);
      if (m != SearchMethod::AStar) {  // any-angle routes: the straight line itself
        CHECK(r.waypoints.size() == 2);
        CHECK(r.length == Approx(straight));
      } else if (c.from.z == c.to.z) {  // a grid route along a row: straight too
        CHECK(r.waypoints.size() == 2);
        CHECK(r.length == Approx(straight));
      }
    }
  }
  // A point off its snapped node's column keeps the leg to that column's centre: a start 0.3 m
  // past the grid's west edge snaps to column 0 (within max_horizontal 0.5).
  const auto off = run(g, {-0.3, 0, 1.5}, {5.5, 0, 1.5}, method(SearchMethod::Theta));
  REQUIRE(off.ok());
  REQUIRE(off.waypoints.size() >= 3);
  CHECK(off.waypoints[1].position.x == Approx(0.5));
}

TEST_CASE("layered search: legs from endpoints off their column centres stay in the line test's free space (oracle)",
          "[nav][layered][property]") {
  // The line test's model of where the agent may stand (LayeredSearchGraph::walkLine): column
  // centres joined by walk edges, and the squares between four column centres whose diagonal
  // walk edge exists. On a flat single floor built from ASCII that is: a point strictly inside
  // the square between four centres is free when the four columns are all floor, a point on the
  // line between two centres when both are. Every walking leg of every method's route, sampled,
  // must be free, except the leg from an exact endpoint to its own column's centre (the
  // request's point, wherever it is). An audit found the leg from an exact start 0.2 m off its
  // column centre cutting past a wall's end that the line from the centre clears.
  std::mt19937 rng(11);
  constexpr int kSide = 24;
  int legs_from_points = 0, routes = 0;
  for (int map = 0; map < 12; ++map) {
    std::vector<std::string> rows(kSide, std::string(kSide, '.'));
    std::uniform_int_distribution<int> cell(0, kSide - 1), len(1, 6), coin(0, 1);
    for (int k = 0; k < 14; ++k) {  // wall segments, along X or Z
      const int x0 = cell(rng), z0 = cell(rng), n = len(rng), along_x = coin(rng);
      for (int i = 0; i < n; ++i) {
        const int x = along_x ? x0 + i : x0, z = along_x ? z0 : z0 + i;
        if (x < kSide && z < kSide) rows[std::size_t(z)][std::size_t(x)] = '#';
      }
    }
    LayeredBuilder b(kSide, kSide);
    b.fromAscii(rows);
    const auto g = b.build();
    auto floorAt = [&](long x, long z) {
      return x >= 0 && z >= 0 && x < kSide && z < kSide && rows[std::size_t(z)][std::size_t(x)] == '.';
    };
    auto free = [&](double px, double pz) {
      const double u = px - 0.5, v = pz - 0.5;  // in column-centre coordinates
      const long i = long(std::floor(u)), j = long(std::floor(v));
      const double fu = u - double(i), fv = v - double(j);
      const bool on_u = fu < 1e-9 || fu > 1 - 1e-9, on_v = fv < 1e-9 || fv > 1 - 1e-9;
      const long ci = std::lround(u), cj = std::lround(v);
      if (on_u && on_v) return floorAt(ci, cj);
      if (on_u) return floorAt(ci, j) && floorAt(ci, j + 1);
      if (on_v) return floorAt(i, cj) && floorAt(i + 1, cj);
      return floorAt(i, j) && floorAt(i + 1, j) && floorAt(i, j + 1) && floorAt(i + 1, j + 1);
    };
    std::uniform_real_distribution<double> offset(0.02, 0.98);
    for (int q = 0; q < 40; ++q) {
      int sx, sz, gx, gz;
      do sx = cell(rng), sz = cell(rng);
      while (!floorAt(sx, sz));
      do gx = cell(rng), gz = cell(rng);
      while (!floorAt(gx, gz));
      const sim::Vec3 from{sx + offset(rng), 0, sz + offset(rng)}, to{gx + offset(rng), 0, gz + offset(rng)};
      const sim::Vec3 start_centre{sx + 0.5, 0, sz + 0.5}, goal_centre{gx + 0.5, 0, gz + 0.5};
      for (const SearchMethod m : {SearchMethod::AStar, SearchMethod::Theta, SearchMethod::Direct, SearchMethod::Corridor,
                                   SearchMethod::Interval}) {
        const auto r = run(g, from, to, method(m));
        if (!r.ok()) continue;
        ++routes;
        const auto& w = r.waypoints;
        REQUIRE(w.size() >= 2);
        for (std::size_t k = 1; k < w.size(); ++k) {
          const sim::Vec3 &a = w[k - 1].position, &c = w[k].position;
          if (k == 1 && c.x == start_centre.x && c.z == start_centre.z) continue;             // to the start's centre
          if (k + 1 == w.size() && a.x == goal_centre.x && a.z == goal_centre.z) continue;  // from the goal's centre
          legs_from_points += (k == 1) + (k + 1 == w.size());
          bool clear = true;
          for (int t = 0; t <= 400 && clear; ++t) {
            const double f = t / 400.0;
            clear = free(a.x + (c.x - a.x) * f, a.z + (c.z - a.z) * f);
          }
          INFO("map " << map << " method " << static_cast<int>(m) << " leg " << k << " from " << a.x << "," << a.z << " to "
                      << c.x << "," << c.z);
          CHECK(clear);
        }
      }
    }
  }
  CHECK(routes > 1500);
  CHECK(legs_from_points > 1000);  // most endpoints still go straight on
}

TEST_CASE("layered search: in a corridor one column wide an endpoint on the centre line goes straight on", "[nav][layered]") {
  // A review: a start between its column's centre and the next corner (on the line the route
  // walks from the centre) got the centre as a waypoint, so the route stepped back 0.075 m and
  // passed the start again; likewise a goal short of its centre. The leg from such a point is a
  // part of the leg from the centre.
  LayeredBuilder b(12, 3);
  b.fromAscii({"############", "............", "############"});
  const auto g = b.build();
  for (const SearchMethod m : {SearchMethod::AStar, SearchMethod::Theta, SearchMethod::Direct, SearchMethod::Corridor,
                               SearchMethod::Interval}) {
    for (const auto& [from, to] : {std::pair{sim::Vec3{2.7, 0, 1.5}, sim::Vec3{8.2, 0, 1.5}},
                                   {sim::Vec3{2.3, 0, 1.5}, sim::Vec3{8.8, 0, 1.5}}, {sim::Vec3{9.1, 0, 1.5}, sim::Vec3{2.05, 0, 1.5}}}) {
      INFO("method " << static_cast<int>(m) << " from " << from.x << " to " << to.x);
      const auto r = run(g, from, to, method(m));
      REQUIRE(r.ok());
      CHECK(r.waypoints.size() == 2);
      CHECK(r.length == Approx(std::fabs(to.x - from.x)));
    }
  }
}

TEST_CASE("layered search: a start equal to the goal is a route of two waypoints at that point", "[nav][layered]") {
  // As on grids: the exact start first and the exact goal last, even when they are one point
  // (docs/search.md, Results), with length and cost 0, for every method.
  LayeredBuilder b(6, 3);
  b.fromAscii({"......", "......", "......"});
  const auto g = b.build();
  const sim::Vec3 p{2.3, 0, 1.4};
  for (const SearchMethod m : {SearchMethod::AStar, SearchMethod::Theta, SearchMethod::Direct, SearchMethod::Corridor,
                               SearchMethod::Interval}) {
    INFO("method " << static_cast<int>(m));
    const auto r = run(g, p, p, method(m));
    REQUIRE(r.ok());
    REQUIRE(r.waypoints.size() == 2);
    CHECK(r.waypoints.front().position == p);
    CHECK(r.waypoints.back().position == p);
    CHECK(r.length == 0.0);
    CHECK(r.cost == 0.0);
  }
}

TEST_CASE("layered A*: corners are kept around a wall", "[nav][layered]") {
  // A wall (#) across x = 3 with an opening at z = 4 only.
  LayeredBuilder b(7, 5);
  b.fromAscii({"...#...", "...#...", "...#...", "...#...", "......."});
  const auto g = b.build();
  const auto r = run(g, {0.5, 0, 0.5}, {6.5, 0, 0.5});
  REQUIRE(r.ok());
  CHECK(r.waypoints.size() >= 4);
  for (const auto& w : r.waypoints) CHECK(w.action == MoveAction::Walk);
  // Every kept inner waypoint is a corner: no three consecutive ones are collinear.
  for (std::size_t i = 2; i < r.waypoints.size(); ++i) {
    const auto a = r.waypoints[i - 2].position, m = r.waypoints[i - 1].position, c = r.waypoints[i].position;
    const double cross = (m.x - a.x) * (c.z - m.z) - (m.z - a.z) * (c.x - m.x);
    CHECK(std::fabs(cross) > 1e-9);
  }
}

TEST_CASE("layered search: a spacing under the limit counts as the limit - nodePosition of no node is NaN", "[nav][layered]") {
  LayeredBuilder b(10, 1);
  b.fromAscii({".........."});
  const auto g = b.build();
  LayeredSearchSettings s;
  s.waypoint_spacing = 1e-7;  // validate() refuses it; the search no longer fills memory with points
  CHECK_FALSE(s.validate().ok());
  LayeredSearchSettings cast;  // a method out of the enum's range is refused too
  cast.method = static_cast<SearchMethod>(42);
  REQUIRE_FALSE(cast.validate().ok());
  CHECK(cast.validate().error().message == "method: 42 is not a SearchMethod");
  cast.method = SearchMethod::Interval;
  CHECK(cast.validate().ok());
  const auto r = run(g, {0.5, 0, 0.5}, {9.5, 0, 0.5}, s);
  REQUIRE(r.ok());
  CHECK(r.waypoints.size() == static_cast<std::size_t>(9.0 / kMinWaypointSpacing + 1.5));
  // A snap that found nothing gives kNoNode; its position is NaN, not a read out of bounds.
  const sim::Vec3 none = g.nodePosition(kNoNode);
  CHECK(std::isnan(none.x));
  CHECK(std::isnan(g.nodePosition(static_cast<uint32_t>(g.nodeCount())).y));
}

TEST_CASE("layered search: NoStartNode and NoGoalNode", "[nav][layered][failure]") {
  // Floors only in the left half; the right half is void.
  LayeredBuilder b(10, 2);
  b.fromAscii({".....#####", ".....#####"});
  const auto g = b.build();
  LayeredSearchSettings s;
  s.snap.max_horizontal = 1.0;
  CHECK(run(g, {9.5, 0, 0.5}, {0.5, 0, 0.5}, s).failure == PathFailure::NoStartNode);
  CHECK(run(g, {0.5, 0, 0.5}, {9.5, 0, 0.5}, s).failure == PathFailure::NoGoalNode);
  // Within the snap distance the endpoint lands on the nearest floor instead.
  s.snap.max_horizontal = 5.0;
  CHECK(run(g, {0.5, 0, 0.5}, {8.5, 0, 0.5}, s).ok());
  // A point far below every floor has no floor below it.
  s.snap.below = 1.0;
  CHECK(run(g, {0.5, -5, 0.5}, {3.5, 0, 0.5}, s).failure == PathFailure::NoStartNode);
}

TEST_CASE("layered search: a goal in another component is NoPath with zero expansions, ClosestNoPath on request", "[nav][layered][failure]") {
  // Two islands separated by void: different components.
  LayeredBuilder b(9, 3);
  b.fromAscii({"....#....", "....#....", "....#...."});
  const auto g = b.build();
  REQUIRE(g.component_count == 2);
  for (auto m : {SearchMethod::AStar, SearchMethod::Theta, SearchMethod::Corridor}) {
    auto s = method(m);
    auto r = run(g, {0.5, 0, 1.5}, {8.5, 0, 1.5}, s);
    CHECK(r.failure == PathFailure::NoPath);
    CHECK(r.expansions == 0);
    CHECK(r.waypoints.empty());
    // The closest route is wanted exactly when the goal cannot be reached: the search runs and
    // ends at the island's edge nearest to the goal.
    s.return_closest = true;
    r = run(g, {0.5, 0, 1.5}, {8.5, 0, 1.5}, s);
    CHECK(r.failure == PathFailure::ClosestNoPath);
    CHECK(r.expansions > 0);
    REQUIRE_FALSE(r.waypoints.empty());
    CHECK(r.waypoints.back().position.x == Approx(3.5));
  }
}

TEST_CASE("layered search: Theta*'s closest route to an unreachable goal is A*'s flood, straightened", "[nav][layered][failure]") {
  // An open island 16 x 9 and, past a void column, another: the goal is on the second, up and to
  // the right. Every method floods the start's island; Theta*'s closest route is A*'s flood
  // (same expansions, same closest node) made any-angle: one straight line where A* steps.
  LayeredBuilder b(19, 9);
  std::vector<std::string> rows(9, "................#..");
  b.fromAscii(rows);
  const auto g = b.build();
  REQUIRE(g.component_count == 2);
  LayeredSearchSettings astar = method(SearchMethod::AStar), theta = method(SearchMethod::Theta);
  astar.return_closest = theta.return_closest = true;
  const sim::Vec3 from{0.5, 0, 0.5}, to{18.5, 0, 8.5};
  const auto a = run(g, from, to, astar), t = run(g, from, to, theta);
  REQUIRE(a.failure == PathFailure::ClosestNoPath);
  REQUIRE(t.failure == PathFailure::ClosestNoPath);
  CHECK(t.expansions == a.expansions);
  REQUIRE(t.nodes.back() == a.nodes.back());
  CHECK(t.waypoints.back().position.x == Approx(15.5));
  CHECK(t.waypoints.back().position.z == Approx(8.5));
  // The closest node is in sight of the start: a straight line (start, end), shorter than A*'s
  // diagonal-then-straight steps.
  CHECK(t.waypoints.size() == 2);
  CHECK(t.length == Approx(std::hypot(15.0, 8.0)));
  CHECK(t.length < a.length - 0.5);
}

TEST_CASE("layered search: Theta*'s closest route round a wall is as short as Theta*'s route to that node", "[nav][layered][failure]") {
  // A floor 48 x 40 with a wall (no floor) from z = 6 to z = 39 at x = 14, and past a void
  // column at x = 40 an island holding the goal: the closest node is found by A*'s flood, and
  // its straightened route must be Theta*'s own route to that node (the A* chain's diagonal
  // runs tie with their lines: rounding kept corners in open floor).
  std::vector<std::string> rows;
  for (int z = 0; z < 40; ++z) {
    std::string row;
    for (int x = 0; x < 48; ++x) row += (x == 14 && z >= 6) || x == 40 ? '#' : '.';
    rows.push_back(row);
  }
  LayeredBuilder b(48, 40);
  b.fromAscii(rows);
  const auto g = b.build();
  REQUIRE(g.component_count == 2);
  LayeredSearchSettings theta = method(SearchMethod::Theta);
  for (const auto& [from, to] : std::vector<std::pair<sim::Vec3, sim::Vec3>>{
           {{2.5, 0, 30.5}, {45.5, 0, 30.5}}, {{0.5, 0, 39.5}, {44.5, 0, 20.5}}, {{5.5, 0, 12.5}, {47.5, 0, 39.5}}}) {
    theta.return_closest = true;
    const auto closest = run(g, from, to, theta);
    REQUIRE(closest.failure == PathFailure::ClosestNoPath);
    const sim::Vec3 end = g.nodePosition(closest.nodes.back());
    CHECK(end.x == Approx(39.5));
    theta.return_closest = false;
    const auto direct = run(g, from, end, theta);
    REQUIRE(direct.ok());
    CAPTURE(from.x, from.z, end.x, end.z, closest.waypoints.size(), direct.waypoints.size());
    CHECK(closest.length == Approx(direct.length).epsilon(1e-9));
  }
}

TEST_CASE("layered search: NoPath and ClosestNoPath when one-way edges lead away", "[nav][layered][failure]") {
  // A (x 0..2, floor 0) <-drop- B (x 3..5, floor 3) -drop-> C (x 6..8, floor 0); a one-way
  // link from island D (x 10..11) onto B. All one undirected component, and B is entered from D
  // (not a source), so no O(1) test can prove C unreachable from A: the search runs dry.
  LayeredBuilder b(12, 1);
  b.fromAscii({"...333...#.."});
  auto g = b.build();
  const uint32_t a_end = g.columnBegin(2, 0), b_west = g.columnBegin(3, 0), b_east = g.columnBegin(5, 0),
                 c_end = g.columnBegin(6, 0);
  LayeredBuilder::setEdge(g, b_west, 4, a_end, EdgeKind::Drop, 0.5);
  LayeredBuilder::setEdge(g, b_east, 0, c_end, EdgeKind::Drop, 0.5);
  LayeredBuilder::addLink(g, g.columnBegin(10, 0), g.columnBegin(4, 0), 3.0f);
  LayeredBuilder::computeComponents(g);
  REQUIRE(g.component_count == 1);
  const auto drop = run(g, {4.5, 3, 0.5}, {0.5, 0, 0.5});
  REQUIRE(drop.ok());
  bool has_drop = false;
  for (const auto& w : drop.waypoints) has_drop = has_drop || w.action == MoveAction::Drop;
  CHECK(has_drop);

  const auto none = run(g, {0.5, 0, 0.5}, {7.5, 0, 0.5});
  CHECK(none.failure == PathFailure::NoPath);
  CHECK(none.expansions == 3);

  LayeredSearchSettings s;
  s.return_closest = true;
  const auto closest = run(g, {0.5, 0, 0.5}, {7.5, 0, 0.5}, s);
  CHECK(closest.failure == PathFailure::ClosestNoPath);
  REQUIRE(closest.waypoints.size() >= 2);
  CHECK(closest.waypoints.front().position.x == Approx(0.5));
  CHECK(closest.waypoints.back().position.x == Approx(2.5));  // the foot of B, closest to the goal
  CHECK(closest.length == Approx(2.0));
}

TEST_CASE("layered search: one-way drops from a wall top do not join the rooms (O(1) rejection)", "[nav][layered][failure]") {
  // Two rooms split by a wall whose top (floor 2) drops into both: one undirected component,
  // yet the right room is unreachable from the left. Rejected with zero expansions.
  LayeredBuilder b(7, 1);
  b.fromAscii({"...2..."});
  auto g = b.build();
  const uint32_t top = g.columnBegin(3, 0);
  LayeredBuilder::setEdge(g, top, 4, g.columnBegin(2, 0), EdgeKind::Drop, 0.5);
  LayeredBuilder::setEdge(g, top, 0, g.columnBegin(4, 0), EdgeKind::Drop, 0.5);
  LayeredBuilder::computeComponents(g);
  REQUIRE(g.component_count == 1);
  const auto r = run(g, {0.5, 0, 0.5}, {6.5, 0, 0.5});
  CHECK(r.failure == PathFailure::NoPath);
  CHECK(r.expansions == 0);
  // From the wall top both rooms are reachable; back onto it nothing is.
  CHECK(run(g, {3.5, 2, 0.5}, {6.5, 0, 0.5}).ok());
  CHECK(run(g, {3.5, 2, 0.5}, {0.5, 0, 0.5}).ok());
  const auto up = run(g, {0.5, 0, 0.5}, {3.5, 2, 0.5});
  CHECK(up.failure == PathFailure::NoPath);
  CHECK(up.expansions == 0);
}

TEST_CASE("layered search: BudgetExhausted", "[nav][layered][failure]") {
  LayeredBuilder b(40, 40);
  for (int z = 0; z < 40; ++z)
    for (int x = 0; x < 40; ++x)
      if (!(x == 20 && z < 39)) b.addFloor(x, z, 0);  // a long wall forces a detour
  const auto g = b.build();
  LayeredSearchSettings s;
  s.limits.max_expansions = 50;
  const auto r = run(g, {10.5, 0, 0.5}, {30.5, 0, 0.5}, s);
  CHECK(r.failure == PathFailure::BudgetExhausted);
  CHECK(r.expansions == 50);
  s.return_closest = true;
  CHECK(run(g, {10.5, 0, 0.5}, {30.5, 0, 0.5}, s).failure == PathFailure::ClosestNoPath);
  s.limits.max_expansions = 0;  // unlimited
  CHECK(run(g, {10.5, 0, 0.5}, {30.5, 0, 0.5}, s).ok());
}

TEST_CASE("layered search: the horizontal limit gives NoPath without searching", "[nav][layered][failure]") {
  LayeredBuilder b(12, 1);
  b.fromAscii({"............"});
  const auto g = b.build();
  LayeredSearchSettings s;
  s.limits.max_horizontal_distance = 5;
  const auto r = run(g, {0.5, 0, 0.5}, {11.5, 0, 0.5}, s);
  CHECK(r.failure == PathFailure::NoPath);
  CHECK(r.expansions == 0);
  CHECK(run(g, {0.5, 0, 0.5}, {5.0, 0, 0.5}, s).ok());
  // An end with no floor near it is named as such, however far away it is (a point off the map:
  // wrong units or axes), before the limit.
  CHECK(run(g, {-700, 0, 0.5}, {11.5, 0, 0.5}, s).failure == PathFailure::NoStartNode);
  CHECK(run(g, {0.5, 0, 0.5}, {0.5, 0, 1e7}, s).failure == PathFailure::NoGoalNode);
  CHECK(LayeredSearchLimits{}.max_horizontal_distance == Approx(2048 * 0.28));
  CHECK(LayeredSearchLimits{}.max_expansions == 400000);
}

TEST_CASE("layered Direct: one line test, Blocked across a wall", "[nav][layered][failure]") {
  LayeredBuilder b(7, 5);
  b.fromAscii({"...#...", "...#...", ".......", ".......", "......."});
  const auto g = b.build();
  const auto blocked = run(g, {0.5, 0, 0.5}, {6.5, 0, 0.5}, method(SearchMethod::Direct));
  CHECK(blocked.failure == PathFailure::Blocked);
  CHECK(blocked.expansions == 0);
  const auto clear = run(g, {0.5, 0, 3.5}, {6.5, 0, 4.5}, method(SearchMethod::Direct));
  REQUIRE(clear.ok());
  CHECK(clear.waypoints.size() == 2);
}

TEST_CASE("layered search: a jump edge gives a jump waypoint and Theta* never cuts it", "[nav][layered]") {
  // Two platforms at 0 separated by a 2-column gap; a jump edge spans it.
  LayeredBuilder b(10, 3);
  b.fromAscii({"....##....", "....##....", "....##...."});
  auto g = b.build();
  const uint32_t take_off = g.columnBegin(3, 1), landing = g.columnBegin(6, 1);
  LayeredBuilder::setEdge(g, take_off, 0, landing, EdgeKind::Jump, 1.0);
  LayeredBuilder::computeComponents(g);
  for (auto m : {SearchMethod::AStar, SearchMethod::Theta}) {
    const auto r = run(g, {0.5, 0, 0.5}, {9.5, 0, 2.5}, method(m));
    REQUIRE(r.ok());
    std::size_t jump_index = 0;
    for (std::size_t i = 0; i < r.waypoints.size(); ++i)
      if (r.waypoints[i].action == MoveAction::Jump) jump_index = i;
    REQUIRE(jump_index > 0);
    CHECK(r.waypoints[jump_index].position.x == Approx(6.5));     // landing
    CHECK(r.waypoints[jump_index - 1].position.x == Approx(3.5)); // take-off
  }
}

TEST_CASE("layered search: a custom link is taken and kept", "[nav][layered]") {
  LayeredBuilder b(10, 1);
  b.fromAscii({"....##...."});
  auto g = b.build();
  LayeredBuilder::addLink(g, g.columnBegin(1, 0), g.columnBegin(8, 0), 2.0f);
  LayeredBuilder::computeComponents(g);
  const auto r = run(g, {0.5, 0, 0.5}, {9.5, 0, 0.5});
  REQUIRE(r.ok());
  REQUIRE(r.waypoints.size() == 4);
  CHECK(r.waypoints[1].position.x == Approx(1.5));
  CHECK(r.waypoints[2].action == MoveAction::Link);
  CHECK(r.waypoints[2].position.x == Approx(8.5));
  CHECK(r.cost == Approx(1 + 2 + 1));
}

TEST_CASE("layered search: stacked floors stay apart (road under a bridge)", "[nav][layered]") {
  // Road at 0 everywhere; a bridge deck at 4 over columns x 3..6 of row z 1, reachable only
  // from its own ramp-less ends via links (so the test isolates floor separation).
  LayeredBuilder b(10, 3);
  b.fromAscii({"..........", "..........", ".........."});
  for (int x = 3; x <= 6; ++x) b.addFloor(x, 1, 4);
  const auto g = b.build();
  const auto r = run(g, {0.5, 0, 1.5}, {9.5, 0, 1.5});
  REQUIRE(r.ok());
  for (const auto& w : r.waypoints) CHECK(w.position.y == Approx(0));
  for (NodeId n : r.nodes) CHECK(g.height[n] == Approx(0));
  // A start on the deck snaps to the deck (floor below), not to the road.
  const auto deck = run(g, {4.5, 4.1, 1.5}, {6.5, 4, 1.5});
  REQUIRE(deck.ok());
  for (NodeId n : deck.nodes) CHECK(g.height[n] == Approx(4));
}

TEST_CASE("layered search: area boundaries are kept and carry their area", "[nav][layered]") {
  LayeredBuilder b(9, 1);
  b.area_costs = {1.0f, 3.0f};
  b.fromAscii({"...aaa..."});
  const auto g = b.build();
  const auto r = run(g, {0.5, 0, 0.5}, {8.5, 0, 0.5});
  REQUIRE(r.ok());
  std::vector<uint16_t> areas;
  for (const auto& w : r.waypoints) areas.push_back(w.area);
  CHECK(areas == std::vector<uint16_t>{0, 0, 1, 1, 0, 0});
  CHECK(r.cost == Approx(2 + 3 * 3 + 3));
}

TEST_CASE("layered search: dear areas are avoided when a detour is cheaper", "[nav][layered]") {
  LayeredBuilder b(7, 3);
  b.area_costs = {1.0f, 10.0f};
  b.fromAscii({"...a...", "...a...", "......."});
  const auto g = b.build();
  for (auto m : {SearchMethod::AStar, SearchMethod::Theta}) {
    const auto r = run(g, {0.5, 0, 0.5}, {6.5, 0, 0.5}, method(m));
    REQUIRE(r.ok());
    for (NodeId n : r.nodes) CHECK(g.area[n] == 0);
  }
}

TEST_CASE("layered Theta*: any-angle path is shorter and never longer than A*", "[nav][layered]") {
  LayeredBuilder b(20, 12);
  std::vector<std::string> rows(12, std::string(20, '.'));
  for (int z = 0; z < 8; ++z) rows[z][10] = '#';
  b.fromAscii(rows);
  const auto g = b.build();
  const auto a = run(g, {0.5, 0, 0.5}, {19.5, 0, 1.5}, method(SearchMethod::AStar));
  const auto t = run(g, {0.5, 0, 0.5}, {19.5, 0, 1.5}, method(SearchMethod::Theta));
  REQUIRE(a.ok());
  REQUIRE(t.ok());
  CHECK(t.length <= a.length + 1e-9);
  CHECK(t.waypoints.size() <= a.waypoints.size());
  // Every Theta* leg is walkable in a straight line.
  const AgentSettings agent;
  const LayeredSearchGraph view(g, agent);
  for (std::size_t i = 1; i < t.nodes.size(); ++i) CHECK(view.walkLine(t.nodes[i - 1], t.nodes[i], false));
}

TEST_CASE("layered Theta*: a straight line hidden behind diagonal steps is still taken", "[nav][layered][theta]") {
  // Cells stepping diagonally: (0,0) (0,1) (1,1) (1,2) (2,2) (2,3). Every two-step shortcut is a
  // 45-degree line through a column corner, which the line test refuses, so Theta* never tried
  // the start's line to the goal and walked the staircase (1.5 m on a 0.3 m grid against the
  // line's 1.08; a hunt found it).
  // Since the line test also asks for room off the column centres (the diagonal walk edge of
  // every quadrant the line passes through), a one-column staircase has no straight line: the
  // agent's body would clip the walls beside it. The staircase is wider here, so
  // the line is walkable (a band five columns wide along it).
  std::vector<std::string> rows = {"...#####", "....####", "....####", ".....###", ".....###", "#.....##", "##.....#", "##.....#"};
  LayeredBuilder stairs(8, 8);
  stairs.fromAscii(rows);
  const auto g = stairs.build();
  const auto t = run(g, {0.5, 0, 0.5}, {3.5, 0, 5.5}, method(SearchMethod::Theta));
  const auto d = run(g, {0.5, 0, 0.5}, {3.5, 0, 5.5}, method(SearchMethod::Direct));
  REQUIRE(d.ok());
  REQUIRE(t.ok());
  CHECK(t.length == Approx(d.length));
  CHECK(t.cost == Approx(d.cost));
  CHECK(t.waypoints.size() == 2);
  const AgentSettings agent;
  const LayeredSearchGraph view(g, agent);
  for (std::size_t i = 1; i < t.nodes.size(); ++i) CHECK(view.walkLine(t.nodes[i - 1], t.nodes[i], false));
  // The one-column staircase: no straight line (Direct is Blocked), Theta* keeps to lines the
  // test passes, no longer than A*.
  LayeredBuilder narrow(6, 8);
  narrow.fromAscii({".#####", "..####", "#..###", "##.###", "######", "######", "######", "######"});
  const auto n = narrow.build();
  CHECK(run(n, {0.5, 0, 0.5}, {2.5, 0, 3.5}, method(SearchMethod::Direct)).failure == PathFailure::Blocked);
  const auto nt = run(n, {0.5, 0, 0.5}, {2.5, 0, 3.5}, method(SearchMethod::Theta));
  const auto na = run(n, {0.5, 0, 0.5}, {2.5, 0, 3.5});
  REQUIRE(nt.ok());
  REQUIRE(na.ok());
  CHECK(nt.length <= na.length + 1e-9);
  const LayeredSearchGraph narrow_view(n, agent);
  for (std::size_t i = 1; i < nt.nodes.size(); ++i) CHECK(narrow_view.walkLine(nt.nodes[i - 1], nt.nodes[i], false));
}

TEST_CASE("layered line test: a line that passes a wall's end closer than a column's centre is blocked", "[nav][layered]") {
  // The agent fits at column centres; between them, a line off the centres needs the room the
  // diagonal walk edges stand for. A wall stands in column 2 of rows 1 and 2: the line from
  // (0, 0) to (6, 1) stays in row 0 until x = 3 (every column it enters has a node and a walk
  // edge from the one before), but passes column (2, 0) above its centre, beside the wall's end,
  // where neither diagonal walk edge exists.
  LayeredBuilder b(7, 3);
  b.fromAscii({".......", "..#....", "..#...."});
  const auto g = b.build();
  const AgentSettings agent;
  const LayeredSearchGraph view(g, agent);
  const NodeId from = g.findNode(0, 0, 0, 0.1, 0.1), to = g.findNode(6, 1, 0, 0.1, 0.1), along = g.findNode(6, 0, 0, 0.1, 0.1);
  REQUIRE(from != kNoNode);
  REQUIRE(to != kNoNode);
  REQUIRE(along != kNoNode);
  CHECK_FALSE(view.walkLine(from, to, false));
  CHECK(view.walkLine(from, along, false));  // along the row beside the wall: at the centres
  std::vector<NodeId> nodes;
  CHECK_FALSE(view.lineNodes(from, to, nodes));
  // Past the wall's end (from x = 3 on) the same slope is clear.
  const NodeId past = g.findNode(3, 0, 0, 0.1, 0.1);
  REQUIRE(past != kNoNode);
  CHECK(view.walkLine(past, g.findNode(6, 1, 0, 0.1, 0.1), false));
}

TEST_CASE("layered Theta*: a shortcut costs the heights it climbs, so a ridge is walked round", "[nav][layered][theta]") {
  // A ridge 3 m high across rows 0..2 (1 m steps, walkable at step 1); rows 3..4 are flat.
  LayeredBuilder b(12, 5);
  b.step = 1.0;
  b.fromAscii({"001232100000", "001232100000", "001232100000", "............", "............"});
  const auto g = b.build();
  const AgentSettings agent;
  const LayeredSearchGraph view(g, agent);
  for (auto m : {SearchMethod::AStar, SearchMethod::Theta}) {
    const auto r = run(g, {0.5, 0, 1.5}, {11.5, 0, 1.5}, method(m));
    REQUIRE(r.ok());
    INFO(methodName(m));
    CHECK(r.cost < 11 + 3);  // over the ridge: 11 m plus half of 3 m up and 3 m down
    for (NodeId n : r.nodes) CHECK(g.height[n] == 0);
  }
  // Only the ridge: the straight line over it is the route, and it costs its climb.
  LayeredBuilder ridge(12, 3);
  ridge.step = 1.0;
  ridge.fromAscii({"001232100000", "001232100000", "001232100000"});
  const auto h = ridge.build();
  const auto t = run(h, {0.5, 0, 1.5}, {11.5, 0, 1.5}, method(SearchMethod::Theta));
  REQUIRE(t.ok());
  CHECK(t.cost == Approx(11 + 3));
  CHECK(t.cost == Approx(run(h, {0.5, 0, 1.5}, {11.5, 0, 1.5}, method(SearchMethod::AStar)).cost));
}

TEST_CASE("layered search: spaced waypoints stand on the ground under them, over a ridge too", "[nav][layered]") {
  LayeredBuilder ridge(12, 3);
  ridge.step = 1.0;
  ridge.fromAscii({"001232100000", "001232100000", "001232100000"});
  const auto g = ridge.build();
  for (auto m : {SearchMethod::Theta, SearchMethod::Direct, SearchMethod::Corridor}) {
    INFO(methodName(m));
    auto s = method(m);
    s.waypoint_spacing = 0.5;
    const auto r = run(g, {0.5, 0, 1.5}, {11.5, 0, 1.5}, s);
    REQUIRE(r.ok());
    REQUIRE(r.waypoints.size() >= 20);
    for (const auto& w : r.waypoints) {
      const int x = int(std::floor(w.position.x)), z = int(std::floor(w.position.z));
      INFO(w.position.x << "," << w.position.y << "," << w.position.z);
      CHECK(w.position.y == Approx(g.height[g.columnBegin(x, z)]));
    }
  }
}

TEST_CASE("layered Theta*: a shortcut keeps the area boundaries it crosses", "[nav][layered][theta]") {
  // An area as dear as the ground: Theta* may cut through it, but the boundaries stay waypoints.
  LayeredBuilder b(9, 3);
  b.area_costs = {1.0f, 1.0f};
  b.fromAscii({"...aaa...", "...aaa...", "...aaa..."});
  const auto g = b.build();
  const auto r = run(g, {0.5, 0, 0.5}, {8.5, 0, 2.5}, method(SearchMethod::Theta));
  REQUIRE(r.ok());
  std::vector<uint16_t> areas;
  for (const auto& w : r.waypoints) areas.push_back(w.area);
  INFO(areas.size());
  CHECK(std::count(areas.begin(), areas.end(), uint16_t{1}) >= 1);
  CHECK(areas.front() == 0);
  CHECK(areas.back() == 0);
  for (std::size_t i = 1; i < r.waypoints.size(); ++i) CHECK(r.waypoints[i].position.x >= r.waypoints[i - 1].position.x);
}

TEST_CASE("layered Theta*: the reported cost is what its segments cost walked, as direct costs them", "[nav][layered][theta]") {
  // A straight run through a strip of mud (cost 10, columns 8..11): Theta*'s g charged the plain
  // walk edge out of the mud at the ground's cost, so the half column of mud before the border
  // went at 1 (an audit read 50.875 where direct and A* read 52). Reported: direct's 12 + 4 * 10.
  LayeredBuilder b(21, 3);
  b.area_costs = {1.0f, 10.0f};
  b.fromAscii({"........aaaa.........", "........aaaa.........", "........aaaa........."});
  const auto g = b.build();
  for (const bool reverse : {false, true}) {
    sim::Vec3 from{2.5, 0, 1.5}, to{18.5, 0, 1.5};
    if (reverse) std::swap(from, to);
    const auto theta = run(g, from, to, method(SearchMethod::Theta));
    const auto direct = run(g, from, to, method(SearchMethod::Direct));
    const auto astar = run(g, from, to, method(SearchMethod::AStar));
    REQUIRE(theta.ok());
    REQUIRE(direct.ok());
    REQUIRE(astar.ok());
    CHECK(direct.cost == Approx(12 + 4 * 10.0));
    CHECK(theta.length == Approx(16));
    CHECK(theta.cost == Approx(direct.cost));
    CHECK(astar.cost == Approx(direct.cost));
  }
}

TEST_CASE("layered Theta*: never dearer than the A* route costed as Theta* costs routes", "[nav][layered][theta]") {
  // Patchy mud at cost 3 on a flat floor. Theta*'s g charged a plain walk edge at its
  // destination's cost and its shortcuts each area's share, so it could prefer a route dearer by
  // its own (reported) measure than A*'s: 2.190 against 2.048 for a 0.9 m request (an audit).
  // Every A* leg is a straight run of walk edges, which direct costs as Theta* does.
  std::mt19937 rng(57);
  int pairs = 0;
  for (int world = 0; world < 6; ++world) {
    std::vector<std::string> rows(16, std::string(16, '.'));
    for (auto& row : rows)
      for (char& c : row) c = std::uniform_real_distribution<double>(0, 1)(rng) < 0.35 ? 'a' : '.';
    LayeredBuilder b(16, 16);
    b.area_costs = {1.0f, 3.0f};
    b.fromAscii(rows);
    const auto g = b.build();
    std::uniform_int_distribution<int> cell(0, 15);
    for (int k = 0; k < 25; ++k) {
      const sim::Vec3 from{cell(rng) + 0.5, 0, cell(rng) + 0.5}, to{cell(rng) + 0.5, 0, cell(rng) + 0.5};
      const auto astar = run(g, from, to, method(SearchMethod::AStar));
      const auto theta = run(g, from, to, method(SearchMethod::Theta));
      REQUIRE(astar.ok() == theta.ok());
      if (!astar.ok()) continue;
      double shared = 0;
      for (std::size_t i = 1; i < astar.waypoints.size(); ++i) {
        const auto leg = run(g, astar.waypoints[i - 1].position, astar.waypoints[i].position, method(SearchMethod::Direct));
        REQUIRE(leg.ok());
        shared += leg.cost;
      }
      INFO("world " << world << " from (" << from.x << ", " << from.z << ") to (" << to.x << ", " << to.z << ")");
      CHECK(theta.cost <= shared * (1 + 1e-9));
      ++pairs;
    }
  }
  CHECK(pairs > 100);
}

TEST_CASE("layered search: waypoint spacing subdivides walking legs only", "[nav][layered]") {
  LayeredBuilder b(12, 1);
  b.fromAscii({"............"});
  const auto g = b.build();
  LayeredSearchSettings s;
  s.waypoint_spacing = 2.0;
  const auto r = run(g, {0.5, 0, 0.5}, {11.5, 0, 0.5}, s);
  REQUIRE(r.ok());
  CHECK(r.waypoints.size() == 7);  // 11 m in ceil(11 / 2) = 6 legs
  for (std::size_t i = 1; i < r.waypoints.size(); ++i)
    CHECK(r.waypoints[i].position.x - r.waypoints[i - 1].position.x <= 2.0 + 1e-9);
  CHECK(r.length == Approx(11));
  s.waypoint_spacing = 0.01;
  CHECK_FALSE(s.validate());
}

TEST_CASE("layered search: spaced points stand on the ground, from an endpoint off its column centre", "[nav][layered]") {
  // A flat-topped hill 3 m high, 30 columns long, 6 wide: up 0.3 m a column, flat, down. The
  // start lies at its column's corner, so the line from it and the walked line between column
  // centres cross different columns near it (an audit found spaced points 1-4 m in the air
  // there: the height blended between the leg's ends, 0 here, was kept).
  LayeredBuilder b(30, 6);
  auto ground = [](int x) { return 0.3f * float(std::min({x, 10, 29 - x})); };
  for (int z = 0; z < 6; ++z)
    for (int x = 0; x < 30; ++x) b.addFloor(x, z, ground(x));
  const auto g = b.build();
  for (const SearchMethod m : {SearchMethod::Direct, SearchMethod::Theta, SearchMethod::Corridor, SearchMethod::AStar}) {
    INFO("method " << methodName(m));
    auto s = method(m);
    s.waypoint_spacing = 0.5;
    const auto r = run(g, {0.02, 0, 0.03}, {29.5, 0, 5.9}, s);
    REQUIRE(r.ok());
    REQUIRE(r.waypoints.size() > 50);
    for (const Waypoint& w : r.waypoints) {
      INFO("waypoint " << w.position.x << ", " << w.position.y << ", " << w.position.z);
      CHECK(w.position.y == Approx(ground(int(std::floor(w.position.x)))).margin(1e-5));
    }
  }
}

TEST_CASE("layered search: spaced points after an area crossing stand on the ground under them", "[nav][layered]") {
  // A walkway over the ground (a floor at 0 in every column): level at 2 m, a hump up to 4 m and
  // down again, in area 1 from column 10 down. Walking toward -X the line enters area 1 on the
  // border x = 10 at column 10's 2.4 m; that crossing was looked up in column 11 (2.0 m), not
  // found, and the spaced points over the hump kept heights blended between 2.4 and 2.0 (an
  // audit found points 1.35 m in the air on the tower's stairs).
  const float walkway[16] = {2.0f, 2.4f, 2.8f, 3.2f, 3.6f, 4.0f, 4.0f, 3.6f, 3.2f, 2.8f, 2.4f, 2.0f, 2.0f, 2.0f, 2.0f, 2.0f};
  LayeredBuilder b(16, 3);
  b.area_costs = {1.0f, 1.0f};
  for (int z = 0; z < 3; ++z)
    for (int x = 0; x < 16; ++x) {
      b.addFloor(x, z, 0);
      b.addFloor(x, z, walkway[x], x <= 10 ? 1 : 0);
    }
  const auto g = b.build();
  for (const SearchMethod m : {SearchMethod::Direct, SearchMethod::Theta, SearchMethod::Corridor, SearchMethod::Interval}) {
    for (const bool reverse : {false, true}) {
      INFO("method " << methodName(m) << (reverse ? ", toward +X" : ", toward -X"));
      sim::Vec3 from{15.5, 2.1, 1.5}, to{0.5, 2.1, 1.5};
      if (reverse) std::swap(from, to);
      auto s = method(m);
      s.waypoint_spacing = 0.5;
      const auto r = run(g, from, to, s);
      REQUIRE(r.ok());
      REQUIRE(r.waypoints.size() >= 30);
      int crossings = 0;
      for (const Waypoint& w : r.waypoints) {
        INFO("waypoint " << w.position.x << ", " << w.position.y << ", " << w.position.z << " area " << w.area);
        // On the walkway of its column, or (a crossing, on a column border) of the column across.
        const int x = std::min(15, int(std::floor(w.position.x)));
        const bool border = w.position.x == std::floor(w.position.x) && x > 0;
        CHECK((std::fabs(w.position.y - walkway[x]) < 1e-5 || (border && std::fabs(w.position.y - walkway[x - 1]) < 1e-5)));
        crossings += border && std::fabs(w.position.x - 11.0) < 1e-9;
      }
      CHECK(crossings == 1);
    }
  }
}

TEST_CASE("layered search: area crossings of a leg from an exact endpoint lie on that leg, so it stays straight", "[nav][layered]") {
  // An open field crossed by strips of another area (as dear as the ground), endpoints off their
  // columns' centres: every method's route is the straight line between them. The crossings were
  // placed on the walked line between the column centres, up to half a cell beside the leg from
  // the exact point (an audit: a Direct route 0.14 m off its line, 1 cm longer than it).
  LayeredBuilder b(20, 16);
  b.area_costs = {1.0f, 1.0f};
  b.fromAscii(std::vector<std::string>(16, "......aaa...aa...a.."));
  const auto g = b.build();
  const std::vector<std::pair<sim::Vec3, sim::Vec3>> pairs = {
      {{1.8, 0, 1.3}, {18.2, 0, 14.7}}, {{18.9, 0, 2.35}, {1.1, 0, 9.65}}, {{3.3, 0, 13.8}, {18.6, 0, 1.45}}};
  for (const SearchMethod m : {SearchMethod::Direct, SearchMethod::Theta, SearchMethod::Corridor, SearchMethod::Interval}) {
    for (const auto& [from, to] : pairs) {
      INFO("method " << methodName(m) << " from " << from.x << "," << from.z << " to " << to.x << "," << to.z);
      const auto r = run(g, from, to, method(m));
      REQUIRE(r.ok());
      const double dx = to.x - from.x, dz = to.z - from.z, length = std::hypot(dx, dz);
      CHECK(r.length == Approx(length).epsilon(1e-12));
      int on_borders = 0;
      for (const Waypoint& w : r.waypoints) {
        INFO("waypoint " << w.position.x << ", " << w.position.z << " area " << w.area);
        CHECK(std::fabs(dx * (w.position.z - from.z) - dz * (w.position.x - from.x)) <= 1e-9 * length);
        on_borders += w.position.x == std::round(w.position.x) || w.position.z == std::round(w.position.z);
      }
      CHECK(on_borders == int(r.waypoints.size()) - 2);  // every waypoint but the ends is a crossing
      CHECK(r.waypoints.size() == 2 + 6);                // into and out of each strip
    }
  }
}

TEST_CASE("layered search: an area crossing on a leg nearly parallel to its border stays at the column it enters", "[nav][layered]") {
  // Column x = 1 is area 1 from z = 8 down. The leg runs from (0.5, 15.5) to the exact goal
  // (1.95, 1.5), the walked line to the goal's centre (1.5, 1.5): that one steps into area 1
  // across the border x = 1 at z = 8.5, the leg crosses x = 1 at z = 10.67, where both columns
  // are area 0. The crossing was slid along the border to z = 10.67, 1.7 m before area 1 begins
  // (an audit: on the tower a crossing onto the bridge lay 1.5 m down the ramp, 0.79 m in the
  // air). It now lies where the leg enters the column, on the border z = 9 of area 1.
  std::vector<std::string> rows(16, "....");
  for (int z = 0; z <= 8; ++z) rows[z][1] = 'a';
  LayeredBuilder b(4, 16);
  b.area_costs = {1.0f, 1.0f};
  b.fromAscii(rows);
  const auto g = b.build();
  const sim::Vec3 from{0.5, 0, 15.5}, to{1.95, 0, 1.5};
  for (const SearchMethod m : {SearchMethod::Direct, SearchMethod::Theta, SearchMethod::Corridor, SearchMethod::Interval}) {
    INFO("method " << methodName(m));
    const auto r = run(g, from, to, method(m));
    REQUIRE(r.ok());
    REQUIRE(r.waypoints.size() == 3);
    const Waypoint& w = r.waypoints[1];
    INFO("crossing " << w.position.x << ", " << w.position.z << " area " << w.area);
    CHECK(w.area == 1);
    // On the leg, on the border z = 9 of the first column of area 1 it enters.
    CHECK(std::fabs((to.x - from.x) * (w.position.z - from.z) - (to.z - from.z) * (w.position.x - from.x)) < 1e-9);
    CHECK(w.position.z == 9.0);
    CHECK(w.position.x > 1.0);
    CHECK(w.position.x < 2.0);
  }
}

TEST_CASE("layered search: the exact endpoints stand on their floor's surface under them, on a slope too", "[nav][layered]") {
  // A ramp rising 0.25 m a column toward +x (normals tilted to match): the first and last
  // waypoints take the ramp's height under the exact x/z, not the snapped column centre's (an
  // audit: endpoints 0.12 m off the ramp under them).
  LayeredBuilder b(8, 5);
  for (int z = 0; z < 5; ++z)
    for (int x = 0; x < 8; ++x) b.addFloor(x, z, 0.25f * float(x));
  auto g = b.build();
  LayeredBuilder::tiltAlongX(g, 0.25f);
  auto surface = [](double x) { return 0.25 * (x - 0.5); };
  for (const SearchMethod m : {SearchMethod::AStar, SearchMethod::Theta, SearchMethod::Direct, SearchMethod::Corridor, SearchMethod::Interval}) {
    for (const auto& [fx, tx] : std::vector<std::pair<double, double>>{{1.2, 6.9}, {6.1, 1.45}, {0.5, 7.5}}) {
      INFO("method " << methodName(m) << " from x " << fx << " to x " << tx);
      const auto r = run(g, {fx, surface(fx) + 0.05, 2.3}, {tx, surface(tx) + 0.05, 2.6}, method(m));
      REQUIRE(r.ok());
      CHECK(r.waypoints.front().position.y == Approx(surface(fx)).margin(1e-6));
      CHECK(r.waypoints.back().position.y == Approx(surface(tx)).margin(1e-6));
    }
  }
}

TEST_CASE("layered search: area crossings and spaced points stand on the surface under them, on a slope too", "[nav][layered]") {
  // A ramp rising 0.35 m a column toward +x (normals tilted to match: about 19 degrees) crossed
  // by strips of another area along z: every waypoint of every method, the crossings and the
  // spaced points among them, lies on the ramp under it. They took the centre height of the
  // node they enter or stand on, up to half a column's rise off the ramp (0.175 m here; 4-17 cm
  // on the 35-degree ramps of the samples).
  LayeredBuilder b(12, 10);
  b.area_costs = {1.0f, 1.0f};
  for (int z = 0; z < 10; ++z)
    for (int x = 0; x < 12; ++x) b.addFloor(x, z, 0.35f * float(x), (x == 3 || x == 4 || x == 8) ? 1 : 0);
  auto g = b.build();
  LayeredBuilder::tiltAlongX(g, 0.35f);
  auto surface = [](double x) { return 0.35 * (x - 0.5); };
  const std::vector<std::pair<sim::Vec3, sim::Vec3>> pairs = {
      {{0.7, 0, 0.6}, {11.3, 0, 9.2}}, {{11.5, 0, 1.5}, {0.5, 0, 8.5}}, {{0.2, 0, 5.1}, {11.9, 0, 4.4}}};
  for (const SearchMethod m : {SearchMethod::AStar, SearchMethod::Theta, SearchMethod::Direct, SearchMethod::Corridor, SearchMethod::Interval}) {
    for (const double spacing : {0.0, 0.4}) {
      for (const auto& [from, to] : pairs) {
        INFO("method " << methodName(m) << " spacing " << spacing << " from " << from.x << "," << from.z);
        auto s = method(m);
        s.waypoint_spacing = spacing;
        const auto r = run(g, {from.x, surface(from.x) + 0.05, from.z}, {to.x, surface(to.x) + 0.05, to.z}, s);
        REQUIRE(r.ok());
        int crossings = 0;
        for (std::size_t i = 1; i < r.waypoints.size(); ++i) crossings += r.waypoints[i].area != r.waypoints[i - 1].area;
        CHECK(crossings == 4);  // into and out of each strip
        if (spacing > 0) CHECK(r.waypoints.size() > 25);
        for (const Waypoint& w : r.waypoints) {
          INFO("waypoint " << w.position.x << ", " << w.position.y << ", " << w.position.z << " area " << w.area);
          CHECK(w.position.y == Approx(surface(w.position.x)).margin(1e-5));
        }
      }
    }
  }
}

TEST_CASE("layered waypoints: a long walking leg's area crossing replaces its end nodes as the boundary", "[nav][layered][theta]") {
  // A Theta*-like chain 0 -> 8 -> 15 along one row through a strip of area 1 (columns 6..11):
  // the crossings at x = 6 and x = 12 mark the boundaries; node 8, in line and in one area with
  // both crossings, was kept as well (three collinear waypoints of one area).
  LayeredBuilder b(16, 1);
  b.area_costs = {1.0f, 1.0f};
  b.fromAscii({"......aaaaaa...."});
  const auto g = b.build();
  const LayeredSearchGraph view(g, AgentSettings{});
  const std::vector<NodeId> chain{g.columnBegin(0, 0), g.columnBegin(8, 0), g.columnBegin(15, 0)};
  const std::vector<MoveAction> actions(3, MoveAction::Walk);
  const auto w = layeredWaypoints(view, chain, actions, {0.5, 0, 0.5}, {15.5, 0, 0.5}, 0);
  REQUIRE(w.size() == 4);
  CHECK(w[1].position.x == Approx(6.0));
  CHECK(w[1].area == 1);
  CHECK(w[2].position.x == Approx(12.0));
  CHECK(w[2].area == 0);
  // An A* chain of adjacent columns keeps both sides of each boundary.
  std::vector<NodeId> steps;
  for (int x = 0; x < 16; ++x) steps.push_back(g.columnBegin(x, 0));
  const auto v = layeredWaypoints(view, steps, std::vector<MoveAction>(16, MoveAction::Walk), {0.5, 0, 0.5}, {15.5, 0, 0.5}, 0);
  REQUIRE(v.size() == 6);
  CHECK(v[1].position.x == Approx(5.5));
  CHECK(v[2].position.x == Approx(6.5));
  CHECK(v[3].position.x == Approx(11.5));
  CHECK(v[4].position.x == Approx(12.5));
}

TEST_CASE("layered search: cost matches a Dijkstra flood on random graphs with slanted links", "[nav][layered][property]") {
  std::mt19937 rng(7);
  const AgentSettings agent;
  SearchState state;
  for (int trial = 0; trial < 20; ++trial) {
    LayeredBuilder b(14, 14);
    b.area_costs = {1.0f, 2.0f};
    std::uniform_int_distribution<int> cell(0, 9);
    for (int z = 0; z < 14; ++z)
      for (int x = 0; x < 14; ++x) {
        const int c = cell(rng);
        if (c == 0) continue;  // void
        b.addFloor(x, z, c == 1 ? 0.3f : 0.0f, c == 2 ? 1 : 0);
        if (c == 3) b.addFloor(x, z, 3.0f);  // an upper floor, separate
      }
    auto g = b.build();
    std::uniform_int_distribution<uint32_t> pick(0, uint32_t(g.nodeCount() - 1));
    // Links at any slant, costing their straight length (a profile link's default) or less: a
    // slanted link spans more octile metres than straight ones, and A*'s octile heuristic
    // must stay below their cost.
    for (int l = 0; l < 3; ++l) {
      const NodeId from = pick(rng), to = pick(rng);
      const auto a = g.nodeColumn(from), c = g.nodeColumn(to);
      const double straight = std::hypot(double(a[0]) - c[0], double(a[1]) - c[1]) * g.grid.cell_size;
      LayeredBuilder::addLink(g, from, to, float(straight * (l == 2 ? 0.5 : 1.0)));
    }
    LayeredBuilder::computeComponents(g);
    const LayeredSearchGraph view(g, agent);
    for (int q = 0; q < 10; ++q) {
      const NodeId from = pick(rng), to = pick(rng);
      const auto flood = floodDistanceField(view, from, std::numeric_limits<double>::infinity());
      LayeredSearchSettings s;
      s.snap.max_horizontal = 0;
      s.snap.above = 0.01;
      s.snap.below = 0.01;
      const auto r = findLayeredPath(view, g.nodePosition(from), g.nodePosition(to), s, state);
      if (std::isinf(flood[to])) {
        CHECK(r.failure == PathFailure::NoPath);
      } else {
        REQUIRE(r.ok());
        CHECK(r.cost == Approx(flood[to]).epsilon(1e-5));
        CHECK(r.nodes.front() == from);
        CHECK(r.nodes.back() == to);
      }
    }
  }
}
