#pragma once
// Internal: the cost of a walking segment summed run by run of one area, shared by the line
// tests that cost a segment (LayeredSearchGraph::walkCost and the corridor method's
// walkSegment): each run costs its share of the segment's length plus half its height changes,
// at its area's cost, so the parameter along the line is only needed where the area changes.

#include <cmath>

namespace strata::nav::detail {

class LineCostRuns {
 public:
  /// A segment `length` metres long that starts in an area of `start_cost`. A start in a
  /// never-entered area (cost inf; only a start can lie in one) has its way out charged at the
  /// cost of the area it leads into, as A* charges a step at the cost of the area it enters;
  /// a segment that never leaves such areas at `fallback` (the heuristic's rate).
  LineCostRuns(double length, double start_cost, double fallback)
      : length_(length), pending_(!std::isfinite(start_cost)), run_cost_(pending_ ? fallback : start_cost) {}

  /// A step's height change, in the current run.
  void rise(double r) { run_rise_ += r; }

  /// The segment enters an area of `cost` at parameter t.
  void enter(double t, double cost) {
    if (!std::isfinite(cost)) {
      if (!pending_) close(t);
      pending_ = true;
      return;
    }
    if (pending_) run_cost_ = cost, pending_ = false;
    close(t);
    run_cost_ = cost;
  }

  /// The whole segment's cost.
  double total() const { return sum_ + length_ * (1 - run_start_) * run_cost_ + 0.5 * run_rise_ * run_cost_; }

 private:
  void close(double t) {
    sum_ += length_ * (t - run_start_) * run_cost_ + 0.5 * run_rise_ * run_cost_;
    run_start_ = t, run_rise_ = 0;
  }

  double length_;
  bool pending_;     // the first run's rate waits for a finite area
  double run_cost_;
  double run_start_ = 0, run_rise_ = 0, sum_ = 0;
};

}  // namespace strata::nav::detail
