#pragma once
// Internal: whether a route's first and last waypoints after the exact endpoints may leave out
// the centres of the nodes the endpoints snapped to (layeredWaypoints, the corridor method's
// waypoints and Direct's share the rule; docs/search.md, "Results").
//
// An endpoint's node centre is kept when the point lies off that node's column (snapped from
// beside it); when the leg from it is not a walk (a jump, drop, climb or link is taken between
// column centres: from the exact point a jump could exceed jump_distance); and when the straight
// leg from the exact point to the next corner is not clear by the line test's model: clear when
// the point lies on the line from the next corner through the centre (the leg is the leg from the
// centre plus the leg to it) or between the centre and the next corner (a part of that leg), or by
// LayeredSearchGraph::walkLineFrom (an audit found a leg from a
// start 0.2 m off its column centre passing a wall's end 0.07 m closer than the radius). With no
// corner between the two ends, both go only when the line from point to point is clear
// (walkLineBetween, or all four points on one line). A point at its column's centre needs no
// centre waypoint whatever the leg.

#include <algorithm>
#include <cmath>
#include <span>
#include <utility>

#include "strata/nav/layered_search.h"

namespace strata::nav::detail {

struct EndCentres {
  bool drop_start = false, drop_goal = false;
};

// p lies on the line through a and b (horizontally, within rounding; a != b), at parameter
// `along` (0 at a, 1 at b).
inline bool onLine(const sim::Vec3& a, const sim::Vec3& b, const sim::Vec3& p, double& along) {
  const double dx = b.x - a.x, dz = b.z - a.z, px = p.x - a.x, pz = p.z - a.z;
  const double length2 = dx * dx + dz * dz;
  if (!(length2 > 0)) return false;
  along = (dx * px + dz * pz) / length2;
  return std::fabs(dx * pz - dz * px) <= 1e-9 * std::sqrt(length2) * std::hypot(px, pz);
}

// `first` / `last`: the nodes the exact `from` / `to` snapped to (different nodes);
// `after_first` / `before_last`: the route's next corner after the first node and the one before
// the last (each other's ends when no corner lies between); `*_walks`: those legs are walks.
inline EndCentres endCentres(const LayeredSearchGraph& view, const sim::Vec3& from, NodeId first, NodeId after_first,
                             bool first_walks, const sim::Vec3& to, NodeId last, NodeId before_last, bool last_walks) {
  const GridFrame& grid = view.graph().grid;
  auto centre = [&](NodeId n) {
    const auto c = view.column(n);
    return sim::Vec3{grid.centerX(c[0]), 0.0, grid.centerZ(c[1])};
  };
  // (A point on a column border lies on both columns and snaps to the lower node id, which
  // columnX may not name: onColumn counts the sides.)
  auto onColumn = [&](NodeId n, const sim::Vec3& p) {
    const auto c = view.column(n);
    return grid.onColumn(c[0], c[1], p.x, p.z);
  };
  // At the centre within rounding: a point typed as a centre (16.35) and the centre computed
  // from its column (16.349999999999998) are one place (an audit: the centre was kept beside the
  // exact point, two waypoints an ulp apart on 8 % of the routes of a batch of such points).
  auto atCentre = [&](NodeId n, const sim::Vec3& p) {
    const sim::Vec3 c = centre(n);
    const double tol = 1e-9 * std::max({1.0, std::fabs(c.x), std::fabs(c.z)});
    return std::fabs(p.x - c.x) <= tol && std::fabs(p.z - c.z) <= tol;
  };
  auto clear = [&](const sim::Vec3& p, NodeId node, NodeId next, bool walks) {
    if (!onColumn(node, p)) return false;
    if (atCentre(node, p)) return true;
    double along = 0;
    return walks && ((onLine(centre(node), centre(next), p, along) && along <= 1) || view.walkLineFrom(p, node, next));
  };
  EndCentres out;
  out.drop_start = clear(from, first, after_first, first_walks);
  out.drop_goal = clear(to, last, before_last, last_walks);
  if (after_first == last && out.drop_start && out.drop_goal && !atCentre(first, from) && !atCentre(last, to)) {
    // Both on the line between the centres, the start before the goal: the leg from point to
    // point lies in the legs to and from the centres and the one between them.
    double along_from = 0, along_to = 0;
    const bool line = (onLine(centre(first), centre(last), from, along_from) && onLine(centre(first), centre(last), to, along_to) &&
                       along_from <= along_to) ||
                      view.walkLineBetween(from, first, to, last);
    if (!line) out.drop_goal = false;
  }
  return out;
}

// Start and goal snapped to one node: true when the route must pass through its centre, that
// is unless the two points are one, or both lie on its column and its whole square is free.
inline bool oneNodeThroughCentre(const LayeredSearchGraph& view, NodeId node, const sim::Vec3& from, const sim::Vec3& to) {
  if (from.x == to.x && from.z == to.z) return false;
  const auto c = view.column(node);
  const GridFrame& grid = view.graph().grid;
  return !(grid.onColumn(c[0], c[1], from.x, from.z) && grid.onColumn(c[0], c[1], to.x, to.z) && view.squareFree(node));
}

// Area crossings (waypoints where a walking leg enters another area) are found on the walked line
// between column centres, each on the border of the column it enters. Where an end centre is left
// out the leg runs from the exact point (or to it) instead: `crossings` (in route order) move onto
// the leg from `a` to `b`, so the straight leg stays straight (an audit: a crossing 0.14 m off a
// Direct leg made the polyline 1 cm longer than the leg). Each takes, in this order:
//  - the leg's point on its border line (x or z on the lattice; at a column corner the one the
//    leg is not parallel to), when that point lies within a cell of where it was: the leg crosses
//    the same border a little further on;
//  - else the point where the leg enters the square of the column the crossing enters (on that
//    square's border), when the leg passes through it: a leg nearly parallel to the border line
//    meets it far away, outside the areas of both columns (an audit: on the tower a crossing onto
//    the bridge slid 1.5 m down the ramp along x, and took the bridge's height 0.79 m over it);
//  - else the leg's point at its parameter along the walked line `walked_a` -> `walked_b`.
// Its parameter along the leg never goes back (the two lines can order an x and a z border
// differently). Heights and areas are the crossing's own.
inline void moveCrossingsOntoLeg(const GridFrame& grid, std::span<Waypoint> crossings, const sim::Vec3& walked_a,
                                 const sim::Vec3& walked_b, const sim::Vec3& a, const sim::Vec3& b) {
  const double dx = b.x - a.x, dz = b.z - a.z;
  const double wdx = walked_b.x - walked_a.x, wdz = walked_b.z - walked_a.z;
  const double walked_length2 = wdx * wdx + wdz * wdz;
  const double cell = grid.cell_size;
  // The border coordinate w lies on (true), within rounding of the lattice.
  auto onBorder = [&](double w, bool along_x, double& border) {
    const double origin = along_x ? grid.origin_x : grid.origin_z;
    const auto k = static_cast<int32_t>(std::llround((w - origin) / cell));
    border = along_x ? grid.cornerX(k) : grid.cornerZ(k);
    return std::fabs(w - border) <= 1e-9 * std::max(1.0, std::fabs(w));
  };
  double previous = 0;
  for (Waypoint& w : crossings) {
    const double wx = w.position.x, wz = w.position.z;
    double border_x = 0, border_z = 0;
    const bool on_x = onBorder(wx, true, border_x) && std::fabs(dx) > 1e-12;
    const bool on_z = onBorder(wz, false, border_z) && std::fabs(dz) > 1e-12;
    const double s_x = on_x ? (border_x - a.x) / dx : -1, s_z = on_z ? (border_z - a.z) / dz : -1;
    auto near = [&](double x, double z) { return std::hypot(x - wx, z - wz) <= cell; };
    const bool x_fits = s_x >= previous && s_x <= 1 && near(border_x, a.z + dz * s_x);
    const bool z_fits = s_z >= previous && s_z <= 1 && near(a.x + dx * s_z, border_z);
    if (x_fits || z_fits) {
      // On the border itself, the other coordinate from the leg.
      previous = x_fits ? s_x : s_z;
      w.position.x = x_fits ? border_x : a.x + dx * s_z;
      w.position.z = x_fits ? a.z + dz * s_x : border_z;
      continue;
    }
    // The column entered: the one just past the crossing along the walked line.
    if (walked_length2 > 0) {
      const double nudge = 1e-6 * cell / std::sqrt(walked_length2);
      const int32_t cx = grid.columnX(wx + wdx * nudge), cz = grid.columnZ(wz + wdz * nudge);
      const double lo[2] = {grid.cornerX(cx), grid.cornerZ(cz)}, hi[2] = {grid.cornerX(cx + 1), grid.cornerZ(cz + 1)};
      const double start[2] = {a.x, a.z}, delta[2] = {dx, dz};
      // The leg's parameters inside the square (the slab on each axis), and the axis it enters by.
      double s_in = previous, s_out = 1;
      int entry_axis = -1;
      for (int axis = 0; axis < 2; ++axis) {
        if (std::fabs(delta[axis]) <= 1e-12) {
          if (start[axis] < lo[axis] || start[axis] > hi[axis]) s_out = -1;
          continue;
        }
        double t0 = (lo[axis] - start[axis]) / delta[axis], t1 = (hi[axis] - start[axis]) / delta[axis];
        if (t0 > t1) std::swap(t0, t1);
        if (t0 > s_in) s_in = t0, entry_axis = axis;
        s_out = std::min(s_out, t1);
      }
      if (s_in <= s_out) {
        previous = s_in;
        w.position.x = a.x + dx * s_in;
        w.position.z = a.z + dz * s_in;
        if (entry_axis == 0) w.position.x = dx > 0 ? lo[0] : hi[0];
        if (entry_axis == 1) w.position.z = dz > 0 ? lo[1] : hi[1];
        continue;
      }
    }
    double s = walked_length2 > 0 ? ((wx - walked_a.x) * wdx + (wz - walked_a.z) * wdz) / walked_length2 : 0.0;
    s = std::clamp(s, previous, 1.0);
    previous = s;
    w.position.x = a.x + dx * s;
    w.position.z = a.z + dz * s;
  }
}

}  // namespace strata::nav::detail
