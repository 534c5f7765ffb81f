// strata import MESH... -o WORLD.h5: imports and merges mesh files into a world file.
// Thin over formats::importMeshes (pre-checks, sandboxed Assimp parse, validation, merge) and
// formats::writeWorldFile (atomic). Nothing is written unless every input imports.

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "baked_input.h"
#include "command.h"
#include "strata/formats/import.h"
#include "strata/formats/world_file.h"

namespace strata::cli {
namespace {

struct ImportCommandOptions {
  std::vector<std::string> inputs;  ///< mesh files, in merge order
  std::string output;               ///< the world file to write
  std::string up = "y";             ///< source up axis: y or z
  bool json = false;                ///< one JSON document instead of the text summary
  formats::ImportOptions import;    ///< scale, sandbox limits, in-process
};

// The settings that shape the geometry, stored in the world file's provenance. The sandbox
// settings are left out: they do not change the result, and leaving them out keeps the file
// byte-identical whichever way it was imported.
std::string effectiveOptionsJson(const formats::ImportOptions& options) {
  nlohmann::json doc;
  doc["scale"] = options.scale;
  doc["up"] = options.up == formats::UpAxis::Z ? "z" : "y";
  return jsonText(doc);
}

nlohmann::ordered_json vec3Json(const sim::Vec3& v) {
  // Vertices are float32: report the float's shortest decimal form.
  return {std::stod(fmt::format("{}", static_cast<float>(v.x))), std::stod(fmt::format("{}", static_cast<float>(v.y))),
          std::stod(fmt::format("{}", static_cast<float>(v.z)))};
}

// In the documented order (ordered_json: nlohmann::json sorted the keys, bounds first and max
// before min, where every other command keeps its order).
nlohmann::ordered_json summary(const formats::ImportedMesh& imported, const std::string& output) {
  const sim::TriangleMesh& mesh = imported.mesh;
  nlohmann::ordered_json doc;
  doc["output"] = output;
  doc["triangles"] = mesh.triangles.size();
  doc["vertices"] = mesh.vertices.size();
  doc["labels"] = mesh.labels.size();
  doc["tags"] = mesh.tags.size();
  const sim::Aabb bounds = mesh.bounds();
  doc["bounds"] = nlohmann::ordered_json{{"min", vec3Json(bounds.min)}, {"max", vec3Json(bounds.max)}};
  doc["meshes"] = imported.stats.meshes;
  doc["degenerate_dropped"] = imported.stats.degenerate_dropped;
  doc["non_triangles_dropped"] = imported.stats.non_triangles_dropped;
  doc["inputs"] = nlohmann::ordered_json::array();
  for (const formats::InputRecord& input : imported.inputs)
    doc["inputs"].push_back(nlohmann::ordered_json{{"path", input.path}, {"bytes", input.bytes}, {"sha256", input.sha256}});
  doc["warnings"] = imported.stats.warnings;
  return doc;
}

int runImport(ImportCommandOptions& options) {
  options.import.up = options.up == "z" ? formats::UpAxis::Z : formats::UpAxis::Y;
  if (const std::string problem = options.import.validate(); !problem.empty()) return badInput("import options: " + problem);

  // Refuse to overwrite an input, and catch a missing output directory before the work.
  namespace fs = std::filesystem;
  const fs::path output(options.output);
  if (const int code = checkWorldOutput(options.output, options.inputs); code != kExitOk) return code;

  std::vector<fs::path> paths(options.inputs.begin(), options.inputs.end());
  auto imported = formats::importMeshes(paths, options.import);
  if (!imported) return reportError(imported.error());
  for (const std::string& warning : imported->stats.warnings) warn(warning);

  formats::World world;
  world.geometry = std::move(imported->mesh);
  world.provenance.tool_version = versionString();
  world.provenance.inputs = imported->inputs;
  world.provenance.import_options_json = effectiveOptionsJson(options.import);
  if (auto written = formats::writeWorldFile(output, world); !written) return reportError(written.error());
  imported->mesh = std::move(world.geometry);

  const nlohmann::ordered_json doc = summary(*imported, options.output);
  if (options.json) {
    fmt::print("{}\n", printedJson(doc, 2));
    return kExitOk;
  }
  const auto& min = doc["bounds"]["min"];
  const auto& max = doc["bounds"]["max"];
  fmt::print("wrote {}: {}, {}, {}, {} from {}\n", printable(options.output), counted(doc["triangles"].get<std::size_t>(), "triangle"),
             counted(doc["vertices"].get<std::size_t>(), "vertex", "vertices"), counted(doc["labels"].get<std::size_t>(), "label"),
             counted(doc["tags"].get<std::size_t>(), "tag"), counted(imported->inputs.size(), "file"));
  fmt::print("bounds min ({}, {}, {}) max ({}, {}, {}) metres, Y up\n", min[0].get<double>(), min[1].get<double>(),
             min[2].get<double>(), max[0].get<double>(), max[1].get<double>(), max[2].get<double>());
  if (imported->stats.degenerate_dropped > 0 || imported->stats.non_triangles_dropped > 0)
    fmt::print("dropped {} and {}\n", counted(imported->stats.degenerate_dropped, "degenerate triangle"),
               counted(imported->stats.non_triangles_dropped, "point/line", "points/lines"));
  return kExitOk;
}

std::function<int()> setupImport(CLI::App& app) {
  auto options = std::make_shared<ImportCommandOptions>();
  CLI::App* sub = app.add_subcommand(
      "import",
      "Import mesh files (glTF 2.0 .gltf/.glb, Wavefront .obj, FBX .fbx, PLY .ply, STL .stl) into a world file: "
      "triangulated, node transforms applied, in metres with Y up, one surface label (material name) and tag "
      "(node path) per triangle. Several files merge into one mesh. Each file is checked by extension and content, "
      "then parsed by Assimp in a sandboxed child process; NaN/inf or out-of-range coordinates and indices are "
      "errors, zero-area triangles, points and lines are dropped. Nothing is written unless every file imports.");
  sub->add_option("MESH", options->inputs, "mesh files to import and merge, in order")->required()->check(fileName());
  sub->add_option("-o,--output", options->output, "the world file to write (HDF5: a .h5 or .hdf5 name; written atomically; a symbolic link is written through; never an input, a directory or a device)")->required();
  sub->add_option("--scale", options->import.scale,
                  "uniform scale applied after unit conversion (e.g. 0.05 for Cube-engine maps); > 0")
      ->default_val(1.0)
      ->transform(positiveNumber());
  sub->add_option("--up", options->up, "source up axis: y (default) or z (rotated so +Z becomes +Y)")
      ->default_val("y")
      ->check(oneOf({"y", "z"}));
  sub->add_flag("--json", options->json,
                "print one JSON document: output, triangles, vertices, labels, tags, meshes, bounds, "
                "degenerate_dropped, non_triangles_dropped, inputs (path, bytes, sha256), warnings");
  sub->add_flag("--in-process", options->import.in_process,
                "parse in this process without the sandbox (faster; trusted inputs only)");
  sub->add_option("--timeout", options->import.timeout_seconds,
                  "wall-clock limit per file for the sandboxed parse, in seconds (> 0, at most 86400)")
      ->default_val(60.0)
      ->transform(positiveNumber(86400));
  sub->add_option("--memory-limit", options->import.memory_limit_mib,
                  "address space the sandboxed parse may add to the process's own, in MiB (64 to 1073741824)")
      ->default_val(4096)
      ->transform(integerRange(64, 1 << 30));
  sub->footer(
      "Exit codes: 0 success; 1 runtime failure (I/O); 2 bad usage or bad input: one line on stderr,\n"
      "strata: error: FILE: problem (unsupported format, malformed header, importer error or crash,\n"
      "NaN or out-of-range coordinates, no triangles left). Warnings (strata: warning: ...) do not fail.\n"
      "FBX files are converted from their UnitScaleFactor (centimetres per unit). See strata-import(1).");
  return [options] { return runImport(*options); };
}

}  // namespace

STRATA_COMMAND(import, 10, setupImport)

}  // namespace strata::cli
