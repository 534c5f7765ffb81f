// Loading the baked graph of one agent for `strata render` and `strata export`, and the output
// check of every writing command (baked_input.h).

#include "baked_input.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "command.h"
#include "strata/formats/import.h"
#include "strata/formats/machine_memory.h"
#include "strata/formats/output_file.h"
#include "strata/formats/profile.h"
#include "strata/formats/world_file.h"
#include "strata/sim/query_index.h"

namespace strata::cli {
namespace {

// The item of `items` named `wanted` (empty: the first); the error names `where` and the choices.
template <class T, class NameOf>
Result<T> pickByName(std::vector<T> items, const std::string& wanted, const std::string& where, NameOf name_of) {
  if (wanted.empty()) return std::move(items.front());
  std::vector<std::string> names;
  for (T& item : items) {
    if (name_of(item) == wanted) return std::move(item);
    names.push_back(name_of(item));
  }
  return formats::noAgentError(where, wanted, names);
}

// --profile, or the default profile.
Result<nav::BakeProfile> profileOf(const BakedInputOptions& options) {
  if (options.profile.empty()) return nav::BakeProfile::defaults();
  return formats::loadProfile(options.profile);
}

}  // namespace

// Its warnings (a material library not found, ...) printed: a mesh baked in memory said nothing
// of them (an audit), where strata import and strata bake do.
Result<formats::ImportedMesh> importMeshInput(const std::string& path) {
  auto imported = formats::importMeshes({std::filesystem::path(path)}, formats::ImportOptions{});
  if (imported)
    for (const std::string& warning : imported->stats.warnings) warn(warning);
  return imported;
}

void addBakedInputOptions(CLI::App* sub, BakedInputOptions& options, const std::string& what) {
  sub->add_option("WORLD", options.input,
                  "a world file (.h5) with baked agents, or a mesh file (baked in memory with --profile)")
      ->required()
      ->check(fileName());
  sub->add_option("--agent", options.agent,
                  "the agent to " + what + " (default: the first one; only its graph is read from a world file)")
      ->check(agentName());
  sub->add_option("--profile", options.profile, "bake profile (TOML) for a mesh WORLD (default: the default profile)")->check(fileName());
}

int checkOutput(const std::string& output, const std::vector<std::string>& inputs, std::filesystem::path* target) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  const bool exists = std::filesystem::exists(output, ec);
  for (const std::string& input : inputs) {
    if (input.empty()) continue;
    files.emplace_back(input);
    // Companions matter only when the output already exists (a new file cannot be one of them).
    if (exists)
      for (std::filesystem::path& companion : formats::meshCompanionFiles(input)) files.push_back(std::move(companion));
  }
  auto checked = formats::checkOutputPath(output, files);
  if (!checked) return reportError(checked.error());
  if (target != nullptr) *target = *checked;
  return kExitOk;
}

int checkNamedOutput(const std::string& output, const std::vector<std::string>& inputs, const std::vector<std::string>& extensions,
                     const std::string& what) {
  std::filesystem::path target;  // the file written: through symbolic links, the last one's target (which need not exist)
  if (const int code = checkOutput(output, inputs, &target); code != kExitOk) return code;
  const auto named = [&](const std::filesystem::path& path) {
    return std::find(extensions.begin(), extensions.end(), formats::lowerExtension(path)) != extensions.end();
  };
  std::string names = extensions.front();
  for (std::size_t i = 1; i < extensions.size(); ++i) names += (i == 1 ? " (or " : ", ") + extensions[i];
  if (extensions.size() > 1) names += ")";
  const std::filesystem::path path(output);
  const auto refuse = [&](const std::filesystem::path& name, const std::string& which) {
    const std::string extension = name.extension().string();
    return badInput(output + ": " + which + (extension.empty() ? std::string(" has no extension") : " ends in '" + printable(extension) + "'") +
                    ": " + what + " written to a " + names + " name, so that a mistyped -o never replaces a mesh, a profile "
                    "or another file");
  };
  if (!named(path)) return refuse(path, "the name");
  if (target.lexically_normal() != path.lexically_normal() && !named(target))
    return refuse(target, "the symbolic link's target " + printable(target.lexically_normal().string()));
  return kExitOk;
}

int checkWorldOutput(const std::string& output, const std::vector<std::string>& inputs) {
  return checkNamedOutput(output, inputs, {".h5", ".hdf5"}, "a world file is");
}

Result<nav::BakedAgent> loadBakedAgent(const BakedInputOptions& options, sim::TriangleMesh* geometry,
                                       std::vector<formats::InputRecord>* recorded_inputs) {
  std::error_code ec;
  if (!std::filesystem::exists(options.input, ec)) return Error::noSuchFile(options.input);
  if (isWorldFile(options.input)) {
    if (!options.profile.empty())
      return Error::badInput(options.input +
                             ": --profile applies to mesh inputs only (a world file carries its agents: bake it with strata bake WORLD --profile P)");
    // Only the chosen agent's graph is read (a world may hold several large ones).
    // A graph larger than the machine's memory is refused before it is read.
    formats::WorldReadOptions read{formats::WorldReadOptions::Agents::One, options.agent};
    read.memory_limit_bytes = formats::usableMemoryBytes();
    read.geometry = geometry != nullptr;  // the triangles only when the caller keeps them
    auto world = formats::readWorldFile(options.input, read);
    if (!world) return world.error();
    if (world->agents.empty())
      return Error::badInput(options.input + ": has no baked agents (bake it with strata bake, or pass the mesh itself "
                                             "with --profile)");
    if (geometry != nullptr) *geometry = std::move(world->geometry);
    if (recorded_inputs != nullptr)
      *recorded_inputs = world->provenance.inputs;
    return std::move(world->agents.front());  // the reader found the one asked for (or refused)
  }
  auto profile = profileOf(options);
  if (!profile) return profile.error();
  std::optional<Result<formats::ImportedMesh>> imported;
  if (options.imported == nullptr) {
    imported.emplace(importMeshInput(options.input));
    if (!*imported) return imported->error();
  }
  const sim::TriangleMesh& mesh = options.imported != nullptr ? *options.imported : (*imported)->mesh;
  // Only the agent asked for is baked, as only its graph is read from a world file (an audit: an
  // unsnappable link of another agent of the profile failed the command for this one, and a
  // batch baked every agent once per agent it named). An agent's bake does not depend on the
  // others'.
  auto chosen = pickByName(std::move(profile->agents), options.agent, options.input,
                           [](const nav::AgentProfile& a) { return a.settings.name; });
  if (!chosen) return chosen.error();
  profile->agents.clear();
  profile->agents.push_back(std::move(*chosen));
  nav::BakeOptions bake_options;
  bake_options.memory_limit_bytes = formats::usableMemoryBytes();
  auto baked = nav::bakeWorld(mesh, *profile, bake_options, options.input);
  if (!baked) return baked.error();
  for (const std::string& warning : bakeWarnings(options.input, baked->agents.front(), mesh)) warn(warning);
  if (geometry != nullptr) *geometry = imported ? std::move((*imported)->mesh) : mesh;
  return std::move(baked->agents.front());  // the one agent of the profile, chosen above
}

namespace {

// Of the surfaces seen first from above on a 32 x 32 lattice over the mesh's bounds, how many
// face up and how many down. A level's top surfaces face up; where most face down, the winding
// is most likely reversed (clockwise seen from the front), which a floor cannot be (the spec's
// "upward-facing surfaces"). Only asked about a bake that found no floor: an indoor level seen
// from above shows ceilings facing down.
struct TopFacing {
  int up = 0, down = 0;
};
TopFacing topFacing(const sim::TriangleMesh& mesh) {
  TopFacing facing;
  sim::QueryIndex index;
  if (mesh.triangleCount() == 0 || !index.addMesh(mesh)) return facing;
  const sim::Aabb b = mesh.bounds();
  constexpr int kSamples = 32;
  const double height = b.max.y - b.min.y + 2.0;
  for (int i = 0; i < kSamples; ++i)
    for (int k = 0; k < kSamples; ++k) {
      const double x = b.min.x + (b.max.x - b.min.x) * (i + 0.5) / kSamples;
      const double z = b.min.z + (b.max.z - b.min.z) * (k + 0.5) / kSamples;
      const auto hit = index.raycast({x, b.max.y + 1.0, z}, {0, -1, 0}, height);
      if (!hit) continue;
      if (hit->normal.y > 0) ++facing.up;
      else if (hit->normal.y < 0) ++facing.down;
    }
  return facing;
}

}  // namespace

std::vector<std::string> bakeWarnings(const std::string& input, const nav::BakedAgent& agent, const sim::TriangleMesh& mesh) {
  std::vector<std::string> warnings = agent.warnings;
  // A bake that finds no floor is almost always wrong units, a wrong up axis, a slope limit or a
  // reversed winding (a new user's downward-facing plane, a 0.9 m level read in the wrong units,
  // baked silently; the maze sample with every triangle's winding reversed bakes 0 nodes).
  if (agent.graph.nodeCount() == 0) {
    const sim::Aabb b = mesh.bounds();
    std::string text = printable(input) + ": agent " + agent.profile.settings.name +
                       fmt::format(": no walkable floor (0 nodes) on a mesh of {:.3g} x {:.3g} x {:.3g} m (X, Y, Z): are --scale and --up "
                                   "right, and max_slope?",
                                   b.max.x - b.min.x, b.max.y - b.min.y, b.max.z - b.min.z);
    const TopFacing top = topFacing(mesh);
    if (top.down > top.up)
      text += fmt::format(" Seen from above, the first surface faces down at {} of {} points sampled (a ceiling seen from "
                          "above does, and so does a floor whose winding is reversed): is the mesh's winding reversed (a floor "
                          "must be counter-clockwise seen from above)?",
                          top.down, top.down + top.up);
    warnings.push_back(std::move(text));
  }
  return warnings;
}

Result<UnbakedInput> loadUnbakedInput(const BakedInputOptions& options) {
  std::error_code ec;
  if (!std::filesystem::exists(options.input, ec)) return Error::noSuchFile(options.input);
  UnbakedInput loaded;
  std::vector<nav::AgentProfile> agents;
  if (isWorldFile(options.input)) {
    // The geometry and the agents' profiles: on-demand search never reads a baked graph.
    auto world = formats::readWorldFile(options.input, {formats::WorldReadOptions::Agents::ProfilesOnly, {}});
    if (!world) return world.error();
    loaded.mesh = std::move(world->geometry);
    for (nav::BakedAgent& a : world->agents) agents.push_back(std::move(a.profile));
  } else {
    auto imported = importMeshInput(options.input);
    if (!imported) return imported.error();
    loaded.mesh = std::move(imported->mesh);
  }
  if (!options.profile.empty() || agents.empty()) {  // --profile wins over the world's agents
    auto profile = profileOf(options);
    if (!profile) return profile.error();
    agents = std::move(profile->agents);
  }
  auto agent = pickByName(std::move(agents), options.agent, options.profile.empty() ? options.input : options.profile,
                          [](const nav::AgentProfile& a) { return a.settings.name; });
  if (!agent) return agent.error();
  loaded.agent = std::move(*agent);
  return loaded;
}

}  // namespace strata::cli
