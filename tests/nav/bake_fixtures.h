#pragma once
// Tiny inline levels for the bake tests: floors, boxes and ramps built in code, each test
// commenting the edge case it covers.

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "strata/nav/bake.h"
#include "strata/nav/profile.h"
#include "strata/sim/mesh.h"

namespace strata::test {

/// Builds a TriangleMesh face by face with labels and tags.
class MeshBuilder {
 public:
  MeshBuilder() {
    mesh_.labels.push_back("default");
    mesh_.tags.push_back("");
  }
  /// Quad p0..p3 (planar, in order around it) as two triangles whose front faces `outward`.
  MeshBuilder& quad(sim::Vec3 p0, sim::Vec3 p1, sim::Vec3 p2, sim::Vec3 p3, sim::Vec3 outward,
                    const std::string& label = "default", const std::string& tag = "") {
    const sim::Vec3 n = sim::cross(p1 - p0, p2 - p0);
    if (sim::dot(n, outward) < 0) std::swap(p1, p3);
    const uint32_t base = static_cast<uint32_t>(mesh_.vertices.size());
    for (const sim::Vec3& p : {p0, p1, p2, p3})
      mesh_.vertices.push_back({static_cast<float>(p.x), static_cast<float>(p.y), static_cast<float>(p.z)});
    const uint32_t l = intern(mesh_.labels, label), t = intern(mesh_.tags, tag);
    for (auto tri : {std::array<uint32_t, 3>{base, base + 1, base + 2}, std::array<uint32_t, 3>{base, base + 2, base + 3}}) {
      mesh_.triangles.push_back(tri);
      mesh_.triangle_labels.push_back(l);
      mesh_.triangle_tags.push_back(t);
    }
    return *this;
  }
  /// An upward-facing floor rectangle at height y.
  MeshBuilder& floor(double x0, double z0, double x1, double z1, double y, const std::string& label = "default") {
    return quad({x0, y, z0}, {x0, y, z1}, {x1, y, z1}, {x1, y, z0}, {0, 1, 0}, label);
  }
  /// A closed box (six outward faces).
  MeshBuilder& box(sim::Vec3 lo, sim::Vec3 hi, const std::string& label = "default", const std::string& tag = "") {
    quad({lo.x, hi.y, lo.z}, {lo.x, hi.y, hi.z}, {hi.x, hi.y, hi.z}, {hi.x, hi.y, lo.z}, {0, 1, 0}, label, tag);
    quad({lo.x, lo.y, lo.z}, {lo.x, lo.y, hi.z}, {hi.x, lo.y, hi.z}, {hi.x, lo.y, lo.z}, {0, -1, 0}, label, tag);
    quad({lo.x, lo.y, lo.z}, {lo.x, hi.y, lo.z}, {lo.x, hi.y, hi.z}, {lo.x, lo.y, hi.z}, {-1, 0, 0}, label, tag);
    quad({hi.x, lo.y, lo.z}, {hi.x, hi.y, lo.z}, {hi.x, hi.y, hi.z}, {hi.x, lo.y, hi.z}, {1, 0, 0}, label, tag);
    quad({lo.x, lo.y, lo.z}, {hi.x, lo.y, lo.z}, {hi.x, hi.y, lo.z}, {lo.x, hi.y, lo.z}, {0, 0, -1}, label, tag);
    quad({lo.x, lo.y, hi.z}, {hi.x, lo.y, hi.z}, {hi.x, hi.y, hi.z}, {lo.x, hi.y, hi.z}, {0, 0, 1}, label, tag);
    return *this;
  }
  /// A ramp surface rising along +x from (x0, y0) to (x1, y1), z0..z1 (top face only).
  MeshBuilder& ramp(double x0, double y0, double x1, double y1, double z0, double z1, const std::string& label = "default") {
    return quad({x0, y0, z0}, {x0, y0, z1}, {x1, y1, z1}, {x1, y1, z0}, {-(y1 - y0), x1 - x0, 0}, label);
  }
  const sim::TriangleMesh& mesh() const { return mesh_; }

 private:
  static uint32_t intern(std::vector<std::string>& table, const std::string& s) {
    for (std::size_t i = 0; i < table.size(); ++i)
      if (table[i] == s) return static_cast<uint32_t>(i);
    table.push_back(s);
    return static_cast<uint32_t>(table.size() - 1);
  }
  sim::TriangleMesh mesh_;
};

// Two platforms 12 m long with their tops at height 0, a chasm `width` wide between them (the
// floor 10 m down, deeper than max_drop), the whole level turned by `degrees` about the chasm's
// centre line through the origin; `a` and `b` are points 3 m either side of the chasm.
struct TurnedChasm {
  sim::TriangleMesh mesh;
  sim::Vec3 a, b;
};

inline TurnedChasm turnedChasm(double width, double degrees) {
  const double c = std::cos(degrees * M_PI / 180), s = std::sin(degrees * M_PI / 180);
  auto turn = [&](double x, double y, double z) { return sim::Vec3{c * x - s * z, y, s * x + c * z}; };
  MeshBuilder level;
  auto slab = [&](double x0, double x1, double z0, double z1, double y) {
    level.quad(turn(x0, y, z0), turn(x0, y, z1), turn(x1, y, z1), turn(x1, y, z0), {0, 1, 0});
  };
  const double half = width / 2;
  slab(-12, -half, -12, 12, 0);
  slab(half, 12, -12, 12, 0);
  slab(-12, 12, -12, 12, -10);
  // The chasm's walls.
  level.quad(turn(-half, 0, -12), turn(-half, -10, -12), turn(-half, -10, 12), turn(-half, 0, 12), turn(1, 0, 0) - turn(0, 0, 0));
  level.quad(turn(half, 0, -12), turn(half, -10, -12), turn(half, -10, 12), turn(half, 0, 12), turn(-1, 0, 0) - turn(0, 0, 0));
  return {level.mesh(), turn(-half - 3, 0, 0), turn(half + 3, 0, 0)};
}

/// An agent profile with test-friendly defaults (cell 0.25 m, radius 0.3 m).
inline nav::AgentProfile testAgent() {
  nav::AgentProfile agent;
  agent.settings.name = "test";
  agent.settings.cell_size = 0.25;
  return agent;
}

/// Bakes one agent; fails the test on error.
inline nav::BakedAgent bakeOne(const sim::TriangleMesh& mesh, const nav::AgentProfile& agent, int threads = 1) {
  nav::BakeProfile profile;
  profile.agents.push_back(agent);
  nav::BakeOptions options;
  options.threads = threads;
  auto result = nav::bakeWorld(mesh, profile, options, "fixture");
  if (!result.ok()) FAIL(result.error().message);
  return std::move(result->agents.front());
}

/// Nodes of the column containing world (x, z), bottom to top.
inline std::vector<uint32_t> nodesAt(const nav::LayeredGraph& g, double x, double z) {
  std::vector<uint32_t> nodes;
  const int32_t cx = g.grid.columnX(x), cz = g.grid.columnZ(z);
  if (!g.grid.contains(cx, cz)) return nodes;
  for (uint32_t n = g.columnBegin(cx, cz); n < g.columnEnd(cx, cz); ++n) nodes.push_back(n);
  return nodes;
}

/// The single node of the column at (x, z) nearest height y within 0.3 m, or kNoNode.
inline uint32_t nodeNear(const nav::LayeredGraph& g, double x, double y, double z) {
  return g.findNode(g.grid.columnX(x), g.grid.columnZ(z), y, 0.3, 0.3);
}

/// Kind of the edge from `from` in direction d (None when empty).
inline nav::EdgeKind kindOf(const nav::LayeredGraph& g, uint32_t from, int d) { return g.edgeKind(from, d); }

}  // namespace strata::test
