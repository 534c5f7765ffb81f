// strata export as a library: the debug mesh re-imported with Assimp has exactly one quad (two
// triangles) per node and the edges as separate line primitives, in every format; quads follow the
// node normal unless flat; bad extensions and empty graphs are errors naming the file.

#include <catch2/catch.hpp>

#include <assimp/Importer.hpp>
#include <assimp/mesh.h>
#include <assimp/scene.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <set>
#include <thread>
#include <string>
#include <tuple>

#include "render_fixtures.h"
#include "strata/formats/export.h"
#include "test_support.h"

using namespace strata;

namespace {

struct Counts {
  std::size_t triangles = 0;
  std::size_t lines = 0;
  std::size_t other = 0;
  float min_y = 1e30f, max_y = -1e30f;
  bool colours = false;
};

Counts reimport(const std::filesystem::path& path) {
  Assimp::Importer importer;
  const aiScene* scene = importer.ReadFile(path.string(), 0);
  Counts counts;
  REQUIRE(scene != nullptr);
  for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
    const aiMesh* mesh = scene->mMeshes[m];
    for (unsigned f = 0; f < mesh->mNumFaces; ++f) {
      const unsigned n = mesh->mFaces[f].mNumIndices;
      if (n == 3) ++counts.triangles;
      else if (n == 2) ++counts.lines;
      else ++counts.other;
      if (n == 3)
        for (unsigned i = 0; i < 3; ++i) {
          const float y = mesh->mVertices[mesh->mFaces[f].mIndices[i]].y;
          counts.min_y = std::min(counts.min_y, y);
          counts.max_y = std::max(counts.max_y, y);
        }
    }
    if (mesh->HasVertexColors(0) && mesh->mNumFaces > 0 && mesh->mFaces[0].mNumIndices == 3) counts.colours = true;
  }
  return counts;
}

// Two storeys, a jump and a link: 200 + 100 + 40 nodes.
nav::LayeredGraph graphWithEdges() {
  nav::LayeredGraph graph = test::threeStoreyGraph();
  test::setEdge(graph, graph.columnBegin(4, 0), 0, graph.columnBegin(5, 0) + 1, nav::EdgeKind::Jump);
  test::setEdge(graph, graph.columnBegin(5, 0) + 1, 4, graph.columnBegin(4, 0), nav::EdgeKind::Drop);
  graph.links.push_back({0, 5, 3.0f, 0, 0, false});
  graph.link_labels = {"ladder"};
  for (std::size_t n = 1; n < graph.link_offsets.size(); ++n) graph.link_offsets[n] = 1;
  return graph;
}

}  // namespace

TEST_CASE("exported meshes re-import with one quad per node and separate edge lines", "[formats][export]") {
  test::TempDir dir;
  const nav::LayeredGraph graph = graphWithEdges();
  REQUIRE(graph.validate().empty());
  const std::size_t nodes = graph.nodeCount();
  for (const char* name : {"debug.gltf", "debug.glb", "debug.obj"}) {
    INFO(name);
    auto stats = formats::exportDebugMesh(dir / name, graph);
    REQUIRE(stats.ok());
    CHECK(stats->quads == nodes);
    CHECK(stats->lines == 3);
    const Counts counts = reimport(dir / name);
    CHECK(counts.triangles == 2 * nodes);
    CHECK(counts.lines == 3);
    CHECK(counts.other == 0);
    CHECK(counts.min_y == Approx(0.0f));
    CHECK(counts.max_y == Approx(8.0f));
  }
  CHECK(std::filesystem::exists(dir / "debug.bin"));  // the .gltf's buffer, renamed beside it
  CHECK(std::filesystem::exists(dir / "debug.mtl"));
  // PLY has no line primitive: quads only.
  auto ply = formats::exportDebugMesh(dir / "debug.ply", graph);
  REQUIRE(ply.ok());
  CHECK(ply->lines == 0);
  const Counts counts = reimport(dir / "debug.ply");
  CHECK(counts.triangles == 2 * nodes);
  CHECK(counts.lines == 0);
  // Nothing temporary is left behind.
  for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
    CHECK(entry.path().filename().string().rfind(".debug", 0) != 0);
}

TEST_CASE("every exported quad and line keeps its own colour where colours meet", "[formats][export]") {
  // Two areas side by side on the ground floor, and a jump whose take-off is a drop's landing:
  // Assimp's glTF exporters join vertices at equal positions whatever their colours, so a
  // quad's corners at an area border and a jump's end at the drop's took the other's colour.
  test::TempDir dir;
  nav::LayeredGraph graph = graphWithEdges();
  graph.area_names = {"default", "mud"};
  graph.area_costs = {1.0f, 2.0f};
  for (uint32_t n = 0; n < graph.nodeCount(); ++n)
    if (graph.nodePosition(n).x < 5) graph.area[n] = 1;
  REQUIRE(graph.validate().empty());
  for (const char* name : {"colours.gltf", "colours.glb", "colours.obj"}) {
    INFO(name);
    REQUIRE(formats::exportDebugMesh(dir / name, graph).ok());
    Assimp::Importer importer;
    const aiScene* scene = importer.ReadFile((dir / name).string(), 0);
    REQUIRE(scene != nullptr);
    std::size_t faces = 0, mixed = 0;
    std::set<std::tuple<int, int, int>> colours;
    for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
      const aiMesh* mesh = scene->mMeshes[m];
      REQUIRE(mesh->HasVertexColors(0));
      for (unsigned f = 0; f < mesh->mNumFaces; ++f, ++faces) {
        const aiFace& face = mesh->mFaces[f];
        const aiColor4D first = mesh->mColors[0][face.mIndices[0]];
        for (unsigned i = 1; i < face.mNumIndices; ++i) mixed += mesh->mColors[0][face.mIndices[i]] == first ? 0 : 1;
        colours.insert({int(std::lround(first.r * 255)), int(std::lround(first.g * 255)), int(std::lround(first.b * 255))});
      }
    }
    CHECK(faces == 2 * graph.nodeCount() + 3);
    CHECK(mixed == 0);
    CHECK(colours.size() == 5);  // two areas, jump, drop, link
  }
}

TEST_CASE("export quads are tilted to the node normal unless flat", "[formats][export]") {
  test::TempDir dir;
  nav::LayeredGraph graph = test::buildColumnGraph(1, 1, 1.0, [](int, int) { return std::vector<float>{2.0f}; });
  // A 45-degree slope rising towards +x: corners at x +-0.5 lie at y 2 -+ ... 2 +- 0.5.
  graph.normal[0] = {-std::sqrt(0.5f), std::sqrt(0.5f), 0.0f};
  REQUIRE(formats::exportDebugMesh(dir / "tilted.obj", graph).ok());
  Counts tilted = reimport(dir / "tilted.obj");
  CHECK(tilted.triangles == 2);
  CHECK(tilted.min_y == Approx(1.5f));
  CHECK(tilted.max_y == Approx(2.5f));
  formats::ExportSettings flat;
  flat.flat = true;
  REQUIRE(formats::exportDebugMesh(dir / "flat.obj", graph, flat).ok());
  Counts level = reimport(dir / "flat.obj");
  CHECK(level.min_y == Approx(2.0f));
  CHECK(level.max_y == Approx(2.0f));
}

TEST_CASE("export errors name the file", "[formats][export]") {
  test::TempDir dir;
  const nav::LayeredGraph graph = test::threeStoreyGraph();
  auto bad = formats::exportDebugMesh(dir / "mesh.fbx", graph);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().kind == ErrorKind::BadInput);
  CHECK_THAT(bad.error().message, Catch::Contains("mesh.fbx") && Catch::Contains(".gltf, .glb, .obj or .ply"));
  const nav::LayeredGraph empty = test::buildColumnGraph(2, 2, 1.0, [](int, int) { return std::vector<float>{}; });
  auto nothing = formats::exportDebugMesh(dir / "empty.glb", empty);
  REQUIRE_FALSE(nothing.ok());
  CHECK_THAT(nothing.error().message, Catch::Contains("empty.glb") && Catch::Contains("no nodes"));
  CHECK_FALSE(std::filesystem::exists(dir / "empty.glb"));
  auto folder = formats::exportDebugMesh(dir / "missing" / "x.glb", graph);
  REQUIRE_FALSE(folder.ok());
  CHECK_THAT(folder.error().message, Catch::Contains("does not exist"));
}

TEST_CASE("an export larger than the memory limit is refused before the mesh is built", "[formats][export]") {
  // An audit: Assimp's exporters hold about 2 kB a node; a 46-million-node world was killed by
  // the kernel after 100 s with nothing said. The estimate: 500 bytes a vertex for glTF/GLB, 360
  // for OBJ/PLY, four vertices a node and two an edge line.
  test::TempDir dir;
  const nav::LayeredGraph graph = test::threeStoreyGraph();
  const std::size_t nodes = graph.nodeCount();
  for (const char* name : {"big.glb", "big.ply"}) {
    INFO(name);
    const double per_vertex = std::string(name) == "big.glb" ? 500.0 : 360.0;
    formats::ExportSettings settings;
    settings.edges = false;
    settings.memory_limit_bytes = static_cast<std::uint64_t>(per_vertex * 4.0 * static_cast<double>(nodes)) - 1;
    auto refused = formats::exportDebugMesh(dir / name, graph, settings);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().kind == ErrorKind::BadInput);
    CHECK_THAT(refused.error().message, Catch::StartsWith((dir / name).string() + ": exporting " + std::to_string(nodes) +
                                                          " nodes would need about ") &&
                                            Catch::EndsWith("GB of memory; export a bake with a larger cell_size"));
    CHECK_FALSE(std::filesystem::exists(dir / name));
    settings.memory_limit_bytes += 1;  // exactly the estimate: written
    CHECK(formats::exportDebugMesh(dir / name, graph, settings).ok());
  }
}

TEST_CASE("a glTF export moves its two files under a lock of their folder", "[formats][export][atomic]") {
  // Two exports to one name at once left the .gltf of one beside the .bin of the other (a hunt,
  // with a slowed rename): the renames run under an exclusive flock of the target's folder.
  test::TempDir dir;
  const nav::LayeredGraph graph = graphWithEdges();
  const int held = ::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  REQUIRE(held >= 0);
  REQUIRE(::flock(held, LOCK_EX) == 0);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::close(held);  // the inherited descriptor shares the held lock: only the parent's holds it
    _exit(formats::exportDebugMesh(dir / "e.gltf", graph).ok() ? 0 : 1);
  }
  // The child writes its files, then waits for the lock before moving them.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  CHECK_FALSE(std::filesystem::exists(dir / "e.gltf"));
  CHECK_FALSE(std::filesystem::exists(dir / "e.bin"));
  ::close(held);
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(std::filesystem::exists(dir / "e.gltf"));
  CHECK(std::filesystem::exists(dir / "e.bin"));
}
