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

#include "strata/nav/nav_queries.h"

#include "column_line.h"

namespace strata::nav {
namespace {

}  // namespace

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

bool sightLine(const LayeredGraph& graph, const sim::Vec3& from, const sim::Vec3& to, const SnapSettings& snap,
               const SightSettings& sight, const sim::QueryIndex* geometry) {
  const NodeId a = snapToNode(graph, from, snap), b = snapToNode(graph, to, snap);
  if (a == kNoNode || b == kNoNode) return false;
  const auto ca = graph.nodeColumn(a), cb = graph.nodeColumn(b);
  const double eye_a = graph.height[a] + sight.eye_height;
  const double eye_b = graph.height[b] + sight.eye_height;
  // The eyes themselves must be in open space (not above a low ceiling).
  if (eye_a > graph.height[a] + graph.headroom[a]) return false;
  if (eye_b > graph.height[b] + graph.headroom[b]) return false;
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
    if (below == kNoNode) return false;
    if (y > graph.height[below] + graph.headroom[below] && geometry == nullptr) return false;
  }
  if (geometry == nullptr) return true;
  // The real surfaces between the eyes: any triangle crossing the open segment blocks.
  const sim::Vec3 eye_from = graph.nodePosition(a) + sim::Vec3{0, sight.eye_height, 0};
  const sim::Vec3 eye_to = graph.nodePosition(b) + sim::Vec3{0, sight.eye_height, 0};
  const sim::Vec3 delta = eye_to - eye_from;
  const double distance = sim::length(delta);
  if (!(distance > 0)) return true;
  return !geometry->raycast(eye_from, delta / distance, distance).has_value();
}

}  // namespace strata::nav
