// /geometry of the world file: the triangle soup, its surface labels and tags
// (docs/format.md, "Geometry"). The reader re-establishes every TriangleMesh invariant
// (finite vertices within the world bound, indices and ids in range) and names the dataset
// and row of the first violation, so a world that reads is safe to bake and query.

#include <cmath>
#include <vector>

#include "world_file_sections.h"

namespace strata::formats::detail {

Status writeGeometry(const h5::Location& root, const sim::TriangleMesh& mesh) {
  auto group = h5::createGroup(root, "geometry");
  if (!group) return group.error();
  const h5::Location geometry = root.child(*group, "geometry");
  // Conventions travel with the data so an outside reader does not need docs/format.md.
  if (auto s = h5::writeStringAttribute(geometry, "units", "metre"); !s) return s;
  if (auto s = h5::writeStringAttribute(geometry, "up_axis", "+Y"); !s) return s;
  if (auto s = h5::writeStringAttribute(geometry, "front_face", "counter-clockwise"); !s) return s;

  std::vector<float> vertices;
  vertices.reserve(mesh.vertices.size() * 3);
  for (const sim::Vec3f& v : mesh.vertices) vertices.insert(vertices.end(), {v.x, v.y, v.z});
  if (auto s = h5::writeArray<float>(geometry, "vertices", vertices, 3); !s) return s;
  vertices = {};

  std::vector<std::uint32_t> triangles;
  triangles.reserve(mesh.triangles.size() * 3);
  for (const auto& t : mesh.triangles) triangles.insert(triangles.end(), t.begin(), t.end());
  if (auto s = h5::writeArray<std::uint32_t>(geometry, "triangles", triangles, 3); !s) return s;
  triangles = {};

  if (auto s = h5::writeArray<std::uint32_t>(geometry, "label_ids", mesh.triangle_labels); !s) return s;
  if (auto s = h5::writeStringTable(geometry, "labels", mesh.labels); !s) return s;
  if (auto s = h5::writeArray<std::uint32_t>(geometry, "tag_ids", mesh.triangle_tags); !s) return s;
  return h5::writeStringTable(geometry, "tags", mesh.tags);
}

namespace {

// Checks that every id in `ids` indexes a table of `table_size` entries.
Status checkIds(const h5::Location& geometry, const char* dataset, const std::vector<std::uint32_t>& ids,
                std::size_t table_size, const char* table) {
  for (std::size_t t = 0; t < ids.size(); ++t)
    if (ids[t] >= table_size)
      return Error::badInput(geometry.where(dataset) + ": triangle " + std::to_string(t) + ": id " +
                             std::to_string(ids[t]) + " out of range (" + std::to_string(table_size) + " " + table + ")");
  return Ok{};
}

}  // namespace

Result<sim::TriangleMesh> readGeometry(const h5::Location& root, bool triangles_too) {
  auto group = h5::openGroup(root, "geometry");
  if (!group) return group.error();
  const h5::Location geometry = root.child(*group, "geometry");
  sim::TriangleMesh mesh;

  auto vertices = h5::readArray<float>(geometry, "vertices", 3);
  if (!vertices) return vertices.error();
  mesh.vertices.resize(vertices->rows);
  for (std::size_t i = 0; i < vertices->rows; ++i) {
    const float* v = &vertices->values[3 * i];
    for (int axis = 0; axis < 3; ++axis) {
      if (!std::isfinite(v[axis]))
        return Error::badInput(geometry.where("vertices") + ": vertex " + std::to_string(i) + " is not finite");
      if (std::fabs(v[axis]) > sim::TriangleMesh::kWorldBound)
        return Error::badInput(geometry.where("vertices") + ": vertex " + std::to_string(i) +
                               " lies beyond the world bound of 1e6 m");
    }
    mesh.vertices[i] = sim::Vec3f{v[0], v[1], v[2]};
  }
  vertices->values = {};
  if (!triangles_too) return mesh;

  auto triangles = h5::readArray<std::uint32_t>(geometry, "triangles", 3);
  if (!triangles) return triangles.error();
  mesh.triangles.resize(triangles->rows);
  for (std::size_t t = 0; t < triangles->rows; ++t) {
    for (int corner = 0; corner < 3; ++corner) {
      const std::uint32_t index = triangles->values[3 * t + corner];
      if (index >= mesh.vertices.size())
        return Error::badInput(geometry.where("triangles") + ": triangle " + std::to_string(t) + ": index " +
                               std::to_string(index) + " out of range (" + std::to_string(mesh.vertices.size()) +
                               " vertices)");
      mesh.triangles[t][corner] = index;
    }
  }
  triangles->values = {};

  auto labels = h5::readStringTable(geometry, "labels");
  if (!labels) return labels.error();
  mesh.labels = std::move(*labels);
  auto label_ids = h5::readArray<std::uint32_t>(geometry, "label_ids", 0, mesh.triangles.size());
  if (!label_ids) return label_ids.error();
  if (auto s = checkIds(geometry, "label_ids", label_ids->values, mesh.labels.size(), "labels"); !s) return s.error();
  mesh.triangle_labels = std::move(label_ids->values);

  auto tags = h5::readStringTable(geometry, "tags");
  if (!tags) return tags.error();
  mesh.tags = std::move(*tags);
  auto tag_ids = h5::readArray<std::uint32_t>(geometry, "tag_ids", 0, mesh.triangles.size());
  if (!tag_ids) return tag_ids.error();
  if (auto s = checkIds(geometry, "tag_ids", tag_ids->values, mesh.tags.size(), "tags"); !s) return s.error();
  mesh.triangle_tags = std::move(tag_ids->values);
  return mesh;
}

}  // namespace strata::formats::detail
