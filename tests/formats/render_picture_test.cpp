// strata render as a library: layer bands, picture size and panels, node pixels in proportion to
// the nodes drawn, edges and paths overlaid, settings errors, determinism, PNG and SVG encodings,
// the 5x7 font and the path-results reader. All graphs are small and built by hand.

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "render_fixtures.h"
#include "render_font.h"
#include "strata/formats/render.h"
#include "test_support.h"

using namespace strata;
using formats::RenderSettings;

namespace {

bool isMapBackground(const formats::RasterImage& image, int x, int y) {
  const std::size_t i = (static_cast<std::size_t>(y) * image.width + x) * 3;
  return image.rgb[i] == formats::kMapBackground[0] && image.rgb[i + 1] == formats::kMapBackground[1] &&
         image.rgb[i + 2] == formats::kMapBackground[2];
}

std::size_t inkInside(const formats::RasterImage& image, const formats::RenderLayout::Panel& panel) {
  std::size_t count = 0;
  for (int y = panel.y; y < panel.y + panel.height; ++y)
    for (int x = panel.x; x < panel.x + panel.width; ++x) count += isMapBackground(image, x, y) ? 0 : 1;
  return count;
}

std::size_t countColour(const formats::RasterImage& image, uint8_t r, uint8_t g, uint8_t b) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < image.rgb.size(); i += 3)
    count += (image.rgb[i] == r && image.rgb[i + 1] == g && image.rgb[i + 2] == b) ? 1 : 0;
  return count;
}

uint32_t bigEndian(const std::string& bytes, std::size_t at) {
  return (uint32_t(uint8_t(bytes[at])) << 24) | (uint32_t(uint8_t(bytes[at + 1])) << 16) |
         (uint32_t(uint8_t(bytes[at + 2])) << 8) | uint32_t(uint8_t(bytes[at + 3]));
}

}  // namespace

TEST_CASE("layer bands are ranks within a column", "[formats][render]") {
  const nav::LayeredGraph graph = test::threeStoreyGraph();
  const auto bands = formats::layerBands(graph);
  REQUIRE(bands.size() == 3);
  CHECK(bands[0].node_count == 200);
  CHECK(bands[1].node_count == 100);  // x 5..14, 10 rows
  CHECK(bands[2].node_count == 40);   // x 8..11
  CHECK(bands[0].min_height == 0.0f);
  CHECK(bands[1].min_height == 4.0f);
  CHECK(bands[2].max_height == 8.0f);
  const auto per_node = formats::nodeBands(graph);
  REQUIRE(per_node.size() == graph.nodeCount());
  // Column (9, 0) holds ground, floor and roof: bands 0, 1, 2 in height order.
  const uint32_t begin = graph.columnBegin(9, 0);
  CHECK(per_node[begin] == 0);
  CHECK(per_node[begin + 1] == 1);
  CHECK(per_node[begin + 2] == 2);
}

TEST_CASE("layer bands count past 65535 floors in a column", "[formats][render]") {
  // Bands were 16-bit and clamped: a column of 65,600 floors had bands 0..65535, the last one
  // holding 65 nodes of one column (an audit).
  const nav::LayeredGraph graph = test::buildColumnGraph(1, 1, 0.5, [](int, int) {
    std::vector<float> floors;
    for (int i = 0; i < 65600; ++i) floors.push_back(0.06f * static_cast<float>(i));
    return floors;
  });
  const auto bands = formats::layerBands(graph);
  REQUIRE(bands.size() == 65600);
  CHECK(bands[65599].node_count == 1);
  CHECK(bands[65599].min_height == 0.06f * 65599.0f);
  const auto per_node = formats::nodeBands(graph);
  CHECK(per_node[65599] == 65599);
}

TEST_CASE("a picture has one panel per band and node pixels in proportion to its nodes", "[formats][render]") {
  const nav::LayeredGraph graph = test::threeStoreyGraph();
  RenderSettings settings;
  settings.width_px = 900;
  settings.draw_edges = false;
  formats::RenderLayout layout;
  auto image = formats::renderRaster(graph, {}, settings, &layout);
  REQUIRE(image.ok());
  CHECK(image->width == 900);
  CHECK(image->height == layout.height);
  CHECK(image->rgb.size() == std::size_t(image->width) * image->height * 3);
  REQUIRE(layout.panels.size() == 3);
  for (const auto& panel : layout.panels) {
    INFO("band " << panel.band.index);
    CHECK(panel.nodes_drawn == panel.band.node_count);
    const double expected = panel.nodes_drawn * std::pow(graph.grid.cell_size * layout.pixels_per_metre, 2);
    const double ink = static_cast<double>(inkInside(*image, panel));
    CHECK(ink == Approx(expected).epsilon(0.08));
  }
  // Panels sit side by side, left to right, without overlapping.
  CHECK(layout.panels[0].x + layout.panels[0].width < layout.panels[1].x);
  CHECK(layout.panels[1].x + layout.panels[1].width < layout.panels[2].x);
}

TEST_CASE("render: --layers N shows only band N - a missing band is an error", "[formats][render]") {
  const nav::LayeredGraph graph = test::threeStoreyGraph();
  RenderSettings settings;
  settings.layer = 2;
  formats::RenderLayout layout;
  auto image = formats::renderRaster(graph, {}, settings, &layout);
  REQUIRE(image.ok());
  REQUIRE(layout.panels.size() == 1);
  CHECK(layout.panels[0].band.index == 2);
  CHECK(layout.panels[0].nodes_drawn == 40);

  settings.layer = 3;
  auto missing = formats::renderRaster(graph, {}, settings);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().kind == ErrorKind::BadInput);
  CHECK_THAT(missing.error().message, Catch::Contains("--layers 3") && Catch::Contains("3 bands"));
}

TEST_CASE("render: --region crops the view - bad regions and settings are errors naming the flag", "[formats][render]") {
  const nav::LayeredGraph graph = test::threeStoreyGraph();  // x 0..10, z 0..5
  RenderSettings settings;
  settings.draw_edges = false;
  settings.region = formats::RenderRegion{0, 0, 2, 5};  // columns x 0..3 (ground only)
  formats::RenderLayout layout;
  auto image = formats::renderRaster(graph, {}, settings, &layout);
  REQUIRE(image.ok());
  REQUIRE(layout.panels.size() == 3);
  CHECK(layout.panels[0].nodes_drawn == 40);  // 4 columns x 10 rows, the edge column at x = 2 is outside
  CHECK(layout.panels[1].nodes_drawn == 0);
  CHECK(inkInside(*image, layout.panels[1]) == 0);

  // A region a tenth of a micrometre wide inside one ground column (cell 0.5 m): the cell is
  // billions of pixels across; its edges overflowed int and it was not drawn (an audit), and its
  // walk edges are lines as long, stepped only where they can show.
  for (const bool edges : {false, true}) {
    INFO("edges " << edges);
    settings.draw_edges = edges;
    settings.region = formats::RenderRegion{1.1, 1.1, 1.1000001, 1.1000001};
    formats::RenderLayout tiny_layout;
    auto tiny = formats::renderRaster(graph, {}, settings, &tiny_layout);
    REQUIRE(tiny.ok());
    REQUIRE_FALSE(tiny_layout.panels.empty());
    const auto& panel = tiny_layout.panels[0];
    CHECK(panel.nodes_drawn == 1);
    CHECK(inkInside(*tiny, panel) == static_cast<std::size_t>(panel.width) * static_cast<std::size_t>(panel.height));
  }
  settings.draw_edges = false;

  settings.region = formats::RenderRegion{3, 0, 1, 5};
  auto reversed = formats::renderRaster(graph, {}, settings);
  REQUIRE_FALSE(reversed.ok());
  CHECK_THAT(reversed.error().message, Catch::StartsWith("--region"));

  settings.region = formats::RenderRegion{50, 50, 60, 60};
  auto outside = formats::renderRaster(graph, {}, settings);
  REQUIRE_FALSE(outside.ok());
  CHECK_THAT(outside.error().message, Catch::Contains("outside the graph's grid"));

  settings.region.reset();
  settings.width_px = 100;
  auto narrow = formats::renderRaster(graph, {}, settings);
  REQUIRE_FALSE(narrow.ok());
  CHECK_THAT(narrow.error().message, Catch::StartsWith("--width"));

  // Valid, but 3 panels do not fit in a row (it was refused): two to a row, all inside the
  // picture, none overlapping, every node drawn.
  settings.width_px = 200;
  formats::RenderLayout crowded_layout;
  auto crowded = formats::renderRaster(graph, {}, settings, &crowded_layout);
  REQUIRE(crowded.ok());
  REQUIRE(crowded_layout.panels.size() == 3);
  const auto& p = crowded_layout.panels;
  CHECK(p[0].y == p[1].y);
  CHECK(p[0].x + p[0].width < p[1].x);
  CHECK(p[2].x == p[0].x);
  CHECK(p[2].y > p[0].y + p[0].height);
  for (const auto& panel : p) {
    CHECK(panel.x + panel.width <= crowded->width);
    CHECK(panel.y + panel.height < crowded->height);
    CHECK(panel.nodes_drawn == panel.band.node_count);
  }
}

TEST_CASE("render: more than three bands wrap into balanced rows of at most three", "[formats][render]") {
  // Five bands of a level side by side at 1200 px were 225 px maps: now three to a row, then two.
  auto storeys = [](int count) {
    return test::buildColumnGraph(20, 10, 0.5, [count](int x, int) {
      std::vector<float> floors{0.0f};
      for (int k = 1; k < count; ++k)
        if (x >= k && x <= 19 - k) floors.push_back(4.0f * k);
      return floors;
    });
  };
  RenderSettings settings;
  settings.draw_edges = false;
  formats::RenderLayout three, four, five;
  REQUIRE(formats::renderRaster(storeys(3), {}, settings, &three).ok());
  REQUIRE(formats::renderRaster(storeys(4), {}, settings, &four).ok());
  auto image = formats::renderRaster(storeys(5), {}, settings, &five);
  REQUIRE(image.ok());
  REQUIRE(three.panels.size() == 3);
  CHECK(three.panels[0].y == three.panels[2].y);  // up to three: one row, as before
  REQUIRE(four.panels.size() == 4);               // four: two rows of two
  CHECK(four.panels[0].y == four.panels[1].y);
  CHECK(four.panels[2].x == four.panels[0].x);
  CHECK(four.panels[2].y > four.panels[0].y + four.panels[0].height);
  CHECK(four.panels[0].width > 1.4 * three.panels[0].width);
  REQUIRE(five.panels.size() == 5);               // five: three, then two
  CHECK(five.panels[2].y == five.panels[0].y);
  CHECK(five.panels[3].y > five.panels[0].y + five.panels[0].height);
  CHECK(five.panels[3].x == five.panels[0].x);
  CHECK(five.panels[4].y == five.panels[3].y);
  CHECK(five.panels[0].width == three.panels[0].width);
  CHECK(five.pixels_per_metre == three.pixels_per_metre);
  for (const auto& panel : five.panels) {
    INFO("band " << panel.band.index);
    CHECK(panel.y + panel.height < image->height);
    CHECK(panel.nodes_drawn == panel.band.node_count);
    CHECK(inkInside(*image, panel) > 0);
  }
}

TEST_CASE("render: cells smaller than a pixel paint each covered pixel once", "[formats][render]") {
  // An SVG of a 14-million-node level was 47 MB: a rectangle per node, 359,796 of them, of which
  // 29,914 differed. Where several cells fall in one pixel, a row of pixels is drawn as runs.
  // A 720 x 360 ground under a floor over its west half, cells 0.05 m, at 400 px: two panels of
  // 180 px, a cell a quarter of a pixel.
  const nav::LayeredGraph graph = test::buildColumnGraph(720, 360, 0.05, [](int x, int z) {
    std::vector<float> floors{static_cast<float>((x * 7 + z * 3) % 11) * 0.1f};  // heights vary: many colours
    if (x < 360) floors.push_back(4.0f);
    return floors;
  });
  RenderSettings settings;
  settings.width_px = 400;
  settings.draw_edges = false;
  formats::RenderLayout layout;
  auto image = formats::renderRaster(graph, {}, settings, &layout);
  REQUIRE(image.ok());
  REQUIRE(layout.panels.size() == 2);
  REQUIRE(graph.grid.cell_size * layout.pixels_per_metre < 0.5);
  // Brute force: the pixels the nodes of each band fall in (floor of the cell's corner in pixels).
  std::size_t covered_total = 0;
  for (const auto& panel : layout.panels) {
    INFO("band " << panel.band.index);
    std::set<std::pair<int, int>> covered;
    for (int z = 0; z < graph.grid.depth_cells; ++z)
      for (int x = 0; x < graph.grid.width_cells; ++x) {
        if (graph.columnEnd(x, z) - graph.columnBegin(x, z) <= static_cast<uint32_t>(panel.band.index)) continue;
        const int px = panel.x + static_cast<int>(std::floor((graph.grid.origin_x + x * graph.grid.cell_size - layout.region.min_x) *
                                                             layout.pixels_per_metre));
        const int py = panel.y + static_cast<int>(std::floor((graph.grid.origin_z + z * graph.grid.cell_size - layout.region.min_z) *
                                                             layout.pixels_per_metre));
        if (px >= panel.x && px < panel.x + panel.width && py >= panel.y && py < panel.y + panel.height) covered.insert({px, py});
      }
    CHECK(panel.nodes_drawn == panel.band.node_count);
    CHECK(inkInside(*image, panel) == covered.size());
    covered_total += covered.size();
  }
  // The SVG: at most a rectangle per covered pixel, plus the frame, legend and background.
  auto svg = formats::renderSvg(graph, {}, settings);
  REQUIRE(svg.ok());
  std::size_t rects = 0;
  for (std::size_t at = svg->find("<rect"); at != std::string::npos; at = svg->find("<rect", at + 1)) ++rects;
  CHECK(rects <= covered_total + 200);
  CHECK(rects * 4 < graph.nodeCount());
}

TEST_CASE("colour channels: unknown field is an error that lists the fields", "[formats][render]") {
  nav::LayeredGraph graph = test::threeStoreyGraph();
  nav::RouteField field;
  field.name = "from_west";
  field.distance.resize(graph.nodeCount());
  for (uint32_t n = 0; n < graph.nodeCount(); ++n)
    field.distance[n] = n % 7 == 0 ? std::numeric_limits<float>::infinity() : static_cast<float>(graph.nodePosition(n).x);
  graph.fields.push_back(field);

  std::string name;
  CHECK(formats::parseRenderChannel("height", name) == formats::RenderChannel::Height);
  CHECK(formats::parseRenderChannel("area", name) == formats::RenderChannel::Area);
  CHECK(formats::parseRenderChannel("clearance", name) == formats::RenderChannel::Clearance);
  CHECK(formats::parseRenderChannel("component", name) == formats::RenderChannel::Component);
  CHECK(formats::parseRenderChannel("field:from_west", name) == formats::RenderChannel::Field);
  CHECK(name == "from_west");
  CHECK_FALSE(formats::parseRenderChannel("field:", name).has_value());
  CHECK_FALSE(formats::parseRenderChannel("colour", name).has_value());

  RenderSettings settings;
  settings.channel = formats::RenderChannel::Field;
  settings.field_name = "from_west";
  auto ok = formats::renderRaster(graph, {}, settings);
  REQUIRE(ok.ok());
  CHECK(countColour(*ok, 150, 150, 150) > 0);  // unreachable nodes are grey

  settings.field_name = "nope";
  auto unknown = formats::renderRaster(graph, {}, settings);
  REQUIRE_FALSE(unknown.ok());
  CHECK_THAT(unknown.error().message, Catch::Contains("field:nope") && Catch::Contains("from_west"));

  // Areas: each area gets its palette colour.
  graph.area_names = {"default", "ramp"};
  graph.area_costs = {1.0f, 1.5f};
  for (uint32_t n = 0; n < graph.nodeCount(); n += 2) graph.area[n] = 1;
  settings.channel = formats::RenderChannel::Area;
  auto areas = formats::renderRaster(graph, {}, settings);
  REQUIRE(areas.ok());
  CHECK(countColour(*areas, 31, 119, 180) > 100);
  CHECK(countColour(*areas, 255, 127, 14) > 100);
}

TEST_CASE("jump, drop, climb and link edges and paths are drawn in their colours", "[formats][render]") {
  nav::LayeredGraph graph = test::buildColumnGraph(12, 4, 1.0, [](int x, int) {
    return std::vector<float>{x < 6 ? 0.0f : 1.0f};
  });
  RenderSettings settings;
  settings.width_px = 600;
  auto plain = formats::renderRaster(graph, {}, settings);
  REQUIRE(plain.ok());
  // The legend's edge key uses the colours too: count what the edges add.
  auto added = [&](const formats::RasterImage& image, uint8_t r, uint8_t g, uint8_t b) {
    return static_cast<long>(countColour(image, r, g, b)) - static_cast<long>(countColour(*plain, r, g, b));
  };

  // A jump from (2, 1) to (9, 1), a drop back from (9, 2) to (2, 2), a climb, and a link.
  const uint32_t a = graph.columnBegin(2, 1), b = graph.columnBegin(9, 1);
  const uint32_t c = graph.columnBegin(9, 2), d = graph.columnBegin(2, 2);
  test::setEdge(graph, a, 0, b, nav::EdgeKind::Jump);
  test::setEdge(graph, c, 4, d, nav::EdgeKind::Drop);
  test::setEdge(graph, graph.columnBegin(5, 3), 0, graph.columnBegin(6, 3), nav::EdgeKind::Climb);
  graph.links.push_back({graph.columnBegin(0, 0), graph.columnBegin(11, 3), 2.0f, 0, 0, false});
  graph.link_labels = {"teleport"};
  for (uint32_t n = graph.columnBegin(0, 0) + 1; n < graph.link_offsets.size(); ++n) graph.link_offsets[n] = 1;
  REQUIRE(graph.validate().empty());

  formats::RenderPath path;
  path.waypoints = {{{0.5, 0, 0.5}, ""}, {{5.5, 0, 0.5}, "walk"}, {{8.5, 1, 0.5}, "jump"}, {{11.5, 1, 3.5}, "walk"}};
  auto drawn = formats::renderRaster(graph, {path}, settings);
  REQUIRE(drawn.ok());
  CHECK(added(*drawn, 255, 140, 0) > 10);  // jump
  CHECK(added(*drawn, 200, 20, 20) > 10);  // drop
  CHECK(added(*drawn, 0, 150, 60) > 2);    // climb
  CHECK(added(*drawn, 190, 0, 190) > 10);  // link
  CHECK(added(*drawn, 20, 40, 170) > 50);  // path
  CHECK(added(*drawn, 40, 200, 40) > 5);   // start marker
  CHECK(added(*drawn, 230, 40, 40) > 5);   // goal marker
}

TEST_CASE("a path's action label stays inside its panel - SVG text is well-formed XML", "[formats][render]") {
  // The view starts at z = 1.7; the path's jump waypoint lies just before it, at z = 1.6 (+Z is
  // down the picture, so beyond the panel's top edge, where the panel header is). The label's
  // white box was not clipped and erased the header text.
  const nav::LayeredGraph graph = test::buildColumnGraph(12, 4, 1.0, [](int, int) { return std::vector<float>{0.0f}; });
  RenderSettings settings;
  settings.width_px = 600;
  settings.region = formats::RenderRegion{0, 1.7, 12, 4};
  formats::RenderLayout layout;
  auto plain = formats::renderRaster(graph, {}, settings, &layout);
  REQUIRE(plain.ok());
  REQUIRE(layout.panels.size() == 1);
  formats::RenderPath path;
  path.waypoints = {{{0.5, 0, 3.5}, ""}, {{3.5, 0, 1.6}, "jump"}, {{11.5, 0, 3.5}, "walk"}};
  auto drawn = formats::renderRaster(graph, {path}, settings);
  REQUIRE(drawn.ok());
  const auto& panel = layout.panels.front();
  std::size_t changed_outside = 0, changed_inside = 0;
  for (int y = 0; y < plain->height; ++y)
    for (int x = 0; x < plain->width; ++x) {
      const std::size_t i = (static_cast<std::size_t>(y) * plain->width + x) * 3;
      const bool differs = std::memcmp(&plain->rgb[i], &drawn->rgb[i], 3) != 0;
      const bool inside = x >= panel.x && x < panel.x + panel.width && y >= panel.y && y < panel.y + panel.height;
      (inside ? changed_inside : changed_outside) += differs ? 1 : 0;
    }
  CHECK(changed_inside > 50);   // the path
  CHECK(changed_outside == 0);  // nothing beyond the panel, the header included

  // Text that is no XML (U+FFFF, a surrogate, a malformed byte) is replaced, the rest kept.
  path.waypoints[1].action = "jump\xEF\xBF\xBF\xED\xA0\x80\xC3 \xC3\xA4";
  auto svg = formats::renderSvg(graph, {path}, settings);
  REQUIRE(svg.ok());
  CHECK(svg->find("\xEF\xBF\xBF") == std::string::npos);
  CHECK(svg->find("\xED\xA0\x80") == std::string::npos);
  CHECK_THAT(*svg, Catch::Contains("jump\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD \xC3\xA4"));
  // Control characters become spaces: C0, DEL and C1 (U+0085 was kept; an audit).
  path.waypoints[1].action = "a\x01" "b\x7F" "c\xC2\x85" "d\xC2\x9F" "e\xC2\xA0" "f";
  svg = formats::renderSvg(graph, {path}, settings);
  REQUIRE(svg.ok());
  CHECK_THAT(*svg, Catch::Contains("a b c d e\xC2\xA0" "f"));
}

TEST_CASE("PNG output is deterministic, 8-bit RGB, without time chunks", "[formats][render]") {
  const nav::LayeredGraph graph = test::threeStoreyGraph();
  RenderSettings settings;
  settings.width_px = 640;
  auto first = formats::renderRaster(graph, {}, settings);
  auto second = formats::renderRaster(graph, {}, settings);
  REQUIRE(first.ok());
  REQUIRE(second.ok());
  auto png = formats::encodePng(*first);
  auto again = formats::encodePng(*second);
  REQUIRE(png.ok());
  REQUIRE(again.ok());
  CHECK(*png == *again);
  REQUIRE(png->size() > 33);
  CHECK(png->compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
  CHECK(png->compare(12, 4, "IHDR") == 0);
  CHECK(bigEndian(*png, 16) == 640u);
  CHECK(bigEndian(*png, 20) == static_cast<uint32_t>(first->height));
  CHECK((*png)[24] == 8);  // bit depth
  CHECK((*png)[25] == 2);  // colour type RGB
  CHECK(png->find("tIME") == std::string::npos);
  CHECK(png->find("tEXt") == std::string::npos);

  formats::RasterImage broken{10, 10, {}};
  CHECK_FALSE(formats::encodePng(broken).ok());
}

TEST_CASE("SVG output has the same layout and is deterministic", "[formats][render]") {
  const nav::LayeredGraph graph = test::threeStoreyGraph();
  RenderSettings settings;
  formats::RenderLayout raster_layout, svg_layout;
  REQUIRE(formats::renderRaster(graph, {}, settings, &raster_layout).ok());
  auto svg = formats::renderSvg(graph, {}, settings, &svg_layout);
  REQUIRE(svg.ok());
  CHECK(svg_layout.height == raster_layout.height);
  CHECK(svg_layout.panels.size() == 3);
  CHECK(svg->rfind("<?xml", 0) == 0);
  CHECK_THAT(*svg, Catch::Contains("width=\"1200\"") && Catch::Contains("</svg>"));
  for (const char* label : {">layer 0<", ">layer 1<", ">layer 2<"}) CHECK_THAT(*svg, Catch::Contains(label));
  auto again = formats::renderSvg(graph, {}, settings);
  REQUIRE(again.ok());
  CHECK(*svg == *again);
}

TEST_CASE("the colour ramp's numbers never run into each other, at any width", "[formats][render]") {
  // A hunt: heights 0 to 39.98 drawn 260 px wide read "0  19.9939.98" (the middle number ran
  // into the maximum). The minimum and maximum are always drawn, apart; the middle only where it
  // fits between them.
  const nav::LayeredGraph graph = test::buildColumnGraph(12, 6, 0.5, [](int x, int z) {
    return std::vector<float>{static_cast<float>(x * 3.6345 + z * 0.001)};  // up to 39.98
  });
  // The SVG's texts whose content is a number, by row: (x, text) per y. (Scanned by hand: GCC 12
  // warns inside std::regex under -O1, which the sanitizer build treats as an error.)
  auto numberTexts = [](const std::string& svg) {
    std::map<int, std::vector<std::pair<int, std::string>>> rows;
    for (std::size_t at = svg.find("<text x=\""); at != std::string::npos; at = svg.find("<text x=\"", at + 1)) {
      const std::size_t open = svg.find('>', at), close = svg.find("</text>", at);
      if (open == std::string::npos || close == std::string::npos || close < open) break;
      const std::string content = svg.substr(open + 1, close - open - 1);
      if (content.empty() || content.find_first_not_of("-0123456789.") != std::string::npos) continue;
      const int x = std::stoi(svg.substr(at + 9));
      const int y = std::stoi(svg.substr(svg.find("y=\"", at) + 3));
      rows[y].push_back({x, content});
    }
    return rows;
  };
  for (const int width : {200, 240, 260, 300, 1200}) {
    INFO("width " << width);
    RenderSettings settings;
    settings.width_px = width;
    auto svg = formats::renderSvg(graph, {}, settings);
    REQUIRE(svg.ok());
    // The ramp's numbers: the lowest row of number texts.
    const auto rows = numberTexts(*svg);
    std::vector<std::pair<int, std::string>> ramp;
    for (const auto& [y, texts] : rows)
      if (std::any_of(texts.begin(), texts.end(), [](const auto& t) { return t.second == "0"; })) ramp = texts;
    REQUIRE(ramp.size() >= 2);
    std::sort(ramp.begin(), ramp.end());
    CHECK(ramp.front().second == "0");
    CHECK(ramp.back().second == "39.98");
    const int scale = width >= 900 ? 2 : 1;  // the picture's text scale
    for (std::size_t i = 1; i < ramp.size(); ++i)
      CHECK(ramp[i - 1].first + formats::render_detail::textWidth(ramp[i - 1].second) * scale < ramp[i].first);
  }
}

TEST_CASE("writeRender picks the format by extension and writes atomically", "[formats][render]") {
  test::TempDir dir;
  const nav::LayeredGraph graph = test::threeStoreyGraph();
  RenderSettings settings;
  REQUIRE(formats::writeRender(dir / "a.png", graph, {}, settings).ok());
  REQUIRE(formats::writeRender(dir / "a.SVG", graph, {}, settings).ok());
  CHECK(test::readFile(dir / "a.png").rfind("\x89PNG", 0) == 0);
  CHECK(test::readFile(dir / "a.SVG").find("<svg") != std::string::npos);
  auto bad = formats::writeRender(dir / "a.jpg", graph, {}, settings);
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().message, Catch::Contains("a.jpg") && Catch::Contains(".png or .svg"));
  // A failed render leaves no file and no temporary behind.
  settings.layer = 9;
  REQUIRE_FALSE(formats::writeRender(dir / "b.png", graph, {}, settings).ok());
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path())) ++files;
  CHECK(files == 2);  // a.png and a.SVG
  std::filesystem::create_directory(dir / "d.png");
  auto onto_folder = formats::writeRender(dir / "d.png", graph, {}, RenderSettings{});
  REQUIRE_FALSE(onto_folder.ok());
  CHECK(onto_folder.error().kind == ErrorKind::BadInput);
  CHECK_THAT(onto_folder.error().message, Catch::Contains("d.png: is a directory"));
  auto missing_folder = formats::writeRender(dir / "no" / "c.png", graph, {}, RenderSettings{});
  REQUIRE_FALSE(missing_folder.ok());
  CHECK_THAT(missing_folder.error().message, Catch::Contains("does not exist"));
}

TEST_CASE("the 5x7 font has distinct glyphs for digits and letters", "[formats][render]") {
  using namespace formats::render_detail;
  std::set<Glyph> seen;
  const std::string characters = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ.,:-+=/()%";
  for (char c : characters) {
    INFO(c);
    CHECK(hasGlyph(c));
    seen.insert(glyphFor(c));
  }
  CHECK(seen.size() == characters.size());
  CHECK(glyphFor('a') == glyphFor('A'));
  CHECK_FALSE(hasGlyph('\x7f'));
  CHECK(glyphFor('\x7f') == glyphFor('?'));
  CHECK(textWidth("") == 0);
  CHECK(textWidth("ab") == 11);
}

TEST_CASE("path results are read from JSON lines - errors name file and line", "[formats][render]") {
  test::TempDir dir;
  {
    std::ofstream out(dir / "results.jsonl");
    out << R"({"id":0,"status":"ok","waypoints":[{"x":1,"y":0,"z":2,"action":"walk"},{"x":3,"y":4,"z":5,"action":"jump"}]})" << "\n";
    out << "\n";
    out << R"({"id":1,"status":"no_path","reason":"NoPath","waypoints":[]})" << "\n";
    out << R"({"id":2,"status":"no_path"})" << "\n";
    out << R"({"id":3,"waypoints":[{"position":[7,8,9]}]})" << "\n";
  }
  auto paths = formats::readPathLines(dir / "results.jsonl");
  REQUIRE(paths.ok());
  REQUIRE(paths->size() == 2);
  CHECK((*paths)[0].waypoints.size() == 2);
  CHECK((*paths)[0].waypoints[1].action == "jump");
  CHECK((*paths)[0].waypoints[1].position.y == 4);
  CHECK((*paths)[1].waypoints[0].position.z == 9);

  {
    std::ofstream out(dir / "bad.jsonl");
    out << R"({"waypoints":[{"x":1,"y":0,"z":2}]})" << "\n" << R"({"waypoints":[{"x":1,"y":0}]})" << "\n";
  }
  auto bad = formats::readPathLines(dir / "bad.jsonl");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().message, Catch::Contains("bad.jsonl:2: waypoint 0"));
  // Coordinates far beyond any world (1e300 drew 300-digit SVG numbers) are refused; 1e7 m is not.
  {
    std::ofstream out(dir / "far.jsonl");
    out << R"({"waypoints":[{"x":1e7,"y":-1e7,"z":2}]})" << "\n" << R"({"waypoints":[{"x":1,"y":0,"z":2},{"position":[1e300,0,0]}]})" << "\n";
  }
  auto far = formats::readPathLines(dir / "far.jsonl");
  REQUIRE_FALSE(far.ok());
  CHECK_THAT(far.error().message, Catch::EndsWith("far.jsonl:2: waypoint 1: needs x, y, z (or \"position\": [x, y, z]), finite and within 1e7 m"));
  {
    std::ofstream out(dir / "garbage.jsonl");
    out << "{not json\n";
  }
  auto garbage = formats::readPathLines(dir / "garbage.jsonl");
  REQUIRE_FALSE(garbage.ok());
  CHECK_THAT(garbage.error().message, Catch::Contains("garbage.jsonl:1: not valid JSON"));
  CHECK_FALSE(formats::readPathLines(dir / "missing.jsonl").ok());
  // A NUL byte after the JSON, and an agent that is not a name, are refused as the batch reader
  // refuses them (an audit: both were accepted, the agent read as none).
  {
    std::ofstream out(dir / "nul.jsonl", std::ios::binary);
    out << R"({"waypoints":[{"x":1,"y":0,"z":2}]})" << '\0' << "\n";
  }
  auto nul = formats::readPathLines(dir / "nul.jsonl");
  REQUIRE_FALSE(nul.ok());
  CHECK_THAT(nul.error().message, Catch::EndsWith("nul.jsonl:1: contains a NUL byte"));
  {
    std::ofstream out(dir / "agent.jsonl");
    out << R"({"agent":"a","waypoints":[{"x":1,"y":0,"z":2}]})" << "\n" << R"({"agent":5,"waypoints":[{"x":1,"y":0,"z":2}]})" << "\n";
  }
  auto agent = formats::readPathLines(dir / "agent.jsonl");
  REQUIRE_FALSE(agent.ok());
  CHECK_THAT(agent.error().message, Catch::EndsWith("agent.jsonl:2: \"agent\" is not a string"));
  // A member given twice, in the line's object or a waypoint's, is refused as the batch reader
  // refuses it (an audit: the last "waypoints" was drawn).
  for (const char* twice : {R"({"waypoints":[{"x":1,"y":0,"z":2}],"waypoints":[]})",
                            R"({"waypoints":[{"x":1,"y":0,"z":2,"x":5}]})"}) {
    {
      std::ofstream out(dir / "twice.jsonl");
      out << R"({"waypoints":[{"x":1,"y":0,"z":2}],"results":{"x":1},"x":2})" << "\n" << twice << "\n";
    }
    auto refused = formats::readPathLines(dir / "twice.jsonl");
    REQUIRE_FALSE(refused.ok());
    CHECK_THAT(refused.error().message, Catch::Contains("twice.jsonl:2: member ") && Catch::EndsWith(" given twice"));
  }
}
