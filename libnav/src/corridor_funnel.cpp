// String pulling through a corridor of portals: the funnel algorithm.
//
// Lee & Preparata, "Euclidean shortest paths in the presence of rectilinear barriers" (Networks,
// 1984) for the funnel; the iterative form with a restart at the new apex follows the
// description of Mononen's "Simple Stupid Funnel Algorithm" (2010). The funnel is a wedge from
// the apex through the current left and right ends. Each portal narrows a side when its end lies
// inside the wedge; when an end crosses over the other side, that other side's point is a corner
// of the shortest path: it becomes the apex and the scan restarts after the portal it came from.
//
// Coordinates are column indices, so the orientation tests are exact in 64-bit integers; a point
// on a wedge side counts as inside (the route may touch a corridor's boundary, which is walkable:
// rectangles and portal strips are closed sets of column centres).

#include "strata/nav/corridor.h"

namespace strata::nav {
namespace {

// > 0 when c lies left of (counter-clockwise from) the ray a -> b, < 0 right, 0 on its line.
int64_t orient(const FunnelPoint& a, const FunnelPoint& b, const FunnelPoint& c) {
  return (int64_t(b.x) - a.x) * (int64_t(c.z) - a.z) - (int64_t(b.z) - a.z) * (int64_t(c.x) - a.x);
}

bool samePoint(const FunnelPoint& a, const FunnelPoint& b) { return a.x == b.x && a.z == b.z; }

// Appends a corner unless it repeats the last one (an apex that did not move).
void addCorner(std::vector<FunnelPoint>& out, const FunnelPoint& p) {
  if (out.empty() || !samePoint(out.back(), p) || out.back().node != p.node) out.push_back(p);
}

}  // namespace

void pullString(std::span<const FunnelPortal> portals, std::vector<FunnelPoint>& out) {
  if (portals.empty()) return;
  FunnelPoint apex = portals[0].left, left = portals[0].left, right = portals[0].left;
  std::size_t left_index = 0, right_index = 0;
  addCorner(out, apex);
  for (std::size_t i = 1; i < portals.size(); ++i) {
    const FunnelPoint& new_left = portals[i].left;
    const FunnelPoint& new_right = portals[i].right;
    // The right side: narrow when the new right end is not right of the current right side.
    if (orient(apex, right, new_right) >= 0) {
      if (samePoint(apex, right) || orient(apex, left, new_right) < 0) {
        right = new_right;
        right_index = i;
      } else {
        // The right end crossed the left side: the left point is a corner.
        apex = left;
        addCorner(out, apex);
        right = left = apex;
        right_index = left_index;
        i = left_index;
        continue;
      }
    }
    // The left side, mirrored.
    if (orient(apex, left, new_left) <= 0) {
      if (samePoint(apex, left) || orient(apex, right, new_left) > 0) {
        left = new_left;
        left_index = i;
      } else {
        apex = right;
        addCorner(out, apex);
        left = right = apex;
        left_index = right_index;
        i = right_index;
        continue;
      }
    }
  }
  addCorner(out, portals.back().left);
}

}  // namespace strata::nav
