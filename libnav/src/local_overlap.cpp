// Exact box overlap against a local list of candidate triangles.
//
// The bake asks hundreds of thousands of "does this box touch anything?" questions (standing
// room per floor, swept boxes per edge). Walking the query index for each costs a tree descent
// plus a full separating-axis test per leaf triangle. Here the caller keeps the triangles near
// the box (per tile or per bin) and each is decided by, in order:
//  1. bounds: a triangle whose bounds miss the box's bounds by more than `margin_` cannot touch it;
//  2. plane: the box lies clearly on one side of the triangle's plane (its centre is further from
//     the plane than the box's projected half-width plus `margin_`): the floor under a standing
//     box, the ceiling above it, a wall beside it;
//  3. footprint: for an upright box (second axis +Y: every bake box), the triangle seen from above
//     clearly misses the box's footprint rectangle (a 2-D separating-axis test on the rectangle's
//     two axes and the triangle's three edge normals): a neighbouring step or ramp triangle whose
//     plane crosses the box but which ends beside it;
//  4. otherwise the exact test of the query index itself (sim::boxOverlapsTriangle).
// Steps 1 to 3 only reject triangles the exact test also rejects (the allowance is orders of
// magnitude above the rounding of the arithmetic, and above the index's own culling margin), and
// step 3 is the index's decision, so over a superset of the triangles near the box the answer is
// the index's: tests/nav/column_oracle_tests.cpp and bake_edge_oracle_tests.cpp check it.

#include "local_overlap.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <limits>

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
  r.normal = sim::cross(b - a, c - a);
  r.offset = sim::dot(r.normal, a);
  r.normal_length = sim::length(r.normal);
  return r;
}

TriangleCandidates::TriangleCandidates(const sim::TriangleMesh& mesh) {
  const uint32_t count = mesh.triangleCount();
  records.resize(count);  // uninitialised: every entry is written below
  bounds.resize(count);
  tbb::parallel_for(tbb::blocked_range<uint32_t>(0, count, 1024), [&](const tbb::blocked_range<uint32_t>& q) {
    for (uint32_t t = q.begin(); t != q.end(); ++t) {
      const CandidateTriangle& r = records[t] = makeCandidate(mesh, t);
      bounds[t] = {r.min_x, r.max_x, r.min_y, r.max_y, r.min_z, r.max_z};
    }
  });
}

LocalBoxTest::LocalBoxTest(const sim::Aabb& box) {
  // prepare() specialised to the identity axes of OrientedBox::fromAabb: the same values (the
  // products with 0 and 1 and the sums with 0 it leaves out are exact).
  box_.center = box.center();
  box_.half_extents = box.extent() * 0.5;
  const sim::Vec3& c = box_.center;
  const sim::Vec3& h = box_.half_extents;
  margin_ = 1e-4 + 1e-6 * (std::fabs(c.x) + std::fabs(c.y) + std::fabs(c.z) + h.x + h.y + h.z);
  half_[0] = {h.x, 0, 0};
  half_[1] = {0, h.y, 0};
  half_[2] = {0, 0, h.z};
  const sim::Vec3 extent{std::fabs(h.x) + margin_, std::fabs(h.y) + margin_, std::fabs(h.z) + margin_};
  bounds_.min = c - extent;
  bounds_.max = c + extent;
  upright_ = true;
  axis_aligned_ = true;
}

LocalBoxTest::LocalBoxTest(const sim::OrientedBox& box) : box_(box) { prepare(); }

void LocalBoxTest::prepare() {
  const sim::Vec3& c = box_.center;
  const sim::Vec3& h = box_.half_extents;
  margin_ = 1e-4 + 1e-6 * (std::fabs(c.x) + std::fabs(c.y) + std::fabs(c.z) + h.x + h.y + h.z);
  half_[0] = box_.axes[0] * h.x;
  half_[1] = box_.axes[1] * h.y;
  half_[2] = box_.axes[2] * h.z;
  const auto reach = [&](double a, double b, double d) { return std::fabs(a) + std::fabs(b) + std::fabs(d) + margin_; };
  const sim::Vec3 extent{reach(half_[0].x, half_[1].x, half_[2].x), reach(half_[0].y, half_[1].y, half_[2].y),
                         reach(half_[0].z, half_[1].z, half_[2].z)};
  bounds_.min = c - extent;
  bounds_.max = c + extent;
  upright_ = box_.axes[1].x == 0 && box_.axes[1].y == 1 && box_.axes[1].z == 0;
  axis_aligned_ = upright_ && box_.axes[0].y == 0 && box_.axes[0].z == 0;
}

bool LocalBoxTest::footprintMisses(const CandidateTriangle& t) const {
  // 2-D separating axes between the triangle (x, z) and the rectangle centre +- half_[0] +- half_[2].
  const double px[3] = {t.a.x, t.b.x, t.c.x}, pz[3] = {t.a.z, t.b.z, t.c.z};
  const auto separates = [&](double wx, double wz) {
    const double centre = wx * box_.center.x + wz * box_.center.z;
    const double reach = std::fabs(wx * half_[0].x + wz * half_[0].z) + std::fabs(wx * half_[2].x + wz * half_[2].z) +
                         margin_ * (std::fabs(wx) + std::fabs(wz));
    const double s0 = wx * px[0] + wz * pz[0], s1 = wx * px[1] + wz * pz[1], s2 = wx * px[2] + wz * pz[2];
    return std::min({s0, s1, s2}) > centre + reach || std::max({s0, s1, s2}) < centre - reach;
  };
  if (!axis_aligned_ && (separates(half_[0].x, half_[0].z) || separates(half_[2].x, half_[2].z))) return true;
  for (int i = 0; i < 3; ++i) {
    const int j = i == 2 ? 0 : i + 1;
    if (separates(pz[i] - pz[j], px[j] - px[i])) return true;
  }
  return false;
}

bool LocalBoxTest::overlaps(const CandidateTriangle& t) const {
  if (t.max_x < bounds_.min.x || t.min_x > bounds_.max.x || t.max_z < bounds_.min.z || t.min_z > bounds_.max.z ||
      t.max_y < bounds_.min.y || t.min_y > bounds_.max.y)
    return false;
  const double distance = sim::dot(t.normal, box_.center) - t.offset;  // times |normal|
  const double reach = std::fabs(sim::dot(t.normal, half_[0])) + std::fabs(sim::dot(t.normal, half_[1])) +
                       std::fabs(sim::dot(t.normal, half_[2]));
  if (std::fabs(distance) > reach + margin_ * t.normal_length) return false;
  if (upright_ && footprintMisses(t)) return false;
  return sim::boxOverlapsTriangle(box_, t.a.toDouble(), t.b.toDouble(), t.c.toDouble());
}

bool boxFreeAmong(const LocalBoxTest& box, std::span<const CandidateTriangle> records,
                  std::span<const TriangleBounds> bounds, std::span<const uint32_t> candidates) {
  const sim::Aabb& b = box.bounds();
  for (uint32_t i : candidates) {
    const TriangleBounds& t = bounds[i];
    if (t.max_y < b.min.y || t.min_y > b.max.y || t.max_x < b.min.x || t.min_x > b.max.x || t.max_z < b.min.z ||
        t.min_z > b.max.z)
      continue;  // the same bounds test overlaps() starts with, on the dense array
    if (box.overlaps(records[i])) return false;
  }
  return true;
}

void HeightOrderedCandidates::assign(std::span<const uint32_t> candidates, std::span<const TriangleBounds> bounds) {
  ids_.assign(candidates.begin(), candidates.end());
  std::sort(ids_.begin(), ids_.end(), [&](uint32_t a, uint32_t b) {
    if (bounds[a].min_y != bounds[b].min_y) return bounds[a].min_y < bounds[b].min_y;
    return a < b;
  });
  min_y_.resize(ids_.size());
  reach_.resize(ids_.size());
  float reach = -std::numeric_limits<float>::infinity();
  for (std::size_t i = 0; i < ids_.size(); ++i) {
    min_y_[i] = bounds[ids_[i]].min_y;
    reach = std::max(reach, bounds[ids_[i]].max_y);
    reach_[i] = reach;
  }
}

std::span<const uint32_t> HeightOrderedCandidates::within(double lo, double hi) const {
  // Entries past `end` start above hi; entries before `begin` all end below lo (their running
  // maximum does): boxFreeAmong's bounds test rejects both.
  const auto end = static_cast<std::size_t>(
      std::upper_bound(min_y_.begin(), min_y_.end(), hi, [](double h, float m) { return h < m; }) - min_y_.begin());
  const auto begin = static_cast<std::size_t>(
      std::lower_bound(reach_.begin(), reach_.begin() + static_cast<std::ptrdiff_t>(end), lo,
                       [](float r, double h) { return r < h; }) - reach_.begin());
  return std::span<const uint32_t>(ids_.data() + begin, end - begin);
}

}  // namespace strata::nav
