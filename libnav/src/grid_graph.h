#pragma once
// Search-graph providers over a Grid (internal): the 8-connected walking graph with links, and
// the jump point graph used as the AStar fast path on uniform-cost grids.

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "strata/nav/grid.h"
#include "strata/nav/search.h"
#include "search_rates.h"

namespace strata::nav::detail {

/// The grid's walking graph: 8 neighbours (cardinal cost 1, diagonal sqrt 2, in cells), no
/// corner cutting (a diagonal needs both side cells walkable and, with heights, within a step of
/// both ends), cliffs over max_step_height refused, plus the grid's one-way links.
class GridGraph {
 public:
  explicit GridGraph(Grid& grid) : grid_(&grid), width_(grid.width()) {
    // A link cheaper than the distance the heuristic measures between its ends would make the
    // heuristic overestimate; scale it down just enough to stay admissible. Each metric has its
    // own scale: a default-cost link (its straight length) at a slant is cheaper than its
    // octile distance, so the octile heuristic of A* must shrink where Theta*'s need not.
    for (const GridLink& link : grid.links()) {
      const CellCoord a = grid.coord(link.from_cell), b = grid.coord(link.to_cell);
      const double straight = std::hypot(double(b.x - a.x), double(b.z - a.z));
      if (straight > 0) {
        straight_scale_ = std::min(straight_scale_, link.cost / straight);
        octile_scale_ = std::min(octile_scale_, link.cost / octile(b.x - a.x, b.z - a.z));
      }
    }
  }
  std::size_t nodeCount() const { return grid_->cellCount(); }
  double heuristic(NodeId node, NodeId goal, bool any_angle) const {
    const int dx = int(node % width_) - int(goal % width_);
    const int dz = int(node / width_) - int(goal / width_);
    return any_angle ? std::sqrt(double(dx) * dx + double(dz) * dz) * straight_scale_ : octile(dx, dz) * octile_scale_;
  }
  double straightCost(NodeId a, NodeId b) const {
    const int dx = int(a % width_) - int(b % width_);
    const int dz = int(a / width_) - int(b / width_);
    return std::sqrt(double(dx) * dx + double(dz) * dz);
  }
  bool lineOfSight(NodeId a, NodeId b) const {
    return grid_->lineOfSight(int(a % width_), int(a / width_), int(b % width_), int(b / width_));
  }
  template <class Visit>
  void forEachEdge(NodeId node, NodeId /*parent*/, Visit&& visit) const {
    Grid& grid = *grid_;
    const int x = int(node % width_), z = int(node / width_);
    const bool west = grid.isWalkable(x - 1, z), east = grid.isWalkable(x + 1, z);
    const bool north = grid.isWalkable(x, z - 1), south = grid.isWalkable(x, z + 1);
    auto offer = [&](bool open, int nx, int nz, double cost) {
      if (!open) return;
      const NodeId to = grid.key(nx, nz);
      if (grid.stepAllowed(node, to)) visit(to, cost, MoveAction::Walk);
    };
    offer(west, x - 1, z, 1.0);
    offer(east, x + 1, z, 1.0);
    offer(north, x, z - 1, 1.0);
    offer(south, x, z + 1, 1.0);
    // A diagonal passes both side cells: each must be walkable and, with heights, within a step
    // of both ends (Grid::diagonalOpen: a side cell on a plateau 9 m up is a wall's corner).
    auto diagonal = [&](bool sides, int nx, int nz) {
      offer(sides && grid.isWalkable(nx, nz) && grid.diagonalOpen(x, z, nx, nz), nx, nz, kSqrt2);
    };
    diagonal(west && north, x - 1, z - 1);
    diagonal(east && north, x + 1, z - 1);
    diagonal(west && south, x - 1, z + 1);
    diagonal(east && south, x + 1, z + 1);
    for (const std::uint32_t index : grid.linksFrom(node)) {
      const GridLink& link = grid.links()[index];
      if (grid.isWalkableKey(link.to_cell)) visit(link.to_cell, link.cost, MoveAction::Link);
    }
  }

 private:
  Grid* grid_;
  std::uint32_t width_;
  double straight_scale_ = 1.0;  ///< of the euclidean heuristic (any-angle)
  double octile_scale_ = 1.0;    ///< of the octile heuristic
};

}  // namespace strata::nav::detail
