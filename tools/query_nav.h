#pragma once
// Navigation kinds of `strata query` (nearest, height, los, sight, field, component, clearance)
// over a world's baked layered graph, and what every kind answers through (QueryIO): the
// terminal and the world read for one query, or one line of `strata query --batch`, whose
// world and agents are read once for the whole batch. tools/query.cpp owns the subcommand and
// adds these rows.

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <tbb/task_arena.h>

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "strata/nav/bake.h"
#include "strata/nav/layered_search.h"
#include "strata/sim/query_index.h"
#include "strata/sim/result.h"

namespace strata::cli {

/// A baked agent as the queries use it; its search view (an array per node) is built the first
/// time a query needs it, once, also when batch workers ask at the same time.
class QueryAgent {
 public:
  explicit QueryAgent(nav::BakedAgent baked) : baked_(std::move(baked)) {}
  const nav::LayeredGraph& graph() const { return baked_.graph; }
  const nav::AgentSettings& settings() const { return baked_.profile.settings; }
  const nav::LayeredSearchGraph& view() const {
    // Isolated: the view is built in parallel, and a worker waiting for that part must not take
    // up another request meanwhile, which could ask for this view again (call_once on its own
    // thread) and never return.
    std::call_once(view_once_, [this] {
      tbb::this_task_arena::isolate([this] { view_ = std::make_unique<nav::LayeredSearchGraph>(baked_.graph, baked_.profile.settings); });
    });
    return *view_;
  }

 private:
  nav::BakedAgent baked_;
  mutable std::once_flag view_once_;
  mutable std::unique_ptr<nav::LayeredSearchGraph> view_;
};

/// Where one query's answer goes and where its world comes from.
class QueryIO {
 public:
  virtual ~QueryIO() = default;
  /// The answer as JSON (--json; always in a batch), printed with `indent` (-1: one line).
  virtual void json(const nlohmann::ordered_json& doc, int indent) = 0;
  /// Text output (without --json).
  virtual void text(const std::string& text) = 0;
  /// A bad-input message for this query: returns the exit code (2).
  virtual int bad(const std::string& message) = 0;
  /// An error for this query: returns its exit code.
  virtual int fail(const Error& error) = 0;
  /// The baked agent `agent` (empty: the first) of the world, or of the mesh baked with
  /// `profile`. With `geometry`, the world's triangles are wanted too (geometry() follows).
  virtual Result<const QueryAgent*> agent(const std::string& agent, const std::string& profile, bool geometry) = 0;
  /// The world's triangles, indexed (after agent(..., true) for one query).
  virtual Result<const sim::QueryIndex*> geometry() = 0;
};

/// One navigation query kind: `setup` adds its options to its subcommand and returns the runner,
/// called with the query's IO, the WORLD argument and --json of `strata query`.
struct NavQueryKind {
  const char* name;         ///< kind name ("nearest", ...)
  const char* description;  ///< one line for --help
  std::function<std::function<int(QueryIO& io, const std::string& world, bool json)>(CLI::App& sub)> setup;  ///< adds options, returns the runner
};

/// The navigation kinds, in --help order.
const std::vector<NavQueryKind>& navQueryKinds();

}  // namespace strata::cli
