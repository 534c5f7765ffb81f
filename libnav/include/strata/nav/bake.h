#pragma once
/// \file
/// The offline bake: every column of the world, tile by tile in parallel, then edges, links,
/// areas, clearance, components and route-distance fields, for every agent of a profile.
/// Deterministic: the result does not depend on the thread count or scheduling (tiles are merged
/// in tile order, ids assigned in node order, no scheduling-dependent floating-point reductions).

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "strata/nav/layered_graph.h"
#include "strata/nav/profile.h"
#include "strata/sim/mesh.h"
#include "strata/sim/query_index.h"
#include "strata/sim/result.h"

namespace strata::nav {

/// Progress and timing callbacks, rendered by the CLI. The bake serializes every call (never two
/// at once), from whichever thread; reporting never changes results.
class BakeObserver {
 public:
  virtual ~BakeObserver() = default;
  /// A stage starts; `total` work units (0 when unknown). `agent` is empty for shared stages.
  virtual void stageStarted(const std::string& agent, const std::string& stage, std::size_t total) {
    (void)agent, (void)stage, (void)total;
  }
  /// `done` of the current stage's `total` units are finished (monotone within a stage).
  virtual void stageProgress(std::size_t done, std::size_t total) { (void)done, (void)total; }
  /// A stage finished after `milliseconds` of wall time.
  virtual void stageFinished(const std::string& agent, const std::string& stage, double milliseconds) {
    (void)agent, (void)stage, (void)milliseconds;
  }
};

/// Bake options (not stored in the world file: they never change the result).
/// Bytes of memory a bake takes per floor node (peak, measured on godot/town_model: 129-140).
inline constexpr double kBakeBytesPerNode = 120;
/// Bytes a baked graph keeps per column of its grid (column offsets), and bytes the agent being
/// baked holds per column while it runs (memory_limit_bytes' estimate).
inline constexpr double kBakeBytesPerColumn = 4;
inline constexpr double kBakeScratchBytesPerColumn = 5;
/// Bytes each route-distance field takes per floor node: a float kept, whatever its
/// max_distance, and one more while the world file is written (its [fields, nodes] array).
inline constexpr double kBakeBytesPerFieldNode = 8;

struct BakeOptions {
  int threads = 0;                  ///< worker threads; 0 = all hardware threads. [Limit: >= 0]
  int tile_cells = 32;              ///< largest tile edge in columns (unit of parallel work; smaller tiles on a small grid baked on several threads). [Limit: 4 .. 1024]
  BakeObserver* observer = nullptr; ///< optional progress/timing sink
  /// bakeWorld refuses (BadInput, before any work) a profile whose agents' estimated graphs
  /// together exceed this many bytes; 0 = no limit. The estimate per agent: walkable surface area
  /// (upward triangles within its slope limit, projected) / cell_size^2 floor nodes at
  /// kBakeBytesPerNode each and kBakeBytesPerFieldNode more per route-distance field, plus
  /// kBakeBytesPerColumn per column of its grid, plus kBakeScratchBytesPerColumn per column of
  /// the largest grid (and 12 bytes a node of it while a field is flooded). The CLI passes the
  /// machine's usable memory (formats::usableMemoryBytes: physical memory, or the control
  /// group's limit when lower, as in a container), so a cell size far too fine for the level fails at once with
  /// advice instead of running out of memory minutes later. While an agent is baked, its
  /// triangles' lists per tile and per sweep bin (each triangle once per tile or bin its bounds
  /// touch) are refused the same way (BadInput) when they alone would take more, or hold more
  /// than 2^32 - 1 entries (with or without a limit).
  std::uint64_t memory_limit_bytes = 0;
  /// An agent whose graph holds more floor nodes than this is baked with a warning (the level's
  /// size, the bytes, and the advice: --scale when the level is not in metres, else a larger
  /// cell_size); 0 = never. (A Cube map imported in its own units, 20 times too large, baked
  /// 15 million nodes for a 0.1 m cell in 2.4 GB without a word: an audit.)
  double large_bake_nodes = 1e7;
  /// Empty when valid, else "<field>: <problem>".
  std::string validate() const;
};

/// Wall time of one stage.
struct StageTiming {
  std::string agent;         ///< empty for shared stages (the query index)
  std::string stage;         ///< "index", "columns", "edges", "links", "clearance", "components", "fields"
  double milliseconds = 0;   ///< wall time
};

/// What was baked for one agent: its effective profile (cell size resolved) and its graph.
struct BakedAgent {
  AgentProfile profile;      ///< effective settings (stored in the world file)
  LayeredGraph graph;        ///< the baked graph
  /// What the bake left out and why, one line each, named like its errors (a custom link whose
  /// two ends snap to the same floor node leads nowhere: it is dropped with a warning).
  std::vector<std::string> warnings;
};

/// The result of a bake.
struct BakeResult {
  std::vector<BakedAgent> agents;    ///< in profile order
  std::vector<StageTiming> timings;  ///< in execution order
  double total_milliseconds = 0;     ///< wall time of the whole bake
};

/// Bakes every agent of `profile` over `mesh`. Errors (BadInput) name the agent and the problem,
/// e.g. a link endpoint with no floor near it. `source` names the input in messages. A world
/// file stores the result with `mesh` as its geometry: the reader checks each agent's column grid
/// against that geometry's bounds (makeGridFrame), so bake the mesh that is stored, not a
/// filtered copy.
Result<BakeResult> bakeWorld(const sim::TriangleMesh& mesh, const BakeProfile& profile, const BakeOptions& options,
                             const std::string& source = "input");

/// Bakes one agent with an existing query index built over `mesh` (runs in the calling
/// thread's task arena). The index is read only for climb edges (standing room and sweeps use
/// local triangle lists), so for an agent that does not climb it may be empty; bakeWorld builds
/// it only when some agent climbs. For an agent that climbs it must be the index of `mesh`'s own
/// triangles: this is not checked, and an empty index or another mesh's gives that agent no
/// climb edges (or wrong ones) without an error. Appends its stage timings to `timings` when not null.
Result<BakedAgent> bakeAgent(const sim::TriangleMesh& mesh, const sim::QueryIndex& index, const AgentProfile& agent,
                             const BakeOptions& options, std::vector<StageTiming>* timings = nullptr,
                             const std::string& source = "input");

/// The area table a bake gives an agent, in area index order: "default" at cost 1, then each
/// area that the profile's rules and modifier volumes name, in profile order, at the cost it is
/// first given (a world file's reader checks the stored table against it).
void profileAreaTable(const AgentProfile& agent, std::vector<std::string>& names, std::vector<float>& costs);

}  // namespace strata::nav
