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
  /// The bits of the diagonal directions (1, 3, 5, 7; see kDirectionDx): the only ones
  /// quadrantMask() sets.
  static constexpr unsigned kDiagonalBits = 0xAAu;

  ColumnLine(int64_t dx, int64_t dz)
      : nx_(std::abs(dx)), nz_(std::abs(dz)), sx_(dx > 0 ? 1 : -1), sz_(dz > 0 ? 1 : -1) {
    // The mirrored quadrants (-,-), (+,-), (-,+), (+,+) as direction bits of this segment.
    const int qx[4] = {-1, 1, -1, 1}, qz[4] = {-1, -1, 1, 1};
    for (int q = 0; q < 4; ++q) quadrant_bit_[q] = 1u << kDirectionOfStep[(qz[q] * sz_ + 1) * 3 + qx[q] * sx_ + 1];
  }

  /// True when the walk has reached the end column.
  bool done() const { return ix_ == nx_ && iz_ == nz_; }

  /// Advances one column (not when done()); returns the step's direction index (kDirectionDx /
  /// kDirectionDz of it are stepX() / stepZ()).
  int step() {
    // (1 + 2 ix) nz - (1 + 2 iz) nx, from the scaled centre-line times kept up to date.
    const int64_t decision = tu_ + nz_ - tw_ - nx_;
    step_x_ = 0, step_z_ = 0;
    if (decision == 0) step_x_ = sx_, step_z_ = sz_, ++ix_, ++iz_, tu_ += 2 * nz_, tw_ += 2 * nx_;
    else if (decision < 0) step_x_ = sx_, ++ix_, tu_ += 2 * nz_;
    else step_z_ = sz_, ++iz_, tw_ += 2 * nx_;
    return kDirectionOfStep[(step_z_ + 1) * 3 + step_x_ + 1];
  }

  /// The diagonal directions from the current column's centre into whose quadrant of the column
  /// the segment passes (open quadrants: a segment along the centre's row or column enters none),
  /// as a mask with bit d for direction d (kDirectionDx). The part of the segment in such a
  /// quadrant lies in the square between the centre and the three column centres in that
  /// direction, which the agent crosses safely only when the diagonal walk edge there exists (its
  /// four columns' standing boxes are free, and with cell_size <= 2 * radius they cover every box
  /// centred in that square). Exact: the times along the segment at which it crosses the
  /// column's sides and centre lines are compared in integers; branch-free.
  unsigned quadrantMask() const {
    if (nx_ == 0 || nz_ == 0) return 0;
    // Times scaled by 2 * nx * nz: the centre lines at tu = 2 i nz, tw = 2 j nx; the column's
    // sides at tu -/+ nz and tw -/+ nx, clipped to the segment [0, 2 nx nz].
    const int64_t tu = tu_, tw = tw_;
    const int64_t tin = std::max<int64_t>({tu - nz_, tw - nx_, 0});
    const int64_t tout = std::min<int64_t>({tu + nz_, tw + nx_, end_});
    const unsigned back = tin < std::min(tu, tw);                         // (-, -)
    const unsigned x_only = std::max(tin, tu) < std::min(tout, tw);      // (+, -)
    const unsigned z_only = std::max(tin, tw) < std::min(tout, tu);      // (-, +)
    const unsigned ahead = tout > std::max(tu, tw);                       // (+, +)
    return (back * quadrant_bit_[0]) | (x_only * quadrant_bit_[1]) | (z_only * quadrant_bit_[2]) | (ahead * quadrant_bit_[3]);
  }

  /// quadrantMask() at the column (qx, qz) columns from the segment's start, for the segment to
  /// (dx, dz), without walking there: 0 when the walk does not pass through that column (it
  /// touches at most a corner of it, or lies beyond the segment's ends) and for a segment along
  /// a row or column of columns (quadrantMask() is 0 on those everywhere).
  static unsigned quadrantMaskAt(int64_t dx, int64_t dz, int64_t qx, int64_t qz) {
    ColumnLine line(dx, dz);
    const int64_t ix = qx * line.sx_, iz = qz * line.sz_;
    if (line.nx_ == 0 || line.nz_ == 0 || ix < 0 || iz < 0 || ix > line.nx_ || iz > line.nz_) return 0;
    line.ix_ = ix, line.iz_ = iz, line.tu_ = 2 * ix * line.nz_, line.tw_ = 2 * iz * line.nx_;
    // Passed through: the open time intervals inside the column's X and Z ranges overlap on the
    // segment (a walk's step through a column corner, both at once, enters neither side column).
    // (quadrantMask() is 0 elsewhere anyway: each of its quadrants lies inside the column.)
    const int64_t tin = std::max<int64_t>({line.tu_ - line.nz_, line.tw_ - line.nx_, 0});
    const int64_t tout = std::min<int64_t>({line.tu_ + line.nz_, line.tw_ + line.nx_, line.end_});
    return tin < tout ? line.quadrantMask() : 0;
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
  /// Direction index by (dz + 1) * 3 + dx + 1 for column offsets dx, dz (see kDirectionDx).
  static constexpr int kDirectionOfStep[9] = {5, 6, 7, 4, 0, 0, 3, 2, 1};
  int64_t nx_, nz_;
  int sx_, sz_;
  int64_t ix_ = 0, iz_ = 0;
  int step_x_ = 0, step_z_ = 0;
  int64_t tu_ = 0, tw_ = 0;  ///< 2 ix nz and 2 iz nx: the current column's centre lines, in time scaled by 2 nx nz
  int64_t end_ = 2 * nx_ * nz_;
  unsigned quadrant_bit_[4] = {};
};

}  // namespace strata::nav
