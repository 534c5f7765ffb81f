#pragma once
// Internal: exact box overlap tests against a caller-supplied set of candidate triangles, the
// bake's replacement for QueryIndex::overlapsBox / overlapsOrientedBox on its many standing-room
// and sweep boxes (see local_overlap.cpp for why the answer is the index's).

#include <cstdint>
#include <span>
#include <vector>

#include "strata/sim/math.h"
#include "strata/sim/mesh.h"
#include "strata/sim/query_index.h"

namespace strata::nav {

/// One mesh triangle prepared for LocalBoxTest: its corners (float32, as stored in the mesh, so
/// exact), bounds, and the gradient of its plane y(x, z) when it is not steep.
struct CandidateTriangle {
  float min_x, max_x, min_y, max_y, min_z, max_z;  ///< bounds, metres
  sim::Vec3f a, b, c;                              ///< corners, metres
  double grad_x = 0, grad_z = 0;                   ///< plane slope dy/dx, dy/dz (valid when !steep)
  bool steep = true;                               ///< |normal.y| < 1e-3 |normal| (or degenerate): no plane test
};

/// The candidate record of mesh triangle `t`.
CandidateTriangle makeCandidate(const sim::TriangleMesh& mesh, uint32_t t);

/// One query box (axis-aligned or oriented about Y) and the exact test of one triangle against it.
class LocalBoxTest {
 public:
  /// An axis-aligned box (the shape QueryIndex::overlapsBox tests).
  explicit LocalBoxTest(const sim::Aabb& box);
  /// A box whose first axis is horizontal, second +Y, third horizontal (a sweep's band).
  explicit LocalBoxTest(const sim::OrientedBox& box);

  /// True when the triangle overlaps the box (touching counts), with the same answer as the
  /// query index's exact test. Cheap rejections first: bounds, then the plane clearly below or
  /// above the box over its whole footprint.
  bool overlaps(const CandidateTriangle& t) const;

  /// Horizontal bounds of the box (for picking candidate bins), metres.
  double minX() const { return bounds_.min.x; }
  double maxX() const { return bounds_.max.x; }
  double minZ() const { return bounds_.min.z; }
  double maxZ() const { return bounds_.max.z; }

 private:
  void prepare();

  sim::OrientedBox box_;
  sim::Aabb bounds_;            // tight bounds of box_
  double margin_ = 0;           // rounding allowance of the cheap rejections, metres
  double foot_x[2] = {0, 0};    // half-axes of the footprint: (foot_x[0], foot_z[0]), (foot_x[1], foot_z[1])
  double foot_z[2] = {0, 0};
};

/// True when no triangle of `candidates` (indices into `records`) overlaps the box.
bool boxFreeAmong(const LocalBoxTest& box, std::span<const CandidateTriangle> records,
                  std::span<const uint32_t> candidates);

}  // namespace strata::nav
