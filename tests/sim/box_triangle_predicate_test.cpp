// The boolean box/triangle predicate (sim::boxOverlapsTriangle, the index's per-triangle overlap
// test) against the full separating-axis test with penetration depth it replaced
// (detail::boxPenetration: overlapping exactly when the depth is >= 0). Coordinates on a coarse
// lattice make many boxes exactly touch triangles, the case where a different formulation could
// round the other way.

#include <catch2/catch.hpp>

#include <random>

#include "narrow_phase.h"
#include "strata/sim/query_index.h"

using namespace strata::sim;

namespace {

bool fullTestOverlaps(const OrientedBox& box, const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 pts[3] = {a, b, c};
  const Vec3 edges[3] = {b - a, c - b, a - c};
  const Vec3 normal = cross(b - a, c - a);
  double depth;
  Vec3 dir;
  detail::boxPenetration(box, pts, 3, edges, 3, &normal, 1, 0.0, depth, dir);
  return depth >= 0;
}

}  // namespace

TEST_CASE("boolean box/triangle overlap equals the separating-axis test with depth", "[sim][narrow]") {
  std::mt19937_64 rng(4);
  const auto lattice = [&](int span) { return 0.1 * static_cast<int>(rng() % (2 * span + 1)) - 0.1 * span; };
  std::size_t overlapping = 0, separated = 0;
  for (int i = 0; i < 200000; ++i) {
    OrientedBox box;
    if (i % 3 == 2) {  // yawed about Y, like the bake's diagonal bands
      box = OrientedBox::fromYaw({lattice(5), lattice(5), lattice(5)}, {0.1 + 0.1 * (rng() % 5), 0.1 + 0.1 * (rng() % 9), 0.3},
                                 (rng() % 8) * M_PI / 4);
    } else {
      Aabb b;
      b.min = {lattice(5), lattice(5), lattice(5)};
      b.max = b.min + Vec3{0.1 * (1 + rng() % 6), 0.1 * (1 + rng() % 18), 0.1 * (1 + rng() % 6)};
      box = OrientedBox::fromAabb(b);
    }
    Vec3 v[3];
    for (Vec3& p : v) p = {lattice(8), lattice(8), lattice(8)};
    if (i % 10 == 0) v[2] = v[1];  // degenerate: a segment
    if (i % 10 == 1) v[1].y = v[2].y = v[0].y;  // flat, like floors
    const bool expected = fullTestOverlaps(box, v[0], v[1], v[2]);
    INFO("case " << i);
    REQUIRE(boxOverlapsTriangle(box, v[0], v[1], v[2]) == expected);
    (expected ? overlapping : separated) += 1;
  }
  CHECK(overlapping > 10000);  // both answers are well represented
  CHECK(separated > 10000);
}
