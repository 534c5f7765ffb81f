// World file write and read throughput (formats::writeWorldFile / readWorldFile) on height-field
// terrains of side x side vertices: 2 (side-1)^2 triangles. Reports bytes of geometry per second
// and the file size, so compression ratio and speed are tracked together. The write includes the
// atomic-replacement steps (fsync, rename); run on a local disk.
//
//   build/tests/bench/bench_world_file --benchmark_counters_tabular=true

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "strata/formats/world_file.h"

namespace {

using namespace strata;

formats::World terrain(std::uint32_t side) {
  formats::World world;
  sim::TriangleMesh& m = world.geometry;
  for (std::uint32_t z = 0; z < side; ++z)
    for (std::uint32_t x = 0; x < side; ++x)
      m.vertices.push_back({0.5f * x, 0.25f * std::sin(0.37f * x) * std::cos(0.23f * z), 0.5f * z});
  m.labels = {"grass", "rock", "sand"};
  m.tags = {"/terrain"};
  for (std::uint32_t z = 0; z + 1 < side; ++z)
    for (std::uint32_t x = 0; x + 1 < side; ++x) {
      const std::uint32_t i = z * side + x;
      m.triangles.push_back({i, i + side, i + 1});
      m.triangles.push_back({i + 1, i + side, i + side + 1});
      m.triangle_labels.insert(m.triangle_labels.end(), {(x + z) % 3, (x + z + 1) % 3});
      m.triangle_tags.insert(m.triangle_tags.end(), {0, 0});
    }
  world.provenance.tool_version = "bench";
  return world;
}

std::filesystem::path benchPath() {
  return std::filesystem::temp_directory_path() / ("strata-bench-world-" + std::to_string(getpid()) + ".h5");
}

std::size_t geometryBytes(const formats::World& world) {
  const sim::TriangleMesh& m = world.geometry;
  return m.vertices.size() * 12 + m.triangles.size() * 20;
}

void BM_WriteWorld(benchmark::State& state) {
  const formats::World world = terrain(static_cast<std::uint32_t>(state.range(0)));
  const auto path = benchPath();
  for (auto _ : state) {
    if (!formats::writeWorldFile(path, world).ok()) state.SkipWithError("write failed");
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * geometryBytes(world)));
  state.counters["triangles"] = static_cast<double>(world.geometry.triangles.size());
  state.counters["file_MB"] = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
  state.counters["raw_MB"] = static_cast<double>(geometryBytes(world)) / 1e6;
  std::filesystem::remove(path);
}

void BM_ReadWorld(benchmark::State& state) {
  const formats::World world = terrain(static_cast<std::uint32_t>(state.range(0)));
  const auto path = benchPath();
  if (!formats::writeWorldFile(path, world).ok()) state.SkipWithError("write failed");
  for (auto _ : state) {
    auto read = formats::readWorldFile(path);
    if (!read.ok()) state.SkipWithError("read failed");
    benchmark::DoNotOptimize(read);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * geometryBytes(world)));
  state.counters["triangles"] = static_cast<double>(world.geometry.triangles.size());
  std::filesystem::remove(path);
}

BENCHMARK(BM_WriteWorld)->Arg(100)->Arg(1000)->Arg(2000)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ReadWorld)->Arg(100)->Arg(1000)->Arg(2000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
