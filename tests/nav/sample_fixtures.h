#pragma once
// The shipped sample levels (samples/*.obj) and their profiles (samples/*.toml) for nav tests.

#include <catch2/catch.hpp>

#include <string>

#include "strata/formats/import.h"
#include "strata/formats/profile.h"
#include "strata/nav/profile.h"
#include "strata/sim/mesh.h"
#include "test_support.h"

namespace strata::test {

/// samples/NAME.obj, imported in process; fails the test on error.
inline sim::TriangleMesh sampleMesh(const std::string& name) {
  formats::ImportOptions options;
  options.in_process = true;
  auto imported = formats::importMeshes({sourceDir() / "samples" / (name + ".obj")}, options);
  if (!imported.ok()) FAIL(imported.error().message);
  return std::move(imported->mesh);
}

/// The first agent of samples/NAME.toml; fails the test on error.
inline nav::AgentProfile sampleAgent(const std::string& name) {
  auto profile = formats::loadProfile(sourceDir() / "samples" / (name + ".toml"));
  if (!profile.ok()) FAIL(profile.error().message);
  return profile->agents.front();
}

}  // namespace strata::test
