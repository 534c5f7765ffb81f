#pragma once
/// \file
/// The HDF5 world file: reading, validating and atomically writing it (schema in docs/format.md).

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "strata/formats/import.h"
#include "strata/nav/bake.h"
#include "strata/sim/mesh.h"
#include "strata/sim/result.h"

namespace strata::formats {

/// Schema version written to the root attribute `schema_version`. Readers read versions
/// kOldestWorldSchemaVersion to kWorldSchemaVersion and reject any other. Version 2 added
/// `link_kinds` (the bake's second jumps stored among the links); a version 1 file holds custom
/// links only. Version 3 added each agent's `region_reach_closure` attribute (region_reach may
/// hold the region DAG's edges instead of its closure); older files hold the closure.
inline constexpr std::int32_t kWorldSchemaVersion = 3;
/// The oldest schema version a reader accepts.
inline constexpr std::int32_t kOldestWorldSchemaVersion = 1;

/// Where the world came from; stored under /metadata. No timestamps, so output is reproducible.
struct Provenance {
  std::string tool_version;          ///< `strata --version` of the writer
  std::vector<InputRecord> inputs;   ///< mesh files and their hashes
  std::string import_options_json;   ///< the effective ImportOptions as JSON
};

/// Everything a world file holds.
struct World {
  sim::TriangleMesh geometry;
  Provenance provenance;
  std::vector<nav::BakedAgent> agents;  ///< per agent type the baked layered graph (/navigation); empty before `strata bake`
  std::int32_t schema_version = kWorldSchemaVersion;  ///< the version the file was read from (written: always kWorldSchemaVersion)
};

/// Writes `world` to `path` atomically: a temporary file beside the target, flushed, then
/// renamed. On failure nothing exists at `path` that was not there before. The same world always
/// gives the same bytes. Errors: BadInput when the world breaks a TriangleMesh invariant or a
/// provenance record is malformed (64-hex SHA-256, JSON options), an agent's graph or settings
/// would not pass readWorldFile's checks (LayeredGraph::validate(), the baked values, a profile
/// that reads back to the agent), or the directory does not exist; Runtime for I/O failures. Concurrent writers of one `path` each rename a whole file
/// into place (the last one wins). The agents must have been baked over `world.geometry` itself
/// (nav::bakeWorld of that mesh): readWorldFile refuses an agent whose column grid is not the
/// one a bake lays over the stored geometry's bounds.
/// Signals: as every atomic output of this library (TemporaryFile, output_file.h), the first
/// write installs process-wide handlers for SIGINT, SIGTERM and SIGHUP where their action is
/// still the default one, and leaves them installed; with no write in progress they end the
/// process by that signal as the default action would. A host that handles those signals itself
/// (before the first write) keeps its own handlers.
Status writeWorldFile(const std::filesystem::path& path, const World& world);

/// Which baked graphs readWorldFile reads. A world may hold several agents of millions of nodes
/// each; a command that uses one of them (or none) need not read and validate the others.
struct WorldReadOptions {
  enum class Agents {
    All,           ///< every agent, profile and graph (the default)
    One,           ///< only agent `agent` (empty: the first stored); the others are not read
    ProfilesOnly,  ///< every agent's profile; graphs left empty (grid included), nothing of them read
  };
  Agents agents = Agents::All;
  std::string agent;  ///< the agent to read with Agents::One; empty = the first stored agent
  /// Refuse (BadInput, before their arrays are read) agents whose graphs would take more than
  /// this many bytes together once read; 0: no limit. The CLI passes usableMemoryBytes()
  /// (machine_memory.h: physical memory, or the control group's limit when lower). An
  /// allocation that fails all the same is a Runtime error naming the agent.
  std::uint64_t memory_limit_bytes = 0;
  /// false: of /geometry only the vertices are read and checked (the agents' column grids are
  /// checked against their bounds); World::geometry then holds the vertices and no triangles,
  /// labels or tags, which are not read (a command that searches or queries a baked graph needs
  /// none of them: a one-off `strata path` on zdm2 spent about an eighth of its time on them).
  bool geometry = true;
};

/// Reads and validates a world file (schema version, datasets, shapes, dtypes, checksums, index
/// ranges, vertex bounds); a World that reads satisfies every TriangleMesh invariant. Every
/// failure is BadInput with a one-line message naming the file and the dataset, e.g.
/// "w.h5: /geometry/triangles: triangle 5: index 8 out of range (8 vertices)". With
/// `options`, only the agents asked for are read and validated (and, with `geometry` false, of
/// the geometry only the vertices); asking for an agent the file does not hold is BadInput "w.h5:
/// no agent 'x' (agents: a, b)" (a world without agents reads with none, whatever the options).
Result<World> readWorldFile(const std::filesystem::path& path, const WorldReadOptions& options = {});

/// BadInput "WHERE: no agent 'x' (agents: a, b)": an agent asked for by a name that is none of
/// `names` (readWorldFile's message; the tools say the same of a profile's agents).
Error noAgentError(const std::string& where, const std::string& wanted, const std::vector<std::string>& names);

}  // namespace strata::formats
