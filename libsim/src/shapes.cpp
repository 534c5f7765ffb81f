// Small shape helpers of the query API: oriented boxes, the collision-group matrix and the
// index settings' validation.

#include <cmath>
#include <string>

#include "strata/sim/query_index.h"

namespace strata::sim {

OrientedBox OrientedBox::fromAabb(const Aabb& box) {
  OrientedBox out;
  out.center = box.center();
  out.half_extents = box.extent() * 0.5;
  return out;
}

OrientedBox OrientedBox::fromYaw(const Vec3& center, const Vec3& half_extents, double yaw_radians) {
  OrientedBox out;
  out.center = center;
  out.half_extents = half_extents;
  const double c = std::cos(yaw_radians), s = std::sin(yaw_radians);
  // counter-clockwise seen from above (+Y): x axis turns toward -z
  out.axes[0] = Vec3{c, 0, -s};
  out.axes[1] = Vec3{0, 1, 0};
  out.axes[2] = Vec3{s, 0, c};
  return out;
}

Aabb OrientedBox::bounds() const {
  Vec3 extent;
  for (int k = 0; k < 3; ++k)
    extent[k] = std::fabs(axes[0][k]) * half_extents.x + std::fabs(axes[1][k]) * half_extents.y +
                std::fabs(axes[2][k]) * half_extents.z;
  return Aabb{center - extent, center + extent};
}

CollisionGroupMatrix::CollisionGroupMatrix() { rows_.fill(0xFFFFFFFFu); }

void CollisionGroupMatrix::set(uint32_t a, uint32_t b, bool collide) {
  if (a >= kCollisionGroupCount || b >= kCollisionGroupCount) return;
  if (collide) {
    rows_[a] |= 1u << b;
    rows_[b] |= 1u << a;
  } else {
    rows_[a] &= ~(1u << b);
    rows_[b] &= ~(1u << a);
  }
}

bool CollisionGroupMatrix::collides(uint32_t a, uint32_t b) const {
  if (a >= kCollisionGroupCount || b >= kCollisionGroupCount) return false;
  return (rows_[a] >> b) & 1u;
}

std::string QueryIndexSettings::validate() const {
  if (rebuild_min_entries < 1) return "rebuild_min_entries must be >= 1";
  if (rebuild_divisor < 1) return "rebuild_divisor must be >= 1";
  if (leaf_triangles < 1 || leaf_triangles > 15) return "leaf_triangles must be in 1..15";
  return {};
}

}  // namespace strata::sim
