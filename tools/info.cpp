// strata info FILE [--json]: describes a world file (schema, provenance, counts, bounds).
// Thin over formats::readWorldFile, which validates the whole file, so `info` doubles as a
// check that a world is readable: a bad file exits 2 with a one-line located error.

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "strata/formats/machine_memory.h"
#include "strata/formats/world_file.h"

namespace strata::cli {
namespace {

struct InfoOptions {
  std::string file;   ///< the world file to describe
  bool json = false;  ///< one JSON document instead of text
};

// Vertices are float32: print the float's shortest form, not its double expansion.
std::string coordinate(double value) { return fmt::format("{}", static_cast<float>(value)); }
double coordinateJson(double value) { return std::stod(coordinate(value)); }

nlohmann::ordered_json floatPoint(const sim::Vec3& p) {
  nlohmann::ordered_json xyz = nlohmann::ordered_json::array();
  for (int axis = 0; axis < 3; ++axis) xyz.push_back(coordinateJson(p[axis]));
  return xyz;
}

nlohmann::ordered_json describe(const formats::World& world, const std::string& file, std::uintmax_t file_bytes) {
  const sim::TriangleMesh& mesh = world.geometry;
  nlohmann::ordered_json doc = nlohmann::ordered_json::object();
  doc["file"] = file;
  doc["file_bytes"] = file_bytes;
  doc["schema_version"] = world.schema_version;
  doc["tool_version"] = world.provenance.tool_version;
  nlohmann::ordered_json inputs = nlohmann::ordered_json::array();
  for (const formats::InputRecord& input : world.provenance.inputs) {
    nlohmann::ordered_json entry = nlohmann::ordered_json::object();
    entry["path"] = input.path;
    entry["bytes"] = input.bytes;
    entry["sha256"] = input.sha256;
    inputs.push_back(std::move(entry));
  }
  doc["inputs"] = std::move(inputs);
  // The reader has checked that a non-empty string is valid JSON.
  if (world.provenance.import_options_json.empty()) doc["import_options"] = nullptr;
  else doc["import_options"] = nlohmann::ordered_json::parse(world.provenance.import_options_json);
  nlohmann::ordered_json counts = nlohmann::ordered_json::object();
  counts["vertices"] = mesh.vertices.size();
  counts["triangles"] = mesh.triangles.size();
  counts["labels"] = mesh.labels.size();
  counts["tags"] = mesh.tags.size();
  doc["counts"] = std::move(counts);
  // The names a profile's area rules and climbable globs match (an audit: a new user could find
  // them only with h5dump), each with its triangle count.
  const auto named = [](const std::vector<std::string>& names, const std::vector<uint32_t>& per_triangle) {
    std::vector<std::size_t> triangles(names.size(), 0);
    for (const uint32_t i : per_triangle)
      if (i < triangles.size()) ++triangles[i];
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < names.size(); ++i) list.push_back({{"name", names[i]}, {"triangles", triangles[i]}});
    return list;
  };
  doc["labels"] = named(mesh.labels, mesh.triangle_labels);
  doc["tags"] = named(mesh.tags, mesh.triangle_tags);
  const sim::Aabb bounds = mesh.bounds();
  if (bounds.empty()) {
    doc["bounds"] = nullptr;
  } else {
    nlohmann::ordered_json box = nlohmann::ordered_json::object();
    box["min"] = floatPoint(bounds.min);
    box["max"] = floatPoint(bounds.max);
    doc["bounds"] = std::move(box);
  }
  // Baked agents (strata bake): the per-agent summary.
  nlohmann::ordered_json agents = nlohmann::ordered_json::array();
  for (const nav::BakedAgent& agent : world.agents) {
    const nav::LayeredGraph& g = agent.graph;
    nlohmann::ordered_json entry = nlohmann::ordered_json::object();
    entry["name"] = agent.profile.settings.name;
    entry["cell_size"] = g.grid.cell_size;
    entry["grid"] = {g.grid.width_cells, g.grid.depth_cells};  // the members of strata bake --json, in its order
    entry["columns"] = g.grid.columnCount();
    entry["nodes"] = g.nodeCount();
    entry["edges"] = g.edgeCount();
    entry["links"] = g.customLinkCount();
    entry["second_jumps"] = g.secondJumpCount();
    entry["components"] = g.component_count;
    entry["regions"] = g.region_count;
    entry["fields"] = nlohmann::ordered_json::array();  // the names, as strata bake --json lists them
    for (const nav::RouteField& field : g.fields) entry["fields"].push_back(field.name);
    agents.push_back(std::move(entry));
  }
  doc["agents"] = std::move(agents);
  return doc;
}

void printText(const nlohmann::ordered_json& doc) {
  fmt::print("file            {} ({} bytes)\n", printable(doc["file"].get<std::string>()), doc["file_bytes"].get<std::uintmax_t>());
  fmt::print("schema_version  {}\n", doc["schema_version"].get<int>());
  const std::string tool = doc["tool_version"].get<std::string>();
  fmt::print("tool_version    {}\n", tool.empty() ? "(not recorded)" : printable(tool));
  fmt::print("inputs          {}\n", doc["inputs"].size());
  for (const auto& input : doc["inputs"])
    fmt::print("  {}  {} bytes  sha256 {}\n", printable(input["path"].get<std::string>()), input["bytes"].get<std::uint64_t>(),
               input["sha256"].get<std::string>());
  if (!doc["import_options"].is_null()) fmt::print("import_options  {}\n", printedJson(doc["import_options"]));
  const auto& counts = doc["counts"];
  fmt::print("vertices        {}\n", counts["vertices"].get<std::size_t>());
  fmt::print("triangles       {}\n", counts["triangles"].get<std::size_t>());
  // The first names inline, with their triangle counts; --json lists them all.
  const auto names = [](const nlohmann::ordered_json& list) {
    constexpr std::size_t kShown = 12;
    std::string text;
    for (std::size_t i = 0; i < list.size() && i < kShown; ++i) {
      // Quoted, with a quote or a backslash in the name escaped by a backslash (and control bytes
      // and bytes that are not UTF-8 as \xNN), so a name reads back unambiguously.
      std::string name;
      for (const char c : list[i]["name"].get<std::string>()) {
        if (c == '\'' || c == '\\') name += '\\';
        name += c;
      }
      text += fmt::format("{}'{}' ({})", i == 0 ? ": " : ", ", printable(name), list[i]["triangles"].get<std::size_t>());
    }
    if (list.size() > kShown) text += fmt::format(", and {} more (--json lists them all)", list.size() - kShown);
    return text;
  };
  fmt::print("labels          {}{}\n", counts["labels"].get<std::size_t>(), names(doc["labels"]));
  fmt::print("tags            {}{}\n", counts["tags"].get<std::size_t>(), names(doc["tags"]));
  if (doc["bounds"].is_null()) {
    fmt::print("bounds          empty\n");
  } else {
    const auto& min = doc["bounds"]["min"];
    const auto& max = doc["bounds"]["max"];
    fmt::print("bounds          min ({}, {}, {})  max ({}, {}, {})  metres, Y up\n", min[0].get<double>(),
               min[1].get<double>(), min[2].get<double>(), max[0].get<double>(), max[1].get<double>(),
               max[2].get<double>());
  }
  fmt::print("agents          {}\n", doc["agents"].size());
  for (const auto& agent : doc["agents"])
    fmt::print("  {}  cell {} m, {}, {}, {}, {}, {}, {}, {}, {}\n", printable(agent["name"].get<std::string>()),
               agent["cell_size"].get<double>(), counted(agent["columns"].get<std::size_t>(), "column"),
               counted(agent["nodes"].get<std::size_t>(), "node"), counted(agent["edges"].get<std::size_t>(), "edge"),
               counted(agent["links"].get<std::size_t>(), "link"), counted(agent["second_jumps"].get<std::size_t>(), "second jump"),
               counted(agent["components"].get<std::uint32_t>(), "component"),
               counted(agent["regions"].get<std::uint32_t>(), "reachability region"), counted(agent["fields"].size(), "field"));
}

int runInfo(const InfoOptions& options) {
  formats::WorldReadOptions read;
  read.memory_limit_bytes = formats::usableMemoryBytes();  // graphs larger than memory are refused before they are read
  auto world = formats::readWorldFile(options.file, read);
  if (!world) return reportError(world.error());
  std::error_code ec;
  const std::uintmax_t file_bytes = std::filesystem::file_size(options.file, ec);
  const nlohmann::ordered_json doc = describe(*world, options.file, ec ? 0 : file_bytes);
  if (options.json) fmt::print("{}\n", printedJson(doc, 2));
  else printText(doc);
  return kExitOk;
}

std::function<int()> setupInfo(CLI::App& app) {
  auto options = std::make_shared<InfoOptions>();
  CLI::App* sub = app.add_subcommand(
      "info", "Describe a world file: schema version, tool version, inputs (path, size, SHA-256), counts of "
              "vertices, triangles, labels and tags, the labels' and tags' names with their triangle counts, bounds, and the baked agents (cell size, columns, nodes, edges, "
              "links, second jumps, components, reachability regions, fields). Validates the whole file.");
  sub->add_option("FILE", options->file, "the world file (.h5) written by strata import or strata bake")->required()->check(fileName());
  sub->add_flag("--json", options->json, "print one JSON document with the same fields");
  sub->footer("Exit codes: 0 success; 1 runtime failure; 2 not a world file, or a corrupt or invalid one\n"
              "(one line on stderr: strata: error: FILE: problem). See strata-info(1) and docs/format.md.");
  return [options] { return runInfo(*options); };
}

}  // namespace

STRATA_COMMAND(info, 20, setupInfo)

}  // namespace strata::cli
