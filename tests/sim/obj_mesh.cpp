#include "obj_mesh.h"

#include "strata/formats/import.h"

#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>

#include "test_support.h"

namespace strata::test {

sim::TriangleMesh loadObj(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path.string());
  sim::TriangleMesh mesh;
  std::map<std::string, uint32_t> labels, tags;
  auto intern = [](std::map<std::string, uint32_t>& ids, std::vector<std::string>& names, const std::string& n) {
    auto [it, added] = ids.emplace(n, static_cast<uint32_t>(names.size()));
    if (added) names.push_back(n);
    return it->second;
  };
  uint32_t label = intern(labels, mesh.labels, "");
  uint32_t tag = intern(tags, mesh.tags, "");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string kind;
    ls >> kind;
    if (kind == "v") {
      double x = 0, y = 0, z = 0;
      ls >> x >> y >> z;
      mesh.vertices.push_back({static_cast<float>(x), static_cast<float>(y), static_cast<float>(z)});
    } else if (kind == "usemtl") {
      std::string n;
      ls >> n;
      label = intern(labels, mesh.labels, n);
    } else if (kind == "o" || kind == "g") {
      std::string n;
      ls >> n;
      tag = intern(tags, mesh.tags, n);
    } else if (kind == "f") {
      std::vector<uint32_t> idx;
      std::string token;
      while (ls >> token) {
        const long v = std::stol(token.substr(0, token.find('/')));
        idx.push_back(static_cast<uint32_t>(v < 0 ? static_cast<long>(mesh.vertices.size()) + v : v - 1));
      }
      for (std::size_t i = 2; i < idx.size(); ++i) {
        mesh.triangles.push_back({idx[0], idx[i - 1], idx[i]});
        mesh.triangle_labels.push_back(label);
        mesh.triangle_tags.push_back(tag);
      }
    }
  }
  return mesh;
}

sim::TriangleMesh loadMesh(const std::filesystem::path& path) {
  if (path.extension() == ".obj") return loadObj(path);
  formats::ImportOptions options;
  options.in_process = true;  // trusted shared data; the sandbox is tested in tests/formats
  auto imported = formats::importMeshes({path}, options);
  if (!imported.ok()) throw std::runtime_error(imported.error().message);
  return std::move(imported.value().mesh);
}

std::vector<std::filesystem::path> propertyMeshes() {
  std::vector<std::filesystem::path> out;
  const auto data = sharedData() / "meshes";
  for (const char* rel : {"real/game-maps-obj/pandora.obj", "real/game-maps-obj/fdm6.obj",
                          "real/game-maps-obj/dutility.obj", "real/godot-demo-projects/level_mesh.obj",
                          "recast/dungeon.obj", "recast/nav_test.obj", "recast/undulating.obj",
                          "real/godot-demo-projects/zdm2.glb", "real/godot-demo-projects/town_model.gltf",
                          "real/converted/dungeon.ply", "real/converted/nav_test.fbx"})
    if (std::filesystem::exists(data / rel)) out.push_back(data / rel);
  for (const char* rel : {"samples/tower.obj", "samples/maze.obj", "samples/course.obj"})
    if (std::filesystem::exists(sourceDir() / rel)) out.push_back(sourceDir() / rel);
  return out;
}

}  // namespace strata::test
