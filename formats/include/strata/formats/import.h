#pragma once
/// \file
/// Mesh import through Assimp, with validation and a sandboxed parse.
///
/// Accepted formats are a documented allow-list (see docs/formats in README and man strata-import):
/// each is checked by extension *and* content before Assimp sees the bytes. By default the Assimp
/// parse runs in a child process under time and memory limits, so a crash, hang or memory bomb in
/// Assimp becomes a BadInput error naming the file instead of taking Strata down.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "strata/sim/mesh.h"
#include "strata/sim/result.h"

namespace strata::formats {

/// Which source axis points up.
enum class UpAxis { Y, Z };

/// Import settings; every field maps 1:1 to a `strata import` flag.
struct ImportOptions {
  double scale = 1.0;               ///< extra uniform scale applied after unit conversion. [Limit: > 0]
  UpAxis up = UpAxis::Y;            ///< source up axis; Z-up sources are rotated to Y-up
  bool in_process = false;          ///< parse in this process (trusted inputs only; faster, no sandbox)
  double timeout_seconds = 60.0;    ///< wall-clock limit of the sandboxed parse. [Limit: > 0]
  std::uint64_t memory_limit_mib = 4096;  ///< address space the sandboxed parse may add to the process's (MiB); 64 .. 2^30

  /// Empty string when valid, else a message naming the field.
  std::string validate() const;
};

/// What an import did besides producing triangles.
struct ImportStats {
  std::size_t meshes = 0;                 ///< Assimp meshes read
  std::size_t triangles = 0;              ///< triangles kept
  std::size_t degenerate_dropped = 0;     ///< zero-area triangles dropped
  std::size_t non_triangles_dropped = 0;  ///< points and lines dropped
  std::vector<std::string> warnings;      ///< e.g. "missing material file"
};

/// The record of one input file kept in the world file's provenance.
struct InputRecord {
  std::string path;        ///< as given on the command line
  std::string sha256;      ///< hex SHA-256 of the file's bytes
  std::uint64_t bytes = 0; ///< size of the file
};

struct ImportedMesh {
  sim::TriangleMesh mesh;
  ImportStats stats;
  std::vector<InputRecord> inputs;
};

/// Imports and merges one or more mesh files. Errors name the file and the problem.
Result<ImportedMesh> importMeshes(const std::vector<std::filesystem::path>& paths, const ImportOptions& options);

/// The files a mesh file makes the importer read besides itself: a glTF's external buffers, an
/// OBJ's material libraries (`mtllib`), as paths beside the mesh. Empty for other formats, and
/// for a file that cannot be read or does not pass the pre-check (the import reports those).
/// Commands refuse to write over any of them.
std::vector<std::filesystem::path> meshCompanionFiles(const std::filesystem::path& path);

/// The extensions accepted by importMeshes (lower case, with the dot).
const std::vector<std::string>& supportedExtensions();

}  // namespace strata::formats
