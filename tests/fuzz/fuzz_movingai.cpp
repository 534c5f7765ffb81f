// libFuzzer target: the Moving AI map and scenario readers, and grid search on the maps they
// read, against an oracle written here.
//
// Input: a `.map` text, optionally followed by a NUL byte and a `.scen` text. Text that does not
// read must be refused with a message. On a map that reads (up to 4,096 cells), for the
// scenarios when they read and fit the map (the first 16), else for four pairs of cells picked
// from a hash of the input (three of passable cells):
// - A* (jump point search, and the plain search core) costs what a Dijkstra flood written here
//   finds (8-connected, diagonal sqrt 2, no corner cutting), and fails the same way (StartBlocked,
//   GoalBlocked, NoPath) where the flood says so; the plain core's node chain is a chain of
//   legal moves from the start to the goal costing what it reports;
// - A* under an expansion budget answers the flood's cost or BudgetExhausted (never with a
//   budget of every cell);
// - Theta* (with and without jump points) is never longer than A*, its segments run from the
//   start to the goal and add up to its cost, and each of them, and Direct's line when it finds
//   one, stays out of every blocked cell and squeezes through no corner: a segment meets no
//   blocked cell's open square and, where it passes a cell corner, all four cells round it are
//   passable (tested exactly, in integers). The converse need not hold: the spec's line is a
//   Bresenham cell walk whose diagonal steps need both side cells open, which can refuse a line
//   that passes only one of them;
// - distanceField from the start equals the flood in every cell.
//
//   CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DSTRATA_FUZZ=ON -DSTRATA_BUILD_TESTS=OFF
//   cmake --build build-fuzz --target fuzz_movingai
//   mkdir -p /tmp/corpus && cp tests/fuzz/corpus/fuzz_movingai/* /tmp/corpus/   # new inputs go there
//   build-fuzz/tests/fuzz/fuzz_movingai -max_total_time=60 /tmp/corpus

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <queue>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "strata/nav/grid_search.h"
#include "strata/nav/movingai.h"

using namespace strata::nav;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Map {
  int width = 0, height = 0;
  const std::vector<std::uint8_t>* passable = nullptr;
  bool open(int x, int y) const {
    return x >= 0 && y >= 0 && x < width && y < height && (*passable)[static_cast<std::size_t>(y) * width + x] != 0;
  }
};

[[noreturn]] void fail(const char* what, int sx, int sy, int gx, int gy, double a = 0, double b = 0) {
  std::fprintf(stderr, "fuzz_movingai: %s: (%d,%d) -> (%d,%d): %.17g vs %.17g\n", what, sx, sy, gx, gy, a, b);
  std::abort();
}

// True when moving from (x, y) by (dx, dy), one of the 8 steps, is allowed.
bool legalStep(const Map& m, int x, int y, int dx, int dy) {
  if (!m.open(x, y) || !m.open(x + dx, y + dy)) return false;
  if (dx != 0 && dy != 0) return m.open(x + dx, y) && m.open(x, y + dy);
  return true;
}

std::vector<double> flood(const Map& m, int sx, int sy) {
  std::vector<double> dist(static_cast<std::size_t>(m.width) * m.height, kInf);
  if (!m.open(sx, sy)) return dist;
  using Entry = std::pair<double, int>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> open;
  dist[static_cast<std::size_t>(sy) * m.width + sx] = 0;
  open.push({0.0, sy * m.width + sx});
  while (!open.empty()) {
    const auto [d, cell] = open.top();
    open.pop();
    if (d > dist[static_cast<std::size_t>(cell)]) continue;
    const int x = cell % m.width, y = cell / m.width;
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        if ((dx == 0 && dy == 0) || !legalStep(m, x, y, dx, dy)) continue;
        const double nd = d + ((dx != 0 && dy != 0) ? std::sqrt(2.0) : 1.0);
        const auto next = static_cast<std::size_t>(y + dy) * m.width + (x + dx);
        if (nd < dist[next]) {
          dist[next] = nd;
          open.push({nd, static_cast<int>(next)});
        }
      }
  }
  return dist;
}

// The segment between the centres of cells a and b, in doubled coordinates (centres at odd
// integers, cell corners at even ones): true when it meets no blocked (or off-map) cell's open
// square and every cell corner it passes has four passable cells round it.
bool segmentClear(const Map& m, int ax, int ay, int bx, int by) {
  const std::int64_t x0 = 2 * ax + 1, y0 = 2 * ay + 1, x1 = 2 * bx + 1, y1 = 2 * by + 1;
  const std::int64_t dx = x1 - x0, dy = y1 - y0;
  const auto side = [&](std::int64_t px, std::int64_t py) { return dx * (py - y0) - dy * (px - x0); };
  const int lox = std::min(ax, bx) - 1, hix = std::max(ax, bx) + 1, loy = std::min(ay, by) - 1, hiy = std::max(ay, by) + 1;
  for (int cy = loy; cy <= hiy; ++cy)
    for (int cx = lox; cx <= hix; ++cx) {
      if (m.open(cx, cy)) continue;
      const std::int64_t sx0 = 2 * cx, sx1 = 2 * cx + 2, sy0 = 2 * cy, sy1 = 2 * cy + 2;
      if (std::max(x0, x1) <= sx0 || std::min(x0, x1) >= sx1 || std::max(y0, y1) <= sy0 || std::min(y0, y1) >= sy1) continue;
      const std::int64_t c[4] = {side(sx0, sy0), side(sx1, sy0), side(sx0, sy1), side(sx1, sy1)};
      bool all_le = true, all_ge = true;
      for (const std::int64_t v : c) all_le = all_le && v <= 0, all_ge = all_ge && v >= 0;
      if (!all_le && !all_ge) return false;  // the segment enters the blocked square
    }
  for (int ky = std::min(ay, by) + 1; ky <= std::max(ay, by); ++ky)
    for (int kx = std::min(ax, bx) + 1; kx <= std::max(ax, bx); ++kx) {
      if (side(2 * kx, 2 * ky) != 0) continue;  // the line misses this corner
      if (!m.open(kx - 1, ky - 1) || !m.open(kx, ky - 1) || !m.open(kx - 1, ky) || !m.open(kx, ky)) return false;
    }
  return true;
}

GridPathRequest request(SearchMethod method, int sx, int sy, int gx, int gy, bool jump_points) {
  GridPathRequest r;
  r.method = method;
  r.start = movingAiCellCenter(sx, sy);
  r.goal = movingAiCellCenter(gx, gy);
  r.max_expansions = 0;
  r.use_jump_points = jump_points;
  return r;
}

bool near(double a, double b) { return std::abs(a - b) <= 1e-9 * (1 + std::abs(b)); }

void checkPair(Grid& grid, const Map& m, SearchState& state, int sx, int sy, int gx, int gy) {
  const std::vector<double> dist = flood(m, sx, sy);
  const double best = m.open(sx, sy) ? dist[static_cast<std::size_t>(gy) * m.width + gx] : kInf;
  const PathFailure expected = !m.open(sx, sy)   ? PathFailure::StartBlocked
                               : !m.open(gx, gy) ? PathFailure::GoalBlocked
                               : best == kInf    ? PathFailure::NoPath
                                                 : PathFailure::None;
  for (const bool jump_points : {true, false}) {
    const PathResult astar = findGridPath(grid, request(SearchMethod::AStar, sx, sy, gx, gy, jump_points), state);
    if (astar.failure != expected) fail("astar fails otherwise than the flood says", sx, sy, gx, gy, double(astar.failure), double(expected));
    if (!astar.ok()) continue;
    if (!near(astar.cost, best)) fail("astar cost is not the flood's distance", sx, sy, gx, gy, astar.cost, best);
    if (astar.nodes.empty() || astar.nodes.front() != grid.key(sx, sy) || astar.nodes.back() != grid.key(gx, gy))
      fail("astar's node chain does not run from the start to the goal", sx, sy, gx, gy);
    if (!jump_points) {
      double sum = 0;
      for (std::size_t k = 1; k < astar.nodes.size(); ++k) {
        const CellCoord a = grid.coord(astar.nodes[k - 1]), b = grid.coord(astar.nodes[k]);
        const int ddx = b.x - a.x, ddy = b.z - a.z;
        if (std::abs(ddx) > 1 || std::abs(ddy) > 1 || (ddx == 0 && ddy == 0) || !legalStep(m, a.x, a.z, ddx, ddy))
          fail("astar's node chain takes an illegal step", sx, sy, gx, gy, a.x * 1000.0 + a.z, b.x * 1000.0 + b.z);
        sum += (ddx != 0 && ddy != 0) ? std::sqrt(2.0) : 1.0;
      }
      if (!near(sum, astar.cost)) fail("astar's node chain does not cost what it reports", sx, sy, gx, gy, sum, astar.cost);
    }
  }
  if (expected == PathFailure::None) {
    for (const bool jump_points : {false, true}) {
      const PathResult theta = findGridPath(grid, request(SearchMethod::Theta, sx, sy, gx, gy, jump_points), state);
      if (!theta.ok()) fail("theta finds no route where the flood does", sx, sy, gx, gy, double(theta.failure), best);
      if (theta.cost > best + 1e-9 * (1 + best)) fail("theta is longer than the shortest 8-connected route", sx, sy, gx, gy, theta.cost, best);
      if (theta.nodes.empty() || theta.nodes.front() != grid.key(sx, sy) || theta.nodes.back() != grid.key(gx, gy))
        fail("theta's node chain does not run from the start to the goal", sx, sy, gx, gy);
      double sum = 0;
      for (std::size_t k = 1; k < theta.nodes.size(); ++k) {
        const CellCoord a = grid.coord(theta.nodes[k - 1]), b = grid.coord(theta.nodes[k]);
        if (!segmentClear(m, a.x, a.z, b.x, b.z)) fail("a theta segment crosses a blocked cell or a corner", a.x, a.z, b.x, b.z);
        sum += std::hypot(double(b.x - a.x), double(b.z - a.z));
      }
      if (!near(sum, theta.cost)) fail("theta's segments do not add up to its cost", sx, sy, gx, gy, sum, theta.cost);
    }
    // Under an expansion budget A* answers the shortest route or BudgetExhausted, never NoPath;
    // with as many expansions as the map has cells it always answers.
    for (const std::int64_t budget : {std::int64_t(1), std::int64_t(7), std::int64_t(m.width) * m.height}) {
      GridPathRequest limited = request(SearchMethod::AStar, sx, sy, gx, gy, false);
      limited.max_expansions = budget;
      const PathResult r = findGridPath(grid, limited, state);
      if (r.ok() ? !near(r.cost, best) : r.failure != PathFailure::BudgetExhausted)
        fail("astar under a budget answers otherwise than the flood says", sx, sy, gx, gy, r.ok() ? r.cost : double(r.failure), best);
      if (!r.ok() && budget == std::int64_t(m.width) * m.height)
        fail("astar runs out of a budget of every cell", sx, sy, gx, gy, double(budget), best);
      if (!r.ok() && r.expansions > budget + 1)
        fail("astar expanded past its budget", sx, sy, gx, gy, double(r.expansions), double(budget));
    }
  }
  if (m.open(sx, sy) && m.open(gx, gy)) {
    const PathResult direct = findGridPath(grid, request(SearchMethod::Direct, sx, sy, gx, gy, false), state);
    if (direct.ok() && !segmentClear(m, sx, sy, gx, gy)) fail("direct's line crosses a blocked cell or a corner", sx, sy, gx, gy);
  }
  if (m.open(sx, sy)) {
    const auto field = distanceField(grid, movingAiCellCenter(sx, sy));
    if (!field) fail("no distance field from a passable cell", sx, sy, sx, sy);
    for (int y = 0; y < m.height; ++y)
      for (int x = 0; x < m.width; ++x) {
        const double want = dist[static_cast<std::size_t>(y) * m.width + x];
        const auto got = field->at(x, y);
        if (want == kInf ? got.has_value() : (!got || !near(*got, want)))
          fail("distanceField differs from the flood", sx, sy, x, y, got ? *got : kInf, want);
      }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  const std::string_view map_text = input.substr(0, nul);
  const auto map = parseMovingAiMap(map_text, "fuzz.map");
  std::vector<MovingAiScenario> scenarios;
  if (nul != std::string_view::npos) {
    auto parsed = parseMovingAiScenarios(input.substr(nul + 1), "fuzz.map.scen");
    if (!parsed.ok() && parsed.error().message.empty()) std::abort();
    if (parsed.ok()) scenarios = std::move(*parsed);
  }
  if (!map.ok()) {
    if (map.error().message.empty()) std::abort();
    return 0;
  }
  if (std::int64_t(map->width) * map->height > 4096) return 0;
  auto grid = makeMovingAiGrid(*map);
  if (!grid.ok()) std::abort();  // a map that reads makes a grid
  const Map m{map->width, map->height, &map->passable};
  SearchState state;
  if (!scenarios.empty() && checkScenarios(*map, scenarios, "fuzz.map.scen").ok()) {
    for (std::size_t i = 0; i < scenarios.size() && i < 16; ++i) {
      const MovingAiScenario& s = scenarios[i];
      checkPair(*grid, m, state, s.start_x, s.start_y, s.goal_x, s.goal_y);
    }
    return 0;
  }
  // Pairs of cells from a hash of the input (FNV-1a, then a linear congruential sequence).
  std::uint64_t h = 1469598103934665603ull;
  for (const char c : input) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  // Three pairs of passable cells, then one of any two cells.
  std::vector<std::uint64_t> passable;
  for (std::size_t i = 0; i < map->passable.size(); ++i)
    if (map->passable[i] != 0) passable.push_back(i);
  const auto cells = static_cast<std::uint64_t>(m.width) * static_cast<std::uint64_t>(m.height);
  const auto next = [&h](std::uint64_t n) {
    h = h * 6364136223846793005ull + 1442695040888963407ull;
    return (h >> 33) % n;
  };
  for (int k = 0; k < 4; ++k) {
    const bool any = k == 3 || passable.empty();
    const std::uint64_t a = any ? next(cells) : passable[next(passable.size())];
    const std::uint64_t b = any ? next(cells) : passable[next(passable.size())];
    checkPair(*grid, m, state, int(a % m.width), int(a / m.width), int(b % m.width), int(b / m.width));
  }
  return 0;
}
