// Exact narrow phase: one query shape against one triangle, box or capsule, in double precision.
//
// Sources: watertight ray/triangle (Woop, Benthin, Wald, JCGT 2013); closest-point routines
// (Ericson, Real-Time Collision Detection, 5.1.5 and 5.1.9); separating-axis tests and sweeps
// for boxes against triangles (Eberly, "Intersection of Convex Objects: The Method of Separating
// Axes"; Akenine-Moller, "Fast 3D Triangle-Box Overlap Testing").
//
// Capsule (and sphere) casts decompose the swept contact into feature pairs: endpoint vs face,
// endpoint vs edge (ray vs cylinder), endpoint vs vertex (ray vs sphere), triangle vertex vs the
// capsule's segment (reverse ray vs cylinder) and segment vs edge (the two lines reach distance r
// with both closest points interior). The first contact between two convex shapes happens at one
// of these pairs with interior closest points, and every candidate found is an actual contact,
// so the minimum over the candidates is the exact time of impact.

#include "narrow_phase.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace strata::sim::detail {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double maxAbs(const Vec3& v) { return std::max({std::fabs(v.x), std::fabs(v.y), std::fabs(v.z)}); }

bool nearlyZero(const Vec3& v, double scale_squared) { return lengthSquared(v) <= 1e-24 * scale_squared; }

// First entering t in [0, 1] of the ray O + t D into the sphere (C, r); none when starting inside.
// A start inside (only possible through rounding, the caller has checked the start is clear)
// that moves inward counts as contact at t = 0, so a touching start is never tunnelled through.
std::optional<double> raySphereEnter(const Vec3& o, const Vec3& d, const Vec3& c, double r) {
  const Vec3 m = o - c;
  const double cc = dot(m, m) - r * r;
  const double b = dot(m, d);
  if (b >= 0) return std::nullopt;
  if (cc <= 0) return 0.0;
  const double a = dot(d, d);
  if (a == 0) return std::nullopt;
  const double disc = b * b - a * cc;
  if (disc < 0) return std::nullopt;
  const double t = (-b - std::sqrt(disc)) / a;
  if (t < 0 || t > 1) return std::nullopt;
  return t;
}

// First entering t in [0, 1] of the ray into the finite cylinder around segment A-B (side only).
std::optional<double> rayCylinderEnter(const Vec3& o, const Vec3& d, const Vec3& a, const Vec3& b, double r) {
  const Vec3 ab = b - a;
  const double abab = dot(ab, ab);
  if (abab == 0) return std::nullopt;
  const Vec3 ao = o - a;
  const Vec3 dperp = d - ab * (dot(d, ab) / abab);
  const Vec3 operp = ao - ab * (dot(ao, ab) / abab);
  const double qa = dot(dperp, dperp);
  const double qb = dot(operp, dperp);
  const double qc = dot(operp, operp) - r * r;
  if (qa == 0 || qb >= 0) return std::nullopt;
  if (qc <= 0) {  // inside the infinite cylinder: contact now if within the segment's span
    const double s0 = dot(ao, ab) / abab;
    if (s0 >= 0 && s0 <= 1) return 0.0;
    return std::nullopt;
  }
  const double disc = qb * qb - qa * qc;
  if (disc < 0) return std::nullopt;
  const double t = (-qb - std::sqrt(disc)) / qa;
  if (t < 0 || t > 1) return std::nullopt;
  const double s = dot(ao + d * t, ab) / abab;
  if (s < 0 || s > 1) return std::nullopt;
  return t;
}

// How deep the motion O + s D (t <= s <= 1: from the contact to the motion's end) comes into the
// cylinder of radius r around the line through A and B: r minus its closest approach to the line.
// Taken from the closest-approach vector itself, not from the entry root (at a tangent entry the
// root comes from a nearly zero discriminant and its normal is good to about 1e-8 only): a
// tangent graze reads 0 to rounding, a real entry more the deeper its angle. Up to the motion's
// end, as the face rule (staysTouching) measures it: a motion that ends touching an edge or a
// vertex is no hit, as one that ends touching a face (an audit: a sphere lowered onto the edge
// two floor triangles share, stopping on it, was a hit there and no hit a little to the side;
// the path carried on past the end went deeper).
double lineApproachDepth(const Vec3& o, const Vec3& d, const Vec3& a, const Vec3& b, double r, double t) {
  const Vec3 ab = b - a;
  const double abab = dot(ab, ab);
  if (abab == 0) return r - length(o + d * t - a);
  const Vec3 ao = o - a;
  const Vec3 dperp = d - ab * (dot(d, ab) / abab);
  const Vec3 operp = ao - ab * (dot(ao, ab) / abab);
  const double qa = dot(dperp, dperp);
  const double s = qa > 0 ? std::clamp(-dot(operp, dperp) / qa, t, std::max(t, 1.0)) : t;
  return r - length(operp + dperp * s);
}

// The same for the sphere of radius r around C.
double pointApproachDepth(const Vec3& o, const Vec3& d, const Vec3& c, double r, double t) {
  const Vec3 m = o - c;
  const double dd = dot(d, d);
  const double s = dd > 0 ? std::clamp(-dot(m, d) / dd, t, std::max(t, 1.0)) : t;
  return r - length(m + d * s);
}

// Both roots of the ray against a full infinite cylinder restricted to the segment's span, and
// against a sphere, for rayCapsule (which needs entry and exit).
void sphereRoots(const Vec3& o, const Vec3& d, const Vec3& c, double r, double& t0, double& t1) {
  t0 = kInf;
  t1 = -kInf;
  const Vec3 m = o - c;
  const double a = dot(d, d), b = dot(m, d), cc = dot(m, m) - r * r;
  const double disc = b * b - a * cc;
  if (disc < 0 || a == 0) return;
  const double s = std::sqrt(disc);
  t0 = (-b - s) / a;
  t1 = (-b + s) / a;
}

Vec3 anyPerpendicular(const Vec3& v) {
  const Vec3 axis = std::fabs(v.x) < 0.6 ? Vec3{1, 0, 0} : (std::fabs(v.y) < 0.6 ? Vec3{0, 1, 0} : Vec3{0, 0, 1});
  return normalize(cross(v, axis));
}

bool pointInTrianglePlane(const Vec3& x, const Triangle& t, const Vec3& n) {
  return dot(cross(t.b - t.a, x - t.a), n) >= 0 && dot(cross(t.c - t.b, x - t.b), n) >= 0 &&
         dot(cross(t.a - t.c, x - t.c), n) >= 0;
}

double triangleScale(const Triangle& t) { return std::max({maxAbs(t.b - t.a), maxAbs(t.c - t.a), 1e-30}); }

}  // namespace

// ---------------------------------------------------------------------------------------------
// Rays

WatertightRay prepareRay(const Vec3& origin, const Vec3& direction) {
  WatertightRay ray;
  ray.origin = origin;
  ray.direction = direction;
  const double ax = std::fabs(direction.x), ay = std::fabs(direction.y), az = std::fabs(direction.z);
  ray.kz = ax > ay ? (ax > az ? 0 : 2) : (ay > az ? 1 : 2);
  ray.kx = (ray.kz + 1) % 3;
  ray.ky = (ray.kx + 1) % 3;
  if (direction[ray.kz] < 0) std::swap(ray.kx, ray.ky);
  ray.shear_x = direction[ray.kx] / direction[ray.kz];
  ray.shear_y = direction[ray.ky] / direction[ray.kz];
  ray.shear_z = 1.0 / direction[ray.kz];
  return ray;
}

std::optional<double> rayTriangle(const WatertightRay& ray, const Triangle& tri, double max_t) {
  const Vec3 a = tri.a - ray.origin, b = tri.b - ray.origin, c = tri.c - ray.origin;
  const double ax = a[ray.kx] - ray.shear_x * a[ray.kz], ay = a[ray.ky] - ray.shear_y * a[ray.kz];
  const double bx = b[ray.kx] - ray.shear_x * b[ray.kz], by = b[ray.ky] - ray.shear_y * b[ray.kz];
  const double cx = c[ray.kx] - ray.shear_x * c[ray.kz], cy = c[ray.ky] - ray.shear_y * c[ray.kz];
  const double u = cx * by - cy * bx;
  const double v = ax * cy - ay * cx;
  const double w = bx * ay - by * ax;
  if ((u < 0 || v < 0 || w < 0) && (u > 0 || v > 0 || w > 0)) return std::nullopt;
  const double det = u + v + w;
  if (det == 0) return std::nullopt;
  const double az = ray.shear_z * a[ray.kz], bz = ray.shear_z * b[ray.kz], cz = ray.shear_z * c[ray.kz];
  const double t_scaled = u * az + v * bz + w * cz;
  const double t = t_scaled / det;
  if (!(t >= 0 && t <= max_t)) return std::nullopt;
  return t;
}

std::optional<RayPrimitiveHit> rayOrientedBox(const Vec3& origin, const Vec3& direction, const OrientedBox& box,
                                              double max_t) {
  const Vec3 rel = origin - box.center;
  double t_near = -kInf, t_far = kInf;
  int near_axis = -1, far_axis = -1;
  double near_sign = 0, far_sign = 0;
  for (int i = 0; i < 3; ++i) {
    const double o = dot(rel, box.axes[i]);
    const double d = dot(direction, box.axes[i]);
    const double h = box.half_extents[i];
    if (d == 0) {
      if (o < -h || o > h) return std::nullopt;
      continue;
    }
    double t0 = (-h - o) / d, t1 = (h - o) / d;
    // entering through the face whose outward normal opposes the direction
    const double enter_sign = d > 0 ? -1.0 : 1.0;
    if (t0 > t1) std::swap(t0, t1);
    if (t0 > t_near) { t_near = t0; near_axis = i; near_sign = enter_sign; }
    if (t1 < t_far) { t_far = t1; far_axis = i; far_sign = -enter_sign; }
  }
  if (t_near > t_far || t_far < 0) return std::nullopt;
  if (t_near >= 0) {
    if (t_near > max_t || near_axis < 0) return std::nullopt;
    return RayPrimitiveHit{t_near, box.axes[near_axis] * near_sign, false};
  }
  if (t_far > max_t || far_axis < 0) return std::nullopt;
  return RayPrimitiveHit{t_far, box.axes[far_axis] * far_sign, true};
}

std::optional<RayPrimitiveHit> rayCapsule(const Vec3& origin, const Vec3& direction, const Vec3& p, const Vec3& q,
                                          double radius, double max_t) {
  // Collect entry (smallest valid near root) and exit (largest valid far root) of the convex capsule.
  double enter = kInf, exit = -kInf;
  auto pointOnSurfaceValid = [&](double t) { return std::isfinite(t); };
  for (const Vec3& c : {p, q}) {
    double t0, t1;
    sphereRoots(origin, direction, c, radius, t0, t1);
    if (pointOnSurfaceValid(t0)) enter = std::min(enter, t0);
    if (pointOnSurfaceValid(t1)) exit = std::max(exit, t1);
  }
  const Vec3 ab = q - p;
  const double abab = dot(ab, ab);
  if (abab > 0) {
    const Vec3 ao = origin - p;
    const Vec3 dperp = direction - ab * (dot(direction, ab) / abab);
    const Vec3 operp = ao - ab * (dot(ao, ab) / abab);
    const double qa = dot(dperp, dperp), qb = dot(operp, dperp), qc = dot(operp, operp) - radius * radius;
    const double disc = qb * qb - qa * qc;
    if (qa > 0 && disc >= 0) {
      const double s = std::sqrt(disc);
      for (double t : {(-qb - s) / qa, (-qb + s) / qa}) {
        const double param = dot(ao + direction * t, ab) / abab;
        if (param < 0 || param > 1) continue;
        enter = std::min(enter, t);
        exit = std::max(exit, t);
      }
    }
  }
  if (!(enter <= exit) || exit < 0) return std::nullopt;
  auto normalAt = [&](double t) {
    const Vec3 x = origin + direction * t;
    Vec3 c1, c2;
    closestSegmentSegment(p, q, x, x, c1, c2);
    const Vec3 n = x - c1;
    return lengthSquared(n) > 0 ? normalize(n) : -direction;
  };
  if (enter >= 0) {
    if (enter > max_t) return std::nullopt;
    return RayPrimitiveHit{enter, normalAt(enter), false};
  }
  if (exit > max_t) return std::nullopt;
  return RayPrimitiveHit{exit, normalAt(exit), true};
}

// ---------------------------------------------------------------------------------------------
// Closest points

Vec3 closestPointOnTriangle(const Vec3& p, const Triangle& t) {
  const Vec3 ab = t.b - t.a, ac = t.c - t.a;
  const Vec3 n = cross(ab, ac);
  const double scale = triangleScale(t);
  if (nearlyZero(n, scale * scale * scale * scale)) {
    // Degenerate: the closest of its three edges.
    Vec3 best = t.a, c1, c2;
    double best_d = kInf;
    const Vec3 pts[3] = {t.a, t.b, t.c};
    for (int i = 0; i < 3; ++i) {
      closestSegmentSegment(p, p, pts[i], pts[(i + 1) % 3], c1, c2);
      const double d = lengthSquared(p - c2);
      if (d < best_d) { best_d = d; best = c2; }
    }
    return best;
  }
  const Vec3 ap = p - t.a;
  const double d1 = dot(ab, ap), d2 = dot(ac, ap);
  if (d1 <= 0 && d2 <= 0) return t.a;
  const Vec3 bp = p - t.b;
  const double d3 = dot(ab, bp), d4 = dot(ac, bp);
  if (d3 >= 0 && d4 <= d3) return t.b;
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return t.a + ab * (d1 / (d1 - d3));
  const Vec3 cp = p - t.c;
  const double d5 = dot(ab, cp), d6 = dot(ac, cp);
  if (d6 >= 0 && d5 <= d6) return t.c;
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return t.a + ac * (d2 / (d2 - d6));
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) return t.b + (t.c - t.b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
  const double denom = 1.0 / (va + vb + vc);
  return t.a + ab * (vb * denom) + ac * (vc * denom);
}

void closestSegmentSegment(const Vec3& p1, const Vec3& q1, const Vec3& p2, const Vec3& q2, Vec3& c1, Vec3& c2) {
  const Vec3 d1 = q1 - p1, d2 = q2 - p2, r = p1 - p2;
  const double a = dot(d1, d1), e = dot(d2, d2), f = dot(d2, r);
  double s = 0, t = 0;
  if (a == 0 && e == 0) {
    c1 = p1;
    c2 = p2;
    return;
  }
  if (a == 0) {
    t = std::clamp(f / e, 0.0, 1.0);
  } else {
    const double c = dot(d1, r);
    if (e == 0) {
      s = std::clamp(-c / a, 0.0, 1.0);
    } else {
      const double b = dot(d1, d2);
      const double denom = a * e - b * b;
      s = denom > 1e-14 * a * e ? std::clamp((b * f - c * e) / denom, 0.0, 1.0) : 0.0;
      t = (b * s + f) / e;
      if (t < 0) {
        t = 0;
        s = std::clamp(-c / a, 0.0, 1.0);
      } else if (t > 1) {
        t = 1;
        s = std::clamp((b - c) / a, 0.0, 1.0);
      }
    }
  }
  c1 = p1 + d1 * s;
  c2 = p2 + d2 * t;
}

double segmentTriangleDistance(const Vec3& p, const Vec3& q, const Triangle& tri, Vec3& on_segment,
                               Vec3& on_triangle) {
  const Vec3 n = cross(tri.b - tri.a, tri.c - tri.a);
  const double scale = triangleScale(tri);
  if (!nearlyZero(n, scale * scale * scale * scale)) {
    const double sp = dot(p - tri.a, n), sq = dot(q - tri.a, n);
    if (((sp <= 0 && sq >= 0) || (sp >= 0 && sq <= 0)) && sp != sq) {
      const Vec3 x = p + (q - p) * (sp / (sp - sq));
      if (pointInTrianglePlane(x, tri, n)) {
        on_segment = on_triangle = x;
        return 0;
      }
    }
    // A point (or a segment parallel to the plane) over the triangle's inside: its distance is
    // its height over the plane, exactly 0 in it (the closest point below read 6e-17 off, so a
    // sphere of radius 0 on a floor's face missed it while one on its edge did not).
    if (sp == sq) {
      const double n2 = dot(n, n);
      for (const Vec3& e : {p, q}) {
        const Vec3 x = e - n * (sp / n2);
        if (pointInTrianglePlane(x, tri, n)) {
          on_segment = e;
          on_triangle = sp == 0 ? e : x;
          return std::fabs(sp) / std::sqrt(n2);
        }
      }
    }
  }
  double best = kInf;
  for (const Vec3& e : {p, q}) {
    const Vec3 c = closestPointOnTriangle(e, tri);
    const double d = lengthSquared(e - c);
    if (d < best) { best = d; on_segment = e; on_triangle = c; }
  }
  const Vec3 pts[3] = {tri.a, tri.b, tri.c};
  for (int i = 0; i < 3; ++i) {
    Vec3 c1, c2;
    closestSegmentSegment(p, q, pts[i], pts[(i + 1) % 3], c1, c2);
    const double d = lengthSquared(c1 - c2);
    if (d < best) { best = d; on_segment = c1; on_triangle = c2; }
  }
  return std::sqrt(best);
}

bool pointInBox(const Vec3& p, const OrientedBox& box) {
  const Vec3 rel = p - box.center;
  for (int i = 0; i < 3; ++i)
    if (std::fabs(dot(rel, box.axes[i])) > box.half_extents[i]) return false;
  return true;
}

static Vec3 boxCorner(const OrientedBox& box, int i) {
  return box.center + box.axes[0] * ((i & 1) ? box.half_extents.x : -box.half_extents.x) +
         box.axes[1] * ((i & 2) ? box.half_extents.y : -box.half_extents.y) +
         box.axes[2] * ((i & 4) ? box.half_extents.z : -box.half_extents.z);
}

double segmentBoxDistance(const Vec3& p, const Vec3& q, const OrientedBox& box, Vec3& on_segment, Vec3& on_box) {
  // Does the segment pass through the solid box? (slab clip of the parameter range)
  const Vec3 d = q - p;
  double s0 = 0, s1 = 1;
  bool crosses = true;
  for (int i = 0; i < 3 && crosses; ++i) {
    const double o = dot(p - box.center, box.axes[i]), dd = dot(d, box.axes[i]), h = box.half_extents[i];
    if (dd == 0) {
      if (o < -h || o > h) crosses = false;
      continue;
    }
    double a = (-h - o) / dd, b = (h - o) / dd;
    if (a > b) std::swap(a, b);
    s0 = std::max(s0, a);
    s1 = std::min(s1, b);
    if (s0 > s1) crosses = false;
  }
  if (crosses) {
    on_segment = on_box = p + d * s0;
    return 0;
  }
  double best = kInf;
  for (const Vec3& e : {p, q}) {
    const Vec3 rel = e - box.center;
    Vec3 c = box.center;
    for (int i = 0; i < 3; ++i)
      c += box.axes[i] * std::clamp(dot(rel, box.axes[i]), -box.half_extents[i], box.half_extents[i]);
    const double dist = lengthSquared(e - c);
    if (dist < best) { best = dist; on_segment = e; on_box = c; }
  }
  for (int i = 0; i < 8; ++i) {
    for (int axis = 0; axis < 3; ++axis) {
      const int j = i | (1 << axis);
      if (j == i) continue;
      Vec3 c1, c2;
      closestSegmentSegment(p, q, boxCorner(box, i), boxCorner(box, j), c1, c2);
      const double dist = lengthSquared(c1 - c2);
      if (dist < best) { best = dist; on_segment = c1; on_box = c2; }
    }
  }
  return std::sqrt(best);
}

// ---------------------------------------------------------------------------------------------
// Separating axes

namespace {

// One separating axis: normalises `axis` and projects the box and the points (grown by
// `radius`) on it: push_pos / push_neg are how far the points would move along +axis / -axis to
// stop touching the box (both >= 0 when the projections overlap; NaN never does). False for an
// axis too short to normalise against `reference2`, the squared length of what it was made from
// (a box axis or a unit normal: 1; a box axis crossed with an edge: the edge's), as two parallel
// directions give: it separates nothing. (Measured against the whole problem's scale, a box's
// unit axes counted as degenerate once its half extents passed 1e10, and a cast's once they
// passed 2e5: no axis was left and a box 2 m above a floor hit it at time 0; an audit.) The
// depth test and the boolean test below both decide every axis here, so their answers agree.
bool axisPushes(const OrientedBox& box, const Vec3* points, int point_count, double radius, double reference2,
                       Vec3& axis, double& push_pos, double& push_neg) {
  const double len2 = lengthSquared(axis);
  if (len2 <= 1e-20 * reference2 || !std::isfinite(len2)) return false;
  axis = axis / std::sqrt(len2);
  const double c = dot(box.center, axis);
  const double r = box.half_extents.x * std::fabs(dot(box.axes[0], axis)) +
                   box.half_extents.y * std::fabs(dot(box.axes[1], axis)) +
                   box.half_extents.z * std::fabs(dot(box.axes[2], axis));
  double lo = kInf, hi = -kInf;
  for (int i = 0; i < point_count; ++i) {
    const double s = dot(points[i], axis);
    lo = std::min(lo, s);
    hi = std::max(hi, s);
  }
  lo -= radius;
  hi += radius;
  // Touching counts, also where rounding parts what touches exactly: the box is held as centre
  // and half extents, and (min + max) / 2 + (max - min) / 2 can fall an ulp short of max (a
  // standing box from -1.599 up to a ceiling at exactly -0.5 reached -0.5000000000000001 and the
  // ceiling at the agent's height did not block). A few ulps of the magnitudes involved.
  const double slack = 8 * std::numeric_limits<double>::epsilon() * (std::fabs(c) + r + std::max(std::fabs(lo), std::fabs(hi)));
  push_pos = (c + r) - lo + slack;  // move the shape along +axis
  push_neg = hi - (c - r) + slack;  // move the shape along -axis
  return true;
}

}  // namespace

bool boxPenetrationImpl(const OrientedBox& box, const Vec3* points, int point_count, const Vec3* edges, int edge_count,
                        const Vec3* normals, int normal_count, double radius, double& depth, Vec3& direction) {
  depth = kInf;
  direction = Vec3{0, 1, 0};
  bool overlapping = true;
  auto testAxis = [&](Vec3 axis, double reference2) {
    double push_pos, push_neg;
    if (!axisPushes(box, points, point_count, radius, reference2, axis, push_pos, push_neg)) return;
    if (!(push_pos >= 0) || !(push_neg >= 0)) overlapping = false;  // NaN never overlaps
    if (push_pos <= push_neg) {
      if (push_pos < depth) { depth = push_pos; direction = axis; }
    } else if (push_neg < depth) {
      depth = push_neg;
      direction = -axis;
    }
  };
  // Box axes are unit vectors; a normal is taken at any non-zero length (the caller leaves out a
  // degenerate triangle's); a cross product against its edge.
  for (int i = 0; i < 3; ++i) testAxis(box.axes[i], 1.0);
  for (int i = 0; i < normal_count; ++i) testAxis(normals[i], 0.0);
  for (int e = 0; e < edge_count; ++e)
    for (int i = 0; i < 3; ++i) testAxis(cross(box.axes[i], edges[e]), lengthSquared(edges[e]));
  return overlapping;
}

void boxPenetration(const OrientedBox& box, const Vec3* points, int point_count, const Vec3* edges, int edge_count,
                    const Vec3* normals, int normal_count, double radius, double& depth, Vec3& direction) {
  boxPenetrationImpl(box, points, point_count, edges, edge_count, normals, normal_count, radius, depth, direction);
}

// The boolean form of boxPenetrationImpl for a triangle: the same 13 axes (3 box axes, the
// triangle normal, 9 edge cross products), each decided by the same axisPushes, so every axis
// makes the same decision and the answer is the same,
// touching included (Akenine-Moller's box-frame formulation would round differently and could
// flip a face that exactly touches a wall). It returns at the first separating axis and keeps
// no depth, which is what the many boolean overlap queries of a bake need.
bool boxTriangleOverlap(const OrientedBox& box, const Triangle& tri) {
  const Vec3 pts[3] = {tri.a, tri.b, tri.c};
  // True when `axis` separates the box from the triangle (degenerate axes separate nothing).
  const auto separates = [&](Vec3 axis, double reference2) {
    double push_pos, push_neg;
    if (!axisPushes(box, pts, 3, 0.0, reference2, axis, push_pos, push_neg)) return false;
    return !(push_pos >= 0) || !(push_neg >= 0);  // NaN never overlaps
  };
  for (int i = 0; i < 3; ++i)
    if (separates(box.axes[i], 1.0)) return false;
  const Vec3 ab = tri.b - tri.a, ac = tri.c - tri.a;
  if (separates(cross(ab, ac), lengthSquared(ab) * lengthSquared(ac))) return false;
  const Vec3 edges[3] = {ab, tri.c - tri.b, tri.a - tri.c};
  for (const Vec3& e : edges)
    for (int i = 0; i < 3; ++i)
      if (separates(cross(box.axes[i], e), lengthSquared(e))) return false;
  return true;
}

bool capsuleTriangleOverlap(const Vec3& p, const Vec3& q, double radius, const Triangle& tri) {
  Vec3 a, b;
  return segmentTriangleDistance(p, q, tri, a, b) <= radius;
}

bool boxBoxOverlap(const OrientedBox& a, const OrientedBox& b) {
  Vec3 pts[8];
  for (int i = 0; i < 8; ++i) pts[i] = boxCorner(b, i);
  double depth;
  Vec3 dir;
  return boxPenetrationImpl(a, pts, 8, b.axes.data(), 3, b.axes.data(), 3, 0.0, depth, dir);
}

std::array<Triangle, 12> boxTriangles(const OrientedBox& box) {
  Vec3 c[8];
  for (int i = 0; i < 8; ++i) c[i] = boxCorner(box, i);
  // corner index bits: x=1, y=2, z=4; each face as two counter-clockwise triangles seen from outside
  static constexpr int kFaces[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
  std::array<Triangle, 12> tris;
  for (int f = 0; f < 6; ++f) {
    const int* q = kFaces[f];
    tris[2 * f] = {c[q[0]], c[q[1]], c[q[2]]};
    tris[2 * f + 1] = {c[q[0]], c[q[2]], c[q[3]]};
  }
  return tris;
}

// ---------------------------------------------------------------------------------------------
// Casts

std::optional<CastResult> castCapsuleTriangle(const Vec3& p, const Vec3& q, double radius, const Vec3& translation,
                                              const Triangle& tri) {
  const Vec3& d = translation;
  // How deep a touching contact may get before it is a hit: kTouchTolerance, or half the radius
  // for a thinner shape (a point sinking into a one-sided surface goes through it).
  const double allowance = std::min(kTouchTolerance, 0.5 * radius);
  Vec3 on_seg, on_tri;
  const double dist0 = segmentTriangleDistance(p, q, tri, on_seg, on_tri);
  const Vec3 tri_n_raw = cross(tri.b - tri.a, tri.c - tri.a);
  const double scale = triangleScale(tri);
  const bool tri_flat = !nearlyZero(tri_n_raw, scale * scale * scale * scale);
  const Vec3 tri_n = tri_flat ? normalize(tri_n_raw) : Vec3{};
  const Vec3 pts[3] = {tri.a, tri.b, tri.c};

  if (dist0 <= radius) {
    CastResult hit;
    Vec3 normal;
    double depth;
    if (dist0 > 1e-12 * std::max(scale, radius)) {
      normal = (on_seg - on_tri) / dist0;
      depth = radius - dist0;
    } else {
      // Cores intersect: separating-axis escape over the Minkowski difference's face normals.
      depth = kInf;
      normal = tri_flat ? tri_n : anyPerpendicular(lengthSquared(q - p) > 0 ? q - p : Vec3{0, 1, 0});
      auto testAxis = [&](Vec3 axis) {
        const double len2 = lengthSquared(axis);
        if (len2 <= 1e-24 * scale * scale * std::max(lengthSquared(q - p), scale * scale)) return;
        axis = axis / std::sqrt(len2);
        const double s0 = dot(p, axis), s1 = dot(q, axis);
        const double smin = std::min(s0, s1), smax = std::max(s0, s1);
        double tmin = kInf, tmax = -kInf;
        for (const Vec3& v : pts) {
          tmin = std::min(tmin, dot(v, axis));
          tmax = std::max(tmax, dot(v, axis));
        }
        const double up = tmax - smin, down = smax - tmin;
        if (up <= down) {
          if (up < depth) { depth = up; normal = axis; }
        } else if (down < depth) {
          depth = down;
          normal = -axis;
        }
      };
      if (tri_flat) testAxis(tri_n);
      for (int i = 0; i < 3; ++i) testAxis(cross(q - p, pts[(i + 1) % 3] - pts[i]));
      if (!std::isfinite(depth)) depth = 0;
      depth += radius;
    }
    if (depth <= kTouchTolerance && staysTouching(depth, d, normal, 1.0, allowance)) return std::nullopt;  // touching, moving apart or along
    hit.time = 0;
    hit.normal = normal;
    hit.point = on_tri;
    hit.started_penetrating = depth > kTouchTolerance;
    hit.depth = hit.started_penetrating ? depth : 0;
    hit.escape = hit.started_penetrating ? normal * depth : Vec3{};
    return hit;
  }
  if (lengthSquared(d) == 0) return std::nullopt;

  double best_t = kInf;
  Vec3 best_normal, best_point;
  // A contact the motion only grazes is no hit: the shape touches the feature and passes on
  // without sinking into it (`graze`, decided per feature below: a sphere resting on a floor of
  // two triangles passes tangent to their shared edge).
  auto consider = [&](double t, const Vec3& normal, const Vec3& point, bool graze) {
    if (graze) return;
    if (t < best_t) {
      best_t = t;
      best_normal = normal;
      best_point = point;
    }
  };
  auto radialNormal = [&](const Vec3& v, const Vec3& fallback) {
    const double l = length(v);
    return l > 0 ? v / l : fallback;
  };
  const bool is_sphere = lengthSquared(q - p) == 0;
  const Vec3 ends[2] = {p, q};
  for (int e = 0; e < (is_sphere ? 1 : 2); ++e) {
    const Vec3& o = ends[e];
    // endpoint vs face
    if (tri_flat) {
      const double s = dot(o - tri.a, tri_n);
      {
        const double side = s > 0 ? 1.0 : -1.0;
        const double dn = dot(d, tri_n) * side;
        if (dn < 0) {
          const double t = std::max(0.0, (std::fabs(s) - radius) / -dn);
          if (t <= 1) {
            const Vec3 at = o + d * t;
            const Vec3 x = at - tri_n * dot(at - tri.a, tri_n);
            if (pointInTrianglePlane(x, tri, tri_n)) consider(t, tri_n * side, x, staysTouching(0, d, tri_n * side, 1 - t, allowance));
          }
        }
      }
    }
    // endpoint vs edges and vertices
    for (int i = 0; i < 3; ++i) {
      const Vec3& e0 = pts[i];
      const Vec3& e1 = pts[(i + 1) % 3];
      if (auto t = rayCylinderEnter(o, d, e0, e1, radius)) {
        const Vec3 x = o + d * *t;
        const Vec3 ev = e1 - e0;
        const Vec3 c = e0 + ev * std::clamp(dot(x - e0, ev) / dot(ev, ev), 0.0, 1.0);
        consider(*t, radialNormal(x - c, -normalize(d)), c, lineApproachDepth(o, d, e0, e1, radius, *t) <= allowance);
      }
      if (auto t = raySphereEnter(o, d, e0, radius))
        consider(*t, radialNormal(o + d * *t - e0, -normalize(d)), e0, pointApproachDepth(o, d, e0, radius, *t) <= allowance);
    }
  }
  if (!is_sphere) {
    const Vec3 u = q - p;
    // triangle vertex vs the capsule's segment
    for (const Vec3& v : pts) {
      if (auto t = rayCylinderEnter(v, -d, p, q, radius)) {
        const Vec3 pm = p + d * *t, qm = q + d * *t;
        Vec3 c1, c2;
        closestSegmentSegment(pm, qm, v, v, c1, c2);
        consider(*t, radialNormal(c1 - v, -normalize(d)), v, lineApproachDepth(v, -d, p, q, radius, *t) <= allowance);
      }
    }
    // segment interior vs edge interior
    for (int i = 0; i < 3; ++i) {
      const Vec3& e0 = pts[i];
      const Vec3 v = pts[(i + 1) % 3] - e0;
      const Vec3 m_raw = cross(u, v);
      const double m2 = lengthSquared(m_raw);
      if (m2 <= 1e-20 * lengthSquared(u) * lengthSquared(v) || m2 == 0) continue;
      const Vec3 m = m_raw / std::sqrt(m2);
      const double c0 = dot(p - e0, m), dm = dot(d, m);
      if (c0 * dm >= 0) continue;
      const double t = std::max(0.0, (std::fabs(c0) - radius) / std::fabs(dm));
      if (t > 1 || t >= best_t) continue;
      const Vec3 w0 = p + d * t - e0;
      const double a = dot(u, u), b = dot(u, v), c = dot(v, v), dd = dot(u, w0), ee = dot(v, w0);
      const double denom = a * c - b * b;
      if (denom <= 0) continue;
      const double s = (b * ee - c * dd) / denom;
      const double w = (a * ee - b * dd) / denom;
      if (s < 0 || s > 1 || w < 0 || w > 1) continue;
      consider(t, m * (c0 > 0 ? 1.0 : -1.0), e0 + v * w, staysTouching(0, d, m * (c0 > 0 ? 1.0 : -1.0), 1 - t, allowance));
    }
  }
  if (!(best_t <= 1)) return std::nullopt;
  CastResult hit;
  hit.time = best_t;
  hit.normal = best_normal;
  hit.point = best_point;
  return hit;
}

namespace {

// Average of the points whose projection on `axis` is within `eps` of the extreme (max when
// `want_max`), i.e. the centre of the supporting feature.
Vec3 supportFeature(const Vec3* pts, int count, const Vec3& axis, bool want_max, double eps, int* members, int& n) {
  double best = want_max ? -kInf : kInf;
  for (int i = 0; i < count; ++i) {
    const double s = dot(pts[i], axis);
    best = want_max ? std::max(best, s) : std::min(best, s);
  }
  Vec3 sum;
  n = 0;
  for (int i = 0; i < count; ++i)
    if (std::fabs(dot(pts[i], axis) - best) <= eps) {
      sum += pts[i];
      members[n++] = i;
    }
  return sum / n;
}

}  // namespace

std::optional<CastResult> castBoxTriangle(const OrientedBox& box, const Vec3& translation, const Triangle& tri) {
  const Vec3& d = translation;
  const Vec3 pts[3] = {tri.a, tri.b, tri.c};
  const Vec3 edges[3] = {tri.b - tri.a, tri.c - tri.b, tri.a - tri.c};
  const Vec3 tri_n = cross(tri.b - tri.a, tri.c - tri.a);
  const double tri_n_reference2 = lengthSquared(tri.b - tri.a) * lengthSquared(tri.c - tri.a);
  const bool tri_degenerate = !(lengthSquared(tri_n) > 1e-20 * tri_n_reference2);
  const double scale = std::max({maxAbs(box.half_extents), maxAbs(tri.a - box.center), maxAbs(tri.b - box.center),
                                 maxAbs(tri.c - box.center), 1e-30});
  const double eps = 1e-9 * scale;

  // A box edge (bn 2) or face (bn 4) lying on the triangle's face: the middle of the part of it
  // inside the triangle (the triangle's point nearest the feature's centre could lie outside the
  // feature, 1.1 m off a long box whose end alone was over the triangle). A face: the triangle
  // clipped to the face's two in-plane slabs, its vertex average; an edge: the edge clipped to
  // the triangle's sides, its midpoint. Rounding that empties the clip falls back to the nearest point.
  auto faceContact = [&](const OrientedBox& at, const Vec3* corners, const int* bm, int bn, const Vec3& normal) {
    Vec3 centre;
    for (int i = 0; i < bn; ++i) centre += corners[bm[i]];
    centre = centre / bn;
    if (bn == 2) {
      const Vec3 p0 = corners[bm[0]], p1 = corners[bm[1]];
      double s0 = 0, s1 = 1;
      for (int i = 0; i < 3 && s0 <= s1; ++i) {
        const Vec3 inward = cross(tri_n, edges[i]);  // points into the triangle (counter-clockwise)
        const double f0 = dot(p0 - pts[i], inward), f1 = dot(p1 - pts[i], inward);
        if (f0 < 0 && f1 < 0) s1 = -1;
        else if (f0 < 0) s0 = std::max(s0, f0 / (f0 - f1));
        else if (f1 < 0) s1 = std::min(s1, f0 / (f0 - f1));
      }
      if (s0 <= s1) return p0 + (p1 - p0) * (0.5 * (s0 + s1));
      return closestPointOnTriangle(centre, tri);
    }
    // The box axis most along the normal is the face's; the other two bound it.
    int k = 0;
    for (int i = 1; i < 3; ++i)
      if (std::fabs(dot(at.axes[i], normal)) > std::fabs(dot(at.axes[k], normal))) k = i;
    std::vector<Vec3> polygon{tri.a, tri.b, tri.c}, next;
    for (int i = 0; i < 3 && !polygon.empty(); ++i) {
      if (i == k) continue;
      for (const double side : {1.0, -1.0}) {
        // Keep side * dot(x - centre, axis) <= half extent.
        next.clear();
        const std::size_t m = polygon.size();
        for (std::size_t j = 0; j < m; ++j) {
          const Vec3& a = polygon[j];
          const Vec3& b = polygon[(j + 1) % m];
          const double fa = at.half_extents[i] - side * dot(a - at.center, at.axes[i]);
          const double fb = at.half_extents[i] - side * dot(b - at.center, at.axes[i]);
          if (fa >= 0) next.push_back(a);
          if ((fa >= 0) != (fb >= 0)) next.push_back(a + (b - a) * (fa / (fa - fb)));
        }
        polygon.swap(next);
      }
    }
    if (polygon.empty()) return closestPointOnTriangle(centre, tri);
    Vec3 sum;
    for (const Vec3& v : polygon) sum += v;
    return sum / static_cast<double>(polygon.size());
  };

  auto contactPoint = [&](const OrientedBox& at, const Vec3& normal) {
    // normal points from the triangle toward the box: the box's support toward the triangle is
    // its minimum along the normal, the triangle's is its maximum.
    Vec3 corners[8];
    for (int i = 0; i < 8; ++i) corners[i] = boxCorner(at, i);
    int bm[8], tm[3], bn, tn;
    const Vec3 box_feature = supportFeature(corners, 8, normal, false, eps, bm, bn);
    const Vec3 tri_feature = supportFeature(pts, 3, normal, true, eps, tm, tn);
    if (tn >= 3 && bn >= 2) return faceContact(at, corners, bm, bn, normal);  // a box edge or face on the triangle's face
    if (bn == 1) return closestPointOnTriangle(box_feature, tri);             // a box corner
    if (tn == 1) {                                                                 // triangle vertex
      return tri_feature;
    }
    if (bn == 2 && tn == 2) {  // edge against edge
      Vec3 c1, c2;
      closestSegmentSegment(corners[bm[0]], corners[bm[1]], pts[tm[0]], pts[tm[1]], c1, c2);
      return (c1 + c2) * 0.5;
    }
    // A triangle edge against a box face: the middle of the part of the edge over the face (the
    // edge clipped to the face's two in-plane slabs; its midpoint clamped into the face could lie
    // 0.25 m off the triangle when only the edge's end met the face). Rounding that empties the
    // clip falls back to that clamp.
    if (tn == 2) {
      int k = 0;
      for (int i = 1; i < 3; ++i)
        if (std::fabs(dot(at.axes[i], normal)) > std::fabs(dot(at.axes[k], normal))) k = i;
      const Vec3 p0 = pts[tm[0]], p1 = pts[tm[1]];
      double s0 = 0, s1 = 1;
      for (int i = 0; i < 3 && s0 <= s1; ++i) {
        if (i == k) continue;
        for (const double side : {1.0, -1.0}) {
          // Keep side * dot(x - centre, axis) <= half extent.
          const double f0 = at.half_extents[i] - side * dot(p0 - at.center, at.axes[i]);
          const double f1 = at.half_extents[i] - side * dot(p1 - at.center, at.axes[i]);
          if (f0 < 0 && f1 < 0) s1 = -1;
          else if (f0 < 0) s0 = std::max(s0, f0 / (f0 - f1));
          else if (f1 < 0) s1 = std::min(s1, f0 / (f0 - f1));
        }
      }
      if (s0 <= s1) return p0 + (p1 - p0) * (0.5 * (s0 + s1));
    }
    const Vec3 rel = tri_feature - at.center;
    Vec3 c = at.center;
    for (int i = 0; i < 3; ++i) c += at.axes[i] * std::clamp(dot(rel, at.axes[i]), -at.half_extents[i], at.half_extents[i]);
    return c;
  };

  // The separating-axis sweep: per axis, the times the box's centre offset da t lies within
  // [lo, hi] (touching included); the contact is the intersection of those intervals.
  double t_enter = -kInf, t_exit = kInf;
  Vec3 normal;
  bool separated_forever = false;
  struct AxisInterval {
    double lo, hi, da;
  };
  std::array<AxisInterval, 13> intervals{};
  std::size_t interval_count = 0;
  // `reference2`: as axisPushes's (it was the problem's scale to the fourth, under which a box's
  // unit axes and a 2 m triangle's normal were all degenerate once the box passed 2e5 m).
  auto sweepAxis = [&](Vec3 axis, double reference2) {
    const double len2 = lengthSquared(axis);
    if (len2 <= 1e-20 * reference2 || !std::isfinite(len2) || separated_forever) return;
    axis = axis / std::sqrt(len2);
    const double r = box.half_extents.x * std::fabs(dot(box.axes[0], axis)) +
                     box.half_extents.y * std::fabs(dot(box.axes[1], axis)) +
                     box.half_extents.z * std::fabs(dot(box.axes[2], axis));
    const double c = dot(box.center, axis);
    double tmin = kInf, tmax = -kInf;
    for (const Vec3& v : pts) {
      tmin = std::min(tmin, dot(v, axis));
      tmax = std::max(tmax, dot(v, axis));
    }
    const double lo = tmin - r - c, hi = tmax + r - c;  // the centre's offset must lie in [lo, hi]
    const double da = dot(d, axis);
    intervals[interval_count++] = {lo, hi, da};
    if (da == 0) {
      if (lo > 0 || hi < 0) separated_forever = true;
      return;
    }
    double t0 = lo / da, t1 = hi / da;
    Vec3 candidate = -axis;
    if (da < 0) {
      std::swap(t0, t1);
      candidate = axis;
    }
    if (t0 > t_enter) { t_enter = t0; normal = candidate; }
    t_exit = std::min(t_exit, t1);
  };
  for (int i = 0; i < 3; ++i) sweepAxis(box.axes[i], 1.0);
  const std::size_t normal_interval = interval_count;  // the triangle normal's, when it is kept
  sweepAxis(tri_n, tri_n_reference2);
  for (const Vec3& e : edges)
    for (int i = 0; i < 3; ++i) sweepAxis(cross(box.axes[i], e), lengthSquared(e));
  // A graze: along some axis the overlap stays within kTouchTolerance over the whole contact
  // [ts, te], so the shapes never sink into each other (a box resting on a floor of two
  // triangles, sliding across or starting on their shared edge, was hit with a sideways normal:
  // the overlap along the floor's normal stays 0). Along each axis the offset da t is deepest
  // in [lo, hi] at the interval's middle when it crosses it, else at an end of the contact.
  // An axis along which the box and the triangle together are thinner than 4 kTouchTolerance
  // never certifies a graze: a touch there is a pass through it (a review sent a flat box
  // through a floor: its interval along the floor's normal has no width, so its deepest overlap
  // read 0 as it crossed).
  // A motion that starts on one side of the triangle's plane and ends beyond the other passes
  // through it: never a graze (a point box falling onto the edge two floor triangles share
  // grazed each of them along the axis across the edge, and fell through the floor).
  const bool crosses_plane = [&] {
    if (normal_interval >= interval_count) return false;
    // The centre's offset along the normal is 0 at the start and da at the end; [lo, hi] is where
    // the two overlap along it.
    const AxisInterval& a = intervals[normal_interval];
    return (a.lo > 0 && a.da > a.hi) || (a.hi < 0 && a.da < a.lo);
  }();
  // Along the triangle's normal, though, a thin interval does tell a graze from a pass when the
  // motion does not go into the triangle's back along it: a box flat on a floor (both of no
  // thickness along the normal) sliding along it or lifting off only touches it (a hunt found
  // such a box, resting on the floor, hit at time 0 with the floor's normal reversed).
  auto grazes = [&](double ts, double te) {
    if (crosses_plane) return false;
    for (std::size_t i = 0; i < interval_count; ++i) {
      const AxisInterval& a = intervals[i];
      if (a.hi - a.lo <= 4 * kTouchTolerance) {
        if (i == normal_interval && a.da >= -kTouchTolerance && a.lo <= kTouchTolerance && a.hi >= -kTouchTolerance)
          return true;
        continue;
      }
      const double o0 = a.da * ts, o1 = a.da * te, mid = 0.5 * (a.lo + a.hi);
      const double deepest = (o0 - mid) * (o1 - mid) <= 0 ? 0.5 * (a.hi - a.lo)
                                                          : std::max(std::min(o0 - a.lo, a.hi - o0), std::min(o1 - a.lo, a.hi - o1));
      if (deepest <= kTouchTolerance) return true;
    }
    return false;
  };

  double depth;
  Vec3 out_dir;  // out of the box toward the triangle
  if (boxPenetrationImpl(box, pts, 3, edges, 3, &tri_n, tri_degenerate ? 0 : 1, 0.0, depth, out_dir)) {
    const Vec3 start_normal = -out_dir;  // from the triangle toward the box
    // Touching: no hit when some axis keeps it touching over the contact (the penetration
    // test's own axis is one of many when the box is coplanar with the triangle, a flat box on a
    // floor, so the separating axes decide, not that axis alone).
    if (depth <= kTouchTolerance && grazes(0, std::clamp(t_exit, 0.0, 1.0))) return std::nullopt;
    CastResult hit;
    hit.time = 0;
    hit.normal = start_normal;
    // A touch that is a hit is a motion into the triangle: its normal faces the motion. (With no
    // depth the penetration test's direction can be either side of a flat contact: a flat box
    // pressed down into a floor got the floor's normal reversed.)
    if (depth <= kTouchTolerance && dot(hit.normal, d) > 0) hit.normal = -hit.normal;
    hit.point = contactPoint(box, start_normal);
    hit.started_penetrating = depth > kTouchTolerance;
    hit.depth = hit.started_penetrating ? depth : 0;
    hit.escape = hit.started_penetrating ? start_normal * depth : Vec3{};
    return hit;
  }
  if (lengthSquared(d) == 0) return std::nullopt;
  if (separated_forever || t_enter > t_exit || t_enter > 1 || t_exit < 0) return std::nullopt;
  if (grazes(std::max(t_enter, 0.0), std::min(t_exit, 1.0))) return std::nullopt;
  CastResult hit;
  hit.time = std::clamp(t_enter, 0.0, 1.0);
  hit.normal = normal;
  OrientedBox at = box;
  at.center = box.center + d * hit.time;
  hit.point = contactPoint(at, normal);
  return hit;
}

}  // namespace strata::sim::detail

namespace strata::sim {

bool boxOverlapsTriangle(const OrientedBox& box, const Vec3& a, const Vec3& b, const Vec3& c) {
  return detail::boxTriangleOverlap(box, detail::Triangle{a, b, c});
}

}  // namespace strata::sim
