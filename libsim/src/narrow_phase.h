#pragma once
// Exact narrow-phase tests between one query shape and one triangle (or segment / box
// primitive), in double precision. Internal to libsim; the query index and the tests' brute
// force oracles share these, and tests/sim/narrow_phase_test.cpp checks them against
// independent bisection oracles.

#include <algorithm>
#include <array>
#include <optional>

#include "strata/sim/math.h"
#include "strata/sim/query_index.h"

namespace strata::sim::detail {

/// Initial contacts shallower than this (metres) count as touching, not penetrating.
inline constexpr double kTouchTolerance = 1e-7;

/// True when a contact `depth` deep (at most kTouchTolerance: touching) whose outward normal is
/// `normal` (unit, from the surface toward the shape) stays touching over the rest of the motion
/// `d`, `rest` (1 - t) of it: the motion would sink the shape no deeper than kTouchTolerance by
/// its end. Such a contact is no hit: a shape resting on a surface slides along it whatever the
/// rounding of the normal and of the endpoints (an audit found spheres on a ramp hit at time 0;
/// a review, millimetre steps at coordinates of 1e5 hit by an angle limit), while a motion that
/// sinks it deeper, however shallow, is a hit (an angle tolerance let long casts tunnel). A
/// motion that ends at most kTouchTolerance into a surface ends touching it: no hit either.
/// `allowance` lowers kTouchTolerance for shapes thinner than it: sinking a sphere of radius r
/// more than r / 2 into a one-sided surface would carry its centre through it (a review walked a
/// point through a floor in two casts).
inline bool staysTouching(double depth, const Vec3& d, const Vec3& normal, double rest = 1.0,
                          double allowance = kTouchTolerance) {
  return depth + std::max(0.0, -dot(d, normal)) * rest <= allowance;
}

/// A triangle a, b, c (counter-clockwise front). May be degenerate (a segment or a point).
struct Triangle {
  Vec3 a, b, c;
};

/// A ray prepared for the watertight ray/triangle test (Woop, Benthin, Wald 2013,
/// "Watertight Ray/Triangle Intersection", JCGT 2(1)).
struct WatertightRay {
  Vec3 origin;
  Vec3 direction;
  int kx = 0, ky = 1, kz = 2;
  double shear_x = 0, shear_y = 0, shear_z = 1;
};
WatertightRay prepareRay(const Vec3& origin, const Vec3& direction);
/// Distance t in [0, max_t] at which the ray meets the triangle, or nullopt. Edges and vertices
/// shared by two triangles are hit by at least one of them (no cracks).
std::optional<double> rayTriangle(const WatertightRay& ray, const Triangle& tri, double max_t);

/// Ray against an oriented box (solid): entry distance and outward normal; a ray starting inside
/// reports the exit with `inside` set.
struct RayPrimitiveHit {
  double t;
  Vec3 normal;
  bool inside;
};
std::optional<RayPrimitiveHit> rayOrientedBox(const Vec3& origin, const Vec3& direction, const OrientedBox& box,
                                              double max_t);
std::optional<RayPrimitiveHit> rayCapsule(const Vec3& origin, const Vec3& direction, const Vec3& p, const Vec3& q,
                                          double radius, double max_t);

/// Closest point on a triangle (degenerate ones included) to p.
Vec3 closestPointOnTriangle(const Vec3& p, const Triangle& tri);
/// Closest points between segments p1-q1 and p2-q2 (Ericson, Real-Time Collision Detection 5.1.9).
void closestSegmentSegment(const Vec3& p1, const Vec3& q1, const Vec3& p2, const Vec3& q2, Vec3& c1, Vec3& c2);
/// Closest points between segment p-q and a triangle; returns the distance.
double segmentTriangleDistance(const Vec3& p, const Vec3& q, const Triangle& tri, Vec3& on_segment, Vec3& on_triangle);
/// Distance between segment p-q and a solid oriented box.
double segmentBoxDistance(const Vec3& p, const Vec3& q, const OrientedBox& box, Vec3& on_segment, Vec3& on_box);
/// True when the point lies in the solid box (boundary included).
bool pointInBox(const Vec3& p, const OrientedBox& box);

/// Static overlap, touching included.
bool boxTriangleOverlap(const OrientedBox& box, const Triangle& tri);
bool capsuleTriangleOverlap(const Vec3& p, const Vec3& q, double radius, const Triangle& tri);
bool boxBoxOverlap(const OrientedBox& a, const OrientedBox& b);

/// The result of a cast against one feature (ShapeHit without the ids).
struct CastResult {
  double time = 0;
  Vec3 point;
  Vec3 normal;  // from the surface toward the moving shape
  bool started_penetrating = false;
  double depth = 0;
  Vec3 escape;
};

/// Capsule (segment p-q, radius; p == q is a sphere) swept by `translation` against a triangle
/// (possibly degenerate, e.g. the core segment of a capsule primitive).
std::optional<CastResult> castCapsuleTriangle(const Vec3& p, const Vec3& q, double radius, const Vec3& translation,
                                              const Triangle& tri);
/// Oriented box swept by `translation` against a triangle (separating-axis sweep).
std::optional<CastResult> castBoxTriangle(const OrientedBox& box, const Vec3& translation, const Triangle& tri);

/// The twelve triangles of a box surface, outward-facing.
std::array<Triangle, 12> boxTriangles(const OrientedBox& box);
/// Minimum translation separating a convex shape from a solid box when the shape's core reaches
/// inside it (separating-axis test). The shape is the convex hull of `points` grown by `radius`;
/// `edges` are its edge directions and `normals` its face normals. Returns the depth and the unit
/// direction pointing out of the box toward the shape.
void boxPenetration(const OrientedBox& box, const Vec3* points, int point_count, const Vec3* edges, int edge_count,
                    const Vec3* normals, int normal_count, double radius, double& depth, Vec3& direction);

}  // namespace strata::sim::detail
