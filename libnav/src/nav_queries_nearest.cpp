// Point queries on the layered graph: the floor below a point, the ring search of
// nearestWalkable, the floors of a column, components and clearance.
//
// Ring search after spec/grid-pathfinding-library.md ("Forgiving inputs"): square rings outward
// from the point's column, distances measured from the point itself (a point off the grid finds
// a floor only within the radius of where it really is: a path endpoint 20 m outside the world
// is NoStartNode, not a 20 m leg to the edge). On stacked floors each column offers the floor *below* the point
// (the highest one not more than `above` over it), so a point on the road under a bridge lands
// on the road, and a point on the roof lands on the roof. Among the columns the horizontally
// nearest wins, unless that floor lies well below the point and a column next to the point's own
// holds a floor at the point's level nearer than that drop (a point on a deck near its edge
// stays on it).

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "strata/nav/nav_queries.h"

namespace strata::nav {
namespace {

// A column index clamped into [0, cells - 1] (GridFrame::columnX saturates huge and NaN inputs).
int32_t clampedColumn(int32_t column, int32_t cells) { return std::clamp(column, 0, cells - 1); }

// A column's floor below a point and its surface height under the point.
struct FloorUnder {
  NodeId node = kNoNode;
  double surface = 0;  // metres: the floor's height carried along its plane to the point (clamped into the column)
  double plane = 0;    // metres: the same, the point not clamped (the level rule's comparison)
};

FloorUnder floorUnder(const LayeredGraph& graph, int32_t x, int32_t z, const sim::Vec3& point, double above, double below) {
  if (!graph.grid.contains(x, z)) return {};
  const double y = point.y;
  const uint32_t begin = graph.columnBegin(x, z);
  const double half = 0.5 * graph.grid.cell_size;
  const double dx = std::clamp(point.x - graph.grid.centerX(x), -half, half);
  const double dz = std::clamp(point.z - graph.grid.centerZ(z), -half, half);
  // How far a floor's surface lies above its centre's height at the point (clamped into the
  // column), along its plane: on a steep ramp in a wide column the surface under a point can
  // lie more than `above` below the centre's height (a review found a point 1 cm above a
  // 45-degree ramp in 1.12 m columns judged 0.54 m under it and snapped to the ground).
  auto rise = [&](uint32_t node, double ax, double az) {
    const sim::Vec3f normal = graph.normal[node];
    return normal.y > 0 ? -(normal.x * ax + normal.z * az) / normal.y : 0.0;
  };
  auto along = [&](uint32_t node) { return rise(node, dx, dz); };
  // Floors are sorted by ascending height: the last one within the band is the floor below.
  for (uint32_t n = graph.columnEnd(x, z); n > begin; --n) {
    const double h = graph.height[n - 1] + along(n - 1);  // the surface under the point
    // Heights are float32 (0.1 is stored as 0.100000001): the band's ends take a micrometre
    // plus one float32 spacing at the height (float32Spacing: 7.8 mm at 1e5 m), so a floor
    // written 0.5 m above the point still counts (an audit). (A micrometre a metre, as before,
    // was 0.1 m at y = 1e5 and 1 m near 1e6, so a level raised that high snapped points to a
    // platform 0.55 m over them; a hunt.)
    const double slack = 1e-6 + float32Spacing(h);
    if (h > y + above + slack) continue;
    if (h < y - below - slack) return {};
    // This floor is the point's only when the point is not in the room below it (inRoomOver):
    // clearly under the ceiling of the floor beneath, the floor above is through the slab,
    // whether its centre lies above the point (within `above`) or, on a slope, below it. Both
    // are measured at the column centre; on a slope the ceiling at the point follows the
    // floor above's plane (a slab's underside runs parallel to its top), at the point's own x/z
    // clamped into the column.
    if (n - 1 > begin && graph.inRoomOver(n - 2, y, along(n - 1))) continue;
    // Nor is a floor whose ceiling (its headroom) lies clearly under the point: that floor is
    // through a slab (an audit: a point 5 cm over a slab with no standing room on it, a crawl
    // space under a plate, snapped to the ground 3 m under the slab; a route from it then started
    // downstairs). Lower floors are farther through it. The ceiling follows the plane of the
    // floor above it when there is one, as in inRoomOver above (an audit: a point 2.5 cm under a
    // 45-degree roof, off its column's centre uphill, was over the ground's ceiling carried along
    // the flat ground and under the roof's, so neither floor was its own and it took the roof one
    // column over, through the roof), else the floor's own plane.
    const double ceiling_lift = n < graph.columnEnd(x, z) ? along(n) : along(n - 1);
    if (graph.overCeilingOf(n - 1, y, ceiling_lift, 1e-6)) return {};  // (float32's spacing: in the margin)
    return {n - 1, h, graph.height[n - 1] + rise(n - 1, point.x - graph.grid.centerX(x), point.z - graph.grid.centerZ(z))};
  }
  return {};
}

// The nearest of the floors offered, distances within `tie` of the smallest a tie broken by the
// lower node id. Every offer within `tie` of the smallest so far is kept and the choice is made
// at the end among those within `tie` of the final smallest: choosing as offers came, against
// the running choice, let each tie move it a little farther (a point 1e6 m off the level's edge
// took a floor 3.3 m along that edge from the nearest one, 1e7 m off 33 m: an audit).
class NearestOf {
 public:
  struct Offer {
    double distance;
    NodeId node;
    int32_t x, z;
    double surface;
  };
  NearestOf(double tie, std::vector<Offer>& store) : tie_(tie), offers_(store) { offers_.clear(); }
  void offer(double distance, NodeId node, int32_t x, int32_t z, double surface) {
    if (distance > smallest_ + tie_) return;
    smallest_ = std::min(smallest_, distance);
    offers_.push_back({distance, node, x, z, surface});
  }
  bool empty() const { return offers_.empty(); }
  double smallest() const { return smallest_; }
  /// The lowest node among the offers within the tie of the smallest (empty(): none).
  const Offer& chosen() const {
    const Offer* best = nullptr;
    for (const Offer& o : offers_)
      if (o.distance <= smallest_ + tie_ && (best == nullptr || o.node < best->node)) best = &o;
    return *best;
  }

 private:
  double tie_;
  double smallest_ = std::numeric_limits<double>::infinity();
  std::vector<Offer>& offers_;
};

}  // namespace

NodeId floorBelowAt(const LayeredGraph& graph, int32_t x, int32_t z, const sim::Vec3& point, double above, double below) {
  return floorUnder(graph, x, z, point, above, below).node;
}

NodeId floorBelow(const LayeredGraph& graph, int32_t x, int32_t z, double y, double above, double below) {
  if (!graph.grid.contains(x, z)) return kNoNode;
  return floorBelowAt(graph, x, z, {graph.grid.centerX(x), y, graph.grid.centerZ(z)}, above, below);
}

std::optional<FloorHit> nearestWalkable(const LayeredGraph& graph, const sim::Vec3& point, const SnapSettings& snap) {
  constexpr double kTie = 1e-6;  // metres
  constexpr double kLevel = 0.1;  // metres: a floor this close to the point's height is at its level
  const GridFrame& grid = graph.grid;
  if (grid.width_cells <= 0 || grid.depth_cells <= 0 || graph.column_offsets.size() != grid.columnCount() + 1)
    return std::nullopt;
  if (!std::isfinite(point.x) || !std::isfinite(point.y) || !std::isfinite(point.z)) return std::nullopt;
  // Every distance is measured from the point itself. A point off the grid by more than the
  // radius has no candidate; otherwise the rings start at the grid column nearest to it.
  const double min_x = grid.origin_x, max_x = grid.cornerX(grid.width_cells);
  const double min_z = grid.origin_z, max_z = grid.cornerZ(grid.depth_cells);
  const double gap_x = std::max({min_x - point.x, 0.0, point.x - max_x});
  const double gap_z = std::max({min_z - point.z, 0.0, point.z - max_z});
  if (std::hypot(gap_x, gap_z) > snap.max_horizontal) return std::nullopt;
  const bool inside = gap_x == 0 && gap_z == 0;
  const int32_t cx = clampedColumn(grid.columnX(point.x), grid.width_cells);
  const int32_t cz = clampedColumn(grid.columnZ(point.z), grid.depth_cells);
  // The point's larger axis distance to the start column's centre: a column on ring r lies
  // r * cell_size from that centre along some axis, so at least r * cell_size - offset from the
  // point (offset <= cell_size / 2 for a point on the grid).
  const double offset = std::max(std::fabs(grid.centerX(cx) - point.x), std::fabs(grid.centerZ(cz) - point.z));
  const int32_t max_ring = static_cast<int32_t>(std::min(std::ceil((snap.max_horizontal + kTie + offset) / grid.cell_size),
                                                         static_cast<double>(std::max(grid.width_cells, grid.depth_cells))));
  // Distances within a micrometre are a tie (a point on a column border is equally far from both
  // centres; on a grid whose origin is off the cell lattice the centres' rounding depends on that
  // origin, GridFrame), broken by the lower node id: the lower z, then x, of the column, the same
  // on every grid (NearestOf).
  thread_local std::vector<NearestOf::Offer> offers;
  auto hitOf = [&](const NearestOf::Offer& o) {
    return FloorHit{o.node, {grid.centerX(o.x), static_cast<double>(graph.height[o.node]), grid.centerZ(o.z)}, o.distance};
  };
  // The horizontally nearest floor below the point, and its surface.
  NearestOf nearest(kTie, offers);
  auto consider = [&](int32_t x, int32_t z) {
    const FloorUnder f = floorUnder(graph, x, z, point, snap.above, snap.below);
    const NodeId n = f.node;
    if (n == kNoNode) return;
    const double d = std::hypot(grid.centerX(x) - point.x, grid.centerZ(z) - point.z);
    // The point's own column is always a candidate (its centre may lie up to half a diagonal away).
    // A point on a border between columns is on each of them (GridFrame::onColumn), whichever
    // columnX / columnZ rounded to, so the tie below chooses among them: with a radius too small
    // to reach their centres, 0.9 on a 0.3 m grid took the +X column and -2.1 (whose quotient
    // rounds below -7) the -X one (an audit).
    // A centre within kTie beyond the radius is within it: a point on a column border with a
    // radius of half a cell reaches both centres, whichever rounds a little farther (an audit:
    // --radius 0.15 on a 0.3 m grid took the upper column, the tie's rule the lower).
    if (d > snap.max_horizontal + kTie && !(inside && ((x == cx && z == cz) || grid.onColumn(x, z, point.x, point.z)))) return;
    nearest.offer(d, n, x, z, f.surface);
  };
  // Each ring is walked only where it lies on the grid, and rings stop past the farthest edge (a
  // ring walked whole cost its perimeter off the grid too: on a world 66,700 columns long and 34
  // wide a 20 km radius took 86 s; an audit).
  const int32_t last_ring = std::max({cx, grid.width_cells - 1 - cx, cz, grid.depth_cells - 1 - cz});
  for (int32_t ring = 0; ring <= std::min(max_ring, last_ring); ++ring) {
    if (!nearest.empty() && ring * grid.cell_size - offset > nearest.smallest() + kTie) break;
    if (ring == 0) {
      consider(cx, cz);
      continue;
    }
    const int32_t x_lo = std::max(cx - ring, 0), x_hi = std::min(cx + ring, grid.width_cells - 1);
    const int32_t z_lo = std::max(cz - ring + 1, 0), z_hi = std::min(cz + ring - 1, grid.depth_cells - 1);
    for (const int32_t z : {cz - ring, cz + ring})
      if (z >= 0 && z < grid.depth_cells)
        for (int32_t x = x_lo; x <= x_hi; ++x) consider(x, z);
    for (const int32_t x : {cx - ring, cx + ring})
      if (x >= 0 && x < grid.width_cells)
        for (int32_t z = z_lo; z <= z_hi; ++z) consider(x, z);
  }
  if (nearest.empty()) return std::nullopt;
  const NearestOf::Offer& chosen = nearest.chosen();
  const FloorHit best = hitOf(chosen);
  const double best_surface = chosen.surface;
  // A point standing on a floor near its edge can lie over a column whose centre is off that
  // floor: on a bridge deck, its own column holds only the road 4 m below. When the floor found
  // lies more than kLevel below the point and a column around the point's own holds a floor at
  // its level (its surface at most kLevel below the point or kAbove above it) nearer to the point
  // horizontally (to the column's square) than the found floor is vertically, the point is on
  // that floor: the nearest such column's. A point inside a floor's slab or a solid step (the
  // floor found above it) keeps that floor; one hovering over the ground beside a low step keeps
  // the ground, the step's column being farther than the ground's height gap; one hovering just
  // below a tread's top before its riser is not on the tread. (Reviews sampled 52,000 points on
  // stairs, curbs, ramps, decks and the Recast meshes against the rule before.)
  constexpr double kAbove = 0.03;  // metres
  const double gap = point.y - best_surface;
  if (inside && gap > kLevel) {
    const double half = 0.5 * grid.cell_size;
    const auto found = graph.nodeColumn(best.node);
    // The point clearly under a ceiling right above it in its own column (the floor over the
    // floor beneath, at most kAbove over the point along its plane, more than the ceiling margin):
    // a floor over the point in a column around is then that ceiling seen from below, not the
    // point's level (an audit: a point 2 cm under a thin ramp took the ramp one column downhill,
    // where its own column's rule gives the ground under it).
    bool under_ceiling = false;
    if (const FloorUnder own = floorUnder(graph, cx, cz, point, snap.above, snap.below);
        own.node != kNoNode && own.node + 1 < graph.columnEnd(cx, cz)) {
      const NodeId up = own.node + 1;
      const double ceiling = graph.surfaceAt(up, {cx, cz}, point.x, point.z);
      const double lift = ceiling - double(graph.height[up]);
      under_ceiling = ceiling - point.y <= kAbove + LayeredGraph::ceilingMargin(ceiling) && graph.inRoomOver(own.node, point.y, lift);
    }
    thread_local std::vector<NearestOf::Offer> level_offers;
    NearestOf level(kTie, level_offers);
    for (int32_t z = cz - 1; z <= cz + 1; ++z)
      for (int32_t x = cx - 1; x <= cx + 1; ++x) {
        // Every column around the point but the found floor's: on a column border the point's
        // own column can hold the level floor where the tie went to the lower column (an audit:
        // a point on a stair tread took the tread one column over, 0.34 m away, not its own,
        // 0.15 m away).
        if (x == found[0] && z == found[1]) continue;
        const FloorUnder f = floorUnder(graph, x, z, point, snap.above, snap.below);
        // The same difference as `gap`, so that a floor of the found one's height is never level
        // (1.1 - 0.1 rounds to 1.0 where 1.1 - 1.0 rounds above 0.1). The floor's plane is
        // carried to the point itself, not to the edge of its column, so a column of the same
        // ramp is never level where the point's own is not (an audit: a point 0.12 m over a ramp
        // took a column one over, clamped to its edge 0.1 m higher).
        // (kAbove takes float32's spacing at the height too: 1e6 m up a stored height is up to 3.1 cm
        // off its surface, and a point on a deck's surface was "more than 3 cm under" it: an audit.)
        const double below = point.y - f.plane;
        if (f.node == kNoNode || below > kLevel || -below > kAbove + float32Spacing(f.plane) || (under_ceiling && below < 0))
          continue;
        const double d = std::hypot(grid.centerX(x) - point.x, grid.centerZ(z) - point.z);
        if (d > snap.max_horizontal + kTie) continue;
        const double edge = std::hypot(std::max(0.0, std::fabs(grid.centerX(x) - point.x) - half),
                                       std::max(0.0, std::fabs(grid.centerZ(z) - point.z) - half));
        if (!(edge < gap)) continue;
        level.offer(d, f.node, x, z, f.surface);
      }
    if (!level.empty()) return hitOf(level.chosen());
  }
  return best;
}

namespace {

// `height`: the floor's surface under the point asked about (LayeredGraph::surfaceAt), not its
// column centre's (an audit: on a slope `query height` read up to 0.15 m off the waypoint heights
// of a route through the same point).
FloorLayer layerOf(const LayeredGraph& graph, NodeId n, double height) {
  FloorLayer layer;
  layer.node = n;
  layer.height = height;
  layer.headroom = graph.headroom[n];
  layer.clearance = graph.clearance[n];
  layer.area = graph.area[n];
  layer.component = graph.component[n];
  return layer;
}

}  // namespace

std::vector<FloorLayer> floorsAt(const LayeredGraph& graph, double x, double z) {
  std::vector<FloorLayer> layers;
  if (!std::isfinite(x) || !std::isfinite(z) || !(graph.grid.cell_size > 0)) return layers;
  int32_t cx = graph.grid.columnX(x), cz = graph.grid.columnZ(z);
  // A point on a border between columns reads the column on its +X / +Z side. floor(x / cell) can
  // put a typed border just below it (x = -2.1 at cell 0.3: -7.000000000000001, so column -8 where
  // the border is the side of column -7; 22 of the 201 multiples of 0.3 in -30..30, an audit): a
  // point on the next column's square by GridFrame::onColumn (its sides within a nanometre a
  // metre) is on that column.
  if (graph.grid.onColumn(cx + 1, cz, x, z)) ++cx;
  if (graph.grid.onColumn(cx, cz + 1, x, z)) ++cz;
  if (!graph.grid.contains(cx, cz)) return layers;
  for (uint32_t n = graph.columnBegin(cx, cz); n < graph.columnEnd(cx, cz); ++n)
    layers.push_back(layerOf(graph, n, graph.surfaceAt(n, {cx, cz}, x, z)));
  return layers;
}

std::optional<uint32_t> componentAt(const LayeredGraph& graph, const sim::Vec3& point, const SnapSettings& snap) {
  const auto hit = nearestWalkable(graph, point, snap);
  if (!hit) return std::nullopt;
  return graph.component[hit->node];
}

std::optional<FloorLayer> clearanceAt(const LayeredGraph& graph, const sim::Vec3& point, const SnapSettings& snap) {
  const auto hit = nearestWalkable(graph, point, snap);
  if (!hit) return std::nullopt;
  return layerOf(graph, hit->node, graph.surfaceAt(hit->node, point.x, point.z));
}

}  // namespace strata::nav
