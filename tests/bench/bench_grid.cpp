// Grid search benchmark: mean time per Moving AI query, Strata's `astar` (jump point search on
// these uniform grids) and `theta` against Boost Graph's astar_search on the same grid, with the
// same octile heuristic and the same scenarios, in the same run.
//
// Each benchmark runs a fixed sample of every map's scenarios (every k-th line, at most 256, so
// every difficulty bucket is represented), one query per iteration, and checks every answer:
// the `wrong` counter must be 0 (astar and Boost: equal to the .scen optimal length; theta: never
// longer). Run:
//   cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRATA_BUILD_BENCH=ON
//   cmake --build build-bench --target bench_grid
//   build-bench/tests/bench/bench_grid --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// The maps are the shared data's movingai/ set; STRATA_BENCH_MOVINGAI=DIR runs every NAME.map of
// DIR that has a NAME.map.scen beside it instead (other Moving AI benchmark maps).

#include <benchmark/benchmark.h>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/astar_search.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "strata/nav/grid_search.h"
#include "strata/nav/movingai.h"

namespace {

using namespace strata;
using namespace strata::nav;

constexpr std::size_t kMaxSample = 256;
constexpr double kSqrt2 = 1.4142135623730951;

struct MapData {
  std::string name;
  MovingAiMap map;
  std::vector<MovingAiScenario> sample;
};

// STRATA_BENCH_MOVINGAI when set and not empty: another directory of maps.
const char* customMapDirectory() {
  const char* dir = std::getenv("STRATA_BENCH_MOVINGAI");
  return dir != nullptr && *dir != 0 ? dir : nullptr;
}

// The directory of the maps: STRATA_BENCH_MOVINGAI, else the shared data's movingai/.
std::filesystem::path mapDirectory() {
  const char* dir = customMapDirectory();
  return dir != nullptr ? std::filesystem::path(dir) : std::filesystem::path(STRATA_SHARED_DATA) / "movingai";
}

// The shared set in its usual order; for another directory, every map with a .scen, by name.
std::vector<std::string> mapNames() {
  if (customMapDirectory() == nullptr) return {"arena", "den312d", "8room_000", "random512-10-0", "maze512-1-0"};
  std::vector<std::string> names;
  std::error_code error;
  std::filesystem::directory_iterator it(mapDirectory(), error);
  if (error) {
    std::fprintf(stderr, "bench_grid: %s: %s\n", mapDirectory().c_str(), error.message().c_str());
    std::exit(2);
  }
  for (const auto& entry : it) {
    const std::filesystem::path& path = entry.path();
    if (path.extension() == ".map" && std::filesystem::exists(path.string() + ".scen")) names.push_back(path.stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

MapData& mapData(const std::string& name) {
  static std::map<std::string, std::unique_ptr<MapData>> cache;
  auto& slot = cache[name];
  if (!slot) {
    const std::filesystem::path dir = mapDirectory();
    auto map = loadMovingAiMap(dir / (name + ".map"));
    auto scen = loadMovingAiScenarios(dir / (name + ".map.scen"));
    if (!map || !scen) {
      std::fprintf(stderr, "bench_grid: %s\n", (!map ? map.error() : scen.error()).message.c_str());
      std::exit(2);
    }
    slot = std::make_unique<MapData>();
    slot->name = name;
    slot->map = std::move(*map);
    const std::size_t step = std::max<std::size_t>(1, scen->size() / kMaxSample);
    for (std::size_t i = 0; i < scen->size() && slot->sample.size() < kMaxSample; i += step) slot->sample.push_back((*scen)[i]);
  }
  return *slot;
}

void runStrata(benchmark::State& state, const std::string& name, SearchMethod method) {
  MapData& data = mapData(name);
  auto grid = makeMovingAiGrid(data.map);
  SearchState search_state;
  std::size_t i = 0, wrong = 0;
  for (auto _ : state) {
    const MovingAiScenario& s = data.sample[i++ % data.sample.size()];
    GridPathRequest request;
    request.method = method;
    request.start = movingAiCellCenter(s.start_x, s.start_y);
    request.goal = movingAiCellCenter(s.goal_x, s.goal_y);
    request.max_expansions = 0;
    const PathResult r = findGridPath(*grid, request, search_state);
    benchmark::DoNotOptimize(r.cost);
    const bool ok = r.ok() && (method == SearchMethod::AStar ? movingAiLengthMatches(r.cost, s.optimal)
                                                             : r.cost <= s.optimal + std::max(1e-3, 1e-5 * s.optimal));
    if (!ok) ++wrong;
  }
  state.counters["wrong"] = double(wrong);
  state.counters["queries"] = double(data.sample.size());
}

// Boost Graph: the passable cells as vertices, 8-connected edges without corner cutting.
using BoostGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property,
                                         boost::property<boost::edge_weight_t, double>>;
using BoostVertex = boost::graph_traits<BoostGraph>::vertex_descriptor;

struct FoundGoal {};

class OctileHeuristic : public boost::astar_heuristic<BoostGraph, double> {
 public:
  OctileHeuristic(const std::vector<int>* xs, const std::vector<int>* ys, BoostVertex goal) : xs_(xs), ys_(ys), goal_(goal) {}
  double operator()(BoostVertex v) const {
    const int dx = std::abs((*xs_)[v] - (*xs_)[goal_]), dy = std::abs((*ys_)[v] - (*ys_)[goal_]);
    return dx > dy ? dx + (kSqrt2 - 1) * dy : dy + (kSqrt2 - 1) * dx;
  }

 private:
  const std::vector<int>* xs_;
  const std::vector<int>* ys_;
  BoostVertex goal_;
};

class GoalVisitor : public boost::default_astar_visitor {
 public:
  explicit GoalVisitor(BoostVertex goal) : goal_(goal) {}
  void examine_vertex(BoostVertex v, const BoostGraph&) const {
    if (v == goal_) throw FoundGoal{};
  }

 private:
  BoostVertex goal_;
};

void runBoost(benchmark::State& state, const std::string& name) {
  MapData& data = mapData(name);
  const MovingAiMap& m = data.map;
  std::vector<int> vertex_of(m.passable.size(), -1), xs, ys;
  for (int y = 0; y < m.height; ++y)
    for (int x = 0; x < m.width; ++x)
      if (m.passable[std::size_t(y) * m.width + x]) {
        vertex_of[std::size_t(y) * m.width + x] = int(xs.size());
        xs.push_back(x);
        ys.push_back(y);
      }
  BoostGraph graph(xs.size());
  auto open = [&](int x, int y) { return x >= 0 && y >= 0 && x < m.width && y < m.height && m.passable[std::size_t(y) * m.width + x]; };
  for (std::size_t v = 0; v < xs.size(); ++v)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        if (dx == 0 && dy == 0) continue;
        const int x = xs[v] + dx, y = ys[v] + dy;
        if (!open(x, y)) continue;
        if (dx != 0 && dy != 0 && (!open(xs[v] + dx, ys[v]) || !open(xs[v], ys[v] + dy))) continue;
        boost::add_edge(v, std::size_t(vertex_of[std::size_t(y) * m.width + x]), (dx != 0 && dy != 0) ? kSqrt2 : 1.0, graph);
      }
  std::vector<BoostVertex> predecessor(xs.size());
  std::vector<double> distance(xs.size());
  std::size_t i = 0, wrong = 0;
  for (auto _ : state) {
    const MovingAiScenario& s = data.sample[i++ % data.sample.size()];
    const auto start = BoostVertex(vertex_of[std::size_t(s.start_y) * m.width + s.start_x]);
    const auto goal = BoostVertex(vertex_of[std::size_t(s.goal_y) * m.width + s.goal_x]);
    try {
      boost::astar_search(graph, start, OctileHeuristic(&xs, &ys, goal),
                          boost::predecessor_map(boost::make_iterator_property_map(predecessor.begin(), boost::get(boost::vertex_index, graph)))
                              .distance_map(boost::make_iterator_property_map(distance.begin(), boost::get(boost::vertex_index, graph)))
                              .visitor(GoalVisitor(goal)));
    } catch (const FoundGoal&) {
    }
    benchmark::DoNotOptimize(distance[goal]);
    if (!movingAiLengthMatches(distance[goal], s.optimal)) ++wrong;
  }
  state.counters["wrong"] = double(wrong);
  state.counters["queries"] = double(data.sample.size());
}

const bool kRegistered = [] {
  for (const std::string& name : mapNames()) {
    const std::size_t n = mapData(name).sample.size();
    benchmark::RegisterBenchmark(("strata_astar/" + name).c_str(), [name](benchmark::State& s) { runStrata(s, name, SearchMethod::AStar); })
        ->Iterations(std::int64_t(n))->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("strata_theta/" + name).c_str(), [name](benchmark::State& s) { runStrata(s, name, SearchMethod::Theta); })
        ->Iterations(std::int64_t(n))->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("boost_astar/" + name).c_str(), [name](benchmark::State& s) { runBoost(s, name); })
        ->Iterations(std::int64_t(n))->Unit(benchmark::kMicrosecond);
  }
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
