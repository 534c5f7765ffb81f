#pragma once
// Internal: a parallel counting sort of items into the cells of a grid of buckets, each item
// going into every bucket of a rectangle (triangles into column tiles, into sweep bins).
//
// The items are split into consecutive chunks; each chunk counts its entries per bucket in its
// own row of counts, the counts become start positions bucket by bucket (chunk after chunk), and
// each chunk then writes its entries from its own positions. Within a bucket the entries keep
// item order, exactly as a serial fill would give, whatever the number of threads.

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <vector>

namespace strata::nav {

/// Bucket rectangle of one item: x0, x1, z0, z1 (inclusive; empty when x0 > x1 or z0 > z1).
using BucketRange = std::array<int32_t, 4>;

/// The row narrowing of items that cover their whole rectangles. A row narrowing is called as
/// rows(i, z, x0, x1) for item i's bucket row z with x0, x1 its rectangle's columns, and may
/// narrow them to the buckets the item covers in that row (x0 > x1: none); it must give the
/// same answer every time (it is called for the count and again for the fill).
struct WholeRows {
  void operator()(std::size_t, int32_t, int32_t&, int32_t&) const {}
};

/// The number of entries fillRectBuckets makes of `ranges` narrowed by `rows` (64 bits: it can
/// pass 2^32).
template <class Rows = WholeRows>
std::uint64_t rectBucketEntries(std::span<const BucketRange> ranges, const Rows& rows = {}) {
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    const BucketRange& r = ranges[i];
    if (r[0] > r[1] || r[2] > r[3]) continue;
    for (int32_t z = r[2]; z <= r[3]; ++z) {
      int32_t x0 = r[0], x1 = r[1];
      rows(i, z, x0, x1);
      if (x0 <= x1) total += static_cast<std::uint64_t>(x1 - x0 + 1);
    }
  }
  return total;
}

/// Fills `offsets` (buckets + 1 entries) and `entries` (a std::vector or NodeArray, resized
/// here) so that bucket b (row-major, `buckets_x` wide, `buckets` in all) holds
/// entries[offsets[b] .. offsets[b + 1]): value(i) for every item i whose ranges[i], narrowed by
/// `rows`, covers b, in ascending i. `total` is rectBucketEntries(ranges, rows), which the caller
/// has checked: at most
/// kMaxRectBucketEntries (the offsets are 32-bit: a sum past that wrapped, and the entries
/// were written past a small buffer; an audit: 10,996 wall triangles, each over 390,625 tiles).
inline constexpr std::uint64_t kMaxRectBucketEntries = std::numeric_limits<uint32_t>::max();
template <class Entries, class Value, class Rows = WholeRows>
void fillRectBuckets(std::span<const BucketRange> ranges, int32_t buckets_x, std::size_t buckets, std::uint64_t total,
                     std::vector<uint32_t>& offsets, Entries& entries, Value&& value, const Rows& rows = {}) {
  if (total > kMaxRectBucketEntries) throw std::length_error("fillRectBuckets: more entries than 32-bit offsets hold");
  const std::size_t items = ranges.size();
  // Chunks: a few per thread, fewer when the per-chunk counts would be large.
  const std::size_t threads = static_cast<std::size_t>(std::max(1, tbb::this_task_arena::max_concurrency()));
  std::size_t chunks = std::min<std::size_t>(4 * threads, std::max<std::size_t>(1, items / 1024));
  chunks = std::max<std::size_t>(1, std::min(chunks, (std::size_t{1} << 22) / std::max<std::size_t>(1, buckets)));
  if (threads == 1) chunks = 1;
  auto chunkItems = [&](std::size_t k, std::size_t& begin, std::size_t& end) {
    begin = items * k / chunks;
    end = items * (k + 1) / chunks;
  };
  auto forEachBucket = [&](std::size_t i, auto&& visit) {
    const BucketRange& r = ranges[i];
    for (int32_t z = r[2]; z <= r[3]; ++z) {
      int32_t x0 = r[0], x1 = r[1];
      rows(i, z, x0, x1);
      for (int32_t x = x0; x <= x1; ++x) visit(static_cast<std::size_t>(z) * static_cast<std::size_t>(buckets_x) + x);
    }
  };
  std::vector<uint32_t> counts(chunks * buckets, 0);  // per chunk, per bucket; later its write positions
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, chunks, 1), [&](const tbb::blocked_range<std::size_t>& c) {
    for (std::size_t k = c.begin(); k != c.end(); ++k) {
      uint32_t* count = counts.data() + k * buckets;
      std::size_t begin, end;
      chunkItems(k, begin, end);
      for (std::size_t i = begin; i < end; ++i) forEachBucket(i, [&](std::size_t b) { ++count[b]; });
    }
  });
  offsets.assign(buckets + 1, 0);
  for (std::size_t b = 0; b < buckets; ++b) {
    uint32_t total = 0;
    for (std::size_t k = 0; k < chunks; ++k) total += counts[k * buckets + b];
    offsets[b + 1] = offsets[b] + total;
  }
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, buckets, 4096), [&](const tbb::blocked_range<std::size_t>& r) {
    for (std::size_t b = r.begin(); b != r.end(); ++b) {
      uint32_t position = offsets[b];
      for (std::size_t k = 0; k < chunks; ++k) {
        const uint32_t count = counts[k * buckets + b];
        counts[k * buckets + b] = position;
        position += count;
      }
    }
  });
  entries.resize(offsets.back());
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, chunks, 1), [&](const tbb::blocked_range<std::size_t>& c) {
    for (std::size_t k = c.begin(); k != c.end(); ++k) {
      uint32_t* position = counts.data() + k * buckets;
      std::size_t begin, end;
      chunkItems(k, begin, end);
      for (std::size_t i = begin; i < end; ++i) {
        const auto v = value(static_cast<uint32_t>(i));
        forEachBucket(i, [&](std::size_t b) { entries[position[b]++] = v; });
      }
    }
  });
}

}  // namespace strata::nav
