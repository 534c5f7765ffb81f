#pragma once
// Internal: a binary min-heap on a vector (std::push_heap / std::pop_heap), without
// decrease-key: the open lists of the corridor method's searches, which push duplicates and skip
// stale entries when they are popped.

#include <algorithm>
#include <vector>

namespace strata::nav {

/// `Later(a, b)` is true when a comes out after b; ties must be broken by the caller's entries
/// (or their push order must be deterministic) for a deterministic order.
template <class Entry, class Later>
class BinaryHeap {
 public:
  bool empty() const { return items_.empty(); }
  void clear() { items_.clear(); }
  void push(const Entry& e) {
    items_.push_back(e);
    std::push_heap(items_.begin(), items_.end(), Later{});
  }
  /// Removes and returns the first entry (not when empty()).
  Entry pop() {
    std::pop_heap(items_.begin(), items_.end(), Later{});
    const Entry e = items_.back();
    items_.pop_back();
    return e;
  }

 private:
  std::vector<Entry> items_;
};

}  // namespace strata::nav
