#include "strata/sim/mesh.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace strata::sim {

Aabb TriangleMesh::bounds() const {
  Aabb b;
  for (const Vec3f& v : vertices) b.expand(v.toDouble());
  return b;
}

std::string TriangleMesh::validate() const {
  for (std::size_t i = 0; i < vertices.size(); ++i) {
    const Vec3f& v = vertices[i];
    if (!std::isfinite(v.x) || !std::isfinite(v.y) || !std::isfinite(v.z))
      return "vertex " + std::to_string(i) + " is not finite";
    if (std::fabs(v.x) > kWorldBound || std::fabs(v.y) > kWorldBound || std::fabs(v.z) > kWorldBound)
      return "vertex " + std::to_string(i) + " lies beyond the world bound of 1e6 units";
  }
  if (triangle_labels.size() != triangles.size() || triangle_tags.size() != triangles.size())
    return "per-triangle label/tag arrays do not match the triangle count";
  for (std::size_t t = 0; t < triangles.size(); ++t) {
    for (uint32_t index : triangles[t])
      if (index >= vertices.size())
        return "triangle " + std::to_string(t) + ": index " + std::to_string(index) + " out of range (" +
               std::to_string(vertices.size()) + " vertices)";
    if (triangle_labels[t] >= labels.size())
      return "triangle " + std::to_string(t) + ": label id " + std::to_string(triangle_labels[t]) + " out of range";
    if (triangle_tags[t] >= tags.size())
      return "triangle " + std::to_string(t) + ": tag id " + std::to_string(triangle_tags[t]) + " out of range";
  }
  return {};
}

std::string coordinateText(double value) {
  char text[64];
  if (!std::isfinite(value) || std::fabs(value) >= 1e9) {
    std::snprintf(text, sizeof text, "%.9g", value);
    return text;
  }
  std::snprintf(text, sizeof text, "%.3f", value);
  std::string out = text;
  while (out.back() == '0') out.pop_back();
  if (out.back() == '.') out.pop_back();
  if (out == "-0") out = "0";
  return out;
}

std::string pointText(const Vec3& p) {
  return "(" + coordinateText(p.x) + ", " + coordinateText(p.y) + ", " + coordinateText(p.z) + ")";
}

}  // namespace strata::sim
