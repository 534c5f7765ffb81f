#pragma once
/// \file
/// A lazily rasterized 2D grid over a world rectangle (spec/grid-pathfinding-library.md,
/// "Grids"): cells are probed through an injected walkability function on first touch and cached
/// until `refresh()` / `refreshRegion()`, each of which increments `version()`.
///
/// Cells are addressed by (x, z), 0-based: x along world X, z along world Z; the cell key is
/// z * width + x. Cell (x, z) covers [origin.x + x * cell_size, +cell_size) on X and likewise
/// on Z; its centre is where the walkability function is asked.
///
/// Thread safety: probing (and the first bitmap() call) writes the grid, so a grid is used by one
/// thread at a time, unless `rasterizeAll()` has run since the last refresh: then queries only
/// read it.

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "strata/sim/math.h"
#include "strata/sim/result.h"

namespace strata::nav {

/// What the walkability function reports for one cell centre.
struct CellProbe {
  bool walkable = false;            ///< the agent can stand here
  std::optional<double> ground_y;   ///< ground height (metres) when the source knows it
  std::uint16_t area = 0;           ///< area id (0 = default); boundaries are kept as waypoints
};

/// The injected rasterizer: (cell centre in world space, Y = origin.y) -> probe.
using WalkabilityFunction = std::function<CellProbe(const sim::Vec3& center)>;

/// Grid construction values. Defaults are the spec's, converted at 1 stud = 0.28 m.
struct GridSettings {
  sim::Vec3 origin;                 ///< min-X/min-Z world corner (metres); origin.y is the waypoint height where no ground is known
  int width_cells = 0;              ///< cells along X. 1..65535
  int depth_cells = 0;              ///< cells along Z (the spec's "Height"). 1..65535; width * depth <= 2^31
  double cell_size = 1.12;          ///< metres per cell (spec 4 studs). > 0
  double agent_height = 1.68;       ///< metres (spec 6 studs): clearance column a geometric rasterizer checks. > 0
  double max_step_height = 1.12;    ///< metres (spec 4 studs): largest rise between adjacent cells, and the line-test height band. >= 0
  /// Checks every field; the message names the field.
  Status validate() const;
};

/// A cell coordinate.
struct CellCoord {
  int x = 0;  ///< column, along X
  int z = 0;  ///< row, along Z
  /// Equality.
  constexpr bool operator==(const CellCoord&) const = default;
};

/// A one-way off-mesh link between two cells (spec "Off-mesh links").
struct GridLink {
  std::uint32_t from_cell = 0;  ///< cell key of the take-off cell
  std::uint32_t to_cell = 0;    ///< cell key of the landing cell
  double cost = 0;              ///< cost in cell units
};

/// Walkability bit tables of a fully rasterized grid, for word-at-a-time scans (jump point
/// search). Each table is padded by 64 blocked cells on both ends of every line and by one
/// blocked line on each side, so scans never test bounds.
struct GridBitmap {
  static constexpr int kPad = 64;    ///< blocked cells before the first real cell of a line
  int line_words_x = 0;              ///< 64-bit words per line in rows / rows_reversed
  int line_words_z = 0;              ///< 64-bit words per line in columns / columns_reversed
  std::vector<std::uint64_t> rows;             ///< line z + 1, bit kPad + x
  std::vector<std::uint64_t> rows_reversed;    ///< line z + 1, bit kPad + (width - 1 - x)
  std::vector<std::uint64_t> columns;          ///< line x + 1, bit kPad + z
  std::vector<std::uint64_t> columns_reversed; ///< line x + 1, bit kPad + (depth - 1 - z)
  /// Per table above, the same lines of "stop" bits for a straight jump along the line in its
  /// bit order: the cell is blocked, or a line beside it is open there while it was blocked one
  /// cell before (a forced neighbour).
  std::vector<std::uint64_t> rows_stops, rows_reversed_stops, columns_stops, columns_reversed_stops;
};

/// A lazily rasterized grid with cached walkability and ground heights.
class Grid {
 public:
  /// Bytes of cell cache a grid allocates for each cell when it is built (state, ground height,
  /// area): 11, so the largest grid settings allow (2^31 cells) take about 23.6 GB at once.
  static constexpr std::size_t kCacheBytesPerCell = sizeof(std::uint8_t) + sizeof(double) + sizeof(std::uint16_t);
  /// Moves leave `other` an empty grid (no cells: every point is off it, every search answers
  /// StartOutsideGrid), not one that claims cells it no longer holds (an audit: a moved-from grid
  /// kept its width and crashed the next search).
  Grid(Grid&& other) noexcept { *this = std::move(other); }
  Grid& operator=(Grid&& other) noexcept {
    if (this == &other) return *this;
    settings_ = other.settings_;
    walkability_ = std::move(other.walkability_);
    state_ = std::move(other.state_);
    ground_ = std::move(other.ground_);
    area_ = std::move(other.area_);
    links_ = std::move(other.links_);
    link_order_ = std::move(other.link_order_);
    version_ = other.version_;
    unknown_cells_ = std::exchange(other.unknown_cells_, 0);
    bitmap_ = std::move(other.bitmap_);
    bitmap_valid_ = std::exchange(other.bitmap_valid_, false);
    heights_seen_ = std::exchange(other.heights_seen_, false);
    areas_seen_ = std::exchange(other.areas_seen_, false);
    other.settings_.width_cells = 0;
    other.settings_.depth_cells = 0;
    other.state_.clear(), other.ground_.clear(), other.area_.clear(), other.links_.clear(), other.link_order_.clear();
    ++other.version_;
    return *this;
  }
  Grid(const Grid&) = delete;
  Grid& operator=(const Grid&) = delete;

  /// Builds a grid; nothing is probed yet (but the cell cache is allocated, kCacheBytesPerCell a
  /// cell). Fails with a message naming the bad setting, or a runtime error when the cache does
  /// not fit in memory.
  static Result<Grid> create(const GridSettings& settings, WalkabilityFunction walkability);

  /// The construction values.
  const GridSettings& settings() const { return settings_; }
  /// Cells along X.
  int width() const { return settings_.width_cells; }
  /// Cells along Z.
  int depth() const { return settings_.depth_cells; }
  /// width * depth.
  std::size_t cellCount() const { return state_.size(); }
  /// True when (x, z) is on the grid.
  bool inBounds(int x, int z) const { return x >= 0 && z >= 0 && x < width() && z < depth(); }
  /// Cell key z * width + x (cell must be in bounds).
  std::uint32_t key(int x, int z) const { return static_cast<std::uint32_t>(z) * static_cast<std::uint32_t>(width()) + static_cast<std::uint32_t>(x); }
  /// The cell of a key.
  CellCoord coord(std::uint32_t key) const { return {static_cast<int>(key % static_cast<std::uint32_t>(width())), static_cast<int>(key / static_cast<std::uint32_t>(width()))}; }

  /// The cell containing a world point (X/Z), or nullopt when it is off the rectangle.
  std::optional<CellCoord> worldToCell(const sim::Vec3& position) const;
  /// The cell centre; Y is the rasterized ground height, else origin.y. Probes the cell.
  sim::Vec3 cellToWorld(int x, int z);
  /// Probes (once) and answers whether the cell is walkable. Out of bounds is false.
  bool isWalkable(int x, int z) {
    if (!inBounds(x, z)) return false;
    const std::uint32_t k = key(x, z);
    if (state_[k] == kUnknown) probe(k);
    return state_[k] == kOpen;
  }
  /// Same as isWalkable for an in-bounds key.
  bool isWalkableKey(std::uint32_t k) {
    if (state_[k] == kUnknown) probe(k);
    return state_[k] == kOpen;
  }
  /// Ground height of a rasterized cell; nullopt when the source reports none or off the grid.
  std::optional<double> groundY(int x, int z);
  /// Ground height, or origin.y when none is known: the height used by step gates and waypoints.
  double surfaceY(int x, int z);
  /// Area id of the cell (0 when unknown or off the grid).
  std::uint16_t area(int x, int z);
  /// True when an agent may step between two adjacent walkable cells: their surface heights
  /// differ by at most max_step_height (cliff gate). Both cells must be on the grid.
  bool stepAllowed(std::uint32_t from_key, std::uint32_t to_key);
  /// The heights half of the corner rule for a diagonal step between walkable cells (x0, z0)
  /// and (x1, z1): each side cell's surface is within max_step_height of both ends, as if the
  /// two cardinal steps through it were taken. A side cell of walkable ground far above or below
  /// is a wall's corner or a pit's edge the agent's body would brush. (Walkability of the side
  /// cells is the caller's other half.) True on a grid without heights.
  bool diagonalOpen(int x0, int z0, int x1, int z1);

  /// Clamps a point into bounds, then searches outward ring by ring (ring 0 is the cell itself)
  /// for the walkable cell centre closest to the clamped point (a nearer ring's hit is not taken
  /// while a farther ring may still hold a closer centre); nullopt when no ring up to `max_rings`
  /// has one (and for a NaN coordinate; an infinite one clamps to the edge; a negative `max_rings`
  /// counts as 0, the cell itself). The answer's Y is the
  /// cell's surface height. Rings past the farthest grid edge are not walked, so any limit
  /// (INT_MAX: the whole grid) costs at most the grid's cells.
  std::optional<sim::Vec3> nearestWalkable(const sim::Vec3& position, int max_rings = 8);

  /// Feet: can an agent walk straight from cell 0 to cell 1? A Bresenham cell walk (symmetric:
  /// both directions visit the same cells) where every cell is walkable, a diagonal step needs
  /// both adjacent cardinal cells walkable and, with heights, within max_step_height of both its
  /// cells (no corner threading: diagonalOpen), every cell's surface lies in
  /// the band [lower endpoint - max_step_height, higher endpoint + max_step_height], and
  /// consecutive cells differ by at most max_step_height. False when an endpoint is off the grid.
  bool lineOfSight(int x0, int z0, int x1, int z1);
  /// Eyes: can an agent at cell 0 see cell 1? Same cell walk and band, between the endpoints:
  /// ground below the band never blocks (pits stay transparent), ground above it blocks, an
  /// unwalkable cell blocks unless its ground lies below the band; no corner rule.
  bool sightLine(int x0, int z0, int x1, int z1);
  /// The cells of the walk lineOfSight and sightLine take between cell 0 and cell 1, both
  /// included, in order from cell 0 (the same cells either way), into `out` (cleared first).
  void lineCells(int x0, int z0, int x1, int z1, std::vector<CellCoord>& out) const;

  /// Drops the whole walkability and height cache and increments version(). Links survive.
  void refresh();
  /// Drops every cell overlapping the world rectangle [min_world, max_world] (X/Z; infinite
  /// bounds reach the grid's edge, NaN bounds drop nothing) and increments version().
  void refreshRegion(const sim::Vec3& min_world, const sim::Vec3& max_world);
  /// Increments on every refresh; routes remember it to know when they are stale. addLink does
  /// not change it (the spec counts refreshes only): re-path after adding links.
  std::uint64_t version() const { return version_; }
  /// Probes every cell now and builds bitmap(), so later queries never write the grid (safe to
  /// share across threads until the next refresh).
  void rasterizeAll();

  /// Adds a one-way link between the cells of two world points. `cost_cells` defaults to the
  /// straight-line distance between the cell centres in cell units. Errors when an endpoint is
  /// off the grid or the cost is not a finite number >= 0.
  Status addLink(const sim::Vec3& from_world, const sim::Vec3& to_world, std::optional<double> cost_cells = {});
  /// Every link, in insertion order.
  std::span<const GridLink> links() const { return links_; }
  /// Indices into links() of the links leaving cell `key` (empty when none).
  std::span<const std::uint32_t> linksFrom(std::uint32_t key) const;

  /// The bit tables, when every cell has been probed since the last refresh (built on first
  /// call and cached until the next refresh); nullptr while cells are still unknown.
  const GridBitmap* bitmap();

  /// True once any probed cell has reported a ground height (until the next full refresh).
  bool hasHeights() const { return heights_seen_; }
  /// True once any probed cell has reported a non-zero area.
  bool hasAreas() const { return areas_seen_; }

 private:
  static constexpr std::uint8_t kUnknown = 0;
  static constexpr std::uint8_t kOpen = 1;
  static constexpr std::uint8_t kBlockedCell = 2;
  Grid() = default;
  void probe(std::uint32_t key);

  GridSettings settings_;
  WalkabilityFunction walkability_;
  std::vector<std::uint8_t> state_;   // kUnknown / kOpen / kBlockedCell per cell
  std::vector<double> ground_;        // NaN where no ground is known
  std::vector<std::uint16_t> area_;
  std::vector<GridLink> links_;
  std::vector<std::uint32_t> link_order_;   // link indices sorted by from_cell
  std::uint64_t version_ = 0;
  std::size_t unknown_cells_ = 0;
  GridBitmap bitmap_;
  bool bitmap_valid_ = false;
  bool heights_seen_ = false;
  bool areas_seen_ = false;
};

/// A grid from ASCII rows (row r is z = r, column c is x = c): '.', 'G' and 'S' are walkable
/// with no ground height; '0'..'9' are walkable with ground at origin.y + digit metres; every
/// other character blocks. `settings.width_cells` / `depth_cells` are taken from the rows.
/// Fails when the rows are empty or ragged.
Result<Grid> makeAsciiGrid(const std::vector<std::string>& rows, GridSettings settings = {});

/// A grid from a heightmap in metres (row-major, z * width + x); NaN and infinite cells are blocked.
/// `settings.width_cells` / `depth_cells` give the size and must match `heights.size()`.
Result<Grid> makeHeightmapGrid(std::vector<double> heights, GridSettings settings);

}  // namespace strata::nav
