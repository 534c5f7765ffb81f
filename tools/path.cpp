// strata path: route queries. With a Moving AI map (`type octile`) and `--scen`, runs every
// scenario through the grid search and reports mismatches against the optimal lengths and the
// time per query; with --from X,Y and --to X,Y, answers one request on the map. Worlds:
// path_world.cpp.

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "command.h"
#include "nav_json.h"
#include "path_world.h"
#include "strata/formats/machine_memory.h"
#include "strata/nav/grid_search.h"
#include "strata/nav/layered_search.h"
#include "strata/nav/movingai.h"

namespace strata::cli {
namespace {

// The methods a Moving AI map takes (the others search baked worlds).
constexpr nav::SearchMethod kMapMethods[] = {nav::SearchMethod::AStar, nav::SearchMethod::Theta};
// ... and those of one request on a map (--from/--to).
constexpr nav::SearchMethod kMapRequestMethods[] = {nav::SearchMethod::AStar, nav::SearchMethod::Theta, nav::SearchMethod::Direct};

struct PathOptions {
  std::string input;
  std::string scen;
  std::string method = "astar";
  std::int64_t budget = 0;
  bool json = false;
  bool no_jump_points = false;
};

// Grid mode holds about 15 bytes a map cell at its peak (measured 13.4 on 16384 x 16384 without
// the file's text): the text, the parsed cells, the grid's state, area and ground height and the
// search's per-cell state. A map larger than the machine's memory is refused before its rows are
// read, not killed by the kernel after a minute of reading.
constexpr double kGridBytesPerCell = 15.0;

int checkMapMemory(const std::string& input, const std::string& head) {
  const std::int64_t cells = nav::movingAiDeclaredCells(head);
  const std::uint64_t usable = formats::usableMemoryBytes();
  if (cells <= 0 || usable == 0) return kExitOk;
  const double needed = kGridBytesPerCell * static_cast<double>(cells);
  if (needed <= static_cast<double>(usable)) return kExitOk;
  return badInput(fmt::format("{}: a map of {} cells needs about {:.3g} GB, more than the {:.3g} GB of memory", input, cells,
                              needed / 1e9, static_cast<double>(usable) / 1e9));
}

// `text`: the map already read (a pipe or a device, which can be read only once); empty: read
// the file.
int runScenarios(const PathOptions& options, nav::SearchMethod method, const std::string& text) {
  auto map = text.empty() ? nav::loadMovingAiMap(options.input) : nav::parseMovingAiMap(text, options.input);
  if (!map) return reportError(map.error());
  auto scenarios = nav::loadMovingAiScenarios(options.scen);
  if (!scenarios) return reportError(scenarios.error());
  // A file with its version line and nothing else runs nothing: in a CI step that would pass
  // unseen (a filter that lost every line), so it is bad input.
  if (scenarios->empty())
    return badInput(printable(options.scen) + ": no scenarios (after the version line, one per line: bucket, map, width, height, start x, y, goal x, y, optimal length)");
  if (Status valid = nav::checkScenarios(*map, *scenarios, options.scen); !valid) return reportError(valid.error());
  if (const nav::MovingAiScenario* other = nav::firstScenarioOfOtherMap(*scenarios, options.input))
    warn(printable(options.scen) + ":" + std::to_string(other->line) + ": the scenario is for map '" + printable(other->map) +
         "', not " + printable(std::filesystem::path(options.input).filename().string()) +
         " (a renamed copy runs as usual; another map of the same size gives mismatches)");
  auto grid = nav::makeMovingAiGrid(*map);
  if (!grid) return reportError(Error::badInput(options.input + ": " + grid.error().message));

  struct Row {
    double length = 0;
    nav::PathFailure failure = nav::PathFailure::None;
    bool mismatch = false;
    std::int64_t expansions = 0;
  };
  std::vector<Row> rows(scenarios->size());
  std::vector<double> micros(scenarios->size());
  nav::SearchState state;
  std::size_t mismatches = 0, failures = 0;
  for (std::size_t i = 0; i < scenarios->size(); ++i) {
    const nav::MovingAiScenario& s = (*scenarios)[i];
    nav::GridPathRequest request;
    request.method = method;
    request.start = nav::movingAiCellCenter(s.start_x, s.start_y);
    request.goal = nav::movingAiCellCenter(s.goal_x, s.goal_y);
    request.max_expansions = options.budget;
    request.use_jump_points = !options.no_jump_points;
    const auto begin = std::chrono::steady_clock::now();
    const nav::PathResult result = nav::findGridPath(*grid, request, state);
    micros[i] = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - begin).count();
    Row& row = rows[i];
    row.failure = result.failure;
    row.length = result.cost;
    row.expansions = result.expansions;
    if (!result.ok()) {
      // A search that ends without a route where the file has one is wrong, unless it ran out
      // of the budget the user gave (a failed search, not a wrong length).
      ++failures;
      row.mismatch = result.failure != nav::PathFailure::BudgetExhausted;
    } else if (method == nav::SearchMethod::AStar) {
      row.mismatch = !nav::movingAiLengthMatches(result.cost, s.optimal);
    } else {  // any-angle: never longer than the 8-connected optimum
      row.mismatch = result.cost > s.optimal + std::max(1e-3, 1e-5 * s.optimal);
    }
    if (row.mismatch) ++mismatches;
  }

  double mean = 0;
  for (double us : micros) mean += us;
  mean = micros.empty() ? 0 : mean / double(micros.size());
  double p99 = 0;
  if (!micros.empty()) {
    std::vector<double> sorted = micros;
    std::sort(sorted.begin(), sorted.end());
    const std::size_t rank = static_cast<std::size_t>(std::ceil(0.99 * double(sorted.size()))) - 1;
    p99 = sorted[std::min(rank, sorted.size() - 1)];
  }

  if (options.json) {
    nlohmann::ordered_json doc;
    doc["map"] = options.input;
    doc["scen"] = options.scen;
    doc["method"] = std::string(nav::methodName(method));
    doc["scenarios"] = scenarios->size();
    doc["mismatches"] = mismatches;
    doc["failures"] = failures;
    doc["mean_us"] = mean;
    doc["p99_us"] = p99;
    nlohmann::ordered_json results = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < rows.size(); ++i) {
      nlohmann::ordered_json r;
      r["index"] = i;
      r["line"] = (*scenarios)[i].line;
      if (rows[i].failure == nav::PathFailure::None) r["length"] = rows[i].length;
      else r["length"] = nullptr, r["failure"] = std::string(nav::failureName(rows[i].failure));
      r["optimal"] = (*scenarios)[i].optimal;
      r["expansions"] = rows[i].expansions;
      r["us"] = micros[i];
      if (rows[i].mismatch) r["mismatch"] = true;
      results.push_back(std::move(r));
    }
    doc["results"] = std::move(results);
    fmt::print("{}\n", printedJson(doc));
  } else {
    fmt::print("map: {}\nscenarios: {} ({})\nmethod: {}\n", printable(options.input), scenarios->size(), printable(options.scen),
               nav::methodName(method));
    fmt::print("mismatches: {}\nfailures: {}\n", mismatches, failures);
    fmt::print("mean: {:.2f} us/query\np99: {:.2f} us/query\n", mean, p99);
    std::size_t shown = 0;
    for (std::size_t i = 0; i < rows.size() && shown < 10; ++i) {
      if (!rows[i].mismatch && rows[i].failure == nav::PathFailure::None) continue;
      ++shown;
      const auto& s = (*scenarios)[i];
      if (rows[i].failure != nav::PathFailure::None)
        fmt::print("  {}:{}: {}, optimal {}\n", printable(options.scen), s.line, nav::failureName(rows[i].failure), s.optimal);
      else
        fmt::print("  {}:{}: length {:.8f}, optimal {}\n", printable(options.scen), s.line, rows[i].length, s.optimal);
    }
  }
  // A mismatch (or a search that failed where the file has a route) means Strata is wrong: 1.
  // Searches stopped by the budget the user gave are negative answers, as in world mode: 3.
  if (mismatches > 0) return kExitRuntime;
  return failures == 0 ? kExitOk : kExitNegative;
}

// "X,Y": a map cell's column and row, two whole numbers written in digits (an optional '-', as
// in a .scen file; spaces around each are dropped) that fit an int: '1e3', '3.0' and '+3' are
// not cells.
std::optional<std::array<int, 2>> parseCell(const std::string& text) {
  const std::size_t comma = text.find(',');
  if (comma == std::string::npos || text.find(',', comma + 1) != std::string::npos) return std::nullopt;
  std::array<int, 2> cell{};
  for (int i = 0; i < 2; ++i) {
    const std::string digits = trimmedSpaces(i == 0 ? text.substr(0, comma) : text.substr(comma + 1));
    const char* first = digits.data();
    const char* last = digits.data() + digits.size();
    const auto [end, ec] = std::from_chars(first, last, cell[static_cast<std::size_t>(i)]);
    if (digits.empty() || ec != std::errc() || end != last) return std::nullopt;
  }
  return cell;
}

// Map mode, one request: --from X,Y --to X,Y (cells). Waypoints in map coordinates: cell (x, y)
// spans x..x+1 across and y..y+1 down, its centre at (x + 0.5, y + 0.5).
int runMapQuery(const PathOptions& options, nav::SearchMethod method, const std::string& text, const WorldPathOptions& world) {
  const auto from = parseCell(world.from), to = parseCell(world.to);
  const std::string cell_text = " (two whole numbers from -2147483648 to 2147483647, in digits: column and row, as in a .scen file)";
  if (!from) return badInput("--from: expected a map cell X,Y" + cell_text + ", got '" + world.from + "'");
  if (!to) return badInput("--to: expected a map cell X,Y" + cell_text + ", got '" + world.to + "'");
  // As in world mode (and in the map's units, cells): 0 or at least kMinWaypointSpacing.
  if (!(world.spacing == 0 || world.spacing >= nav::kMinWaypointSpacing))
    return badInput(fmt::format("--spacing: '{}' is neither 0 (none) nor a finite number >= {} (cells on a map)", world.spacing_text,
                                nav::kMinWaypointSpacing));
  auto map = text.empty() ? nav::loadMovingAiMap(options.input) : nav::parseMovingAiMap(text, options.input);
  if (!map) return reportError(map.error());
  auto grid = nav::makeMovingAiGrid(*map);
  if (!grid) return reportError(Error::badInput(options.input + ": " + grid.error().message));
  nav::GridPathRequest request;
  request.method = method;
  request.start = nav::movingAiCellCenter((*from)[0], (*from)[1]);
  request.goal = nav::movingAiCellCenter((*to)[0], (*to)[1]);
  request.max_expansions = options.budget;
  request.use_jump_points = !options.no_jump_points;
  request.waypoint_spacing = world.spacing;
  const nav::PathResult r = nav::findGridPath(*grid, request);
  if (options.json) {
    nlohmann::ordered_json doc;
    doc["map"] = options.input;
    doc["from"] = {(*from)[0], (*from)[1]};
    doc["to"] = {(*to)[0], (*to)[1]};
    doc["found"] = r.ok();
    doc["reason"] = std::string(nav::failureName(r.failure));
    doc["method"] = std::string(nav::methodName(method));
    putRouteNumbers(doc, r);  // null without a route, as in the .scen summary's results
    doc["expansions"] = r.expansions;
    nlohmann::ordered_json points = nlohmann::ordered_json::array();
    for (const nav::Waypoint& w : r.waypoints) points.push_back({w.position.x, w.position.z});
    doc["waypoints"] = std::move(points);
    fmt::print("{}\n", printedJson(doc));
  } else {
    fmt::print("result: {}\nmap: {}\nmethod: {}\n", r.ok() ? "found" : std::string(nav::failureName(r.failure)),
               printable(options.input), nav::methodName(method));
    if (r.ok()) fmt::print("length: {:.6f} cells\ncost: {:.6f}\n", r.length, r.cost);
    fmt::print("expansions: {}\n", r.expansions);
    if (r.ok()) {
      fmt::print("waypoints: {} (x, y: map coordinates, cell centres at .5)\n", r.waypoints.size());
      for (std::size_t i = 0; i < r.waypoints.size(); ++i)
        fmt::print("  {:>3}  {:10.3f} {:10.3f}\n", i, r.waypoints[i].position.x, r.waypoints[i].position.z);
    }
  }
  return r.ok() ? kExitOk : kExitNegative;
}

std::function<int()> setupPath(CLI::App& app) {
  auto options = std::make_shared<PathOptions>();
  CLI::App* sub = app.add_subcommand(
      "path",
      "Find routes (see strata-path(1)).\n"
      "World mode: a baked world (or a mesh baked in memory with --profile), --from and --to (or\n"
      "--batch): waypoints with actions and areas, length, cost, expansions and the reason.\n"
      "Exit codes: 0 a route (batch: for every request), 3 no route (NoStartNode, NoGoalNode, NoPath,\n"
      "BudgetExhausted, ClosestNoPath, Blocked), 2 bad usage or input, 1 a runtime failure.\n"
      "Map mode: a Moving AI map (.map, 'type octile') and --scen: run every scenario and report\n"
      "mismatches against the optimal lengths and the time per query.\n"
      "Exit codes: 0 every scenario answered with a matching length, 1 a mismatch or a failed\n"
      "search (Strata is wrong), 3 no mismatch but searches stopped by --budget, 2 bad usage or\n"
      "a malformed .map/.scen (the message names file and line).\n"
      "A map and --from X,Y --to X,Y (cells: column, row): one request; waypoints in map\n"
      "coordinates, length, cost, expansions and the reason. Exit codes: 0 a route, 3 no route\n"
      "(StartOutsideGrid, GoalOutsideGrid, StartBlocked, GoalBlocked, NoPath, BudgetExhausted,\n"
      "Blocked), 2 bad usage or input.");
  sub->add_option("INPUT", options->input, "A Moving AI .map file, or a world: a .h5 world file, or a mesh file baked in memory (see the World options)")->required()->check(fileName());
  sub->add_option("--scen", options->scen, "Moving AI .scen file: run every scenario on the map")->check(fileName());
  sub->add_option("--method", options->method,
                  "astar (8-connected, octile, no corner cutting; exact), theta (any-angle Theta*; on a\n"
                  "map a mismatch is a route longer than the 8-connected optimum), direct (one straight\n"
                  "line, each area crossed costing its share; on a map one --from/--to request only),\n"
                  "corridor (worlds only: A* over a rectangle decomposition + string pulling; fast, any-angle,\n"
                  "walkable, not guaranteed optimal) or interval (worlds only: corridor with the rectangles\n"
                  "chosen by an exact interval search and corners tightened, or corridor's route when cheaper;\n"
                  "slower, routes about as short as theta's; its search is bounded at 131,072 + 32 x corridor's\n"
                  "expansions, beyond which corridor's route answers); corridor charges areas of different costs per rectangle;\n"
                  "interval needs one area cost, else theta answers in its search's place (corridor's route\n"
                  "still kept when cheaper); both need no link cheaper than walking, else theta answers (the\n"
                  "output says who answered: answered_by)")
      ->default_str("astar");
  sub->add_option("--budget", options->budget,
                  "Node expansions per search before it gives up (BudgetExhausted); 0 = unlimited. Default:\n"
                  "400000 on a world (each batch request may set its own \"budget\"), unlimited on a Moving AI map")
      ->transform(integerRange(0, std::numeric_limits<long long>::max()));
  sub->add_flag("--json", options->json,
                "Print one JSON document. A map with --scen: map, scen, method, scenarios, mismatches, failures,\n"
                "mean_us, p99_us and results in .scen order. A map request: map, from, to, found, reason, method,\n"
                "length, cost, expansions, waypoints ([x, y] pairs). A world: found, reason, agent, method,\n"
                "answered_by, length, cost, expansions, waypoints (and on_demand with --on-demand). --batch always\n"
                "writes JSON lines");
  sub->add_flag("--no-jump-points", options->no_jump_points,
                "Run astar and theta on the plain search core instead of the jump point search fast path (maps only;\n"
                "a --budget other than 0 does the same: the budget counts cells)");
  auto world = addWorldPathOptions(sub);  // world mode: tools/path_world.cpp
  return [options, world, sub]() -> int {
    std::error_code ec;
    if (!std::filesystem::exists(options->input, ec)) return reportError(Error::noSuchFile(options->input));
    if (std::filesystem::is_directory(options->input, ec)) return badInput(options->input + ": is a directory");
    // A pipe, a FIFO or a device is read once, here: opened a second time it would be empty, or
    // (a FIFO) block for ever. Only a Moving AI map can come that way.
    // A first line that is no 'type octile' header, named as a BOM before one where it is one.
    const auto notAMap = [&](const std::string& head) {
      const bool bom = head.rfind("\xEF\xBB\xBF", 0) == 0;
      return badInput(options->input + ":1: not a Moving AI map (expected 'type octile' on the first line" +
                      (bom ? ", not a UTF-8 byte-order mark before it)" : ")"));
    };
    std::string piped;
    if (!std::filesystem::is_regular_file(options->input, ec)) {
      std::ifstream in(options->input, std::ios::binary);
      if (!in) return reportError(Error::cannotOpen(options->input));
      piped.resize(256);
      in.read(piped.data(), static_cast<std::streamsize>(piped.size()));
      piped.resize(static_cast<std::size_t>(in.gcount()));
      // (A map but for a byte-order mark before its header: said as for a map file.)
      if (piped.rfind("\xEF\xBB\xBF", 0) == 0 && nav::looksLikeMovingAiMap(piped.substr(3))) return notAMap(piped);
      if (!nav::looksLikeMovingAiMap(piped))
        return badInput(options->input + ": not a regular file (from a pipe or a device only a Moving AI map is read; "
                                         "a world or a mesh must be a file)");
      if (const int code = checkMapMemory(options->input, piped); code != kExitOk) return code;
      auto whole = nav::readMovingAiMapRest(in, options->input, std::move(piped));
      if (!whole) return reportError(whole.error());
      piped = std::move(*whole);
    }
    if (piped.empty() && isWorldPathInput(options->input))
      return runWorldPath(*sub, options->input, options->method, options->budget, options->json, *world);
    const auto method = nav::parseMethod(options->method);
    const bool single = sub->count("--from") > 0 || sub->count("--to") > 0;
    if (method && (*method == nav::SearchMethod::Corridor || *method == nav::SearchMethod::Interval))
      return badInput("--method: " + std::string(nav::methodName(*method)) + " searches baked worlds only; a Moving AI map takes " +
                      (single ? nav::methodNames(kMapRequestMethods) : nav::methodNames(kMapMethods)));
    if (!method || (*method == nav::SearchMethod::Direct && !single))
      return badInput("--method: expected " + (single ? nav::methodNames(kMapRequestMethods) : nav::methodNames(kMapMethods)) +
                      ", got '" + options->method + "'" + (method ? " (direct takes one request: --from and --to)" : ""));
    // The world options have no meaning on a map: say so rather than ignore them.
    for (const char* world_only : {"--agent", "--profile", "--closest", "--batch", "--stream", "--output", "--threads", "--on-demand", "--margin"})
      if (sub->count(world_only) > 0)
        return badInput(options->input + ": " + world_only + " applies to worlds, not to Moving AI maps");
    if (single && !options->scen.empty()) return badInput(options->input + ": give either --scen or --from/--to, not both");
    if (single && (sub->count("--from") == 0 || sub->count("--to") == 0))
      return badInput(options->input + ": a request on a map needs both --from X,Y and --to X,Y");
    if (!single && sub->count("--spacing") > 0)
      return badInput(options->input + ": --spacing applies to one request (--from/--to), not to --scen");
    const std::string head = piped.empty() ? readHead(options->input, 256) : piped.substr(0, 256);
    if (head.empty() && !std::ifstream(options->input)) return reportError(Error::cannotOpen(options->input));
    if (!nav::looksLikeMovingAiMap(head)) return notAMap(head);
    if (options->scen.empty() && !single)
      return badInput(options->input + ": a Moving AI map needs --scen FILE.scen, or --from X,Y and --to X,Y");
    if (piped.empty())  // a piped map was checked before its rows were read
      if (const int code = checkMapMemory(options->input, head); code != kExitOk) return code;
    return single ? runMapQuery(*options, *method, piped, *world) : runScenarios(*options, *method, piped);
  };
}

}  // namespace

STRATA_COMMAND(path, 40, setupPath)

}  // namespace strata::cli
