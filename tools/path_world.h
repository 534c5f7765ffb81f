#pragma once
// `strata path` over a baked world (layered graph): one request (--from/--to) or a batch
// (--batch REQUESTS.jsonl). tools/path.cpp owns the subcommand and hands world inputs here.

#include <CLI/CLI.hpp>

#include <memory>
#include <string>

namespace strata::cli {

/// Options of the world mode of `strata path` (the shared ones, --method, --budget and --json,
/// stay in path.cpp).
struct WorldPathOptions {
  std::string from;        ///< "x,y,z"
  std::string to;          ///< "x,y,z"
  std::string agent;       ///< agent name; empty = the first agent
  std::string profile;     ///< bake profile when the input is a mesh (baked in memory)
  double spacing = 0;      ///< waypoint spacing along walking legs, metres; 0 = none
  std::string spacing_text = "0";  ///< --spacing as typed (spaces dropped), for its messages
  bool closest = false;    ///< report ClosestNoPath with the closest route
  std::string batch;       ///< JSON-lines requests ("-": standard input)
  bool stream = false;     ///< answer each batch line as it arrives, flushing stdout (a co-process)
  std::string output;      ///< batch results file (written atomically); empty = stdout
  int threads = 0;         ///< batch worker threads; 0 = all hardware threads
  bool on_demand = false;  ///< search the geometry directly, building columns as the search reaches them
  double margin = 8.0;     ///< on-demand region margin around the endpoints, metres
};

/// Adds the world-mode options to the `path` subcommand.
std::shared_ptr<WorldPathOptions> addWorldPathOptions(CLI::App* sub);

/// True when `input` should be routed as a world (an HDF5 file, or a mesh to bake in memory)
/// rather than a Moving AI map.
bool isWorldPathInput(const std::string& input);

/// Runs the world mode. `sub` tells which options were given; `method`, `budget` and `json`
/// are the shared options of path.cpp. Returns the exit code.
int runWorldPath(const CLI::App& sub, const std::string& input, const std::string& method, std::int64_t budget,
                 bool json, const WorldPathOptions& options);

}  // namespace strata::cli
