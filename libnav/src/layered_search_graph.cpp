// The layered graph as a SearchGraph provider: heuristic, straight-segment cost and the
// any-angle walking line test.
//
// The line test follows spec/character-movement-and-navigation.md ("Surface columns") and the
// grid library's lineOfSight rule (spec/grid-pathfinding-library.md, "Feet and photons"): walk
// the columns the segment between the two column centres crosses (a supercover traversal: when
// the segment passes exactly through a column corner it steps diagonally), and require each step
// to be a baked walk edge from the current floor node. Walk edges already carry the bake's
// standing-clearance sweep, the step-height limit and the no-corner-cutting rule for diagonals,
// so following them keeps the line on one connected floor: a bridge above the road is never
// entered from the road, and a cliff is never crossed.

#include "strata/nav/layered_search.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include <algorithm>
#include <cmath>

#include "column_line.h"
#include "line_cost_runs.h"
#include "search_rates.h"

namespace strata::nav {

LayeredSearchGraph::LayeredSearchGraph(const LayeredGraph& graph, const AgentSettings& agent)
    : graph_(&graph), agent_(&agent), corridor_(makeLazyCorridor()) {
  const std::size_t nodes = graph.nodeCount();
  // In a valid graph every node lies in exactly one column, so every entry is written once:
  // sized without zeroing (NodeArray) and filled in parallel over columns. Anything else (a
  // graph built by hand, not yet valid) starts at 0 and is filled serially, as before.
  const bool valid_columns = !graph.column_offsets.empty() && graph.column_offsets.front() == 0 &&
                             graph.column_offsets.back() == nodes &&
                             std::is_sorted(graph.column_offsets.begin(), graph.column_offsets.end());
  const int32_t width = std::max(graph.grid.width_cells, 1);
  const std::size_t columns = graph.column_offsets.empty() ? 0 : graph.column_offsets.size() - 1;
  auto fillColumns = [&](std::size_t begin, std::size_t end) {
    for (std::size_t c = begin; c != end; ++c)
      for (uint32_t n = graph.column_offsets[c]; n < graph.column_offsets[c + 1] && n < nodes; ++n) {
        node_x_[n] = static_cast<int32_t>(c % static_cast<std::size_t>(width));
        node_z_[n] = static_cast<int32_t>(c / static_cast<std::size_t>(width));
      }
  };
  if (valid_columns) {
    node_x_.resize(nodes);
    node_z_.resize(nodes);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, columns, 4096),
                      [&](const tbb::blocked_range<std::size_t>& range) { fillColumns(range.begin(), range.end()); });
  } else {
    node_x_.assign(nodes, 0);
    node_z_.assign(nodes, 0);
    fillColumns(0, columns);
  }
  // The heuristic must never exceed the true cost (search_rates.h). Every edge enters a node, so
  // the rate is that of the cheapest area some node has: an area no node has does not count (the
  // "default" area at cost 1 under a floor all of mud at cost 2 halved the heuristic, and a
  // straight 240 m walk across it took A* 303,000 expansions and Theta* 346,000, where 567 and
  // none do on the same floor at cost 1: an audit). Areas are few: a byte per area per chunk.
  const std::size_t area_count = graph.area_costs.size();
  std::vector<uint8_t> present(area_count, 0);
  if (graph.area.size() == nodes && area_count > 0) {
    present = tbb::parallel_reduce(
        tbb::blocked_range<std::size_t>(0, nodes, 1 << 16), std::vector<uint8_t>(area_count, 0),
        [&](const tbb::blocked_range<std::size_t>& range, std::vector<uint8_t> seen) {
          for (std::size_t n = range.begin(); n != range.end(); ++n)
            if (graph.area[n] < area_count) seen[graph.area[n]] = 1;
          return seen;
        },
        [](std::vector<uint8_t> a, const std::vector<uint8_t>& b) {
          for (std::size_t i = 0; i < a.size(); ++i) a[i] |= b[i];
          return a;
        });
  }
  const std::vector<float> present_costs = detail::presentAreaCosts(graph.area_costs, present);
  detail::HeuristicRates rates(present_costs);
  for (const OffMeshLink& link : graph.links) {
    // Second jumps cost what a slot's jump costs, never less than the cheapest area's rate.
    if (link.kind != EdgeKind::Link || link.from_node >= nodes || link.to_node >= nodes) continue;
    const double dx = std::abs(node_x_[link.to_node] - node_x_[link.from_node]) * graph.grid.cell_size;
    const double dz = std::abs(node_z_[link.to_node] - node_z_[link.from_node]) * graph.grid.cell_size;
    rates.addLink(dx, dz, static_cast<double>(link.cost));
  }
  cost_per_metre_ = rates.euclidean;
  octile_cost_per_metre_ = rates.octile;
  // Every link checked against straightCost's bound (links are few). (Float32 edge costs can
  // lie a rounding below their exact value, which the bound's users allow for.)
  // (And the areas: a graph built by hand may hold one costing 0, which the rates pass over.)
  for (float cost : present_costs)
    if (!(cost >= cost_per_metre_)) straight_bounds_routes_ = false;
  for (const OffMeshLink& link : graph.links) {
    if (link.from_node >= nodes || link.to_node >= nodes) continue;
    if (static_cast<double>(link.cost) < straightCost(link.from_node, link.to_node) * (1 - 1e-6)) straight_bounds_routes_ = false;
  }
  // A bake stores exact reachability (regions and the regions each reaches, computed in
  // parallel at bake time); only graphs without it (built by hand) need the view's own, a
  // serial pass over every node and edge (10 s on a 46-million-node town).
  if (!graph.hasRegions()) computeReachability();
}

double LayeredSearchGraph::heuristic(NodeId node, NodeId goal, bool any_angle) const {
  const double dx = std::abs(node_x_[node] - node_x_[goal]);
  const double dz = std::abs(node_z_[node] - node_z_[goal]);
  if (any_angle) return std::sqrt(dx * dx + dz * dz) * graph_->grid.cell_size * cost_per_metre_;
  return detail::octile(dx, dz) * graph_->grid.cell_size * octile_cost_per_metre_;
}

double LayeredSearchGraph::straightCost(NodeId a, NodeId b) const {
  const double dx = (node_x_[a] - node_x_[b]) * graph_->grid.cell_size;
  const double dz = (node_z_[a] - node_z_[b]) * graph_->grid.cell_size;
  const double rise = static_cast<double>(graph_->height[b]) - graph_->height[a];
  return (std::hypot(dx, dz) + 0.5 * std::fabs(rise)) * cost_per_metre_;
}

double LayeredSearchGraph::shortcutCost(NodeId a, NodeId b) const {
  if (a >= nodeCount() || b >= nodeCount()) return std::numeric_limits<double>::infinity();
  double cost = 0;
  if (!walkCost(a, b, std::max(areaCost(a), areaCost(b)), cost, [](double, NodeId) {}))
    return std::numeric_limits<double>::infinity();
  return cost;
}

template <class Visit>
bool LayeredSearchGraph::walkColumns(NodeId a, NodeId b, Visit&& visit) const {
  return walkColumns(a, b, visit, [](WalkStop::Why, NodeId, int, double) {});
}

template <class Visit, class Fail>
bool LayeredSearchGraph::walkColumns(NodeId a, NodeId b, Visit&& visit, Fail&& fail) const {
  const LayeredGraph& g = *graph_;
  if (a >= g.nodeCount() || b >= g.nodeCount()) return false;
  ColumnLine line(node_x_[b] - node_x_[a], node_z_[b] - node_z_[a]);
  NodeId current = a;
  // Off its column's centre the agent must fit too: every quadrant of a column the segment
  // passes through needs the diagonal walk edge there (ColumnLine::quadrantMask; a line past
  // a wall's end came 0.07 m closer to it than the agent's radius, an audit).
  const auto quadrantsFree = [&](NodeId n) {
    const uint8_t* kinds = g.edge_kind.data() + static_cast<std::size_t>(n) * kDirectionCount;
    unsigned missing = 0;  // diagonal directions without a walk edge
    for (int d = 1; d < kDirectionCount; d += 2) missing |= unsigned(static_cast<EdgeKind>(kinds[d]) != EdgeKind::Walk) << d;
    // A node with all four (most nodes away from walls) passes whatever the mask.
    return missing == 0 || (line.quadrantMask() & missing) == 0;
  };
  if (!quadrantsFree(current)) return fail(WalkStop::Why::NoRoom, current, -1, 0.0), false;
  while (!line.done()) {
    const int direction = line.step();
    const std::size_t slot = static_cast<std::size_t>(current) * kDirectionCount + direction;
    if (static_cast<EdgeKind>(g.edge_kind[slot]) != EdgeKind::Walk)
      return fail(WalkStop::Why::NoEdge, current, direction, line.crossing()), false;
    const NodeId next = g.neighbor[slot];
    // A walk edge always joins adjacent columns; anything else is not on this segment.
    if (next == kNoNode || node_x_[next] != node_x_[current] + line.stepX() || node_z_[next] != node_z_[current] + line.stepZ())
      return fail(WalkStop::Why::NoEdge, current, direction, line.crossing()), false;
    if (!visit(current, next, line)) return false;
    current = next;
    if (!quadrantsFree(current)) return fail(WalkStop::Why::NoRoom, current, -1, line.crossing()), false;
  }
  if (current != b) return fail(WalkStop::Why::OtherFloor, current, -1, 1.0), false;
  return true;
}

LayeredSearchGraph::WalkStop LayeredSearchGraph::walkLineStop(NodeId a, NodeId b) const {
  WalkStop stop;
  if (a >= nodeCount() || b >= nodeCount()) return stop;
  stop.last = b;
  walkColumns(a, b, [](NodeId, NodeId, const ColumnLine&) { return true; },
              [&](WalkStop::Why why, NodeId last, int direction, double t) {
                stop.why = why, stop.last = last, stop.direction = direction, stop.t = t;
              });
  return stop;
}

bool LayeredSearchGraph::walkLineCost(NodeId a, NodeId b, double& cost, std::vector<AreaCrossing>& crossings) const {
  crossings.clear();
  if (a >= nodeCount() || b >= nodeCount()) return false;
  return walkCost(a, b, std::numeric_limits<double>::infinity(), cost,
                  [&](double t, NodeId node) { crossings.push_back({t, node}); });
}

template <class Crossing>
bool LayeredSearchGraph::walkCost(NodeId a, NodeId b, double max_cost, double& cost, Crossing&& crossing) const {
  const LayeredGraph& g = *graph_;
  const int64_t dx = node_x_[b] - node_x_[a], dz = node_z_[b] - node_z_[a];
  const double length = std::sqrt(double(dx) * double(dx) + double(dz) * double(dz)) * g.grid.cell_size;
  // (A start in a never-entered area: see LineCostRuns. It was charged at the heuristic's rate,
  // which a cheap link lowers below every area's cost: 0.29 for a 0.5 m step out of lava onto
  // road at 1, where A* and the distance field say 0.5: an audit.)
  detail::LineCostRuns runs(length, areaCost(a), costPerMetre());
  const bool walked = walkColumns(a, b, [&](NodeId current, NodeId next, const ColumnLine& line) {
    if (g.area[next] != g.area[current]) {  // the line enters another area at the step's parameter t
      if (areaCost(next) > max_cost) return false;
      const double t = line.crossing();
      crossing(t, next);
      runs.enter(t, areaCost(next));
    }
    runs.rise(std::fabs(double(g.height[next]) - double(g.height[current])));
    return true;
  });
  if (!walked) return false;
  cost = runs.total();
  return true;
}

bool LayeredSearchGraph::lineNodes(NodeId a, NodeId b, std::vector<NodeId>& nodes) const {
  nodes.clear();
  if (a >= nodeCount() || b >= nodeCount()) return false;
  nodes.push_back(a);
  return walkColumns(a, b, [&](NodeId, NodeId next, const ColumnLine&) {
    nodes.push_back(next);
    return true;
  });
}

bool LayeredSearchGraph::quarterCorners(const sim::Vec3& point, NodeId n, NodeId (&corners)[4]) const {
  const LayeredGraph& g = *graph_;
  if (n >= g.nodeCount()) return false;
  const auto c = column(n);
  const int sx = point.x < g.grid.centerX(c[0]) ? -1 : 1, sz = point.z < g.grid.centerZ(c[1]) ? -1 : 1;
  corners[0] = n, corners[1] = corners[2] = corners[3] = kNoNode;
  for (int d = 0; d < kDirectionCount; ++d) {
    const int dx = kDirectionDx[std::size_t(d)], dz = kDirectionDz[std::size_t(d)];
    const int slot = (dx == sx && dz == 0) ? 1 : (dx == 0 && dz == sz) ? 2 : (dx == sx && dz == sz) ? 3 : 0;
    if (slot != 0 && g.edgeKind(n, d) == EdgeKind::Walk) corners[slot] = g.neighborOf(n, d);
  }
  return corners[1] != kNoNode && corners[2] != kNoNode && corners[3] != kNoNode;
}

bool LayeredSearchGraph::walkLineFrom(const sim::Vec3& point, NodeId from, NodeId to) const {
  NodeId corners[4];
  if (to >= nodeCount() || !quarterCorners(point, from, corners)) return false;
  for (const NodeId n : corners)
    if (!walkLine(n, to, false)) return false;
  return true;
}

bool LayeredSearchGraph::walkLineBetween(const sim::Vec3& point, NodeId from, const sim::Vec3& end, NodeId to) const {
  NodeId a[4], b[4];
  if (!quarterCorners(point, from, a) || !quarterCorners(end, to, b)) return false;
  for (const NodeId m : a)
    for (const NodeId n : b)
      if (!walkLine(m, n, false)) return false;
  return true;
}

bool LayeredSearchGraph::squareFree(NodeId n) const {
  if (n >= nodeCount()) return false;
  for (int d = 0; d < kDirectionCount; ++d)
    if (isDiagonal(d) && graph_->edgeKind(n, d) != EdgeKind::Walk) return false;
  return true;
}

bool LayeredSearchGraph::walkLine(NodeId a, NodeId b, bool same_cost_only) const {
  if (a >= nodeCount() || b >= nodeCount()) return false;
  const double max_cost = std::max(areaCost(a), areaCost(b));
  return walkColumns(a, b, [&](NodeId, NodeId next, const ColumnLine&) { return !same_cost_only || !(areaCost(next) > max_cost); });
}

}  // namespace strata::nav
