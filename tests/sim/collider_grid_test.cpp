// The character collider grid against a brute-force bounds scan, plus its versioning rules.

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <vector>

#include "strata/sim/collider_grid.h"

using namespace strata::sim;

namespace {

std::vector<uint32_t> bruteForce(const std::vector<GridCollider>& slots, const Aabb& region) {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < slots.size(); ++i)
    if (slots[i].active && slots[i].bounds.overlaps(region)) out.push_back(i);
  return out;
}

GridCollider randomCollider(std::mt19937_64& rng, double extent) {
  std::uniform_real_distribution<double> pos(-200, 200), size(0.1, extent);
  const Vec3 c{pos(rng), pos(rng) * 0.1, pos(rng)};
  const Vec3 h{size(rng), size(rng), size(rng)};
  return GridCollider{Aabb{c - h, c + h}, 1, true};
}

}  // namespace

TEST_CASE("collider grid nearby matches a brute-force scan", "[sim][grid][property]") {
  std::mt19937_64 rng(7);
  std::vector<GridCollider> slots;
  for (int i = 0; i < 500; ++i) slots.push_back(randomCollider(rng, i % 50 == 0 ? 60.0 : 3.0));
  ColliderGrid grid;
  grid.sync(slots);
  CHECK(grid.stats().large > 0);  // the big ones cover more than 64 cells
  std::uniform_real_distribution<double> pos(-200, 200), step(-10, 10);
  std::vector<uint32_t> got;
  for (int q = 0; q < 2000; ++q) {
    const Vec3 c{pos(rng), 0, pos(rng)};
    const Aabb body{c - Vec3{0.4, 0.9, 0.4}, c + Vec3{0.4, 0.9, 0.4}};
    const Vec3 applied{step(rng), step(rng), step(rng)}, velocity{step(rng), 0, step(rng)};
    grid.nearby(body, applied, velocity, got);
    const auto expected = bruteForce(slots, ColliderGrid::queryRegion(body, applied, velocity, 1.12));
    REQUIRE(got == expected);  // deduplicated and sorted, nothing missed
    // move one collider per query (a new version): only that slot is re-filed
    const uint32_t moved = static_cast<uint32_t>(rng() % slots.size());
    const uint64_t version = slots[moved].version + 1;
    slots[moved] = randomCollider(rng, 3.0);
    slots[moved].version = version;
    grid.sync(slots);
  }
  CHECK(grid.stats().full_rebuilds == 1);
  CHECK(grid.stats().slot_updates == 2000);
}

TEST_CASE("collider grid query region: opposing translations do not cancel", "[sim][grid]") {
  const Aabb body{{-0.5, 0, -0.5}, {0.5, 2, 0.5}};
  // applied +5 x, velocity -5 x: the sum is zero, but both extents are covered
  const Aabb region = ColliderGrid::queryRegion(body, {5, 0, 0}, {-5, 0, 0}, 1.0);
  CHECK(region.min.x == Approx(-6.5));
  CHECK(region.max.x == Approx(6.5));
  CHECK(region.min.y == Approx(-1.0));
  CHECK(region.max.y == Approx(3.0));
}

TEST_CASE("collider grid: version bumps re-file, unchanged versions are ignored, length change rebuilds",
          "[sim][grid]") {
  std::vector<GridCollider> slots{{Aabb{{0, 0, 0}, {1, 1, 1}}, 1, true}, {Aabb{{50, 0, 0}, {51, 1, 1}}, 1, true}};
  ColliderGrid grid;
  grid.sync(slots);
  std::vector<uint32_t> out;
  const Aabb body{{49, 0, 0}, {49.5, 1, 1}};
  grid.nearby(body, {}, {}, out);
  CHECK(out == std::vector<uint32_t>{1});
  // moving slot 0 next to the body without bumping its version: the grid keeps the old filing
  slots[0].bounds = Aabb{{48, 0, 0}, {48.5, 1, 1}};
  grid.sync(slots);
  CHECK(grid.stats().slot_updates == 0);
  slots[0].version = 2;
  grid.sync(slots);
  grid.nearby(body, {}, {}, out);
  CHECK(out == std::vector<uint32_t>{0, 1});
  CHECK(grid.stats().slot_updates == 1);
  // deactivating hides the slot
  slots[1].active = false;
  slots[1].version = 2;
  grid.sync(slots);
  grid.nearby(body, {}, {}, out);
  CHECK(out == std::vector<uint32_t>{0});
  // a changed array length rebuilds
  slots.push_back({Aabb{{49, 0, 0}, {50, 1, 1}}, 1, true});
  grid.sync(slots);
  CHECK(grid.stats().full_rebuilds == 2);
  grid.nearby(body, {}, {}, out);
  CHECK(out == std::vector<uint32_t>{0, 2});
}

TEST_CASE("collider grid: nonfinite bounds go to the large list, never into cells", "[sim][grid]") {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<GridCollider> slots{{Aabb{{-inf, -1, -inf}, {inf, 0, inf}}, 1, true}, {Aabb{{0, 0, 0}, {1, 1, 1}}, 1, true}};
  ColliderGrid grid;
  grid.sync(slots);
  CHECK(grid.stats().large == 1);
  std::vector<uint32_t> out;
  grid.nearby(Aabb{{1000, 0, 1000}, {1001, 2, 1001}}, {}, {}, out);
  CHECK(out == std::vector<uint32_t>{0});
  CHECK(ColliderGridSettings{}.validate().empty());
  ColliderGridSettings bad;
  bad.cell_size = 0;
  CHECK(bad.validate().find("cell_size") != std::string::npos);
}
