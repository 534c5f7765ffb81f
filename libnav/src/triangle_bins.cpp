// Triangles binned on a coarse square grid (counting sort into flat arrays). A triangle goes
// into every bin its x/z bounds touch; a query visits the bins its bounds touch and tests a
// triangle only in the first of them it shares with the triangle (the bin at the larger of the
// two lowest bin coordinates on each axis), so no triangle is tested twice. Built in parallel
// (rect_buckets.h), each bin in triangle order.

#include "triangle_bins.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "rect_buckets.h"

namespace strata::nav {

TriangleBins::TriangleBins(const TriangleCandidates& candidates, const GridFrame& grid, int32_t bin_cells, std::uint64_t max_bytes)
    : origin_x_(grid.origin_x), origin_z_(grid.origin_z), bin_size_(grid.cell_size * bin_cells),
      inverse_bin_size_(1.0 / bin_size_), records_(candidates.records.data()) {
  bins_x_ = std::max<int32_t>(1, (grid.width_cells + bin_cells - 1) / bin_cells);
  bins_z_ = std::max<int32_t>(1, (grid.depth_cells + bin_cells - 1) / bin_cells);
  const auto count = static_cast<uint32_t>(candidates.records.size());
  NodeArray<BucketRange> range;  // x0, x1, z0, z1 per triangle; every entry written below
  range.resize(count);
  tbb::parallel_for(tbb::blocked_range<uint32_t>(0, count, 1024), [&](const tbb::blocked_range<uint32_t>& q) {
    for (uint32_t t = q.begin(); t != q.end(); ++t) {
      const TriangleBounds& r = candidates.bounds[t];
      range[t] = {binX(r.min_x), binX(r.max_x), binZ(r.min_z), binZ(r.max_z)};
    }
  });
  const std::span<const BucketRange> ranges(range.data(), range.size());
  entries_ = rectBucketEntries(ranges);
  full_ = entries_ > kMaxRectBucketEntries || (max_bytes > 0 && entries_ > max_bytes / (sizeof(Item) + sizeof(float)));
  if (full_) return;  // full() says so, and the bins are not used
  fillRectBuckets(ranges, bins_x_, static_cast<std::size_t>(bins_x_) * bins_z_, entries_, offsets_, items_, [&](uint32_t t) {
    const TriangleBounds& r = candidates.bounds[t];
    const BucketRange& b = range[t];
    return Item{r.min_x, r.max_x, r.min_y, r.max_y, r.min_z, r.max_z, b[0], b[2], t};
  });
  // Bins of many triangles (a stack of storeys) are ordered by height for boxFree, with the
  // running maximum of their tops (HeightOrderedCandidates' rule; the answer does not depend on
  // the order, only the work does).
  reach_.resize(items_.size());  // read only in bins over kHeightOrderBinAbove, each written below
  const std::size_t bins = static_cast<std::size_t>(bins_x_) * bins_z_;
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, bins, 256), [&](const tbb::blocked_range<std::size_t>& q) {
    for (std::size_t bin = q.begin(); bin != q.end(); ++bin) {
      const uint32_t first = offsets_[bin], last = offsets_[bin + 1];
      if (last - first <= kHeightOrderBinAbove) continue;
      std::sort(items_.begin() + first, items_.begin() + last, [](const Item& a, const Item& b) {
        if (a.min_y != b.min_y) return a.min_y < b.min_y;
        return a.triangle < b.triangle;
      });
      float reach = -std::numeric_limits<float>::infinity();
      for (uint32_t i = first; i < last; ++i) reach_[i] = reach = std::max(reach, items_[i].max_y);
    }
  });
}

int32_t TriangleBins::binX(double x) const {
  const double b = (x - origin_x_) * inverse_bin_size_;
  return b <= 0 ? 0 : (b >= bins_x_ - 1 ? bins_x_ - 1 : static_cast<int32_t>(b));
}

int32_t TriangleBins::binZ(double z) const {
  const double b = (z - origin_z_) * inverse_bin_size_;
  return b <= 0 ? 0 : (b >= bins_z_ - 1 ? bins_z_ - 1 : static_cast<int32_t>(b));
}

bool TriangleBins::boxFree(const LocalBoxTest& box) const {
  // Widened by far more than the test's own allowance: bins only need to hold a superset.
  const double pad = 1e-3 * bin_size_;
  const int32_t x0 = binX(box.minX() - pad), x1 = binX(box.maxX() + pad);
  const int32_t z0 = binZ(box.minZ() - pad), z1 = binZ(box.maxZ() + pad);
  const sim::Aabb& b = box.bounds();
  for (int32_t z = z0; z <= z1; ++z)
    for (int32_t x = x0; x <= x1; ++x) {
      const std::size_t bin = static_cast<std::size_t>(z) * bins_x_ + x;
      uint32_t first = offsets_[bin], last = offsets_[bin + 1];
      if (last - first > kHeightOrderBinAbove) {
        // Ordered by height (constructor): from the first item whose running top reaches the
        // box to the last that starts below the box's top; the rest fail the bounds test below.
        last = static_cast<uint32_t>(std::upper_bound(items_.begin() + first, items_.begin() + last, b.max.y,
                                                      [](double h, const Item& item) { return h < item.min_y; }) -
                                     items_.begin());
        first = static_cast<uint32_t>(std::lower_bound(reach_.begin() + first, reach_.begin() + last, b.min.y,
                                                       [](float r, double h) { return r < h; }) -
                                      reach_.begin());
      }
      for (uint32_t i = first; i < last; ++i) {
        const Item& item = items_[i];
        if (item.max_y < b.min.y || item.min_y > b.max.y || item.max_x < b.min.x || item.min_x > b.max.x ||
            item.max_z < b.min.z || item.min_z > b.max.z)
          continue;  // the same bounds test overlaps() starts with
        if (std::max(item.first_x, x0) != x || std::max(item.first_z, z0) != z) continue;  // tested in another bin
        if (box.overlaps(records_[item.triangle])) return false;
      }
    }
  return true;
}

}  // namespace strata::nav
