#pragma once
// Internal: the columns a straight segment between two column centres passes through, one step
// at a time — the column walk shared by the line tests (LayeredSearchGraph::walkLine, sightLine)
// and the corridor method's costed walk.
//
// The segment from (0, 0) to (dx, dz), in columns, leaves the current column across the next X
// boundary at t = (ix + 0.5) / |dx| or the next Z boundary at t = (iz + 0.5) / |dz|; whichever
// comes first is the step (compared cross-multiplied, in integers), both at once when the
// segment passes exactly through a column corner: a diagonal step.

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
