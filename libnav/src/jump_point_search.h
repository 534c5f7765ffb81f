#pragma once
// Jump point search (internal): the AStar fast path on uniform-cost grids.
//
// Harabor & Grastien, "Online Graph Pruning for Pathfinding on Grid Maps" (AAAI 2011), in the
// variant without corner cutting and with the block-based (word-at-a-time) straight scans of
// Harabor & Grastien, "Improving Jump Point Search" (ICAPS 2014):
//  - A diagonal step needs both adjacent cardinal cells open, so diagonal moves have no forced
//    neighbours, and a straight move east from p to n forces n's north (south) neighbour (and
//    the diagonal beyond it) exactly when that neighbour is open while the cell north (south)
//    of p is blocked.
//  - A straight jump reads 64 cells of its line's stop bits at once (blocked cells and forced
//    neighbours, precomputed with the grid's bitmap): the first blocked cell, forced neighbour
//    or goal is found with one count-trailing-zeros.
//  - A diagonal jump steps one cell at a time and stops where a straight jump from it finds
//    something.
//
// It is a provider for the same search core (search.h): forEachEdge(node, from) prunes the
// neighbours by the direction of arrival and visits, per remaining direction, the next jump
// point at its octile distance. Every edge is a pure straight or pure diagonal run. Lengths
// equal plain A*'s when every step costs 1 or sqrt 2, so it only runs on fully rasterized grids
// without links, heights or areas. In any-angle mode it gives Theta* over the jump points.

#include <bit>

#include "grid_graph.h"

namespace strata::nav::detail {

class JumpPointGraph {
 public:
  /// `prune_intermediate`: A* only (not any-angle, whose shortcuts need every jump point queued).
  JumpPointGraph(Grid& grid, const GridBitmap& bitmap, NodeId goal, bool prune_intermediate)
      : grid_(&grid), bits_(&bitmap), width_(grid.width()), depth_(grid.depth()), goal_(goal),
        goal_x_(int(goal % width_)), goal_z_(int(goal / width_)), prune_(prune_intermediate) {}

  std::size_t nodeCount() const { return grid_->cellCount(); }
  double heuristic(NodeId node, NodeId goal, bool any_angle) const {
    const std::uint32_t z = node / width_;
    const int gx = goal == goal_ ? goal_x_ : int(goal % width_), gz = goal == goal_ ? goal_z_ : int(goal / width_);
    const int dx = int(node - z * width_) - gx, dz = int(z) - gz;
    return any_angle ? std::sqrt(double(dx) * dx + double(dz) * dz) : octile(dx, dz);
  }
  double straightCost(NodeId a, NodeId b) const {
    const int dx = int(a % width_) - int(b % width_), dz = int(a / width_) - int(b / width_);
    return std::sqrt(double(dx) * dx + double(dz) * dz);
  }
  bool lineOfSight(NodeId a, NodeId b) const {
    return grid_->lineOfSight(int(a % width_), int(a / width_), int(b % width_), int(b / width_));
  }

  template <class Visit>
  void forEachEdge(NodeId node, NodeId from, Visit&& visit) const {
    const int z = int(node / width_), x = int(node - NodeId(z) * width_);
    auto go = [&](int dx, int dz) {
      int jx, jz;
      if (jump(x, z, dx, dz, jx, jz)) {
        const int steps = std::max(std::abs(jx - x), std::abs(jz - z));
        visit(NodeId(jz) * width_ + NodeId(jx), (dx != 0 && dz != 0) ? steps * kSqrt2 : double(steps), MoveAction::Walk);
      }
    };
    // A diagonal run with intermediate pruning: every cell J where the run would stop (a straight
    // jump from J finds something) is not queued; its straight successors are offered through it
    // and the run goes on, which is what expanding J would have done next.
    auto diagonal = [&](int dx, int dz) {
      if (!prune_) return go(dx, dz);
      for (int cx = x, cz = z, steps = 1;; ++steps) {
        if (!open(cx + dx, cz) || !open(cx, cz + dz) || !open(cx + dx, cz + dz)) return;  // no corner cutting
        cx += dx, cz += dz;
        const NodeId middle = NodeId(cz) * width_ + NodeId(cx);
        if (cx == goal_x_ && cz == goal_z_) return visit(middle, steps * kSqrt2, MoveAction::Walk);
        int sx, sz;
        if (jumpStraight(cx, cz, dx, 0, sx, sz)) visit.through(middle, steps * kSqrt2, NodeId(sz) * width_ + NodeId(sx), double(std::abs(sx - cx)));
        if (jumpStraight(cx, cz, 0, dz, sx, sz)) visit.through(middle, steps * kSqrt2, NodeId(sz) * width_ + NodeId(sx), double(std::abs(sz - cz)));
      }
    };
    if (from == kNoNode) {
      for (int dz = -1; dz <= 1; ++dz)
        for (int dx = -1; dx <= 1; ++dx)
          if (dx != 0 && dz != 0) diagonal(dx, dz);
          else if (dx != 0 || dz != 0) go(dx, dz);
      return;
    }
    const int dx = sign(x - int(from % width_)), dz = sign(z - int(from / width_));
    if (dx != 0 && dz != 0) {  // diagonal: natural neighbours only
      go(dx, 0);
      go(0, dz);
      diagonal(dx, dz);
    } else if (dx != 0) {
      go(dx, 0);
      for (int s = -1; s <= 1; s += 2)
        if (open(x, z + s) && !open(x - dx, z + s)) go(0, s), diagonal(dx, s);
    } else {
      go(0, dz);
      for (int s = -1; s <= 1; s += 2)
        if (open(x + s, z) && !open(x + s, z - dz)) go(s, 0), diagonal(s, dz);
    }
  }

 private:
  static constexpr int kPad = GridBitmap::kPad;
  static int sign(int v) { return (v > 0) - (v < 0); }

  // Walkability of any cell within one cell of the grid (the padding reads as blocked).
  bool open(int x, int z) const {
    const std::size_t bit = std::size_t(kPad + x);
    return (bits_->rows[std::size_t(z + 1) * bits_->line_words_x + (bit >> 6)] >> (bit & 63)) & 1;
  }

  // 64 cells of a padded line starting at bit p.
  static std::uint64_t window(const std::uint64_t* line, int p) {
    const int word = p >> 6, offset = p & 63;
    std::uint64_t v = line[word] >> offset;
    if (offset != 0) v |= line[word + 1] << (64 - offset);
    return v;
  }

  // Scans a line forward from bit `from` (exclusive) for the first cell that is blocked (-1),
  // the goal, or has a forced neighbour: the line's stop bits (GridBitmap) with the goal's bit,
  // 64 cells at a time; `mid` tells a blocked stop from the others.
  static int scan(const std::uint64_t* mid, const std::uint64_t* stop_bits, int from, int goal) {
    for (int p = from + 1;; p += 64) {
      std::uint64_t stops = window(stop_bits, p);
      if (goal >= p && goal < p + 64) stops |= std::uint64_t{1} << (goal - p);
      if (stops != 0) {
        const int q = p + std::countr_zero(stops);
        return ((mid[q >> 6] >> (q & 63)) & 1) ? q : -1;
      }
    }
  }

  bool jumpStraight(int x, int z, int dx, int dz, int& jx, int& jz) const {
    const GridBitmap& b = *bits_;
    if (dx != 0) {
      const std::uint64_t* table = dx > 0 ? b.rows.data() : b.rows_reversed.data();
      const std::uint64_t* stops = dx > 0 ? b.rows_stops.data() : b.rows_reversed_stops.data();
      const std::size_t line = std::size_t(z + 1) * std::size_t(b.line_words_x);
      const int along = dx > 0 ? x : width_ - 1 - x;
      const int goal = goal_z_ == z ? kPad + (dx > 0 ? goal_x_ : width_ - 1 - goal_x_) : -1;
      const int p = scan(table + line, stops + line, kPad + along, goal);
      if (p < 0) return false;
      jx = dx > 0 ? p - kPad : width_ - 1 - (p - kPad);
      jz = z;
      return true;
    }
    const std::uint64_t* table = dz > 0 ? b.columns.data() : b.columns_reversed.data();
    const std::uint64_t* stops = dz > 0 ? b.columns_stops.data() : b.columns_reversed_stops.data();
    const std::size_t line = std::size_t(x + 1) * std::size_t(b.line_words_z);
    const int along = dz > 0 ? z : depth_ - 1 - z;
    const int goal = goal_x_ == x ? kPad + (dz > 0 ? goal_z_ : depth_ - 1 - goal_z_) : -1;
    const int p = scan(table + line, stops + line, kPad + along, goal);
    if (p < 0) return false;
    jx = x;
    jz = dz > 0 ? p - kPad : depth_ - 1 - (p - kPad);
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
  const GridBitmap* bits_;
  std::uint32_t width_;
  int depth_;
  NodeId goal_;
  int goal_x_, goal_z_;
  bool prune_;
};

}  // namespace strata::nav::detail
