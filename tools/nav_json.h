// Small helpers the navigation subcommands (path, query) share when they print nodes and
// waypoints as text or JSON.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

#include "strata/nav/layered_graph.h"
#include "strata/sim/math.h"

namespace strata::cli {

/// [x, y, z] as a JSON array of the coordinates' double values.
/// + 0.0: -0 (a point given as -0,0,25) prints as 0.
inline nlohmann::ordered_json jsonPoint(const sim::Vec3& p) { return nlohmann::ordered_json::array({p.x + 0.0, p.y + 0.0, p.z + 0.0}); }

/// The area's name from the graph's area table, or its index when the table has no name for it.
inline std::string areaName(const nav::LayeredGraph& graph, uint16_t area) {
  return area < graph.area_names.size() ? graph.area_names[area] : std::to_string(area);
}

}  // namespace strata::cli
