#pragma once
/// \file
/// One mesh file through Assimp: node transforms applied by walking the node tree, unit and
/// axis conversion, per-triangle surface labels (material names) and tags (node paths).
/// This is the part that runs inside the sandbox child (import_sandbox.h) unless the import
/// is in-process.

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "import_precheck.h"
#include "strata/formats/import.h"
#include "strata/sim/mesh.h"
#include "strata/sim/result.h"

namespace strata::formats {

/// The geometry of one file, converted to metres and Y up, before degenerate triangles are
/// dropped. Vertices are only those referenced by triangles.
struct SceneGeometry {
  sim::TriangleMesh mesh;                  ///< tags are "<file stem>/<node>/<node>..."
  std::uint64_t meshes = 0;                ///< Assimp meshes instanced by nodes
  std::uint64_t non_triangles_dropped = 0; ///< points and lines dropped
  std::vector<std::string> warnings;       ///< without the file prefix
};

/// Reads `path` with Assimp (ValidateDataStructure, Triangulate) and converts it, joining
/// vertices at exactly one position per mesh. When `bytes` is non-empty Assimp parses those
/// bytes (the ones already hashed and pre-checked) instead of reading `path`: they are served
/// under `path`, so that the .mtl and buffer files beside it are still found (buffer URIs with
/// their %XX escapes decoded). `display_name` prefixes error messages; `tag_root`
/// is the first tag element. Errors: BadInput for anything wrong with the file (Assimp's message,
/// NaN/inf or out-of-bound coordinates naming mesh and vertex, index out of range naming mesh
/// and face).
Result<SceneGeometry> readSceneGeometry(const std::filesystem::path& path, MeshFormat format,
                                        const std::string& display_name, const std::string& tag_root,
                                        const ImportOptions& options, std::span<const std::uint8_t> bytes = {});

}  // namespace strata::formats
