#pragma once
// Internal: the columns a straight segment between two column centres passes through, one step
// at a time — the column walk shared by the line tests (LayeredSearchGraph::walkLine, sightLine)
// and the corridor method's costed walk.
//
// The segment from (0, 0) to (dx, dz), in columns, leaves the current column across the next X
// boundary at t = (ix + 0.5) / |dx| or the next Z boundary at t = (iz + 0.5) / |dz|; whichever
// comes first is the step (compared cross-multiplied, in integers), both at once when the
// segment passes exactly through a column corner: a diagonal step.

#include <algorithm>
#include <cstdint>
#include <cstdlib>

namespace strata::nav {

class ColumnLine {
 public:
  ColumnLine(int64_t dx, int64_t dz)
      : nx_(std::abs(dx)), nz_(std::abs(dz)), sx_(dx > 0 ? 1 : -1), sz_(dz > 0 ? 1 : -1) {}

  /// True when the walk has reached the end column.
  bool done() const { return ix_ == nx_ && iz_ == nz_; }

  /// Advances one column (not when done()); returns the step's direction index (kDirectionDx /
  /// kDirectionDz of it are stepX() / stepZ()).
  int step() {
    const int64_t decision = (1 + 2 * ix_) * nz_ - (1 + 2 * iz_) * nx_;
    step_x_ = 0, step_z_ = 0;
    if (decision == 0) step_x_ = sx_, step_z_ = sz_, ++ix_, ++iz_;
    else if (decision < 0) step_x_ = sx_, ++ix_;
    else step_z_ = sz_, ++iz_;
    // Direction index by (step_z + 1) * 3 + step_x + 1 (see kDirectionDx).
    static constexpr int kDirectionOfStep[9] = {5, 6, 7, 4, 0, 0, 3, 2, 1};
    return kDirectionOfStep[(step_z_ + 1) * 3 + step_x_ + 1];
  }

  /// Calls visit(direction) for each diagonal direction from the current column's centre into
  /// whose quadrant of the column the segment passes (open quadrants: a segment along the
  /// centre's row or column enters none); false as soon as visit returns false. The part of the
  /// segment in that quadrant lies in the square between the centre and the three column centres
  /// in that direction, which the agent crosses safely only when the diagonal walk edge there
  /// exists (its four columns' standing boxes are free, and with cell_size <= 2 * radius they
  /// cover every box centred in that square). Exact: the times along the segment at which it
  /// crosses the column's sides and centre lines are compared in integers.
  template <class Visit>
  bool forEachQuadrant(Visit&& visit) const {
    if (nx_ == 0 || nz_ == 0) return true;
    // Times scaled by 2 * nx * nz: the centre lines at Tu, Tw; the column's sides at (2i -/+ 1) nz
    // and (2j -/+ 1) nx, clipped to the segment [0, 2 nx nz].
    const int64_t tu = 2 * ix_ * nz_, tw = 2 * iz_ * nx_;
    const int64_t tin = std::max<int64_t>({(2 * ix_ - 1) * nz_, (2 * iz_ - 1) * nx_, 0});
    const int64_t tout = std::min<int64_t>({(2 * ix_ + 1) * nz_, (2 * iz_ + 1) * nx_, 2 * nx_ * nz_});
    // Direction index by (dz + 1) * 3 + dx + 1 (see kDirectionDx).
    static constexpr int kDirectionOfStep[9] = {5, 6, 7, 4, 0, 0, 3, 2, 1};
    auto direction = [&](int qx, int qz) { return kDirectionOfStep[(qz * sz_ + 1) * 3 + qx * sx_ + 1]; };
    if (tin < std::min(tu, tw) && !visit(direction(-1, -1))) return false;
    if (std::max(tin, tu) < std::min(tout, tw) && !visit(direction(1, -1))) return false;
    if (std::max(tin, tw) < std::min(tout, tu) && !visit(direction(-1, 1))) return false;
    if (tout > std::max(tu, tw) && !visit(direction(1, 1))) return false;
    return true;
  }

  /// The last step's column offsets: -1, 0 or 1.
  int stepX() const { return step_x_; }
  int stepZ() const { return step_z_; }

  /// The parameter t in [0, 1] along the segment where the last step left its column (across an
  /// X boundary whenever the step moved along X, diagonal steps included).
  double crossing() const {
    return step_x_ != 0 ? double(2 * ix_ - 1) / double(2 * nx_) : double(2 * iz_ - 1) / double(2 * nz_);
  }

 private:
  int64_t nx_, nz_;
  int sx_, sz_;
  int64_t ix_ = 0, iz_ = 0;
  int step_x_ = 0, step_z_ = 0;
};

}  // namespace strata::nav
