// Every sample level baked with its profile (samples/*.toml) and rendered: expected size, one
// panel per layer band (tower: road, bridge, roof, at least 3), node pixels in proportion to the
// node count, exported meshes with one quad per node; and docs/tower.png re-rendered from
// samples/tower.obj + samples/tower.toml with the road-to-roof path, compared byte for byte.
//
// To regenerate docs/tower.png after a deliberate change to the picture, run this test with
// STRATA_UPDATE_DOCS=1 (it then writes the file instead of comparing) and commit the result.

#include <catch2/catch.hpp>

#include <assimp/Importer.hpp>
#include <assimp/scene.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <string>

#include "render_sample_picture.h"
#include "strata/formats/export.h"
#include "test_support.h"

using namespace strata;

namespace {

std::size_t inkInside(const formats::RasterImage& image, const formats::RenderLayout::Panel& panel) {
  std::size_t count = 0;
  for (int y = panel.y; y < panel.y + panel.height; ++y)
    for (int x = panel.x; x < panel.x + panel.width; ++x) {
      const std::size_t i = (static_cast<std::size_t>(y) * image.width + x) * 3;
      count += (image.rgb[i] == formats::kMapBackground[0] && image.rgb[i + 1] == formats::kMapBackground[1] &&
                image.rgb[i + 2] == formats::kMapBackground[2])
                   ? 0
                   : 1;
    }
  return count;
}

}  // namespace

TEST_CASE("every sample renders with one panel per band and ink in proportion to its nodes", "[formats][render][samples]") {
  for (const std::string name : {"tower", "maze", "course"}) {
    INFO(name);
    const nav::BakedAgent& agent = test::bakedSample(name);
    const nav::LayeredGraph& graph = agent.graph;
    REQUIRE(graph.nodeCount() > 100);
    formats::RenderSettings settings;
    settings.width_px = 1000;
    settings.draw_edges = false;
    formats::RenderLayout layout;
    auto image = formats::renderRaster(graph, {}, settings, &layout);
    REQUIRE(image.ok());
    CHECK(image->width == 1000);
    CHECK(image->height == layout.height);
    const auto bands = formats::layerBands(graph);
    REQUIRE(layout.panels.size() == bands.size());
    if (name == "tower") CHECK(bands.size() >= 3);
    std::size_t drawn = 0;
    for (const auto& panel : layout.panels) {
      INFO("band " << panel.band.index << " nodes " << panel.band.node_count);
      CHECK(panel.nodes_drawn == panel.band.node_count);  // the default region shows every node
      drawn += panel.nodes_drawn;
      const double cell_pixels = graph.grid.cell_size * layout.pixels_per_metre;
      const double expected = panel.nodes_drawn * cell_pixels * cell_pixels;
      // Cells are whole pixels (at least one), so small bands deviate a little more.
      CHECK(static_cast<double>(inkInside(*image, panel)) == Approx(expected).epsilon(0.15).margin(50));
    }
    CHECK(drawn == graph.nodeCount());

    test::TempDir dir;
    auto svg = formats::writeRender(dir / "picture.svg", graph, {}, settings);
    REQUIRE(svg.ok());
    auto exported = formats::exportDebugMesh(dir / "debug.glb", graph);
    REQUIRE(exported.ok());
    Assimp::Importer importer;
    const aiScene* scene = importer.ReadFile((dir / "debug.glb").string(), 0);
    REQUIRE(scene != nullptr);
    std::size_t triangles = 0, lines = 0;
    for (unsigned m = 0; m < scene->mNumMeshes; ++m)
      for (unsigned f = 0; f < scene->mMeshes[m]->mNumFaces; ++f)
        (scene->mMeshes[m]->mFaces[f].mNumIndices == 3 ? triangles : lines) += 1;
    CHECK(triangles == 2 * graph.nodeCount());
    CHECK(lines == exported->lines);
  }
}

TEST_CASE("the tower's bands are the road, the bridge and the roof", "[formats][render][samples]") {
  const nav::LayeredGraph& graph = test::bakedSample("tower").graph;
  const auto bands = formats::layerBands(graph);
  REQUIRE(bands.size() >= 3);
  // At (0, -4) road, bridge and roof overlap (samples/README.md): bands 0, 1, 2 at y 0, 4, 8.
  const auto per_node = formats::nodeBands(graph);
  const int32_t x = graph.grid.columnX(0.0), z = graph.grid.columnZ(-4.0);
  const uint32_t begin = graph.columnBegin(x, z), end = graph.columnEnd(x, z);
  REQUIRE(end - begin == 3);
  for (uint32_t k = 0; k < 3; ++k) {
    CHECK(per_node[begin + k] == k);
    CHECK(graph.height[begin + k] == Approx(4.0 * k).margin(0.05));
  }
  CHECK(bands[2].max_height == Approx(8.0).margin(0.05));
}

TEST_CASE("docs/tower.png is what the renderer makes of the committed tower sample", "[formats][render][samples]") {
  const test::SamplePicture picture = test::towerDocsPicture();
  REQUIRE(picture.path.size() >= 2);
  // The path climbs from the road to the roof: its last waypoint is on the roof.
  CHECK(picture.path.back().position.y == Approx(8.0).margin(0.1));
  const std::filesystem::path committed = test::sourceDir() / "docs" / "tower.png";
  if (const char* update = std::getenv("STRATA_UPDATE_DOCS"); update && std::string(update) == "1") {
    REQUIRE(formats::writeFileAtomically(committed, picture.png).ok());
    WARN("wrote " << committed.string());
  }
  REQUIRE(std::filesystem::exists(committed));
  CHECK(test::readFile(committed) == picture.png);
}
