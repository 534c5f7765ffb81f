// The column builder: floors of surface columns (see column_builder.h for the rules).
//
// Spec: character-movement-and-navigation.md, "Surface columns instead of a single height field":
// cast down through the colliders, collect every hit with an accepted slope normal, merge
// heights closer than the merge distance, reject floors without standing room, record headroom.
//
// The bake path rasterizes triangles instead of casting one ray per column: for each triangle,
// every column centre inside its x/z projection (edges included) receives the triangle's exact
// height at that centre. That is the set of surfaces an all-hits vertical ray through the centre
// meets, found in one pass over the triangles of a tile instead of one tree walk per column. Both
// paths then run the same rules (floorsFromHitsWith); the bake path decides standing room on the
// tile's triangles near the column with the index's own exact test (local_overlap.cpp) instead of
// a tree walk per floor. tests/nav/column_oracle_tests.cpp checks that the two paths agree on
// every real mesh.

#include "strata/nav/column_builder.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <unordered_map>

#include "local_overlap.h"
#include "triangle_footprint.h"

namespace strata::nav {

GridFrame makeGridFrame(const sim::Aabb& bounds, double cell_size) {
  GridFrame grid;
  grid.cell_size = cell_size;
  if (bounds.empty()) {
    grid.width_cells = grid.depth_cells = 1;
    return grid;
  }
  grid.origin_x = std::floor(bounds.min.x / cell_size) * cell_size;
  grid.origin_z = std::floor(bounds.min.z / cell_size) * cell_size;
  const auto count = [&](double extent) {
    const double cells = std::floor(extent / cell_size) + 1;
    return static_cast<int32_t>(std::clamp(cells, 1.0, 2.0e9));
  };
  grid.width_cells = count(bounds.max.x - grid.origin_x);
  grid.depth_cells = count(bounds.max.z - grid.origin_z);
  return grid;
}

// Imports join a mesh's identical vertices, but not across meshes, and a flat-shaded box keeps a
// vertex per face: vertices are joined by position here, then triangles by union-find.
namespace {
// Per vertex: the first vertex at its position (-0 and +0 one position), by an open-addressing
// table of vertex indices.
std::vector<uint32_t> positionRepresentatives(const sim::TriangleMesh& mesh) {
  const std::vector<sim::Vec3f>& v = mesh.vertices;
  auto bits = [](float f) {
    if (f == 0.0f) f = 0.0f;  // -0 and +0 are one position
    uint32_t b;
    std::memcpy(&b, &f, sizeof b);
    return b;
  };
  auto equal = [&](uint32_t a, uint32_t b) {
    return bits(v[a].x) == bits(v[b].x) && bits(v[a].y) == bits(v[b].y) && bits(v[a].z) == bits(v[b].z);
  };
  // Per vertex: the first vertex at its position, by an open-addressing table of vertex indices.
  std::size_t capacity = 16;
  while (capacity < 2 * v.size()) capacity *= 2;
  std::vector<uint32_t> table(capacity, ~0u);
  std::vector<uint32_t> same(v.size());
  for (uint32_t i = 0; i < v.size(); ++i) {
    uint64_t h = bits(v[i].x) * 0x9E3779B97F4A7C15ull;
    h = (h ^ (h >> 29) ^ bits(v[i].y)) * 0xBF58476D1CE4E5B9ull;
    h = (h ^ (h >> 31) ^ bits(v[i].z)) * 0x94D049BB133111EBull;
    for (std::size_t slot = (h ^ (h >> 32)) & (capacity - 1);; slot = (slot + 1) & (capacity - 1)) {
      if (table[slot] == ~0u) {
        table[slot] = same[i] = i;
        break;
      }
      if (equal(table[slot], i)) {
        same[i] = table[slot];
        break;
      }
    }
  }
  return same;
}

// trianglePieces, given `same` == positionRepresentatives(mesh).
std::vector<uint32_t> piecesOf(const sim::TriangleMesh& mesh, const std::vector<uint32_t>& same) {
  const std::vector<sim::Vec3f>& v = mesh.vertices;
  const auto triangles = static_cast<uint32_t>(mesh.triangleCount());
  std::vector<uint32_t> parent(triangles);
  std::iota(parent.begin(), parent.end(), 0u);
  auto find = [&](uint32_t t) {
    while (parent[t] != t) t = parent[t] = parent[parent[t]];
    return t;
  };
  std::vector<uint32_t> owner(v.size(), ~0u);  // per position: a triangle touching it
  for (uint32_t t = 0; t < triangles; ++t)
    for (const uint32_t corner : mesh.triangles[t]) {
      uint32_t& o = owner[same[corner]];
      if (o == ~0u) {
        o = t;
      } else if (const uint32_t a = find(o), b = find(t); a != b) {
        parent[std::max(a, b)] = std::min(a, b);
      }
    }
  for (uint32_t t = 0; t < triangles; ++t) parent[t] = find(t);
  return parent;
}
}  // namespace

std::vector<uint32_t> trianglePieces(const sim::TriangleMesh& mesh) { return piecesOf(mesh, positionRepresentatives(mesh)); }

ClosedPieceWinding closedPieceWinding(const sim::TriangleMesh& mesh) {
  ClosedPieceWinding out;
  const auto triangles = static_cast<uint32_t>(mesh.triangleCount());
  if (triangles == 0) return out;
  const std::vector<uint32_t> same = positionRepresentatives(mesh);
  const std::vector<uint32_t> piece = piecesOf(mesh, same);
  // A piece is closed when each of its edges, between two positions, is the edge of exactly two
  // of its triangles, once either way (a surface with no hole, each triangle wound as the ones
  // beside it). The directed edges sorted: each must be there once and its reverse once.
  std::vector<uint64_t> edges;
  edges.reserve(std::size_t(3) * triangles);
  std::vector<uint8_t> open(triangles, 0);  // by piece (a triangle index)
  std::vector<uint32_t> piece_at(mesh.vertices.size(), 0);  // by position: the piece through it
  for (uint32_t t = 0; t < triangles; ++t) {
    const auto& tri = mesh.triangles[t];
    const uint32_t c[3] = {same[tri[0]], same[tri[1]], same[tri[2]]};
    if (c[0] == c[1] || c[1] == c[2] || c[2] == c[0]) open[piece[t]] = 1;
    for (int k = 0; k < 3; ++k) {
      piece_at[c[k]] = piece[t];
      edges.push_back(uint64_t(c[k]) << 32 | c[(k + 1) % 3]);
    }
  }
  std::sort(edges.begin(), edges.end());
  for (std::size_t i = 0; i < edges.size(); ++i) {
    const uint64_t e = edges[i];
    const auto from = static_cast<uint32_t>(e >> 32), to = static_cast<uint32_t>(e);
    const bool twice = (i + 1 < edges.size() && edges[i + 1] == e) || (i > 0 && edges[i - 1] == e);
    const uint64_t reverse = uint64_t(to) << 32 | from;
    if (twice || !std::binary_search(edges.begin(), edges.end(), reverse)) open[piece_at[from]] = 1;
  }
  // Each closed piece's signed volume (divergence theorem, about its first corner so that a
  // level far from the origin loses no digits) and extent.
  struct Closed {
    sim::Vec3 origin;
    double volume = 0;
    sim::Aabb box;
  };
  std::unordered_map<uint32_t, Closed> closed;
  for (uint32_t t = 0; t < triangles; ++t) {
    if (open[piece[t]]) continue;
    const sim::Vec3 p0 = mesh.vertex(t, 0), p1 = mesh.vertex(t, 1), p2 = mesh.vertex(t, 2);
    auto [it, inserted] = closed.try_emplace(piece[t]);
    Closed& c = it->second;
    if (inserted) c.origin = p0;
    const sim::Vec3 a = p0 - c.origin, b = p1 - c.origin, d = p2 - c.origin;
    c.volume += sim::dot(a, sim::cross(b, d)) / 6.0;
    for (const sim::Vec3& p : {p0, p1, p2}) c.box.expand(p);
  }
  const sim::Aabb bounds = mesh.bounds();
  for (const auto& [id, c] : closed) {
    const double volume = c.volume;
    const sim::Vec3 size = c.box.extent();
    const double extent = std::max({size.x, size.y, size.z});
    // Flat (a double-sided sheet is closed by this rule and holds nothing): no orientation.
    if (!(std::fabs(volume) > 1e-6 * extent * extent * extent)) continue;
    // Facing inward and spanning the whole mesh: a skybox, or a room modelled as a box seen from
    // inside (its floor faces up into it), which an import meant so (a re-audit: terrain under
    // an inward-facing 200 m box was called inside out).
    if (volume < 0 && c.box.min == bounds.min && c.box.max == bounds.max) {
      ++out.enclosures;
      continue;
    }
    ++out.closed;
    if (volume < 0) {
      ++out.inside_out;
      out.inside_out_volume -= volume;
    } else {
      out.volume += volume;
    }
  }
  return out;
}

ColumnBuilder::ColumnBuilder(const sim::TriangleMesh& mesh, const sim::QueryIndex& index,
                             const AgentSettings& settings, const GridFrame& grid)
    : ColumnBuilder(mesh, index, settings, grid, mesh.bounds()) {}

ColumnBuilder::ColumnBuilder(const sim::TriangleMesh& mesh, const sim::QueryIndex& index,
                             const AgentSettings& settings, const GridFrame& grid, const sim::Aabb& bounds,
                             std::shared_ptr<const std::vector<uint32_t>> pieces)
    : mesh_(mesh), index_(index), settings_(settings), grid_(grid),
      pieces_(pieces ? std::move(pieces) : std::make_shared<const std::vector<uint32_t>>(trianglePieces(mesh))) {
  min_normal_y_ = minFloorNormalY(settings.max_slope);
  ray_top_ = bounds.empty() ? 1.0 : bounds.max.y + 1.0;
  ray_length_ = bounds.empty() ? 2.0 : (bounds.max.y - bounds.min.y) + 2.0;
  // LocalBoxTest grows a box by 1e-4 + 1e-6 * (|centre| components + half extents); a standing
  // box's centre lies within the mesh bounds grown by the agent's size. Twice that bound (and a
  // little more for the column arithmetic) keeps every triangle the test could accept.
  double coordinates = settings.radius + settings.height + settings.cell_size;
  if (!bounds.empty())
    coordinates += std::max({std::fabs(bounds.min.x), std::fabs(bounds.max.x), std::fabs(bounds.min.y),
                             std::fabs(bounds.max.y), std::fabs(bounds.min.z), std::fabs(bounds.max.z)});
  near_pad_ = 2 * (1e-4 + 1e-6 * (3 * coordinates + 2 * settings.radius + settings.height)) + 1e-6 * settings.cell_size;
}

double ColumnBuilder::standingBoxBottom(const sim::Vec3& normal) const {
  const double ny = std::max(normal.y, 1e-9);
  const double rise = settings_.radius * (std::fabs(normal.x) + std::fabs(normal.z)) / ny;
  return std::max(settings_.step_height, rise) + kHeightTolerance;
}

sim::Aabb ColumnBuilder::standingBox(double center_x, double center_z, double floor_height,
                                     const sim::Vec3& normal) const {
  const double bottom = standingBoxBottom(normal);
  sim::Aabb box;
  if (bottom >= settings_.height) return box;  // empty: never standing room
  box.min = {center_x - settings_.radius, floor_height + bottom, center_z - settings_.radius};
  box.max = {center_x + settings_.radius, floor_height + settings_.height, center_z + settings_.radius};
  return box;
}

bool ColumnBuilder::hasStandingRoom(double center_x, double center_z, double floor_height,
                                    const sim::Vec3& normal) const {
  const sim::Aabb box = standingBox(center_x, center_z, floor_height, normal);
  return !box.empty() && !index_.overlapsBox(box);
}

uint32_t ColumnBuilder::pieceOf(uint32_t triangle) const {
  return triangle < pieces_->size() ? (*pieces_)[triangle] : triangle;  // a caller's own hit (tests): its own piece
}

namespace {
// A level triangle's height is its vertices' height exactly: the ray arithmetic leaves a floor at
// 0 at -1.8e-15, which a script comparing heights with 0 would trip over.
double flatHeight(const sim::TriangleMesh& mesh, const SurfaceHit& hit) {
  if (hit.triangle >= mesh.triangleCount()) return hit.height;  // a caller's own hits (tests)
  const double y = mesh.vertex(hit.triangle, 0).y;
  return mesh.vertex(hit.triangle, 1).y == y && mesh.vertex(hit.triangle, 2).y == y ? y : hit.height;
}
}  // namespace

double floorRoundingSlack(const sim::Vec3& p0, const sim::Vec3& p1, const sim::Vec3& p2) {
  constexpr double kHalfUlp = 0x1p-24;  // float32's relative rounding bound
  auto bound = [&](const sim::Vec3& a, const sim::Vec3& b) {  // of an edge's rounding, per axis
    return sim::Vec3{kHalfUlp * (std::fabs(a.x) + std::fabs(b.x)), kHalfUlp * (std::fabs(a.y) + std::fabs(b.y)),
                     kHalfUlp * (std::fabs(a.z) + std::fabs(b.z))};
  };
  const sim::Vec3 e1 = p1 - p0, e2 = p2 - p0;
  const double da = sim::length(bound(p1, p0)), db = sim::length(bound(p2, p0));
  const double cross = sim::length(sim::cross(e1, e2));
  // (e1 + a) x (e2 + b) - e1 x e2 = a x e2 + e1 x b + a x b; a unit vector moves by at most
  // twice the change of the vector over its length.
  const double change = da * sim::length(e2) + db * sim::length(e1) + da * db;
  if (!(cross > 0)) return kMaxSlopeRoundingSlack;
  return std::min(kMaxSlopeRoundingSlack, 2 * change / cross);
}

template <class HasRoom>
void ColumnBuilder::floorsFromHitsWith(std::vector<SurfaceHit>& hits, std::vector<ColumnFloor>& out,
                                       HasRoom&& has_room) const {
  const std::size_t first = out.size();
  std::sort(hits.begin(), hits.end(), [](const SurfaceHit& a, const SurfaceHit& b) {
    if (a.height != b.height) return a.height > b.height;
    return a.triangle < b.triangle;
  });
  constexpr double kAbove = 1e-6;  // a surface counts as "above" a floor beyond this
  double group_top = std::numeric_limits<double>::infinity();
  bool have_group = false;
  // A column of many surfaces (a stack of storeys): each hit's next hit of the same piece, so that
  // insideSolid need not scan every surface below a floor for each piece above it (an audit:
  // 8,000 plates stacked in one place baked their columns in 54 s, four times longer for every
  // doubling of the stack).
  constexpr std::size_t kChainAbove = 64;
  thread_local std::vector<uint32_t> next_same;
  next_same.clear();
  if (hits.size() > kChainAbove) {
    thread_local std::unordered_map<uint32_t, uint32_t> below;  // piece -> its hit found last, going up
    below.clear();
    next_same.resize(hits.size());
    for (std::size_t k = hits.size(); k-- > 0;) {
      const auto [it, inserted] = below.try_emplace(pieceOf(hits[k].triangle), static_cast<uint32_t>(k));
      next_same[k] = inserted ? static_cast<uint32_t>(hits.size()) : it->second;
      it->second = static_cast<uint32_t>(k);
    }
  }
  for (std::size_t i = 0; i < hits.size(); ++i) {
    const SurfaceHit& hit = hits[i];
    // Not an upward-facing walkable surface, unless within its corners' rounding of one.
    if (hit.normal.y < min_normal_y_ &&
        !(hit.normal.y >= min_normal_y_ - kMaxSlopeRoundingSlack && hit.triangle < mesh_.triangleCount() &&
          hit.normal.y >= min_normal_y_ - floorRoundingSlack(mesh_.vertex(hit.triangle, 0), mesh_.vertex(hit.triangle, 1),
                                                             mesh_.vertex(hit.triangle, 2))))
      continue;
    // Merged: closer than merge_distance by more than kAbove (surfaces exactly that far apart
    // stay two: their hits' rounding merged them in some columns and not others, an audit), and
    // always within kAbove (one surface hit twice, as on the edge two triangles share, is one
    // floor also when merge_distance is 0).
    if (have_group && group_top - hit.height < std::max(settings_.merge_distance - kAbove, kAbove)) continue;
    have_group = true;
    group_top = hit.height;
    // Headroom: the lowest hit strictly above this floor (hits are sorted downward).
    double headroom = std::numeric_limits<double>::infinity();
    for (std::size_t j = i; j-- > 0;)
      if (hits[j].height > hit.height + kAbove) {
        headroom = hits[j].height - hit.height;
        break;
      }
    // Inside a solid (a box resting on the floor or sunk through it, wider than the standing
    // box, whose walls that box cannot touch).
    if (insideSolid(hits, i, next_same)) continue;
    // Anything right above the centre lower than the standing box's bottom (a plate 0.3 m over
    // the ground, under the step height) leaves no room either: the box starts at the step
    // height so that low lips *beside* the centre do not count, not to let the agent stand
    // with its feet inside a slab.
    if (headroom < standingBoxBottom(hit.normal)) continue;
    if (!has_room(hit.height, hit.normal)) continue;
    out.push_back({flatHeight(mesh_, hit), hit.normal, hit.triangle, headroom});
  }
  // Ascending height, the node order of a column.
  std::reverse(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
}

bool ColumnBuilder::insideSolid(const std::vector<SurfaceHit>& hits, std::size_t i,
                                const std::vector<uint32_t>& next_same) const {
  constexpr double kLevel = 1e-6;      // hits this close in height are at one level
  constexpr std::size_t kPieces = 16;  // pieces on the first level above that are examined
  const std::size_t m = hits.size();
  const double h = hits[i].height;
  // Hits are sorted by descending height: indices below level_first lie above the floor's level.
  std::size_t level_first = i;
  while (level_first > 0 && hits[level_first - 1].height <= h + kLevel) --level_first;
  if (level_first == 0) return false;  // nothing above
  const uint32_t floor_piece = pieceOf(hits[i].triangle);
  // The pieces with a surface on the first level above the floor, one by one: the floor is
  // inside piece X when one of X's surfaces on that level faces up (X's top, seen from within;
  // other pieces may touch it there: a ceiling slab on a pillar, a crate on a crate, a decal, and
  // so may X itself, facing down: a crate welded by its corners to the crate above it, one piece)
  // and X's nearest surfaces at or below the floor all face down (X's bottom, the floor lying
  // between).
  // Only the first level: a piece whose top lies beyond some other surface is not taken (in
  // zdm2 a storey's floor under its ceiling lay between a roof's top and the map's underside, one
  // open piece). Never inside its own piece: a box welded to a tiled floor cannot be told there
  // from a double-sided floor welded to a deck above it (a floor node left inside a solid is an
  // island; a floor lost is a route lost).
  const double first_level = hits[level_first - 1].height;
  uint32_t seen[kPieces];
  std::size_t seen_count = 0;
  for (std::size_t a = level_first; a-- > 0 && hits[a].height <= first_level + kLevel && seen_count < kPieces;) {
    const uint32_t x = pieceOf(hits[a].triangle);
    if (std::find(seen, seen + seen_count, x) != seen + seen_count) continue;
    seen[seen_count++] = x;
    // X's nearest level above: a hit of X there faces up.
    bool exits = false;
    for (std::size_t k = a + 1; k-- > 0 && hits[k].height <= hits[a].height + kLevel;)
      if (pieceOf(hits[k].triangle) == x && hits[k].normal.y > 0) exits = true;
    if (!exits) continue;
    if (x == floor_piece) continue;
    // X's nearest level at or below the floor: every hit of X there faces down.
    std::size_t b = level_first;
    if (next_same.empty()) {
      while (b < m && pieceOf(hits[b].triangle) != x) ++b;
    } else {  // X's hits from hits[a] down, to the first at or below the floor's level
      b = a;
      while (b < level_first) b = next_same[b];
    }
    if (b == m) continue;
    bool enters = true;
    for (std::size_t k = b; k < m && hits[k].height >= hits[b].height - kLevel; ++k)
      if (pieceOf(hits[k].triangle) == x && !(hits[k].normal.y < 0)) enters = false;
    if (enters) return true;
  }
  return false;
}

void ColumnBuilder::floorsFromHits(std::vector<SurfaceHit>& hits, double center_x, double center_z,
                                   std::vector<ColumnFloor>& out) const {
  out.clear();
  floorsFromHitsWith(hits, out, [&](double floor_height, const sim::Vec3& normal) {
    return hasStandingRoom(center_x, center_z, floor_height, normal);
  });
}

std::vector<ColumnFloor> ColumnBuilder::buildColumn(int32_t x, int32_t z) const {
  std::vector<ColumnFloor> floors;
  if (!grid_.contains(x, z)) return floors;
  const double cx = grid_.centerX(x), cz = grid_.centerZ(z);
  std::vector<sim::RayHit> ray_hits;
  index_.raycastAll({cx, ray_top_, cz}, {0, -1, 0}, ray_length_, ray_hits);
  std::vector<SurfaceHit> hits;
  hits.reserve(ray_hits.size());
  for (const sim::RayHit& hit : ray_hits) hits.push_back({hit.point.y, hit.normal, hit.triangle});
  floorsFromHits(hits, cx, cz, floors);
  return floors;
}

void ColumnBuilder::buildRect(int32_t x0, int32_t z0, int32_t x1, int32_t z1, std::span<const uint32_t> triangles,
                              RectFloors& out, const TriangleCandidates* shared) const {
  const int32_t width = x1 - x0, depth = z1 - z0;
  const std::size_t columns = static_cast<std::size_t>(width) * static_cast<std::size_t>(depth);
  out.floors.clear();
  out.offsets.assign(columns + 1, 0);

  struct Entry {
    uint32_t column;
    SurfaceHit hit;
  };
  std::vector<Entry> entries;
  entries.reserve(triangles.size() * 4);
  const double cs = grid_.cell_size;
  for (uint32_t t : triangles) {
    const sim::Vec3 a = mesh_.vertex(t, 0), b = mesh_.vertex(t, 1), c = mesh_.vertex(t, 2);
    const sim::Vec3 cr = sim::cross(b - a, c - a);
    const double len = sim::length(cr);
    if (!(len > 0)) continue;  // degenerate: the query index skips it too
    const sim::Vec3 n = cr / len;
    // Column centres inside the x/z bounds of the triangle.
    const double min_x = std::min({a.x, b.x, c.x}), max_x = std::max({a.x, b.x, c.x});
    const double min_z = std::min({a.z, b.z, c.z}), max_z = std::max({a.z, b.z, c.z});
    // (widened by near_pad_, far above the rounding of this arithmetic: the exact test below
    // decides centres on the boundary)
    const double pad = near_pad_;
    const int32_t cx0 = std::max(x0, static_cast<int32_t>(std::ceil((min_x - pad - grid_.origin_x) / cs - 0.5)));
    const int32_t cx1 = std::min(x1 - 1, static_cast<int32_t>(std::floor((max_x + pad - grid_.origin_x) / cs - 0.5)));
    const int32_t cz0 = std::max(z0, static_cast<int32_t>(std::ceil((min_z - pad - grid_.origin_z) / cs - 0.5)));
    const int32_t cz1 = std::min(z1 - 1, static_cast<int32_t>(std::floor((max_z + pad - grid_.origin_z) / cs - 0.5)));
    if (cx0 > cx1 || cz0 > cz1) continue;
    // A thin triangle over many columns is visited row by row only where it lies (a long thin
    // one across the rectangle covers few of its bounds' centres; triangle_footprint.h).
    const double xs[3] = {a.x, b.x, c.x}, zs[3] = {a.z, b.z, c.z};
    const bool by_rows = cx1 - cx0 + 1 > kRowsAboveColumns && thinAcrossAxes(xs, zs);
    // The watertight ray/triangle test of the query index specialised to a vertical ray from
    // (px, ray_top, pz): the same edge functions and the same height arithmetic, so a centre on
    // an edge or vertex counts exactly when the ray through it would hit.
    for (int32_t z = cz0; z <= cz1; ++z) {
      const double pz = grid_.centerZ(z);
      int32_t rx0 = cx0, rx1 = cx1;
      if (by_rows) {
        double lo, hi;
        if (!triangleSlabX(xs, zs, pz - pad, pz + pad, lo, hi)) continue;
        rx0 = std::max(cx0, static_cast<int32_t>(std::ceil((lo - pad - grid_.origin_x) / cs - 0.5)));
        rx1 = std::min(cx1, static_cast<int32_t>(std::floor((hi + pad - grid_.origin_x) / cs - 0.5)));
      }
      for (int32_t x = rx0; x <= rx1; ++x) {
        const double px = grid_.centerX(x);
        const double ax = a.x - px, ay = a.z - pz, bx = b.x - px, by = b.z - pz, qx = c.x - px, qy = c.z - pz;
        const double u = qx * by - qy * bx;
        const double v = ax * qy - ay * qx;
        const double w = bx * ay - by * ax;
        if ((u < 0 || v < 0 || w < 0) && (u > 0 || v > 0 || w > 0)) continue;
        const double det = u + v + w;
        if (det == 0) continue;
        const double distance = (u * -(a.y - ray_top_) + v * -(b.y - ray_top_) + w * -(c.y - ray_top_)) / det;
        if (!(distance >= 0 && distance <= ray_length_)) continue;
        const auto column = static_cast<uint32_t>((z - z0) * width + (x - x0));
        entries.push_back({column, {ray_top_ + -1.0 * distance, n, t}});
      }
    }
  }
  // Group by column (counting sort keeps the triangle order within a column).
  std::vector<uint32_t> offsets(columns + 1, 0);
  for (const Entry& e : entries) ++offsets[e.column + 1];
  for (std::size_t i = 0; i < columns; ++i) offsets[i + 1] += offsets[i];
  std::vector<SurfaceHit> sorted(entries.size());
  {
    std::vector<uint32_t> cursor(offsets.begin(), offsets.end() - 1);
    for (const Entry& e : entries) sorted[cursor[e.column]++] = e.hit;
  }
  // Triangles near each column (x/z bounds within the radius of its centre, plus the test's
  // rounding allowance bounded by near_pad_): every triangle whose bounds can meet the bounds of
  // its standing boxes, so every triangle the exact test could accept. Flat lists (counted, then
  // filled) of indices into `records`; columns without hits need none.
  // With `shared`, the lists hold mesh triangle ids into its arrays; otherwise indices into
  // records of this rectangle's own.
  std::vector<CandidateTriangle> own_records;
  std::vector<TriangleBounds> own_bounds;
  if (shared == nullptr) {
    own_records.resize(triangles.size());
    own_bounds.resize(triangles.size());
    for (std::size_t i = 0; i < triangles.size(); ++i) {
      const CandidateTriangle& t = own_records[i] = makeCandidate(mesh_, triangles[i]);
      own_bounds[i] = {t.min_x, t.max_x, t.min_y, t.max_y, t.min_z, t.max_z};
    }
  }
  const std::span<const CandidateTriangle> records =
      shared ? std::span<const CandidateTriangle>(shared->records.data(), shared->records.size()) : own_records;
  const std::span<const TriangleBounds> bounds =
      shared ? std::span<const TriangleBounds>(shared->bounds.data(), shared->bounds.size()) : own_bounds;
  const auto id = [&](std::size_t i) { return shared ? triangles[i] : static_cast<uint32_t>(i); };
  const double r = settings_.radius;
  const auto hasHits = [&](std::size_t column) { return offsets[column] != offsets[column + 1]; };
  std::vector<std::array<int32_t, 4>> near_range(triangles.size());  // x0, x1, z0, z1 per triangle
  std::vector<uint8_t> near_by_rows(triangles.size());                 // per triangle: forNear goes by rows
  // Calls visit(column) for every column near triangle i: all of its range's, or, for a thin
  // triangle whose range is more than kRowsAboveColumns wide, those whose standing boxes' x/z
  // squares can meet the part of the triangle in their row's band (triangle_footprint.h),
  // widened as the range is.
  const auto forNear = [&](std::size_t i, auto&& visit) {
    const auto [nx0, nx1, nz0, nz1] = near_range[i];
    if (!near_by_rows[i]) {
      for (int32_t z = nz0; z <= nz1; ++z)
        for (int32_t x = nx0; x <= nx1; ++x) visit(static_cast<std::size_t>((z - z0) * width + (x - x0)));
      return;
    }
    const CandidateTriangle& t = records[id(i)];
    const double xs[3] = {t.a.x, t.b.x, t.c.x}, zs[3] = {t.a.z, t.b.z, t.c.z};
    for (int32_t z = nz0; z <= nz1; ++z) {
      const double cz = grid_.centerZ(z);
      double lo, hi;
      if (!triangleSlabX(xs, zs, cz - r - near_pad_, cz + r + near_pad_, lo, hi)) continue;
      const int32_t sx0 = std::max(nx0, static_cast<int32_t>(std::ceil((lo - r - near_pad_ - grid_.origin_x) / cs - 0.5)));
      const int32_t sx1 = std::min(nx1, static_cast<int32_t>(std::floor((hi + r + near_pad_ - grid_.origin_x) / cs - 0.5)));
      for (int32_t x = sx0; x <= sx1; ++x) visit(static_cast<std::size_t>((z - z0) * width + (x - x0)));
    }
  };
  std::vector<uint32_t> near_offsets(columns + 1, 0);
  for (std::size_t i = 0; i < triangles.size(); ++i) {
    const TriangleBounds& t = bounds[id(i)];
    auto& [nx0, nx1, nz0, nz1] = near_range[i];
    nx0 = std::max(x0, static_cast<int32_t>(std::ceil((t.min_x - r - near_pad_ - grid_.origin_x) / cs - 0.5)));
    nx1 = std::min(x1 - 1, static_cast<int32_t>(std::floor((t.max_x + r + near_pad_ - grid_.origin_x) / cs - 0.5)));
    nz0 = std::max(z0, static_cast<int32_t>(std::ceil((t.min_z - r - near_pad_ - grid_.origin_z) / cs - 0.5)));
    nz1 = std::min(z1 - 1, static_cast<int32_t>(std::floor((t.max_z + r + near_pad_ - grid_.origin_z) / cs - 0.5)));
    if (nx1 - nx0 + 1 > kRowsAboveColumns && nz0 < nz1) {
      const CandidateTriangle& record = records[id(i)];
      const double xs[3] = {record.a.x, record.b.x, record.c.x}, zs[3] = {record.a.z, record.b.z, record.c.z};
      near_by_rows[i] = thinAcrossAxes(xs, zs);
    }
    forNear(i, [&](std::size_t column) {
      if (hasHits(column)) ++near_offsets[column + 1];
    });
  }
  for (std::size_t i = 0; i < columns; ++i) near_offsets[i + 1] += near_offsets[i];
  std::vector<uint32_t> near(near_offsets.back());
  {
    std::vector<uint32_t> cursor(near_offsets.begin(), near_offsets.end() - 1);
    for (std::size_t i = 0; i < triangles.size(); ++i)
      forNear(i, [&](std::size_t column) {
        if (hasHits(column)) near[cursor[column]++] = id(i);
      });
  }
  std::vector<SurfaceHit> hits;
  HeightOrderedCandidates ordered;  // a column of many storeys: its candidates by height
  for (std::size_t column = 0; column < columns; ++column) {
    out.offsets[column] = static_cast<uint32_t>(out.floors.size());
    if (!hasHits(column)) continue;
    hits.assign(sorted.begin() + offsets[column], sorted.begin() + offsets[column + 1]);
    const int32_t x = x0 + static_cast<int32_t>(column % static_cast<std::size_t>(width));
    const int32_t z = z0 + static_cast<int32_t>(column / static_cast<std::size_t>(width));
    const double cx = grid_.centerX(x), cz = grid_.centerZ(z);
    const std::span<const uint32_t> candidates(near.data() + near_offsets[column],
                                               near_offsets[column + 1] - near_offsets[column]);
    const bool by_height = candidates.size() > kHeightOrderAbove && hits.size() > kHeightOrderHits;
    if (by_height) ordered.assign(candidates, bounds);
    floorsFromHitsWith(hits, out.floors, [&](double floor_height, const sim::Vec3& normal) {
      const sim::Aabb box = standingBox(cx, cz, floor_height, normal);
      if (box.empty()) return false;
      const LocalBoxTest test(box);
      return boxFreeAmong(test, records, bounds,
                          by_height ? ordered.within(test.bounds().min.y, test.bounds().max.y) : candidates);
    });
  }
  out.offsets[columns] = static_cast<uint32_t>(out.floors.size());
}

}  // namespace strata::nav
