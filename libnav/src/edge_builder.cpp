// Edges of the layered graph: one outgoing edge per node and direction.
//
// Rules (spec: "Search edges, costs, and waypoints"):
//  - adjacent columns connect by a walk edge when the height change is within the step height
//    and a horizontal box (the agent's radius, from the higher floor plus the standing-box
//    bottom up to the lower floor plus the agent height) swept from one column centre to the
//    other touches nothing, so a wall thinner than one column still blocks;
//  - larger rises need a jump (can_jump, within jump_height), larger falls a drop (within
//    max_drop), swept at the higher floor over the full agent height; a landing across a gap
//    (past the clearance gap) is a jump, level, higher or lower (within max_drop);
//  - a diagonal is a walk edge only when both side columns hold a node within a step of both
//    ends (no corner cutting);
//  - when the adjacent column offers no walk, a few further columns are examined along each of
//    the 8 directions: the clearance gap around a ledge (nodes near a wall have no standing
//    room; as many columns along a diagonal as along an axis, since a diagonal ray crosses a
//    ledge along an axis in as many steps) and gaps an agent can jump (jump_distance between
//    column centres, so fewer columns along a diagonal), past columns whose floors lie below the
//    take-off or over the agent's head. Along the diagonals too, so that a gap across the grid's
//    diagonal is jumped as one along an axis is (only the cardinal rays were examined before, and
//    a 1.9 m chasm at 45 degrees, 2.7 m along either axis, was not crossed with a 2.5 m jump);
//  - climb edges join floors separated by a surface labelled climbable, both ways, along the
//    axes (where a jump or drop reaches the same column too, the cheaper of the two; a jump or
//    drop on a tie);
//  - one edge per slot: where a slot holds a way down (a drop into a pit, a climb down,
//    a jump to a lower landing), the jump past it to a landing the way down does not lead to on
//    foot (the pit's far rim) is returned apart, as a second jump (secondJump);
//  - cost: (horizontal + |rise| / 2) * destination area cost + penalty; an infinite area cost
//    removes the edge.
// The sweep is skipped when the standing boxes (already known to be free) cover it exactly: a
// cardinal step with cell_size <= 2 * radius, or a diagonal whose four columns' boxes cover it.
// The diagonal walk rule is symmetric (a move and its reverse get the same side columns, the
// same [lo, hi] and, built from its lower-z end, the same band box), so the bake decides it once
// per pair before the edges (diagonalBandsFree). Sweeps are tested on
// the triangles binned near them (triangle_bins.h), with the query index's answers.

#include "edge_builder.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "triangle_bins.h"

namespace strata::nav {
namespace {

struct Candidate {
  uint32_t node = kNoNode;
  EdgeKind kind = EdgeKind::None;
  double rise = 0;
  double horizontal = 0;
};

class NodeEdges {
 public:
  NodeEdges(LayeredGraph& graph, const EdgeInputs& inputs)
      : g_(graph), in_(inputs), s_(inputs.columns->settings()), grid_(graph.grid), cs_(graph.grid.cell_size),
        ledge_cells_(ledgeCells(s_, cs_)),
        any_climbable_(s_.can_climb && inputs.climbable != nullptr),
        base_step_(s_.step_height + kHeightTolerance), base_jump_height_(s_.jump_height + kHeightTolerance),
        base_max_drop_(s_.max_drop + kHeightTolerance),
        height_reach_(std::max({s_.step_height, s_.jump_height, s_.max_drop, s_.height})), boxes_cover_cardinal_(cs_ <= 2 * s_.radius) {
    for (int d = 0; d < kDirectionCount; ++d) {
      horizontal_[d] = span(d, 1);
      reach_[d] = gapReach(s_, cs_, d);
      column_step_[d] = static_cast<std::ptrdiff_t>(kDirectionDz[d]) * grid_.width_cells + kDirectionDx[d];
      band_slot_[d] = ((kDirectionDz[d] > 0 ? d : oppositeDirection(d)) == 1) ? 0 : 1;
    }
  }

  // Horizontal distance to the column k steps out in direction d.
  double span(int d, int k) const { return cs_ * k * (isDiagonal(d) ? M_SQRT2 : 1.0); }

  double bottomOf(uint32_t n) const {
    if (in_.box_bottom != nullptr) return (*in_.box_bottom)[n];
    const sim::Vec3f& v = g_.normal[n];
    return in_.columns->standingBoxBottom({v.x, v.y, v.z});
  }

  bool touchesAnything(const sim::Aabb& box) const {
    if (in_.bins != nullptr) return !in_.bins->boxFree(LocalBoxTest(box));
    return in_.columns->index().overlapsBox(box);
  }
  bool touchesAnything(const sim::OrientedBox& box) const {
    if (in_.bins != nullptr) return !in_.bins->boxFree(LocalBoxTest(box));
    return in_.columns->index().overlapsOrientedBox(box);
  }

  // True when the box of half-width radius spanning [lo, hi] swept horizontally from (ax, az)
  // to (bx, bz) touches nothing. The swept volume is exactly the union of the start box, the end
  // box and, for a move that is not along an axis, the oriented box joining them (its corners are
  // the swept hexagon's); overlap tests on those are exact and much cheaper than a shape cast.
  // `start_free` / `end_free`: the caller knows the box at that end lies inside a free standing
  // box (walk edges: [lo, hi] is within both nodes' standing ranges; a jump or drop: the higher
  // node's), so only the rest is tested. An axis-aligned move is one box, always tested whole.
  bool sweepFree(double ax, double az, double bx, double bz, double lo, double hi, bool start_free, bool end_free) const {
    if (!(hi > lo)) return false;
    const double r = s_.radius;
    if (ax == bx || az == bz) {
      sim::Aabb hull;
      hull.min = {std::min(ax, bx) - r, lo, std::min(az, bz) - r};
      hull.max = {std::max(ax, bx) + r, hi, std::max(az, bz) + r};
      return !touchesAnything(hull);
    }
    sim::Aabb start, end;
    start.min = {ax - r, lo, az - r};
    start.max = {ax + r, hi, az + r};
    end.min = {bx - r, lo, bz - r};
    end.max = {bx + r, hi, bz + r};
    if ((!end_free && touchesAnything(end)) || (!start_free && touchesAnything(start))) return false;
    // Only 45-degree moves reach here (diagonal directions): the band between the two boxes,
    // as wide as the square's support across the move, and 1e-12 of its coordinates wider.
    // Touching counts as blocked, but the band's axes and width are rounded (1/sqrt 2): a wall
    // whose face lay exactly on the band's side was walked through at some places and not at
    // others (an audit: 14 of 36 such walls). The axis-aligned boxes above are exact.
    const double dx = bx - ax, dz = bz - az;
    const double reach = std::max({std::fabs(ax), std::fabs(az), std::fabs(bx), std::fabs(bz), std::fabs(lo), std::fabs(hi)});
    const double half_width = r * (std::fabs(dx) + std::fabs(dz)) / std::sqrt(dx * dx + dz * dz) + 1e-12 * (1 + reach);
    return !touchesAnything(segmentBox(ax, az, bx, bz, lo, hi, half_width, 0.0));
  }

  // The box over the segment from (ax, az) to (bx, bz), from lo to hi, `half_width` either side
  // of it and `extend` past either end; built from the end with the smaller z, so a move and its
  // reverse give the same box.
  static sim::OrientedBox segmentBox(double ax, double az, double bx, double bz, double lo, double hi,
                                     double half_width, double extend) {
    if (bz < az) std::swap(ax, bx), std::swap(az, bz);
    const double dx = bx - ax, dz = bz - az;
    const double length = std::sqrt(dx * dx + dz * dz);
    const sim::Vec3 along{dx / length, 0, dz / length};
    const sim::Vec3 across{-along.z, 0, along.x};
    sim::OrientedBox box;
    box.center = {(ax + bx) / 2, (lo + hi) / 2, (az + bz) / 2};
    box.half_extents = {length / 2 + extend, (hi - lo) / 2, half_width};
    box.axes = {along, sim::Vec3{0, 1, 0}, across};
    if (sim::dot(sim::cross(box.axes[0], box.axes[1]), box.axes[2]) < 0) box.axes[2] = -across;
    return box;
  }

  // True when the vertical sheet over the segment from (ax, az) to (bx, bz), from lo to hi, touches
  // nothing (a box 1 mm thick round the segment: the path of the agent's centre line).
  bool lineFree(double ax, double az, double bx, double bz, double lo, double hi) const {
    constexpr double kHalfThickness = 0.0005;
    if (ax == bx || az == bz) {
      sim::Aabb sheet;
      sheet.min = {std::min(ax, bx) - kHalfThickness, lo, std::min(az, bz) - kHalfThickness};
      sheet.max = {std::max(ax, bx) + kHalfThickness, hi, std::max(az, bz) + kHalfThickness};
      return !touchesAnything(sheet);
    }
    return !touchesAnything(segmentBox(ax, az, bx, bz, lo, hi, kHalfThickness, kHalfThickness));
  }

  // Whether climbable surfaces between the two column centres (across them, a radius either side
  // of the line) span a climb from `low` to `high`: their heights within [low, high], each
  // triangle's from its lowest corner to its highest, leave no gap wider than a step from `low`
  // up to `high` (a ladder starts within a step of the lower floor and ends within a step of the
  // higher one; rungs a step apart or closer are one ladder). A climbable patch halfway up a
  // wall made a climb up the whole wall. Only triangles that face across the move count (the
  // horizontal move direction within 60 degrees of their normal, either way): a ladder on a
  // block's west face reached by the rectangle of a move north up its south face made that face
  // climbable too.
  bool climbableBetween(double ax, double az, double bx, double bz, double low, double high) const {
    if (in_.climbable == nullptr || !(high > low)) return false;
    const double move_length = std::hypot(bx - ax, bz - az);
    const double mx = (bx - ax) / move_length, mz = (bz - az) / move_length;
    const double r = s_.radius;
    sim::Aabb box;
    box.min = {std::min(ax, bx) - (ax == bx ? r : 0), low, std::min(az, bz) - (az == bz ? r : 0)};
    box.max = {std::max(ax, bx) + (ax == bx ? r : 0), high, std::max(az, bz) + (az == bz ? r : 0)};
    std::vector<sim::OverlapHit> hits;
    in_.columns->index().overlapBox(box, hits);
    std::vector<std::pair<double, double>> spans;
    const sim::TriangleMesh& mesh = in_.columns->mesh();
    for (const sim::OverlapHit& hit : hits) {
      if (hit.triangle >= in_.climbable->size() || !(*in_.climbable)[hit.triangle]) continue;
      const sim::Vec3 p0 = mesh.vertex(hit.triangle, 0), p1 = mesh.vertex(hit.triangle, 1), p2 = mesh.vertex(hit.triangle, 2);
      const sim::Vec3 normal = sim::cross(p1 - p0, p2 - p0);
      const double across = std::fabs(normal.x * mx + normal.z * mz);
      if (!(across >= 0.5 * sim::length(normal))) continue;
      const double bottom = std::min({high, p0.y, p1.y, p2.y}), top = std::max({low, p0.y, p1.y, p2.y});
      spans.emplace_back(std::max(bottom, low), std::min(top, high));
    }
    std::sort(spans.begin(), spans.end());
    double reached = low;
    for (const auto& [bottom, top] : spans) {
      if (bottom > reached + step_) break;
      reached = std::max(reached, top);
    }
    return reached >= high - step_;
  }

  // Whether a column between (x, z) and the one k columns away in direction d holds a floor
  // within a step of height h: a climb lands on the first column at its level, never past it
  // (from that column's rim the top walks on, so a climb landing further in had no way back).
  bool landingPassed(int32_t x, int32_t z, int d, int k, double h) const {
    for (int j = 1; j < k; ++j) {
      const int32_t cx = x + kDirectionDx[d] * j, cz = z + kDirectionDz[d] * j;
      const uint32_t end = g_.columnEnd(cx, cz);
      const uint32_t m = firstFrom(g_.columnBegin(cx, cz), end, h, -step_);
      if (m < end && g_.height[m] - h <= step_) return true;
    }
    return false;
  }

  // The first node of [begin, end), a column's floors in ascending height, whose height above
  // hn is at least `delta`: a column of many floors is searched, not scanned (a stack of 2,000
  // floors 2 m apart spent 11.6 s in this stage, nearly all of it scanning every floor of the
  // adjacent column for every node).
  uint32_t firstFrom(uint32_t begin, uint32_t end, double hn, double delta) const {
    if (end - begin <= 8) {
      while (begin < end && g_.height[begin] - hn < delta) ++begin;
      return begin;
    }
    uint32_t count = end - begin;
    while (count > 0) {
      const uint32_t half = count / 2;
      if (g_.height[begin + half] - hn < delta) begin += half + 1, count -= half + 1;
      else count = half;
    }
    return begin;
  }

  // `jumps`: where second jumps go (secondJump); null: none are looked for.
  void build(uint32_t n, int32_t x, int32_t z, std::vector<OffMeshLink>* jumps) {
    const double hn = g_.height[n];
    limitsAt(hn);
    const double bn = bottomOf(n);
    const double ax = grid_.centerX(x), az = grid_.centerZ(z);

    // Columns all of whose neighbours lie in the grid take a short path for the most common
    // case, a walk edge to the only floor of the adjacent column; anything else (several
    // floors, no walk) goes through the general rules below, which give the same edge.
    const bool interior = x > 0 && z > 0 && x + 1 < grid_.width_cells && z + 1 < grid_.depth_cells;
    const uint32_t* offsets = g_.column_offsets.data();
    const std::size_t column = grid_.columnIndex(x, z);
    for (int d = 0; d < kDirectionCount; ++d) {
      const bool diagonal = isDiagonal(d);
      if (interior) {
        const std::size_t c = column + static_cast<std::size_t>(column_step_[d]);
        const uint32_t m = offsets[c];
        if (offsets[c + 1] - m == 1) {
          const double hm = g_.height[m];
          bool walk = false;
          if (std::fabs(hm - hn) <= step_) {
            if (!diagonal) {
              walk = walkCardinal(n, bn, m, ax, az, grid_.centerX(x + kDirectionDx[d]), grid_.centerZ(z + kDirectionDz[d]));
            } else if (in_.diagonal_free != nullptr) {
              // walkDiagonal's lookup with m the only node of its column: toward +z the bit of
              // node n and index 0, toward -z the bit of m and n's index in its own column.
              const bool up = kDirectionDz[d] > 0;
              const uint32_t index = up ? 0 : n - offsets[column];
              walk = index < kBandsPerDirection ? bandBit(up ? n : m, d, index) : walkDiagonal(n, m, x, z, d);
            } else {
              walk = walkDiagonal(n, m, x, z, d);
            }
          }
          if (walk) {
            write(n, d, {m, EdgeKind::Walk, hm - hn, horizontal_[d]});
            continue;
          }
        }
      }
      Candidate best;
      int best_k = 0;  // the column distance of `best`
      for (int k = 1; k <= reach_[d] && best.kind == EdgeKind::None; ++k) {
        const int32_t mx = x + kDirectionDx[d] * k, mz = z + kDirectionDz[d] * k;
        if (!grid_.contains(mx, mz)) break;
        const double bx = grid_.centerX(mx), bz = grid_.centerZ(mz);
        const double horizontal = span(d, k);
        const uint32_t begin = g_.columnBegin(mx, mz), end = g_.columnEnd(mx, mz);
        // 1. Walk (adjacent columns only): the closest height first.
        if (k == 1) {
          uint32_t order[64];
          uint32_t count = 0;
          for (uint32_t m = firstFrom(begin, end, hn, -step_); m < end && count < 64; ++m) {
            if (g_.height[m] - hn > step_) break;  // and every floor above it
            order[count++] = m;
          }
          // Insertion sort (a column holds few floors): by height change, then node index.
          for (uint32_t i = 1; i < count; ++i)
            for (uint32_t j = i; j > 0; --j) {
              const uint32_t p = order[j - 1], q = order[j];
              const double dp = std::fabs(g_.height[p] - hn), dq = std::fabs(g_.height[q] - hn);
              if (dp < dq || (dp == dq && p < q)) break;
              std::swap(order[j - 1], order[j]);
            }
          for (uint32_t i = 0; i < count && best.kind == EdgeKind::None; ++i) {
            const uint32_t m = order[i];
            const double hm = g_.height[m];
            if (diagonal ? walkDiagonal(n, m, x, z, d) : walkCardinal(n, bn, m, ax, az, bx, bz))
              best = {m, EdgeKind::Walk, hm - hn, horizontal};
          }
        }
        // 2. Climb along a climbable surface (up or down), from the foot of the surface across
        // at most the clearance gap round it (a ladder is a ledge), not across a gap; along the
        // axes only (a diagonal move would meet a ladder at its side). The agent goes up the
        // shaft at the lower end and over at the higher floor, as a jump or drop does, so the
        // same sweeps must be free (a slab over the ladder's foot blocked the jump but not the
        // climb, which then had no way back down).
        Candidate climb;
        if (any_climbable_ && !diagonal && best.kind == EdgeKind::None && k <= ledge_cells_) {
          for (uint32_t m = begin; m < end; ++m) {
            const double hm = g_.height[m];
            if (std::fabs(hm - hn) <= step_) continue;
            if (climb.kind != EdgeKind::None && std::fabs(hm - hn) >= std::fabs(climb.rise)) continue;
            const double low = std::min(hn, hm), high = std::max(hn, hm);
            if (landingPassed(x, z, d, k, hm)) continue;
            if (!climbableBetween(ax, az, bx, bz, low, high)) continue;
            if (!leapFree(ax, az, hn, bn, bx, bz, m, /*jump=*/false)) continue;
            climb = {m, EdgeKind::Climb, hm - hn, horizontal};
          }
        }
        // 3. Jump or drop: the smallest height change whose sweep at the higher floor is free.
        // Where a climb is possible too, the cheaper of the two is the edge (a jump or drop on a
        // tie): a ladder beside a ledge must not make the way down dearer for an agent that
        // can climb than for one that cannot.
        if (best.kind == EdgeKind::None) {
          Candidate found;
          // Floors lower than both the allowed drop and a step below are never landed on, nor
          // are those higher than the jump height (the rules below skip them).
          for (uint32_t m = firstFrom(begin, end, hn, std::min(-max_drop_, -step_)); m < end; ++m) {
            const double hm = g_.height[m];
            const double rise = hm - hn;
            if (rise > jump_height_) break;
            EdgeKind kind;
            if (rise > step_ || (k > 1 && rise >= -step_)) {
              // Up a ledge, or across a gap at about the same level: a jump (landing no lower
              // than max_drop, which may be below step_height).
              if (!s_.can_jump || rise > jump_height_ || -rise > max_drop_ || horizontal > s_.jump_distance + 1e-9) continue;
              kind = EdgeKind::Jump;
            } else if (rise < -step_) {
              if (-rise > max_drop_) continue;
              if (k > ledge_cells_) {
                // Past the clearance gap the columns crossed hold only floors far below (or
                // none): the landing is across a gap, reached by a jump however low it lies.
                if (!s_.can_jump || horizontal > s_.jump_distance + 1e-9) continue;
                kind = EdgeKind::Jump;
              } else {
                kind = EdgeKind::Drop;
              }
            } else {
              continue;  // within a step of an adjacent column: the walk rule decided
            }
            if (found.kind != EdgeKind::None && std::fabs(rise) >= std::fabs(found.rise)) continue;
            if (!leapFree(ax, az, hn, bn, bx, bz, m, kind == EdgeKind::Jump)) continue;
            found = {m, kind, rise, horizontal};
          }
          best = climb.kind != EdgeKind::None && costOf(climb) < costOf(found) ? climb : found;
        }
        // Look further only over columns whose floors all lie below this one (a gap, a pit, the
        // foot of a ledge) or above the agent's head (a roof or an upper storey over the gap): a
        // floor from a step below this level up to the agent's height above it that gave no
        // edge is in the way. (Anything in the way of the jump itself fails its sweep.) A roof
        // 20 m over a gap stopped the search, and an on-demand region, which leaves such
        // floors out, jumped where the bake did not.
        if (best.kind == EdgeKind::None) {
          if (floorInWay(begin, end, hn)) break;
        } else {
          best_k = k;
        }
      }
      write(n, d, best);
      // Also when the way down leads into an area never entered (its slot is left empty): the
      // jump across a lava pit is still a way.
      if (jumps != nullptr && s_.can_jump && best.kind != EdgeKind::None && best.rise < -step_)
        secondJump(n, hn, bn, x, z, d, best_k, best.node, *jumps);
    }
  }

  // Whether column [begin, end) holds a floor from a step below a take-off at hn up to the
  // agent's height above it, other than `except`: a floor a jump past the column would land on
  // or pass through, so the gap search and the second jump look no further.
  bool floorInWay(uint32_t begin, uint32_t end, double hn, uint32_t except = kNoNode) const {
    for (uint32_t m = firstFrom(begin, end, hn, -step_); m < end && g_.height[m] - hn <= s_.height; ++m)
      if (m != except) return true;
    return false;
  }

  // Whether a jump or drop from a node at height hn (standing-box bottom bn) at column centre
  // (ax, az) to node m at (bx, bz) is free: the agent's box swept at the higher floor, from its
  // standing-box bottom (the larger of the two) to the agent's height, and the shaft the agent
  // falls (or rises) through at the lower end, from the top of that node's standing box up to
  // where the sweep begins (non-empty for height changes above about height - step_height: a
  // beam over the landing of a 1.9 m drop was passed through). The box at the higher end lies
  // within that node's standing box, which is free (a diagonal leap tests only the other end and
  // the band between). A jump (`jump`; n is the take-off) lifts the feet no higher than hn +
  // jump_height: where that is below the sweep's bottom, the line between the two column centres
  // must also be free from there up, so a lip or wall on the rim, in the step band over the
  // higher floor the sweep leaves out, that stands higher than the jump is in the way (a walk
  // steps over it, and so does a drop, which walks off the ledge). Only the line: the landing's
  // own step band holds the floor it is landed on (a slope rising away, the next stair).
  bool leapFree(double ax, double az, double hn, double bn, double bx, double bz, uint32_t m, bool jump) const {
    const double hm = g_.height[m];
    const double top = std::max(hn, hm);
    const double bottom = top + std::max(bn, bottomOf(m));
    if (!sweepFree(ax, az, bx, bz, bottom, top + s_.height, hn >= hm, hm >= hn)) return false;
    if (jump && hn + jump_height_ < bottom && !lineFree(ax, az, bx, bz, hn + jump_height_, bottom)) return false;
    const double shaft = std::min(hn, hm) + s_.height;
    if (!(bottom > shaft)) return true;
    const double lx = hn < hm ? ax : bx, lz = hn < hm ? az : bz, r = s_.radius;
    sim::Aabb box;
    box.min = {lx - r, shaft, lz - r};
    box.max = {lx + r, bottom, lz + r};
    return !touchesAnything(box);
  }

  // The order of a second jump's landings (smaller first): a landing from a step below the
  // take-off up (the far rim, where the search stops) before one lower (inside the pit: a ledge
  // there may be a dead end), then the cheaper area (over a dear strip at a ledge's foot, the
  // ground past it), then the smaller height change.
  std::tuple<bool, double, double> landingRank(double rise, uint32_t m) const {
    return {rise < -step_, g_.area_costs[g_.area[m]], std::fabs(rise)};
  }

  // The slot of node n in direction d holds a way down (a drop, a climb or a jump to a
  // lower landing) to node `way`, `way_k` columns out. The gap search never looks past it, so
  // the far rim of a pit deeper than the jump height but within max_drop was cut off from this
  // rim. Past the way down, along the same ray, with the gap search's rules (within the jump
  // distance, height and max_drop, a lower landing only past the clearance gap, a free sweep at
  // the higher floor over the agent's height, stopped by a column holding a floor from a step
  // below the take-off to the agent's height above it), the landing first by landingRank (the far
  // rim, else the smallest height change; the nearer column on a tie) is appended to `jumps` as a
  // second jump, unless the way down already leads there on foot: the floors reached from its landing
  // by a run of floors each within a step of the last along the ray (level ground, or ground
  // rising or falling away below a ledge) are left out, and, being ground under the jump rather
  // than in its way, do not end the scan either (the sweep meets whatever is in the way). A floor
  // of the run counts as walked to only when no floor before it on the run (the landing first)
  // lies in a dearer area: past a strip of lava (never entered) or mud at a ledge's foot the
  // ground is a landing (an audit: with the strip's area at inf the platform was cut off, at
  // 1000 the route walked it, where over a hole of the same width the agent jumped). Landings
  // never entered are none.
  void secondJump(uint32_t n, double hn, double bn, int32_t x, int32_t z, int d, int way_k, uint32_t way,
                  std::vector<OffMeshLink>& jumps) const {
    const double ax = grid_.centerX(x), az = grid_.centerZ(z);
    {
      // The way down's own column may hold a floor in the way too (one it gave no edge to).
      const int32_t wx = x + kDirectionDx[d] * way_k, wz = z + kDirectionDz[d] * way_k;
      if (floorInWay(g_.columnBegin(wx, wz), g_.columnEnd(wx, wz), hn)) return;
    }
    double walked = g_.height[way];  // the floor reached on foot from the way down's landing, along the ray
    // The dearest area cost on that run so far (the way down's landing first).
    double run_cost = g_.area_costs[g_.area[way]];
    bool on_foot = true;
    Candidate found;
    for (int k = way_k + 1; k <= reach_[d]; ++k) {
      const int32_t mx = x + kDirectionDx[d] * k, mz = z + kDirectionDz[d] * k;
      if (!grid_.contains(mx, mz)) break;
      const double horizontal = span(d, k);
      if (horizontal > s_.jump_distance + 1e-9) break;
      const uint32_t begin = g_.columnBegin(mx, mz), end = g_.columnEnd(mx, mz);
      // The floor of this column within a step of the one walked to before (the closest).
      uint32_t walked_to = kNoNode;
      bool reached = false;  // walked_to is reached on foot (not a landing)
      if (on_foot) {
        for (uint32_t m = firstFrom(begin, end, walked, -step_); m < end && g_.height[m] - walked <= step_; ++m)
          if (walked_to == kNoNode || std::fabs(g_.height[m] - walked) < std::fabs(g_.height[walked_to] - walked))
            walked_to = m;
        if (walked_to == kNoNode) {
          on_foot = false;
        } else {
          walked = g_.height[walked_to];
          const double here = g_.area_costs[g_.area[walked_to]];
          run_cost = std::max(run_cost, here);
          reached = !(run_cost > here);  // on foot through nothing dearer than itself
        }
      }
      const double bx = grid_.centerX(mx), bz = grid_.centerZ(mz);
      for (uint32_t m = firstFrom(begin, end, hn, std::min(-max_drop_, -step_)); m < end; ++m) {
        const double hm = g_.height[m];
        const double rise = hm - hn;
        if (rise > jump_height_) break;
        if (m == walked_to && reached) continue;  // reached on foot from the way down
        if (-rise > max_drop_ || (rise < -step_ && k <= ledge_cells_)) continue;  // too low, or a drop, not a jump
        if (!std::isfinite(g_.area_costs[g_.area[m]])) continue;  // never entered
        if (found.kind != EdgeKind::None && !(landingRank(rise, m) < landingRank(found.rise, found.node))) continue;
        if (!leapFree(ax, az, hn, bn, bx, bz, m, /*jump=*/true)) continue;
        found = {m, EdgeKind::Jump, rise, horizontal};
      }
      // A floor in the way, other than the ground walked to: nothing past it.
      if (floorInWay(begin, end, hn, walked_to)) break;
    }
    if (found.kind == EdgeKind::None) return;
    const double cost = costOf(found);
    if (std::isfinite(cost))
      jumps.push_back({n, found.node, static_cast<float>(cost), kNoLinkLabel, kNoLinkLabel, false, EdgeKind::Jump});
  }

  // Writes node n's slot for direction d: `best`, or no edge when there is none or its
  // destination's area cost is infinite. Every slot is written, edge or none: the bake leaves the
  // edge arrays unset before this pass (NodeArray).
  void write(uint32_t n, int d, const Candidate& best) {
    const std::size_t slot = static_cast<std::size_t>(n) * kDirectionCount + d;
    const double cost = costOf(best);
    if (!std::isfinite(cost)) {
      g_.neighbor[slot] = kNoNode;
      g_.edge_kind[slot] = static_cast<uint8_t>(EdgeKind::None);
      g_.edge_cost[slot] = 0.0f;
      return;
    }
    g_.neighbor[slot] = best.node;
    g_.edge_kind[slot] = static_cast<uint8_t>(best.kind);
    g_.edge_cost[slot] = static_cast<float>(cost);
  }

  // The cost `best` is written with: +infinity for no edge or an unenterable destination (an
  // edge's horizontal span is never 0, so an infinite area cost gives an infinite cost).
  double costOf(const Candidate& best) const {
    if (best.kind == EdgeKind::None) return std::numeric_limits<double>::infinity();
    return edgeCost(s_, best.kind, best.horizontal, best.rise, g_.area_costs[g_.area[best.node]]);
  }

  // `bn`: bottomOf(n).
  bool walkCardinal(uint32_t n, double bn, uint32_t m, double ax, double az, double bx, double bz) const {
    const double hn = g_.height[n], hm = g_.height[m];
    const double lo = std::max(hn, hm) + std::max(bn, bottomOf(m));
    const double hi = std::min(hn, hm) + s_.height;
    if (!(hi > lo)) return disjointWalkFree(ax, az, bx, bz, hn, bn, hm, bottomOf(m));
    // Covered by the two free standing boxes (see the file comment)?
    if (boxes_cover_cardinal_) return true;
    return sweepFree(ax, az, bx, bz, lo, hi, /*start_free=*/true, /*end_free=*/true);
  }

  enum class Band { Blocked, Free, NeedsSweep, Disjoint };

  // A walk whose two standing ranges share no height: a rise of at least the agent's height less
  // its standing box's bottom, which an agent whose step is about half its height meets within a
  // step (a 0.9 m step of a 1.8 m agent had no edge at all, so the floors were cut apart; a
  // hunt). No height is common to every way of making the move, so it is free when the agent
  // can cross at either end's level: the box of either node's standing range, swept between the
  // column centres, touches nothing (a thin wall between the columns still blocks). Symmetric in
  // the two ends.
  bool disjointWalkFree(double ax, double az, double bx, double bz, double hn, double bn, double hm, double bm) const {
    return sweepFree(ax, az, bx, bz, hn + bn, hn + s_.height, /*start_free=*/false, /*end_free=*/false) ||
           sweepFree(ax, az, bx, bz, hm + bm, hm + s_.height, /*start_free=*/false, /*end_free=*/false);
  }

  // The diagonal walk rule up to its sweep: both side columns need a node within a step of both
  // ends; the band needs no sweep when the side nodes' free standing boxes cover [lo, hi].
  // Symmetric in n and m (a move and its reverse get the same answer, lo and hi).
  Band diagonalCheck(uint32_t n, uint32_t m, int32_t x, int32_t z, int d, double& lo, double& hi) const {
    return diagonalCheck(g_.height[n], bottomOf(n), m, x, z, d, lo, hi);
  }
  // The same with n's height and standing-box bottom given.
  Band diagonalCheck(double hn, double bn, uint32_t m, int32_t x, int32_t z, int d, double& lo, double& hi) const {
    const double hm = g_.height[m];
    lo = std::max(hn, hm) + std::max(bn, bottomOf(m));
    hi = std::min(hn, hm) + s_.height;
    const bool disjoint = !(hi > lo);  // decided by disjointWalkFree once the sides allow the move
    bool covered = boxes_cover_cardinal_;  // the four columns' squares leave no gap (cell_size <= 2 * radius)
    const std::size_t sides[2] = {grid_.columnIndex(x + kDirectionDx[d], z), grid_.columnIndex(x, z + kDirectionDz[d])};
    const uint32_t* offsets = g_.column_offsets.data();
    for (const std::size_t side : sides) {
      bool ok = false;
      // The first floor within a step of both ends, in ascending height: floors more than a step
      // below n are skipped by a binary search and the scan stops past a step above it, so a
      // column of hundreds of storeys is not scanned whole for every node beside it.
      const uint32_t side_end = offsets[side + 1];
      for (uint32_t s = firstFrom(offsets[side], side_end, hn, -step_); s < side_end && !ok; ++s) {
        const double hs = g_.height[s];
        if (hs - hn > step_) break;  // and every floor above it
        if (std::fabs(hs - hm) > step_) continue;
        ok = true;
        if (lo < hs + bottomOf(s) || hi > hs + s_.height) covered = false;
      }
      if (!ok) return Band::Blocked;
    }
    if (disjoint) return Band::Disjoint;
    return covered ? Band::Free : Band::NeedsSweep;
  }

  bool walkDiagonal(uint32_t n, uint32_t m, int32_t x, int32_t z, int d) const {
    const int32_t mx = x + kDirectionDx[d], mz = z + kDirectionDz[d];
    if (in_.diagonal_free != nullptr) {
      // Decided once per pair, from the lower row (diagonalBandsFree; the rule is symmetric).
      const bool up = kDirectionDz[d] > 0;
      const uint32_t lower = up ? n : m, upper = up ? m : n;
      const uint32_t index = upper - (up ? g_.columnBegin(mx, mz) : g_.columnBegin(x, z));
      if (index < kBandsPerDirection) return bandBit(lower, d, index);
    }
    double lo, hi;
    const Band band = diagonalCheck(n, m, x, z, d, lo, hi);
    if (band == Band::Disjoint)
      return disjointWalkFree(grid_.centerX(x), grid_.centerZ(z), grid_.centerX(mx), grid_.centerZ(mz), g_.height[n],
                              bottomOf(n), g_.height[m], bottomOf(m));
    if (band != Band::NeedsSweep) return band == Band::Free;
    return sweepFree(grid_.centerX(x), grid_.centerZ(z), grid_.centerX(mx), grid_.centerZ(mz), lo, hi,
                     /*start_free=*/true, /*end_free=*/true);
  }

  // The bit of diagonalBandsFree for a move in diagonal direction d between `lower` (the end in
  // the lower row) and the `index`-th node of the column diagonally ahead of it.
  bool bandBit(uint32_t lower, int d, uint32_t index) const {
    return (((*in_.diagonal_free)[lower] >> (band_slot_[d] * kBandsPerDirection + index)) & 1u) != 0;
  }

  // Bits of diagonalBandsFree for node n at column (x, z).
  uint16_t bandsFrom(uint32_t n, int32_t x, int32_t z) const {
    uint16_t bits = 0;
    const double hn = g_.height[n], bn = bottomOf(n);
    limitsAt(hn);
    const double step = step_;
    const uint32_t* offsets = g_.column_offsets.data();
    const std::size_t column = grid_.columnIndex(x, z);
    for (int slot = 0; slot < 2; ++slot) {
      const int d = slot == 0 ? 1 : 3;  // the two diagonals toward +z
      const int32_t mx = x + kDirectionDx[d], mz = z + kDirectionDz[d];
      if (!grid_.contains(mx, mz)) continue;
      const std::size_t ahead = column + static_cast<std::size_t>(column_step_[d]);
      const std::size_t side_x = column + static_cast<std::size_t>(kDirectionDx[d]);
      const std::size_t side_z = column + static_cast<std::size_t>(column_step_[d] - kDirectionDx[d]);
      const uint32_t begin = offsets[ahead];
      if (offsets[ahead + 1] - begin == 1 && offsets[side_x + 1] - offsets[side_x] == 1 &&
          offsets[side_z + 1] - offsets[side_z] == 1) {
        // The commonest case, one floor in each of the three columns: diagonalCheck's rule with
        // its loops unrolled (the same expressions, so the same bit).
        const double hm = g_.height[begin];
        if (std::fabs(hm - hn) > step) continue;
        const double lo = std::max(hn, hm) + std::max(bn, bottomOf(begin));
        const double hi = std::min(hn, hm) + s_.height;
        if (!(hi > lo)) {  // rare: decided as walkDiagonal decides it
          double unused_lo, unused_hi;
          if (diagonalCheck(hn, bn, begin, x, z, d, unused_lo, unused_hi) == Band::Disjoint &&
              disjointWalkFree(grid_.centerX(x), grid_.centerZ(z), grid_.centerX(mx), grid_.centerZ(mz), hn, bn, hm,
                               bottomOf(begin)))
            bits = static_cast<uint16_t>(bits | 1u << (slot * kBandsPerDirection));
          continue;
        }
        bool covered = boxes_cover_cardinal_, blocked = false;
        for (const uint32_t s : {offsets[side_x], offsets[side_z]}) {
          const double hs = g_.height[s];
          if (std::fabs(hs - hn) > step || std::fabs(hs - hm) > step) {
            blocked = true;
            break;
          }
          if (lo < hs + bottomOf(s) || hi > hs + s_.height) covered = false;
        }
        if (blocked) continue;
        if (covered || sweepFree(grid_.centerX(x), grid_.centerZ(z), grid_.centerX(mx), grid_.centerZ(mz), lo, hi,
                                 /*start_free=*/true, /*end_free=*/true))
          bits = static_cast<uint16_t>(bits | 1u << (slot * kBandsPerDirection));
        continue;
      }
      const uint32_t end = std::min(g_.columnEnd(mx, mz), begin + kBandsPerDirection);
      for (uint32_t m = begin; m < end; ++m) {
        if (std::fabs(g_.height[m] - hn) > step) continue;  // never a walk candidate
        double lo, hi;
        const Band band = diagonalCheck(hn, bn, m, x, z, d, lo, hi);
        if (band == Band::Blocked) continue;
        if (band == Band::Disjoint) {
          if (disjointWalkFree(grid_.centerX(x), grid_.centerZ(z), grid_.centerX(mx), grid_.centerZ(mz), hn, bn,
                               g_.height[m], bottomOf(m)))
            bits = static_cast<uint16_t>(bits | 1u << (slot * kBandsPerDirection + (m - begin)));
          continue;
        }
        if (band == Band::Free || sweepFree(grid_.centerX(x), grid_.centerZ(z), grid_.centerX(mx), grid_.centerZ(mz),
                                            lo, hi, /*start_free=*/true, /*end_free=*/true))
          bits = static_cast<uint16_t>(bits | 1u << (slot * kBandsPerDirection + (m - begin)));
      }
    }
    return bits;
  }

 private:
  LayeredGraph& g_;
  const EdgeInputs& in_;
  const AgentSettings& s_;  // limits compared with kHeightTolerance slack
  const GridFrame& grid_;
  // Per bake, from the settings (the same expressions for every node).
  const double cs_;
  const int ledge_cells_;   // columns examined past a ledge (the clearance gap)
  const bool any_climbable_;
  // The step, jump and drop limits with kHeightTolerance, and for the node at hand (limitsAt)
  // float32's spacing at the heights compared: the difference of two stored heights can be off
  // the surfaces' by that much (an audit: a ramp rising 0.395 m a column 300 km up stored rises of
  // 0.406 m and baked jumps for walks). Per node, not for the mesh's largest height: a triangle
  // 900 km up loosened the limits at the origin (the re-audit).
  const double base_step_, base_jump_height_, base_max_drop_;
  const double height_reach_;  // how far from the node's height the other height of a comparison lies, at most
  mutable double step_ = 0, jump_height_ = 0, max_drop_ = 0;
  void limitsAt(double hn) const {
    const double spacing = float32Spacing(std::fabs(hn) + height_reach_);
    step_ = base_step_ + spacing;
    jump_height_ = base_jump_height_ + spacing;
    max_drop_ = base_max_drop_ + spacing;
  }
  const bool boxes_cover_cardinal_;  // cell_size <= 2 * radius: cardinal sweeps covered by the end boxes
  double horizontal_[kDirectionCount];  // length of a step to the adjacent column (span(d, 1))
  int reach_[kDirectionCount];          // columns examined along direction d (the clearance gap, or a jump's reach)
  std::ptrdiff_t column_step_[kDirectionCount];  // column index offset of the adjacent column
  int band_slot_[kDirectionCount];  // diagonals: walkDiagonal's slot of diagonalBandsFree
};

}  // namespace

NodeArray<uint16_t> diagonalBandsFree(LayeredGraph& graph, const EdgeInputs& inputs) {
  NodeArray<uint16_t> bits;  // every node's entry is written below
  bits.resize(graph.nodeCount());
  const GridFrame& grid = graph.grid;
  tbb::parallel_for(tbb::blocked_range<int32_t>(0, grid.depth_cells), [&](const tbb::blocked_range<int32_t>& r) {
    const NodeEdges edges(graph, inputs);
    for (int32_t z = r.begin(); z != r.end(); ++z)
      for (int32_t x = 0; x < grid.width_cells; ++x)
        for (uint32_t n = graph.columnBegin(x, z); n < graph.columnEnd(x, z); ++n) bits[n] = edges.bandsFrom(n, x, z);
  });
  return bits;
}

void buildNodeEdges(LayeredGraph& graph, const EdgeInputs& inputs, uint32_t node, int32_t x, int32_t z,
                    std::vector<OffMeshLink>* jumps) {
  NodeEdges(graph, inputs).build(node, x, z, jumps);
}

void buildRowEdges(LayeredGraph& graph, const EdgeInputs& inputs, int32_t z, std::vector<OffMeshLink>* jumps) {
  NodeEdges edges(graph, inputs);
  for (int32_t x = 0; x < graph.grid.width_cells; ++x)
    for (uint32_t n = graph.columnBegin(x, z); n < graph.columnEnd(x, z); ++n) edges.build(n, x, z, jumps);
}

}  // namespace strata::nav
