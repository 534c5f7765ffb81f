#pragma once
// Navigation kinds of `strata query` (nearest, height, los, sight, field, component, clearance)
// over a world's baked layered graph. tools/query.cpp owns the subcommand and adds these rows.

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace strata::cli {

/// One navigation query kind: `setup` adds its options to its subcommand and returns the runner,
/// called with the WORLD argument and --json of `strata query`.
struct NavQueryKind {
  const char* name;         ///< kind name ("nearest", ...)
  const char* description;  ///< one line for --help
  std::function<std::function<int(const std::string& world, bool json)>(CLI::App& sub)> setup;  ///< adds options, returns the runner
};

/// The navigation kinds, in --help order.
const std::vector<NavQueryKind>& navQueryKinds();

}  // namespace strata::cli
