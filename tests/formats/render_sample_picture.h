#pragma once
// The sample levels baked through the library (import, profile, bake; once per test process) and
// the picture committed as docs/tower.png: tower with a road-to-roof path, made exactly as
// `strata render tower.h5 -o docs/tower.png --path 0,0,25:0,8,-4` makes it.

#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "strata/formats/import.h"
#include "strata/formats/profile.h"
#include "strata/formats/render.h"
#include "strata/nav/bake.h"
#include "strata/nav/layered_search.h"
#include "test_support.h"

namespace strata::test {

/// The first agent of samples/NAME.obj baked with samples/NAME.toml (cached per process).
inline const nav::BakedAgent& bakedSample(const std::string& name) {
  static std::map<std::string, nav::BakedAgent> cache;
  auto found = cache.find(name);
  if (found != cache.end()) return found->second;
  formats::ImportOptions options;
  options.in_process = true;
  auto imported = formats::importMeshes({sourceDir() / "samples" / (name + ".obj")}, options);
  if (!imported.ok()) FAIL(imported.error().message);
  auto profile = formats::loadProfile(sourceDir() / "samples" / (name + ".toml"));
  if (!profile.ok()) FAIL(profile.error().message);
  auto baked = nav::bakeWorld(imported->mesh, *profile, {});
  if (!baked.ok()) FAIL(baked.error().message);
  return cache.emplace(name, std::move(baked->agents.front())).first->second;
}

struct SamplePicture {
  std::vector<formats::RenderWaypoint> path;  ///< the overlaid road-to-roof path
  std::string png;                            ///< the encoded picture
};

/// docs/tower.png: the tower, all bands, coloured by height, 1200 px wide, with the path from
/// the south end of the road (0, 0, 25) to the roof (0, 8, -4).
inline SamplePicture towerDocsPicture() {
  const nav::BakedAgent& agent = bakedSample("tower");
  nav::SearchState state;
  const nav::PathResult result = nav::findLayeredPath(agent.graph, agent.profile.settings, {0, 0, 25}, {0, 8, -4},
                                                      nav::LayeredSearchSettings{}, state);
  if (!result.ok()) FAIL("no road-to-roof path: " << nav::failureName(result.failure));
  SamplePicture picture;
  formats::RenderPath path;
  for (const nav::Waypoint& waypoint : result.waypoints)
    path.waypoints.push_back({waypoint.position, std::string(nav::actionName(waypoint.action))});
  picture.path = path.waypoints;
  formats::RenderSettings settings;
  settings.title = "agent " + agent.profile.settings.name;
  auto image = formats::renderRaster(agent.graph, {path}, settings);
  if (!image.ok()) FAIL(image.error().message);
  auto png = formats::encodePng(*image);
  if (!png.ok()) FAIL(png.error().message);
  picture.png = std::move(*png);
  return picture;
}

}  // namespace strata::test
