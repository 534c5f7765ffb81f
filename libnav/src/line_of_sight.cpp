// Feet and photons: the grid's two straight-line tests over a Bresenham cell walk
// (spec/grid-pathfinding-library.md, "Feet and photons").
//
// Bresenham, "Algorithm for computer control of a digital plotter" (1965), with a line that runs
// exactly between two cells taking both (walkLine). The walk runs from the lexicographically
// smaller endpoint, and a test and its reverse visit the same cells and give the same answer.

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "strata/nav/grid.h"

namespace strata::nav {

namespace {

// Calls visit(x, z, previous_x, previous_z, diagonal) for every cell after the first, in order;
// stops early when visit returns false. Returns false iff a visit did.
//
// Along the major axis (the longer one) every cell; across it, the cell nearest the line at each
// major step, as Bresenham's walk takes it. Where the line passes exactly between two cells
// across the axis (at a major step, the minor offset i * d / D is k + 1/2) it runs along their
// shared side, through both: both are visited, one cardinal step after the other, where
// Bresenham's walk took one of them, chosen by the direction it ran, and then stepped diagonally
// past the corner of a cell the line never comes near (an audit: a map and its mirror image gave
// one line blocked and the other clear, so Theta* and `direct` answered differently for them).
// So the cells are the same for a line and its mirror images and either way along it.
template <class Visit>
bool walkLine(int x0, int z0, int x1, int z1, Visit&& visit) {
  if (std::make_pair(x1, z1) < std::make_pair(x0, z0)) std::swap(x0, x1), std::swap(z0, z1);
  const int sx = x0 < x1 ? 1 : -1, sz = z0 < z1 ? 1 : -1;
  const bool x_major = std::abs(x1 - x0) >= std::abs(z1 - z0);
  const long long major = x_major ? std::abs(x1 - x0) : std::abs(z1 - z0);
  const long long minor = x_major ? std::abs(z1 - z0) : std::abs(x1 - x0);
  int x = x0, z = z0;
  // 2 i minor - (2 k + 1) major after major step i, k the minor offset of the cell last visited:
  // the line's minor offset there against k + 1/2 (Bresenham's error term, kept whole).
  long long error = 2 * minor - major;
  long long i = 0;
  bool across = false;  // the second cell of a tie is next
  while (i < major || across) {
    const int px = x, pz = z;
    bool diagonal = false;
    if (across) {  // along the side of two cells: the one across too
      (x_major ? z : x) += x_major ? sz : sx;
      error -= 2 * major;
      across = false;
    } else {
      ++i;
      (x_major ? x : z) += x_major ? sx : sz;
      if (error > 0) {  // the next cell across: a diagonal step
        (x_major ? z : x) += x_major ? sz : sx;
        error -= 2 * major;
        diagonal = true;
      } else {
        across = error == 0;
      }
      error += 2 * minor;
    }
    if (!visit(x, z, px, pz, diagonal)) return false;
  }
  return true;
}

}  // namespace

bool Grid::lineOfSight(int x0, int z0, int x1, int z1) {
  if (!inBounds(x0, z0) || !inBounds(x1, z1)) return false;
  if (!isWalkable(x0, z0) || !isWalkable(x1, z1)) return false;
  const double step = settings_.max_step_height;
  const bool heights = heights_seen_;
  const double h0 = surfaceY(x0, z0), h1 = surfaceY(x1, z1);
  const double lo = std::min(h0, h1) - step, hi = std::max(h0, h1) + step;
  return walkLine(x0, z0, x1, z1, [&](int x, int z, int px, int pz, bool diagonal) {
    if (!isWalkable(x, z)) return false;
    if (diagonal && (!isWalkable(x, pz) || !isWalkable(px, z))) return false;  // no corner threading
    if (heights || heights_seen_) {
      const double h = surfaceY(x, z);
      if (h < lo || h > hi) return false;                          // outside the endpoints' band
      if (std::abs(h - surfaceY(px, pz)) > step) return false;     // a cliff inside the band
      if (diagonal && !diagonalOpen(px, pz, x, z)) return false;    // a side cell a cliff away
    }
    return true;
  });
}

void Grid::lineCells(int x0, int z0, int x1, int z1, std::vector<CellCoord>& out) const {
  out.clear();
  const bool reversed = std::make_pair(x1, z1) < std::make_pair(x0, z0);
  out.push_back(reversed ? CellCoord{x1, z1} : CellCoord{x0, z0});
  walkLine(x0, z0, x1, z1, [&](int x, int z, int, int, bool) {
    out.push_back({x, z});
    return true;
  });
  if (reversed) std::reverse(out.begin(), out.end());
}

bool Grid::sightLine(int x0, int z0, int x1, int z1) {
  if (!inBounds(x0, z0) || !inBounds(x1, z1)) return false;
  const double step = settings_.max_step_height;
  const double h0 = surfaceY(x0, z0), h1 = surfaceY(x1, z1);
  const double lo = std::min(h0, h1) - step, hi = std::max(h0, h1) + step;
  return walkLine(x0, z0, x1, z1, [&](int x, int z, int, int, bool) {
    if (x == x1 && z == z1) return true;  // the far endpoint is what is looked at
    if (x == x0 && z == z0) return true;
    const std::optional<double> ground = groundY(x, z);
    if (ground && *ground < lo) return true;   // pits and valleys stay transparent
    if (ground && *ground > hi) return false;  // rising ground and wall tops occlude
    return isWalkable(x, z);                   // an unwalkable cell in the band blocks
  });
}

}  // namespace strata::nav
