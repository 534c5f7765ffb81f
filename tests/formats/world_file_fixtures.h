#pragma once
// Worlds built by hand for the world-file and `strata info` tests (no importer needed).

#include <cmath>
#include <cstdint>
#include <string>

#include "strata/formats/world_file.h"

namespace strata::test {

/// A 2 m cube standing on the origin: 8 vertices, 12 counter-clockwise triangles, two labels
/// (floor for the bottom, wall for the rest), one tag, one input file.
inline formats::World cubeWorld() {
  formats::World world;
  sim::TriangleMesh& m = world.geometry;
  m.vertices = {{-1, 0, -1}, {1, 0, -1}, {1, 0, 1}, {-1, 0, 1}, {-1, 2, -1}, {1, 2, -1}, {1, 2, 1}, {-1, 2, 1}};
  m.triangles = {{0, 1, 2}, {0, 2, 3}, {4, 6, 5}, {4, 7, 6}, {0, 4, 5}, {0, 5, 1},
                 {1, 5, 6}, {1, 6, 2}, {2, 6, 7}, {2, 7, 3}, {3, 7, 4}, {3, 4, 0}};
  m.labels = {"floor", "wall"};
  m.triangle_labels = {0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  m.tags = {"/level/cube"};
  m.triangle_tags.assign(12, 0);
  world.provenance.tool_version = "strata 0.1.0 (test)";
  world.provenance.inputs = {{"levels/cube.glb", std::string(64, 'a'), 4242}};
  world.provenance.import_options_json = R"({"scale":1.0,"up":"y"})";
  return world;
}

/// A height-field terrain of `side` x `side` vertices (2 (side-1)^2 triangles), labels and tags
/// cycling through small tables: big enough to span many HDF5 chunks when side is large.
inline formats::World terrainWorld(std::uint32_t side) {
  formats::World world;
  sim::TriangleMesh& m = world.geometry;
  m.vertices.reserve(std::size_t{side} * side);
  for (std::uint32_t z = 0; z < side; ++z)
    for (std::uint32_t x = 0; x < side; ++x)
      m.vertices.push_back({0.5f * x, 0.25f * std::sin(0.37f * x) * std::cos(0.23f * z), 0.5f * z});
  m.labels = {"grass", "rock", "sand"};
  m.tags = {"/terrain/a", "/terrain/b"};
  for (std::uint32_t z = 0; z + 1 < side; ++z)
    for (std::uint32_t x = 0; x + 1 < side; ++x) {
      const std::uint32_t i = z * side + x;
      m.triangles.push_back({i, i + side, i + 1});
      m.triangles.push_back({i + 1, i + side, i + side + 1});
      for (int k = 0; k < 2; ++k) {
        m.triangle_labels.push_back((x + z + k) % 3);
        m.triangle_tags.push_back(z % 2);
      }
    }
  world.provenance.tool_version = "strata 0.1.0 (test)";
  world.provenance.inputs = {{"terrain.obj", std::string(64, 'b'), 123456789}, {"props.glb", std::string(64, 'c'), 77}};
  return world;
}

/// True when the two worlds hold the same geometry and provenance.
inline bool sameWorld(const formats::World& a, const formats::World& b) {
  const sim::TriangleMesh& x = a.geometry;
  const sim::TriangleMesh& y = b.geometry;
  if (a.provenance.tool_version != b.provenance.tool_version ||
      a.provenance.import_options_json != b.provenance.import_options_json ||
      a.provenance.inputs.size() != b.provenance.inputs.size())
    return false;
  for (std::size_t i = 0; i < a.provenance.inputs.size(); ++i) {
    const auto& p = a.provenance.inputs[i];
    const auto& q = b.provenance.inputs[i];
    if (p.path != q.path || p.sha256 != q.sha256 || p.bytes != q.bytes) return false;
  }
  return x.vertices == y.vertices && x.triangles == y.triangles && x.triangle_labels == y.triangle_labels &&
         x.triangle_tags == y.triangle_tags && x.labels == y.labels && x.tags == y.tags;
}

}  // namespace strata::test
