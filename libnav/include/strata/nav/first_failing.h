#pragma once
// A parallel scan for the first index that fails a check, as a serial scan would report it: the
// validators of large graphs (LayeredGraph::validate, the world file reader) check hundreds of
// millions of slots.

#include <tbb/blocked_range.h>
#include <tbb/parallel_reduce.h>

#include <algorithm>
#include <cstddef>

namespace strata::nav {

/// The lowest index in [0, count) where ok(i) is false, `count` when there is none; in parallel,
/// each chunk stopping at the lowest failure found so far in it.
template <class Ok>
std::size_t firstFailing(std::size_t count, const Ok& ok) {
  return tbb::parallel_reduce(
      tbb::blocked_range<std::size_t>(0, count, 1 << 16), count,
      [&](const tbb::blocked_range<std::size_t>& range, std::size_t found) {
        for (std::size_t i = range.begin(); i != range.end() && i < found; ++i)
          if (!ok(i)) return i;
        return found;
      },
      [](std::size_t a, std::size_t b) { return std::min(a, b); });
}

}  // namespace strata::nav
