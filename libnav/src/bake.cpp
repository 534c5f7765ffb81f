// The offline bake (bake.h): columns tile by tile in parallel, merged in tile order into the
// flat graph, then areas, edges (parallel over rows of columns), links, clearance, components
// and route-distance fields. Every parallel stage writes disjoint, pre-sized outputs and every
// id is assigned in node order, so the result is identical at any thread count.

#include "strata/nav/bake.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <tbb/task_group.h>
#include <tbb/task_arena.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <mutex>
#include <new>
#include <numeric>
#include <optional>
#include <span>

#if defined(__GLIBC__)
#include <malloc.h>  // malloc_trim
#endif

#include "bake_stages.h"
#include "edge_builder.h"
#include "rect_buckets.h"
#include "triangle_footprint.h"
#include "strata/nav/column_builder.h"
#include "strata/nav/layered_graph.h"
#include "triangle_bins.h"

namespace strata::nav {
namespace {

using Clock = std::chrono::steady_clock;

/// Edge of the edge stage's triangle bins, in columns: a sweep box (at most one column plus the
/// agent's width, or a jump's span) touches a few bins, each holding few triangles.
constexpr int32_t kSweepBinCells = 4;

double millisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/// Serializes observer calls and throttles progress to at most ~1000 calls per stage.
class Reporter {
 public:
  Reporter(BakeObserver* observer, std::vector<StageTiming>* timings, std::string agent)
      : observer_(observer), timings_(timings), agent_(std::move(agent)) {}

  void begin(const std::string& stage, std::size_t total) {
    stage_ = stage;
    total_ = total;
    done_ = 0;
    last_reported_ = 0;
    start_ = Clock::now();
    if (observer_) {
      std::lock_guard lock(mutex_);
      observer_->stageStarted(agent_, stage, total);
    }
  }
  void advance(std::size_t units = 1) {
    const std::size_t done = done_.fetch_add(units) + units;
    if (!observer_) return;
    const std::size_t step = std::max<std::size_t>(1, total_ / 1000);
    if (done < last_reported_.load() + step && done != total_) return;
    std::lock_guard lock(mutex_);
    if (done <= last_reported_.load()) return;
    last_reported_ = done;
    observer_->stageProgress(done, total_);
  }
  void end() {
    const double ms = millisecondsSince(start_);
    if (timings_) timings_->push_back({agent_, stage_, ms});
    if (observer_) {
      std::lock_guard lock(mutex_);
      observer_->stageFinished(agent_, stage_, ms);
    }
  }

 private:
  BakeObserver* observer_;
  std::vector<StageTiming>* timings_;
  std::string agent_;
  std::string stage_;
  std::size_t total_ = 0;
  std::atomic<std::size_t> done_{0};
  std::atomic<std::size_t> last_reported_{0};
  std::mutex mutex_;
  Clock::time_point start_;
};

/// Column range of centres inside [lo, hi] along one axis.
void centreRange(double lo, double hi, double origin, double cell, int32_t limit, int32_t& first, int32_t& last,
                 int32_t slack) {
  // Slack each way: the rasterizer's exact test decides boundary centres, and the standing-room
  // pre-test needs the triangles within the agent radius of a tile's columns.
  first = std::max<int32_t>(0, static_cast<int32_t>(std::ceil((lo - origin) / cell - 0.5)) - slack);
  last = std::min<int32_t>(limit - 1, static_cast<int32_t>(std::floor((hi - origin) / cell - 0.5)) + slack);
}

// Floor nodes an agent's bake will hold, about: the projected area of the walkable surfaces
// (upward triangles within the slope limit) per column. Summed serially: a decision must not
// depend on the order of a parallel sum.
double estimatedNodes(const sim::TriangleMesh& mesh, const AgentSettings& settings) {
  const double min_normal_y = minFloorNormalY(settings.max_slope);
  double area = 0;
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
    const sim::Vec3 a = mesh.vertex(static_cast<uint32_t>(t), 0);
    const sim::Vec3 n = sim::cross(mesh.vertex(static_cast<uint32_t>(t), 1) - a, mesh.vertex(static_cast<uint32_t>(t), 2) - a);
    const double length = sim::length(n);
    if (length > 0 && n.y >= min_normal_y * length) area += 0.5 * n.y;
  }
  const double cell = settings.effectiveCellSize();
  return area / (cell * cell);
}

// BadInput when the agents' graphs, held together at the end of the bake, would not fit in
// `limit` bytes; checked before any work. Each graph also keeps 4 bytes a column (its column
// offsets), and the agent being baked about 5 more a column while it runs (kBakeBytesPerColumn,
// kBakeScratchBytesPerColumn): a sparse mesh spread wide at a fine cell holds few floors and
// many columns (two 2 m floors 2 km apart at 0.2 m: 1e8 columns, 0.4 GB an agent; an audit).
Status checkMemory(const sim::TriangleMesh& mesh, const BakeProfile& profile, std::uint64_t limit, const std::string& source) {
  if (limit == 0 || mesh.vertices.empty()) return Ok{};
  const sim::Aabb bounds = mesh.bounds();
  double total = 0, scratch = 0;
  std::string detail;
  bool fields = false;
  for (const AgentProfile& agent : profile.agents) {
    const double nodes = estimatedNodes(mesh, agent.settings);
    const double cell = agent.settings.effectiveCellSize();
    const GridFrame grid = makeGridFrame(bounds, cell);
    const double columns = static_cast<double>(grid.width_cells) * grid.depth_cells;
    // Each route-distance field keeps a float per node, whatever its max_distance, and the
    // world file's writer a copy (an audit: 10,000 fields on a 100 m square ran out of memory
    // after the whole bake, the estimate 13 MB for 4.4 GB kept), and its flood about 12 bytes
    // more a node while it runs.
    const double field_count = static_cast<double>(agent.fields.size());
    total += nodes * (kBakeBytesPerNode + field_count * kBakeBytesPerFieldNode) + columns * kBakeBytesPerColumn;
    scratch = std::max(scratch, columns * kBakeScratchBytesPerColumn + (field_count > 0 ? nodes * 12.0 : 0.0));
    char text[240];
    std::snprintf(text, sizeof text, "%sagent %s: about %.3g floor nodes in %.3g columns at cell_size %g m", detail.empty() ? "" : ", ",
                  agent.settings.name.c_str(), nodes, columns, cell);
    detail += text;
    if (!agent.fields.empty()) {
      std::snprintf(text, sizeof text, " with %zu route-distance field%s", agent.fields.size(), agent.fields.size() == 1 ? "" : "s");
      detail += text;
      fields = true;
    }
  }
  total += scratch;
  if (total <= static_cast<double>(limit)) return Ok{};
  char text[200];
  std::snprintf(text, sizeof text, " would need about %.3g GB%s, more than the %.3g GB of memory; raise cell_size%s", total / 1e9,
                profile.agents.size() > 1 ? " together" : "", static_cast<double>(limit) / 1e9,
                fields ? " or bake fewer fields" : "");
  return Error::badInput(source + ": " + detail + text);
}

// BadInput when an agent's grid has more columns than a bake handles (per-column tables of 4
// bytes and more; 4e8 columns is a 16 km square at 0.8 m). Checked for every agent before any
// work by bakeWorld (the memory estimate counts walkable area only, so a sparse, wide mesh gets
// past it), and again by bakeAgent.
Status checkGrid(const GridFrame& grid, const AgentSettings& settings, const std::string& source) {
  constexpr double kMaxColumns = 4.0e8;
  if (static_cast<double>(grid.width_cells) * grid.depth_cells <= kMaxColumns) return Ok{};
  char text[200];
  std::snprintf(text, sizeof text, ": agent %s: %d x %d columns at cell_size %g m is more than the limit of 4e8; raise cell_size",
                settings.name.c_str(), grid.width_cells, grid.depth_cells, settings.effectiveCellSize());
  return Error::badInput(source + text);
}

// Bytes an agent's bake holds with `nodes` floor nodes in `columns` columns (checkMemory's
// estimate for one agent while it is baked), against which its triangle lists are checked.
double bakeHeldBytes(double nodes, double columns) {
  return nodes * kBakeBytesPerNode + columns * (kBakeBytesPerColumn + kBakeScratchBytesPerColumn);
}

// BadInput for an agent whose triangles, each listed once per tile (or sweep bin) of columns
// it spans (its bounds, or its footprint for a thin one), make more entries than the 32-bit
// tables hold: large triangles over a wide grid at a fine cell (10,996 walls along a 20 km
// diagonal at 1 m, each over 390,625 tiles, crashed the bake: the count wrapped; an audit).
Error tooManyEntries(const std::string& source, const AgentSettings& settings, std::uint64_t entries, const char* what) {
  char text[300];
  std::snprintf(text, sizeof text,
                ": agent %s: its triangles, each listed once per %s of columns it spans, make %.3g entries at "
                "cell_size %g m, more than a bake holds (4.29e9, or the memory); raise cell_size or split the largest triangles",
                settings.name.c_str(), what, static_cast<double>(entries), settings.effectiveCellSize());
  return Error::badInput(source + text);
}

Status checkGrids(const sim::TriangleMesh& mesh, const BakeProfile& profile, const std::string& source) {
  if (mesh.vertices.empty()) return Ok{};
  const sim::Aabb bounds = mesh.bounds();
  for (const AgentProfile& agent : profile.agents)
    if (Status s = checkGrid(makeGridFrame(bounds, agent.settings.effectiveCellSize()), agent.settings, source); !s.ok())
      return s;
  return Ok{};
}

}  // namespace

std::string BakeOptions::validate() const {
  if (threads < 0) return "threads: must be >= 0 (0 = all hardware threads)";
  if (tile_cells < 4 || tile_cells > 1024) return "tile_cells: must be within 4 .. 1024";
  if (!(large_bake_nodes >= 0)) return "large_bake_nodes: must be >= 0 (0 = never warn)";
  return {};
}

Result<BakedAgent> bakeAgent(const sim::TriangleMesh& mesh, const sim::QueryIndex& index, const AgentProfile& agent,
                             const BakeOptions& options, std::vector<StageTiming>* timings,
                             const std::string& source) {
  if (std::string e = agent.validate(); !e.empty()) return Error::badInput(source + ": " + e);
  if (std::string e = options.validate(); !e.empty()) return Error::badInput("bake options: " + e);
  BakedAgent result;
  result.profile = agent;
  AgentSettings& settings = result.profile.settings;
  settings.cell_size = settings.effectiveCellSize();
  // The walking line test leaves room off the column centres through the diagonal walk edges,
  // whose standing boxes cover the squares between centres only up to twice the radius
  // (docs/search.md, "The walking line test").
  if (settings.cell_size > 2 * settings.radius) {
    // (The numbers formatted alone: the source path can be any length.)
    char cell[32], radius[32], limit[32];
    std::snprintf(cell, sizeof cell, "%g", settings.cell_size);
    std::snprintf(radius, sizeof radius, "%g", settings.radius);
    std::snprintf(limit, sizeof limit, "%g", 2 * settings.radius);
    result.warnings.push_back(source + ": agent " + settings.name + ": cell_size " + cell +
                              " m is more than twice the radius (" + radius +
                              " m): standing room is tested at column centres, so any-angle routes and line tests may "
                              "pass obstacles closer than the radius between them; use cell_size <= " + limit + " m");
  }
  LayeredGraph& graph = result.graph;
  // The mesh bounds, once and in parallel (min / max: the same as mesh.bounds()).
  const sim::Aabb bounds = tbb::parallel_reduce(
      tbb::blocked_range<std::size_t>(0, mesh.vertices.size(), 16384), sim::Aabb{},
      [&](const tbb::blocked_range<std::size_t>& r, sim::Aabb b) {
        for (std::size_t i = r.begin(); i != r.end(); ++i) b.expand(mesh.vertices[i].toDouble());
        return b;
      },
      [](sim::Aabb a, const sim::Aabb& b) {
        a.expand(b);
        return a;
      });
  graph.grid = makeGridFrame(bounds, settings.cell_size);
  const GridFrame& grid = graph.grid;
  if (Status s = checkGrid(grid, settings, source); !s.ok()) return s.error();
  Reporter report(options.observer, timings, settings.name);
  // The triangles' pieces (rule 4's solid test) are one serial pass over the mesh, and the
  // candidate records of every triangle (the tiles' standing-room tests and the edge stage's
  // bins; released after the edge stage) need no tiles either: both are computed beside the
  // parallel tile binning below, and waited for when the builder needs them. (The records
  // were built after the binning: on 2 threads the second thread spent the binning on the
  // pieces, and the records' pass then ran beside nothing.)
  std::shared_ptr<const std::vector<uint32_t>> pieces;
  std::unique_ptr<const TriangleCandidates> candidates;
  tbb::task_group pieces_task;
  pieces_task.run([&] { pieces = std::make_shared<const std::vector<uint32_t>>(trianglePieces(mesh)); });
  pieces_task.run([&] { candidates = std::make_unique<const TriangleCandidates>(mesh); });

  // What the agent's graph and per-column tables will hold (checkMemory's estimate), against the
  // memory limit: the tile lists and the sweep bins are refused when they would not fit beside it.
  const double estimated_held = options.memory_limit_bytes == 0
                                    ? 0.0
                                    : bakeHeldBytes(estimatedNodes(mesh, settings), static_cast<double>(grid.columnCount()));
  // Bytes the sweep bins may take beside `held` bytes of graph and tables (0: no limit).
  const auto binBytes = [&](double held) -> std::uint64_t {
    if (options.memory_limit_bytes == 0) return 0;
    return static_cast<std::uint64_t>(std::max(1.0, static_cast<double>(options.memory_limit_bytes) - held));
  };

  // ---- columns: bin triangles into tiles, rasterize each tile in parallel ----
  // Tiles of at most tile_cells columns a side; with several threads, smaller on a small grid so
  // that every thread gets about two tiles (the floors do not depend on the tiling). Not more:
  // a triangle is set up once per tile it touches, and on a small grid of large triangles that
  // work grows with the tile count (level_mesh, 986 columns on 2 threads: 20 tiles of 8 columns
  // took 0.32-0.34 ms for the whole bake, 6 tiles of 16 took 0.26-0.31 in interleaved runs).
  // A grid of more than 2 x tile_cells^2 columns per thread takes tile_cells-sized tiles.
  const int workers = std::max(1, tbb::this_task_arena::max_concurrency());
  const double columns_per_tile = static_cast<double>(grid.columnCount()) / (2.0 * workers);
  const int32_t tile =
      workers == 1 ? options.tile_cells
                   : std::min(options.tile_cells, std::max(8, static_cast<int32_t>(std::ceil(std::sqrt(columns_per_tile)))));
  const int32_t tiles_x = (grid.width_cells + tile - 1) / tile, tiles_z = (grid.depth_cells + tile - 1) / tile;
  const std::size_t tile_count = static_cast<std::size_t>(tiles_x) * static_cast<std::size_t>(tiles_z);
  report.begin("columns", tile_count);
  // Tile lists, flat: each triangle's tile range, then a parallel counting sort that keeps
  // triangle order within every tile (deterministic).
  std::vector<uint32_t> tile_offsets;
  std::vector<uint32_t> tile_triangles;
  {
    const uint32_t triangles = mesh.triangleCount();
    const auto slack = static_cast<int32_t>(std::ceil(settings.radius / grid.cell_size)) + 1;
    NodeArray<BucketRange> range;  // tx0, tx1, tz0, tz1 (empty: tx0 > tx1); every entry written below
    range.resize(triangles);
    // Per triangle: listed by its footprint (rows below), decided once for the count and the fill.
    std::vector<uint8_t> by_footprint(triangles);
    tbb::parallel_for(tbb::blocked_range<uint32_t>(0, triangles, 1024), [&](const tbb::blocked_range<uint32_t>& r) {
      for (uint32_t t = r.begin(); t != r.end(); ++t) {
        const sim::Vec3 a = mesh.vertex(t, 0), b = mesh.vertex(t, 1), c = mesh.vertex(t, 2);
        int32_t x0, x1, z0, z1;
        centreRange(std::min({a.x, b.x, c.x}), std::max({a.x, b.x, c.x}), grid.origin_x, grid.cell_size,
                    grid.width_cells, x0, x1, slack);
        centreRange(std::min({a.z, b.z, c.z}), std::max({a.z, b.z, c.z}), grid.origin_z, grid.cell_size,
                    grid.depth_cells, z0, z1, slack);
        const BucketRange tiles =
            x0 > x1 || z0 > z1 ? BucketRange{1, 0, 1, 0} : BucketRange{x0 / tile, x1 / tile, z0 / tile, z1 / tile};
        range[t] = tiles;
        const double xs[3] = {a.x, b.x, c.x}, zs[3] = {a.z, b.z, c.z};
        by_footprint[t] = listedByFootprint(tiles, xs, zs);
      }
    });
    const std::span<const BucketRange> ranges(range.data(), range.size());
    // A thin triangle over more than kFootprintAboveCells tiles is listed only in the tiles of its
    // footprint (triangle_footprint.h), widened as its bounds are: by `slack` columns round the
    // part of it in the band of z that a tile row's column centres cover, also widened by
    // `slack` columns (and by a millimetre-scale margin against rounding).
    auto rows = [&](std::size_t t, int32_t tz, int32_t& tx0, int32_t& tx1) {
      if (!by_footprint[t]) return;
      const sim::Vec3 a = mesh.vertex(static_cast<uint32_t>(t), 0), b = mesh.vertex(static_cast<uint32_t>(t), 1),
                      c = mesh.vertex(static_cast<uint32_t>(t), 2);
      const double xs[3] = {a.x, b.x, c.x}, zs[3] = {a.z, b.z, c.z};
      const int32_t first_row = tz * tile, last_row = std::min(first_row + tile, grid.depth_cells) - 1;
      const double margin = 1e-3 * grid.cell_size;
      const double lo = grid.origin_z + (first_row + 0.5 - slack) * grid.cell_size - margin;
      const double hi = grid.origin_z + (last_row + 0.5 + slack) * grid.cell_size + margin;
      double min_x, max_x;
      int32_t x0 = 0, x1 = -1;
      if (triangleSlabX(xs, zs, lo, hi, min_x, max_x))
        centreRange(min_x - margin, max_x + margin, grid.origin_x, grid.cell_size, grid.width_cells, x0, x1, slack);
      if (x0 > x1) {
        tx1 = tx0 - 1;
        return;
      }
      tx0 = std::max(tx0, x0 / tile);
      tx1 = std::min(tx1, x1 / tile);
    };
    const std::uint64_t entries = rectBucketEntries(ranges, rows);
    // Against the memory the bake does not hold already: the agent's estimated graph and
    // per-column tables (checkMemory's estimate; an audit found 25 GB of a machine's 25.3 GB
    // allowed to bins alone, the bake peaking at 22.7 GB).
    auto beyondMemory = [&] {
      return static_cast<double>(entries) * sizeof(uint32_t) > static_cast<double>(options.memory_limit_bytes) - estimated_held;
    };
    if (entries > kMaxRectBucketEntries || (options.memory_limit_bytes > 0 && beyondMemory())) {
      pieces_task.wait();
      return tooManyEntries(source, settings, entries, "tile");
    }
    fillRectBuckets(ranges, tiles_x, tile_count, entries, tile_offsets, tile_triangles, [](uint32_t t) { return t; }, rows);
  }
  pieces_task.wait();
  // The edge stage's sweep bins need only the candidate records and the grid, so they are built
  // beside the tile loop and the merge below, against the memory the estimated graph leaves (the
  // edge stage asks again with the graph's real size). Built there between two stages, their
  // short parallel passes ran on one thread while the other slept (fdm6 at 0.05: 0.35 ms on 1
  // thread, 0.33 on 2). The bins do not depend on when or where they are built.
  std::unique_ptr<const TriangleBins> bins;
  tbb::task_group bins_task;
  struct WaitOnExit {  // an early return or an exception below still waits for the bins' task
    tbb::task_group& task;
    ~WaitOnExit() {
      try {
        task.wait();
      } catch (...) {  // the bake is failing already; its own error is the one to report
      }
    }
  } bins_wait{bins_task};
  bins_task.run([&, limit = binBytes(estimated_held)] {
    bins = std::make_unique<const TriangleBins>(*candidates, grid, kSweepBinCells, limit);
  });
  const ColumnBuilder builder(mesh, index, settings, grid, bounds, pieces);
  std::vector<RectFloors> tile_floors(tile_count);
  {
    // Tiles with the most triangles first, each worker taking the next tile from a shared
    // counter: a small grid has few tiles of very different cost, and starting the big ones
    // first keeps both threads busy to the end (each tile writes only its own slot).
    std::vector<uint32_t> order(tile_count);
    std::iota(order.begin(), order.end(), 0u);
    auto cost = [&](uint32_t t) { return tile_offsets[t + 1] - tile_offsets[t]; };
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return cost(a) != cost(b) ? cost(a) > cost(b) : a < b; });
    std::atomic<std::size_t> next{0};
    tbb::parallel_for(0, workers, [&](int) {
      for (std::size_t i; (i = next.fetch_add(1)) < tile_count;) {
        const uint32_t t = order[i];
        const int32_t tx = static_cast<int32_t>(t % tiles_x), tz = static_cast<int32_t>(t / tiles_x);
        const int32_t x0 = tx * tile, z0 = tz * tile;
        const int32_t x1 = std::min(x0 + tile, grid.width_cells), z1 = std::min(z0 + tile, grid.depth_cells);
        builder.buildRect(x0, z0, x1, z1, std::span<const uint32_t>(tile_triangles.data() + tile_offsets[t], cost(t)),
                          tile_floors[t], candidates.get());
        report.advance();
      }
    });
  }
  // Merge in column order.
  const std::size_t columns = grid.columnCount();
  graph.column_offsets.assign(columns + 1, 0);
  auto tileColumn = [&](int32_t x, int32_t z) {
    const std::size_t t = static_cast<std::size_t>(z / tile) * tiles_x + static_cast<std::size_t>(x / tile);
    const int32_t x0 = (x / tile) * tile, z0 = (z / tile) * tile;
    const int32_t width = std::min(x0 + tile, grid.width_cells) - x0;
    return tile_floors[t].column(static_cast<std::size_t>(z - z0) * width + static_cast<std::size_t>(x - x0));
  };
  std::vector<uint32_t>().swap(tile_triangles);
  // Offsets: per-row counts and prefix sums in parallel, the rows' totals serially. These passes
  // are light per column: rows go to a task in runs of at least kMergeGrainColumns columns, so a
  // small grid's passes run in one task instead of waking every thread for a few microseconds.
  const auto width = static_cast<std::size_t>(grid.width_cells);
  constexpr int32_t kMergeGrainColumns = 16384;
  const int32_t row_grain = std::max<int32_t>(1, kMergeGrainColumns / std::max<int32_t>(1, grid.width_cells));
  std::vector<uint64_t> row_start(static_cast<std::size_t>(grid.depth_cells) + 1, 0);
  tbb::parallel_for(tbb::blocked_range<int32_t>(0, grid.depth_cells, row_grain), [&](const tbb::blocked_range<int32_t>& r) {
    for (int32_t z = r.begin(); z != r.end(); ++z) {
      uint64_t sum = 0;
      for (int32_t x = 0; x < grid.width_cells; ++x) {
        sum += tileColumn(x, z).size();
        graph.column_offsets[grid.columnIndex(x, z) + 1] = static_cast<uint32_t>(std::min<uint64_t>(sum, kNoNode));
      }
      row_start[static_cast<std::size_t>(z) + 1] = sum;
    }
  });
  for (std::size_t z = 0; z < static_cast<std::size_t>(grid.depth_cells); ++z) row_start[z + 1] += row_start[z];
  if (row_start.back() >= kNoNode)
    return Error::badInput(source + ": agent " + settings.name + ": more than 4 billion floor nodes; raise cell_size");
  tbb::parallel_for(tbb::blocked_range<int32_t>(0, grid.depth_cells, row_grain), [&](const tbb::blocked_range<int32_t>& r) {
    for (int32_t z = r.begin(); z != r.end(); ++z) {
      const auto base = static_cast<uint32_t>(row_start[static_cast<std::size_t>(z)]);
      const std::size_t first = grid.columnIndex(0, z) + 1;
      for (std::size_t c = first; c < first + width; ++c) graph.column_offsets[c] += base;
    }
  });
  const std::size_t nodes = graph.column_offsets.back();
  graph.height.resize(nodes);
  graph.normal.resize(nodes);
  graph.headroom.resize(nodes);
  graph.area.resize(nodes);  // written by the pass below
  graph.flags.assign(nodes, 0);
  // Per node, in one parallel pass: the floor, its area (from its triangle; modifier volumes
  // after) and the edge rules' standing-box bottom of its float32 normal.
  const std::vector<uint16_t> triangle_area = triangleAreas(mesh, agent, graph);
  unmatchedGlobWarnings(mesh, agent, source, result.warnings);
  NodeArray<double> box_bottom;  // every node's entry is written below
  box_bottom.resize(nodes);
  tbb::parallel_for(tbb::blocked_range<int32_t>(0, grid.depth_cells, row_grain), [&](const tbb::blocked_range<int32_t>& r) {
    for (int32_t z = r.begin(); z != r.end(); ++z)
      for (int32_t x = 0; x < grid.width_cells; ++x) {
        uint32_t n = graph.columnBegin(x, z);
        for (const ColumnFloor& floor : tileColumn(x, z)) {
          graph.height[n] = static_cast<float>(floor.height);
          const sim::Vec3f normal{static_cast<float>(floor.normal.x), static_cast<float>(floor.normal.y),
                                  static_cast<float>(floor.normal.z)};
          graph.normal[n] = normal;
          graph.headroom[n] = static_cast<float>(floor.headroom);
          graph.area[n] = triangle_area[floor.triangle];
          box_bottom[n] = builder.standingBoxBottom({normal.x, normal.y, normal.z});
          ++n;
        }
      }
  });
  tile_floors.clear();
  tile_floors.shrink_to_fit();
#if defined(__GLIBC__)
  // The tiles' floors (48 bytes a node, 2.2 GB on a 47-million-node world) were many vectors
  // below glibc's mmap threshold, so their freed memory stays in the heaps of the threads that
  // built them; handing it back now lowers the rest of the bake's peak (7.2 -> 6.0 GB there).
  // Only for large worlds: the pages handed back are faulted in again by the stages after, which
  // made small bakes 12-15 % slower (dungeon 18.8 -> 21.6 ms on 1 thread) for no memory that
  // matters.
  constexpr std::size_t kTrimFloorBytes = std::size_t{64} << 20;
  if (nodes * sizeof(ColumnFloor) >= kTrimFloorBytes) malloc_trim(0);
#endif
  applyModifierVolumes(agent, graph, source, &result.warnings);
  report.end();

  // ---- edges ----
  report.begin("edges", static_cast<std::size_t>(grid.depth_cells));
  // Unset until the parallel pass below writes every slot (NodeArray: no serial fill first).
  graph.neighbor.resize(nodes * kDirectionCount);
  graph.edge_kind.resize(nodes * kDirectionCount);
  graph.edge_cost.resize(nodes * kDirectionCount);
  std::vector<OffMeshLink> second_jumps;
  {
    std::vector<uint8_t> climbable;
    if (settings.can_climb && !agent.climbable.empty()) climbable = climbableTriangles(mesh, agent);
    // Sweeps are tested on the triangles binned near them (exact, as the index would answer).
    // Against the memory the bake does not hold already: the graph and per-column tables.
    bins_task.wait();
    const double held = bakeHeldBytes(static_cast<double>(nodes), static_cast<double>(grid.columnCount()));
    if (bins->full() || !bins->fitsIn(binBytes(held))) return tooManyEntries(source, settings, bins->entries(), "sweep bin");
    EdgeInputs inputs{&builder, climbable.empty() ? nullptr : &climbable, bins.get(), &box_bottom};
    const NodeArray<uint16_t> diagonal_free = diagonalBandsFree(graph, inputs);
    inputs.diagonal_free = &diagonal_free;
    // Second jumps (the far rim of a pit whose drop holds the slot) per row, joined in row order.
    std::vector<std::vector<OffMeshLink>> row_jumps(static_cast<std::size_t>(grid.depth_cells));
    tbb::parallel_for(tbb::blocked_range<int32_t>(0, grid.depth_cells), [&](const tbb::blocked_range<int32_t>& r) {
      for (int32_t z = r.begin(); z != r.end(); ++z) {
        buildRowEdges(graph, inputs, z, &row_jumps[static_cast<std::size_t>(z)]);
        report.advance();
      }
    });
    for (const std::vector<OffMeshLink>& row : row_jumps) second_jumps.insert(second_jumps.end(), row.begin(), row.end());
  }
  // The edge stage's scratch (standing-box bottoms, diagonal bits, bins, candidate records) is
  // released here, before the later stages allocate theirs: 10 bytes a node off a large world's
  // peak.
  NodeArray<double>().swap(box_bottom);
  bins.reset();
  candidates.reset();
  report.end();

  // ---- links ----
  report.begin("links", agent.links.size());
  if (Status s = addCustomLinks(agent, graph, source, std::move(second_jumps), &result.warnings); !s.ok()) return s.error();
  report.end();

  // ---- clearance ----
  report.begin("clearance", 0);
  computeClearance(settings.radius, graph);
  report.end();

  // ---- components ----
  report.begin("components", 0);
  computeComponents(graph);
  report.end();

  // ---- route-distance fields ----
  report.begin("fields", agent.fields.size());
  if (Status s = computeRouteFields(agent, graph, source); !s.ok()) return s.error();
  report.end();

  if (const double node_count = static_cast<double>(graph.nodeCount());
      options.large_bake_nodes > 0 && node_count > options.large_bake_nodes) {
    char text[320];
    std::snprintf(text, sizeof text,
                  "%.3g floor nodes at cell_size %g m on a level %.4g x %.4g m across (a graph of about %.2g GB): a large bake; if the "
                  "level's units are not metres, import it with --scale; else a larger cell_size bakes faster (nodes "
                  "fall as 1 / cell_size^2)",
                  node_count, settings.cell_size, bounds.max.x - bounds.min.x, bounds.max.z - bounds.min.z,
                  node_count * kBakeBytesPerNode / 1e9);
    result.warnings.push_back(source + ": agent " + settings.name + ": " + text);
  }
  return result;
}

Result<BakeResult> bakeWorld(const sim::TriangleMesh& mesh, const BakeProfile& profile, const BakeOptions& options,
                             const std::string& source) {
  if (std::string e = profile.validate(); !e.empty()) return Error::badInput(source + ": " + e);
  if (std::string e = options.validate(); !e.empty()) return Error::badInput("bake options: " + e);
  if (std::string e = mesh.validate(); !e.empty()) return Error::badInput(source + ": " + e);
  if (Status s = checkGrids(mesh, profile, source); !s.ok()) return s.error();
  if (Status s = checkMemory(mesh, profile, options.memory_limit_bytes, source); !s.ok()) return s.error();
  const auto start = Clock::now();
  BakeResult result;
  tbb::task_arena arena(options.threads > 0 ? options.threads : tbb::task_arena::automatic);
  Error failure;
  bool failed = false;
  arena.execute([&] {
    Reporter report(options.observer, &result.timings, "");
    // Standing room and sweeps are decided on local triangle lists (local_overlap.h,
    // triangle_bins.h); bakeAgent reads the query index only for climb edges, so the index (a
    // serial stage) is built only when some agent climbs.
    bool climbs = false;
    for (const AgentProfile& agent : profile.agents) climbs = climbs || (agent.settings.can_climb && !agent.climbable.empty());
    report.begin("index", 0);
    std::optional<sim::QueryIndex> index;
    if (climbs) index.emplace(mesh);
    else index.emplace();
    report.end();
    for (const AgentProfile& agent : profile.agents) {
      // Memory grows with the number of columns (about 150 bytes each, one floor per column):
      // when it runs out, say which agent and what to change, not just "out of memory".
      Result<BakedAgent> baked = Error::runtime("");
      try {
        baked = bakeAgent(mesh, *index, agent, options, &result.timings, source);
      } catch (const std::bad_alloc&) {
        char cell[32];
        std::snprintf(cell, sizeof cell, "%g", agent.settings.effectiveCellSize());
        baked = Error::runtime(source + ": agent " + agent.settings.name + ": out of memory baking at cell_size " + cell +
                               " m (raise cell_size)");
      }
      if (!baked.ok()) {
        failure = baked.error();
        failed = true;
        return;
      }
      result.agents.push_back(std::move(baked.value()));
    }
  });
  if (failed) return failure;
  result.total_milliseconds = millisecondsSince(start);
  return result;
}

}  // namespace strata::nav
