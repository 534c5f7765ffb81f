// /navigation of the world file: the baked layered graph of every agent type (docs/format.md,
// "Navigation data (per agent)"). Flat arrays, CSR style, one group per agent; written with the
// reproducible, chunked, compressed, checksummed writers of hdf5_io.h, read back with their
// validating readers, and the assembled graph checked by LayeredGraph::validate() so a world
// that reads is safe to search.

#include <fmt/format.h>
#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <limits>
#include <new>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "strata/formats/profile.h"
#include "strata/nav/bake.h"
#include "strata/nav/column_builder.h"
#include "strata/nav/first_failing.h"
#include "world_file_sections.h"

namespace strata::formats::detail {
namespace {

template <class T, class Allocator = std::allocator<T>>
Status put(const h5::Location& at, const char* name, const std::vector<T, Allocator>& values, std::size_t columns = 0) {
  return h5::writeArray<T>(at, name, std::span<const T>(values), columns);
}

Status checkBakedValues(const h5::Location& at, const nav::LayeredGraph& g, const nav::AgentProfile& profile);

// Whether `grid` is the column grid a bake lays over geometry of these bounds (the writer and
// the reader refuse any other: its columns would answer for the wrong ground).
bool laidOver(const nav::GridFrame& grid, const sim::Aabb& bounds) {
  const nav::GridFrame expected = nav::makeGridFrame(bounds, grid.cell_size);
  return grid.origin_x == expected.origin_x && grid.origin_z == expected.origin_z &&
         grid.width_cells == expected.width_cells && grid.depth_cells == expected.depth_cells;
}

Status writeAgent(const h5::Location& agents, const nav::BakedAgent& baked, bool check, const sim::Aabb* geometry_bounds) {
  const std::string& name = baked.profile.settings.name;
  const nav::LayeredGraph& g = baked.graph;
  nav::BakeProfile single;
  single.agents.push_back(baked.profile);
  const std::string toml = profileToToml(single);
  // Readable back through --profile (checkStoredProfileSize refuses such a profile before a bake).
  if (toml.size() > kMaxProfileFileBytes)
    return Error::badInput("agent " + name + ": its settings written out as TOML take more than the 16 MiB a profile may have");
  // Nothing the reader would refuse is written (a library caller's graph with a NaN edge cost, a
  // neighbour past the nodes, or an agent named "bad name!" was written, then refused on reading):
  // the stored profile parses back to this agent, and the graph passes the reader's checks.
  if (check) {
    const h5::Location named{H5I_INVALID_HID, agents.file, agents.childPath(name)};
    const std::string refused = named.self() + ": cannot write: ";
    // The profile's own rules first, naming the field (a NaN radius read back as a TOML parse
    // error at "agent 'default':2:13"; an audit).
    if (std::string problem = baked.profile.validate(); !problem.empty()) return Error::badInput(refused + problem);
    auto parsed = parseProfile(toml, "agent '" + name + "'");
    if (!parsed) return Error::badInput(refused + parsed.error().message);
    if (parsed->agents.size() != 1 || parsed->agents[0].settings.name != name)
      return Error::badInput(refused + "its settings do not read back as one agent of that name");
    if (std::string problem = g.validate(); !problem.empty()) return Error::badInput(refused + problem);
    if (geometry_bounds != nullptr && !laidOver(g.grid, *geometry_bounds))
      return Error::badInput(refused + "the column grid does not cover the geometry as a bake lays it (baked over another mesh)");
    if (Status s = checkBakedValues(named, g, baked.profile); !s) return Error::badInput(s.error().message + " (not written)");
  }
  auto group = h5::createGroup(agents, name);
  if (!group) return group.error();
  const h5::Location at = agents.child(*group, name);
  if (auto s = h5::writeStringAttribute(at, "profile", toml, h5::kMaxProfileBytes); !s) return s;
  if (auto s = h5::writeInt32Attribute(at, "component_count", static_cast<std::int32_t>(g.component_count)); !s) return s;
  if (auto s = h5::writeInt32Attribute(at, "region_count", static_cast<std::int32_t>(g.region_count)); !s) return s;
  if (auto s = h5::writeInt32Attribute(at, "region_reach_closure", g.region_reach_closure ? 1 : 0); !s) return s;
  if (auto s = put<double>(at, "grid_origin_xz", {g.grid.origin_x, g.grid.origin_z}); !s) return s;
  if (auto s = put<double>(at, "cell_size", {g.grid.cell_size}); !s) return s;
  if (auto s = put<std::int32_t>(at, "grid_cells", {g.grid.width_cells, g.grid.depth_cells}); !s) return s;
  if (auto s = put(at, "column_offsets", g.column_offsets); !s) return s;
  if (auto s = put(at, "height", g.height); !s) return s;
  std::vector<float> normals;
  normals.reserve(g.normal.size() * 3);
  for (const sim::Vec3f& n : g.normal) normals.insert(normals.end(), {n.x, n.y, n.z});
  if (auto s = put(at, "normal", normals, 3); !s) return s;
  normals = {};
  if (auto s = put(at, "area", std::vector<std::uint32_t>(g.area.begin(), g.area.end())); !s) return s;
  if (auto s = put(at, "headroom", g.headroom); !s) return s;
  if (auto s = put(at, "clearance", g.clearance); !s) return s;
  if (auto s = put(at, "component", g.component); !s) return s;
  if (auto s = put(at, "region", g.region); !s) return s;
  if (auto s = put(at, "flags", g.flags); !s) return s;
  if (auto s = put(at, "neighbor", g.neighbor, nav::kDirectionCount); !s) return s;
  if (auto s = put(at, "edge_kind", g.edge_kind, nav::kDirectionCount); !s) return s;
  if (auto s = put(at, "edge_cost", g.edge_cost, nav::kDirectionCount); !s) return s;
  if (auto s = put(at, "region_reach_offsets", g.region_reach_offsets); !s) return s;
  if (auto s = put(at, "region_reach", g.region_reach); !s) return s;
  if (auto s = h5::writeStringTable(at, "area_names", g.area_names); !s) return s;
  if (auto s = put(at, "area_costs", g.area_costs); !s) return s;
  // Links: one row each (from, to, label, profile index, bidirectional) plus their costs and
  // kinds (a custom link, or a second jump of the bake).
  std::vector<std::uint32_t> links;
  std::vector<float> link_costs;
  std::vector<std::uint8_t> link_kinds;
  for (const nav::OffMeshLink& l : g.links) {
    links.insert(links.end(), {l.from_node, l.to_node, l.label, l.profile_index, l.bidirectional ? 1u : 0u});
    link_costs.push_back(l.cost);
    link_kinds.push_back(static_cast<std::uint8_t>(l.kind));
  }
  if (auto s = put(at, "links", links, 5); !s) return s;
  if (auto s = put(at, "link_costs", link_costs); !s) return s;
  if (auto s = put(at, "link_kinds", link_kinds); !s) return s;
  if (auto s = h5::writeStringTable(at, "link_labels", g.link_labels); !s) return s;
  // Route-distance fields: names, origins, limits, origin nodes, and one [fields, nodes] array.
  std::vector<std::string> field_names;
  std::vector<double> field_origins, field_limits;
  std::vector<std::uint32_t> field_nodes;
  std::vector<float> distances;
  std::size_t values = 0;
  for (const nav::RouteField& f : g.fields) values += f.distance.size();
  distances.reserve(values);  // exactly: the fields' own size again, not up to twice that by growth
  for (const nav::RouteField& f : g.fields) {
    field_names.push_back(f.name);
    field_origins.insert(field_origins.end(), {f.origin.x, f.origin.y, f.origin.z});
    field_limits.push_back(f.max_distance);
    field_nodes.push_back(f.origin_node);
    distances.insert(distances.end(), f.distance.begin(), f.distance.end());
  }
  if (auto s = h5::writeStringTable(at, "field_names", field_names); !s) return s;
  if (auto s = put(at, "field_origins", field_origins, 3); !s) return s;
  if (auto s = put(at, "field_max_distance", field_limits); !s) return s;
  if (auto s = put(at, "field_origin_node", field_nodes); !s) return s;
  return put(at, "field_distance", distances, std::max<std::size_t>(g.nodeCount(), 1));
}

template <class T>
Status get(const h5::Location& at, const char* name, std::vector<T>& out, std::size_t columns = 0,
           std::optional<std::size_t> rows = std::nullopt) {
  auto array = h5::readArray<T>(at, name, columns, rows);
  if (!array) return array.error();
  out = std::move(array->values);
  return Ok{};
}

// A graph's per-node array: read straight into it (sized first without zeroing, NodeArray), so
// that the parallel chunk decoder is the first to touch its pages.
template <class T>
Status get(const h5::Location& at, const char* name, nav::NodeArray<T>& out, std::size_t columns, std::size_t rows) {
  out.resize(rows * std::max<std::size_t>(columns, 1));
  return h5::readArrayInto<T>(at, name, columns, rows, std::span<T>(out));
}

// A row-count mismatch names the dataset read second; `source` says where the count it was held
// to came from, which may be the damaged one (an audit: shortening `links` read as "link_costs:
// has 40 rows, expected 39").
Error countedBy(Error error, const char* source) {
  if (error.message.find(" rows, expected ") != std::string::npos || error.message.find(" row, expected ") != std::string::npos)
    error.message += std::string(" (") + source + ")";
  return error;
}

// The stored profile of the agent in group `at` (named `name`).
Result<nav::AgentProfile> readAgentProfile(const h5::Location& at, const std::string& name) {
  auto toml = h5::readStringAttribute(at, "profile", h5::kMaxProfileBytes);
  if (!toml) return toml.error();
  auto profile = parseProfile(*toml, at.self() + " (attribute profile)");
  if (!profile) return profile.error();
  if (profile->agents.size() != 1 || profile->agents[0].settings.name != name)
    return Error::badInput(at.self() + ": attribute profile does not describe agent '" + name + "'");
  return std::move(profile->agents[0]);
}
// What is wrong with graph g's region_reach rows against its edges and links (empty: nothing):
// a row must list the regions one edge or link away from the region and, when the rows are the
// closure, every region those regions' rows list, and nothing else (the region itself never);
// and in a closure no two regions may reach each other (they would be one region, and rows
// around such a cycle could all list a region none of them reaches: a review).
// Checked with per-thread stamp arrays, no sorting: a region's work is its nodes' edges and, in
// a closure, the lengths of its successors' rows (sorting those took a minute on a million-node
// world of many regions: the review).
std::string regionRowProblem(const nav::LayeredGraph& g) {
  const std::size_t nodes = g.nodeCount();
  const uint32_t regions = g.region_count;
  // The nodes of each region together (a counting sort).
  std::vector<std::size_t> first_node(std::size_t(regions) + 1, 0);
  for (std::size_t n = 0; n < nodes; ++n) ++first_node[std::size_t(g.region[n]) + 1];
  for (std::size_t r = 0; r < regions; ++r) first_node[r + 1] += first_node[r];
  std::vector<uint32_t> by_region(nodes);
  {
    std::vector<std::size_t> cursor(first_node.begin(), first_node.end() - 1);
    for (std::size_t n = 0; n < nodes; ++n) by_region[cursor[g.region[n]]++] = static_cast<uint32_t>(n);
  }
  auto row = [&](uint32_t r) {
    return std::span<const uint32_t>(g.region_reach.data() + g.region_reach_offsets[r],
                                     g.region_reach_offsets[r + 1] - g.region_reach_offsets[r]);
  };
  constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
  struct Scratch {
    std::vector<uint32_t> direct;              // region r's successors, each once
    std::vector<uint32_t> seen, listed, made;  // stamped r: a successor, in row(r), in the row the edges make
  };
  tbb::enumerable_thread_specific<Scratch> scratches;
  // Region r's problem, or empty; with `say` false only whether there is one ("x" when there is).
  auto problemOf = [&](uint32_t r, Scratch& k, bool say) -> std::string {
    if (k.seen.empty()) k.seen.assign(regions, kNone), k.listed.assign(regions, kNone), k.made.assign(regions, kNone);
    k.direct.clear();
    for (std::size_t i = first_node[r]; i < first_node[r + 1]; ++i) {
      const std::size_t n = by_region[i];
      auto add = [&](uint32_t to) {
        const uint32_t s = g.region[to];
        if (s != r && k.seen[s] != r) k.seen[s] = r, k.direct.push_back(s);
      };
      for (int d = 0; d < nav::kDirectionCount; ++d) {
        const std::size_t slot = n * nav::kDirectionCount + static_cast<std::size_t>(d);
        if (static_cast<nav::EdgeKind>(g.edge_kind[slot]) != nav::EdgeKind::None) add(g.neighbor[slot]);
      }
      for (uint32_t l = g.link_offsets[n]; l < g.link_offsets[n + 1]; ++l) add(g.links[l].to_node);
    }
    const std::string region = "region " + std::to_string(r);
    for (uint32_t x : row(r)) k.listed[x] = r;
    for (uint32_t s : k.direct) {
      if (k.listed[s] != r)
        return say ? region + " has an edge or link into region " + std::to_string(s) + ", but its row does not list it" : "x";
      k.made[s] = r;
      if (!g.region_reach_closure) continue;
      for (uint32_t x : row(s)) {
        if (x == r)
          return say ? "region " + std::to_string(s) + "'s row lists region " + std::to_string(r) + ", and " + region +
                           " has an edge or link into region " + std::to_string(s) +
                           ": regions that reach each other would be one region"
                     : "x";
        if (k.listed[x] != r)
          return say ? region + " reaches region " + std::to_string(x) + " through region " + std::to_string(s) +
                           " (whose row lists it), but its row does not list it"
                     : "x";
        k.made[x] = r;
      }
    }
    for (uint32_t x : row(r))
      if (k.made[x] != r)
        return say ? region + "'s row lists region " + std::to_string(x) + ", which it " +
                         (g.region_reach_closure ? "does not reach" : "has no edge or link to")
                   : "x";
    return {};
  };
  const std::size_t bad_row = nav::firstFailing(regions, [&](std::size_t r) {
    return problemOf(static_cast<uint32_t>(r), scratches.local(), false).empty();
  });
  if (bad_row == regions) return {};
  Scratch fresh;
  return problemOf(static_cast<uint32_t>(bad_row), fresh, true);
}

// The values a bake writes, checked beyond what LayeredGraph::validate() needs for safety: a
// file edited by hand (its checksums recomputed) must not answer from values no bake writes
// (a NaN height, a free edge, a negative field distance, a duplicate area name).
Status checkBakedValues(const h5::Location& at, const nav::LayeredGraph& g, const nav::AgentProfile& profile) {
  const std::size_t nodes = g.nodeCount(), columns = g.grid.columnCount();
  auto bad = [&](const char* dataset, const std::string& problem) {
    return Error::badInput(at.where(dataset) + ": " + problem);
  };
  // The checks of nodes and their edges run in one parallel pass over the columns (the graph's
  // arrays are read once, not once per check: a world of 4 million nodes has 32 million edge
  // slots), each keeping its lowest failing index; they are reported below in a fixed order, so
  // a file with several problems names the same one as checks run one after the other would.
  // (validate() has checked every length, range and offset these read.)
  const float radius = static_cast<float>(profile.settings.radius);
  constexpr uint8_t kKnownFlags = nav::kNodeBorder | nav::kNodeModified | nav::kNodeLinkEnd;
  const std::size_t slots = g.edge_cost.size();
  const std::size_t width = static_cast<std::size_t>(g.grid.width_cells);
  const std::size_t depth = static_cast<std::size_t>(g.grid.depth_cells);
  const bool regions = g.hasRegions();
  auto listed = [&](uint32_t from, uint32_t to) {
    if (from == to) return true;
    const auto first = g.region_reach.begin() + g.region_reach_offsets[from];
    const auto last = g.region_reach.begin() + g.region_reach_offsets[from + 1];
    return std::binary_search(first, last, to);
  };
  struct Firsts {
    std::size_t column, normal, room, narrow, flags, cost, edge, join;  // lowest failing column, node or slot
    bool last_component = false;  // a node is in component component_count - 1
  };
  const Firsts none{columns, nodes, nodes, nodes, nodes, slots, columns, nodes};
  auto earliest = [](Firsts a, const Firsts& b) {
    a.column = std::min(a.column, b.column), a.normal = std::min(a.normal, b.normal), a.room = std::min(a.room, b.room);
    a.narrow = std::min(a.narrow, b.narrow), a.flags = std::min(a.flags, b.flags), a.cost = std::min(a.cost, b.cost);
    a.edge = std::min(a.edge, b.edge), a.join = std::min(a.join, b.join);
    a.last_component = a.last_component || b.last_component;
    return a;
  };
  const Firsts first = tbb::parallel_reduce(
      tbb::blocked_range<std::size_t>(0, columns, 1 << 12), none,
      [&](const tbb::blocked_range<std::size_t>& range, Firsts f) {
        if (range.empty()) return f;  // (a grid without columns may have no width to divide by)
        std::size_t x = range.begin() % width, z = range.begin() / width;
        for (std::size_t c = range.begin(); c != range.end(); ++c, x = x + 1 == width ? (++z, 0) : x + 1) {
          const bool inside = x > 0 && z > 0 && x + 1 < width && z + 1 < depth;  // every neighbouring column exists
          for (uint32_t n = g.column_offsets[c]; n < g.column_offsets[c + 1]; ++n) {
            // Floors: finite heights, ascending in each column (equal only where float32 cannot
            // tell two floors apart, far from the origin); upward unit normals.
            const bool ascending = n == g.column_offsets[c] || g.height[n - 1] <= g.height[n];
            if (!std::isfinite(g.height[n]) || std::fabs(g.height[n]) > 1e7 || !ascending)
              f.column = std::min(f.column, c);
            const sim::Vec3f& v = g.normal[n];
            const double length = std::sqrt(double(v.x) * v.x + double(v.y) * v.y + double(v.z) * v.z);
            if (!(v.y > 0 && std::fabs(length - 1.0) <= 1e-3)) f.normal = std::min<std::size_t>(f.normal, n);  // NaN fails both
            // Headroom and clearance: >= 0 or infinite (nothing above, no edge of walkable space
            // in reach).
            if (!(g.headroom[n] >= 0 && g.clearance[n] >= 0)) f.room = std::min<std::size_t>(f.room, n);
            // Clearance is the agent's radius or more (a border node's standing box fits, no more
            // is known; others add the route to the nearest border): a smaller one answered
            // "fits" for a wider agent than the node has room for (an audit edited it to 0.01
            // with h5py).
            if (!(g.clearance[n] >= radius)) f.narrow = std::min<std::size_t>(f.narrow, n);
            if ((g.flags[n] & ~kKnownFlags) != 0) f.flags = std::min<std::size_t>(f.flags, n);
            const uint32_t component = g.component[n], region = regions ? g.region[n] : 0;
            if (component + 1 == g.component_count) f.last_component = true;
            // Every edge and link joins two nodes of one component and leads into its own region
            // or one its region's row lists.
            auto joins = [&](uint32_t m) { return g.component[m] == component && listed(region, g.region[m]); };
            bool joined = true;
            for (int d = 0; d < nav::kDirectionCount; ++d) {
              const std::size_t slot = static_cast<std::size_t>(n) * nav::kDirectionCount + static_cast<std::size_t>(d);
              const auto kind = static_cast<nav::EdgeKind>(g.edge_kind[slot]);
              if (kind == nav::EdgeKind::None) continue;
              // Edges cost something: a finite, positive amount (an infinite cost removes the edge).
              if (!(std::isfinite(g.edge_cost[slot]) && g.edge_cost[slot] > 0)) f.cost = std::min(f.cost, slot);
              // Every edge leaves its column along its slot's direction: a walk to the next
              // column, the other kinds to the next or one further on (a landing across a gap);
              // never to a node of its own column (a walk from a node to itself was accepted).
              const uint32_t m = g.neighbor[slot];
              bool ahead = false;
              if (kind == nav::EdgeKind::Walk && inside) {
                const std::ptrdiff_t step = nav::kDirectionDz[d] * static_cast<std::ptrdiff_t>(width) + nav::kDirectionDx[d];
                const std::size_t next = c + static_cast<std::size_t>(step);
                ahead = m >= g.column_offsets[next] && m < g.column_offsets[next + 1];
              } else {
                for (int32_t k = 1; !ahead; ++k) {
                  const int32_t ax = static_cast<int32_t>(x) + k * nav::kDirectionDx[d];
                  const int32_t az = static_cast<int32_t>(z) + k * nav::kDirectionDz[d];
                  if (!g.grid.contains(ax, az)) break;
                  const std::size_t column = g.grid.columnIndex(ax, az);
                  ahead = m >= g.column_offsets[column] && m < g.column_offsets[column + 1];
                  if (kind == nav::EdgeKind::Walk) break;
                }
              }
              if (!ahead) f.edge = std::min(f.edge, c);
              if (regions && !joins(m)) joined = false;
            }
            if (regions)
              for (uint32_t i = g.link_offsets[n]; i < g.link_offsets[n + 1]; ++i)
                if (!joins(g.links[i].to_node)) joined = false;
            if (!joined) f.join = std::min<std::size_t>(f.join, n);
          }
        }
        return f;
      },
      earliest);
  if (first.column < columns)
    return bad("height", "column " + std::to_string(first.column) + ": heights not finite or not ascending");
  if (first.normal < nodes) return bad("normal", "node " + std::to_string(first.normal) + ": not an upward unit normal");
  if (first.room < nodes)
    return bad(g.headroom[first.room] >= 0 ? "clearance" : "headroom",
               "node " + std::to_string(first.room) + ": negative or NaN");
  if (first.narrow < nodes)
    return bad("clearance", "node " + std::to_string(first.narrow) + ": " + std::to_string(g.clearance[first.narrow]) +
                                " is less than the agent's radius " + std::to_string(profile.settings.radius));
  if (first.flags < nodes) return bad("flags", "node " + std::to_string(first.flags) + ": unknown flag bits");
  if (first.cost < slots) return bad("edge_cost", nav::slotName(first.cost) + ": not a finite cost > 0");
  if (first.edge < columns)
    return bad("neighbor", "column " + std::to_string(first.edge) +
                               ": an edge that does not land ahead along its direction (a walk: in the next column)");
  // Components are numbered from 0 with none skipped: the largest is component_count - 1.
  if (nodes > 0 && !first.last_component)
    return bad("component", "component_count is " + std::to_string(g.component_count) + " but no node is in component " +
                                std::to_string(g.component_count - 1));
  if (nodes == 0 && g.component_count != 0) return bad("component", "component_count of a graph without nodes is not 0");
  // Every component and region holds a node (the bake numbers them by their nodes; an audit kept
  // region_count 3 with regions 1 and 2 empty). (Coarser components or regions than the edges
  // make, two merged into one, are not looked for: that takes the bake's own flood. The file's
  // checksums bind them to what the bake wrote.)
  auto firstUnused = [&](const auto& ids, uint32_t count) -> uint32_t {
    std::vector<uint8_t> used(count, 0);  // (count <= nodes: checked first)
    for (std::size_t n = 0; n < nodes; ++n)
      if (ids[n] < count) used[ids[n]] = 1;
    return static_cast<uint32_t>(std::find(used.begin(), used.end(), uint8_t{0}) - used.begin());
  };
  if (g.component_count > nodes)
    return bad("component", "component_count " + std::to_string(g.component_count) + " is more than the " +
                                std::to_string(nodes) + " nodes (every component holds one)");
  if (g.hasRegions() && g.region_count > nodes)
    return bad("region", "region_count " + std::to_string(g.region_count) + " is more than the " + std::to_string(nodes) +
                             " nodes (every region holds one)");
  if (const uint32_t unused = firstUnused(g.component, g.component_count); unused < g.component_count)
    return bad("component", "component_count is " + std::to_string(g.component_count) + " but no node is in component " +
                                std::to_string(unused));
  if (g.hasRegions())
    if (const uint32_t unused = firstUnused(g.region, g.region_count); unused < g.region_count)
      return bad("region", "region_count is " + std::to_string(g.region_count) + " but no node is in region " + std::to_string(unused));
  // The tables the stored profile gives (the on-demand search and a re-bake read the profile;
  // the search reads the tables: they must agree).
  std::vector<std::string> profile_areas;
  std::vector<float> profile_costs;
  nav::profileAreaTable(profile, profile_areas, profile_costs);
  if (g.area_names != profile_areas ||
      !std::equal(g.area_costs.begin(), g.area_costs.end(), profile_costs.begin(), profile_costs.end()))
    return bad("area_names", "the areas or their costs differ from the stored profile's");
  if (g.fields.size() != profile.fields.size())
    return bad("field_names", std::to_string(g.fields.size()) + " fields, but the stored profile has " +
                                  std::to_string(profile.fields.size()));
  for (std::size_t f = 0; f < g.fields.size(); ++f) {
    const nav::FieldSpec& spec = profile.fields[f];
    const nav::RouteField& field = g.fields[f];
    if (field.name != spec.name || !(field.origin.x == spec.origin.x && field.origin.y == spec.origin.y &&
                                     field.origin.z == spec.origin.z) || field.max_distance != spec.max_distance)
      return bad("field_names", "field " + std::to_string(f) + " differs from the stored profile's field '" + spec.name + "'");
  }
  for (const std::string& label : g.link_labels)
    if (label.find('\0') != std::string::npos || label.size() > 1024)
      return bad("link_labels", "a label holds a NUL byte or is over 1024 bytes");
  // Links: from the profile's list, and a two-way link's other direction present.
  for (std::size_t i = 0; i < g.links.size(); ++i) {
    const nav::OffMeshLink& link = g.links[i];
    if (link.from_node == link.to_node)  // the bake leaves such a link out: it leads nowhere
      return bad("links", "link " + std::to_string(i) + " leads from node " + std::to_string(link.from_node) + " to itself");
    if (link.kind != nav::EdgeKind::Link) continue;  // a second jump (checked by the reader)
    if (link.profile_index >= profile.links.size())
      return bad("links", "link " + std::to_string(i) + ": profile index " + std::to_string(link.profile_index) +
                              " but the profile has " + std::to_string(profile.links.size()) + " links");
    if (!link.bidirectional) continue;
    const auto first = g.links.begin() + g.link_offsets[link.to_node], last = g.links.begin() + g.link_offsets[link.to_node + 1];
    if (std::none_of(first, last, [&](const nav::OffMeshLink& back) {
          return back.to_node == link.from_node && back.profile_index == link.profile_index && back.bidirectional;
        }))
      return bad("links", "link " + std::to_string(i) + " is two-way but its other direction is missing");
  }
  // Components and regions agree with the edges (an unreachable goal is rejected by them before
  // any search, so an edit that split them answered NoPath for routes that exist): every edge and
  // link joins two nodes of one component and leads into its own region or into one that its
  // region's region_reach row lists (the closure lists every region reached, the DAG's edges the
  // ones an edge leads to: either way the target's).
  if (regions) {
    if (first.join < nodes)
      return bad("region_reach", "node " + std::to_string(first.join) +
                                     ": an edge leaves its component, or leads to a region its region's region_reach row "
                                     "does not list (component, region and region_reach disagree with the edges)");
    // Each row is exactly what the edges make it: the regions an edge or link leads to from the
    // region and, in a closure, every region their rows list. (A closure row that left out a
    // region reached through another passed the test above and answered NoPath for a route
    // that exists; a row listing a region not reached said `reachable: yes`: an audit.)
    if (std::string problem = regionRowProblem(g); !problem.empty()) return bad("region_reach", problem);
  }
  // Fields (their names, origins and limits are the profile's, checked above): distances.
  for (const nav::RouteField& field : g.fields) {
    // Flooded up to max_distance (stored as float), unreached nodes inf.
    const float limit = static_cast<float>(nav::fieldReach(field.max_distance));
    const std::size_t bad_distance = nav::firstFailing(nodes, [&](std::size_t n) {
      const float d = field.distance[n];
      return d >= 0 && (d <= limit || d == std::numeric_limits<float>::infinity());
    });
    if (bad_distance < nodes)
      return bad("field_distance", "field '" + field.name + "', node " + std::to_string(bad_distance) +
                                       ": negative, NaN or beyond max_distance");
    // The flood starts at its origin's node: 0 there (every edge and link costs more than 0).
    if (field.origin_node < nodes && field.distance[field.origin_node] != 0)
      return bad("field_distance", "field '" + field.name + "': its origin node " + std::to_string(field.origin_node) +
                                       " reads " + std::to_string(field.distance[field.origin_node]) + ", not 0");
    // Without an origin node (kNoNode) nothing was flooded: every node unreached (an audit set
    // the origin to none under finite distances, and `query field` kept answering them).
    if (field.origin_node == nav::kNoNode) {
      const std::size_t reached = nav::firstFailing(nodes, [&](std::size_t n) { return std::isinf(field.distance[n]); });
      if (reached < nodes)
        return bad("field_distance", "field '" + field.name + "', node " + std::to_string(reached) +
                                         ": a distance, but the field has no origin node (field_origin_node " +
                                         std::to_string(nav::kNoNode) + ")");
    }
  }
  return Ok{};
}

// Memory for the graphs a read takes: the limit (0: none), what the agents read so far take,
// and the agent being read (its node count and bytes once known), for the messages.
struct ReadBudget {
  std::uint64_t limit = 0;
  double taken = 0;
  std::size_t nodes = 0;
  double bytes = 0;
};

// What a graph of `nodes` nodes in `columns` columns with `fields` route fields takes once read:
// the per-node arrays (height, normal, area, headroom, clearance, component, region, flags, link
// offsets), the per-direction ones (neighbour, kind, cost), the fields, the column offsets, and
// the reader's temporary copies (the areas as read, all fields in one array).
double graphReadBytes(std::size_t nodes, std::size_t columns, std::size_t fields) {
  const double per_node = sizeof(float) + sizeof(sim::Vec3f) + sizeof(uint16_t) + 2 * sizeof(float) + 2 * sizeof(uint32_t) +
                          sizeof(uint8_t) + sizeof(uint32_t) +
                          nav::kDirectionCount * (sizeof(uint32_t) + sizeof(uint8_t) + sizeof(float)) + sizeof(uint32_t) +
                          2.0 * sizeof(float) * static_cast<double>(fields);
  return per_node * static_cast<double>(nodes) + sizeof(uint32_t) * static_cast<double>(columns);
}

Result<nav::BakedAgent> readAgent(const h5::Location& agents, const std::string& name, bool graph, std::int32_t schema_version,
                                  ReadBudget& budget, const sim::Aabb* geometry_bounds) {
  auto group = h5::openGroup(agents, name);
  if (!group) return group.error();
  const h5::Location at = agents.child(*group, name);
  nav::BakedAgent baked;
  auto profile = readAgentProfile(at, name);
  if (!profile) return profile.error();
  baked.profile = std::move(*profile);
  if (!graph) return baked;
  nav::LayeredGraph& g = baked.graph;
  auto components = h5::readIntegerAttribute(at, "component_count");
  if (!components) return components.error();
  auto regions = h5::readIntegerAttribute(at, "region_count");
  if (!regions) return regions.error();
  if (*components < 0 || *regions < 0) return Error::badInput(at.self() + ": negative component or region count");
  // int32 in the file (docs/format.md): a wider value edited in was cut to 32 bits in silence.
  if (*components > INT32_MAX || *regions > INT32_MAX)
    return Error::badInput(at.self() + ": component or region count above 2147483647");
  g.component_count = static_cast<uint32_t>(*components);
  g.region_count = static_cast<uint32_t>(*regions);
  // Schema version 3 says what region_reach holds (the closure, or the region DAG's edges when
  // the closure was too large); older files hold the closure.
  if (schema_version >= 3) {
    auto closure = h5::readIntegerAttribute(at, "region_reach_closure");
    if (!closure) return closure.error();
    if (*closure != 0 && *closure != 1) return Error::badInput(at.self() + ": region_reach_closure is neither 0 nor 1");
    g.region_reach_closure = *closure == 1;
  }
  std::vector<double> origin, cell;
  std::vector<std::int32_t> cells;
  if (auto s = get(at, "grid_origin_xz", origin, 0, 2); !s) return s.error();
  if (auto s = get(at, "cell_size", cell, 0, 1); !s) return s.error();
  if (auto s = get(at, "grid_cells", cells, 0, 2); !s) return s.error();
  g.grid.origin_x = origin[0];
  g.grid.origin_z = origin[1];
  g.grid.cell_size = cell[0];
  g.grid.width_cells = cells[0];
  g.grid.depth_cells = cells[1];
  // The dataset at fault is named (an audit: a cell_size of 0 or NaN, or a NaN origin, was said
  // of grid_cells).
  if (!std::isfinite(origin[0]) || !std::isfinite(origin[1]))
    return Error::badInput(at.where("grid_origin_xz") + ": not finite (" + fmt::format("{}, {}", origin[0], origin[1]) + ")");
  if (!(cell[0] > 0) || !std::isfinite(cell[0]))
    return Error::badInput(at.where("cell_size") + ": not a finite size > 0 (" + fmt::format("{}", cell[0]) + ")");
  if (cells[0] < 0 || cells[1] < 0 || static_cast<double>(cells[0]) * cells[1] > 4.0e8)
    return Error::badInput(at.where("grid_cells") + ": implausible column grid");
  if (geometry_bounds != nullptr) {
    // The bake lays each agent's column grid over the geometry's bounds: a grid that does not is
    // not this geometry's (columns would answer for the wrong ground).
    if (!laidOver(g.grid, *geometry_bounds))
      return Error::badInput(at.where("grid_cells") + ": the column grid does not cover the geometry as a bake lays it");
  }
  if (auto s = get(at, "column_offsets", g.column_offsets, 0, g.grid.columnCount() + 1); !s) return s.error();
  const std::size_t nodes = g.column_offsets.back();
  // Refused before the arrays are read when the machine has too little memory for them (a world
  // baked on a larger machine); an allocation that fails all the same is named by readNavigation.
  // (A node count that the node arrays do not hold is a damaged file, said as such first.)
  if (auto s = h5::checkShapeOf(at, "height", 0, nodes); !s)
    return countedBy(s.error(), "the node count: the last entry of column_offsets");
  auto field_names = h5::readStringTable(at, "field_names");
  if (!field_names) return field_names.error();
  budget.nodes = nodes;
  budget.bytes = graphReadBytes(nodes, g.grid.columnCount(), field_names->size());
  budget.taken += budget.bytes;
  if (budget.limit > 0 && budget.taken > static_cast<double>(budget.limit)) {
    char text[240];
    std::snprintf(text, sizeof text, "agent '%s': %zu floor nodes would need about %.3g GB%s to read, more than the %.3g GB of memory",
                  name.c_str(), nodes, budget.bytes / 1e9, budget.taken > budget.bytes ? " (with the agents before it)" : "",
                  static_cast<double>(budget.limit) / 1e9);
    return Error::badInput(at.file + ": " + text);
  }
  constexpr const char* kNodeCount = "the node count: the last entry of column_offsets";
  if (auto s = get(at, "height", g.height, 0, nodes); !s) return countedBy(s.error(), kNodeCount);
  // Read straight into the node normals (three floats each): no second copy of a large array.
  static_assert(sizeof(sim::Vec3f) == 3 * sizeof(float) && std::is_standard_layout_v<sim::Vec3f>);
  g.normal.resize(nodes);
  if (auto s = h5::readArrayInto<float>(at, "normal", 3, nodes, {reinterpret_cast<float*>(g.normal.data()), 3 * nodes}); !s)
    return countedBy(s.error(), kNodeCount);
  std::vector<std::uint32_t> area;
  if (auto s = get(at, "area", area, 0, nodes); !s) return countedBy(s.error(), kNodeCount);
  g.area.resize(nodes);
  for (std::size_t n = 0; n < nodes; ++n) {
    if (area[n] > 0xFFFF) return Error::badInput(at.where("area") + ": node " + std::to_string(n) + ": area out of range");
    g.area[n] = static_cast<uint16_t>(area[n]);
  }
  if (auto s = get(at, "headroom", g.headroom, 0, nodes); !s) return countedBy(s.error(), kNodeCount);
  if (auto s = get(at, "clearance", g.clearance, 0, nodes); !s) return countedBy(s.error(), kNodeCount);
  if (auto s = get(at, "component", g.component, 0, nodes); !s) return countedBy(s.error(), kNodeCount);
  if (auto s = get(at, "region", g.region, 0, nodes); !s) return countedBy(s.error(), kNodeCount);
  if (auto s = get(at, "flags", g.flags, 0, nodes); !s) return countedBy(s.error(), kNodeCount);
  if (auto s = get(at, "neighbor", g.neighbor, nav::kDirectionCount, nodes); !s)
    return countedBy(s.error(), kNodeCount);
  if (auto s = get(at, "edge_kind", g.edge_kind, nav::kDirectionCount, nodes); !s)
    return countedBy(s.error(), kNodeCount);
  if (auto s = get(at, "edge_cost", g.edge_cost, nav::kDirectionCount, nodes); !s)
    return countedBy(s.error(), kNodeCount);
  if (auto s = get(at, "region_reach_offsets", g.region_reach_offsets, 0, static_cast<std::size_t>(g.region_count) + 1); !s)
    return s.error();
  if (auto s = get(at, "region_reach", g.region_reach); !s) return s.error();
  auto area_names = h5::readStringTable(at, "area_names");
  if (!area_names) return area_names.error();
  g.area_names = std::move(*area_names);
  if (auto s = get(at, "area_costs", g.area_costs, 0, g.area_names.size()); !s) return countedBy(s.error(), "one per area_names entry");
  std::vector<std::uint32_t> links;
  if (auto s = get(at, "links", links, 5); !s) return s.error();
  const std::size_t link_count = links.size() / 5;
  std::vector<float> link_costs;
  if (auto s = get(at, "link_costs", link_costs, 0, link_count); !s) return countedBy(s.error(), "one per row of links");
  // Schema version 1 had no link_kinds (every entry a custom link); from version 2 it is required.
  std::vector<std::uint8_t> link_kinds(link_count, static_cast<std::uint8_t>(nav::EdgeKind::Link));
  if (schema_version >= 2)
    if (auto s = get(at, "link_kinds", link_kinds, 0, link_count); !s) return countedBy(s.error(), "one per row of links");
  auto link_labels = h5::readStringTable(at, "link_labels");
  if (!link_labels) return link_labels.error();
  g.link_labels = std::move(*link_labels);
  for (std::size_t i = 0; i < link_count; ++i) {
    const std::uint32_t* row = &links[5 * i];
    const auto kind = static_cast<nav::EdgeKind>(link_kinds[i]);
    if (kind != nav::EdgeKind::Link && kind != nav::EdgeKind::Jump)
      return Error::badInput(at.where("link_kinds") + ": link " + std::to_string(i) + ": kind " +
                             std::to_string(link_kinds[i]) + " is neither 5 (a custom link) nor 2 (a second jump)");
    // A custom link names a label; a second jump has none, no profile link and one way. The
    // message names the fault (one "is malformed" covered seven, an audit).
    auto malformed = [&](const char* dataset, const std::string& what) {
      return Error::badInput(at.where(dataset) + ": link " + std::to_string(i) + ": " + what);
    };
    const auto node_count = std::to_string(nodes);
    if (row[0] >= nodes) return malformed("links", "from node " + std::to_string(row[0]) + " out of range (" + node_count + " nodes)");
    if (row[1] >= nodes) return malformed("links", "to node " + std::to_string(row[1]) + " out of range (" + node_count + " nodes)");
    if (i > 0 && row[0] < links[5 * (i - 1)]) return malformed("links", "rows not sorted by their from node");
    if (kind == nav::EdgeKind::Link && row[2] >= g.link_labels.size())
      return malformed("links", "label " + std::to_string(row[2]) + " out of range (" + std::to_string(g.link_labels.size()) +
                                    " link_labels)");
    if (kind == nav::EdgeKind::Link && row[4] > 1)
      return malformed("links", "two-way flag " + std::to_string(row[4]) + " is neither 0 nor 1");
    if (kind == nav::EdgeKind::Jump && (row[2] != nav::kNoLinkLabel || row[3] != nav::kNoLinkLabel || row[4] != 0))
      return malformed("links", "a second jump (link_kinds 2) with a label, a profile link or two ways");
    if (!(link_costs[i] > 0) || !std::isfinite(link_costs[i]))
      return malformed("link_costs", "cost " + std::to_string(link_costs[i]) + " is not a finite number > 0");
    g.links.push_back({row[0], row[1], link_costs[i], row[2], row[3], row[4] == 1, kind});
  }
  g.indexLinkOffsets();  // the links are sorted by source node and in range (checked above)
  const std::size_t fields = field_names->size();
  std::vector<double> field_origins, field_limits;
  std::vector<std::uint32_t> field_nodes;
  std::vector<float> distances;
  if (auto s = get(at, "field_origins", field_origins, 3, fields); !s) return s.error();
  if (auto s = get(at, "field_max_distance", field_limits, 0, fields); !s) return s.error();
  if (auto s = get(at, "field_origin_node", field_nodes, 0, fields); !s) return s.error();
  if (auto s = get(at, "field_distance", distances, std::max<std::size_t>(nodes, 1), fields); !s) return s.error();
  for (std::size_t f = 0; f < fields; ++f) {
    nav::RouteField field;
    field.name = (*field_names)[f];
    field.origin = {field_origins[3 * f], field_origins[3 * f + 1], field_origins[3 * f + 2]};
    field.max_distance = field_limits[f];
    field.origin_node = field_nodes[f];
    field.distance.assign(distances.begin() + static_cast<std::ptrdiff_t>(f * nodes),
                          distances.begin() + static_cast<std::ptrdiff_t>((f + 1) * nodes));
    g.fields.push_back(std::move(field));
  }
  if (std::string problem = g.validate(); !problem.empty()) return Error::badInput(at.self() + ": " + problem);
  if (std::fabs(g.grid.cell_size - baked.profile.settings.cell_size) > 1e-12)
    return Error::badInput(at.where("cell_size") + ": differs from the stored profile's cell_size");
  if (Status s = checkBakedValues(at, g, baked.profile); !s) return s.error();
  return baked;
}

}  // namespace

Status writeNavigation(const h5::Location& root, const std::vector<nav::BakedAgent>& agents, bool check,
                       const sim::Aabb* geometry_bounds) {
  if (agents.empty()) return Ok{};
  auto group = h5::createGroup(root, "navigation");
  if (!group) return group.error();
  const h5::Location navigation = root.child(*group, "navigation");
  std::vector<std::string> names;
  for (const nav::BakedAgent& agent : agents) names.push_back(agent.profile.settings.name);
  if (auto s = h5::writeStringTable(navigation, "agent_names", names); !s) return s;
  auto agents_group = h5::createGroup(navigation, "agents");
  if (!agents_group) return agents_group.error();
  const h5::Location at = navigation.child(*agents_group, "agents");
  for (const nav::BakedAgent& agent : agents)
    if (auto s = writeAgent(at, agent, check, geometry_bounds); !s) return s;
  return Ok{};
}

Result<std::vector<nav::BakedAgent>> readNavigation(const h5::Location& root, const WorldReadOptions& options,
                                                    std::int32_t schema_version, const sim::Aabb* geometry_bounds) {
  std::vector<nav::BakedAgent> agents;
  auto has = h5::hasLink(root, "navigation");
  if (!has) return has.error();
  if (!*has) return agents;  // an imported, not yet baked world
  auto group = h5::openGroup(root, "navigation");
  if (!group) return group.error();
  const h5::Location navigation = root.child(*group, "navigation");
  auto names = h5::readStringTable(navigation, "agent_names");
  if (!names) return names.error();
  auto agents_group = h5::openGroup(navigation, "agents");
  if (!agents_group) return agents_group.error();
  const h5::Location at = navigation.child(*agents_group, "agents");
  for (std::size_t i = 0; i < names->size(); ++i) {
    const std::string& name = (*names)[i];
    if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
      return Error::badInput(navigation.where("agent_names") + ": bad agent name '" + name + "'");
    if (std::find(names->begin(), names->begin() + static_cast<std::ptrdiff_t>(i), name) != names->begin() + static_cast<std::ptrdiff_t>(i))
      return Error::badInput(navigation.where("agent_names") + ": agent '" + name + "' is listed twice");
    // Every listed agent is there, also when a command reads only one of them.
    auto present = h5::hasLink(at, name);
    if (!present) return present.error();
    if (!*present) return Error::badInput(at.where(name) + ": missing (agent '" + name + "' is listed in agent_names)");
  }
  // And every agent there is listed (a graph nobody reads is a file edited wrong).
  auto members = h5::linkNames(at);
  if (!members) return members.error();
  for (const std::string& member : *members)
    if (std::find(names->begin(), names->end(), member) == names->end())
      return Error::badInput(at.where(member) + ": an agent group not listed in /navigation/agent_names");
  // Running out of memory says which agent and how much it takes (the file is fine: a runtime
  // failure, exit 1 in the CLI).
  ReadBudget budget;
  budget.limit = options.memory_limit_bytes;
  auto readAgentOrOutOfMemory = [&](const std::string& name, bool graph) -> Result<nav::BakedAgent> {
    budget.nodes = 0;
    budget.bytes = 0;
    try {
      return readAgent(at, name, graph, schema_version, budget, geometry_bounds);
    } catch (const std::bad_alloc&) {
      std::string text = at.file + ": out of memory reading agent '" + name + "'";
      if (budget.bytes > 0) {
        char figures[120];
        std::snprintf(figures, sizeof figures, " (%zu floor nodes: about %.3g GB)", budget.nodes, budget.bytes / 1e9);
        text += figures;
      }
      return Error::runtime(text);
    }
  };
  using Agents = WorldReadOptions::Agents;
  if (options.agents == Agents::One && !names->empty()) {
    const std::string& wanted = options.agent.empty() ? names->front() : options.agent;
    if (std::find(names->begin(), names->end(), wanted) == names->end()) return noAgentError(root.file, wanted, *names);
    auto agent = readAgentOrOutOfMemory(wanted, true);
    if (!agent) return agent.error();
    agents.push_back(std::move(*agent));
    return agents;
  }
  for (const std::string& name : *names) {
    auto agent = readAgentOrOutOfMemory(name, options.agents != Agents::ProfilesOnly);
    if (!agent) return agent.error();
    agents.push_back(std::move(*agent));
  }
  return agents;
}

}  // namespace strata::formats::detail

namespace strata::formats {

Error noAgentError(const std::string& where, const std::string& wanted, const std::vector<std::string>& names) {
  std::string list;
  for (const std::string& name : names) list += (list.empty() ? "" : ", ") + name;
  return Error::badInput(where + ": no agent '" + wanted + "' (agents: " + list + ")");
}

}  // namespace strata::formats
