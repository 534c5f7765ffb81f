#pragma once
// Tiny hand-built LayeredGraphs for the layered search and query tests: columns of floors on a
// 1 m grid, walk edges between floors of adjacent columns within the step height (diagonals only
// when both side columns connect too, like the bake), components by union-find. Tests add jump,
// drop and link edges by hand.

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "strata/nav/layered_graph.h"

namespace strata::test {

struct LayeredBuilder {
  int width = 0, depth = 0;
  double step = 0.4;
  std::vector<std::vector<float>> floors;  // per column, ascending
  std::vector<std::vector<uint16_t>> areas;
  std::vector<float> area_costs{1.0f};

  LayeredBuilder(int w, int d) : width(w), depth(d), floors(std::size_t(w) * d), areas(std::size_t(w) * d) {}
  std::size_t col(int x, int z) const { return std::size_t(z) * width + x; }
  void addFloor(int x, int z, float h, uint16_t area = 0) {
    auto& f = floors[col(x, z)];
    auto& a = areas[col(x, z)];
    auto it = std::upper_bound(f.begin(), f.end(), h);
    a.insert(a.begin() + (it - f.begin()), area);
    f.insert(it, h);
  }
  // A floor at 0 in every column except where a draw of 0..5 from `rng` gives 0 (about one
  // column in six is a hole), columns in row order.
  void addRandomFloors(std::mt19937& rng) {
    std::uniform_int_distribution<int> cell(0, 5);
    for (int z = 0; z < depth; ++z)
      for (int x = 0; x < width; ++x)
        if (cell(rng) != 0) addFloor(x, z, 0);
  }
  // Fills rows from an ASCII picture, row 0 = z 0; '.' floor at 0, '#' nothing, digits = floor
  // at that height, 'a'..'c' floor at 0 in area 1..3.
  void fromAscii(const std::vector<std::string>& rows) {
    for (int z = 0; z < depth; ++z)
      for (int x = 0; x < width; ++x) {
        const char c = rows[z][x];
        if (c == '.') addFloor(x, z, 0);
        else if (c >= '0' && c <= '9') addFloor(x, z, float(c - '0'));
        else if (c >= 'a' && c <= 'c') addFloor(x, z, 0, uint16_t(c - 'a' + 1));
      }
  }

  nav::LayeredGraph build() const {
    nav::LayeredGraph g;
    g.grid.origin_x = 0;
    g.grid.origin_z = 0;
    g.grid.cell_size = 1.0;
    g.grid.width_cells = width;
    g.grid.depth_cells = depth;
    g.column_offsets.push_back(0);
    for (std::size_t c = 0; c < floors.size(); ++c) {
      for (std::size_t i = 0; i < floors[c].size(); ++i) {
        g.height.push_back(floors[c][i]);
        g.normal.push_back({0, 1, 0});
        g.area.push_back(areas[c][i]);
        g.headroom.push_back(i + 1 < floors[c].size() ? floors[c][i + 1] - floors[c][i] - 0.2f
                                                     : std::numeric_limits<float>::infinity());
        g.clearance.push_back(0.5f);
        g.flags.push_back(0);
      }
      g.column_offsets.push_back(uint32_t(g.height.size()));
    }
    const std::size_t n = g.height.size();
    g.neighbor.assign(n * 8, nav::kNoNode);
    g.edge_kind.assign(n * 8, 0);
    g.edge_cost.assign(n * 8, 0);
    g.link_offsets.assign(n + 1, 0);
    g.area_names.push_back("default");
    for (std::size_t i = 1; i < area_costs.size(); ++i) g.area_names.push_back("area" + std::to_string(i));
    g.area_costs = area_costs;
    auto walkTarget = [&](uint32_t node, int x, int z) -> uint32_t {
      if (!g.grid.contains(x, z)) return nav::kNoNode;
      uint32_t best = nav::kNoNode;
      for (uint32_t m = g.columnBegin(x, z); m < g.columnEnd(x, z); ++m)
        if (std::fabs(g.height[m] - g.height[node]) <= step + 1e-6) best = m;
      return best;
    };
    for (int z = 0; z < depth; ++z)
      for (int x = 0; x < width; ++x)
        for (uint32_t node = g.columnBegin(x, z); node < g.columnEnd(x, z); ++node)
          for (int d = 0; d < 8; ++d) {
            const int dx = nav::kDirectionDx[d], dz = nav::kDirectionDz[d];
            const uint32_t to = walkTarget(node, x + dx, z + dz);
            if (to == nav::kNoNode) continue;
            if (nav::isDiagonal(d) && (walkTarget(node, x + dx, z) == nav::kNoNode || walkTarget(node, x, z + dz) == nav::kNoNode))
              continue;
            setEdge(g, node, d, to, nav::EdgeKind::Walk);
          }
    computeComponents(g);
    return g;
  }

  // Every floor's normal that of a plane rising `rise` metres a metre toward +x (a ramp built
  // with heights rise * x; the fixtures' columns are 1 m).
  static void tiltAlongX(nav::LayeredGraph& g, float rise) {
    const float n = static_cast<float>(1 / std::sqrt(1.0 + double(rise) * double(rise)));
    for (auto& normal : g.normal) normal = {-rise * n, n, 0};
  }

  static void setEdge(nav::LayeredGraph& g, uint32_t node, int d, uint32_t to, nav::EdgeKind kind, double penalty = 0) {
    const auto a = g.nodeColumn(node), b = g.nodeColumn(to);
    const double horizontal = std::hypot(a[0] - b[0], a[1] - b[1]) * g.grid.cell_size;
    const double rise = g.height[to] - g.height[node];
    g.neighbor[node * 8 + d] = to;
    g.edge_kind[node * 8 + d] = uint8_t(kind);
    g.edge_cost[node * 8 + d] = float((horizontal + 0.5 * std::fabs(rise)) * g.area_costs[g.area[to]] + penalty);
  }

  static void addLink(nav::LayeredGraph& g, uint32_t from, uint32_t to, float cost) {
    nav::OffMeshLink link;
    link.from_node = from;
    link.to_node = to;
    link.cost = cost;
    g.links.push_back(link);
    std::sort(g.links.begin(), g.links.end(), [](const auto& a, const auto& b) { return a.from_node < b.from_node; });
    std::fill(g.link_offsets.begin(), g.link_offsets.end(), 0);
    for (const auto& l : g.links) ++g.link_offsets[l.from_node + 1];
    for (std::size_t i = 1; i < g.link_offsets.size(); ++i) g.link_offsets[i] += g.link_offsets[i - 1];
  }

  // Undirected components over slots and links, ids in node order (like the bake).
  static void computeComponents(nav::LayeredGraph& g) {
    const std::size_t n = g.height.size();
    std::vector<uint32_t> parent(n);
    std::iota(parent.begin(), parent.end(), 0u);
    std::function<uint32_t(uint32_t)> find = [&](uint32_t v) { return parent[v] == v ? v : parent[v] = find(parent[v]); };
    for (uint32_t v = 0; v < n; ++v)
      for (int d = 0; d < 8; ++d)
        if (g.neighbor[v * 8 + d] != nav::kNoNode) parent[find(v)] = find(g.neighbor[v * 8 + d]);
    for (const auto& l : g.links) parent[find(l.from_node)] = find(l.to_node);
    std::vector<uint32_t> id(n, nav::kNoNode);
    g.component.assign(n, 0);
    uint32_t next = 0;
    for (uint32_t v = 0; v < n; ++v) {
      const uint32_t r = find(v);
      if (id[r] == nav::kNoNode) id[r] = next++;
      g.component[v] = id[r];
    }
    g.component_count = next;
  }
};

}  // namespace strata::test
