// Exact box overlap against a local list of candidate triangles.
//
// The bake asks hundreds of thousands of "does this box touch anything?" questions (standing
// room per floor, swept boxes per edge). Walking the query index for each costs a tree descent
// plus a full separating-axis test per leaf triangle. Here the caller keeps the triangles near
// the box (per tile or per bin) and each is decided by, in order:
//  1. bounds: a triangle whose bounds miss the box's bounds by more than `margin_` cannot touch it;
//  2. plane: a non-steep triangle lies on its plane y(x, z); over the box's footprint (a
//     rectangle, whose extremes of a linear function are at its corners) the plane ranges over
//     y_centre +- spread; entirely below the bottom or above the top by more than `margin_`
//     means the triangle cannot touch the box (this is most of the floor under a standing box);
//  3. otherwise the exact test of the query index itself (sim::boxOverlapsTriangle).
// Steps 1 and 2 only reject triangles the exact test also rejects (their allowance is orders of
// magnitude above the rounding of the arithmetic, and above the index's own culling margin), and
// step 3 is the index's decision, so over a superset of the triangles near the box the answer is
// the index's: tests/nav/column_oracle_tests.cpp and bake_edge_oracle_tests.cpp check it.

#include "local_overlap.h"

#include <algorithm>
#include <cmath>

namespace strata::nav {

CandidateTriangle makeCandidate(const sim::TriangleMesh& mesh, uint32_t t) {
  CandidateTriangle r;
  const auto& idx = mesh.triangles[t];
  r.a = mesh.vertices[idx[0]];
  r.b = mesh.vertices[idx[1]];
  r.c = mesh.vertices[idx[2]];
  r.min_x = std::min({r.a.x, r.b.x, r.c.x}), r.max_x = std::max({r.a.x, r.b.x, r.c.x});
  r.min_y = std::min({r.a.y, r.b.y, r.c.y}), r.max_y = std::max({r.a.y, r.b.y, r.c.y});
  r.min_z = std::min({r.a.z, r.b.z, r.c.z}), r.max_z = std::max({r.a.z, r.b.z, r.c.z});
  const sim::Vec3 a = r.a.toDouble(), b = r.b.toDouble(), c = r.c.toDouble();
  const sim::Vec3 n = sim::cross(b - a, c - a);
  const double len = sim::length(n);
  r.steep = !(len > 0) || !(std::fabs(n.y) >= 1e-3 * len);
  if (!r.steep) {
    r.grad_x = -n.x / n.y;
    r.grad_z = -n.z / n.y;
  }
  return r;
}

LocalBoxTest::LocalBoxTest(const sim::Aabb& box) : box_(sim::OrientedBox::fromAabb(box)) {
  prepare();
}

LocalBoxTest::LocalBoxTest(const sim::OrientedBox& box) : box_(box) { prepare(); }

void LocalBoxTest::prepare() {
  bounds_ = box_.bounds();
  const sim::Vec3& c = box_.center;
  margin_ = 1e-4 + 1e-6 * (std::fabs(c.x) + std::fabs(c.y) + std::fabs(c.z) + sim::length(box_.half_extents));
  foot_x[0] = box_.axes[0].x * box_.half_extents.x, foot_z[0] = box_.axes[0].z * box_.half_extents.x;
  foot_x[1] = box_.axes[2].x * box_.half_extents.z, foot_z[1] = box_.axes[2].z * box_.half_extents.z;
}

bool LocalBoxTest::overlaps(const CandidateTriangle& t) const {
  if (t.max_x < bounds_.min.x - margin_ || t.min_x > bounds_.max.x + margin_ || t.max_z < bounds_.min.z - margin_ ||
      t.min_z > bounds_.max.z + margin_ || t.max_y < bounds_.min.y - margin_ || t.min_y > bounds_.max.y + margin_)
    return false;
  if (!t.steep) {
    const sim::Vec3& c = box_.center;
    const double y = t.a.y + t.grad_x * (c.x - t.a.x) + t.grad_z * (c.z - t.a.z);
    const double spread = std::fabs(t.grad_x * foot_x[0] + t.grad_z * foot_z[0]) +
                          std::fabs(t.grad_x * foot_x[1] + t.grad_z * foot_z[1]);
    if (y + spread < bounds_.min.y - margin_ || y - spread > bounds_.max.y + margin_) return false;
  }
  return sim::boxOverlapsTriangle(box_, t.a.toDouble(), t.b.toDouble(), t.c.toDouble());
}

bool boxFreeAmong(const LocalBoxTest& box, std::span<const CandidateTriangle> records,
                  std::span<const uint32_t> candidates) {
  for (uint32_t i : candidates)
    if (box.overlaps(records[i])) return false;
  return true;
}

}  // namespace strata::nav
