#pragma once
// The input of `strata render` and `strata export`: the baked graph of one agent, read from a
// world file (.h5) or, for a mesh file, baked in memory with a profile (--profile, or the default
// profile), exactly as `strata bake` would bake it.

#include <string>

#include "strata/nav/bake.h"
#include "strata/sim/result.h"

namespace strata::cli {

/// Where the baked graphs come from.
struct BakedInputOptions {
  std::string input;    ///< a world file (.h5) or a mesh file
  std::string agent;    ///< agent name; empty = the first agent
  std::string profile;  ///< bake profile for a mesh input; empty = the default profile
};

/// The chosen agent (effective profile and graph). Errors name the input file.
Result<nav::BakedAgent> loadBakedAgent(const BakedInputOptions& options);

}  // namespace strata::cli
