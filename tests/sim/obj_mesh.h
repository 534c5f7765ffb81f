#pragma once
// Test-only OBJ reader for tests/sim (v and f lines; polygons fan-triangulated; `usemtl` becomes
// the surface label and `o`/`g` the tag). The real importer lives in formats/; libsim tests must
// not depend on it.

#include <filesystem>
#include <vector>

#include "strata/sim/mesh.h"

namespace strata::test {

/// Reads an OBJ file; throws std::runtime_error when it cannot be opened.
sim::TriangleMesh loadObj(const std::filesystem::path& path);

/// The OBJ meshes the property tests run on: the real and recast meshes of the shared data and
/// the samples (whichever exist).
std::vector<std::filesystem::path> propertyMeshes();

}  // namespace strata::test
