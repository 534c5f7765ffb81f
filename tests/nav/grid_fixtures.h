#pragma once
// Tiny ASCII grid fixtures for the grid search tests: cell size 1 m, origin (0, 0, 0), so cell
// (x, z) has its centre at (x + 0.5, y, z + 0.5). '.' walkable, '#' blocked, digits are walkable
// ground at that many metres (see makeAsciiGrid).

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "strata/nav/grid.h"
#include "strata/nav/grid_search.h"

namespace strata::nav::test {

inline GridSettings unitSettings() {
  GridSettings s;
  s.cell_size = 1.0;
  s.max_step_height = 1.0;
  return s;
}

inline Grid ascii(const std::vector<std::string>& rows, GridSettings settings = unitSettings()) {
  auto grid = makeAsciiGrid(rows, settings);
  if (!grid) throw std::runtime_error(grid.error().message);
  return std::move(*grid);
}

inline sim::Vec3 at(int x, int z, double y = 0) { return {x + 0.5, y, z + 0.5}; }

inline PathResult route(Grid& grid, SearchMethod method, sim::Vec3 from, sim::Vec3 to, std::int64_t budget = 8192) {
  GridPathRequest request;
  request.method = method;
  request.start = from;
  request.goal = to;
  request.max_expansions = budget;
  return findGridPath(grid, request);
}

}  // namespace strata::nav::test

namespace strata::nav::test {

/// Brute-force oracle: textbook Dijkstra over every cell (8-connected, cost 1 / sqrt 2, no corner
/// cutting, step limit from the grid), independent of the search core. -1 when unreachable.
inline double dijkstraOracle(Grid& grid, CellCoord from, CellCoord to) {
  const int w = grid.width(), d = grid.depth();
  std::vector<double> dist(std::size_t(w) * d, 1e300);
  std::vector<bool> done(dist.size(), false);
  dist[std::size_t(from.z) * w + from.x] = 0;
  for (;;) {
    std::size_t best = dist.size();
    for (std::size_t i = 0; i < dist.size(); ++i)
      if (!done[i] && dist[i] < 1e300 && (best == dist.size() || dist[i] < dist[best])) best = i;
    if (best == dist.size()) return -1;
    if (best == std::size_t(to.z) * w + to.x) return dist[best];
    done[best] = true;
    const int x = int(best % w), z = int(best / w);
    for (int dz = -1; dz <= 1; ++dz)
      for (int dx = -1; dx <= 1; ++dx) {
        if (dx == 0 && dz == 0) continue;
        const int nx = x + dx, nz = z + dz;
        if (!grid.isWalkable(nx, nz)) continue;
        const double limit = grid.settings().max_step_height;
        auto step = [&](int ax, int az, int bx, int bz) { return std::abs(grid.surfaceY(ax, az) - grid.surfaceY(bx, bz)) <= limit; };
        // A diagonal: both two-step routes of cardinal steps through its side cells exist.
        if (dx != 0 && dz != 0 &&
            (!grid.isWalkable(x + dx, z) || !grid.isWalkable(x, z + dz) || !step(x, z, x + dx, z) || !step(x + dx, z, nx, nz) ||
             !step(x, z, x, z + dz) || !step(x, z + dz, nx, nz)))
          continue;
        if (!step(x, z, nx, nz)) continue;
        const double c = dist[best] + ((dx != 0 && dz != 0) ? std::sqrt(2.0) : 1.0);
        double& slot = dist[std::size_t(nz) * w + nx];
        if (c < slot) slot = c;
      }
    for (const GridLink& link : grid.links())
      if (link.from_cell == best && grid.isWalkableKey(link.to_cell)) {
        double& slot = dist[link.to_cell];
        slot = std::min(slot, dist[best] + link.cost);
      }
  }
}

}  // namespace strata::nav::test
