#pragma once
/// \file
/// Bake profiles in TOML (toml++): one or more `[agent.NAME]` tables with the agent's settings,
/// areas, modifier volumes, custom links and route-distance fields. Unknown keys, wrong types
/// and out-of-range values are errors naming the file, line, column and key. The format is
/// documented in docs/parameters.md ("Bake") and man strata-bake(1); samples/*.toml are examples.

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include "strata/nav/profile.h"
#include "strata/sim/result.h"

namespace strata::formats {

/// Most bytes of a profile file, and so of the TOML a bake stores per agent as the world's
/// @profile (which --profile must be able to read back).
inline constexpr std::size_t kMaxProfileFileBytes = 16u * 1024 * 1024;

/// Reads and validates a profile file. Errors: "<file>:<line>:<column>: <key>: <problem>".
Result<nav::BakeProfile> loadProfile(const std::filesystem::path& path);

/// Parses and validates profile text; `source_name` names it in messages.
Result<nav::BakeProfile> parseProfile(std::string_view text, const std::string& source_name);

/// The profile as TOML that parseProfile reads back to the same profile (every setting written
/// out, cell sizes as resolved). Stored in the world file as the effective settings.
std::string profileToToml(const nav::BakeProfile& profile);

/// BadInput, naming `source` and the agent, when an agent's settings written out as TOML (its
/// @profile in the world) would exceed kMaxProfileFileBytes: a profile whose stored form no
/// --profile could read (numbers and escapes take more room written out than typed, e.g. 100,000
/// inline modifier volumes, 4.8 MB typed, 18.5 MB stored). Checked before a bake.
Status checkStoredProfileSize(const nav::BakeProfile& profile, const std::string& source);

}  // namespace strata::formats
