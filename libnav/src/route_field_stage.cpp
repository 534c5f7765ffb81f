// Route-distance fields (grid-pathfinding-library.md, "Distance fields"): one Dijkstra flood of
// route costs outward from an origin, under the same edges and costs as the search, up to a
// maximum distance. One flood answers "how far by the actual route" for every listener at once.

#include <cstdio>
#include <limits>
#include <queue>

#include <tbb/parallel_for.h>

#include "bake_stages.h"

namespace strata::nav {

std::vector<float> floodRouteDistance(const LayeredGraph& graph, uint32_t origin, double max_distance) {
  const std::size_t nodes = graph.nodeCount();
  std::vector<double> distance(nodes, std::numeric_limits<double>::infinity());
  std::vector<float> result(nodes, std::numeric_limits<float>::infinity());
  if (origin >= nodes) return result;
  using Entry = std::pair<double, uint32_t>;  // (distance, node): ties pop the lower node first
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> open;
  distance[origin] = 0;
  open.push({0.0, origin});
  const double reach = fieldReach(max_distance);
  auto relax = [&](uint32_t to, double via) {
    if (via <= reach && via < distance[to]) {
      distance[to] = via;
      open.push({via, to});
    }
  };
  while (!open.empty()) {
    const auto [d, n] = open.top();
    open.pop();
    if (d > distance[n]) continue;  // stale entry
    for (int dir = 0; dir < kDirectionCount; ++dir) {
      const std::size_t slot = static_cast<std::size_t>(n) * kDirectionCount + dir;
      if (graph.neighbor[slot] != kNoNode) relax(graph.neighbor[slot], d + graph.edge_cost[slot]);
    }
    for (uint32_t l = graph.link_offsets[n]; l < graph.link_offsets[n + 1]; ++l)
      relax(graph.links[l].to_node, d + graph.links[l].cost);
  }
  for (std::size_t n = 0; n < nodes; ++n)
    if (distance[n] <= reach) result[n] = static_cast<float>(distance[n]);
  return result;
}

Status computeRouteFields(const AgentProfile& profile, LayeredGraph& graph, const std::string& source) {
  graph.fields.clear();
  for (const FieldSpec& spec : profile.fields) {
    RouteField field;
    field.name = spec.name;
    field.origin = spec.origin;
    field.max_distance = spec.max_distance;
    // The floor under the origin exactly as the queries snap a point (nearestWalkable with the
    // default SnapSettings: `query field --origin` and `--at`), so that the field reads 0 at its
    // origin and equals `query field --origin` from the same point. (It snapped as a link end,
    // within link_snap_distance and link_snap_height, then in 3-D: an origin 2.5 m up in a room
    // took the floor above the ceiling, and one 1.5 m off the mesh baked a field no query could
    // read at its origin.)
    field.origin_node = snapToNode(graph, spec.origin, SnapSettings{});
    if (field.origin_node == kNoNode) {
      char where[96];
      std::snprintf(where, sizeof where, "(%g, %g, %g)", spec.origin.x, spec.origin.y, spec.origin.z);
      const auto [name, in] = profileEntryName(spec.source, source, profile.settings.name, "field '" + spec.name + "'",
                                               "('" + spec.name + "')");
      const SnapSettings snap;
      char rule[256];
      std::snprintf(rule, sizeof rule, "no walkable floor below origin %s within %g m across (or up to %g m above it)", where,
                    snap.max_horizontal, snap.above);
      return Error::badInput(name + ": " + rule + in);
    }
    graph.fields.push_back(std::move(field));
  }
  // Independent floods: one task each, results in profile order.
  tbb::parallel_for(std::size_t{0}, graph.fields.size(), [&](std::size_t i) {
    RouteField& field = graph.fields[i];
    field.distance = floodRouteDistance(graph, field.origin_node, field.max_distance);
  });
  return Ok{};
}

}  // namespace strata::nav
