// Mesh import throughput (formats::importMeshes) on the shared real meshes, sandboxed (the
// default: fork, limits, reply framing, re-validation) and in-process, against the peer:
// Assimp 5.2.5 alone with Triangulate | JoinIdenticalVertices | PreTransformVertices (what a
// plain Assimp loader does, without validation, node tags or isolation). Also the per-byte
// costs of the provenance hash (SHA-256) and the header pre-check.
//
//   build/tests/bench/bench_import --benchmark_counters_tabular=true

#include <assimp/Importer.hpp>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "import_precheck.h"
#include "sha256.h"
#include "strata/formats/import.h"

namespace {

using namespace strata;

struct MeshFile {
  const char* path;  // under meshes/
  double scale;
};

constexpr MeshFile kFiles[] = {
    {"real/game-maps-obj/pandora.obj", 0.05},          // 3.5 MB OBJ, 206 meshes
    {"real/godot-demo-projects/zdm2.glb", 1.0},        // 3.5 MB GLB, one mesh
    {"real/godot-demo-projects/town_model.gltf", 1.0}, // glTF + 2.5 MB .bin, 62 nodes
    {"real/converted/dungeon.ply", 1.0},               // binary PLY
    {"real/converted/nav_test.fbx", 1.0},              // ASCII FBX
};

std::filesystem::path meshPath(int index) {
  return std::filesystem::path(STRATA_SHARED_DATA) / "meshes" / kFiles[index].path;
}

std::uint64_t inputBytes(const std::filesystem::path& path) {
  std::uint64_t bytes = std::filesystem::file_size(path);
  if (path.extension() == ".gltf") bytes += std::filesystem::file_size(path.parent_path() / "town_model0.bin");
  return bytes;
}

void importBench(benchmark::State& state, bool in_process) {
  const auto path = meshPath(static_cast<int>(state.range(0)));
  formats::ImportOptions options;
  options.scale = kFiles[state.range(0)].scale;
  options.in_process = in_process;
  std::size_t triangles = 0;
  for (auto _ : state) {
    auto imported = formats::importMeshes({path}, options);
    if (!imported) {
      state.SkipWithError(imported.error().message.c_str());
      return;
    }
    triangles = imported->mesh.triangleCount();
    benchmark::DoNotOptimize(imported->mesh.vertices.data());
  }
  state.SetLabel(path.filename().string());
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * inputBytes(path)));
  state.counters["triangles"] = static_cast<double>(triangles);
  state.counters["tris/s"] = benchmark::Counter(static_cast<double>(triangles), benchmark::Counter::kIsIterationInvariantRate);
}

void BM_ImportSandboxed(benchmark::State& state) { importBench(state, false); }
void BM_ImportInProcess(benchmark::State& state) { importBench(state, true); }

// Peer: a plain Assimp load, no validation, no node tags, no isolation.
void BM_AssimpPreTransform(benchmark::State& state) {
  const auto path = meshPath(static_cast<int>(state.range(0)));
  std::size_t triangles = 0;
  for (auto _ : state) {
    Assimp::Importer importer;
    const aiScene* scene =
        importer.ReadFile(path.string(), aiProcess_Triangulate | aiProcess_JoinIdenticalVertices | aiProcess_PreTransformVertices);
    if (scene == nullptr) {
      state.SkipWithError(importer.GetErrorString());
      return;
    }
    triangles = 0;
    for (unsigned m = 0; m < scene->mNumMeshes; ++m) triangles += scene->mMeshes[m]->mNumFaces;
  }
  state.SetLabel(path.filename().string());
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * inputBytes(path)));
  state.counters["triangles"] = static_cast<double>(triangles);
}

std::vector<std::uint8_t> readAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void BM_Sha256(benchmark::State& state) {
  const auto bytes = readAll(meshPath(1));
  for (auto _ : state) benchmark::DoNotOptimize(formats::sha256Hex(bytes));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes.size()));
}

void BM_PrecheckGlb(benchmark::State& state) {
  const auto bytes = readAll(meshPath(1));
  for (auto _ : state) benchmark::DoNotOptimize(formats::precheckContent(formats::MeshFormat::Glb, bytes));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes.size()));
}

void BM_PrecheckObj(benchmark::State& state) {
  const auto bytes = readAll(meshPath(0));
  for (auto _ : state) benchmark::DoNotOptimize(formats::precheckContent(formats::MeshFormat::Obj, bytes));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes.size()));
}

}  // namespace

BENCHMARK(BM_ImportSandboxed)->DenseRange(0, 4)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ImportInProcess)->DenseRange(0, 4)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AssimpPreTransform)->DenseRange(0, 4)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Sha256)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PrecheckGlb)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PrecheckObj)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
