#pragma once
// Jump point search (internal): the AStar fast path on uniform-cost grids.
//
// Harabor & Grastien, "Online Graph Pruning for Pathfinding on Grid Maps" (AAAI 2011), in the
// variant without corner cutting described in Harabor & Grastien, "Improving Jump Point Search"
// (ICAPS 2014): a diagonal step needs both adjacent cardinal cells open, so diagonal moves have
// no forced neighbours and a straight move east from p to n forces n's north (south) neighbour
// exactly when it is open while the cell north (south) of p is blocked.
//
// It is a provider for the same search core (search.h): forEachEdge(node, parent) prunes the
// neighbours by the direction of arrival and returns, per remaining direction, the next jump
// point, at its octile distance. Every edge is a pure straight or pure diagonal run, so the
// route expands back into cells by stepping along it. Lengths equal plain A*'s on the same grid
// when every step costs 1 or sqrt 2, which is why it only runs with no links and no heights.

#include "grid_graph.h"

namespace strata::nav::detail {

class JumpPointGraph {
 public:
  JumpPointGraph(Grid& grid, NodeId goal)
      : grid_(&grid), width_(grid.width()), goal_x_(int(goal % width_)), goal_z_(int(goal / width_)) {}

  std::size_t nodeCount() const { return grid_->cellCount(); }
  double heuristic(NodeId node, NodeId goal, bool) const {
    return octile(int(node % width_) - int(goal % width_), int(node / width_) - int(goal / width_));
  }
  double straightCost(NodeId a, NodeId b) const { return heuristic(a, b, false); }
  bool lineOfSight(NodeId, NodeId) const { return false; }  // never used: no any-angle mode here

  template <class Visit>
  void forEachEdge(NodeId node, NodeId parent, Visit&& visit) const {
    const int x = int(node % width_), z = int(node / width_);
    auto go = [&](int dx, int dz) {
      int jx, jz;
      if (jump(x, z, dx, dz, jx, jz)) {
        const int steps = std::max(std::abs(jx - x), std::abs(jz - z));
        visit(grid_->key(jx, jz), (dx != 0 && dz != 0) ? steps * kSqrt2 : double(steps), MoveAction::Walk);
      }
    };
    if (parent == kNoNode) {
      for (int dz = -1; dz <= 1; ++dz)
        for (int dx = -1; dx <= 1; ++dx)
          if (dx != 0 || dz != 0) go(dx, dz);
      return;
    }
    const int dx = sign(x - int(parent % width_)), dz = sign(z - int(parent / width_));
    if (dx != 0 && dz != 0) {  // diagonal: natural neighbours only
      go(dx, 0);
      go(0, dz);
      go(dx, dz);
    } else if (dx != 0) {
      go(dx, 0);
      for (int s = -1; s <= 1; s += 2)
        if (open(x, z + s) && !open(x - dx, z + s)) go(0, s), go(dx, s);
    } else {
      go(0, dz);
      for (int s = -1; s <= 1; s += 2)
        if (open(x + s, z) && !open(x + s, z - dz)) go(s, 0), go(s, dz);
    }
  }

 private:
  static int sign(int v) { return (v > 0) - (v < 0); }
  bool open(int x, int z) const { return grid_->isWalkable(x, z); }

  // Straight jump from (x, z) along (dx, 0) or (0, dz); true with the jump point in (jx, jz).
  bool jumpStraight(int x, int z, int dx, int dz, int& jx, int& jz) const {
    for (;;) {
      x += dx, z += dz;
      if (!open(x, z)) return false;
      if (x == goal_x_ && z == goal_z_) break;
      if (dx != 0) {
        if ((open(x, z + 1) && !open(x - dx, z + 1)) || (open(x, z - 1) && !open(x - dx, z - 1))) break;
      } else {
        if ((open(x + 1, z) && !open(x + 1, z - dz)) || (open(x - 1, z) && !open(x - 1, z - dz))) break;
      }
    }
    jx = x, jz = z;
    return true;
  }

  bool jump(int x, int z, int dx, int dz, int& jx, int& jz) const {
    if (dx == 0 || dz == 0) return jumpStraight(x, z, dx, dz, jx, jz);
    int sx, sz;
    for (;;) {
      if (!open(x + dx, z) || !open(x, z + dz) || !open(x + dx, z + dz)) return false;  // no corner cutting
      x += dx, z += dz;
      if ((x == goal_x_ && z == goal_z_) || jumpStraight(x, z, dx, 0, sx, sz) || jumpStraight(x, z, 0, dz, sx, sz)) {
        jx = x, jz = z;
        return true;
      }
    }
  }

  Grid* grid_;
  std::uint32_t width_;
  int goal_x_, goal_z_;
};

}  // namespace strata::nav::detail
