// libFuzzer target: the column bake and the layered searches on small scenes decoded from the
// input, against properties and oracles written here.
//
// Input (structure-aware, every byte string decodes): 4 header bytes choose one agent (radius,
// height, slope, step, jump and drop limits, climbing, cell size, a "mud" area rule), whether an
// 8 x 8 m ground is laid and whether the second phase below runs; then records of 10 bytes, at
// most 32, each a box, a triangle or a planar quad (a ramp) inside about 8 x 4 x 8 m, labelled
// "", "mud" or "ladder". For each scene that bakes:
// - the bake on 1 thread with 4-column tiles equals the bake on 2 threads at the default tile
//   size (32 columns, smaller on a small grid baked on several threads), array by array (a
//   world's bytes must not depend on either), and the graph validates;
// - components are the undirected reachability classes of the edges and links, numbered in node
//   order; canReach(a, b) equals a breadth-first search over the directed edges;
// - A* between node positions costs what a Dijkstra flood over the graph's arrays finds between
//   the nodes it snapped to, and fails where the flood finds no route; Theta*, Corridor and
//   Interval find a route exactly where A* does, none costing less than the straight line (no
//   links here, and areas cost at least 1);
// - the on-demand search (columns built as the search reaches them) answers with A*'s failure and
//   cost;
// - when bit 1 of the fourth header byte is set, baked again with a custom link between two floor nodes of the first bake
//   and a route-distance field from one: all of the above (the link in the flood), both thread
//   counts equal, and the field equal to the flood from its origin node within its limit.
//
//   CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DSTRATA_FUZZ=ON -DSTRATA_BUILD_TESTS=OFF
//   cmake --build build-fuzz --target fuzz_bake
//   mkdir -p /tmp/corpus && cp tests/fuzz/corpus/fuzz_bake/* /tmp/corpus/   # new inputs go there
//   build-fuzz/tests/fuzz/fuzz_bake -max_total_time=600 /tmp/corpus

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "strata/formats/profile.h"
#include "strata/nav/bake.h"
#include "strata/nav/layered_search.h"
#include "strata/nav/on_demand.h"
#include "strata/sim/mesh.h"
#include "strata/sim/query_index.h"

using namespace strata;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_bake: %s\n", what.c_str());
  std::abort();
}

std::string fmt3(const sim::Vec3& p) {
  char buffer[96];
  std::snprintf(buffer, sizeof buffer, "(%.9g, %.9g, %.9g)", p.x, p.y, p.z);
  return buffer;
}

struct Scene {
  sim::TriangleMesh mesh;
  std::string profile;
};

void addTriangle(sim::TriangleMesh& mesh, sim::Vec3f a, sim::Vec3f b, sim::Vec3f c, std::uint32_t label) {
  const auto base = static_cast<std::uint32_t>(mesh.vertices.size());
  mesh.vertices.insert(mesh.vertices.end(), {a, b, c});
  mesh.triangles.push_back({base, base + 1, base + 2});
  mesh.triangle_labels.push_back(label);
  mesh.triangle_tags.push_back(0);
}

// A quad a b c d, counter-clockwise seen from its front.
void addQuad(sim::TriangleMesh& mesh, sim::Vec3f a, sim::Vec3f b, sim::Vec3f c, sim::Vec3f d, std::uint32_t label) {
  addTriangle(mesh, a, b, c, label);
  addTriangle(mesh, a, c, d, label);
}

void addBox(sim::TriangleMesh& mesh, float x0, float y0, float z0, float x1, float y1, float z1, std::uint32_t label) {
  const sim::Vec3f p[8] = {{x0, y0, z0}, {x1, y0, z0}, {x1, y0, z1}, {x0, y0, z1},
                           {x0, y1, z0}, {x1, y1, z0}, {x1, y1, z1}, {x0, y1, z1}};
  addQuad(mesh, p[4], p[7], p[6], p[5], label);  // top, facing +Y
  addQuad(mesh, p[0], p[1], p[2], p[3], label);  // bottom, facing -Y
  addQuad(mesh, p[0], p[4], p[5], p[1], label);  // -Z
  addQuad(mesh, p[2], p[6], p[7], p[3], label);  // +Z
  addQuad(mesh, p[1], p[5], p[6], p[2], label);  // +X
  addQuad(mesh, p[3], p[7], p[4], p[0], label);  // -X
}

Scene decode(const std::uint8_t* data, std::size_t size) {
  std::uint8_t h[4] = {0, 0, 0, 0};
  std::memcpy(h, data, std::min<std::size_t>(size, 4));
  Scene scene;
  sim::TriangleMesh& mesh = scene.mesh;
  mesh.labels = {"", "mud", "ladder"};
  mesh.tags = {""};
  const double radius[4] = {0.2, 0.3, 0.45, 0.6};
  const double cell[4] = {0, 0.2, 0.3, 0.45};
  const bool can_jump = (h[0] & 4) != 0, can_climb = (h[0] & 8) != 0;
  char text[1024];
  std::snprintf(text, sizeof text,
                "[agent.a]\nradius = %g\nheight = %g\nmax_slope = %g\nstep_height = %g\ncan_jump = %s\n"
                "jump_height = %g\nmax_drop = %g\ncan_climb = %s\n%scell_size = %g\n",
                radius[h[0] & 3], 1.0 + 0.25 * (h[2] % 8), 20.0 + 10.0 * ((h[1] / 8) % 7), 0.1 * (1 + h[1] % 8),
                can_jump ? "true" : "false", 0.5 + 0.25 * ((h[2] / 8) % 6), 0.5 * ((h[2] / 48) % 6),
                can_climb ? "true" : "false", can_climb ? "climbable = [\"ladder\"]\n" : "", cell[(h[0] >> 4) & 3]);
  scene.profile = text;
  if (h[0] & 64) scene.profile += "[[agent.a.areas]]\nlabel = \"mud\"\narea = \"mud\"\ncost = 2.5\n";
  if (h[3] & 1) addQuad(mesh, {0, 0, 0}, {0, 0, 8}, {8, 0, 8}, {8, 0, 0}, 0);
  for (std::size_t at = 4, n = 0; at + 10 <= size && n < 32; at += 10, ++n) {
    const std::uint8_t* r = data + at;
    const std::uint32_t label = ((r[0] >> 2) % 4) % 3;
    const auto coord = [](std::uint8_t b) { return float(b) / 32.0f; };   // 0 .. 8 m across
    const auto height = [](std::uint8_t b) { return float(b) / 64.0f; };  // 0 .. 4 m up
    switch (r[0] % 4) {
      case 0:
      case 1: {
        const float x = coord(r[1]), z = coord(r[2]), y = height(r[3]);
        addBox(mesh, x, y, z, x + float(r[4] % 64 + 1) / 16.0f, y + float(r[6] % 64 + 1) / 32.0f,
               z + float(r[5] % 64 + 1) / 16.0f, label);
        break;
      }
      case 2:
        addTriangle(mesh, {coord(r[1]), height(r[2]), coord(r[3])}, {coord(r[4]), height(r[5]), coord(r[6])},
                    {coord(r[7]), height(r[8]), coord(r[9])}, label);
        break;
      default: {  // a ramp rising by dy along X, facing up
        const float x = coord(r[1]), z = coord(r[2]), y = height(r[3]);
        const float sx = float(r[4] % 64 + 1) / 16.0f, sz = float(r[5] % 64 + 1) / 16.0f, dy = float(int(r[6]) - 128) / 64.0f;
        addQuad(mesh, {x, y, z}, {x, y, z + sz}, {x + sx, y + dy, z + sz}, {x + sx, y + dy, z}, label);
      }
    }
  }
  return scene;
}

template <class T, class A>
bool sameBytes(const std::vector<T, A>& a, const std::vector<T, A>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

void compareGraphs(const nav::LayeredGraph& a, const nav::LayeredGraph& b) {
  const auto check = [](bool same, const char* what) {
    if (!same) fail(std::string("the bake depends on the thread count or the tile size: ") + what);
  };
  check(a.grid.origin_x == b.grid.origin_x && a.grid.origin_z == b.grid.origin_z && a.grid.cell_size == b.grid.cell_size &&
            a.grid.width_cells == b.grid.width_cells && a.grid.depth_cells == b.grid.depth_cells,
        "grid");
  check(sameBytes(a.column_offsets, b.column_offsets), "column_offsets");
  check(sameBytes(a.height, b.height), "height");
  check(sameBytes(a.normal, b.normal), "normal");
  check(sameBytes(a.area, b.area), "area");
  check(sameBytes(a.headroom, b.headroom), "headroom");
  check(sameBytes(a.clearance, b.clearance), "clearance");
  check(sameBytes(a.component, b.component) && a.component_count == b.component_count, "component");
  check(sameBytes(a.flags, b.flags), "flags");
  check(sameBytes(a.neighbor, b.neighbor), "neighbor");
  check(sameBytes(a.edge_kind, b.edge_kind), "edge_kind");
  check(sameBytes(a.edge_cost, b.edge_cost), "edge_cost");
  check(a.links.size() == b.links.size(), "links");
  for (std::size_t i = 0; i < a.links.size(); ++i) {
    const nav::OffMeshLink &x = a.links[i], &y = b.links[i];
    check(x.from_node == y.from_node && x.to_node == y.to_node && std::memcmp(&x.cost, &y.cost, sizeof x.cost) == 0 &&
              x.label == y.label && x.profile_index == y.profile_index && x.bidirectional == y.bidirectional && x.kind == y.kind,
          "links");
  }
  check(sameBytes(a.link_offsets, b.link_offsets), "link_offsets");
  check(sameBytes(a.region, b.region) && a.region_count == b.region_count, "region");
  check(a.fields.size() == b.fields.size(), "fields");
  for (std::size_t i = 0; i < a.fields.size(); ++i)
    check(a.fields[i].origin_node == b.fields[i].origin_node && sameBytes(a.fields[i].distance, b.fields[i].distance), "fields");
  check(sameBytes(a.region_reach_offsets, b.region_reach_offsets) && sameBytes(a.region_reach, b.region_reach) &&
            a.region_reach_closure == b.region_reach_closure,
        "region_reach");
}

// Every edge of node n (8 slots, then links): visit(to, cost).
template <class Visit>
void forEdges(const nav::LayeredGraph& g, std::uint32_t n, Visit&& visit) {
  for (int d = 0; d < nav::kDirectionCount; ++d)
    if (g.edgeKind(n, d) != nav::EdgeKind::None) visit(g.neighborOf(n, d), double(g.edgeCost(n, d)));
  for (std::uint32_t l = g.link_offsets[n]; l < g.link_offsets[n + 1]; ++l) visit(g.links[l].to_node, double(g.links[l].cost));
}

std::vector<double> flood(const nav::LayeredGraph& g, std::uint32_t source) {
  std::vector<double> dist(g.nodeCount(), kInf);
  using Entry = std::pair<double, std::uint32_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> open;
  dist[source] = 0;
  open.push({0.0, source});
  while (!open.empty()) {
    const double d = open.top().first;
    const std::uint32_t n = open.top().second;
    open.pop();
    if (d > dist[n]) continue;
    forEdges(g, n, [&](std::uint32_t to, double cost) {
      if (d + cost < dist[to]) dist[to] = d + cost, open.push({d + cost, to});
    });
  }
  return dist;
}

void checkComponents(const nav::LayeredGraph& g) {
  const std::size_t n = g.nodeCount();
  std::vector<std::uint32_t> parent(n);
  for (std::uint32_t i = 0; i < n; ++i) parent[i] = i;
  const std::function<std::uint32_t(std::uint32_t)> root = [&](std::uint32_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  for (std::uint32_t i = 0; i < n; ++i)
    forEdges(g, i, [&](std::uint32_t to, double) { parent[root(i)] = root(to); });
  // Numbered in node order: the first node of each class takes the next id.
  std::vector<std::uint32_t> id_of_root(n, nav::kNoNode);
  std::uint32_t next = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    std::uint32_t& id = id_of_root[root(i)];
    if (id == nav::kNoNode) id = next++;
    if (g.component[i] != id) fail("component of node " + std::to_string(i) + " is " + std::to_string(g.component[i]) + ", not " + std::to_string(id));
  }
  if (g.component_count != next) fail("component_count " + std::to_string(g.component_count) + ", not " + std::to_string(next));
}

void checkReach(const nav::LayeredGraph& g, std::uint32_t from) {
  std::vector<std::uint8_t> seen(g.nodeCount(), 0);
  std::vector<std::uint32_t> stack{from};
  seen[from] = 1;
  while (!stack.empty()) {
    const std::uint32_t n = stack.back();
    stack.pop_back();
    forEdges(g, n, [&](std::uint32_t to, double) {
      if (!seen[to]) seen[to] = 1, stack.push_back(to);
    });
  }
  for (std::uint32_t t = 0; t < g.nodeCount(); ++t)
    if (g.canReach(from, t) != (seen[t] != 0))
      fail("canReach(" + std::to_string(from) + ", " + std::to_string(t) + ") is " + (seen[t] ? "false" : "true") + " against a search");
}

double horizontal(const sim::Vec3& a, const sim::Vec3& b) { return std::hypot(a.x - b.x, a.z - b.z); }

nav::OnDemandSettings wholeScene() {
  nav::OnDemandSettings settings;
  settings.margin = 12;  // the scene lies within 12 x 12 m
  settings.max_columns_per_side = 1e6;
  settings.vertical_extent = 20;
  return settings;
}

void checkSearches(const Scene& scene, const nav::BakedAgent& baked, std::uint64_t hash, bool links) {
  const nav::LayeredGraph& g = baked.graph;
  const nav::LayeredSearchGraph view(g, baked.profile.settings);
  const sim::QueryIndex index(scene.mesh);
  nav::SearchState state, lazy_state;
  for (int k = 0; k < 3; ++k) {
    hash = hash * 6364136223846793005ull + 1442695040888963407ull;
    const auto a_node = static_cast<std::uint32_t>((hash >> 33) % g.nodeCount());
    hash = hash * 6364136223846793005ull + 1442695040888963407ull;
    const auto b_node = static_cast<std::uint32_t>((hash >> 33) % g.nodeCount());
    const sim::Vec3 a = g.nodePosition(a_node), b = g.nodePosition(b_node);
    const std::string pair = fmt3(a) + " -> " + fmt3(b);
    nav::LayeredSearchSettings settings;
    settings.snap.max_horizontal = 0.2 * g.grid.cell_size;
    const nav::PathResult astar = nav::findLayeredPath(view, a, b, settings, state);
    if (astar.nodes.empty() && astar.ok()) fail("A* succeeded with no nodes: " + pair);
    if (astar.ok()) {
      const double best = flood(g, astar.nodes.front())[astar.nodes.back()];
      if (!(std::abs(astar.cost - best) <= 1e-6 * (1 + best)))
        fail("A* costs " + std::to_string(astar.cost) + ", the flood " + std::to_string(best) + ": " + pair);
      if (astar.nodes.front() != a_node && g.height[astar.nodes.front()] != g.height[a_node])
        fail("A* snapped a node's own position to another floor: " + pair);
    } else if (astar.failure == nav::PathFailure::NoPath) {
      const nav::NodeId s = nav::snapToNode(g, a, settings.snap), t = nav::snapToNode(g, b, settings.snap);
      if (s == nav::kNoNode || t == nav::kNoNode) fail("NoPath where an endpoint does not snap: " + pair);
      if (flood(g, s)[t] != kInf) fail("A* answers NoPath where the flood finds a route: " + pair);
    } else if (astar.failure != nav::PathFailure::NoStartNode && astar.failure != nav::PathFailure::NoGoalNode) {
      fail("A* answers " + std::string(nav::failureName(astar.failure)) + ": " + pair);
    }
    for (const nav::SearchMethod method : {nav::SearchMethod::Theta, nav::SearchMethod::Corridor, nav::SearchMethod::Interval}) {
      nav::LayeredSearchSettings other = settings;
      other.method = method;
      const nav::PathResult r = nav::findLayeredPath(view, a, b, other, state);
      if (r.ok() != astar.ok())
        fail(std::string(nav::methodName(method)) + " answers " + std::string(nav::failureName(r.failure)) + ", A* " +
             std::string(nav::failureName(astar.failure)) + ": " + pair);
      if (r.ok() && !links && r.cost < horizontal(a, b) * (1 - 1e-9) - 1e-9)
        fail(std::string(nav::methodName(method)) + " costs less than the straight line: " + pair);
    }
    auto lazy = nav::findOnDemandPath(scene.mesh, index, baked.profile, a, b, settings, wholeScene(), lazy_state);
    if (!lazy.ok()) fail("on-demand search refused: " + lazy.error().message);
    if (lazy->path.failure != astar.failure)
      fail("on demand " + std::string(nav::failureName(lazy->path.failure)) + ", baked " +
           std::string(nav::failureName(astar.failure)) + ": " + pair);
    // The two graphs number their nodes differently, and the open set keys f rounded to float32
    // (docs/search.md, "Open set"), so each search may answer another route among those within
    // float32's rounding of the cheapest: the same tolerance as against the flood above. (A
    // scene found at 1e-9: 13.134677157 on demand, the flood's cost, and 13.134677380 baked.)
    if (astar.ok() && !(std::abs(lazy->path.cost - astar.cost) <= 1e-6 * (1 + astar.cost)))
      fail("on demand costs " + std::to_string(lazy->path.cost) + ", baked " + std::to_string(astar.cost) + ": " + pair);
  }
}

// The route-distance field against the flood from its origin node: within max_distance (one part
// in a million over it still counts, docs/parameters.md) the flood's distance as a float, beyond
// it infinity; distances within 1e-5 of the limit are not judged.
void checkField(const nav::LayeredGraph& g, const nav::RouteField& field) {
  if (field.origin_node >= g.nodeCount()) fail("the field's origin node is not a node");
  const std::vector<double> dist = flood(g, field.origin_node);
  for (std::uint32_t n = 0; n < g.nodeCount(); ++n) {
    const double want = dist[n], got = double(field.distance[n]);
    if (std::abs(want - field.max_distance) <= 1e-5 * field.max_distance) continue;
    const bool inside = want <= field.max_distance;
    if (inside ? !(std::abs(got - want) <= 1e-6 * (1 + want)) : got != kInf)
      fail("field at node " + std::to_string(n) + " is " + std::to_string(got) + ", the flood " + std::to_string(want) +
           " (limit " + std::to_string(field.max_distance) + ")");
  }
}

void checkGraph(const Scene& scene, const nav::BakedAgent& baked, std::uint64_t hash, bool links) {
  const nav::LayeredGraph& g = baked.graph;
  if (const std::string problem = g.validate(); !problem.empty()) fail("the baked graph does not validate: " + problem);
  if (g.nodeCount() == 0) return;
  checkComponents(g);
  checkReach(g, static_cast<std::uint32_t>(hash % g.nodeCount()));
  for (const nav::RouteField& field : g.fields) checkField(g, field);
  checkSearches(scene, baked, hash, links);
}

std::string point(const sim::Vec3& p) {
  char buffer[128];
  std::snprintf(buffer, sizeof buffer, "[%.17g, %.17g, %.17g]", p.x, p.y, p.z);
  return buffer;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const Scene scene = decode(data, size);
  if (scene.mesh.triangles.empty()) return 0;
  const auto profile = formats::parseProfile(scene.profile, "fuzz.toml");
  if (!profile.ok()) fail("the target's own profile does not read: " + profile.error().message + "\n" + scene.profile);
  nav::BakeOptions serial, parallel;
  serial.threads = 1;
  serial.tile_cells = 4;
  parallel.threads = 2;
  const auto one = nav::bakeWorld(scene.mesh, *profile, serial, "fuzz");
  const auto two = nav::bakeWorld(scene.mesh, *profile, parallel, "fuzz");
  if (one.ok() != two.ok()) fail("the bake succeeds on one thread count only");
  if (!one.ok()) {
    if (one.error().message.empty() || one.error().message != two.error().message) fail("bake errors differ or are empty");
    return 0;
  }
  const nav::LayeredGraph& g = one->agents.front().graph;
  compareGraphs(g, two->agents.front().graph);
  std::uint64_t hash = 1469598103934665603ull;
  for (std::size_t i = 0; i < size; ++i) hash = (hash ^ data[i]) * 1099511628211ull;
  checkGraph(scene, one->agents.front(), hash, false);
  if (size < 4 || (data[3] & 2) == 0 || g.nodeCount() < 2) return 0;
  // Second phase: a link between two floor nodes of the first bake (one- or two-way, priced or
  // not) and a route-distance field from the first, baked again.
  const sim::Vec3 from = g.nodePosition(static_cast<std::uint32_t>((hash >> 7) % g.nodeCount()));
  const sim::Vec3 to = g.nodePosition(static_cast<std::uint32_t>((hash >> 29) % g.nodeCount()));
  std::string text = scene.profile + "[[agent.a.links]]\nfrom = " + point(from) + "\nto = " + point(to) +
                     "\nlabel = \"zip\"\nbidirectional = " + ((data[3] & 4) ? "true" : "false") + "\n";
  if (data[3] & 8) text += "cost = " + std::to_string(0.5 + (data[3] >> 4)) + "\n";
  text += "[[agent.a.fields]]\nname = \"f\"\norigin = " + point(from) + "\nmax_distance = " +
          std::to_string(1 + (hash >> 40) % 24) + "\n";
  const auto linked_profile = formats::parseProfile(text, "fuzz.toml");
  if (!linked_profile.ok()) fail("the target's own profile does not read: " + linked_profile.error().message + "\n" + text);
  const auto linked = nav::bakeWorld(scene.mesh, *linked_profile, parallel, "fuzz");
  if (!linked.ok()) fail("a link and a field on baked floors were refused: " + linked.error().message + "\n" + text);
  const auto linked_serial = nav::bakeWorld(scene.mesh, *linked_profile, serial, "fuzz");
  if (!linked_serial.ok()) fail("the bake succeeds on one thread count only");
  compareGraphs(linked->agents.front().graph, linked_serial->agents.front().graph);
  if (linked->agents.front().graph.fields.size() != 1) fail("the field is missing");
  checkGraph(scene, linked->agents.front(), hash ^ 0x9e3779b97f4a7c15ull, true);
  return 0;
}
