// strata path WORLD: layered routes over a baked world (libnav/layered_search.h).
//
//   strata path WORLD --from X,Y,Z --to X,Y,Z [--agent A] [--method astar|theta|direct|corridor|interval]
//                     [--budget N] [--spacing M] [--closest] [--json]
//   strata path WORLD --batch REQUESTS.jsonl|- [-o RESULTS.jsonl] [--threads N]
//   strata path WORLD --batch -|FILE --stream [--threads N]
//
// Exit codes: 0 a path was found (batch: every request found one), 3 the answer is a failure
// reason (NoPath, BudgetExhausted, ...; batch: at least one), 2 bad input, 1 runtime failure.

#include "path_world.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>


#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "baked_input.h"
#include "batch_input.h"
#include "command.h"
#include "nav_json.h"
#include "strata/formats/output_file.h"
#include "strata/formats/render.h"
#include "strata/formats/world_file.h"
#include "strata/nav/layered_search.h"
#include "strata/nav/movingai.h"
#include "strata/nav/on_demand.h"

namespace strata::cli {
namespace {

using Json = nlohmann::ordered_json;

// The label of the link a waypoint arrives by, null for other waypoints.
const std::string* linkLabel(const nav::LayeredGraph& graph, const nav::Waypoint& w) {
  if (w.action != nav::MoveAction::Link || w.link < 0 || std::size_t(w.link) >= graph.link_labels.size()) return nullptr;
  return &graph.link_labels[std::size_t(w.link)];
}

Json resultJson(const nav::PathResult& r, const nav::LayeredGraph& graph, const std::string& agent,
                nav::SearchMethod method) {
  Json doc;
  doc["found"] = r.ok();
  doc["reason"] = std::string(nav::failureName(r.failure));
  doc["agent"] = agent;
  doc["method"] = std::string(nav::methodName(method));
  doc["answered_by"] = std::string(nav::methodName(r.answered_by));
  putRouteNumbers(doc, r);
  doc["expansions"] = r.expansions;
  Json waypoints = Json::array();
  for (const nav::Waypoint& w : r.waypoints) {
    Json point{{"position", jsonPoint(w.position)}, {"action", std::string(nav::actionName(w.action))},
               {"area", areaName(graph, w.area)}};
    if (const std::string* label = linkLabel(graph, w)) point["link"] = *label;
    waypoints.push_back(std::move(point));
  }
  doc["waypoints"] = std::move(waypoints);
  return doc;
}

void printText(const nav::PathResult& r, const nav::LayeredGraph& graph, const std::string& agent,
               nav::SearchMethod method) {
  fmt::print("result: {}\nagent: {}\nmethod: {}", r.ok() ? "found" : std::string(nav::failureName(r.failure)), printable(agent),
             nav::methodName(method));
  if (r.answered_by != method) fmt::print(" (answered by {})", nav::methodName(r.answered_by));
  fmt::print("\n");
  // Length and cost belong to a route (found, or the closest one); a failure without one has
  // only its expansions.
  if (!r.waypoints.empty()) fmt::print("length: {:.3f} m\ncost: {:.3f}\n", r.length, r.cost);
  fmt::print("expansions: {}\n", r.expansions);
  if (r.waypoints.empty()) return;
  fmt::print("waypoints: {}\n", r.waypoints.size());
  for (std::size_t i = 0; i < r.waypoints.size(); ++i) {
    const nav::Waypoint& w = r.waypoints[i];
    fmt::print("  {:>3}  {:<5}  {:10.3f} {:8.3f} {:10.3f}  {}", i, nav::actionName(w.action), shown(w.position.x),
               shown(w.position.y), shown(w.position.z), areaName(graph, w.area));
    if (const std::string* label = linkLabel(graph, w)) fmt::print("  via {}", printable(*label));
    fmt::print("\n");
  }
}

// After the text of a NoPath answered before any search, why (a fresh-user audit: the answer
// gave no reason, and the goal had snapped to a roof): the ends are farther apart than the
// search's horizontal limit, or the floors they snapped to (printed) lie in different components
// of the bake, or in one component that only one-way edges (drops, jumps down, one-way links)
// join the wrong way.
// `view`: the one the route was searched on.
void printWhyNoPath(const nav::PathResult& r, const nav::LayeredSearchGraph& view, const sim::Vec3& from, const sim::Vec3& to,
                    const nav::LayeredSearchSettings& settings) {
  if (r.failure != nav::PathFailure::NoPath || r.expansions != 0) return;
  const double apart = std::hypot(to.x - from.x, to.z - from.z);
  if (!(apart <= settings.limits.max_horizontal_distance)) {
    fmt::print("why: the ends are {:.3f} m apart horizontally, more than the search's limit of {:g} m\n", apart,
               settings.limits.max_horizontal_distance);
    return;
  }
  const nav::LayeredGraph& graph = view.graph();
  const nav::NodeId start = nav::snapToNode(graph, from, settings.snap), goal = nav::snapToNode(graph, to, settings.snap);
  if (start == nav::kNoNode || goal == nav::kNoNode || !view.provablyUnreachable(start, goal)) return;
  const auto floor = [&](nav::NodeId n) {
    const sim::Vec3 p = graph.nodePosition(n);
    return fmt::format("({:.3f}, {:.3f}, {:.3f}), component {}", shown(p.x), shown(p.y), shown(p.z), graph.component[n]);
  };
  fmt::print("why: the start snapped to the floor at {}, the goal to the floor at {}: ", floor(start), floor(goal));
  if (graph.component[start] != graph.component[goal]) fmt::print("no edge or link joins their components\n");
  else fmt::print("only one-way edges (drops, jumps down, one-way links) join them, none leading from the start's side to the goal's\n");
}

// The baked graphs of the agents a run needs, loaded once each.
class AgentCache {
 public:
  AgentCache(std::string input, std::string profile) : input_(std::move(input)), profile_(std::move(profile)) {}
  // Index of the agent (empty name = the first); an error names the input and the agent.
  Result<std::size_t> get(const std::string& name) {
    if (auto it = index_.find(name); it != index_.end()) return it->second;
    // A failure is kept too: a stream of lines naming an agent the world lacks read the world
    // file again for each (3,000 such lines took 4 s: a review).
    if (auto it = failed_.find(name); it != failed_.end()) return it->second;
    // The first agent named by "" and by its name is one graph (a batch of both read
    // it, or baked it, twice). A mesh is imported once, for every agent baked from it.
    if (!name.empty())
      for (const auto& [asked, i] : index_)
        if (asked.empty() && agents_[i]->profile.settings.name == name) return index_[name] = i;
    const sim::TriangleMesh* imported = mesh_ ? &*mesh_ : nullptr;
    sim::TriangleMesh* keep = imported == nullptr && !isWorldFile(input_) ? &mesh_.emplace() : nullptr;
    auto baked = loadBakedAgent(BakedInputOptions{input_, name, profile_, imported}, keep);
    if (!baked) {
      if (mesh_ && mesh_->triangles.empty()) mesh_.reset();
      return failed_.emplace(name, baked.error()).first->second;
    }
    if (name.empty())
      for (const auto& [asked, i] : index_)
        if (agents_[i]->profile.settings.name == baked->profile.settings.name) return index_[name] = i;
    agents_.push_back(std::make_unique<nav::BakedAgent>(std::move(*baked)));
    const nav::BakedAgent& a = *agents_.back();
    views_.push_back(std::make_unique<nav::LayeredSearchGraph>(a.graph, a.profile.settings));
    index_[name] = agents_.size() - 1;
    return agents_.size() - 1;
  }
  const nav::BakedAgent& agent(std::size_t i) const { return *agents_[i]; }
  const nav::LayeredSearchGraph& view(std::size_t i) const { return *views_[i]; }
  std::vector<const nav::LayeredSearchGraph*> views() const {
    std::vector<const nav::LayeredSearchGraph*> v;
    for (const auto& view : views_) v.push_back(view.get());
    return v;
  }

 private:
  std::string input_, profile_;
  std::optional<sim::TriangleMesh> mesh_;  ///< a mesh input's triangles, once imported
  std::map<std::string, std::size_t> index_;
  std::map<std::string, Error> failed_;
  std::vector<std::unique_ptr<nav::BakedAgent>> agents_;
  std::vector<std::unique_ptr<nav::LayeredSearchGraph>> views_;
};

// One line of a batch file read into a request (on a worker thread: every line of a block is
// parsed in parallel, then taken in order). `error` non-empty: the line's bad-input message.
struct ParsedLine {
  bool blank = false;             // nothing but spaces and tabs: no request
  nav::LayeredPathRequest request;
  std::string agent;              // the agent it names (the default agent's name when none)
  Json id;                        // its "id", null when it gave none
  std::string error;
};

ParsedLine parseRequestLine(std::string& line, std::size_t number, const std::string& file,
                            const nav::LayeredSearchSettings& defaults, const std::string& default_agent) {
  ParsedLine out;
  const auto fail = [&](std::string message) {
    out.error = std::move(message);
    return out;
  };
  RequestObject object = parseRequestObject(line, number, file);
  if (object.blank) {
    out.blank = true;
    return out;
  }
  if (!object.error.empty()) return fail(std::move(object.error));
  Json& request = object.request;
  const auto where = [&] { return fmt::format("{}:{}", file, number); };
  for (const auto& [key, value] : request.items()) {
    (void)value;
    if (key != "from" && key != "to" && key != "agent" && key != "method" && key != "budget" && key != "spacing" &&
        key != "closest" && key != "id")
      return fail(where() + ": unknown member \"" + key +
                      "\" (a request has from, to, agent, method, budget, spacing, closest, id)");
  }
  nav::LayeredPathRequest& r = out.request;
  r.settings = defaults;
  const auto from = request.contains("from") ? pointFromJson(request["from"]) : std::nullopt;
  const auto to = request.contains("to") ? pointFromJson(request["to"]) : std::nullopt;
  if (!from) return fail(where() + ": \"from\" must be an array of three finite numbers");
  if (!to) return fail(where() + ": \"to\" must be an array of three finite numbers");
  r.from = *from;
  r.to = *to;
  std::string& agent = out.agent;
  agent = default_agent;
  if (request.contains("agent")) {
    if (!request["agent"].is_string()) return fail(where() + ": \"agent\" must be a string");
    agent = request["agent"].get<std::string>();
    if (agent.empty()) return fail(where() + ": \"agent\" must not be empty (leave it out for the default agent)");
  }
  if (request.contains("method")) {
    const auto m = request["method"].is_string() ? nav::parseMethod(request["method"].get<std::string>()) : std::nullopt;
    if (!m) return fail(where() + ": \"method\" must be one of " + nav::methodNames());
    r.settings.method = *m;
  }
  if (request.contains("budget")) {
    // Beyond the int64 range: an unsigned integer, or one past 2^64 that the parser keeps as a
    // float (18446744073709551616, 1e19).
    const Json& budget = request["budget"];
    if ((budget.is_number_unsigned() && budget.get<std::uint64_t>() > std::uint64_t(std::numeric_limits<std::int64_t>::max())) ||
        (budget.is_number_float() && budget.get<double>() >= 0x1p63))
      return fail(where() + ": \"budget\" must be at most " + std::to_string(std::numeric_limits<std::int64_t>::max()));
    // A whole number written as a float (1000.0, 1e3: what Python's json.dumps writes for a
    // float) is that integer, as the query batch's integer members take it (an audit).
    const bool whole_float = budget.is_number_float() && std::isfinite(budget.get<double>()) &&
                             std::trunc(budget.get<double>()) == budget.get<double>();
    if (!(budget.is_number_integer() || whole_float) || budget.get<double>() < 0)
      return fail(where() + ": \"budget\" must be a whole number >= 0");
    r.settings.limits.max_expansions = whole_float ? static_cast<std::int64_t>(budget.get<double>()) : budget.get<std::int64_t>();
  }
  if (request.contains("spacing")) {
    const double spacing = request["spacing"].is_number() ? request["spacing"].get<double>() : -1;
    if (!(spacing == 0 || (spacing >= 0.05 && std::isfinite(spacing))))
      return fail(where() + ": \"spacing\" must be 0 (none) or a finite number >= 0.05 (metres)");
    r.settings.waypoint_spacing = spacing;
  }
  if (request.contains("closest")) {
    if (!request["closest"].is_boolean()) return fail(where() + ": \"closest\" must be true or false");
    r.settings.return_closest = request["closest"].get<bool>();
  }
  // The caller's own name for the request, echoed in its result (scripts match results by it
  // rather than by line number: an audit).
  Json& id = out.id;
  if (request.contains("id")) {
    id = request["id"];
    if (std::string problem = idProblem(id); !problem.empty()) return fail(where() + ": " + problem);
  }
  if (Status valid = r.settings.validate(); !valid) return fail(where() + ": " + valid.error().message);
  return out;
}

// The block's lines parsed on the workers (a batch of short routes spent more time parsing and
// printing JSON than searching), into `parsed` in line order.
void parseBlock(tbb::task_arena& arena, std::vector<std::string>& texts, const std::vector<std::size_t>& numbers,
                const std::string& name, const nav::LayeredSearchSettings& defaults, const std::string& default_agent,
                std::vector<ParsedLine>& parsed) {
  parsed.assign(texts.size(), ParsedLine{});
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, texts.size(), 64), [&](const tbb::blocked_range<std::size_t>& range) {
      for (std::size_t k = range.begin(); k != range.end(); ++k)
        parsed[k] = parseRequestLine(texts[k], numbers[k], name, defaults, default_agent);
    });
  });
}

// A batch result: the request's line number and "id", then the result, as one JSON line.
std::string resultLine(const AgentCache& cache, const nav::LayeredPathRequest& request, std::size_t line, const Json& id,
                       const nav::PathResult& result) {
  const nav::BakedAgent& agent = cache.agent(request.agent);
  Json doc;
  doc["line"] = line;
  if (!id.is_null()) doc["id"] = id;
  Json answer = resultJson(result, agent.graph, agent.profile.settings.name, request.settings.method);
  for (auto& [key, value] : answer.items()) doc[key] = std::move(value);
  return printedJson(std::move(doc), -1, {request.from.x, request.from.z, request.to.x, request.to.z}) + "\n";
}

// --stream: the lines are answered as they arrive, in order, each group of lines that are there
// at once in parallel, and stdout is flushed after each group, so that a program can write a
// request and read its result before writing the next one (the world is read once). A bad line
// does not end the stream: its result line is {"line", "id" when it has one, "error"}, the same
// message goes to stderr, and the exit status is 2 at the end. A line over the length limit or
// a read error ends it (after the lines before them are answered).
int streamBatch(int fd, const std::string& name, AgentCache& cache, const nav::LayeredSearchSettings& defaults,
                const std::string& default_agent, const WorldPathOptions& options, tbb::task_arena& arena) {
  // A group also ends at 16 MiB of text, as a batch's parse block does (4,096 lines of 1 MiB
  // held at once would take gigabytes: a review).
  constexpr std::size_t kGroup = 4096, kGroupBytes = std::size_t(16) << 20;
  DescriptorLines reader(fd);
  nav::SearchState state;  // a lone request is answered on this thread, with its state kept
  bool all_found = true, refused = false;
  std::size_t number = 0;
  std::vector<std::string> texts;
  std::vector<std::size_t> numbers;
  std::vector<ParsedLine> parsed;
  for (bool more = true; more;) {
    // One line (waiting for it), then those already there.
    const LineRead stopped = readBlock(reader, number, kGroup, kGroupBytes, true, texts, numbers);
    more = stopped == LineRead::Line;
    parseBlock(arena, texts, numbers, name, defaults, default_agent, parsed);
    std::vector<nav::LayeredPathRequest> requests;
    std::vector<std::size_t> asked;  // per request: its index in `parsed`
    std::vector<std::string> printed(parsed.size());
    std::optional<Error> fatal;  // an agent that could not be read (not for bad input): the lines before are answered
    for (std::size_t k = 0; k < parsed.size(); ++k) {
      ParsedLine& p = parsed[k];
      if (p.blank) continue;
      if (p.error.empty()) {
        auto index = cache.get(p.agent);
        if (index) {
          p.request.agent = *index;
          requests.push_back(p.request);
          asked.push_back(k);
          continue;
        }
        if (index.error().kind != ErrorKind::BadInput) {
          fatal = index.error();
          printed.resize(k);
          break;
        }
        p.error = fmt::format("{}:{}: {}", name, numbers[k], index.error().message);
      }
      refused = true;
      reportError(Error::badInput(p.error));
      printed[k] = errorLine(numbers[k], refusedId(texts[k]), p.error);
    }
    std::vector<nav::PathResult> results;
    if (requests.size() == 1) {
      const nav::LayeredPathRequest& r = requests.front();
      results.push_back(nav::findLayeredPath(cache.view(r.agent), r.from, r.to, r.settings, state));
    } else if (!requests.empty()) {
      results = nav::findLayeredPaths(cache.views(), requests, options.threads);
    }
    for (std::size_t i = 0; i < results.size(); ++i) {
      const std::size_t k = asked[i];
      printed[k] = resultLine(cache, requests[i], numbers[k], parsed[k].id, results[i]);
      all_found = all_found && results[i].ok();
    }
    std::string text;
    for (const std::string& p : printed) text += p;
    // A failed write or flush throws, and the command's caller says "standard output: <why>"
    // once (main.cpp), as for every command's output.
    fmt::print("{}", text);
    errno = 0;
    if (std::fflush(stdout) != 0) throw std::system_error(errno != 0 ? errno : EIO, std::generic_category(), "standard output");
    if (fatal) return reportError(*fatal);
    if (const int code = reportStop(stopped, name, number); code != kExitOk) return code;
  }
  return refused ? kExitBadInput : all_found ? kExitOk : kExitNegative;
}

int runBatch(const CLI::App& sub, const std::string& input, const nav::LayeredSearchSettings& defaults,
             const std::string& default_agent, const WorldPathOptions& options) {
  // Room for the workers first: one that cannot start ends the process (threadRoomShortfall).
  if (const std::string problem = threadRoomShortfall(options.threads); !problem.empty())
    return reportError(Error::runtime(problem));
  // More threads than cores is the caller's choice: lift TBB's default cap (hardware threads),
  // which otherwise ignores the extra workers with a warning on stderr. Set before the world is
  // read, whose chunks are read in parallel too (a memory audit saw that read run at TBB's
  // default concurrency whatever --threads said).
  std::optional<tbb::global_control> limit;
  if (options.threads > 0)
    limit.emplace(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(options.threads));
  // "-": the requests come on standard input, named so in messages.
  BatchSource source;
  if (const int code = source.open(options.batch, options.output, {input, options.profile}); code != kExitOk) return code;
  const std::string& name = source.name();
  const bool from_stdin = source.fromStdin();
  const int fd = source.fd();
  AgentCache cache(input, options.profile);
  // The input first, whatever the requests hold (an empty batch on a file that is no world used
  // to succeed, and a world's error was blamed on the first request). From a world file, the
  // file and its agents' profiles, and the default agent must be one of them; each agent's graph
  // is read when a request names it, so a damaged agent that no request names does not fail the
  // batch (it did: the default agent's graph was read up front). A mesh is baked now.
  if (isWorldFile(input) && options.profile.empty()) {
    formats::WorldReadOptions read{formats::WorldReadOptions::Agents::ProfilesOnly, {}};
    auto world = formats::readWorldFile(input, read);
    if (!world) return reportError(world.error());
    // No agents, or no default agent of that name: loading it gives the loader's own message.
    const bool present = !world->agents.empty() &&
                         (default_agent.empty() ||
                          std::any_of(world->agents.begin(), world->agents.end(),
                                      [&](const nav::BakedAgent& a) { return a.profile.settings.name == default_agent; }));
    if (!present)
      if (auto named = cache.get(default_agent); !named) return reportError(named.error());
  } else if (auto first = cache.get(default_agent); !first) {
    return reportError(first.error());
  }
  std::vector<nav::LayeredPathRequest> requests;
  std::vector<std::size_t> lines;
  std::vector<Json> ids;  // per request: its "id", null when it gave none
  // The requests are read a block of lines at a time, each block's lines parsed in parallel (a
  // batch of short routes spent more time parsing and printing JSON than searching, on one
  // thread whatever --threads said: 20,000 corridor requests 1.5 s on 1 thread and on 2) and
  // then taken in line order, so that the first bad line is the one reported (once its block is
  // read: at most a block past it).
  tbb::task_arena arena(options.threads > 0 ? options.threads : tbb::task_arena::automatic);
  if (options.stream) return streamBatch(fd, name, cache, defaults, default_agent, options, arena);
  // (A block also ends at 16 MiB of text: 8,192 lines of up to 1 MiB each held at once took
  // gigabytes, where one line at a time had taken 22 MB: a review.)
  constexpr std::size_t kParseBlock = 8192, kParseBlockBytes = std::size_t(16) << 20;
  DescriptorLines reader(fd);
  std::vector<std::string> texts;
  std::vector<std::size_t> numbers;
  std::vector<ParsedLine> parsed;
  std::size_t number = 0;
  for (bool more = true; more;) {
    // A line that cannot be read ends the block; its error comes after the lines before it.
    const LineRead stopped = readBlock(reader, number, kParseBlock, kParseBlockBytes, false, texts, numbers);
    more = stopped == LineRead::Line;
    parseBlock(arena, texts, numbers, name, defaults, default_agent, parsed);
    for (std::size_t k = 0; k < parsed.size(); ++k) {
      ParsedLine& p = parsed[k];
      if (p.blank) continue;
      if (!p.error.empty()) return badInput(p.error);
      auto index = cache.get(p.agent);
      if (!index) {
        if (index.error().kind == ErrorKind::BadInput)
          return badInput(fmt::format("{}:{}: {}", name, numbers[k], index.error().message));
        return reportError(index.error());
      }
      p.request.agent = *index;
      requests.push_back(std::move(p.request));
      lines.push_back(numbers[k]);
      ids.push_back(std::move(p.id));
    }
    if (const int code = reportStop(stopped, name, number); code != kExitOk) return code;
  }
  (void)sub;
  // A batch of no requests answers nothing: said, so that a CI step whose request file came out
  // empty (a filter that lost every line) does not pass unseen; the (empty) results are written.
  if (requests.empty())
    warn(fmt::format("{}: no requests ({}): {}", printable(name), number == 0 ? (from_stdin ? "standard input is empty" : "the file is empty") : "blank lines only",
                     options.output.empty() ? "no results" : "an empty results file is written"));
  // Results go out as they are found, a chunk of requests at a time in input order, so that a
  // batch's memory is its requests and one chunk's results (100,000 short requests took 159 MB
  // when every result and the whole text were kept until the end: an audit). A results file is a
  // temporary until the last chunk is written, then renamed into place.
  std::unique_ptr<formats::AtomicFileWriter> writer;
  if (!options.output.empty()) {
    auto opened = formats::AtomicFileWriter::open(options.output);
    if (!opened) return reportError(opened.error());
    writer = std::move(*opened);
  }
  constexpr std::size_t kChunk = 4096;
  bool all_found = true;
  Status written = Ok{};
  std::string text;
  std::vector<std::string> printed;
  nav::findLayeredPaths(cache.views(), requests, options.threads, kChunk, [&](std::size_t first, std::vector<nav::PathResult>& results) {
    // Each result printed on the workers (in parallel, as the requests were parsed), then the
    // chunk's lines joined in request order.
    printed.assign(results.size(), std::string());
    arena.execute([&] {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, results.size(), 16), [&](const tbb::blocked_range<std::size_t>& range) {
        for (std::size_t k = range.begin(); k != range.end(); ++k) {
          const std::size_t i = first + k;
          printed[k] = resultLine(cache, requests[i], lines[i], ids[i], results[k]);
        }
      });
    });
    text.clear();
    for (std::size_t k = 0; k < results.size(); ++k) {
      text += printed[k];
      all_found = all_found && results[k].ok();
    }
    if (writer) written = writer->write(text);
    else fmt::print("{}", text);
    return bool(written);
  });
  if (writer && written) written = writer->commit();
  if (!written) return reportError(written.error());
  return all_found ? kExitOk : kExitNegative;
}

int runOnDemand(const std::string& input, const sim::Vec3& from, const sim::Vec3& to,
                const nav::LayeredSearchSettings& settings, bool json, const WorldPathOptions& options) {
  if (settings.method != nav::SearchMethod::AStar)
    return badInput("--on-demand: only --method astar runs without a baked graph");
  nav::OnDemandSettings region;
  region.margin = options.margin;
  if (Status valid = region.validate(); !valid) return reportError(valid.error());
  auto loaded = loadUnbakedInput(BakedInputOptions{input, options.agent, options.profile});
  if (!loaded) return reportError(loaded.error());
  const sim::QueryIndex index(loaded->mesh);
  nav::SearchState state;
  auto answer = nav::findOnDemandPath(loaded->mesh, index, loaded->agent, from, to, settings, region, state);
  if (!answer) return reportError(answer.error());
  nav::LayeredGraph names;  // the area names and link labels the waypoints refer to
  names.area_names = answer->area_names;
  names.link_labels = answer->link_labels;
  const std::string& agent = loaded->agent.settings.name;
  const nav::PathResult& result = answer->path;
  if (json) {
    Json doc = resultJson(result, names, agent, settings.method);
    // The last region's size; what was built, summed over every region searched (none when the
    // horizontal limit answered first: regions 0, null region).
    const bool searched = answer->regions > 0;
    doc["on_demand"] = {{"regions", answer->regions},
                        {"cell_size", searched ? Json(answer->region.grid.cell_size) : Json()},
                        {"factor", searched ? Json(answer->region.factor) : Json()},
                        {"columns", searched ? Json(answer->region.grid.columnCount()) : Json()},
                        {"columns_built", answer->columns_built},
                        {"nodes_built", answer->nodes_built}};
    fmt::print("{}\n", printedJson(doc, -1, {from.x, from.z, to.x, to.z}));
  } else {
    printText(result, names, agent, settings.method);
    if (answer->regions == 0)
      fmt::print("on demand: no region searched (the endpoints are farther apart than the horizontal limit)\n");
    else
      fmt::print("on demand: {} region{}, the last {}x{} columns of {:.3f} m (factor {}); {} columns built, {} floor nodes in all\n",
                 answer->regions, answer->regions == 1 ? "" : "s", answer->region.grid.width_cells,
                 answer->region.grid.depth_cells, answer->region.grid.cell_size, answer->region.factor,
                 answer->columns_built, answer->nodes_built);
  }
  return result.ok() ? kExitOk : kExitNegative;
}

}  // namespace

std::shared_ptr<WorldPathOptions> addWorldPathOptions(CLI::App* sub) {
  auto options = std::make_shared<WorldPathOptions>();
  auto group = sub->add_option_group("World", "Routes over a baked world (a .h5 world file, or a mesh baked in memory); errors with a Moving AI map, but for --from, --to and --spacing of one request on it");
  group->add_option("--from", options->from, "Start X,Y,Z in metres (snaps to the floor below it within 1 m horizontally, else NoStartNode); on a Moving AI map the start cell X,Y (column, row)");
  group->add_option("--to", options->to, "Goal X,Y,Z in metres (snaps to the floor below it within 1 m horizontally, else NoGoalNode); on a Moving AI map the goal cell X,Y (column, row)");
  group->add_option("--agent", options->agent,
                    "Agent name (default: the first agent of the world; only the agents used are read)")
      ->check(agentName());
  group->add_option("--profile", options->profile, "Bake profile (.toml) when INPUT is a mesh instead of a world file; with --on-demand, also with a world (its agents' profiles then unused)")->check(fileName());
  group->add_option("--spacing", options->spacing,
                    "Extra waypoints at most this far apart horizontally along walking legs, metres (cells on a map; 0 = none; else >= 0.05)")
      ->default_str("0")
      ->transform(nonNegativeNumber())
      ->each([options](const std::string& text) { options->spacing_text = text; });
  group->add_flag("--closest", options->closest,
                  "When the goal is not reached but the search got closer, answer ClosestNoPath with that route");
  group->add_option("--batch", options->batch,
                    "JSON-lines requests (- for standard input), one per line: {\"from\":[x,y,z],\"to\":[x,y,z]} and optionally \"agent\",\n"
                    "\"method\", \"budget\", \"spacing\", \"closest\" (override the options for that request), \"id\" (a\n"
                    "string or integer echoed in its result); any other member, or a line over 1 MiB, is an error")
      ->check(fileName());
  group->add_flag("--stream", options->stream,
                  "Answer each --batch line as it arrives and flush its result at once (results on stdout, in order; a bad "
                  "line gets an \"error\" result and the rest go on): a co-process reads a result before writing the next request");
  group->add_option("-o,--output", options->output, "Batch results file: a .jsonl (or .ndjson, .json) name (JSON lines, written atomically; a symbolic link is written through; never an input, a directory or a device); default stdout");
  group->add_option("--threads", options->threads, "Batch worker threads, which read, answer and print the requests (0 = every CPU the process may run on); with --batch only")
      ->default_str("0")
      ->transform(integerRange(0, 1024));
  group->add_flag("--on-demand", options->on_demand,
                  "Search the geometry itself (a world file, baked or not, or a mesh; astar only): columns are built as the "
                  "search reaches them, in a region around the endpoints (cell size: the larger of the region's "
                  "span / 128 and the agent's cell size; regions 1x, 2x, 4x, sharing one --budget)");
  group->add_option("--margin", options->margin, "On-demand region margin around the endpoints, metres (at least the 1 m snap radius is kept; a wider region samples coarser columns)")
      ->default_str("8")
      ->transform(nonNegativeNumber(nav::OnDemandSettings::kMaxMargin));
  return options;
}

bool isWorldPathInput(const std::string& input) {
  const std::string head = readHead(input, 256);
  if (head.rfind("\x89HDF\r\n\x1a\n", 0) == 0) return true;
  if (nav::looksLikeMovingAiMap(head)) return false;
  // Anything else, an empty or unreadable file included, by its name: the world reader says
  // what is wrong with a world, a mesh or an empty file (zero.h5 was called a Moving AI map).
  std::string ext = std::filesystem::path(input).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext != ".map";
}

int runWorldPath(const CLI::App& sub, const std::string& input, const std::string& method_name, std::int64_t budget,
                 bool json, const WorldPathOptions& options) {
  nav::LayeredSearchSettings settings;
  const auto method = nav::parseMethod(method_name);
  if (!method) return badInput("--method: expected " + nav::methodNames() + ", got '" + method_name + "'");
  settings.method = *method;
  if (sub.count("--budget") > 0) settings.limits.max_expansions = budget;  // >= 0: checked at parse time
  settings.waypoint_spacing = options.spacing;
  settings.return_closest = options.closest;
  // The budget is range-checked at parse time, so the spacing is what settings.validate() can
  // refuse: say it in the option's words, with the value typed.
  if (Status valid = settings.validate(); !valid)
    return badInput(fmt::format("--spacing: '{}' is neither 0 (none) nor a finite number >= 0.05 (metres)", options.spacing_text));
  if (sub.count("--scen") > 0) return badInput(input + ": --scen applies to Moving AI maps, not to worlds");
  if (sub.count("--no-jump-points") > 0) return badInput(input + ": --no-jump-points applies to Moving AI maps, not to worlds");
  if (sub.count("--threads") > 0 && options.batch.empty()) return badInput("--threads applies to --batch only");
  if (options.stream && options.batch.empty()) return badInput("--stream applies to --batch only");
  if (sub.count("--output") > 0 && options.output.empty()) return badInput("-o/--output: the output path names no file");

  if (sub.count("--margin") > 0 && !options.on_demand) return badInput("--margin applies to --on-demand only");
  if (!options.batch.empty()) {
    // Given counts, even empty (`--from "$START"` with the variable unset).
    if (sub.count("--from") > 0 || sub.count("--to") > 0) return badInput("--batch: give either --batch or --from/--to, not both");
    if (options.on_demand) return badInput("--on-demand: not with --batch (bake the world for batches)");
    if (options.stream && !options.output.empty())
      return badInput("--stream: the results go to standard output as they are answered; not with -o");
    return runBatch(sub, input, settings, options.agent, options);
  }
  if (!options.output.empty()) return badInput("-o/--output applies to --batch only");
  // Given but empty (`--from "$START"` with the variable unset) is a bad value, not a missing
  // option.
  for (const auto& [name, value] : {std::pair<const char*, const std::string*>{"--from", &options.from}, {"--to", &options.to}})
    if (sub.count(name) > 0 && value->empty()) return badInput(std::string(name) + ": expected X,Y,Z (three finite numbers), got ''");
  if (options.from.empty() || options.to.empty()) return badInput(input + ": a world route needs --from X,Y,Z and --to X,Y,Z (or --batch)");
  const auto from = parseVec3(options.from);
  if (!from) return badInput("--from: expected X,Y,Z (three finite numbers), got '" + options.from + "'" + numbersNote(options.from));
  const auto to = parseVec3(options.to);
  if (!to) return badInput("--to: expected X,Y,Z (three finite numbers), got '" + options.to + "'" + numbersNote(options.to));

  if (options.on_demand) return runOnDemand(input, *from, *to, settings, json, options);

  auto agent = loadBakedAgent(BakedInputOptions{input, options.agent, options.profile});
  if (!agent) return reportError(agent.error());
  nav::SearchState state;
  const nav::LayeredSearchGraph view(agent->graph, agent->profile.settings);
  const nav::PathResult result = nav::findLayeredPath(view, *from, *to, settings, state);
  if (json) {
    fmt::print("{}\n", printedJson(resultJson(result, agent->graph, agent->profile.settings.name, settings.method), -1,
                                   {from->x, from->z, to->x, to->z}));
  } else {
    printText(result, agent->graph, agent->profile.settings.name, settings.method);
    printWhyNoPath(result, view, *from, *to, settings);
  }
  return result.ok() ? kExitOk : kExitNegative;
}

}  // namespace strata::cli
