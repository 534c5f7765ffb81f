// Layered path queries: Strata's bake + layered search against Detour on Recast's navmesh of the
// same mesh, in the same run, on the same random start/goal pairs (reachable in both).
//
// For each Recast sample mesh (shared data meshes/recast/*.obj):
//  - Strata: import, bake with one agent (radius 0.3, height 1.8, step 0.4, slope 45, cell 0.3),
//    then findLayeredPath (A*, Theta*, the corridor method, whose rectangle decomposition is
//    built once per mesh before timing (its build time and rectangle count are reported), and the
//    interval method, the corridor method with its rectangles chosen by interval search);
//  - Recast: the standard pipeline at cs 0.3 / ch 0.2 with the same agent (rasterize, filter,
//    compact, erode, distance field, watershed regions, contours, poly mesh, detail mesh), then
//    Detour findNearestPoly + findPath + findStraightPath.
// Pairs: random floor nodes of the Strata graph whose route Strata finds and whose Detour path
// reaches the end polygon (not partial), at least 3 m apart; 1,000 per mesh
// (STRATA_BENCH_PAIRS=N for another count). Google Benchmark times one query per iteration (cycling
// through the pairs); a summary after the run prints the medians over 5 rounds of all pairs (CPU
// time of the thread, so that other processes on the machine do not inflate them), the
// time ratio Strata/Detour, the mean path-length ratio (horizontal lengths) and the batch
// throughput on 1 and 2 threads (A*, then corridor).
//
// Run: build with -DSTRATA_BUILD_BENCH=ON, then build-*/tests/bench/bench_layered_path
// (STRATA_BENCH_NO_SUMMARY=1 skips the summary, e.g. to profile one filtered benchmark with perf;
// STRATA_BENCH_QUICK=1 leaves A*, Theta* and the batch runs out of it, printed as nan, for a
// corridor / interval / Detour summary in about a tenth of the time).
// STRATA_BENCH_MESHES=PATH[@SCALE][,PATH[@SCALE]...] runs these meshes instead of the Recast
// samples (any format `strata import` reads, scaled by SCALE; a relative PATH is taken from the
// working directory), e.g. the real meshes of the shared data.
// STRATA_BENCH_AREAS=COST (> 1) gives both sides areas of different costs: the mesh's bounds cut
// into 5 x 5 boxes, the 12 of one checkerboard colour an area of that cost (a modifier volume
// for Strata, rcMarkBoxArea and the query filter's area cost for Recast / Detour); the summary
// then adds a line per mesh with the mean cost of the corridor routes against Theta*'s and A*'s
// and how many corridor requests Theta* answered.
// STRATA_BENCH_CLEARANCE=1 adds, per mesh, how close the corridor routes and Detour's straight
// paths pass to walls: each route is probed every 5 cm along its legs with the bake's standing
// box (the agent's half-width, from step height to head height over the floor a downward ray
// finds there, raised on a slope as the bake raises it), at the agent's radius and at 0.05, 0.10
// and 0.15 m less; the line gives the share of routes with a probe whose box overlaps a triangle
// steeper than 70 degrees, at each width. A probe's height is interpolated between waypoints, so
// over a hump or beside a ramp its floor can be another surface than the walked one, and a
// stair's riser counts as a wall: not every hit is a route through a wall (those examined on
// Strata's routes were such).
// STRATA_BENCH_CORNERS=1 adds, per mesh, what moving corners off the column centres could save:
// the corridor routes' length over Detour's with every walking corner moved toward the inside of
// its turn on each axis by half a column (the cell corner) and by a whole one (the next column's
// centre), unchecked. Where the agent's box stops being free lies anywhere from the corner's centre
// to almost a column past it (the next column's box is not free), so the two moves bracket what
// corners that keep the radius from walls could save: not a bound where a route turns in open
// space, in practice close to one.

#include <benchmark/benchmark.h>

#include <DetourNavMesh.h>
#include <DetourNavMeshBuilder.h>
#include <DetourNavMeshQuery.h>
#include <Recast.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <ctime>
#include <cmath>
#include <limits>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "strata/formats/import.h"
#include "strata/nav/bake.h"
#include "strata/nav/corridor.h"
#include "strata/nav/layered_search.h"
#include "strata/sim/query_index.h"

#include "bench_mesh_list.h"

namespace {

using namespace strata;

constexpr double kRadius = 0.3, kHeight = 1.8, kStep = 0.4, kSlope = 45.0, kCell = 0.3, kCellHeight = 0.2;
// Start/goal pairs per mesh: STRATA_BENCH_PAIRS (default 1000). A hundred pairs replayed round
// after round let the branch predictors learn the sequence (per-query times kept falling over
// five rounds, Detour's and Strata's alike); a thousand give steady rounds and steadier mean
// lengths.
int pairCount() {
  static const int count = [] {
    const char* text = std::getenv("STRATA_BENCH_PAIRS");
    const int n = text != nullptr ? std::atoi(text) : 1000;
    return n >= 1 ? n : 1000;
  }();
  return count;
}

// STRATA_BENCH_AREAS: the cost of the checkerboard area, 0 when off.
double benchAreaCost() {
  static const double cost = [] {
    const char* text = std::getenv("STRATA_BENCH_AREAS");
    const double c = text != nullptr ? std::atof(text) : 0.0;
    return c > 1 ? c : 0.0;
  }();
  return cost;
}

// The boxes of the checkerboard area over the mesh's bounds (empty when off).
std::vector<sim::Aabb> benchAreaBoxes(const sim::Aabb& bounds) {
  std::vector<sim::Aabb> boxes;
  if (benchAreaCost() == 0) return boxes;
  constexpr int kCells = 5;
  const double sx = (bounds.max.x - bounds.min.x) / kCells, sz = (bounds.max.z - bounds.min.z) / kCells;
  for (int i = 0; i < kCells; ++i)
    for (int j = 0; j < kCells; ++j)
      if ((i + j) % 2 == 1)
        boxes.push_back({{bounds.min.x + i * sx, bounds.min.y - 1, bounds.min.z + j * sz},
                         {bounds.min.x + (i + 1) * sx, bounds.max.y + 1, bounds.min.z + (j + 1) * sz}});
  return boxes;
}
constexpr unsigned char kDearArea = 2;  // Recast's area id of the checkerboard area

struct DetourMesh {
  dtNavMesh* mesh = nullptr;
  dtNavMeshQuery* query = nullptr;
  ~DetourMesh() {
    dtFreeNavMeshQuery(query);
    dtFreeNavMesh(mesh);
  }
};

// The standard Recast pipeline (RecastDemo's Sample_SoloMesh) with our agent.
std::unique_ptr<DetourMesh> buildDetour(const sim::TriangleMesh& m) {
  std::vector<float> verts;
  for (const auto& v : m.vertices) verts.insert(verts.end(), {v.x, v.y, v.z});
  std::vector<int> tris;
  for (const auto& t : m.triangles) tris.insert(tris.end(), {int(t[0]), int(t[1]), int(t[2])});
  const int nv = int(m.vertices.size()), nt = int(m.triangles.size());
  rcConfig cfg{};
  cfg.cs = float(kCell);
  cfg.ch = float(kCellHeight);
  cfg.walkableSlopeAngle = float(kSlope);
  cfg.walkableHeight = int(std::ceil(kHeight / kCellHeight));
  cfg.walkableClimb = int(std::floor(kStep / kCellHeight));
  cfg.walkableRadius = int(std::ceil(kRadius / kCell));
  cfg.maxEdgeLen = int(12 / kCell);
  cfg.maxSimplificationError = 1.3f;
  cfg.minRegionArea = 8 * 8;
  cfg.mergeRegionArea = 20 * 20;
  cfg.maxVertsPerPoly = 6;
  cfg.detailSampleDist = float(6 * kCell);
  cfg.detailSampleMaxError = float(1 * kCellHeight);
  rcCalcBounds(verts.data(), nv, cfg.bmin, cfg.bmax);
  rcCalcGridSize(cfg.bmin, cfg.bmax, cfg.cs, &cfg.width, &cfg.height);
  rcContext ctx(false);
  rcHeightfield* hf = rcAllocHeightfield();
  rcCreateHeightfield(&ctx, *hf, cfg.width, cfg.height, cfg.bmin, cfg.bmax, cfg.cs, cfg.ch);
  std::vector<unsigned char> areas(std::size_t(nt), 0);
  rcMarkWalkableTriangles(&ctx, cfg.walkableSlopeAngle, verts.data(), nv, tris.data(), nt, areas.data());
  rcRasterizeTriangles(&ctx, verts.data(), nv, tris.data(), areas.data(), nt, *hf, cfg.walkableClimb);
  rcFilterLowHangingWalkableObstacles(&ctx, cfg.walkableClimb, *hf);
  rcFilterLedgeSpans(&ctx, cfg.walkableHeight, cfg.walkableClimb, *hf);
  rcFilterWalkableLowHeightSpans(&ctx, cfg.walkableHeight, *hf);
  rcCompactHeightfield* chf = rcAllocCompactHeightfield();
  rcBuildCompactHeightfield(&ctx, cfg.walkableHeight, cfg.walkableClimb, *hf, *chf);
  rcFreeHeightField(hf);
  rcErodeWalkableArea(&ctx, cfg.walkableRadius, *chf);
  for (const sim::Aabb& box : benchAreaBoxes(m.bounds())) {
    const float lo[3] = {float(box.min.x), float(box.min.y), float(box.min.z)};
    const float hi[3] = {float(box.max.x), float(box.max.y), float(box.max.z)};
    rcMarkBoxArea(&ctx, lo, hi, kDearArea, *chf);
  }
  rcBuildDistanceField(&ctx, *chf);
  rcBuildRegions(&ctx, *chf, 0, cfg.minRegionArea, cfg.mergeRegionArea);
  rcContourSet* cset = rcAllocContourSet();
  rcBuildContours(&ctx, *chf, cfg.maxSimplificationError, cfg.maxEdgeLen, *cset);
  rcPolyMesh* pmesh = rcAllocPolyMesh();
  rcBuildPolyMesh(&ctx, *cset, cfg.maxVertsPerPoly, *pmesh);
  rcPolyMeshDetail* dmesh = rcAllocPolyMeshDetail();
  rcBuildPolyMeshDetail(&ctx, *pmesh, *chf, cfg.detailSampleDist, cfg.detailSampleMaxError, *dmesh);
  rcFreeCompactHeightfield(chf);
  rcFreeContourSet(cset);
  for (int i = 0; i < pmesh->npolys; ++i) pmesh->flags[i] = pmesh->areas[i] != RC_NULL_AREA ? 1 : 0;
  dtNavMeshCreateParams params{};
  params.verts = pmesh->verts;
  params.vertCount = pmesh->nverts;
  params.polys = pmesh->polys;
  params.polyAreas = pmesh->areas;
  params.polyFlags = pmesh->flags;
  params.polyCount = pmesh->npolys;
  params.nvp = pmesh->nvp;
  params.detailMeshes = dmesh->meshes;
  params.detailVerts = dmesh->verts;
  params.detailVertsCount = dmesh->nverts;
  params.detailTris = dmesh->tris;
  params.detailTriCount = dmesh->ntris;
  params.walkableHeight = float(kHeight);
  params.walkableRadius = float(kRadius);
  params.walkableClimb = float(kStep);
  rcVcopy(params.bmin, pmesh->bmin);
  rcVcopy(params.bmax, pmesh->bmax);
  params.cs = cfg.cs;
  params.ch = cfg.ch;
  params.buildBvTree = true;
  unsigned char* data = nullptr;
  int size = 0;
  const bool built = dtCreateNavMeshData(&params, &data, &size);
  rcFreePolyMesh(pmesh);
  rcFreePolyMeshDetail(dmesh);
  if (!built) return nullptr;
  auto out = std::make_unique<DetourMesh>();
  out->mesh = dtAllocNavMesh();
  if (dtStatusFailed(out->mesh->init(data, size, DT_TILE_FREE_DATA))) return nullptr;
  out->query = dtAllocNavMeshQuery();
  if (dtStatusFailed(out->query->init(out->mesh, 4096))) return nullptr;
  return out;
}

struct DetourAnswer {
  bool ok = false;
  double length = 0;  // horizontal length of the straight path
  double moved = 0;   // horizontal distance findNearestPoly moved the two endpoints, summed
  double cost = 0;    // with STRATA_BENCH_AREAS: each straight-path leg's horizontal length times its polygon's area cost
};

DetourAnswer detourPath(const DetourMesh& d, const sim::Vec3& a, const sim::Vec3& b, std::vector<sim::Vec3>* corners = nullptr) {
  static thread_local std::vector<dtPolyRef> polys(4096);
  static thread_local std::vector<float> straight(3 * 1024);
  static thread_local std::vector<unsigned char> flags(1024);
  static thread_local std::vector<dtPolyRef> straight_refs(1024);
  dtQueryFilter filter;
  if (benchAreaCost() > 0) filter.setAreaCost(kDearArea, float(benchAreaCost()));
  const float extents[3] = {float(kCell * 2), 1.0f, float(kCell * 2)};
  const float pa[3] = {float(a.x), float(a.y), float(a.z)}, pb[3] = {float(b.x), float(b.y), float(b.z)};
  dtPolyRef ra = 0, rb = 0;
  float na[3], nb[3];
  d.query->findNearestPoly(pa, extents, &filter, &ra, na);
  d.query->findNearestPoly(pb, extents, &filter, &rb, nb);
  DetourAnswer answer;
  if (!ra || !rb) return answer;
  answer.moved = std::hypot(na[0] - pa[0], na[2] - pa[2]) + std::hypot(nb[0] - pb[0], nb[2] - pb[2]);
  int count = 0;
  const dtStatus status = d.query->findPath(ra, rb, na, nb, &filter, polys.data(), &count, int(polys.size()));
  if (dtStatusFailed(status) || count == 0 || polys[std::size_t(count - 1)] != rb) return answer;
  int points = 0;
  // With areas, a vertex where the straight path crosses into another area (so each leg lies in
  // the polygon of its first vertex), for its cost.
  const int options = benchAreaCost() > 0 ? DT_STRAIGHTPATH_AREA_CROSSINGS : 0;
  d.query->findStraightPath(na, nb, polys.data(), count, straight.data(), flags.data(), straight_refs.data(), &points, 1024,
                            options);
  answer.ok = points >= 2;
  if (corners != nullptr)
    for (int i = 0; i < points; ++i) corners->push_back({straight[3 * i], straight[3 * i + 1], straight[3 * i + 2]});
  for (int i = 1; i < points; ++i) {
    const double leg = std::hypot(straight[3 * i] - straight[3 * (i - 1)], straight[3 * i + 2] - straight[3 * (i - 1) + 2]);
    answer.length += leg;
    if (options != 0) {
      const dtMeshTile* tile = nullptr;
      const dtPoly* poly = nullptr;
      d.mesh->getTileAndPolyByRefUnsafe(straight_refs[std::size_t(i - 1)], &tile, &poly);
      answer.cost += leg * filter.getAreaCost(poly->getArea());
    }
  }
  return answer;
}

struct Scene {
  std::string name;
  nav::BakedAgent agent;
  std::unique_ptr<nav::LayeredSearchGraph> view;
  std::unique_ptr<DetourMesh> detour;
  std::vector<std::pair<sim::Vec3, sim::Vec3>> pairs;
  std::unique_ptr<sim::TriangleMesh> mesh;    // STRATA_BENCH_CLEARANCE: the level and its query index
  std::unique_ptr<sim::QueryIndex> index;
  double bake_ms = 0, recast_ms = 0, corridor_ms = 0;
  std::size_t rects = 0, dead_ends = 0;
};

std::vector<std::unique_ptr<Scene>>& scenes() {
  static std::vector<std::unique_ptr<Scene>> all;
  return all;
}

double msSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

nav::LayeredSearchSettings settingsFor(nav::SearchMethod method) {
  nav::LayeredSearchSettings s;
  s.method = method;
  s.snap.max_horizontal = 0.5;
  return s;
}

std::unique_ptr<Scene> loadScene(const std::filesystem::path& path, double scale) {
  auto scene = std::make_unique<Scene>();
  scene->name = path.stem().string();
  formats::ImportOptions import;
  import.in_process = true;
  import.scale = scale;
  auto imported = formats::importMeshes({path}, import);
  if (!imported) {
    std::fprintf(stderr, "%s: %s\n", path.c_str(), imported.error().message.c_str());
    return nullptr;
  }
  nav::BakeProfile profile = nav::BakeProfile::defaults();
  nav::AgentSettings& a = profile.agents.front().settings;
  a.radius = kRadius, a.height = kHeight, a.step_height = kStep, a.max_slope = kSlope, a.cell_size = kCell;
  a.can_jump = false;  // Recast's navmesh has no jumps: compare like with like
  for (const sim::Aabb& box : benchAreaBoxes(imported->mesh.bounds()))
    profile.agents.front().modifiers.push_back({box, "dear", benchAreaCost()});
  auto t = std::chrono::steady_clock::now();
  auto baked = nav::bakeWorld(imported->mesh, profile, nav::BakeOptions{}, path.string());
  scene->bake_ms = msSince(t);
  if (!baked) {
    std::fprintf(stderr, "%s: %s\n", path.c_str(), baked.error().message.c_str());
    return nullptr;
  }
  scene->agent = std::move(baked->agents.front());
  scene->view = std::make_unique<nav::LayeredSearchGraph>(scene->agent.graph, scene->agent.profile.settings);
  t = std::chrono::steady_clock::now();
  scene->rects = scene->view->corridor().rectCount();  // the corridor index, built once here
  scene->dead_ends = scene->view->corridor().deadEndCount();
  scene->corridor_ms = msSince(t);
  t = std::chrono::steady_clock::now();
  scene->detour = buildDetour(imported->mesh);
  scene->recast_ms = msSince(t);
  if (!scene->detour) return nullptr;
  if (std::getenv("STRATA_BENCH_CLEARANCE")) {
    scene->mesh = std::make_unique<sim::TriangleMesh>(imported->mesh);
    scene->index = std::make_unique<sim::QueryIndex>(*scene->mesh);
  }
  const auto& g = scene->agent.graph;
  std::mt19937 rng(12345);
  std::uniform_int_distribution<uint32_t> pick(0, uint32_t(g.nodeCount() - 1));
  nav::SearchState state;
  for (int attempt = 0; attempt < 200 * pairCount() && int(scene->pairs.size()) < pairCount(); ++attempt) {
    const sim::Vec3 a = g.nodePosition(pick(rng)), b = g.nodePosition(pick(rng));
    if (std::hypot(a.x - b.x, a.z - b.z) < 3.0) continue;
    if (!nav::findLayeredPath(*scene->view, a, b, settingsFor(nav::SearchMethod::AStar), state).ok()) continue;
    if (!detourPath(*scene->detour, a, b).ok) continue;
    scene->pairs.push_back({a, b});
  }
  return scene;
}

void benchStrata(benchmark::State& st, const Scene* scene, nav::SearchMethod method) {
  nav::SearchState state;
  const auto settings = settingsFor(method);
  std::size_t i = 0;
  for (auto _ : st) {
    const auto& p = scene->pairs[i++ % scene->pairs.size()];
    benchmark::DoNotOptimize(nav::findLayeredPath(*scene->view, p.first, p.second, settings, state));
  }
}

void benchDetour(benchmark::State& st, const Scene* scene) {
  std::size_t i = 0;
  for (auto _ : st) {
    const auto& p = scene->pairs[i++ % scene->pairs.size()];
    benchmark::DoNotOptimize(detourPath(*scene->detour, p.first, p.second));
  }
}

// A route's cost as Detour counts it: each leg's horizontal length times the cost of its area
// (a waypoint carries the area of the leg after it: the area entered at an area crossing).
double horizontalCost(const Scene& s, const nav::PathResult& r) {
  const auto& costs = s.agent.graph.area_costs;
  double sum = 0;
  for (std::size_t i = 1; i < r.waypoints.size(); ++i) {
    const sim::Vec3 &a = r.waypoints[i - 1].position, &b = r.waypoints[i].position;
    sum += std::hypot(b.x - a.x, b.z - a.z) * costs[r.waypoints[i - 1].area];
  }
  return sum;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// CPU time of the calling thread, milliseconds: per-query figures on a shared, loaded machine
// (other engineers' builds) are taken in CPU time, for Strata and Detour alike.
double threadCpuMs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) * 1e3 + double(t.tv_nsec) * 1e-6;
}

// Median over 5 rounds of the mean CPU time per query (microseconds).
template <class F>
double perQueryMicros(const Scene& s, F&& query) {
  std::vector<double> rounds;
  for (int r = 0; r < 5; ++r) {
    const double t = threadCpuMs();
    for (const auto& p : s.pairs) query(p);
    rounds.push_back((threadCpuMs() - t) * 1000.0 / double(s.pairs.size()));
  }
  return median(rounds);
}

// STRATA_BENCH_CLEARANCE: true when an agent of half-width `half` standing at (x, z) has a wall
// in its standing box: the bake's box (ColumnBuilder::standingBox: from step height, raised on a
// slope, to head height) over the floor a downward ray finds from 0.5 m above y overlaps a
// triangle steeper than 70 degrees. (Only walls: between waypoints y is interpolated, so on
// stairs and slopes the floor found can be a step or a slope's other end, whose gentler
// triangles would count the route's own ground.) False where no floor is found.
bool probeBlocked(const sim::TriangleMesh& mesh, const sim::QueryIndex& index, double x, double y, double z, double half,
                  std::vector<sim::OverlapHit>& hits) {
  const auto hit = index.raycast({x, y + 0.5, z}, {0, -1, 0}, 1.5);
  if (!hit) return false;
  sim::Vec3 n = hit->normal;
  if (n.y < 0) n = {-n.x, -n.y, -n.z};
  const double rise = half * (std::fabs(n.x) + std::fabs(n.z)) / std::max(n.y, 1e-9);
  const double bottom = std::max(kStep, rise) + 1e-3;
  if (bottom >= kHeight) return false;
  sim::Aabb box;
  box.min = {x - half, hit->point.y + bottom, z - half};
  box.max = {x + half, hit->point.y + kHeight, z + half};
  index.overlapBox(box, hits);
  for (const sim::OverlapHit& h : hits) {
    if (h.triangle == sim::kNoTriangle || h.triangle >= mesh.triangles.size()) continue;
    const auto& t = mesh.triangles[h.triangle];
    const sim::Vec3f &a = mesh.vertices[t[0]], &b = mesh.vertices[t[1]], &c = mesh.vertices[t[2]];
    const double ux = double(b.x) - a.x, uy = double(b.y) - a.y, uz = double(b.z) - a.z, vx = double(c.x) - a.x, vy = double(c.y) - a.y,
                 vz = double(c.z) - a.z;
    const double nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
    const double len = std::sqrt(nx * nx + ny * ny + nz * nz);
    if (len > 0 && std::fabs(ny) / len < std::cos(70.0 * 3.14159265358979 / 180.0)) return true;
  }
  return false;
}

// For each probe width (kRadius - 0.05 k), whether the route's polyline has a blocked probe.
constexpr int kProbeWidths = 4;
std::array<bool, kProbeWidths> routeBlocked(const Scene& s, const std::vector<sim::Vec3>& points) {
  std::array<bool, kProbeWidths> blocked{};
  std::vector<sim::OverlapHit> hits;
  for (std::size_t i = 1; i < points.size(); ++i) {
    const sim::Vec3 &a = points[i - 1], &b = points[i];
    const int steps = std::max(1, int(std::ceil(std::hypot(b.x - a.x, b.z - a.z) / 0.05)));
    for (int k = 0; k <= steps; ++k) {
      const double t = double(k) / steps;
      const double x = a.x + t * (b.x - a.x), y = a.y + t * (b.y - a.y), z = a.z + t * (b.z - a.z);
      for (int w = 0; w < kProbeWidths; ++w)
        if (!blocked[std::size_t(w)] && probeBlocked(*s.mesh, *s.index, x, y, z, kRadius - 0.05 * w, hits)) blocked[std::size_t(w)] = true;
    }
  }
  return blocked;
}

// STRATA_BENCH_CORNERS: the route's horizontal length with every walking corner moved `columns`
// columns toward the inside of its turn on each axis where the turn has a component along it.
double cornersMovedLength(const nav::PathResult& r, double columns) {
  std::vector<sim::Vec3> w;
  for (const auto& p : r.waypoints) w.push_back(p.position);
  for (std::size_t k = 1; k + 1 < w.size(); ++k) {
    if (r.waypoints[k].action != nav::MoveAction::Walk || r.waypoints[k + 1].action != nav::MoveAction::Walk) continue;
    const sim::Vec3 &a = r.waypoints[k - 1].position, &m = r.waypoints[k].position, &b = r.waypoints[k + 1].position;
    const double ux = m.x - a.x, uz = m.z - a.z, vx = b.x - m.x, vz = b.z - m.z;
    const double lu = std::hypot(ux, uz), lv = std::hypot(vx, vz);
    if (lu < 1e-9 || lv < 1e-9) continue;
    const double ix = vx / lv - ux / lu, iz = vz / lv - uz / lu;  // toward the inside of the turn
    if (std::fabs(ix) > 0.2) w[k].x += std::copysign(columns * kCell, ix);
    if (std::fabs(iz) > 0.2) w[k].z += std::copysign(columns * kCell, iz);
  }
  double length = 0;
  for (std::size_t k = 1; k < w.size(); ++k) length += std::hypot(w[k].x - w[k - 1].x, w[k].z - w[k - 1].z);
  return length;
}

void diagnostics(const Scene& s) {
  const bool clearance = s.index != nullptr, corners = std::getenv("STRATA_BENCH_CORNERS") != nullptr;
  if (!clearance && !corners) return;
  nav::SearchState state;
  const auto corridor = settingsFor(nav::SearchMethod::Corridor);
  std::array<int, kProbeWidths> strata_blocked{}, detour_blocked{};
  double len_c = 0, len_half = 0, len_whole = 0, len_d = 0;
  std::vector<sim::Vec3> points;
  for (const auto& p : s.pairs) {
    const nav::PathResult c = nav::findLayeredPath(*s.view, p.first, p.second, corridor, state);
    points.clear();
    const DetourAnswer d = detourPath(*s.detour, p.first, p.second, &points);
    len_c += c.length, len_d += d.length, len_half += cornersMovedLength(c, 0.5), len_whole += cornersMovedLength(c, 1.0);
    if (!clearance) continue;
    const auto db = routeBlocked(s, points);
    points.clear();
    for (const auto& w : c.waypoints) points.push_back(w.position);
    const auto sb = routeBlocked(s, points);
    for (int w = 0; w < kProbeWidths; ++w) strata_blocked[std::size_t(w)] += sb[std::size_t(w)], detour_blocked[std::size_t(w)] += db[std::size_t(w)];
  }
  const double n = double(s.pairs.size());
  if (clearance)
    std::printf("%-11s clearance: routes with a blocked probe at half-width %.2f / %.2f / %.2f / %.2f m: corridor %.1f / %.1f / %.1f / "
                "%.1f %%, Detour %.1f / %.1f / %.1f / %.1f %%\n",
                s.name.c_str(), kRadius, kRadius - 0.05, kRadius - 0.10, kRadius - 0.15, 100 * strata_blocked[0] / n,
                100 * strata_blocked[1] / n, 100 * strata_blocked[2] / n, 100 * strata_blocked[3] / n, 100 * detour_blocked[0] / n,
                100 * detour_blocked[1] / n, 100 * detour_blocked[2] / n, 100 * detour_blocked[3] / n);
  if (corners)
    std::printf("%-11s corners: corridor length / Detour %.5f; with every walking corner moved inward half a column %.5f, a whole "
                "column %.5f\n",
                s.name.c_str(), len_c / len_d, len_half / len_d, len_whole / len_d);
}

void summary() {
  std::printf("\n%-11s %6s %8s %9s %7s %6s %8s %10s %10s %11s %10s %8s %9s %9s %9s %9s %9s %8s %9s %9s %8s %8s %11s %8s %9s %6s %7s %9s\n", "mesh",
              "pairs", "bake_ms", "recast_ms", "corr_ms", "rects", "corr_exp", "astar_us", "theta_us", "corridor_us", "detour_us",
              "t_ratio", "len_astar", "len_theta", "len_corr", "batch1/s", "batch2/s", "speedup", "cbatch1/s", "cbatch2/s",
              "cspeedup", "int_exp", "interval_us", "i_ratio", "len_int", "dead", "dt_snap", "len_c_end");
  const bool quick = std::getenv("STRATA_BENCH_QUICK") != nullptr;
  for (const auto& sp : scenes()) {
    const Scene& s = *sp;
    nav::SearchState state;
    const auto astar = settingsFor(nav::SearchMethod::AStar), theta = settingsFor(nav::SearchMethod::Theta),
               corridor = settingsFor(nav::SearchMethod::Corridor), interval = settingsFor(nav::SearchMethod::Interval);
    double len_a = 0, len_t = 0, len_c = 0, len_d = 0, exp_c = 0, len_i = 0, exp_i = 0, moved_d = 0;
    double cost_a = 0, cost_t = 0, cost_c = 0;  // with STRATA_BENCH_AREAS
    double hcost_c = 0, hcost_d = 0;            // horizontal costs (Detour's measure) of the corridor and Detour routes
    int fell_back = 0;
    const double skipped = std::numeric_limits<double>::quiet_NaN();  // printed as nan
    if (quick) len_a = len_t = skipped;
    for (const auto& p : s.pairs) {
      if (!quick) len_a += nav::findLayeredPath(*s.view, p.first, p.second, astar, state).length;
      if (!quick) len_t += nav::findLayeredPath(*s.view, p.first, p.second, theta, state).length;
      const nav::PathResult c = nav::findLayeredPath(*s.view, p.first, p.second, corridor, state);
      len_c += c.length;
      if (benchAreaCost() > 0) {
        cost_c += c.cost;
        fell_back += c.answered_by != nav::SearchMethod::Corridor;
        cost_a += nav::findLayeredPath(*s.view, p.first, p.second, astar, state).cost;
        cost_t += nav::findLayeredPath(*s.view, p.first, p.second, theta, state).cost;
      }
      exp_c += double(c.expansions) / double(s.pairs.size());
      const nav::PathResult i = nav::findLayeredPath(*s.view, p.first, p.second, interval, state);
      len_i += i.length;
      exp_i += double(i.expansions) / double(s.pairs.size());
      const DetourAnswer d = detourPath(*s.detour, p.first, p.second);
      len_d += d.length;
      if (benchAreaCost() > 0) {
        hcost_d += d.cost;
        hcost_c += horizontalCost(s, c);
      }
      moved_d += d.moved;
    }
    const double us_a = quick ? skipped : perQueryMicros(s, [&](const auto& p) { nav::findLayeredPath(*s.view, p.first, p.second, astar, state); });
    const double us_t = quick ? skipped : perQueryMicros(s, [&](const auto& p) { nav::findLayeredPath(*s.view, p.first, p.second, theta, state); });
    const double us_c =
        perQueryMicros(s, [&](const auto& p) { nav::findLayeredPath(*s.view, p.first, p.second, corridor, state); });
    const double us_d = perQueryMicros(s, [&](const auto& p) { detourPath(*s.detour, p.first, p.second); });
    const double us_i =
        perQueryMicros(s, [&](const auto& p) { nav::findLayeredPath(*s.view, p.first, p.second, interval, state); });
    // Batch throughput: every pair `copies` times, on 1 and 2 threads. Five rounds, each timing
    // the batch on 1 thread and then on 2, so that a slow spell of the machine (another process
    // on the second core) falls on both sides of one round's ratio; the throughputs are the
    // medians of the rounds, the speedup the median of the rounds' ratios.
    struct Throughput {
      double one = 0, two = 0, speedup = 0;
    };
    auto throughput = [&](const nav::LayeredSearchSettings& settings, int copies) {
      std::vector<nav::LayeredPathRequest> batch;
      for (int k = 0; k < copies; ++k)
        for (const auto& p : s.pairs) batch.push_back({0, p.first, p.second, settings});
      auto rate = [&](int threads) {
        const auto t = std::chrono::steady_clock::now();
        benchmark::DoNotOptimize(nav::findLayeredPaths({s.view.get()}, batch, threads));
        return double(batch.size()) / (msSince(t) / 1000.0);
      };
      std::vector<double> ones, twos, ratios;
      for (int r = 0; r < 5; ++r) {
        ones.push_back(rate(1));
        twos.push_back(rate(2));
        ratios.push_back(twos.back() / ones.back());
      }
      return Throughput{median(ones), median(twos), median(ratios)};
    };
    // About 1,000 A* and 50,000 corridor requests per batch, whatever the number of pairs.
    const int a_copies = std::max(1, 1000 / int(s.pairs.size())), c_copies = std::max(1, 50000 / int(s.pairs.size()));
    const Throughput none{skipped, skipped, skipped};
    const Throughput ab = quick ? none : throughput(astar, a_copies), cb = quick ? none : throughput(corridor, c_copies);
    const double b1 = ab.one, b2 = ab.two, c1 = cb.one, c2 = cb.two;
    std::printf("%-11s %6zu %8.0f %9.0f %7.1f %6zu %8.1f %10.1f %10.1f %11.2f %10.2f %8.2f %9.3f %9.3f %9.5f %9.0f %9.0f %8.2f %9.0f "
                "%9.0f %8.2f %8.1f %11.2f %8.2f %9.4f %6zu %7.3f %9.4f\n",
                s.name.c_str(), s.pairs.size(), s.bake_ms, s.recast_ms, s.corridor_ms, s.rects, exp_c, us_a, us_t, us_c, us_d,
                us_c / us_d, len_a / len_d, len_t / len_d, len_c / len_d, b1, b2, ab.speedup, c1, c2, cb.speedup, exp_i, us_i, us_i / us_d,
                len_i / len_d, s.dead_ends, moved_d / double(s.pairs.size()), len_c / (len_d + moved_d));
    if (benchAreaCost() > 0)
      std::printf("%-11s areas of cost %.2f: corridor cost / Theta* cost %.5f, / A* cost %.5f; horizontal cost corridor / Detour %.5f; "
                  "Theta* answered %d of %zu corridor requests\n",
                  s.name.c_str(), benchAreaCost(), cost_c / cost_t, cost_c / cost_a, hcost_c / hcost_d, fell_back, s.pairs.size());
    diagnostics(s);
  }
  std::printf("corr_ms / rects = corridor index build time and rectangle count; corr_exp = mean rectangles expanded "
              "per corridor query; t_ratio = corridor_us / detour_us "
              "(target <= 2); len_* = mean Strata length / mean Detour straight-path length (target <= 1); speedup = "
              "batch2/s / batch1/s for A* (batch) and corridor (cbatch) requests (target >= 1.8); int_* / interval_us / "
              "i_ratio / len_int = the same for the interval method; dead = rectangles in dead ends (skipped unless the goal "
              "lies there); dt_snap = mean horizontal distance (m) Detour's findNearestPoly moves a pair's two endpoints "
              "(its straight path runs between the moved points); len_c_end = mean corridor length / mean (Detour length + "
              "dt_snap), both from the requested endpoints (not a target)\n");
}

}  // namespace

// The meshes and their scales: STRATA_BENCH_MESHES's entries, else the Recast samples at scale 1.
std::vector<std::pair<std::filesystem::path, double>> benchMeshes() {
  std::vector<std::pair<std::filesystem::path, double>> meshes;
  for (const bench::ListedMesh& m : bench::listedMeshes("bench_layered_path")) meshes.push_back({m.path, m.scale});
  if (!meshes.empty()) return meshes;
  const std::filesystem::path dir = std::filesystem::path(STRATA_SHARED_DATA) / "meshes" / "recast";
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".obj") meshes.push_back({entry.path(), 1.0});
  std::sort(meshes.begin(), meshes.end());
  return meshes;
}

int main(int argc, char** argv) {
  for (const auto& [path, scale] : benchMeshes()) {
    auto scene = loadScene(path, scale);
    if (!scene || scene->pairs.empty()) {
      std::fprintf(stderr, "%s: skipped (no scene or no pairs reachable in both)\n", path.c_str());
      continue;
    }
    const Scene* s = scene.get();
    benchmark::RegisterBenchmark(("layered_astar/" + s->name).c_str(), benchStrata, s, nav::SearchMethod::AStar)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("layered_theta/" + s->name).c_str(), benchStrata, s, nav::SearchMethod::Theta)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("layered_corridor/" + s->name).c_str(), benchStrata, s, nav::SearchMethod::Corridor)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("layered_interval/" + s->name).c_str(), benchStrata, s, nav::SearchMethod::Interval)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("detour/" + s->name).c_str(), benchDetour, s)->Unit(benchmark::kMicrosecond);
    scenes().push_back(std::move(scene));
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (!std::getenv("STRATA_BENCH_NO_SUMMARY")) summary();
  return 0;
}
