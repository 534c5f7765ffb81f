#pragma once
/// \file
/// The static triangle geometry of a world: what `strata import` produces and what the query
/// index, the bake and the world file share.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "strata/sim/math.h"

namespace strata::sim {

/// A triangle soup with per-triangle surface labels and tags.
///
/// Invariants (checked by `validate()`, established by the importer and the world-file reader):
/// every vertex is finite and within kWorldBound of the origin; every index is < vertices.size();
/// triangle_labels / triangle_tags have one entry per triangle and index into labels / tags.
struct TriangleMesh {
  std::vector<Vec3f> vertices;                     ///< positions in metres, Y up
  std::vector<std::array<uint32_t, 3>> triangles;  ///< counter-clockwise seen from the front
  std::vector<uint32_t> triangle_labels;           ///< per triangle: index into `labels`
  std::vector<uint32_t> triangle_tags;             ///< per triangle: index into `tags`
  std::vector<std::string> labels;                 ///< surface labels (material names)
  std::vector<std::string> tags;                   ///< tags (scene node paths, "/" separated)

  /// Largest accepted absolute coordinate (metres): the spec's world bound.
  static constexpr double kWorldBound = 1.0e6;

  std::size_t triangleCount() const { return triangles.size(); }
  Vec3 vertex(uint32_t triangle, int corner) const { return vertices[triangles[triangle][static_cast<std::size_t>(corner)]].toDouble(); }
  /// Bounds of all vertices (empty when there are none).
  Aabb bounds() const;
  /// Checks the invariants above; returns an empty string when they hold, else what is wrong
  /// (e.g. "triangle 12: index 99 out of range (4 vertices)").
  std::string validate() const;
};

}  // namespace strata::sim
