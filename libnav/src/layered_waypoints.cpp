// The waypoint pass of the layered search (spec/character-movement-and-navigation.md, "Search
// edges, costs, and waypoints"): backtracked node chain in, waypoints out.
//
//  - The exact start comes first and the exact goal last, at the surface height of the node they
//    snapped to. The node an endpoint snapped to is kept as well (so the first and last legs stay
//    on walkable ground) unless the endpoint lies on its column and the leg from it, a walk, is
//    clear by LayeredSearchGraph::walkLineFrom: off the column centre the line to the next corner
//    can pass closer to a wall than the one from the centre (an audit: 0.07 m inside the radius
//    at a wall's end), and a jump or drop is taken from its take-off column, not from beside it
//    (a jump from the exact start was 0.2 m longer than jump_distance).
//  - An inner node is kept when it is a corner (the column step changes direction), when the
//    action changes (the take-off and the landing of a jump, drop, climb or link), or at an area
//    boundary (both sides of it). Straight walking runs collapse to their ends. A walking leg
//    across several columns (Theta*) gets a waypoint where it enters another area instead (its
//    end nodes are not kept again for that boundary), on the surface of the floor it enters.
//  - Optional spacing subdivides walking legs so that no two waypoints are farther apart than
//    `spacing`; an inserted point stands on the surface of the node the leg's walked line crosses
//    in its column (when the point's column is beside the walked line, of its floor nearest the
//    height of the walked node beside it).

#include <cmath>
#include <cstdlib>
#include <limits>
#include <utility>
#include <vector>

#include "end_legs.h"
#include "strata/nav/layered_search.h"
#include "strata/nav/nav_queries.h"

namespace strata::nav {
namespace {

Waypoint waypointAt(const LayeredGraph& graph, NodeId node, MoveAction action) {
  return {graph.nodePosition(node), action, graph.area[node]};
}

}  // namespace

std::vector<Waypoint> layeredWaypoints(const LayeredSearchGraph& view, const std::vector<NodeId>& nodes,
                                       const std::vector<MoveAction>& actions, const sim::Vec3& from,
                                       const sim::Vec3& to, double spacing) {
  const LayeredGraph& graph = view.graph();
  std::vector<Waypoint> points;
  if (nodes.empty()) return points;
  auto action = [&](std::size_t i) { return i < actions.size() ? actions[i] : MoveAction::Walk; };
  const std::size_t last = nodes.size() - 1;
  const NodeId first_node = nodes.front(), last_node = nodes.back();

  points.push_back({{from.x, graph.surfaceAt(first_node, view.column(first_node), from.x, from.z), from.z}, MoveAction::Walk, graph.area[first_node]});
  // The start's node; dropped below when the first leg is clear from the exact start.
  if (last > 0) points.push_back(waypointAt(graph, first_node, MoveAction::Walk));
  std::size_t first_kept = 0, last_kept = 0;  // the first and last inner nodes kept (0: none)
  // Where in `points` the first kept node's waypoint is, and the index after the last one's
  // (the area crossings before and after them lie on the first and last legs).
  std::size_t first_corner_at = 0, after_last_corner = 2;
  const GridFrame& grid = graph.grid;
  auto centre = [&](NodeId n) {
    const auto c = view.column(n);
    return sim::Vec3{grid.centerX(c[0]), static_cast<double>(graph.height[n]), grid.centerZ(c[1])};
  };
  std::vector<LayeredSearchGraph::AreaCrossing> crossings;
  // Each crossing's place in `points` and the node it enters (its height is set once it has
  // moved, below).
  std::vector<std::pair<std::size_t, NodeId>> crossing_nodes;
  // A walking leg across several columns (a Theta* shortcut) gets a waypoint where it enters
  // another area, as Direct's line does: the chain's nodes alone would skip the boundary.
  auto addCrossings = [&](std::size_t i) {
    const NodeId a = nodes[i - 1], b = nodes[i];
    const auto ca = view.column(a), cb = view.column(b);
    if (action(i) != MoveAction::Walk || std::max(std::abs(cb[0] - ca[0]), std::abs(cb[1] - ca[1])) <= 1) return;
    double cost = 0;
    if (!view.walkLineCost(a, b, cost, crossings)) return;
    const sim::Vec3 p = centre(a), q = centre(b);
    for (const auto& c : crossings) {
      crossing_nodes.push_back({points.size(), c.node});
      points.push_back({p + (q - p) * c.t, MoveAction::Walk, graph.area[c.node]});
    }
  };
  // A walking leg across several columns: its area boundaries are the crossings above, so its
  // end nodes need not be kept for them (a Theta* node past a crossing was kept again, leaving
  // three collinear waypoints of one area).
  auto longWalk = [&](std::size_t i) {
    const auto ca = view.column(nodes[i - 1]), cb = view.column(nodes[i]);
    return action(i) == MoveAction::Walk && std::max(std::abs(cb[0] - ca[0]), std::abs(cb[1] - ca[1])) > 1;
  };
  for (std::size_t i = 1; i < last; ++i) {
    addCrossings(i);
    const NodeId prev = nodes[i - 1], node = nodes[i], next = nodes[i + 1];
    bool keep = action(i) != MoveAction::Walk || action(i + 1) != MoveAction::Walk;
    keep = keep || (graph.area[node] != graph.area[prev] && !longWalk(i)) ||
           (graph.area[node] != graph.area[next] && !longWalk(i + 1));
    if (!keep) {
      const auto a = view.column(prev), b = view.column(node), c = view.column(next);
      const int64_t dx1 = b[0] - a[0], dz1 = b[1] - a[1], dx2 = c[0] - b[0], dz2 = c[1] - b[1];
      keep = dx1 * dz2 - dz1 * dx2 != 0 || dx1 * dx2 + dz1 * dz2 <= 0;
    }
    if (keep) {
      if (first_kept == 0) first_kept = i, first_corner_at = points.size();
      last_kept = i;
      points.push_back(waypointAt(graph, node, action(i)));
      if (action(i) == MoveAction::Link) points.back().link = graph.linkLabel(prev, node);
      after_last_corner = points.size();
    }
  }
  if (last > 0) addCrossings(last);
  MoveAction final_action = last > 0 ? action(last) : MoveAction::Walk;
  const int32_t final_link = final_action == MoveAction::Link ? graph.linkLabel(nodes[last - 1], last_node) : -1;
  // An endpoint's node centre goes where the leg from the exact point is clear (end_legs.h).
  const std::size_t first_end = first_kept != 0 ? first_kept : last;  // the first leg's far end
  detail::EndCentres ends;
  if (last > 0)
    ends = detail::endCentres(view, from, first_node, nodes[first_end], action(first_end) == MoveAction::Walk, to, last_node,
                              nodes[last_kept], final_action == MoveAction::Walk);
  const bool drop_start = ends.drop_start, drop_goal = ends.drop_goal;
  // The crossings of a leg from or to an exact endpoint whose centre goes move onto that leg.
  if (last > 0 && (drop_start || drop_goal)) {
    const sim::Vec3 c_first = centre(first_node), c_last = centre(last_node);
    const sim::Vec3 exact_from{from.x, 0.0, from.z}, exact_to{to.x, 0.0, to.z};
    std::span<Waypoint> all(points);
    if (first_kept == 0) {
      detail::moveCrossingsOntoLeg(grid, all.subspan(2), c_first, c_last, drop_start ? exact_from : c_first,
                                   drop_goal ? exact_to : c_last);
    } else {
      const sim::Vec3 first_corner = centre(nodes[first_kept]), last_corner = centre(nodes[last_kept]);
      if (drop_start)
        detail::moveCrossingsOntoLeg(grid, all.subspan(2, first_corner_at - 2), c_first, first_corner, exact_from, first_corner);
      if (drop_goal)
        detail::moveCrossingsOntoLeg(grid, all.subspan(after_last_corner), last_corner, c_last, last_corner, exact_to);
    }
  }
  // Each crossing stands on the surface of the floor it enters, under it (where it lies now).
  for (const auto& [at, node] : crossing_nodes) {
    sim::Vec3& p = points[at].position;
    p.y = graph.surfaceAt(node, view.column(node), p.x, p.z);
  }
  if (drop_start) points.erase(points.begin() + 1);
  if (last == 0 && detail::oneNodeThroughCentre(view, first_node, from, to))
    points.push_back(waypointAt(graph, first_node, MoveAction::Walk));
  if (!drop_goal && last > 0) {
    points.push_back(waypointAt(graph, last_node, final_action));
    points.back().link = final_link;
    final_action = MoveAction::Walk;
  }
  points.push_back({{to.x, graph.surfaceAt(last_node, view.column(last_node), to.x, to.z), to.z}, final_action, graph.area[last_node],
                    final_action == MoveAction::Link ? final_link : -1});

  return spaceWaypoints(view, std::move(points), spacing);
}

std::vector<Waypoint> spaceWaypoints(const LayeredSearchGraph& view, std::vector<Waypoint> points, double spacing) {
  if (!(spacing > 0) || points.empty()) return points;
  // Settings below the documented limit (validate(): 0 or >= 0.05 m) count as the limit: a
  // library caller's 1e-7 m put a billion points on one leg and ended in std::bad_alloc.
  spacing = std::max(spacing, kMinWaypointSpacing);
  const LayeredGraph& graph = view.graph();
  std::vector<Waypoint> spaced;
  spaced.push_back(points.front());
  const double band = view.agent().step_height + 0.5;
  std::vector<NodeId> walked;
  // The node a waypoint stands on: the floor of its column at its height (waypoints are at
  // surface heights). An area crossing lies on the border of the column it enters and takes
  // that column's height, so a point on a border is also looked up in the column across it (the
  // crossing onto a ramp at 3.925 m was looked up in the bridge column at 4.0, found nothing,
  // and the spaced points after it kept heights blended in the air).
  auto standing = [&](const sim::Vec3& p) {
    constexpr double kBorder = 1e-6;  // metres
    const GridFrame& grid = graph.grid;
    const int32_t x = grid.columnX(p.x), z = grid.columnZ(p.z);
    const int32_t xs[2] = {x, grid.columnX(p.x - kBorder) != x ? grid.columnX(p.x - kBorder) : grid.columnX(p.x + kBorder)};
    const int32_t zs[2] = {z, grid.columnZ(p.z - kBorder) != z ? grid.columnZ(p.z - kBorder) : grid.columnZ(p.z + kBorder)};
    // An exact endpoint stands on its floor's surface under it, which on a slope lies off the
    // centre's height by up to the rise across half a column: a wider band after the close one.
    for (const double reach : {0.05, 0.05 + grid.cell_size})
      for (int i = 0; i < 4; ++i) {
        const int32_t cx = xs[i & 1], cz = zs[i >> 1];
        if (i > 0 && cx == x && cz == z) continue;
        if (const NodeId n = graph.findNode(cx, cz, p.y, reach, reach); n != kNoNode) return n;
      }
    return kNoNode;
  };
  for (std::size_t i = 1; i < points.size(); ++i) {
    const Waypoint& p = points[i - 1];
    const Waypoint& q = points[i];
    const double length = std::hypot(q.position.x - p.position.x, q.position.z - p.position.z);
    if (q.action == MoveAction::Walk && length > spacing) {
      // The leg is a walked line: its columns' nodes give each inserted point the height of the
      // ground under it, over a hill too (an interpolated height can be metres off).
      const NodeId a = standing(p.position), b = standing(q.position);
      if (a == kNoNode || b == kNoNode || !view.lineNodes(a, b, walked)) walked.clear();
      std::size_t k = 0;
      const auto pieces = static_cast<int64_t>(std::ceil(length / spacing));
      for (int64_t j = 1; j < pieces; ++j) {
        const double t = static_cast<double>(j) / static_cast<double>(pieces);
        Waypoint w{p.position + (q.position - p.position) * t, MoveAction::Walk, p.area};
        const int32_t x = graph.grid.columnX(w.position.x), z = graph.grid.columnZ(w.position.z);
        // Points go forward along the line, and so do its columns: the walked node of the
        // point's column, or else of the column nearest to it. The walked line joins column
        // centres while the points lie on the line from the exact endpoints, so near an endpoint
        // off its column's centre a point can lie in the column beside the walked one; its floor
        // is then the one nearest that neighbour's height (a height blended between the leg's
        // ends could be metres off the ground on a slope or a stair: an audit found spaced
        // points 1-4 m in the air).
        NodeId under = kNoNode;
        int32_t best = std::numeric_limits<int32_t>::max();
        std::size_t best_m = k;
        for (std::size_t m = k; m < walked.size(); ++m) {
          const auto c = view.column(walked[m]);
          const int32_t d = std::max(std::abs(c[0] - x), std::abs(c[1] - z));
          if (d < best) best = d, best_m = m;
          if (d == 0 || d > best + 2) break;  // found, or moving away
        }
        if (best == 0) {
          under = walked[best_m], k = best_m;
        } else if (best_m < walked.size()) {
          const NodeId near = walked[best_m];
          k = best_m;
          under = graph.findNode(x, z, graph.height[near], band, band);
          if (under == kNoNode) under = near;  // no floor of its own in reach: the ground beside it
        } else {
          under = graph.findNode(x, z, w.position.y, band, band);
        }
        if (under != kNoNode) {
          // On the surface of that floor under the point (its plane; clamped into its column
          // when the point lies beside it).
          w.position.y = graph.surfaceAt(under, view.column(under), w.position.x, w.position.z);
          w.area = graph.area[under];
        }
        spaced.push_back(w);
      }
    }
    spaced.push_back(q);
  }
  return spaced;
}

}  // namespace strata::nav
