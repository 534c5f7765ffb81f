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

/// Reads any mesh: OBJ through loadObj, the other formats (glTF/GLB, PLY, FBX) through the real
/// importer in-process (they have no test-only reader); throws std::runtime_error on failure.
sim::TriangleMesh loadMesh(const std::filesystem::path& path);

/// The meshes the property tests run on: every real and recast mesh of the shared data (OBJ,
/// glTF/GLB, PLY, FBX) and the samples (whichever exist).
std::vector<std::filesystem::path> propertyMeshes();

}  // namespace strata::test
