// The lazily rasterized grid: construction, the probe cache, refresh, links and ring search.
// Line tests live in line_of_sight.cpp. Behaviour: spec/grid-pathfinding-library.md, "Grids".

#include "strata/nav/grid.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

namespace strata::nav {

namespace {
constexpr double kNoGround = std::numeric_limits<double>::quiet_NaN();
}  // namespace

Status GridSettings::validate() const {
  auto bad = [](const std::string& message) -> Status { return Error::badInput("grid settings: " + message); };
  if (!sim::isFinite(origin)) return bad("origin must be finite");
  if (width_cells < 1 || width_cells > 65535) return bad("width_cells must be in 1..65535, got " + std::to_string(width_cells));
  if (depth_cells < 1 || depth_cells > 65535) return bad("depth_cells must be in 1..65535, got " + std::to_string(depth_cells));
  if (static_cast<std::int64_t>(width_cells) * depth_cells > (std::int64_t{1} << 31))
    return bad("width_cells * depth_cells must be at most 2^31");
  if (!std::isfinite(cell_size) || cell_size <= 0) return bad("cell_size must be a finite number > 0");
  if (!std::isfinite(agent_height) || agent_height <= 0) return bad("agent_height must be a finite number > 0");
  if (!std::isfinite(max_step_height) || max_step_height < 0) return bad("max_step_height must be a finite number >= 0");
  // Every cell centre must be a finite point (origin 1e308 with cell 1e308 put the far edge at
  // infinity: the walkability function got infinite centres and routes measured inf; an audit).
  if (!std::isfinite(origin.x + cell_size * width_cells) || !std::isfinite(origin.z + cell_size * depth_cells))
    return bad("origin + cell_size * cells must be finite on both axes (the grid's far edge)");
  return Ok{};
}

Result<Grid> Grid::create(const GridSettings& settings, WalkabilityFunction walkability) {
  if (Status valid = settings.validate(); !valid) return valid.error();
  if (!walkability)
    return Error::badInput(
        "grid settings: a walkability function is required (makeWorldGrid in strata/nav/grid_rasterizer.h gives a grid "
        "the default rasterizer over a world's geometry)");
  Grid grid;
  grid.settings_ = settings;
  grid.walkability_ = std::move(walkability);
  const std::size_t cells = static_cast<std::size_t>(settings.width_cells) * static_cast<std::size_t>(settings.depth_cells);
  // The cache takes kCacheBytesPerCell a cell at once (state, ground height, area): a Result
  // error, not an exception, when that much memory cannot be had.
  try {
    grid.state_.assign(cells, kUnknown);
    grid.ground_.assign(cells, kNoGround);
    grid.area_.assign(cells, 0);
  } catch (const std::bad_alloc&) {
    return Error::runtime("grid settings: out of memory for the cell cache of " + std::to_string(settings.width_cells) + " x " +
                          std::to_string(settings.depth_cells) + " cells (" + std::to_string(kCacheBytesPerCell) +
                          " bytes a cell)");
  }
  grid.unknown_cells_ = cells;
  return grid;
}

void Grid::probe(std::uint32_t k) {
  const CellCoord c = coord(k);
  const sim::Vec3 center{settings_.origin.x + (c.x + 0.5) * settings_.cell_size, settings_.origin.y,
                         settings_.origin.z + (c.z + 0.5) * settings_.cell_size};
  const CellProbe result = walkability_(center);
  --unknown_cells_;
  state_[k] = result.walkable ? kOpen : kBlockedCell;
  if (result.ground_y && std::isfinite(*result.ground_y)) {
    ground_[k] = *result.ground_y;
    heights_seen_ = true;
  } else {
    ground_[k] = kNoGround;
  }
  area_[k] = result.area;
  if (result.area != 0) areas_seen_ = true;
}

std::optional<CellCoord> Grid::worldToCell(const sim::Vec3& position) const {
  if (!std::isfinite(position.x) || !std::isfinite(position.z)) return std::nullopt;
  const double fx = (position.x - settings_.origin.x) / settings_.cell_size;
  const double fz = (position.z - settings_.origin.z) / settings_.cell_size;
  if (fx < 0 || fz < 0 || fx >= width() || fz >= depth()) return std::nullopt;
  return CellCoord{std::min(static_cast<int>(fx), width() - 1), std::min(static_cast<int>(fz), depth() - 1)};
}

sim::Vec3 Grid::cellToWorld(int x, int z) {
  return {settings_.origin.x + (x + 0.5) * settings_.cell_size, surfaceY(x, z),
          settings_.origin.z + (z + 0.5) * settings_.cell_size};
}

std::optional<double> Grid::groundY(int x, int z) {
  if (!inBounds(x, z)) return std::nullopt;
  const std::uint32_t k = key(x, z);
  if (state_[k] == kUnknown) probe(k);
  if (std::isnan(ground_[k])) return std::nullopt;
  return ground_[k];
}

double Grid::surfaceY(int x, int z) { return groundY(x, z).value_or(settings_.origin.y); }

std::uint16_t Grid::area(int x, int z) {
  if (!inBounds(x, z)) return 0;
  const std::uint32_t k = key(x, z);
  if (state_[k] == kUnknown) probe(k);
  return area_[k];
}

bool Grid::stepAllowed(std::uint32_t from_key, std::uint32_t to_key) {
  // Both cells probed first: on a fresh grid no height is known until then (an audit: a step
  // of 100 m between unprobed cells was allowed, then refused once they were probed).
  if (state_[from_key] == kUnknown) probe(from_key);
  if (state_[to_key] == kUnknown) probe(to_key);
  if (!heights_seen_) return true;
  const double a = std::isnan(ground_[from_key]) ? settings_.origin.y : ground_[from_key];
  const double b = std::isnan(ground_[to_key]) ? settings_.origin.y : ground_[to_key];
  return std::abs(a - b) <= settings_.max_step_height;
}

bool Grid::diagonalOpen(int x0, int z0, int x1, int z1) {
  if (!heights_seen_) return true;
  // The two cardinal routes through the side cells, each step through the cliff gate.
  const std::uint32_t from = key(x0, z0), to = key(x1, z1);
  for (const std::uint32_t side : {key(x1, z0), key(x0, z1)})
    if (!stepAllowed(from, side) || !stepAllowed(side, to)) return false;
  return true;
}

std::optional<sim::Vec3> Grid::nearestWalkable(const sim::Vec3& position, int max_rings) {
  // An infinite coordinate clamps as a far one does (it returned nullopt); NaN has no place.
  if (std::isnan(position.x) || std::isnan(position.z)) return std::nullopt;
  // The point clamped into the grid's rectangle (in cells), then its cell.
  const double fx = std::clamp((position.x - settings_.origin.x) / settings_.cell_size, 0.0, static_cast<double>(width()));
  const double fz = std::clamp((position.z - settings_.origin.z) / settings_.cell_size, 0.0, static_cast<double>(depth()));
  const int cx = std::min(static_cast<int>(fx), width() - 1);
  const int cz = std::min(static_cast<int>(fz), depth() - 1);
  // Ring by ring; a hit ends the search only once no farther ring can hold a closer centre: the
  // centres of ring r lie on a square of half-side r cells round the start cell's centre, at
  // least r - |point - that centre| (max norm, in cells) from the point.
  const double offset = std::max(std::fabs(fx - (cx + 0.5)), std::fabs(fz - (cz + 0.5)));
  double best = std::numeric_limits<double>::infinity();
  std::optional<CellCoord> best_cell;
  // Rings past the farthest grid edge hold no cell: a limit beyond that (a caller's "search
  // everything", up to INT_MAX) stops there instead of walking empty rings (and overflowing).
  const int last_ring = std::max({cx, width() - 1 - cx, cz, depth() - 1 - cz});
  const int rings = std::min(std::max(0, max_rings), last_ring);
  for (int ring = 0; ring <= rings; ++ring) {
    const double reach = std::max(0.0, ring - offset) * settings_.cell_size;
    if (best_cell && reach * reach > best) break;
    auto consider = [&](int x, int z) {
      if (!isWalkable(x, z)) return;
      const double dx = (x + 0.5 - fx) * settings_.cell_size, dz = (z + 0.5 - fz) * settings_.cell_size;
      const double d = dx * dx + dz * dz;
      if (d < best) best = d, best_cell = CellCoord{x, z};
    };
    if (ring == 0) {
      consider(cx, cz);
    } else {
      // Only the ring's cells on the grid.
      for (int x = std::max(0, cx - ring); x <= std::min(width() - 1, cx + ring); ++x) {
        if (cz - ring >= 0) consider(x, cz - ring);
        if (cz + ring < depth()) consider(x, cz + ring);
      }
      for (int z = std::max(0, cz - ring + 1); z <= std::min(depth() - 1, cz + ring - 1); ++z) {
        if (cx - ring >= 0) consider(cx - ring, z);
        if (cx + ring < width()) consider(cx + ring, z);
      }
    }
  }
  if (best_cell) return cellToWorld(best_cell->x, best_cell->z);
  return std::nullopt;
}

void Grid::refresh() {
  std::fill(state_.begin(), state_.end(), kUnknown);
  std::fill(ground_.begin(), ground_.end(), kNoGround);
  std::fill(area_.begin(), area_.end(), std::uint16_t{0});
  heights_seen_ = false;
  areas_seen_ = false;
  unknown_cells_ = state_.size();
  bitmap_valid_ = false;
  ++version_;
}

void Grid::refreshRegion(const sim::Vec3& min_world, const sim::Vec3& max_world) {
  ++version_;
  const double lo_x = std::min(min_world.x, max_world.x), hi_x = std::max(min_world.x, max_world.x);
  const double lo_z = std::min(min_world.z, max_world.z), hi_z = std::max(min_world.z, max_world.z);
  if (std::isnan(lo_x) || std::isnan(hi_x) || std::isnan(lo_z) || std::isnan(hi_z)) return;
  // Cells overlapping the rectangle: a door's swept bounds clear every cell it touches. Indices
  // are clamped before the cast, so an infinite or huge rectangle clears every cell.
  const auto first = [&](double v, double origin) {
    const double cell = std::floor((v - origin) / settings_.cell_size);
    return static_cast<int>(std::clamp(cell, -1.0, static_cast<double>(std::max(width(), depth()))));
  };
  const int x0 = std::max(0, first(lo_x, settings_.origin.x));
  const int x1 = std::min(width() - 1, first(hi_x, settings_.origin.x));
  const int z0 = std::max(0, first(lo_z, settings_.origin.z));
  const int z1 = std::min(depth() - 1, first(hi_z, settings_.origin.z));
  for (int z = z0; z <= z1; ++z)
    for (int x = x0; x <= x1; ++x) {
      const std::uint32_t k = key(x, z);
      if (state_[k] != kUnknown) ++unknown_cells_;
      bitmap_valid_ = false;
      state_[k] = kUnknown;
      ground_[k] = kNoGround;
      area_[k] = 0;
    }
}

void Grid::rasterizeAll() {
  for (std::uint32_t k = 0; k < state_.size(); ++k)
    if (state_[k] == kUnknown) probe(k);
  bitmap();  // built now, so that searches sharing the grid across threads only read it
}

const GridBitmap* Grid::bitmap() {
  if (unknown_cells_ != 0) return nullptr;
  if (bitmap_valid_) return &bitmap_;
  const int w = width(), d = depth();
  GridBitmap& b = bitmap_;
  b.line_words_x = (w + 2 * GridBitmap::kPad + 63) / 64 + 1;
  b.line_words_z = (d + 2 * GridBitmap::kPad + 63) / 64 + 1;
  b.rows.assign(static_cast<std::size_t>(d + 2) * b.line_words_x, 0);
  b.rows_reversed.assign(b.rows.size(), 0);
  b.columns.assign(static_cast<std::size_t>(w + 2) * b.line_words_z, 0);
  b.columns_reversed.assign(b.columns.size(), 0);
  auto set = [](std::vector<std::uint64_t>& table, int words, int line, int bit) {
    table[static_cast<std::size_t>(line) * words + static_cast<std::size_t>(bit >> 6)] |= std::uint64_t{1} << (bit & 63);
  };
  for (int z = 0; z < d; ++z)
    for (int x = 0; x < w; ++x) {
      if (state_[key(x, z)] != kOpen) continue;
      set(b.rows, b.line_words_x, z + 1, GridBitmap::kPad + x);
      set(b.rows_reversed, b.line_words_x, z + 1, GridBitmap::kPad + (w - 1 - x));
      set(b.columns, b.line_words_z, x + 1, GridBitmap::kPad + z);
      set(b.columns_reversed, b.line_words_z, x + 1, GridBitmap::kPad + (d - 1 - z));
    }
  // Stop bits of line l from lines l - 1, l and l + 1: ~mid | (side & ~side shifted one cell on).
  auto stops = [](const std::vector<std::uint64_t>& table, int words, std::vector<std::uint64_t>& out) {
    out.assign(table.size(), 0);
    const std::size_t lines = table.size() / static_cast<std::size_t>(words);
    for (std::size_t l = 1; l + 1 < lines; ++l) {
      const std::uint64_t* mid = table.data() + l * static_cast<std::size_t>(words);
      const std::uint64_t* a = mid - words;
      const std::uint64_t* b = mid + words;
      std::uint64_t* o = out.data() + l * static_cast<std::size_t>(words);
      for (int k = 0; k < words; ++k) {
        const std::uint64_t a_before = (a[k] << 1) | (k > 0 ? a[k - 1] >> 63 : 0);
        const std::uint64_t b_before = (b[k] << 1) | (k > 0 ? b[k - 1] >> 63 : 0);
        o[k] = ~mid[k] | (a[k] & ~a_before) | (b[k] & ~b_before);
      }
    }
  };
  stops(b.rows, b.line_words_x, b.rows_stops);
  stops(b.rows_reversed, b.line_words_x, b.rows_reversed_stops);
  stops(b.columns, b.line_words_z, b.columns_stops);
  stops(b.columns_reversed, b.line_words_z, b.columns_reversed_stops);
  bitmap_valid_ = true;
  return &bitmap_;
}

Status Grid::addLink(const sim::Vec3& from_world, const sim::Vec3& to_world, std::optional<double> cost_cells) {
  const auto from = worldToCell(from_world);
  if (!from) return Error::badInput("addLink: the link's start is off the grid");
  const auto to = worldToCell(to_world);
  if (!to) return Error::badInput("addLink: the link's end is off the grid");
  double cost = std::hypot(static_cast<double>(to->x - from->x), static_cast<double>(to->z - from->z));
  if (cost_cells) {
    if (!std::isfinite(*cost_cells) || *cost_cells < 0) return Error::badInput("addLink: cost must be a finite number >= 0");
    cost = *cost_cells;
  }
  links_.push_back({key(from->x, from->z), key(to->x, to->z), cost});
  link_order_.push_back(static_cast<std::uint32_t>(links_.size() - 1));
  std::stable_sort(link_order_.begin(), link_order_.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return links_[a].from_cell < links_[b].from_cell; });
  return Ok{};
}

std::span<const std::uint32_t> Grid::linksFrom(std::uint32_t k) const {
  auto lo = std::lower_bound(link_order_.begin(), link_order_.end(), k,
                             [&](std::uint32_t index, std::uint32_t cell) { return links_[index].from_cell < cell; });
  auto hi = std::upper_bound(lo, link_order_.end(), k,
                             [&](std::uint32_t cell, std::uint32_t index) { return cell < links_[index].from_cell; });
  return {link_order_.data() + (lo - link_order_.begin()), static_cast<std::size_t>(hi - lo)};
}

namespace {

// The cell of a probed centre, within the grid: with a cell size tiny against the origin the
// centre's coordinates round, and floor((centre - origin) / cell) gave the width itself (a
// heightmap read past its end).
std::pair<int, int> probedCell(const GridSettings& s, const sim::Vec3& center) {
  const double x = std::floor((center.x - s.origin.x) / s.cell_size), z = std::floor((center.z - s.origin.z) / s.cell_size);
  return {static_cast<int>(std::clamp(x, 0.0, static_cast<double>(s.width_cells - 1))),
          static_cast<int>(std::clamp(z, 0.0, static_cast<double>(s.depth_cells - 1)))};
}

}  // namespace

Result<Grid> makeAsciiGrid(const std::vector<std::string>& rows, GridSettings settings) {
  if (rows.empty() || rows.front().empty()) return Error::badInput("ascii grid: no rows");
  for (std::size_t r = 0; r < rows.size(); ++r)
    if (rows[r].size() != rows.front().size())
      return Error::badInput("ascii grid: row " + std::to_string(r) + " has " + std::to_string(rows[r].size()) +
                             " characters, expected " + std::to_string(rows.front().size()));
  settings.width_cells = static_cast<int>(rows.front().size());
  settings.depth_cells = static_cast<int>(rows.size());
  const GridSettings s = settings;
  return Grid::create(settings, [rows, s](const sim::Vec3& center) {
    const auto [x, z] = probedCell(s, center);
    const char c = rows[static_cast<std::size_t>(z)][static_cast<std::size_t>(x)];
    CellProbe probe;
    if (c == '.' || c == 'G' || c == 'S') {
      probe.walkable = true;
    } else if (c >= '0' && c <= '9') {
      probe.walkable = true;
      probe.ground_y = s.origin.y + (c - '0');
    }
    return probe;
  });
}

Result<Grid> makeHeightmapGrid(std::vector<double> heights, GridSettings settings) {
  if (heights.size() != static_cast<std::size_t>(std::max(0, settings.width_cells)) * static_cast<std::size_t>(std::max(0, settings.depth_cells)))
    return Error::badInput("heightmap grid: " + std::to_string(heights.size()) + " heights for " +
                           std::to_string(settings.width_cells) + " x " + std::to_string(settings.depth_cells) + " cells");
  const GridSettings s = settings;
  return Grid::create(settings, [heights = std::move(heights), s](const sim::Vec3& center) {
    const auto [x, z] = probedCell(s, center);
    const double h = heights[static_cast<std::size_t>(z) * static_cast<std::size_t>(s.width_cells) + static_cast<std::size_t>(x)];
    CellProbe probe;
    if (std::isfinite(h)) {  // NaN blocks, and so does an infinite height (it was walkable at origin.y)
      probe.walkable = true;
      probe.ground_y = h;
    }
    return probe;
  });
}

}  // namespace strata::nav
