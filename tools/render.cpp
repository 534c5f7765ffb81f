// strata render WORLD -o OUT.png|OUT.svg: a top-down picture of one agent's layered graph, one
// panel per layer band, with edges, paths, a legend and a scale bar. Thin over
// formats::writeRender (render.h); paths come from --path (searched here with
// nav::findLayeredPath) and --paths (JSON lines of `strata path --batch`). See strata-render(1)
// and docs/rendering.md.

#include <algorithm>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "baked_input.h"
#include "command.h"
#include "strata/formats/output_file.h"
#include "strata/formats/render.h"
#include "strata/nav/layered_search.h"

namespace strata::cli {
namespace {

using Json = nlohmann::ordered_json;

struct RenderCommandOptions {
  BakedInputOptions input;          ///< WORLD, --agent, --profile
  std::string output;               ///< -o
  std::string color = "height";     ///< --color
  std::string layers = "all";       ///< --layers
  std::vector<std::string> paths;   ///< --path X,Y,Z:X,Y,Z (repeatable)
  std::string method = "astar";     ///< --method of the --path searches
  bool method_given = false;        ///< --method was given (an error without --path)
  std::string path_results;         ///< --paths RESULTS.jsonl
  bool path_results_given = false;  ///< --paths was given (an empty value is an error, not "none")
  std::string region;               ///< --region minx,minz,maxx,maxz
  bool region_given = false;        ///< --region was given (an empty value is an error, not "all")
  int width = 1200;                 ///< --width
  bool no_edges = false;            ///< --no-edges
  bool json = false;                ///< --json: the summary as one JSON document
};

int runRender(const RenderCommandOptions& options) {
  const std::string& file = options.input.input;
  // A .png or .svg name, and through a symbolic link a target of the same type (a link pic.svg
  // -> profile.toml had the profile replaced by a picture); another extension is refused when
  // the picture is written ("unknown picture type").
  const std::string type = formats::lowerExtension(options.output);
  const std::vector<std::string> inputs{file, options.input.profile, options.path_results};
  if (const int code = type == ".png" || type == ".svg" ? checkNamedOutput(options.output, inputs, {type}, "a picture is")
                                                        : checkOutput(options.output, inputs);
      code != kExitOk)
    return code;
  formats::RenderSettings settings;
  if (!formats::parseRenderChannel(options.color, settings.field_name).has_value())
    return badInput(fmt::format("{}: --color {}: use height, area, clearance, component or field:NAME", file, options.color));
  settings.channel = *formats::parseRenderChannel(options.color, settings.field_name);
  if (options.layers != "all") {
    // A band number is written in digits ('1.0' and '1e0' are not band numbers; a huge one is
    // "no such band" below, not an overflowing cast), spaces around it allowed as for numbers.
    const std::string digits = trimmedSpaces(options.layers);
    int band = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), band);
    const bool all_digits = !digits.empty() && digits.find_first_not_of("0123456789") == std::string::npos;
    if (!all_digits || (ec != std::errc() && ec != std::errc::result_out_of_range) || end != digits.data() + digits.size())
      return badInput(fmt::format("{}: --layers {}: use all or a band number 0, 1, ...", file, options.layers));
    if (ec == std::errc::result_out_of_range)  // named as typed, not as the clamped int it became
      return badInput(fmt::format("{}: --layers {}: no such band (far more than any graph has)", file, digits));
    settings.layer = band;
  }
  if (options.region_given) {
    auto r = parseNumbers(options.region, 4);
    if (!r) return badInput(fmt::format("{}: --region {}: expected minx,minz,maxx,maxz (4 numbers){}", file, options.region, numbersNote(options.region)));
    settings.region = formats::RenderRegion{(*r)[0], (*r)[1], (*r)[2], (*r)[3]};
  }
  settings.width_px = options.width;
  settings.draw_edges = !options.no_edges;
  if (std::string problem = settings.validate(); !problem.empty()) return badInput(file + ": " + problem);

  if (options.method_given && options.paths.empty()) return badInput("--method applies to --path only");
  std::vector<std::pair<sim::Vec3, sim::Vec3>> requests;
  for (const std::string& text : options.paths) {
    const std::size_t colon = text.find(':');
    std::optional<sim::Vec3> from, to;
    if (colon != std::string::npos) from = parseVec3(text.substr(0, colon)), to = parseVec3(text.substr(colon + 1));
    if (!from || !to) {
      std::string numbers = text;  // (the note reads the six numbers as one list)
      std::replace(numbers.begin(), numbers.end(), ':', ',');
      return badInput(fmt::format("{}: --path {}: expected X,Y,Z:X,Y,Z{}", file, text, numbersNote(numbers)));
    }
    requests.emplace_back(*from, *to);
  }
  std::vector<formats::RenderPath> paths;
  if (options.path_results_given && options.path_results.empty())
    return badInput(fmt::format("{}: --paths: the path is empty", file));
  if (!options.path_results.empty()) {
    auto read = formats::readPathLines(options.path_results);
    if (!read) return reportError(read.error());
    paths = std::move(*read);
  }

  auto agent = loadBakedAgent(options.input);
  if (!agent) return reportError(agent.error());
  settings.title = "agent " + agent->profile.settings.name;
  // Routes of another agent (a batch's lines name theirs) are not drawn over this one's graph.
  {
    const std::string& name = agent->profile.settings.name;
    const auto other = [&](const formats::RenderPath& p) { return !p.agent.empty() && p.agent != name; };
    const auto left_out = static_cast<std::size_t>(std::count_if(paths.begin(), paths.end(), other));
    if (left_out > 0) {
      warn(fmt::format("{}: {} of other agents left out (the picture is agent {}'s; --agent picks another)",
                       printable(options.path_results), counted(left_out, "route"), printable(name)));
      paths.erase(std::remove_if(paths.begin(), paths.end(), other), paths.end());
    }
  }

  int exit_code = kExitOk;
  Json not_found = Json::array();  // --path requests without a route (--json)
  nav::SearchState state;
  nav::LayeredSearchSettings search;
  search.method = *nav::parseMethod(options.method);  // one of the names: checked at parse time
  for (const auto& [from, to] : requests) {
    const nav::PathResult result = nav::findLayeredPath(agent->graph, agent->profile.settings, from, to, search, state);
    if (!result.ok()) {
      warn(fmt::format("{}: --path {},{},{}:{},{},{}: no path ({}); not drawn", file, from.x, from.y, from.z, to.x, to.y,
                       to.z, nav::failureName(result.failure)));
      exit_code = kExitNegative;
      not_found.push_back({{"from", {from.x, from.y, from.z}}, {"to", {to.x, to.y, to.z}}, {"reason", nav::failureName(result.failure)}});
      continue;
    }
    formats::RenderPath path;
    for (const nav::Waypoint& waypoint : result.waypoints)
      path.waypoints.push_back({waypoint.position, std::string(nav::actionName(waypoint.action))});
    paths.push_back(std::move(path));
  }

  formats::RenderLayout layout;
  const Status written = formats::writeRender(options.output, agent->graph, paths, settings, &layout);
  if (!written) {
    Error error = written.error();
    // Settings problems found against the graph (band, field, region) are about this input.
    // They name the agent whose graph lacks the field or band (an audit: "fields: none" for the
    // agent picked, where another agent of the world has the field).
    if (error.kind == ErrorKind::BadInput && error.message.rfind(options.output + ": --", 0) == 0)
      error.message = file + ": agent " + printable(agent->profile.settings.name) + ": " + error.message.substr(options.output.size() + 2);
    return reportError(error);
  }
  if (options.json) {
    Json doc;
    doc["output"] = options.output;
    doc["agent"] = agent->profile.settings.name;
    doc["width"] = layout.width;
    doc["height"] = layout.height;
    doc["pixels_per_metre"] = layout.pixels_per_metre;
    doc["region"] = {layout.region.min_x, layout.region.min_z, layout.region.max_x, layout.region.max_z};
    doc["paths"] = paths.size();
    doc["paths_not_found"] = std::move(not_found);
    doc["layers"] = Json::array();
    for (const auto& panel : layout.panels)
      doc["layers"].push_back({{"band", panel.band.index},
                               {"min_height", panel.band.min_height},
                               {"max_height", panel.band.max_height},
                               {"nodes", panel.band.node_count},
                               {"nodes_in_region", panel.nodes_drawn}});
    fmt::print("{}\n", printedJson(doc, 2));
    return exit_code;
  }
  fmt::print("wrote {}: {}x{} px, agent {}, {}, {}\n", printable(options.output), layout.width, layout.height,
             printable(agent->profile.settings.name), counted(layout.panels.size(), "panel"), counted(paths.size(), "path"));
  for (const auto& panel : layout.panels)
    fmt::print("  layer {}: y {:.2f}..{:.2f} m, {} ({} in the region)\n", panel.band.index, shown(panel.band.min_height, 2),
               shown(panel.band.max_height, 2), counted(panel.band.node_count, "node"), panel.nodes_drawn);
  return exit_code;
}

std::function<int()> setupRender(CLI::App& app) {
  auto options = std::make_shared<RenderCommandOptions>();
  CLI::App* sub = app.add_subcommand(
      "render",
      "Draw a top-down picture (PNG or SVG) of one agent's baked layered graph: one panel per layer band "
      "(band k = the k-th floor from the bottom of each column), nodes coloured by a channel, jump/drop/climb/link "
      "edges, paths with their waypoints and actions, a legend and a scale bar. Written atomically.");
  addBakedInputOptions(sub, options->input, "draw");
  sub->add_option("-o,--output", options->output, "the picture to write: OUT.png or OUT.svg (written atomically; a symbolic link is written through; never an input, a directory or a device)")->required();
  sub->add_option("--color,--colour", options->color,
                  "node colour: height, area, clearance, component or field:NAME (a route-distance field)")
      ->capture_default_str();
  sub->add_option("--layers", options->layers, "all (one panel per band, side by side, at most three to a row) or N (band N only)")
      ->capture_default_str();
  sub->add_option("--path", options->paths,
                  "X,Y,Z:X,Y,Z: search a path (--method, default A*) from the first point to the second and overlay it; repeatable")
      ->allow_extra_args(false);
  sub->add_option("--method", options->method,
                  "search method of the --path routes: astar, theta, direct, corridor or interval (as strata path)")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            return nav::parseMethod(text) ? "" : fmt::format("'{}' is not one of: {}", text, nav::methodNames());
          },
          "METHOD", "search method"))
      ->capture_default_str()
      ->each([o = options.get()](const std::string&) { o->method_given = true; });
  sub->add_option("--paths", options->path_results,
                  "RESULTS.jsonl: overlay the paths of `strata path --batch` output (lines with a waypoints array)")
      ->each([o = options.get()](const std::string&) { o->path_results_given = true; });
  sub->add_option("--region", options->region, "minx,minz,maxx,maxz: the world rectangle to show, metres "
                                               "(default: the extent of all nodes plus one cell)")
      ->each([o = options.get()](const std::string&) { o->region_given = true; });
  sub->add_flag("--json", options->json,
                "print one JSON document instead of the summary: output, agent, width and height (pixels), "
                "pixels_per_metre, region ([minx, minz, maxx, maxz], metres), paths (routes drawn), paths_not_found "
                "(per --path without a route: from, to, reason) and layers (per panel: band, min_height, max_height, "
                "nodes, nodes_in_region)");
  sub->add_option("--width", options->width, "picture width in pixels, 200..8192")->capture_default_str()->transform(integerRange(200, 8192));
  sub->add_flag("--no-edges", options->no_edges, "leave out jump, drop, climb and link edges");
  sub->footer("Exit codes: 0 success; 1 runtime failure; 2 bad input (missing agent, unknown field, bad region or\n"
              "band; one line: strata: error: FILE: problem); 3 a --path found no path (the picture is still\n"
              "written without it). See strata-render(1) and docs/rendering.md.");
  return [options] { return runRender(*options); };
}

}  // namespace

STRATA_COMMAND(render, 70, setupRender)

}  // namespace strata::cli
