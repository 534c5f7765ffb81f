#pragma once
/// \file
/// Debug meshes of a baked layered graph (`strata export`, docs/rendering.md), written through
/// Assimp's exporter so they open in Blender or any glTF viewer on top of the source level.
///
/// The walkable surface is one quad (two triangles) per node: a cell-size square centred on the
/// column centre at the node's height, tilted to the node's surface normal (so ramps and stairs
/// keep their slope), with vertex colours by area (the palette of `strata render --color area`).
/// Jump, drop, climb and link edges are a second mesh of line primitives, from node to node, in
/// glTF/GLB and OBJ; PLY has no line primitive, so a PLY holds the quads only.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "strata/nav/layered_graph.h"
#include "strata/formats/import.h"
#include "strata/sim/result.h"

namespace strata::formats {

/// Export settings; each field maps 1:1 to a `strata export` flag.
struct ExportSettings {
  bool flat = false;          ///< --flat: horizontal quads instead of quads tilted to the node normal
  bool edges = true;          ///< --no-edges clears it: leave out the line mesh of jump/drop/climb/link edges
  float edge_lift = 0.05f;    ///< lines are raised this far above the nodes so they show over the quads, metres. [Limit: >= 0]
  /// Refuse (BadInput, before the mesh is built) an export whose estimated peak memory is above
  /// this many bytes; 0: no limit. The CLI passes usableMemoryBytes() (machine_memory.h).
  std::uint64_t memory_limit_bytes = 0;
  /// Files no output (the mesh or a companion) may be: the world, the profile and their
  /// companions (the CLI's inputs).
  std::vector<std::filesystem::path> inputs;

  /// Empty when valid, else "<field>: <problem>".
  std::string validate() const;
};

/// What was written.
struct ExportStats {
  std::size_t quads = 0;        ///< one per node
  std::size_t lines = 0;        ///< edge line primitives (0 for PLY)
  std::vector<std::filesystem::path> files;  ///< every file written (a .gltf also writes a .bin, an .obj an .mtl)
};

/// The output extensions accepted (".gltf", ".glb", ".obj", ".ply").
const std::vector<std::string>& exportExtensions();

/// The files an export to `path` writes besides it, beside it: OUT.bin for OUT.gltf, OUT.mtl for
/// OUT.obj; none for .glb and .ply. They get the same output checks as `path` (and a symbolic
/// link among them is written through).
std::vector<std::filesystem::path> exportCompanionFiles(const std::filesystem::path& path);

/// Checks an export's output `path` (checkOutputPath, against `inputs`) and the companion files
/// of the file it names: through a symbolic link, the target's companions (OUT.bin beside the
/// file the link names, which is where they are written), with the same checks. A link to a file
/// of another extension is refused (a .gltf's or .obj's companion would be named by Assimp). Returns, per file the export writes, its file name in the export and the
/// file it replaces: companions first, the main file last. Errors name `path`.
Result<std::vector<std::pair<std::filesystem::path, std::filesystem::path>>> checkExportOutputs(
    const std::filesystem::path& path, const std::vector<std::filesystem::path>& inputs);

/// Refuses (bad input naming the file) an export whose files (checkExportOutputs' targets)
/// include an existing file with the size and SHA-256 of one of `recorded`, a world's recorded
/// mesh inputs: the level the world was imported from, wherever the import ran (its recorded
/// path may be relative to another folder).
Status refuseRecordedMeshes(const std::vector<std::pair<std::filesystem::path, std::filesystem::path>>& outputs,
                            const std::vector<InputRecord>& recorded);

/// Writes the debug mesh of `graph` to `path`, the format chosen by the extension. Every file is
/// written to a temporary folder beside the target and renamed into place when complete. Errors
/// name `path`.
Result<ExportStats> exportDebugMesh(const std::filesystem::path& path, const nav::LayeredGraph& graph,
                                    const ExportSettings& settings = {});

}  // namespace strata::formats
