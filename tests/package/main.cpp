// The walkthrough of docs/library.md, built against an installed Strata with find_package(Strata)
// (scripts/test.sh runs it on samples/tower.obj and samples/tower.toml): import a mesh, bake it,
// find a route, ask a few questions, write the world file and read it back.
//
//   strata_consumer MESH PROFILE.toml OUT.h5
#include <cstdio>
#include <string>

#include "strata/formats/import.h"
#include "strata/formats/profile.h"
#include "strata/formats/world_file.h"
#include "strata/nav/bake.h"
#include "strata/nav/layered_search.h"
#include "strata/nav/nav_queries.h"
#include "strata/sim/query_index.h"

namespace {
int fail(const strata::Error& error) {
  // Messages are one line and name their file: print them as they are.
  std::fprintf(stderr, "strata_consumer: %s\n", error.message.c_str());
  return error.kind == strata::ErrorKind::BadInput ? 2 : 1;
}
}  // namespace

int main(int argc, char** argv) {
  using namespace strata;
  if (argc != 4) {
    std::fprintf(stderr, "usage: strata_consumer MESH PROFILE.toml OUT.h5\n");
    return 2;
  }
  // 1. Import: triangulated, node transforms applied, metres, Y up; the file is parsed in a
  //    sandboxed child process (ImportOptions::in_process for trusted inputs).
  auto imported = formats::importMeshes({argv[1]}, formats::ImportOptions{});
  if (!imported) return fail(imported.error());

  // 2. Bake every agent of a profile (nav::BakeProfile::defaults() without a file).
  auto profile = formats::loadProfile(argv[2]);
  if (!profile) return fail(profile.error());
  auto baked = nav::bakeWorld(imported->mesh, *profile, nav::BakeOptions{}, argv[1]);
  if (!baked) return fail(baked.error());
  const nav::BakedAgent& agent = baked->agents.front();

  // 3. A route: the search view is built once per graph and shared by every thread; each thread
  //    keeps its own SearchState.
  const nav::LayeredSearchGraph view(agent.graph, agent.profile.settings);
  nav::LayeredSearchSettings settings;  // A*; .method = nav::SearchMethod::Corridor for speed
  if (Status valid = settings.validate(); !valid) return fail(valid.error());
  nav::SearchState state;
  const sim::Vec3 road{0, 0, 25}, roof{0, 8, -4};
  const nav::PathResult route = nav::findLayeredPath(view, road, roof, settings, state);
  std::printf("route: %s, %zu waypoints, %.2f m\n", std::string(nav::failureName(route.failure)).c_str(),
              route.waypoints.size(), nav::horizontalLength(route.waypoints));
  if (!route.ok() || route.waypoints.back().position.y < 7.9) return 1;

  // 4. Questions on the graph: the floor under a point, and on the triangles: a ray.
  const auto floor = nav::nearestWalkable(agent.graph, road, settings.snap);
  const sim::QueryIndex index(imported->mesh);
  const auto hit = index.raycast({0, 20, -4}, {0, -1, 0}, 100);
  if (!floor || !hit) return 1;
  std::printf("floor at y %.2f; ray hits y %.2f\n", floor->position.y, hit->point.y);

  // 5. The world file: written atomically (a temporary renamed into place), read back checked.
  formats::World world;
  world.geometry = std::move(imported->mesh);
  world.agents = std::move(baked->agents);
  if (Status written = formats::writeWorldFile(argv[3], world); !written) return fail(written.error());
  auto read = formats::readWorldFile(argv[3]);
  if (!read) return fail(read.error());
  std::printf("strata_consumer: ok (schema %d, %zu agent, %zu nodes)\n", read->schema_version, read->agents.size(),
              read->agents.front().graph.nodeCount());
  return read->agents.front().graph.nodeCount() == world.agents.front().graph.nodeCount() ? 0 : 1;
}
