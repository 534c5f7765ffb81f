// Query index throughput against Bullet in the same run: closest-hit rays and capsule casts on the
// real meshes (the same rays and sweeps for both), and the index build time.
//
// Bullet: btCollisionWorld over a btBvhTriangleMeshShape of the same triangles; rays through
// rayTest (ClosestRayResultCallback), capsules through convexSweepTest (btCapsuleShape,
// ClosestConvexResultCallback). Single-threaded. Reproduce with the command in
// docs/performance.md ("Queries (issue 3)").

#include <benchmark/benchmark.h>
#include <btBulletCollisionCommon.h>

#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "strata/formats/import.h"
#include "strata/sim/query_index.h"

using namespace strata;

namespace {

constexpr int kQueries = 4096;

struct Scene {
  sim::TriangleMesh mesh;
  double scale = 1;
  sim::Aabb bounds;
  std::vector<sim::Vec3> ray_origins, ray_dirs;
  std::vector<sim::Vec3> cast_starts, cast_moves;
  double capsule_radius = 0, capsule_half = 0;
  std::unique_ptr<sim::QueryIndex> index;
  // Bullet
  std::vector<int> bt_indices;
  std::vector<btScalar> bt_vertices;
  std::unique_ptr<btTriangleIndexVertexArray> bt_array;
  std::unique_ptr<btBvhTriangleMeshShape> bt_shape;
  std::unique_ptr<btCollisionObject> bt_object;
  std::unique_ptr<btDefaultCollisionConfiguration> bt_config;
  std::unique_ptr<btCollisionDispatcher> bt_dispatcher;
  std::unique_ptr<btDbvtBroadphase> bt_broadphase;
  std::unique_ptr<btCollisionWorld> bt_world;
  std::unique_ptr<btCapsuleShape> bt_capsule;
};

std::filesystem::path meshPath(const std::string& name) {
  const std::filesystem::path data = STRATA_SHARED_DATA;
  if (name == "pandora" || name == "fdm6" || name == "dutility") return data / "meshes/real/game-maps-obj" / (name + ".obj");
  return data / "meshes/recast" / (name + ".obj");
}

Scene& scene(const std::string& name) {
  static std::map<std::string, std::unique_ptr<Scene>> scenes;
  auto& slot = scenes[name];
  if (slot) return *slot;
  slot = std::make_unique<Scene>();
  Scene& s = *slot;
  formats::ImportOptions options;
  options.in_process = true;
  auto imported = formats::importMeshes({meshPath(name)}, options);
  if (!imported) throw std::runtime_error(imported.error().message);
  s.mesh = std::move(imported.value().mesh);
  s.bounds = s.mesh.bounds();
  const sim::Vec3 e = s.bounds.extent();
  s.scale = std::max({e.x, e.y, e.z});
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> u01(0, 1);
  std::normal_distribution<double> n(0, 1);
  auto point = [&] {
    return sim::Vec3{s.bounds.min.x + e.x * u01(rng), s.bounds.min.y + e.y * u01(rng), s.bounds.min.z + e.z * u01(rng)};
  };
  auto unit = [&] { return sim::normalize(sim::Vec3{n(rng), n(rng), n(rng)}); };
  for (int i = 0; i < kQueries; ++i) {
    s.ray_origins.push_back(point());
    s.ray_dirs.push_back(unit());
    s.cast_starts.push_back(point());
    s.cast_moves.push_back(unit() * (0.05 * s.scale));
  }
  s.capsule_radius = 0.005 * s.scale;
  s.capsule_half = 0.01 * s.scale;
  s.index = std::make_unique<sim::QueryIndex>(s.mesh);

  for (const auto& v : s.mesh.vertices) {
    s.bt_vertices.push_back(v.x);
    s.bt_vertices.push_back(v.y);
    s.bt_vertices.push_back(v.z);
  }
  for (const auto& t : s.mesh.triangles)
    for (uint32_t i : t) s.bt_indices.push_back(static_cast<int>(i));
  btIndexedMesh indexed;
  indexed.m_numTriangles = static_cast<int>(s.mesh.triangles.size());
  indexed.m_triangleIndexBase = reinterpret_cast<const unsigned char*>(s.bt_indices.data());
  indexed.m_triangleIndexStride = 3 * sizeof(int);
  indexed.m_numVertices = static_cast<int>(s.mesh.vertices.size());
  indexed.m_vertexBase = reinterpret_cast<const unsigned char*>(s.bt_vertices.data());
  indexed.m_vertexStride = 3 * sizeof(btScalar);
  s.bt_array = std::make_unique<btTriangleIndexVertexArray>();
  s.bt_array->addIndexedMesh(indexed, PHY_INTEGER);
  s.bt_shape = std::make_unique<btBvhTriangleMeshShape>(s.bt_array.get(), true);
  s.bt_object = std::make_unique<btCollisionObject>();
  s.bt_object->setCollisionShape(s.bt_shape.get());
  s.bt_config = std::make_unique<btDefaultCollisionConfiguration>();
  s.bt_dispatcher = std::make_unique<btCollisionDispatcher>(s.bt_config.get());
  s.bt_broadphase = std::make_unique<btDbvtBroadphase>();
  s.bt_world = std::make_unique<btCollisionWorld>(s.bt_dispatcher.get(), s.bt_broadphase.get(), s.bt_config.get());
  s.bt_world->addCollisionObject(s.bt_object.get());
  s.bt_world->updateAabbs();
  s.bt_capsule = std::make_unique<btCapsuleShape>(static_cast<btScalar>(s.capsule_radius),
                                                  static_cast<btScalar>(2 * s.capsule_half));
  return s;
}

btVector3 bt(const sim::Vec3& v) {
  return btVector3(static_cast<btScalar>(v.x), static_cast<btScalar>(v.y), static_cast<btScalar>(v.z));
}

void StrataRay(benchmark::State& state, const std::string& name) {
  Scene& s = scene(name);
  std::size_t i = 0, hits = 0;
  for (auto _ : state) {
    const std::size_t k = i++ % kQueries;
    auto h = s.index->raycast(s.ray_origins[k], s.ray_dirs[k], s.scale);
    hits += h.has_value();
    benchmark::DoNotOptimize(h);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["hit_rate"] = double(hits) / double(state.iterations());
}

void BulletRay(benchmark::State& state, const std::string& name) {
  Scene& s = scene(name);
  std::size_t i = 0, hits = 0;
  for (auto _ : state) {
    const std::size_t k = i++ % kQueries;
    const btVector3 from = bt(s.ray_origins[k]), to = bt(s.ray_origins[k] + s.ray_dirs[k] * s.scale);
    btCollisionWorld::ClosestRayResultCallback cb(from, to);
    s.bt_world->rayTest(from, to, cb);
    hits += cb.hasHit();
    benchmark::DoNotOptimize(cb.m_closestHitFraction);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["hit_rate"] = double(hits) / double(state.iterations());
}

void StrataCapsule(benchmark::State& state, const std::string& name) {
  Scene& s = scene(name);
  std::size_t i = 0, hits = 0;
  const sim::Vec3 axis{0, s.capsule_half, 0};
  for (auto _ : state) {
    const std::size_t k = i++ % kQueries;
    auto h = s.index->castCapsule(s.cast_starts[k] - axis, s.cast_starts[k] + axis, s.capsule_radius, s.cast_moves[k]);
    hits += h.has_value();
    benchmark::DoNotOptimize(h);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["hit_rate"] = double(hits) / double(state.iterations());
}

void BulletCapsule(benchmark::State& state, const std::string& name) {
  Scene& s = scene(name);
  std::size_t i = 0, hits = 0;
  for (auto _ : state) {
    const std::size_t k = i++ % kQueries;
    btTransform from, to;
    from.setIdentity();
    to.setIdentity();
    from.setOrigin(bt(s.cast_starts[k]));
    to.setOrigin(bt(s.cast_starts[k] + s.cast_moves[k]));
    btCollisionWorld::ClosestConvexResultCallback cb(from.getOrigin(), to.getOrigin());
    s.bt_world->convexSweepTest(s.bt_capsule.get(), from, to, cb);
    hits += cb.hasHit();
    benchmark::DoNotOptimize(cb.m_closestHitFraction);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["hit_rate"] = double(hits) / double(state.iterations());
}

void StrataBuild(benchmark::State& state, const std::string& name) {
  Scene& s = scene(name);
  for (auto _ : state) {
    sim::QueryIndex index(s.mesh);
    benchmark::DoNotOptimize(index.stats().triangles);
  }
}

void BulletBuild(benchmark::State& state, const std::string& name) {
  Scene& s = scene(name);
  for (auto _ : state) {
    btBvhTriangleMeshShape shape(s.bt_array.get(), true);
    benchmark::DoNotOptimize(&shape);
  }
}

}  // namespace

BENCHMARK_CAPTURE(StrataRay, pandora, std::string("pandora"));
BENCHMARK_CAPTURE(BulletRay, pandora, std::string("pandora"));
BENCHMARK_CAPTURE(StrataCapsule, pandora, std::string("pandora"));
BENCHMARK_CAPTURE(BulletCapsule, pandora, std::string("pandora"));
BENCHMARK_CAPTURE(StrataRay, dungeon, std::string("dungeon"));
BENCHMARK_CAPTURE(BulletRay, dungeon, std::string("dungeon"));
BENCHMARK_CAPTURE(StrataCapsule, dungeon, std::string("dungeon"));
BENCHMARK_CAPTURE(BulletCapsule, dungeon, std::string("dungeon"));
BENCHMARK_CAPTURE(StrataBuild, pandora, std::string("pandora"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BulletBuild, pandora, std::string("pandora"))->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
