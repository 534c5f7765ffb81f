// strata export WORLD -o OUT.gltf|OUT.glb|OUT.obj|OUT.ply: a debug mesh of one agent's walkable
// surfaces (one quad per node, vertex colours by area) with edge lines, through Assimp's exporter.
// Thin over formats::exportDebugMesh (export.h). See strata-export(1) and docs/rendering.md.

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <string>

#include "baked_input.h"
#include "command.h"
#include "strata/formats/export.h"
#include "strata/formats/import.h"
#include "strata/formats/machine_memory.h"

namespace strata::cli {
namespace {

using Json = nlohmann::ordered_json;

struct ExportCommandOptions {
  BakedInputOptions input;          ///< WORLD, --agent, --profile
  std::string output;               ///< -o
  formats::ExportSettings settings; ///< --flat, --no-edges
  bool no_edges = false;
  bool json = false;                ///< --json: the summary as one JSON document
};

int runExport(ExportCommandOptions& options) {
  options.settings.edges = !options.no_edges;
  // The mesh and its companion (beside the file a symbolic link names), before any work.
  for (const std::string& input : {options.input.input, options.input.profile}) {
    if (input.empty()) continue;
    options.settings.inputs.emplace_back(input);
    for (std::filesystem::path& companion : formats::meshCompanionFiles(input)) options.settings.inputs.push_back(std::move(companion));
  }
  if (auto outputs = formats::checkExportOutputs(options.output, options.settings.inputs); !outputs)
    return reportError(outputs.error());
  std::vector<formats::InputRecord> recorded;
  auto agent = loadBakedAgent(options.input, nullptr, &recorded);
  if (!agent) return reportError(agent.error());
  // A world's own source meshes are inputs too, so `-o level.obj` over the level.obj a world was
  // made from is refused instead of replacing it (an audit). The import recorded each path as it
  // was given: a relative one is looked for from here and from the world file's folder.
  if (!recorded.empty()) {
    const std::filesystem::path world_folder = std::filesystem::path(options.input.input).parent_path();
    for (const formats::InputRecord& record : recorded) {
      const std::string& recorded_path = record.path;
      std::vector<std::filesystem::path> places{recorded_path};
      if (std::filesystem::path(recorded_path).is_relative() && !world_folder.empty()) places.push_back(world_folder / recorded_path);
      for (const std::filesystem::path& mesh : places) {
        options.settings.inputs.push_back(mesh);
        for (std::filesystem::path& companion : formats::meshCompanionFiles(mesh)) options.settings.inputs.push_back(std::move(companion));
      }
    }
    auto outputs = formats::checkExportOutputs(options.output, options.settings.inputs);
    if (!outputs) return reportError(outputs.error());
    // And by content, from any folder: a file with a recorded mesh's size and SHA-256.
    if (auto same = formats::refuseRecordedMeshes(*outputs, recorded); !same) return reportError(same.error());
  }
  // Nothing walkable is the input's problem, not the output's.
  if (agent->graph.nodeCount() == 0)
    return badInput(options.input.input + ": agent " + agent->profile.settings.name + " has no walkable nodes to export");
  options.settings.memory_limit_bytes = formats::usableMemoryBytes();
  auto stats = formats::exportDebugMesh(options.output, agent->graph, options.settings);
  if (!stats) return reportError(stats.error());
  if (options.json) {
    Json doc;
    doc["output"] = options.output;
    doc["files"] = Json::array();
    for (const auto& file : stats->files) doc["files"].push_back(file.string());
    doc["agent"] = agent->profile.settings.name;
    doc["quads"] = stats->quads;
    doc["edge_lines"] = stats->lines;
    fmt::print("{}\n", printedJson(doc, 2));
    return kExitOk;
  }
  std::string files;
  for (const auto& file : stats->files) files += (files.empty() ? "" : ", ") + printable(file.string());
  fmt::print("wrote {}: agent {}, {}, {}\n", files, printable(agent->profile.settings.name), counted(stats->quads, "quad"),
             counted(stats->lines, "edge line"));
  return kExitOk;
}

std::function<int()> setupExport(CLI::App& app) {
  auto options = std::make_shared<ExportCommandOptions>();
  CLI::App* sub = app.add_subcommand(
      "export",
      "Write a debug mesh of one agent's walkable surfaces: one quad per node (a cell-size square centred on "
      "the column, tilted to the node's normal), vertex colours by area, and jump/drop/climb/link edges as "
      "lines (glTF/GLB/OBJ; PLY has quads only). Opens in Blender or any glTF viewer over the source level.");
  addBakedInputOptions(sub, options->input, "export");
  sub->add_option("-o,--output", options->output, "the mesh to write: OUT.gltf (+ OUT.bin), OUT.glb, OUT.obj (+ OUT.mtl) "
                                                  "or OUT.ply (written atomically; a symbolic link is written through; never an input, a directory or a device; "
                                                  "a .gltf name without spaces or # ? % and the like, an .obj name without blanks: see strata-export(1))")
      ->required();
  sub->add_flag("--flat", options->settings.flat, "horizontal quads instead of quads tilted to the node normal");
  sub->add_flag("--no-edges", options->no_edges, "leave out the edge lines");
  sub->add_flag("--json", options->json,
                "print one JSON document instead of the summary: output, files (every file written: a .gltf's .bin, an "
                ".obj's .mtl), agent, quads and edge_lines");
  sub->footer("Exit codes: 0 success; 1 runtime failure; 2 bad input (missing agent, unknown extension, an export\n"
              "larger than the machine's memory (or a container's limit) by its estimate; one line:\n"
              "strata: error: FILE: problem). See strata-export(1) and docs/rendering.md.");
  return [options] { return runExport(*options); };
}

}  // namespace

STRATA_COMMAND(export, 75, setupExport)

}  // namespace strata::cli
