// Loading the baked graph of one agent for `strata render` and `strata export` (baked_input.h).

#include "baked_input.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "strata/formats/import.h"
#include "strata/formats/profile.h"
#include "strata/formats/world_file.h"

namespace strata::cli {
namespace {

std::string lowerExtension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

Result<nav::BakedAgent> pickAgent(std::vector<nav::BakedAgent> agents, const BakedInputOptions& options) {
  if (agents.empty()) return Error::badInput(options.input + ": has no baked agents");
  if (options.agent.empty()) return std::move(agents.front());
  std::string names;
  for (nav::BakedAgent& agent : agents) {
    if (agent.profile.settings.name == options.agent) return std::move(agent);
    names += (names.empty() ? "" : ", ") + agent.profile.settings.name;
  }
  return Error::badInput(fmt::format("{}: no agent '{}' (agents: {})", options.input, options.agent, names));
}

}  // namespace

void addBakedInputOptions(CLI::App* sub, BakedInputOptions& options, const std::string& what) {
  sub->add_option("WORLD", options.input,
                  "a world file (.h5) with baked agents, or a mesh file (baked in memory with --profile)")
      ->required();
  sub->add_option("--agent", options.agent, "the agent to " + what + " (default: the first one)");
  sub->add_option("--profile", options.profile, "bake profile (TOML) for a mesh WORLD (default: the default profile)");
}

Result<nav::BakedAgent> loadBakedAgent(const BakedInputOptions& options, sim::TriangleMesh* geometry) {
  std::error_code ec;
  if (!std::filesystem::exists(options.input, ec)) return Error::badInput(options.input + ": no such file");
  if (lowerExtension(options.input) == ".h5") {
    if (!options.profile.empty())
      return Error::badInput(options.input + ": --profile applies to mesh inputs only (a world file is already baked)");
    auto world = formats::readWorldFile(options.input);
    if (!world) return world.error();
    if (world->agents.empty())
      return Error::badInput(options.input + ": has no baked agents (bake it with strata bake, or pass the mesh itself "
                                             "with --profile)");
    if (geometry != nullptr) *geometry = std::move(world->geometry);
    return pickAgent(std::move(world->agents), options);
  }
  nav::BakeProfile profile = nav::BakeProfile::defaults();
  if (!options.profile.empty()) {
    auto loaded = formats::loadProfile(options.profile);
    if (!loaded) return loaded.error();
    profile = std::move(*loaded);
  }
  auto imported = formats::importMeshes({std::filesystem::path(options.input)}, formats::ImportOptions{});
  if (!imported) return imported.error();
  auto baked = nav::bakeWorld(imported->mesh, profile, nav::BakeOptions{}, options.input);
  if (!baked) return baked.error();
  if (geometry != nullptr) *geometry = std::move(imported->mesh);
  return pickAgent(std::move(baked->agents), options);
}

}  // namespace strata::cli
