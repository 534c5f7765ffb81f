#pragma once
// Internal: the mesh's triangles binned on a coarse square grid aligned with the column grid, so
// the edge stage's swept boxes are tested against the few triangles near them (exactly, see
// local_overlap.h) instead of walking the query index.

#include <cstdint>
#include <vector>

#include "local_overlap.h"
#include "strata/nav/layered_graph.h"
#include "strata/sim/mesh.h"

namespace strata::nav {

/// Read-only after construction; thread-safe queries.
class TriangleBins {
 public:
  /// Bins of `bin_cells` x `bin_cells` columns of `grid` (which must cover the mesh bounds) over
  /// the records of `candidates` (built over the same mesh; referenced, so it must outlive the bins).
  /// `max_bytes` (0 = none): the bins are left empty (full()) when their entries would take more
  /// (the memory the bake does not hold already).
  TriangleBins(const TriangleCandidates& candidates, const GridFrame& grid, int32_t bin_cells, std::uint64_t max_bytes = 0);

  /// True when no triangle of the mesh overlaps the box (touching counts): the answer of
  /// QueryIndex::overlapsBox / overlapsOrientedBox, negated. Each triangle is tested once.
  bool boxFree(const LocalBoxTest& box) const;

  /// Entries of all bins together (each triangle once per bin its bounds touch, or its
  /// footprint when its bounds touch more than kFootprintAboveCells bins).
  std::uint64_t entries() const { return entries_; }
  /// True when those are more than 2^32 - 1 (the bins' offsets are 32-bit) or would take more
  /// than `max_bytes`: the bins are then left empty and must not be used (the bake refuses the
  /// agent).
  bool full() const { return full_; }
  /// True when the entries take at most `max_bytes` (0 = no limit): the constructor's memory
  /// test, asked again with a tighter limit known only later (the bake builds its bins beside
  /// the column stage, against an estimate of the graph's size).
  bool fitsIn(std::uint64_t max_bytes) const { return max_bytes == 0 || entries_ <= max_bytes / kBytesPerEntry; }

 private:
  int32_t binX(double x) const;  ///< bin column of x, clamped to the grid (one function for filling and queries)
  int32_t binZ(double z) const;

  double origin_x_ = 0, origin_z_ = 0, bin_size_ = 1, inverse_bin_size_ = 1;
  int32_t bins_x_ = 1, bins_z_ = 1;
  /// A triangle in a bin, with what rejects it without touching its record.
  struct Item {
    float min_x, max_x, min_y, max_y, min_z, max_z;  // the triangle's bounds
    int32_t first_x, first_z;                        // its lowest bin on each axis; both kFootprintItem:
                                                     // listed by its footprint (triangle_footprint.h)
    uint32_t triangle;
  };
  static constexpr int32_t kFootprintItem = -1;
  static constexpr std::uint64_t kBytesPerEntry = sizeof(Item) + sizeof(float);  // an item and its reach_

  const CandidateTriangle* records_;     // per mesh triangle (TriangleCandidates::records)
  std::vector<uint32_t> offsets_;         // per bin (row-major), into items_
  NodeArray<Item> items_;                 // ascending triangle id within a bin (filled in parallel); a bin of
                                          // more than kHeightOrderBinAbove by (min_y, triangle)
  std::uint64_t entries_ = 0;
  bool full_ = false;
  NodeArray<float> reach_;                // per item of such a bin: the largest max_y of its bin's items up to it
};

}  // namespace strata::nav
