// Small helpers the navigation subcommands (path, query) share when they print nodes and
// waypoints as text or JSON.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

#include "strata/nav/layered_graph.h"
#include "strata/nav/search.h"
#include "strata/sim/math.h"

namespace strata::cli {

/// [x, y, z] as a JSON array of the coordinates' double values.
/// + 0.0: -0 (a point given as -0,0,25) prints as 0.
inline nlohmann::ordered_json jsonPoint(const sim::Vec3& p) { return nlohmann::ordered_json::array({p.x + 0.0, p.y + 0.0, p.z + 0.0}); }

/// The area's name from the graph's area table, or its index when the table has no name for it.
inline std::string areaName(const nav::LayeredGraph& graph, uint16_t area) {
  return area < graph.area_names.size() ? graph.area_names[area] : std::to_string(area);
}

/// A path answer's "length" and "cost": a route's (found, or the closest one), null when the
/// answer has none, so that a script summing lengths cannot count a failure as a route of
/// length 0.
inline void putRouteNumbers(nlohmann::ordered_json& doc, const nav::PathResult& r) {
  if (r.waypoints.empty()) {
    doc["length"] = nullptr;
    doc["cost"] = nullptr;
  } else {
    doc["length"] = r.length;
    doc["cost"] = r.cost;
  }
}

}  // namespace strata::cli
