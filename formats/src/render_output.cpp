// Writing strata render's outputs: the atomic file write (temporary file beside the target, then
// rename) shared with strata export, the PNG/SVG dispatch on the extension, and the reader of
// path results (JSON lines of `strata path --batch`) that the CLI overlays.

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <string>

#include "strata/formats/output_file.h"
#include "strata/formats/render.h"

namespace strata::formats {

Status writeFileAtomically(const std::filesystem::path& path, const std::string& bytes) {
  auto writer = AtomicFileWriter::open(path);
  if (!writer) return writer.error();
  if (auto written = (*writer)->write(bytes); !written) return written;
  return (*writer)->commit();
}

Status writeRender(const std::filesystem::path& path, const nav::LayeredGraph& graph, const std::vector<RenderPath>& paths,
                   const RenderSettings& settings, RenderLayout* layout) {
  const std::string ext = lowerExtension(path);
  std::string bytes;
  if (ext == ".png") {
    auto image = renderRaster(graph, paths, settings, layout);
    if (!image) return Error{image.error().kind, path.string() + ": " + image.error().message};
    auto png = encodePng(*image);
    if (!png) return Error{png.error().kind, path.string() + ": " + png.error().message};
    bytes = std::move(*png);
  } else if (ext == ".svg") {
    auto svg = renderSvg(graph, paths, settings, layout);
    if (!svg) return Error{svg.error().kind, path.string() + ": " + svg.error().message};
    bytes = std::move(*svg);
  } else {
    return Error::badInput(fmt::format("{}: unknown picture type '{}' (use .png or .svg)", path.string(), ext));
  }
  return writeFileAtomically(path, bytes);
}

Result<std::vector<RenderPath>> readPathLines(const std::filesystem::path& path) {
  // A directory opens as a stream that reads nothing: say so rather than overlay no paths.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return Error::badInput(fmt::format("{}: is a directory", path.string()));
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::cannotOpen(path.string());
  std::vector<RenderPath> paths;
  std::string line;
  std::size_t line_number = 0;
  auto located = [&](const std::string& problem) {
    return Error::badInput(fmt::format("{}:{}: {}", path.string(), line_number, problem));
  };
  // Within 1e7 m: a route's waypoints lie in a world's bounds (1e6 m) or within metres of them;
  // 1e300 drew 300-digit SVG coordinates.
  constexpr double kCoordinateLimit = 1e7;
  auto coordinate = [&](const nlohmann::json& value, double& out) {
    if (!value.is_number()) return false;
    out = value.get<double>();
    return std::isfinite(out) && std::fabs(out) <= kCoordinateLimit;
  };
  while (std::getline(in, line)) {
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    // As `strata path --batch` reads its requests (a NUL after the JSON was accepted; an audit).
    if (line.find('\0') != std::string::npos) return located("contains a NUL byte");
    // A member given twice in any object is an error, as in `strata path --batch` requests (the
    // parser kept the last "waypoints"; an audit).
    std::vector<std::set<std::string>> members;
    std::string duplicate;
    nlohmann::json doc = nlohmann::json::parse(
        line,
        [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
          if (event == nlohmann::json::parse_event_t::object_start) members.emplace_back();
          else if (event == nlohmann::json::parse_event_t::object_end && !members.empty()) members.pop_back();
          else if (event == nlohmann::json::parse_event_t::key && !members.empty() &&
                   !members.back().insert(parsed.get<std::string>()).second && duplicate.empty())
            duplicate = parsed.get<std::string>();
          return true;
        },
        false);
    if (doc.is_discarded()) return located("not valid JSON");
    if (!duplicate.empty()) return located("member \"" + duplicate + "\" given twice");
    if (!doc.is_object()) return located("expected a JSON object");
    if (!doc.contains("waypoints") || doc["waypoints"].is_null()) continue;  // a failed request
    const nlohmann::json& waypoints = doc["waypoints"];
    if (!waypoints.is_array()) return located("\"waypoints\" is not an array");
    RenderPath render_path;
    if (doc.contains("agent") && !doc["agent"].is_null()) {
      if (!doc["agent"].is_string()) return located("\"agent\" is not a string");  // 5 was read as no agent
      render_path.agent = doc["agent"].get<std::string>();
    }
    for (std::size_t i = 0; i < waypoints.size(); ++i) {
      const nlohmann::json& w = waypoints[i];
      if (!w.is_object()) return located(fmt::format("waypoint {}: expected an object", i));
      RenderWaypoint waypoint;
      bool ok;
      if (w.contains("position")) {
        const nlohmann::json& p = w["position"];
        ok = p.is_array() && p.size() == 3 && coordinate(p[0], waypoint.position.x) &&
             coordinate(p[1], waypoint.position.y) && coordinate(p[2], waypoint.position.z);
      } else {
        ok = w.contains("x") && w.contains("y") && w.contains("z") && coordinate(w["x"], waypoint.position.x) &&
             coordinate(w["y"], waypoint.position.y) && coordinate(w["z"], waypoint.position.z);
      }
      if (!ok) return located(fmt::format("waypoint {}: needs x, y, z (or \"position\": [x, y, z]), finite and within 1e7 m", i));
      if (w.contains("action")) {
        if (!w["action"].is_string()) return located(fmt::format("waypoint {}: \"action\" is not a string", i));
        waypoint.action = w["action"].get<std::string>();
      }
      render_path.waypoints.push_back(std::move(waypoint));
    }
    if (!render_path.waypoints.empty()) paths.push_back(std::move(render_path));
  }
  // A read error ends getline as the file's end would (libstdc++ sets badbit): the paths after it
  // were left out of the picture without a word.
  if (in.bad()) return Error::runtime(fmt::format("{}:{}: cannot read the file (an I/O error)", path.string(), line_number + 1));
  return paths;
}

}  // namespace strata::formats
