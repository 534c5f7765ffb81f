#pragma once
// Internal: exact box overlap tests against a caller-supplied set of candidate triangles, the
// bake's replacement for QueryIndex::overlapsBox / overlapsOrientedBox on its many standing-room
// and sweep boxes (see local_overlap.cpp for why the answer is the index's).

#include <cstdint>
#include <span>
#include <vector>

#include "strata/nav/layered_graph.h"
#include "strata/sim/math.h"
#include "strata/sim/mesh.h"
#include "strata/sim/query_index.h"

namespace strata::nav {

/// One mesh triangle prepared for LocalBoxTest: its corners (float32, as stored in the mesh, so
/// exact), bounds, and its plane.
struct CandidateTriangle {
  float min_x, max_x, min_y, max_y, min_z, max_z;  ///< bounds, metres
  sim::Vec3f a, b, c;                              ///< corners, metres
  sim::Vec3 normal;                                ///< cross(b - a, c - a) (not unit; zero when degenerate)
  double offset = 0;                               ///< dot(normal, a): the plane is dot(normal, p) = offset
  double normal_length = 0;                        ///< |normal|
};

/// The bounds of a CandidateTriangle alone (a dense array of these keeps the bounds test, which
/// rejects most candidates, out of the full records' cache lines).
struct TriangleBounds {
  float min_x, max_x, min_y, max_y, min_z, max_z;  ///< metres
};

/// The candidate record of mesh triangle `t`.
CandidateTriangle makeCandidate(const sim::TriangleMesh& mesh, uint32_t t);

/// The candidate record and bounds of every triangle of a mesh, built once per bake (in
/// parallel) and shared by the column stage's tiles and the edge stage's bins: a tile would
/// otherwise build records of every triangle it touches, and a large triangle touches many tiles.
struct TriangleCandidates {
  explicit TriangleCandidates(const sim::TriangleMesh& mesh);
  NodeArray<CandidateTriangle> records;  ///< per mesh triangle
  NodeArray<TriangleBounds> bounds;      ///< per mesh triangle: the bounds of records[t]
};

/// One query box (axis-aligned or oriented about Y) and the exact test of one triangle against it.
class LocalBoxTest {
 public:
  /// An axis-aligned box (the shape QueryIndex::overlapsBox tests).
  explicit LocalBoxTest(const sim::Aabb& box);
  /// An oriented box (the shape QueryIndex::overlapsOrientedBox tests).
  explicit LocalBoxTest(const sim::OrientedBox& box);

  /// True when the triangle overlaps the box (touching counts), with the same answer as the
  /// query index's exact test. Cheap rejections first: bounds, then the box clearly on one side
  /// of the triangle's plane.
  bool overlaps(const CandidateTriangle& t) const;

  /// Bounds of the box grown by the test's allowance: a triangle outside them does not overlap.
  const sim::Aabb& bounds() const { return bounds_; }
  /// Horizontal bounds of the box grown by the test's allowance (for picking bins), metres.
  double minX() const { return bounds_.min.x; }
  double maxX() const { return bounds_.max.x; }
  double minZ() const { return bounds_.min.z; }
  double maxZ() const { return bounds_.max.z; }

 private:
  void prepare();
  /// Step 3 of the test (local_overlap.cpp): the triangle seen from above misses the footprint.
  bool footprintMisses(const CandidateTriangle& t) const;

  sim::OrientedBox box_;
  sim::Aabb bounds_;            // bounds of box_ grown by margin_
  double margin_ = 0;           // rounding allowance of the cheap rejections, metres
  sim::Vec3 half_[3];           // the box's half-axes (axis * half extent)
  bool upright_ = false;        // axes[1] is +Y: the box is a vertical prism over its footprint
  bool axis_aligned_ = false;   // and axes[0] is +-X: the footprint's own axes are the bounds test's
};

/// True when no triangle of `candidates` (indices into `records` and `bounds`, bounds[i] being
/// the bounds of records[i]) overlaps the box.
bool boxFreeAmong(const LocalBoxTest& box, std::span<const CandidateTriangle> records,
                  std::span<const TriangleBounds> bounds, std::span<const uint32_t> candidates);

/// A list of candidates ordered by their lowest point (then id), with the running maximum of
/// their highest points, so that a box is tested only against the run whose heights can reach
/// it: those with min_y <= the box's top, from the first whose running maximum reaches the
/// box's bottom. Everything left out fails the bounds test boxFreeAmong starts with, so the
/// answer is the same; what changes is the work in a column or bin of many storeys (a stack of
/// 200 floors tested every standing box against all 400 of its column's triangles).
class HeightOrderedCandidates {
 public:
  /// Orders `candidates` (indices into `bounds`).
  void assign(std::span<const uint32_t> candidates, std::span<const TriangleBounds> bounds);
  /// The candidates that may touch heights [lo, hi] (a superset of those that do).
  std::span<const uint32_t> within(double lo, double hi) const;

 private:
  std::vector<uint32_t> ids_;
  std::vector<float> min_y_;  // per entry of ids_
  std::vector<float> reach_;  // per entry: the largest max_y of entries 0 .. i
};

/// A column's candidate list is height-ordered when it holds more than kHeightOrderAbove
/// triangles and more than kHeightOrderHits surfaces are tested on it; a bin of the edge stage
/// when it holds more than kHeightOrderBinAbove. Below that the ordering costs more than it
/// saves (on dense single-storey meshes such as zdm2, ordering every list over 48 added 11 % to
/// the bake's instructions).
inline constexpr std::size_t kHeightOrderAbove = 48;
inline constexpr std::size_t kHeightOrderHits = 16;
inline constexpr std::size_t kHeightOrderBinAbove = 384;

}  // namespace strata::nav
