// strata bake INPUT -o WORLD.h5 [--profile P.toml] [--agent NAME]... [--threads N] [--json] [--scale S]
// [--up y|z]: bakes the layered surface graph of every agent of a profile (or of the agents named)
// into a world file. INPUT is a
// mesh (imported on the fly with the import options) or a world file from `strata import`
// (its geometry and provenance are kept; earlier baked agents are replaced). Thin over
// nav::bakeWorld and formats::writeWorldFile; a progress bar with ETA on stderr when it is a
// terminal, a per-stage timing summary on stdout.

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <tbb/global_control.h>
#include <tbb/info.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "baked_input.h"
#include "command.h"
#include "strata/formats/import.h"
#include "strata/formats/machine_memory.h"
#include "strata/formats/profile.h"
#include "strata/formats/world_file.h"
#include "strata/nav/bake.h"

namespace strata::cli {
namespace {

// Out of memory under an address-space limit (ulimit -v): the limit is the other thing to raise
// (an audit: under `ulimit -v` 66000 the advice was only "raise cell_size").
Error underLimit(Error error) {
  const std::string advice = " (raise cell_size)";
  const std::uint64_t limit = formats::addressSpaceLimit();
  if (limit != 0 && error.message.size() >= advice.size() &&
      error.message.compare(error.message.size() - advice.size(), advice.size(), advice) == 0)
    error.message = error.message.substr(0, error.message.size() - advice.size()) +
                    fmt::format(" (raise cell_size, or the address-space limit, ulimit -v, of {} MiB)", limit >> 20);
  return error;
}

struct BakeCommandOptions {
  std::string input;             ///< mesh or world file
  std::string output;            ///< world file to write
  std::string profile;           ///< bake profile (TOML); empty = the default agent
  std::vector<std::string> agents; ///< --agent: the profile's agents to bake; empty = all of them
  int threads = 0;               ///< 0 = every CPU the process may run on
  bool json = false;             ///< one JSON document
  std::string up = "y";          ///< mesh inputs: source up axis
  formats::ImportOptions import; ///< mesh inputs: scale, sandbox limits
};

using Clock = std::chrono::steady_clock;

double millisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/// Renders bake progress as a one-line bar with ETA on stderr (only used on a terminal). The line
/// fits the terminal's width (TIOCGWINSZ, else $COLUMNS, else 80 columns): a long agent name is
/// cut short and the bar narrowed, so that the line never wraps (a wrapped line would not be
/// redrawn in place). On a terminal that cannot erase a line (TERM unset or "dumb", such as an
/// editor's shell buffer) only each stage's finished line is printed.
class ProgressBar final : public nav::BakeObserver {
 public:
  ProgressBar() : animate_(stderrCanRedrawLine()), width_(stderrColumns()) {}
  void stageStarted(const std::string& agent, const std::string& stage, std::size_t total) override {
    agent_ = agent, stage_ = stage;
    start_ = Clock::now();
    draw(0, total);
  }
  void stageProgress(std::size_t done, std::size_t total) override { draw(done, total); }
  void stageFinished(const std::string&, const std::string&, double milliseconds) override {
    const std::string tail = fmt::format(" done in {:.0f} ms", milliseconds);
    // (A line that ends is never redrawn: on a terminal too narrow for a readable label it keeps
    // the whole label and wraps.)
    const std::string label = width_ >= tail.size() + 12 ? fitted(24, tail.size()) : this->label();
    toStderr(fmt::format("{}{}{}\n", animate_ ? "\r\033[K" : "", label, tail));
    open_ = false;
  }
  /// Clears an unfinished bar, so that an error line starts at the left margin.
  void clear() {
    if (!open_) return;
    toStderr("\r\033[K");
    open_ = false;
  }

 private:
  /// "agent: stage" (the stage alone without an agent's name).
  std::string label() const { return agent_.empty() ? stage_ : agent_ + ": " + stage_; }
  /// The label padded to `pad` columns, or cut short so that `rest` more columns fit on the line
  /// without touching its last column: the agent's name first ("a_very_lo...: edges"), so that
  /// the stage stays readable (cutting the whole label dropped the stage on a narrow terminal
  /// beside a long name: an audit), then the stage itself (ending in "...").
  std::string fitted(std::size_t pad, std::size_t rest) const {
    const std::string label = this->label();
    const std::size_t room = width_ > rest + 1 ? width_ - rest - 1 : 0;
    if (label.size() <= room) return label.size() < pad && pad <= room ? label + std::string(pad - label.size(), ' ') : label;
    const std::string suffix = ": " + stage_;
    if (!agent_.empty() && room >= suffix.size() + 4) return agent_.substr(0, room - suffix.size() - 3) + "..." + suffix;
    if (stage_.size() <= room) return stage_;
    if (room <= 3) return stage_.substr(0, room);
    return stage_.substr(0, room - 3) + "...";
  }
  void draw(std::size_t done, std::size_t total) {
    if (!animate_) return;
    const auto now = Clock::now();
    if (done != 0 && done != total && now - last_draw_ < std::chrono::milliseconds(100)) return;
    last_draw_ = now;
    const double fraction = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 0.0;
    std::string eta = "--";
    if (fraction > 0.02) {
      const double elapsed = std::chrono::duration<double>(now - start_).count();
      eta = fmt::format("{:.0f}s", elapsed / fraction - elapsed);
    }
    const std::string figures = fmt::format(" {:3.0f}%  ETA {}", fraction * 100, eta);
    // The bar: 30 columns, narrowed to what the line leaves beside 24 columns of label, " [",
    // "]" and the figures (the last column stays free), and left out below 10.
    const std::size_t used = 24 + 3 + figures.size() + 1;
    const std::size_t spare = width_ > used ? width_ - used : 0;
    const std::size_t bar_width = std::min<std::size_t>(30, spare);
    std::string bar;
    if (bar_width >= 10) {
      const auto filled = static_cast<std::size_t>(fraction * static_cast<double>(bar_width));
      bar = " [" + std::string(filled, '#') + std::string(bar_width - filled, ' ') + "]";
    }
    std::string line = fitted(24, bar.size() + figures.size()) + bar + figures;
    if (line.size() >= width_) line.resize(width_ > 1 ? width_ - 1 : 0);  // a terminal narrower than the figures
    toStderr("\r\033[K" + line);
    open_ = true;
  }
  bool animate_;
  std::size_t width_;
  std::string agent_, stage_;  // of the stage under way
  bool open_ = false;  // a bar is drawn and its line not ended
  Clock::time_point start_, last_draw_;
};

nlohmann::ordered_json agentJson(const nav::BakedAgent& agent) {
  const nav::LayeredGraph& g = agent.graph;
  nlohmann::ordered_json doc;
  doc["name"] = agent.profile.settings.name;
  doc["cell_size"] = g.grid.cell_size;
  doc["grid"] = {g.grid.width_cells, g.grid.depth_cells};
  doc["columns"] = g.grid.columnCount();
  doc["nodes"] = g.nodeCount();
  doc["edges"] = g.edgeCount();
  doc["links"] = g.customLinkCount();
  doc["second_jumps"] = g.secondJumpCount();
  doc["components"] = g.component_count;
  doc["regions"] = g.region_count;
  doc["fields"] = nlohmann::ordered_json::array();
  for (const nav::RouteField& field : g.fields) doc["fields"].push_back(field.name);
  return doc;
}

int runBake(BakeCommandOptions& options) {
  namespace fs = std::filesystem;
  options.import.up = options.up == "z" ? formats::UpAxis::Z : formats::UpAxis::Y;
  if (std::string problem = options.import.validate(); !problem.empty()) return badInput("import options: " + problem);
  std::error_code ec;
  if (!fs::exists(options.input, ec)) return reportError(Error::noSuchFile(options.input));
  const fs::path output(options.output);
  // Before any work: the output's directory exists, it is not a directory, device or FIFO, and it
  // is neither the input nor the profile.
  if (const int code = checkWorldOutput(options.output, {options.input, options.profile}); code != kExitOk) return code;

  nav::BakeProfile profile = nav::BakeProfile::defaults();
  if (!options.profile.empty()) {
    auto loaded = formats::loadProfile(options.profile);
    if (!loaded) return reportError(loaded.error());
    profile = std::move(*loaded);
  }
  const std::string profile_name = options.profile.empty() ? "default profile" : options.profile;
  // --agent: only the agents named, in the profile's order (each name must be one of its agents).
  if (!options.agents.empty()) {
    const std::vector<std::string>& wanted = options.agents;
    std::vector<std::string> names;
    for (const nav::AgentProfile& agent : profile.agents) names.push_back(agent.settings.name);
    for (const std::string& name : wanted)
      if (std::find(names.begin(), names.end(), name) == names.end())
        return reportError(formats::noAgentError(profile_name, name, names));
    std::erase_if(profile.agents, [&](const nav::AgentProfile& a) {
      return std::find(wanted.begin(), wanted.end(), a.settings.name) == wanted.end();
    });
  }
  if (Status s = formats::checkStoredProfileSize(profile, profile_name); !s) return reportError(s.error());

  // Threads: the task arena of the bake and a global cap for anything else TBB runs.
  // The default: the CPUs this process may run on (TBB's default concurrency follows the
  // affinity mask and cgroup CPU limits; std::thread::hardware_concurrency counted the whole
  // machine, so a bake under `taskset -c 0` said and ran 2 threads: an audit).
  const int threads = options.threads > 0 ? options.threads : std::max(1, tbb::info::default_concurrency());
  if (const std::string problem = threadRoomShortfall(threads); !problem.empty()) return reportError(Error::runtime(problem));
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));

  // Input: a world file keeps its geometry and provenance; a mesh is imported now.
  nlohmann::ordered_json timings;
  // Every warning goes to stderr as it comes and, with --json, into the document's `warnings`
  // (as strata import's: an audit found a script reading bake --json never saw them).
  std::vector<std::string> warnings;
  auto warning = [&](const std::string& message) {
    warn(message);
    warnings.push_back(message);
  };
  formats::World world;
  const auto import_start = Clock::now();
  // What the import dropped (a mesh input; a world file's geometry was imported before): told as
  // strata import tells it.
  std::size_t degenerate_dropped = 0, non_triangles_dropped = 0;
  if (isWorldFile(options.input)) {
    // Its agents are baked anew: their stored graphs are not read.
    auto read = formats::readWorldFile(options.input, {formats::WorldReadOptions::Agents::ProfilesOnly, {}});
    if (!read) return reportError(read.error());
    world = std::move(*read);
    world.agents.clear();
  } else {
    auto imported = formats::importMeshes({fs::path(options.input)}, options.import);
    if (!imported) return reportError(imported.error());
    for (const std::string& message : imported->stats.warnings) warning(message);
    degenerate_dropped = imported->stats.degenerate_dropped;
    non_triangles_dropped = imported->stats.non_triangles_dropped;
    world.geometry = std::move(imported->mesh);
    world.provenance.inputs = imported->inputs;
    nlohmann::json import_options;
    import_options["scale"] = options.import.scale;
    import_options["up"] = options.up;
    world.provenance.import_options_json = jsonText(import_options);
  }
  world.provenance.tool_version = versionString();
  timings["import"] = millisecondsSince(import_start);

  ProgressBar bar;
  nav::BakeOptions bake_options;
  bake_options.threads = threads;
  bake_options.memory_limit_bytes = formats::usableMemoryBytes();
  if (stderrIsTerminal()) bake_options.observer = &bar;  // on stderr: with --json too (stdout holds the document)
  auto baked = nav::bakeWorld(world.geometry, profile, bake_options, options.input);
  bar.clear();
  if (!baked) return reportError(underLimit(baked.error()));
  for (const nav::BakedAgent& agent : baked->agents)
    for (const std::string& message : bakeWarnings(options.input, agent, world.geometry)) warning(message);
  // Stage times summed over agents (each agent's own times are in its entry).
  std::map<std::string, double> per_stage;
  std::vector<std::string> stage_order;
  for (const nav::StageTiming& t : baked->timings) {
    if (!per_stage.count(t.stage)) stage_order.push_back(t.stage);
    per_stage[t.stage] += t.milliseconds;
  }
  for (const std::string& stage : stage_order) timings[stage] = per_stage[stage];
  timings["total"] = baked->total_milliseconds;
  world.agents = std::move(baked->agents);

  const auto write_start = Clock::now();
  // Out of memory while writing (the compression buffers come on top of the baked graphs): the
  // message names the output and the agents' cell sizes, as the bake's own does (the generic
  // handler named the input mesh alone; a bake audit). The writer removes its temporary file.
  Status written = Ok{};
  try {
    written = formats::writeWorldFile(output, world);
  } catch (const std::bad_alloc&) {
    std::string agents;
    for (const nav::BakedAgent& agent : world.agents)
      agents += fmt::format("{}agent {} at cell_size {:g} m", agents.empty() ? "" : ", ", agent.profile.settings.name,
                            agent.graph.grid.cell_size);
    written = Error::runtime(output.string() + ": out of memory writing the world file of " + agents + " (raise cell_size)");
  }
  if (!written) return reportError(underLimit(written.error()));
  timings["write"] = millisecondsSince(write_start);

  nlohmann::ordered_json doc;
  doc["output"] = options.output;
  doc["threads"] = threads;
  doc["degenerate_dropped"] = degenerate_dropped;
  doc["non_triangles_dropped"] = non_triangles_dropped;
  doc["timings_ms"] = timings;
  doc["agents"] = nlohmann::ordered_json::array();
  for (const nav::BakedAgent& agent : world.agents) {
    nlohmann::ordered_json entry = agentJson(agent);
    nlohmann::ordered_json own;
    for (const nav::StageTiming& t : baked->timings)
      if (t.agent == agent.profile.settings.name) own[t.stage] = t.milliseconds;
    entry["timings_ms"] = own;
    doc["agents"].push_back(entry);
  }
  doc["warnings"] = warnings;
  if (options.json) {
    fmt::print("{}\n", printedJson(doc, 2));
    return kExitOk;
  }
  fmt::print("wrote {}: {} baked from {} ({}) on {}\n", printable(options.output), counted(world.agents.size(), "agent"),
             printable(options.input), counted(world.geometry.triangleCount(), "triangle"), counted(static_cast<std::size_t>(threads), "thread"));
  for (const auto& agent : doc["agents"])
    fmt::print("  agent {}: cell {} m, {}, {}, {}, {}, {}, {}, {}, {}\n", printable(agent["name"].get<std::string>()),
               agent["cell_size"].get<double>(), counted(agent["columns"].get<std::size_t>(), "column"),
               counted(agent["nodes"].get<std::size_t>(), "node"), counted(agent["edges"].get<std::size_t>(), "edge"),
               counted(agent["links"].get<std::size_t>(), "link"), counted(agent["second_jumps"].get<std::size_t>(), "second jump"),
               counted(agent["components"].get<std::uint32_t>(), "component"),  // strata info's order
               counted(agent["regions"].get<std::uint32_t>(), "reachability region"), counted(agent["fields"].size(), "field"));
  if (degenerate_dropped > 0 || non_triangles_dropped > 0)
    fmt::print("dropped {} and {}\n", counted(degenerate_dropped, "degenerate triangle"),
               counted(non_triangles_dropped, "point/line", "points/lines"));
  fmt::print("timings (ms):");
  for (const auto& [stage, ms] : timings.items()) fmt::print(" {} {:.1f}", stage, ms.get<double>());
  fmt::print("\n");
  return kExitOk;
}

std::function<int()> setupBake(CLI::App& app) {
  auto options = std::make_shared<BakeCommandOptions>();
  CLI::App* sub = app.add_subcommand(
      "bake",
      "Bake the layered surface graph of every agent of a profile (or of those --agent names) into a world "
      "file: floor nodes per column (road, bridge and roof at the same x/z stay distinct), walk/jump/drop/climb edges (and second jumps across "
      "pits whose drop holds a node's slot) and custom links with "
      "their costs, areas, headroom, clearance, connected components and route-distance fields. INPUT is a mesh "
      "(imported with --scale/--up) or a world file from strata import. Parallel and deterministic: the file is "
      "byte-identical at any --threads.");
  sub->add_option("INPUT", options->input, "a mesh file (.obj .gltf .glb .fbx .ply .stl) or a world file (.h5)")->required()->check(fileName());
  sub->add_option("-o,--output", options->output, "the world file to write (HDF5: a .h5 or .hdf5 name; written atomically; a symbolic link is written through; never an input, a directory or a device)")->required();
  sub->add_option("--profile", options->profile,
                  "bake profile (TOML, [agent.NAME] tables; see strata-bake(1) and docs/parameters.md); default: one "
                  "agent 'default' (radius 0.3 m, height 1.8 m, max_slope 45, step_height 0.4 m)")
      ->check(fileName());
  sub->add_option("--agent", options->agents,
                  "bake only this agent of the profile (repeatable; default: every agent); the world file then holds "
                  "only the agents baked (with a world INPUT too: its earlier agents are replaced as always)")
      ->type_name("NAME")
      ->allow_extra_args(false);
  sub->add_option("--threads", options->threads, "worker threads for the bake and for compressing the world file (0 = every CPU the process may run on: affinity and CPU limits count); never changes the result")
      ->default_val(0)
      ->transform(integerRange(0, 1024));
  sub->add_flag("--json", options->json,
                "print one JSON document: output, threads, degenerate_dropped and non_triangles_dropped (by the import of a mesh INPUT; 0 for a world), timings_ms (import, index, columns, edges, links, "
                "clearance, components, fields, total = the bake itself, write; index is built only for climbing agents) and agents: per agent name, cell_size, "
                "grid (column counts along x and z), columns, nodes, edges (second jumps included), links (custom), second_jumps, components, regions, fields and its own "
                "timings_ms; then warnings (each warning's text, as also printed on stderr)");
  sub->add_option("--scale", options->import.scale, "mesh inputs: uniform scale (e.g. 0.05 for Cube-engine maps); > 0")
      ->default_val(1.0)
      ->transform(positiveNumber());
  sub->add_option("--up", options->up, "mesh inputs: source up axis, y (default) or z")
      ->default_val("y")
      ->check(oneOf({"y", "z"}));
  sub->add_flag("--in-process", options->import.in_process,
                "mesh inputs: parse in this process without the import sandbox (trusted inputs only)");
  sub->footer(
      "Exit codes: 0 success; 1 runtime failure (I/O, out of memory); 2 bad usage or bad input: one line on\n"
      "stderr, strata: error: FILE: problem (unreadable mesh or world, profile errors as FILE:LINE:COLUMN:\n"
      "key: problem, an --agent the profile lacks, a link or field endpoint with no floor near it, agents\n"
      "whose estimated memory exceeds the machine's (or a container's memory limit), whose grid has more than\n"
      "4e8 columns, or whose triangles' lists per tile of columns would hold more than 4.29e9 entries or the\n"
      "memory). Warnings (strata: warning: ...) do not fail. A progress bar with ETA is drawn on stderr only\n"
      "when it is a terminal (fitted to its width; with TERM unset or dumb only each stage's finished line).\n"
      "See strata-bake(1).");
  return [options, sub] {
    // The import options have no meaning for a world file (its geometry is already imported).
    if (isWorldFile(options->input))
      for (const char* mesh_only : {"--scale", "--up", "--in-process"})
        if (sub->count(mesh_only) > 0)
          return badInput(options->input + ": " + mesh_only + " applies to mesh inputs, not to world files");
    return runBake(*options);
  };
}

}  // namespace

STRATA_COMMAND(bake, 30, setupBake)

}  // namespace strata::cli
