// strata::sim alone: a query index over a floor, one ray.
#include <cstdio>

#include "strata/sim/query_index.h"

int main() {
  strata::sim::TriangleMesh floor;
  floor.vertices = {{-10, 0, -10}, {10, 0, -10}, {10, 0, 10}, {-10, 0, 10}};
  floor.triangles = {{0, 2, 1}, {0, 3, 2}};
  floor.triangle_labels = {0, 0};
  floor.triangle_tags = {0, 0};
  floor.labels = {"floor"};
  floor.tags = {"level"};
  if (!floor.validate().empty()) return 1;
  const strata::sim::QueryIndex index(floor);
  const auto hit = index.raycast({1, 5, 2}, {0, -1, 0}, 100);
  if (!hit || hit->distance != 5) return 1;
  std::printf("strata_sim_consumer: ok (hit at %.1f m)\n", hit->distance);
  return 0;
}
