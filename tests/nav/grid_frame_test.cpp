// GridFrame's lattice arithmetic: detail::roundToEven (the inline stand-in for std::nearbyint in
// column centres) against std::nearbyint itself, bit for bit, on the awkward values (ties,
// signed zeros, the 2^51..2^53 band where doubles stop having fractions, infinities, NaN) and
// on a million random ones of every magnitude.

#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "strata/nav/layered_graph.h"

using namespace strata;

namespace {

// Same bits, or both NaN.
bool sameDouble(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}

}  // namespace

TEST_CASE("roundToEven is std::nearbyint bit for bit", "[nav][grid]") {
  std::vector<double> values = {0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994, -0.49999999999999994,
                                0.3, -0.3, 1e-300, -1e-300, 4.9e-324, 123456.5, -123456.5, 1e15 + 0.5, 0x1p51 - 0.5,
                                0x1p51, 0x1p51 + 0.5, 0x1p51 + 1.5, 0x1p52 - 0.5, 0x1p52 - 1.5, 0x1p52, 0x1p52 + 1, 0x1p53,
                                -0x1p51 - 0.5, -0x1p52 + 0.5, 1e300, -1e300, std::numeric_limits<double>::max(),
                                std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                                std::numeric_limits<double>::quiet_NaN()};
  for (double v : values) {
    INFO(v);
    CHECK(sameDouble(nav::detail::roundToEven(v), std::nearbyint(v)));
  }
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> exponent(-60, 60);
  std::uniform_real_distribution<double> mantissa(-2.0, 2.0);
  std::uniform_int_distribution<int> half(-1000, 1000);
  int mismatches = 0;
  for (int i = 0; i < 1000000; ++i) {
    // Random magnitudes, and exact halves (ties) near zero.
    const double v = i % 4 == 0 ? half(rng) + 0.5 : std::ldexp(mantissa(rng), exponent(rng));
    if (!sameDouble(nav::detail::roundToEven(v), std::nearbyint(v))) ++mismatches;
  }
  CHECK(mismatches == 0);
}

TEST_CASE("column centres and corners on and off the lattice", "[nav][grid]") {
  // On the lattice (the origin a multiple of the cell size) the centre is (k + x + 0.5) * cell,
  // so a column's centre does not depend on where the grid starts; off it, origin + (x + 0.5) * cell.
  nav::GridFrame grid;
  grid.cell_size = 0.3;
  grid.width_cells = grid.depth_cells = 10;
  grid.origin_x = -7 * 0.3;  // k = -7
  grid.origin_z = 0.1;       // not a multiple
  for (int32_t x = -3; x < 12; ++x) {
    INFO(x);
    CHECK(sameDouble(grid.centerX(x), (-7.0 + (x + 0.5)) * 0.3));
    CHECK(sameDouble(grid.cornerX(x), (-7.0 + x) * 0.3));
    CHECK(sameDouble(grid.centerZ(x), 0.1 + (x + 0.5) * 0.3));
    CHECK(grid.columnX(grid.centerX(x)) == x);
    CHECK(grid.columnZ(grid.centerZ(x)) == x);
  }
}

TEST_CASE("GridFrame::onColumn takes a column's square with its sides", "[nav][grid_frame]") {
  nav::GridFrame grid;
  grid.origin_x = -30.0;
  grid.origin_z = -30.0;
  grid.cell_size = 0.3;
  grid.width_cells = 200;
  grid.depth_cells = 200;
  // Column 100 spans [0, 0.3) by columnX; x = 0 is on columns 99 and 100 both.
  CHECK(grid.columnX(0.0) == 100);
  CHECK(grid.onColumn(100, 100, 0.0, 0.1));
  CHECK(grid.onColumn(99, 100, 0.0, 0.1));
  CHECK(grid.onColumn(99, 99, 0.0, 0.0));  // a corner: all four columns
  CHECK(grid.onColumn(100, 100, 0.0, 0.0));
  CHECK(grid.onColumn(100, 99, 0.3, 0.0));
  CHECK_FALSE(grid.onColumn(98, 100, 0.0, 0.1));
  CHECK_FALSE(grid.onColumn(100, 100, 0.31, 0.1));
  CHECK_FALSE(grid.onColumn(100, 100, -0.001, 0.1));
  CHECK_FALSE(grid.onColumn(100, 101, 0.1, 0.1));
  CHECK(grid.onColumn(100, 100, 0.15, 0.15));  // the centre
  // A nanometre a metre of slack, no more.
  CHECK(grid.onColumn(100, 100, -1e-10, 0.1));
  CHECK_FALSE(grid.onColumn(100, 100, -1e-7, 0.1));
}
