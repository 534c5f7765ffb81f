// Bake benchmark: Strata's column bake against Recast's voxel pipeline on the same triangles.
//
// Per mesh (the Recast sample meshes and the real meshes of the shared data; Cube-engine maps at
// scale 0.05), at cell size 0.3 m:
//   BM_StrataBake/<mesh>/threads:N   nav::bakeWorld, default agent (radius 0.3, height 1.8,
//                                    max_slope 45, step 0.4), query index build included;
//                                    counters <stage>_ms: median wall time of the columns, edges,
//                                    clearance and components stages
//   BM_RecastVoxels/<mesh>           rcCreateHeightfield, rcMarkWalkableTriangles,
//                                    rcRasterizeTriangles, the three filters,
//                                    rcBuildCompactHeightfield, rcErodeWalkableArea,
//                                    rcBuildDistanceField, rcBuildRegions (cs 0.3, ch 0.2)
//   BM_BakeVsRecast/<mesh>           both, interleaved in one loop; counters give the medians of
//                                    each and the ratios recast / strata_1t and strata_1t / strata_2t
// Peak memory: `peak_rss_MB` (process high-water mark after the run) and `graph_MB` (the baked
// arrays). godot/town_model (a 2 km ground plane: 46 M columns at 0.3 m, about 8 GB and half a
// minute per bake) runs only with STRATA_BENCH_LARGE=1 set, and BM_BakeVsRecast then takes 3
// rounds on it. STRATA_BENCH_MESHES=PATH[@SCALE][,PATH[@SCALE]...] adds meshes of your own
// (any format `strata import` reads; a relative PATH is taken from the working directory), named
// extra/<file name>. Reproduce: see docs/performance.md, "Bake (issue 4)".

#include <Recast.h>
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "strata/formats/import.h"
#include "strata/nav/bake.h"

#include "bench_mesh_list.h"

namespace {

using namespace strata;

struct BenchMesh {
  std::string name;
  std::string path;  ///< relative to the shared data, unless `absolute`
  double scale;
  bool large = false;     ///< registered only with STRATA_BENCH_LARGE=1
  bool absolute = false;  ///< `path` as given (STRATA_BENCH_MESHES)
};

/// STRATA_BENCH_MESHES: comma-separated PATH[@SCALE] entries.
std::vector<BenchMesh> extraMeshes() {
  std::vector<BenchMesh> extra;
  for (const bench::ListedMesh& m : bench::listedMeshes("bench_bake")) {
    const std::string file = std::filesystem::path(m.path).filename().string();
    extra.push_back({"extra/" + file + m.suffix, m.path, m.scale, false, true});
  }
  return extra;
}

const std::vector<BenchMesh>& benchMeshes() {
  static const std::vector<BenchMesh> meshes{
      {"recast/dungeon", "meshes/recast/dungeon.obj", 1},
      {"recast/nav_test", "meshes/recast/nav_test.obj", 1},
      {"recast/undulating", "meshes/recast/undulating.obj", 1},
      {"godot/level_mesh", "meshes/real/godot-demo-projects/level_mesh.obj", 1},
      {"godot/zdm2", "meshes/real/godot-demo-projects/zdm2.glb", 1},
      {"cube/pandora@0.05", "meshes/real/game-maps-obj/pandora.obj", 0.05},
      {"cube/fdm6@0.05", "meshes/real/game-maps-obj/fdm6.obj", 0.05},
      {"cube/dutility@0.05", "meshes/real/game-maps-obj/dutility.obj", 0.05},
      {"godot/town_model", "meshes/real/godot-demo-projects/town_model.gltf", 1, true},
  };
  static const std::vector<BenchMesh> all = [] {
    std::vector<BenchMesh> list = meshes;
    for (BenchMesh& m : extraMeshes()) list.push_back(std::move(m));
    return list;
  }();
  return all;
}

const sim::TriangleMesh& loadMesh(const BenchMesh& m) {
  static std::map<std::string, sim::TriangleMesh> cache;
  auto it = cache.find(m.name);
  if (it != cache.end()) return it->second;
  formats::ImportOptions options;
  options.scale = m.scale;
  options.in_process = true;
  auto imported = formats::importMeshes({m.absolute ? m.path : std::string(STRATA_SHARED_DATA) + "/" + m.path}, options);
  if (!imported.ok()) {
    std::fprintf(stderr, "bench_bake: %s\n", imported.error().message.c_str());
    std::exit(1);
  }
  return cache.emplace(m.name, std::move(imported->mesh)).first->second;
}

constexpr double kCell = 0.3;

nav::BakeProfile benchProfile() {
  nav::BakeProfile profile = nav::BakeProfile::defaults();
  profile.agents[0].settings.cell_size = kCell;
  return profile;
}

double peakRssMegabytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

std::size_t graphBytes(const nav::LayeredGraph& g) {
  return g.column_offsets.size() * 4 + g.nodeCount() * (4 + 12 + 2 + 4 + 4 + 4 + 4 + 1) + g.neighbor.size() * 9;
}

nav::BakeResult strataBake(const sim::TriangleMesh& mesh, int threads) {
  nav::BakeOptions options;
  options.threads = threads;
  auto result = nav::bakeWorld(mesh, benchProfile(), options, "bench");
  if (!result.ok()) {
    std::fprintf(stderr, "bench_bake: %s\n", result.error().message.c_str());
    std::exit(1);
  }
  return std::move(*result);
}

/// Recast's voxel pipeline up to regions; returns the number of compact spans.
struct RecastInput {
  std::vector<float> vertices;
  std::vector<int> triangles;
  float bmin[3], bmax[3];
};

RecastInput recastInput(const sim::TriangleMesh& mesh) {
  RecastInput in;
  for (const auto& v : mesh.vertices) in.vertices.insert(in.vertices.end(), {v.x, v.y, v.z});
  for (const auto& t : mesh.triangles) in.triangles.insert(in.triangles.end(), {int(t[0]), int(t[1]), int(t[2])});
  const sim::Aabb b = mesh.bounds();
  in.bmin[0] = float(b.min.x), in.bmin[1] = float(b.min.y), in.bmin[2] = float(b.min.z);
  in.bmax[0] = float(b.max.x), in.bmax[1] = float(b.max.y), in.bmax[2] = float(b.max.z);
  return in;
}

int recastPipeline(const RecastInput& in) {
  rcContext ctx(false);
  const float cs = float(kCell), ch = 0.2f;
  const int walkable_height = int(std::ceil(1.8f / ch)), walkable_climb = int(std::floor(0.4f / ch));
  const int walkable_radius = int(std::ceil(0.3f / cs));
  int width = 0, height = 0;
  rcCalcGridSize(in.bmin, in.bmax, cs, &width, &height);
  rcHeightfield* solid = rcAllocHeightfield();
  if (!rcCreateHeightfield(&ctx, *solid, width, height, in.bmin, in.bmax, cs, ch)) std::abort();
  const int nt = int(in.triangles.size() / 3), nv = int(in.vertices.size() / 3);
  std::vector<unsigned char> areas(static_cast<std::size_t>(nt), 0);
  rcMarkWalkableTriangles(&ctx, 45.0f, in.vertices.data(), nv, in.triangles.data(), nt, areas.data());
  if (!rcRasterizeTriangles(&ctx, in.vertices.data(), nv, in.triangles.data(), areas.data(), nt, *solid, walkable_climb))
    std::abort();
  rcFilterLowHangingWalkableObstacles(&ctx, walkable_climb, *solid);
  rcFilterLedgeSpans(&ctx, walkable_height, walkable_climb, *solid);
  rcFilterWalkableLowHeightSpans(&ctx, walkable_height, *solid);
  rcCompactHeightfield* chf = rcAllocCompactHeightfield();
  if (!rcBuildCompactHeightfield(&ctx, walkable_height, walkable_climb, *solid, *chf)) std::abort();
  rcFreeHeightField(solid);
  if (!rcErodeWalkableArea(&ctx, walkable_radius, *chf)) std::abort();
  if (!rcBuildDistanceField(&ctx, *chf)) std::abort();
  if (!rcBuildRegions(&ctx, *chf, 0, 8 * 8, 20 * 20)) std::abort();
  const int spans = chf->spanCount;
  rcFreeCompactHeightfield(chf);
  return spans;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : (v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]));
}

void BM_StrataBake(benchmark::State& state, const BenchMesh& m, int threads) {
  const sim::TriangleMesh& mesh = loadMesh(m);
  std::size_t nodes = 0, bytes = 0;
  std::map<std::string, std::vector<double>> stages;  // per stage: wall ms of each iteration
  for (auto _ : state) {
    nav::BakeResult result = strataBake(mesh, threads);
    nodes = result.agents[0].graph.nodeCount();
    bytes = graphBytes(result.agents[0].graph);
    for (const nav::StageTiming& t : result.timings) stages[t.stage].push_back(t.milliseconds);
    benchmark::DoNotOptimize(result);
  }
  // Median wall time of each stage (`<stage>_ms`): where the time goes, and which stages scale.
  for (const auto& [stage, times] : stages)
    if (stage == "columns" || stage == "edges" || stage == "clearance" || stage == "components")
      state.counters[stage + "_ms"] = median(times);
  state.counters["nodes"] = double(nodes);
  state.counters["triangles"] = double(mesh.triangleCount());
  state.counters["graph_MB"] = double(bytes) / 1e6;
  state.counters["peak_rss_MB"] = peakRssMegabytes();
}

void BM_RecastVoxels(benchmark::State& state, const BenchMesh& m) {
  const RecastInput in = recastInput(loadMesh(m));
  int spans = 0;
  for (auto _ : state) benchmark::DoNotOptimize(spans = recastPipeline(in));
  state.counters["spans"] = double(spans);
  state.counters["peak_rss_MB"] = peakRssMegabytes();
}

void BM_BakeVsRecast(benchmark::State& state, const BenchMesh& m) {
  const sim::TriangleMesh& mesh = loadMesh(m);
  const RecastInput in = recastInput(mesh);
  using Clock = std::chrono::steady_clock;
  std::vector<double> strata1, strata2, recast;
  for (auto _ : state) {
    auto t0 = Clock::now();
    benchmark::DoNotOptimize(strataBake(mesh, 1));
    auto t1 = Clock::now();
    benchmark::DoNotOptimize(recastPipeline(in));
    auto t2 = Clock::now();
    benchmark::DoNotOptimize(strataBake(mesh, 2));
    auto t3 = Clock::now();
    strata1.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    recast.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
    strata2.push_back(std::chrono::duration<double, std::milli>(t3 - t2).count());
  }
  const double s1 = median(strata1), s2 = median(strata2), r = median(recast);
  state.counters["strata_1t_ms"] = s1;
  state.counters["strata_2t_ms"] = s2;
  state.counters["recast_ms"] = r;
  state.counters["recast_over_strata_1t"] = r / s1;  // target >= 3
  state.counters["speedup_2t"] = s1 / s2;             // target >= 1.7
}

const bool registered = [] {
  const bool large = std::getenv("STRATA_BENCH_LARGE") != nullptr && std::string(std::getenv("STRATA_BENCH_LARGE")) == "1";
  for (const BenchMesh& m : benchMeshes()) {
    if (m.large && !large) continue;
    for (int threads : {1, 2})
      benchmark::RegisterBenchmark(("BM_StrataBake/" + m.name + "/threads:" + std::to_string(threads)).c_str(),
                                   [m, threads](benchmark::State& s) { BM_StrataBake(s, m, threads); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    benchmark::RegisterBenchmark(("BM_RecastVoxels/" + m.name).c_str(), [m](benchmark::State& s) { BM_RecastVoxels(s, m); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("BM_BakeVsRecast/" + m.name).c_str(), [m](benchmark::State& s) { BM_BakeVsRecast(s, m); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->Iterations(m.large ? 3 : 5);
  }
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
