// Triangles binned on a coarse square grid (counting sort into flat arrays). A triangle goes
// into every bin its x/z bounds touch, or, when those are more than kFootprintAboveCells bins and
// it is thin across the axes, every bin its footprint touches (triangle_footprint.h: a wall along
// a diagonal); a query visits
// the bins its bounds touch and tests a triangle only once: a bounds-listed one in the first of
// them it shares with the triangle (the bin at the larger of the two lowest bin coordinates on
// each axis), a footprint-listed one where it first meets it (a short list of those tested).
// Built in parallel (rect_buckets.h), each bin in triangle order.

#include "triangle_bins.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "rect_buckets.h"
#include "triangle_footprint.h"

namespace strata::nav {

TriangleBins::TriangleBins(const TriangleCandidates& candidates, const GridFrame& grid, int32_t bin_cells, std::uint64_t max_bytes)
    : origin_x_(grid.origin_x), origin_z_(grid.origin_z), bin_size_(grid.cell_size * bin_cells),
      inverse_bin_size_(1.0 / bin_size_), records_(candidates.records.data()) {
  bins_x_ = std::max<int32_t>(1, (grid.width_cells + bin_cells - 1) / bin_cells);
  bins_z_ = std::max<int32_t>(1, (grid.depth_cells + bin_cells - 1) / bin_cells);
  const auto count = static_cast<uint32_t>(candidates.records.size());
  NodeArray<BucketRange> range;  // x0, x1, z0, z1 per triangle; every entry written below
  range.resize(count);
  // Per triangle: listed by its footprint (thin across the axes, over more than
  // kFootprintAboveCells bins), decided once here for the count, the fill and the items.
  std::vector<uint8_t> by_footprint(count);
  tbb::parallel_for(tbb::blocked_range<uint32_t>(0, count, 1024), [&](const tbb::blocked_range<uint32_t>& q) {
    for (uint32_t t = q.begin(); t != q.end(); ++t) {
      const TriangleBounds& r = candidates.bounds[t];
      const BucketRange b{binX(r.min_x), binX(r.max_x), binZ(r.min_z), binZ(r.max_z)};
      range[t] = b;
      const CandidateTriangle& c = records_[t];
      const double xs[3] = {c.a.x, c.b.x, c.c.x}, zs[3] = {c.a.z, c.b.z, c.c.z};
      by_footprint[t] = listedByFootprint(b, xs, zs);
    }
  });
  const std::span<const BucketRange> ranges(range.data(), range.size());
  // The bins of row z a footprint-listed triangle touches: its part in the row's band of z,
  // widened (as the band) by far more than rounding, so the bins hold a superset.
  const double margin = 1e-3 * bin_size_;
  auto rows = [&](std::size_t t, int32_t z, int32_t& x0, int32_t& x1) {
    if (!by_footprint[t]) return;
    const CandidateTriangle& c = records_[t];
    const double xs[3] = {c.a.x, c.b.x, c.c.x}, zs[3] = {c.a.z, c.b.z, c.c.z};
    // Row z holds the z that binZ maps to z: everything below its top edge for the first row,
    // above its bottom edge for the last (binZ clamps).
    const double lo = z == 0 ? -std::numeric_limits<double>::infinity() : origin_z_ + z * bin_size_ - margin;
    const double hi = z == bins_z_ - 1 ? std::numeric_limits<double>::infinity() : origin_z_ + (z + 1) * bin_size_ + margin;
    double min_x, max_x;
    if (!triangleSlabX(xs, zs, lo, hi, min_x, max_x)) {
      x1 = x0 - 1;
      return;
    }
    x0 = std::max(x0, binX(min_x - margin));
    x1 = std::min(x1, binX(max_x + margin));
  };
  entries_ = rectBucketEntries(ranges, rows);
  full_ = entries_ > kMaxRectBucketEntries || !fitsIn(max_bytes);
  if (full_) return;  // full() says so, and the bins are not used
  fillRectBuckets(
      ranges, bins_x_, static_cast<std::size_t>(bins_x_) * bins_z_, entries_, offsets_, items_,
      [&](uint32_t t) {
        const TriangleBounds& r = candidates.bounds[t];
        const BucketRange& b = range[t];
        const bool listed_by_footprint = by_footprint[t] != 0;
        return Item{r.min_x, r.max_x, r.min_y, r.max_y, r.min_z, r.max_z, listed_by_footprint ? kFootprintItem : b[0],
                    listed_by_footprint ? kFootprintItem : b[2], t};
      },
      rows);
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
  // Footprint-listed triangles tested so far (only when the box meets several bins); past
  // kSeen of them, one may be tested again, which changes nothing but the work.
  constexpr int kSeen = 16;
  uint32_t seen[kSeen];
  int seen_count = 0;
  const bool several = x0 != x1 || z0 != z1;
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
        // (A footprint-listed item's first_x and first_z are kFootprintItem, below any bin: this
        // passes for it in the box's first bin, where nothing has been tested yet.)
        if (std::max(item.first_x, x0) != x || std::max(item.first_z, z0) != z) {
          if (item.first_x != kFootprintItem) continue;  // tested in another bin
          if (std::find(seen, seen + seen_count, item.triangle) != seen + seen_count) continue;  // tested
          if (seen_count < kSeen) seen[seen_count++] = item.triangle;
        } else if (item.first_x == kFootprintItem && several && seen_count < kSeen) {
          seen[seen_count++] = item.triangle;
        }
        if (box.overlaps(records_[item.triangle])) return false;
      }
    }
  return true;
}

}  // namespace strata::nav
