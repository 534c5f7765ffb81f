// Property tests of the search core against a brute-force Dijkstra oracle on random grids:
// plain A*, jump point search and the oracle agree on every length; Theta* is never longer
// and every Theta* segment passes lineOfSight; reusing one SearchState changes nothing.

#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <random>

#include "four_ary_heap.h"
#include "grid_fixtures.h"

using namespace strata;
using namespace strata::nav;
using namespace strata::nav::test;

namespace {

std::vector<std::string> randomRows(std::mt19937& rng, int w, int d, double blocked, bool heights) {
  std::uniform_real_distribution<double> u(0, 1);
  std::uniform_int_distribution<int> h(0, 3);
  std::vector<std::string> rows(std::size_t(d), std::string(std::size_t(w), '.'));
  for (auto& row : rows)
    for (char& c : row) c = u(rng) < blocked ? '#' : (heights ? char('0' + h(rng)) : '.');
  return rows;
}

}  // namespace

TEST_CASE("search property: astar, jump points and Dijkstra agree - theta never longer", "[nav][search][property]") {
  std::mt19937 rng(20261129);
  SearchState state;
  int routes = 0;
  for (int trial = 0; trial < 150; ++trial) {
    const double density = 0.1 + 0.3 * (trial % 4) / 3.0;
    Grid grid = ascii(randomRows(rng, 24, 18, density, false));
    grid.rasterizeAll();  // the jump point fast path needs a fully known grid
    std::uniform_int_distribution<int> ux(0, 23), uz(0, 17);
    for (int q = 0; q < 4; ++q) {
      const CellCoord a{ux(rng), uz(rng)}, b{ux(rng), uz(rng)};
      if (!grid.isWalkable(a.x, a.z) || !grid.isWalkable(b.x, b.z)) continue;
      const double oracle = dijkstraOracle(grid, a, b);
      GridPathRequest request;
      request.method = SearchMethod::AStar;
      request.start = at(a.x, a.z);
      request.goal = at(b.x, b.z);
      request.max_expansions = 0;
      const PathResult fast = findGridPath(grid, request, state);
      request.use_jump_points = false;
      const PathResult plain = findGridPath(grid, request, state);
      request.method = SearchMethod::Theta;
      const PathResult theta = findGridPath(grid, request, state);
      INFO("trial " << trial << " from " << a.x << "," << a.z << " to " << b.x << "," << b.z);
      if (oracle < 0) {
        CHECK(fast.failure == PathFailure::NoPath);
        CHECK(plain.failure == PathFailure::NoPath);
        CHECK(theta.failure == PathFailure::NoPath);
        continue;
      }
      ++routes;
      REQUIRE(fast.ok());
      REQUIRE(plain.ok());
      REQUIRE(theta.ok());
      CHECK(fast.cost == Approx(oracle).epsilon(1e-12));
      CHECK(plain.cost == Approx(oracle).epsilon(1e-12));
      CHECK(theta.cost <= oracle + 1e-9);
      // The fast path returns every cell, each adjacent to the next.
      for (std::size_t i = 1; i < fast.nodes.size(); ++i) {
        const CellCoord p = grid.coord(fast.nodes[i - 1]), n = grid.coord(fast.nodes[i]);
        CHECK(std::max(std::abs(p.x - n.x), std::abs(p.z - n.z)) == 1);
      }
      for (std::size_t i = 1; i < theta.nodes.size(); ++i) {
        const CellCoord p = grid.coord(theta.nodes[i - 1]), n = grid.coord(theta.nodes[i]);
        CHECK(grid.lineOfSight(p.x, p.z, n.x, n.z));
      }
      // Direct succeeds exactly when the straight line is walkable.
      request.method = SearchMethod::Direct;
      CHECK(findGridPath(grid, request, state).ok() == grid.lineOfSight(a.x, a.z, b.x, b.z));
    }
  }
  CHECK(routes > 200);
}

TEST_CASE("search property: with heights, astar matches the oracle and theta obeys the step rules", "[nav][search][property]") {
  std::mt19937 rng(7);
  SearchState state;
  for (int trial = 0; trial < 60; ++trial) {
    Grid grid = ascii(randomRows(rng, 16, 12, 0.15, true));
    std::uniform_int_distribution<int> ux(0, 15), uz(0, 11);
    const CellCoord a{ux(rng), uz(rng)}, b{ux(rng), uz(rng)};
    if (!grid.isWalkable(a.x, a.z) || !grid.isWalkable(b.x, b.z)) continue;
    const double oracle = dijkstraOracle(grid, a, b);
    const PathResult astar = route(grid, SearchMethod::AStar, at(a.x, a.z), at(b.x, b.z), 0);
    const PathResult theta = route(grid, SearchMethod::Theta, at(a.x, a.z), at(b.x, b.z), 0);
    if (oracle < 0) {
      CHECK(astar.failure == PathFailure::NoPath);
      CHECK(theta.failure == PathFailure::NoPath);
      continue;
    }
    REQUIRE(astar.ok());
    CHECK(astar.cost == Approx(oracle).epsilon(1e-12));
    REQUIRE(theta.ok());
    for (std::size_t i = 1; i < theta.nodes.size(); ++i) {
      const CellCoord p = grid.coord(theta.nodes[i - 1]), n = grid.coord(theta.nodes[i]);
      CHECK(grid.lineOfSight(p.x, p.z, n.x, n.z));
    }
  }
}

TEST_CASE("search state: a reused state gives the same answers as fresh ones", "[nav][search]") {
  Grid grid = ascii({
      "..........",
      ".####.###.",
      "....#.....",
      "###.#.###.",
      "..........",
  });
  SearchState shared;
  for (int round = 0; round < 3; ++round)
    for (int x = 0; x < 10; ++x) {
      GridPathRequest request;
      request.method = round == 1 ? SearchMethod::Theta : SearchMethod::AStar;
      request.start = at(0, 0);
      request.goal = at(x, 4);
      SearchState fresh;
      const PathResult a = findGridPath(grid, request, shared);
      const PathResult b = findGridPath(grid, request, fresh);
      CHECK(a.failure == b.failure);
      CHECK(a.cost == b.cost);
      CHECK(a.nodes == b.nodes);
    }
}

// The open set (SearchState::push / pop): whatever the order of pushes, every pop returns an
// entry of the smallest f among those in the set (f as the set keeps it: rounded to float32, so
// that routes tying in length tie in f too), including pushes below the f popped last (a
// heuristic that is not consistent, e.g. Theta*'s shortcuts), against a brute-force list; f
// spans many magnitudes so that every radix bucket is used.
TEST_CASE("search state: the open set pops a smallest f every time", "[nav][search][property]") {
  std::mt19937 rng(20261130);
  for (int trial = 0; trial < 200; ++trial) {
    SearchState state;
    state.begin(1000);
    std::vector<std::pair<double, double>> oracle;  // (f, g) of every entry in the set
    std::uniform_int_distribution<int> op(0, 2), small(0, 6), node(0, 999);
    double last_f = 0;
    int popped = 0;
    for (int step = 0; step < 400; ++step) {
      if (op(rng) != 0 || oracle.empty()) {
        // Mostly pushes at or above the f popped last; some anywhere (even below); some far
        // above, at magnitudes from 1e-3 to 1e6.
        double f = (small(rng) < 5 ? last_f : 0.0) + 0.5 * small(rng);
        if (small(rng) == 0) f = last_f + std::ldexp(1.0 + 0.1 * small(rng), small(rng) * 5 - 10);
        const double g = std::min(f, 0.25 * small(rng));
        state.push({f, g, NodeId(node(rng))});
        oracle.push_back({double(float(f)), g});
        continue;
      }
      REQUIRE_FALSE(state.heapEmpty());
      const SearchState::HeapEntry top = state.pop();
      const double f = std::bit_cast<double>(top.f_order);
      const double g = double(std::bit_cast<float>(~top.g_order));
      double min_f = oracle.front().first;
      for (const auto& e : oracle) min_f = std::min(min_f, e.first);
      REQUIRE(f == min_f);
      const auto it = std::find_if(oracle.begin(), oracle.end(),
                                   [&](const auto& e) { return e.first == f && double(float(e.second)) == g; });
      REQUIRE(it != oracle.end());
      oracle.erase(it);
      last_f = f;
      ++popped;
    }
    while (!state.heapEmpty()) {
      const SearchState::HeapEntry top = state.pop();
      const double f = std::bit_cast<double>(top.f_order);
      double min_f = oracle.front().first;
      for (const auto& e : oracle) min_f = std::min(min_f, e.first);
      REQUIRE(f == min_f);
      oracle.erase(std::find_if(oracle.begin(), oracle.end(), [&](const auto& e) {
        return e.first == f && float(e.second) == std::bit_cast<float>(~top.g_order);
      }));
    }
    REQUIRE(oracle.empty());
    REQUIRE(popped > 0);
  }
}

TEST_CASE("search property: the corridor searches' 4-ary heap pops what a sorted list would", "[nav][search][property]") {
  // Entries ordered by key, ties by id (a total order, as the searches' entries are made
  // deterministic): every pop must be the least entry held, against a sorted vector as oracle,
  // over random interleavings of pushes and pops, with many equal keys.
  struct Item {
    float key;
    uint32_t id;
  };
  struct Later {
    bool operator()(const Item& a, const Item& b) const { return a.key != b.key ? a.key > b.key : a.id > b.id; }
  };
  std::mt19937 random(51);
  for (int round = 0; round < 200; ++round) {
    nav::FourAryHeap<Item, Later> heap;
    std::vector<Item> oracle;  // kept sorted, least last
    const int keys = 1 + round % 17;  // few distinct keys: ties
    uint32_t next_id = 0;
    for (int step = 0; step < 600; ++step) {
      if (oracle.empty() || random() % 3 != 0) {
        const Item item{static_cast<float>(random() % static_cast<unsigned>(keys)) * 0.5f, next_id++};
        heap.push(item);
        oracle.insert(std::upper_bound(oracle.begin(), oracle.end(), item, [](const Item& a, const Item& b) { return Later{}(a, b); }), item);
      } else {
        const Item got = heap.pop();
        const Item want = oracle.back();
        oracle.pop_back();
        REQUIRE(got.key == want.key);
        REQUIRE(got.id == want.id);
      }
      REQUIRE(heap.empty() == oracle.empty());
    }
    while (!oracle.empty()) {
      const Item got = heap.pop();
      REQUIRE(got.id == oracle.back().id);
      oracle.pop_back();
    }
    CHECK(heap.empty());
  }
}
