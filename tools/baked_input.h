#pragma once
// The input of `strata render` and `strata export`: the baked graph of one agent, read from a
// world file (.h5) or, for a mesh file, baked in memory with a profile (--profile, or the default
// profile), exactly as `strata bake` would bake it. Also the output check every writing command
// makes before its work (checkOutput).

#include <filesystem>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "strata/formats/import.h"
#include "strata/nav/bake.h"
#include "strata/nav/profile.h"
#include "strata/sim/mesh.h"
#include "strata/sim/result.h"

namespace strata::cli {

/// Where the baked graphs come from.
struct BakedInputOptions {
  std::string input;    ///< a world file (.h5) or a mesh file
  std::string agent;    ///< agent name; empty = the first agent
  std::string profile;  ///< bake profile for a mesh input; empty = the default profile
  /// A mesh input's triangles when they are already imported (not imported again); ignored for
  /// a world file.
  const sim::TriangleMesh* imported = nullptr;
};

/// Declares the WORLD positional and the --agent and --profile options on `sub`; `what` names
/// what the command does with the agent ("draw", "export").
void addBakedInputOptions(CLI::App* sub, BakedInputOptions& options, const std::string& what);

/// Checks `output` before any work (formats::checkOutputPath) against the command's input files
/// and the files those make the importer read (an OBJ's .mtl, a glTF's .bin: a write over one
/// would break the mesh). Returns the error line's exit code, or kExitOk.
/// `target`, when given, receives the file the write replaces or creates (through symbolic
/// links, the last one's target).
int checkOutput(const std::string& output, const std::vector<std::string>& inputs, std::filesystem::path* target = nullptr);
/// checkOutput for a world file (import, bake): also refuses an output whose name, or whose
/// symbolic link's target, does not end in .h5 or .hdf5 (any case): `bake src.h5 -o src.glb` wrote
/// a world file over the source mesh, and `-o tower.toml` over the profile.
int checkWorldOutput(const std::string& output, const std::vector<std::string>& inputs);
/// checkOutput that also refuses an output whose name, or whose symbolic link's target, does not
/// end in one of `extensions` (lower case, with the dot; compared in any case). `what` starts
/// the reason: "a world file is" -> "a world file is written to a .h5 (or .hdf5) name, ...".
int checkNamedOutput(const std::string& output, const std::vector<std::string>& inputs, const std::vector<std::string>& extensions,
                     const std::string& what);

/// The chosen agent (effective profile and graph). Errors name the input file. A mesh input's
/// import and bake warnings are printed on stderr (strata: warning: ...). With `geometry`,
/// the world's triangles are stored there too (the file's /geometry, or the imported mesh); with
/// `recorded_inputs`, a world file's recorded mesh inputs (their paths as the import was given
/// them; nothing for a mesh input).
Result<nav::BakedAgent> loadBakedAgent(const BakedInputOptions& options, sim::TriangleMesh* geometry = nullptr,
                                       std::vector<formats::InputRecord>* recorded_inputs = nullptr);

/// A mesh input (path, query, render, export) imported with the default import options, its
/// warnings printed on stderr as strata import prints them.
Result<formats::ImportedMesh> importMeshInput(const std::string& path);

/// The warnings of an agent baked from `input` (a mesh of `mesh`'s triangles): the bake's own
/// (a cell too wide for the line test, ...), then, when it found no floor, a warning naming the
/// mesh's size (almost always wrong units, up axis or slope limit). strata bake prints and lists
/// them; a mesh baked in memory (loadBakedAgent) prints them.
std::vector<std::string> bakeWarnings(const std::string& input, const nav::BakedAgent& agent, const sim::TriangleMesh& mesh);

/// An input's geometry and one agent's profile, without baking (on-demand search): a world
/// file's /geometry and its baked agents' profiles, or a mesh imported now; --profile (else, when
/// there is no baked agent, the default profile) supplies the agents instead.
struct UnbakedInput {
  sim::TriangleMesh mesh;  ///< the world's triangles
  nav::AgentProfile agent; ///< the chosen agent
};

/// Loads an UnbakedInput. Errors name the input (or the profile, for an unknown agent). A mesh
/// input's import warnings are printed on stderr.
Result<UnbakedInput> loadUnbakedInput(const BakedInputOptions& options);

}  // namespace strata::cli
