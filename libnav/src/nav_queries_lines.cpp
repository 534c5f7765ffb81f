// Feet and photons on stacked floors (spec/grid-pathfinding-library.md, "Feet and photons").
//
// lineOfSight (feet) is the search's walking line test: the columns the segment crosses must be
// joined by walk edges on one connected floor (LayeredSearchGraph::walkLine).
// sightLine (eyes) walks the same columns without the corner rule (a diagonal crossing of a
// column corner steps straight across) and asks, at each crossed column, whether the sight
// segment's height there lies in the free space above some floor of the column (floor height
// <= y <= floor + headroom). A pit or valley has a floor far below whose free space reaches the
// segment, so it never blocks; ground rising through the segment and a low ceiling do. Given the
// world's query index, the eye segment must also cross no triangle, so walls (thinner than a
// column too) block the eyes, and a column without floors (a wall, or a hole: a trench too
// narrow to stand in, the foot of a ledge) or a segment over the ceiling of the floor below it
// (above a beam no one stands on) is left to the triangles; without it, either blocks.

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "strata/nav/nav_queries.h"

#include "column_line.h"

namespace strata::nav {

Status SightSettings::validate() const {
  // Eyes at the floor itself (0) put the segment in the floor's surface, where it touches the
  // top edge of every pit wall it passes: a pit blocked such a line, against the rule.
  if (!std::isfinite(eye_height) || !(eye_height > 0)) return Error::badInput("sight: eye_height must be a finite number > 0");
  return Ok{};
}

bool lineOfSight(const LayeredSearchGraph& graph, const sim::Vec3& from, const sim::Vec3& to, const SnapSettings& snap) {
  // The ends snap as a path's do (snapToNode), so a line is walkable exactly when Direct walks it.
  const NodeId a = snapToNode(graph.graph(), from, snap), b = snapToNode(graph.graph(), to, snap);
  if (a == kNoNode || b == kNoNode) return false;
  return graph.walkLine(a, b, false);
}

LineStop lineStop(const LayeredSearchGraph& graph, const sim::Vec3& from, const sim::Vec3& to, const SnapSettings& snap) {
  const LayeredGraph& g = graph.graph();
  LineStop stop;
  const NodeId a = snapToNode(g, from, snap), b = snapToNode(g, to, snap);
  if (a == kNoNode || b == kNoNode) {
    stop.why = a == kNoNode ? LineStop::Why::NoStartNode : LineStop::Why::NoGoalNode;
    return stop;
  }
  const LayeredSearchGraph::WalkStop walk = graph.walkLineStop(a, b);
  using WalkWhy = LayeredSearchGraph::WalkStop::Why;
  if (walk.why == WalkWhy::None) return stop;
  const sim::Vec3 pa = g.nodePosition(a), pb = g.nodePosition(b);
  stop.point = {pa.x + (pb.x - pa.x) * walk.t, g.height[walk.last], pa.z + (pb.z - pa.z) * walk.t};
  stop.distance = std::hypot(pb.x - pa.x, pb.z - pa.z) * walk.t;
  const auto last = graph.column(walk.last);
  int32_t cx = last[0], cz = last[1];
  if (walk.why == WalkWhy::NoEdge) cx += kDirectionDx[std::size_t(walk.direction)], cz += kDirectionDz[std::size_t(walk.direction)];
  stop.x = g.grid.centerX(cx), stop.z = g.grid.centerZ(cz);
  if (walk.why == WalkWhy::NoRoom) {
    stop.why = LineStop::Why::NoRoom;
  } else if (walk.why == WalkWhy::OtherFloor) {
    stop.why = LineStop::Why::OtherFloor;
    stop.rise = double(g.height[walk.last]) - double(g.height[b]);
  } else if (const EdgeKind kind = g.edgeKind(walk.last, walk.direction); kind != EdgeKind::None && kind != EdgeKind::Walk) {
    // A jump, drop or climb (a jump may land columns further, past a gap).
    stop.why = LineStop::Why::OnlyAction;
    stop.edge = kind;
    const NodeId to_node = g.neighborOf(walk.last, walk.direction);
    if (to_node < g.nodeCount()) stop.rise = double(g.height[to_node]) - double(g.height[walk.last]);
  } else if (!g.grid.contains(cx, cz) || g.columnEnd(cx, cz) == g.columnBegin(cx, cz)) {
    stop.why = LineStop::Why::NoFloor;
  } else {
    // The floor nearest in height: over a step away, or within one and still not joined.
    double nearest = std::numeric_limits<double>::infinity();
    for (uint32_t n = g.columnBegin(cx, cz); n < g.columnEnd(cx, cz); ++n) {
      const double rise = double(g.height[n]) - double(g.height[walk.last]);
      if (std::fabs(rise) < std::fabs(nearest)) nearest = rise;
    }
    stop.rise = nearest;
    stop.why = std::fabs(nearest) > graph.agent().step_height ? LineStop::Why::Step : LineStop::Why::NoWalkEdge;
  }
  return stop;
}

bool sightLine(const LayeredGraph& graph, const sim::Vec3& from, const sim::Vec3& to, const SnapSettings& snap,
               const SightSettings& sight, const sim::QueryIndex* geometry) {
  return sightStop(graph, from, to, snap, sight, geometry).clear();
}

LineStop sightStop(const LayeredGraph& graph, const sim::Vec3& from, const sim::Vec3& to, const SnapSettings& snap,
                   const SightSettings& sight, const sim::QueryIndex* geometry) {
  LineStop stop;
  const NodeId a = snapToNode(graph, from, snap), b = snapToNode(graph, to, snap);
  if (a == kNoNode || b == kNoNode) {
    stop.why = a == kNoNode ? LineStop::Why::NoStartNode : LineStop::Why::NoGoalNode;
    return stop;
  }
  const auto ca = graph.nodeColumn(a), cb = graph.nodeColumn(b);
  const double eye_a = graph.height[a] + sight.eye_height;
  const double eye_b = graph.height[b] + sight.eye_height;
  const sim::Vec3 pa = graph.nodePosition(a), pb = graph.nodePosition(b);
  const double horizontal = std::hypot(pb.x - pa.x, pb.z - pa.z);
  // Stopped at parameter t of the eye segment, at column (x, z).
  const auto stopped = [&](LineStop::Why why, double t, int32_t x, int32_t z) {
    stop.why = why;
    stop.point = {pa.x + (pb.x - pa.x) * t, eye_a + (eye_b - eye_a) * t, pa.z + (pb.z - pa.z) * t};
    stop.distance = horizontal * t;
    stop.x = graph.grid.centerX(x), stop.z = graph.grid.centerZ(z);
    return stop;
  };
  // The eyes themselves must be in open space (not above a low ceiling). The checks go from
  // `from` on, so that the stop reported is the first along the segment: the start's eyes, the
  // columns and the triangles before the first column that blocks, the end's eyes.
  if (eye_a > graph.height[a] + graph.headroom[a]) {
    stop.rise = graph.headroom[a];
    return stopped(LineStop::Why::EyesCovered, 0, ca[0], ca[1]);
  }
  std::optional<LineStop> column_stop;
  const int64_t dx = cb[0] - ca[0], dz = cb[1] - ca[1];
  const double length2 = static_cast<double>(dx * dx + dz * dz);
  int32_t x = ca[0], z = ca[1];
  ColumnLine line(dx, dz);
  while (!line.done()) {
    line.step();
    x += line.stepX(), z += line.stepZ();
    if (line.done()) break;  // the end column: its eye point was checked above
    const double t = std::clamp(((x - ca[0]) * static_cast<double>(dx) + (z - ca[1]) * static_cast<double>(dz)) / length2, 0.0, 1.0);
    const double y = eye_a + (eye_b - eye_a) * t;
    // A column without floors is a wall or a hole the graph cannot tell apart (a trench too
    // narrow to stand in, the foot of a ledge, a gap with nothing below): with the geometry the
    // triangles decide below (a wall is triangles; a hole is not), without it it blocks.
    if (geometry != nullptr && graph.columnEnd(x, z) == graph.columnBegin(x, z)) continue;
    // The floor below the segment here (floors ascend): the segment must lie in its free space.
    // Over its ceiling (the first surface above it: a beam too steep to stand on, a lamp under a
    // slab) the graph holds nothing up to the next floor, so with the geometry the triangles
    // decide (a segment inside a slab crossed its surface to get there); without it, it blocks.
    // Under the lowest floor it blocks (rising ground).
    uint32_t below = kNoNode;
    for (uint32_t n = graph.columnBegin(x, z); n < graph.columnEnd(x, z) && graph.height[n] <= y; ++n) below = n;
    if (below == kNoNode) {
      stop.rise = graph.height[graph.columnBegin(x, z)] - y;
      column_stop = stopped(LineStop::Why::GroundRises, t, x, z);
      break;
    }
    if (y > graph.height[below] + graph.headroom[below] && geometry == nullptr) {
      column_stop = stopped(LineStop::Why::Ceiling, t, x, z);
      break;
    }
  }
  // The real surfaces between the eyes, up to the column that blocks: any triangle crossing the
  // open segment blocks.
  const sim::Vec3 eye_from = pa + sim::Vec3{0, sight.eye_height, 0};
  const sim::Vec3 eye_to = pb + sim::Vec3{0, sight.eye_height, 0};
  const sim::Vec3 delta = eye_to - eye_from;
  const double distance = sim::length(delta);
  if (geometry != nullptr && distance > 0) {
    const double reach = column_stop ? distance * (horizontal > 0 ? column_stop->distance / horizontal : 1.0) : distance;
    if (const auto hit = geometry->raycast(eye_from, delta / distance, reach)) {
      LineStop surface;
      surface.why = LineStop::Why::Surface;
      surface.point = hit->point;
      surface.distance = std::hypot(hit->point.x - eye_from.x, hit->point.z - eye_from.z);
      surface.label = hit->label;
      surface.x = graph.grid.centerX(graph.grid.columnX(hit->point.x));
      surface.z = graph.grid.centerZ(graph.grid.columnZ(hit->point.z));
      return surface;
    }
  }
  if (column_stop) return *column_stop;
  if (eye_b > graph.height[b] + graph.headroom[b]) {
    stop.rise = graph.headroom[b], stop.at_start = false;
    return stopped(LineStop::Why::EyesCovered, 1, cb[0], cb[1]);
  }
  return LineStop{};
}

}  // namespace strata::nav
