#pragma once
/// \file
/// The column builder: the floors of one surface column (spec: character-movement-and-
/// navigation.md, "Surface columns instead of a single height field"). One set of rules serves
/// both the offline bake (every column, tile by tile, hits found by rasterizing triangles) and
/// on-demand search (one column at a time, hits found by an all-hits ray through the query
/// index), so the two can never disagree:
///
///  1. surface hits at the column centre, sorted by descending height (then triangle index);
///  2. a hit is a floor candidate when its triangle faces up within the slope limit
///     (normal.y >= cos(max_slope));
///  3. candidates closer than `merge_distance` (by more than 1e-6 m, so surfaces exactly that far
///     apart stay two whatever their rounding) to the top of the current group join it; a group
///     is one floor at the height and normal of its highest hit;
///  4. a floor is kept only with standing room: the box of half-width `radius` from
///     standingBoxBottom() to `height` above the floor must not overlap any triangle
///     (QueryIndex::overlapsBox, exact; touching counts), the floor may not lie inside a solid
///     (where a box may touch no triangle at all), nor may any hit above the centre lie below
///     standingBoxBottom() (headroom under the box: a plate 0.3 m over the ground; the box starts
///     at the step height for low lips beside the centre only). Inside a solid: some piece
///     (triangles joined through vertices at equal positions) other than the floor's has all its
///     surfaces on the first level above the floor facing up (its top, seen from within) and all
///     its nearest surfaces at or below the floor facing down (its bottom). A surface facing down
///     at the floor alone (a double-sided floor's back, the ceiling under a stacked room's floor)
///     does not bury it; docs/parameters.md lists the solids this does not detect;
///  5. headroom is the distance from the floor up to the next hit above it in the column.

#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "strata/nav/agent.h"
#include "strata/nav/layered_graph.h"
#include "strata/sim/math.h"
#include "strata/sim/mesh.h"
#include "strata/sim/query_index.h"

namespace strata::nav {

/// Height tolerance of the column and edge rules (metres): a rise of step_height plus this still
/// walks, and the standing box starts this far above the step height, so a 0.4 m step stored in
/// float32 is walkable for a 0.4 m step height.
inline constexpr double kHeightTolerance = 1e-3;

/// Tolerance of the slope rule on a unit normal's y (about 8e-6 degrees at 45): a surface is a
/// floor when normal.y >= cos(max_slope) - kSlopeTolerance, so a ramp at exactly max_slope is one
/// whatever the rounding of its normal (a 45-degree ramp's came out 1 ulp below cos 45 and the
/// ramp baked no floors). A triangle also gets the tilt its corners' rounding to float32 can
/// have given it (floorRoundingSlack), up to kMaxSlopeRoundingSlack.
inline constexpr double kSlopeTolerance = 1e-7;

/// The most the float32 rounding of a triangle's corners may add to the slope rule's tolerance
/// on normal.y (about 0.08 degrees at 45).
inline constexpr double kMaxSlopeRoundingSlack = 1e-3;

/// A bound on how far the rounding of the triangle's corners to float32 (half an ulp of each
/// coordinate, 2^-24 of its magnitude) can have moved its unit normal: a ramp authored at exactly
/// max_slope 2 km from the origin came out 45.0017 degrees steep and baked no floors. Capped at
/// kMaxSlopeRoundingSlack.
double floorRoundingSlack(const sim::Vec3& p0, const sim::Vec3& p1, const sim::Vec3& p2);

/// The smallest walkable normal.y of an agent with slope limit `max_slope_degrees`.
inline double minFloorNormalY(double max_slope_degrees) {
  return std::cos(max_slope_degrees * M_PI / 180.0) - kSlopeTolerance;
}

/// Whether an agent's standing box, from step_height + kHeightTolerance up to height, has room:
/// the two must be more than 1 mm apart by at least a micrometre. (Exactly 1 mm apart, as 1.0 and
/// 0.999, passed a plain `>` by 1e-18 m and the bake then had no room: no floors, or no walk
/// edges on floors above y = 0, where adding the floor's height rounded the margin away.)
inline bool hasStandingRoom(double height, double step_height) {
  return height - step_height >= kHeightTolerance + 1e-6;
}

/// One surface crossing the vertical line through a column centre.
struct SurfaceHit {
  double height = 0;           ///< Y of the crossing, metres
  sim::Vec3 normal;            ///< unit geometric normal of the triangle (counter-clockwise front)
  uint32_t triangle = 0;       ///< triangle index in the mesh
};

/// One floor of a column.
struct ColumnFloor {
  double height = 0;           ///< floor Y, metres
  sim::Vec3 normal;            ///< unit normal of the floor's top triangle (y > 0)
  uint32_t triangle = 0;       ///< that triangle's index in the mesh
  double headroom = 0;         ///< distance up to the next surface above, metres (+inf: none)
};

/// The floors of the columns of a rectangle, flat: column i (row-major within the rectangle) owns
/// floors[offsets[i] .. offsets[i + 1]), in ascending height.
struct RectFloors {
  std::vector<ColumnFloor> floors;  ///< every column's floors, column after column
  std::vector<uint32_t> offsets;    ///< columns + 1 entries
  /// The floors of column i.
  std::span<const ColumnFloor> column(std::size_t i) const {
    return {floors.data() + offsets[i], offsets[i + 1] - offsets[i]};
  }
};

/// The column grid covering `bounds` at `cell_size`: the origin snapped down to a multiple of
/// the cell size, at least one column each way.
GridFrame makeGridFrame(const sim::Aabb& bounds, double cell_size);

/// The piece of every triangle (rule 4's solid test): triangles joined through vertices at equal
/// positions share one, named by its smallest triangle index. O(vertices + triangles).
std::vector<uint32_t> trianglePieces(const sim::TriangleMesh& mesh);

/// The orientation of a mesh's closed pieces (trianglePieces whose every edge two of their
/// triangles share, once either way, enclosing a volume): a closed piece wound counter-clockwise
/// seen from outside has a positive volume; one wound the other way is inside out. Open pieces
/// (terrain, a single-sided floor) and flat closed ones (a double-sided sheet) have no orientation
/// and are not counted, nor is a piece facing inward that spans the whole mesh's bounds (a
/// skybox, or a room modelled as a box seen from inside). A mesh exported mirrored or with its
/// winding reversed has most of its closed pieces inside out (the import's warning).
/// O(triangles log triangles).
struct ClosedPieceWinding {
  std::size_t closed = 0;          ///< closed pieces with a volume (enclosures apart)
  std::size_t enclosures = 0;      ///< inward-facing closed pieces as large as the whole mesh
  std::size_t inside_out = 0;      ///< of those, the ones wound clockwise seen from outside
  double volume = 0;               ///< cubic units enclosed by the pieces wound outward
  double inside_out_volume = 0;    ///< by the inside-out ones
};
ClosedPieceWinding closedPieceWinding(const sim::TriangleMesh& mesh);

struct TriangleCandidates;  // libnav/src/local_overlap.h

/// Builds the floors of columns. Thread-safe const methods; holds references to its inputs.
class ColumnBuilder {
 public:
  /// `index` must have been built over `mesh` (collider 0, triangle ids = mesh triangle ids).
  ColumnBuilder(const sim::TriangleMesh& mesh, const sim::QueryIndex& index, const AgentSettings& settings,
                const GridFrame& grid);
  /// The same, given `mesh_bounds` == mesh.bounds() (the bake computes them once, in parallel)
  /// and, when not null, `pieces` == trianglePieces(mesh) (the bake computes it beside other work).
  ColumnBuilder(const sim::TriangleMesh& mesh, const sim::QueryIndex& index, const AgentSettings& settings,
                const GridFrame& grid, const sim::Aabb& mesh_bounds,
                std::shared_ptr<const std::vector<uint32_t>> pieces = nullptr);

  /// On-demand path: floors of column (x, z) from an all-hits ray down the column centre.
  std::vector<ColumnFloor> buildColumn(int32_t x, int32_t z) const;

  /// Bake path: floors of every column in [x0, x1) x [z0, z1) from the given candidate
  /// triangles (every triangle whose x/z bounds come within the radius of the rectangle's column
  /// centres must be included; others are ignored). Rule 4 is decided on these triangles with
  /// the query index's exact per-triangle test (same answer as hasStandingRoom, without a tree
  /// walk per floor). `shared`: the candidate records of every mesh triangle, built once (the
  /// bake's); without it the rectangle builds records of its own triangles.
  void buildRect(int32_t x0, int32_t z0, int32_t x1, int32_t z1, std::span<const uint32_t> triangles,
                 RectFloors& out, const TriangleCandidates* shared = nullptr) const;

  /// Shared rules 1-5 over the hits of one column centred at (center_x, center_z), standing room
  /// through the query index. Sorts `hits`.
  void floorsFromHits(std::vector<SurfaceHit>& hits, double center_x, double center_z,
                      std::vector<ColumnFloor>& out) const;

  /// Rule 4: true when the standing box on this floor overlaps nothing.
  bool hasStandingRoom(double center_x, double center_z, double floor_height, const sim::Vec3& normal) const;
  /// Height above the floor where the standing box starts: the step height plus kHeightTolerance,
  /// raised on a slope so the floor itself cannot touch the box (radius * (|dy/dx| + |dy/dz|) + 1 mm).
  double standingBoxBottom(const sim::Vec3& normal) const;

  /// The standing box on this floor (rule 4); empty (min > max) when standingBoxBottom() reaches
  /// the agent height, i.e. there is never standing room.
  sim::Aabb standingBox(double center_x, double center_z, double floor_height, const sim::Vec3& normal) const;

  const AgentSettings& settings() const { return settings_; }
  const GridFrame& grid() const { return grid_; }
  const sim::QueryIndex& index() const { return index_; }
  const sim::TriangleMesh& mesh() const { return mesh_; }

 private:
  /// Rules 1-5 with rule 4 decided by `has_room(floor_height, normal)`; appends the column's
  /// floors to `out` (defined in the .cpp).
  template <class HasRoom>
  void floorsFromHitsWith(std::vector<SurfaceHit>& hits, std::vector<ColumnFloor>& out, HasRoom&& has_room) const;
  /// Rule 4's solid test for hits[i] (sorted by descending height). `next_same`, when not empty:
  /// per hit, the index of the next hit below it of the same piece (hits.size() when none), so
  /// that a piece's nearest surface below the floor is found without scanning every hit between.
  bool insideSolid(const std::vector<SurfaceHit>& hits, std::size_t i, const std::vector<uint32_t>& next_same) const;
  /// The piece of a triangle: triangles joined through vertices at equal positions share one;
  /// a hit's triangle outside the mesh is a piece of its own.
  uint32_t pieceOf(uint32_t triangle) const;

  const sim::TriangleMesh& mesh_;
  const sim::QueryIndex& index_;
  AgentSettings settings_;
  GridFrame grid_;
  double min_normal_y_ = 0;
  double ray_top_ = 0;
  double ray_length_ = 0;
  double near_pad_ = 0;  // bound on LocalBoxTest's rounding allowance for any standing box of this mesh, metres
  std::shared_ptr<const std::vector<uint32_t>> pieces_;  // per triangle: its piece (pieceOf)
};

}  // namespace strata::nav
