// The picture of strata render: layer bands, panel layout, node colours, edges, paths, legend and
// scale bar, drawn through a Canvas (render_canvas.h) so PNG and SVG show the same thing.
//
// Layer bands are ranks within a column (render.h): column c's nodes are sorted by height, so the
// node column_offsets[c] + k is in band k. A band therefore holds at most one node per column and
// a panel is a plain top-down map of it. Continuous channels use one colour scale over the whole
// graph (not per panel), so colours compare across panels and across --layers runs.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "render_canvas.h"
#include "render_font.h"
#include "strata/formats/render.h"

namespace strata::formats {

using render_detail::Canvas;
using render_detail::PixelRect;
using render_detail::Rgb;
using render_detail::kJumpColour;
using render_detail::kDropColour;
using render_detail::kClimbColour;
using render_detail::kLinkColour;

namespace {

constexpr Rgb kPictureBackground{255, 255, 255};
constexpr Rgb kMapColour{kMapBackground[0], kMapBackground[1], kMapBackground[2]};
constexpr Rgb kInk{40, 40, 40};
constexpr Rgb kFrame{120, 120, 120};
constexpr Rgb kUnreachable{150, 150, 150};
constexpr Rgb kPathColour{20, 40, 170};
constexpr Rgb kStartColour{40, 200, 40};
constexpr Rgb kGoalColour{230, 40, 40};
constexpr Rgb kWaypointColour{255, 255, 255};

// Viridis, sampled at 9 stops (perceptually uniform, readable in grey scale).
constexpr Rgb kRamp[] = {{68, 1, 84},    {71, 44, 122},  {59, 81, 139},   {44, 113, 142}, {33, 144, 141},
                         {39, 173, 129}, {92, 200, 99},  {170, 220, 50},  {253, 231, 37}};
constexpr const Rgb (&kPalette)[std::size(render_detail::kCategoryPalette)] = render_detail::kCategoryPalette;
constexpr int kPaletteSize = static_cast<int>(std::size(kPalette));

constexpr int kMargin = 12;
constexpr int kPanelGap = 16;
constexpr int kMaxColumns = 3;  // panels to a row at most
constexpr int kRowGap = 12;  // between a row of panels' maps and the next row's labels
constexpr int kMinPanelWidth = 60;  // room for a panel label at scale 1

Rgb rampColour(double t) {
  if (!(t >= 0)) t = 0;  // also NaN
  if (t > 1) t = 1;
  const double position = t * (std::size(kRamp) - 1);
  const int i = std::min(static_cast<int>(position), static_cast<int>(std::size(kRamp)) - 2);
  const double f = position - i;
  auto mix = [f](std::uint8_t a, std::uint8_t b) {
    return static_cast<std::uint8_t>(std::lround(a + (b - a) * f));
  };
  return {mix(kRamp[i].r, kRamp[i + 1].r), mix(kRamp[i].g, kRamp[i + 1].g), mix(kRamp[i].b, kRamp[i + 1].b)};
}

const char* channelName(RenderChannel channel) {
  switch (channel) {
    case RenderChannel::Height: return "height";
    case RenderChannel::Area: return "area";
    case RenderChannel::Clearance: return "clearance";
    case RenderChannel::Component: return "component";
    case RenderChannel::Field: return "field";
  }
  return "?";
}

// Short decimal for labels: at most 2 decimals, trailing zeros dropped.
std::string number(double value) {
  if (!std::isfinite(value)) return value > 0 ? "inf" : "-inf";
  std::string text = fmt::format("{:.2f}", value);
  while (!text.empty() && text.back() == '0') text.pop_back();
  if (!text.empty() && text.back() == '.') text.pop_back();
  if (text == "-0") text = "0";
  return text;
}

/// How nodes get their colours, and what the legend shows.
struct ColourScale {
  RenderChannel channel = RenderChannel::Height;
  bool continuous = false;                      // a channel of values (height, clearance, a field)
  std::span<const float> values;                // its values, per node
  double min = 0, max = 0;                      // continuous range over the finite values
  std::string unit;                             // legend caption
  std::vector<std::string> categories;          // area names, or component labels

  Rgb nodeColour(const nav::LayeredGraph& graph, uint32_t node) const {
    switch (channel) {
      case RenderChannel::Area: return kPalette[graph.area[node] % kPaletteSize];
      case RenderChannel::Component: return kPalette[graph.component[node] % kPaletteSize];
      default: break;
    }
    const float value = values[node];
    if (!std::isfinite(value)) return kUnreachable;
    return rampColour(max > min ? (value - min) / (max - min) : 0.5);
  }
};

Result<ColourScale> makeColourScale(const nav::LayeredGraph& graph, const RenderSettings& settings) {
  ColourScale scale;
  scale.channel = settings.channel;
  switch (settings.channel) {
    case RenderChannel::Height: scale.continuous = true; scale.values = graph.height; scale.unit = "height (m)"; break;
    case RenderChannel::Clearance: scale.continuous = true; scale.values = graph.clearance; scale.unit = "clearance (m)"; break;
    case RenderChannel::Field: {
      const int index = graph.findField(settings.field_name);
      if (index < 0) {
        std::string names;
        for (const nav::RouteField& field : graph.fields) names += (names.empty() ? "" : ", ") + field.name;
        return Error::badInput(fmt::format("--color field:{}: no such field (fields: {})", settings.field_name,
                                           names.empty() ? "none" : names));
      }
      scale.continuous = true;
      scale.values = graph.fields[static_cast<std::size_t>(index)].distance;
      scale.unit = fmt::format("field {} (route m)", settings.field_name);
      break;
    }
    case RenderChannel::Area: scale.categories = graph.area_names; return scale;
    case RenderChannel::Component:
      for (uint32_t c = 0; c < graph.component_count && c < static_cast<uint32_t>(kPaletteSize); ++c)
        scale.categories.push_back(fmt::format("c{}", c));
      scale.unit = fmt::format("{} components", graph.component_count);
      return scale;
  }
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (float value : scale.values)
    if (std::isfinite(value)) lo = std::min<double>(lo, value), hi = std::max<double>(hi, value);
  if (lo > hi) lo = hi = 0;
  scale.min = lo;
  scale.max = hi;
  return scale;
}

// A legend entry laid out in the legend rows.
struct LegendItem {
  int x = 0, y = 0, width = 0;  // swatch + label box
  Rgb colour;
  std::string label;
  int kind = 0;                 // 0 swatch, 1 edge line solid, 2 edge line dashed, 3 path
};

struct Geometry {
  int scale = 1;                // font scale
  int line_height = 8;
  int width = 0, height = 0;
  int title_y = 0;
  int panels_y = 0;             // top of the first row's panel labels
  int map_y = 0;                // top of the first row's map boxes
  int panel_width = 0, map_height = 0;
  int columns = 1;              // panels to a row
  double ppm = 0;
  int legend_y = 0;
  std::vector<LegendItem> items;
  int ramp_x = 0, ramp_y = 0, ramp_width = 0, ramp_height = 0;  // continuous legend
  int scalebar_x = 0, scalebar_y = 0;
  double scalebar_metres = 0;
};

double niceLength(double max_metres) {
  // The largest 1, 2 or 5 x 10^k not over the limit, at any scale (a region of a millimetre
  // gets a bar of micrometres, not of 0 m).
  if (!(max_metres > 0) || !std::isfinite(max_metres)) return 0;
  const double decade = std::pow(10.0, std::floor(std::log10(max_metres)));
  for (double step : {5.0, 2.0, 1.0})
    if (step * decade <= max_metres * (1 + 1e-12)) return step * decade;
  return decade / 2;
}

RenderRegion defaultRegion(const nav::LayeredGraph& graph) {
  const nav::GridFrame& grid = graph.grid;
  int min_x = grid.width_cells, min_z = grid.depth_cells, max_x = -1, max_z = -1;
  for (int32_t z = 0; z < grid.depth_cells; ++z)
    for (int32_t x = 0; x < grid.width_cells; ++x)
      if (graph.columnEnd(x, z) > graph.columnBegin(x, z)) {
        min_x = std::min(min_x, x), max_x = std::max(max_x, x);
        min_z = std::min(min_z, z), max_z = std::max(max_z, z);
      }
  if (max_x < 0) {  // no nodes: the whole grid (or a unit square for an empty grid)
    min_x = min_z = 0;
    max_x = std::max(grid.width_cells, 1) - 1;
    max_z = std::max(grid.depth_cells, 1) - 1;
  }
  // One cell of margin so border nodes do not touch the frame.
  return {grid.origin_x + (min_x - 1) * grid.cell_size, grid.origin_z + (min_z - 1) * grid.cell_size,
          grid.origin_x + (max_x + 2) * grid.cell_size, grid.origin_z + (max_z + 2) * grid.cell_size};
}

/// Everything drawn, computed before the canvas exists (the canvas needs the final size).
struct Picture {
  Geometry geometry;
  RenderLayout layout;
  ColourScale colours;
  std::vector<std::uint32_t> bands;
};

Result<Picture> planPicture(const nav::LayeredGraph& graph, const RenderSettings& settings) {
  if (std::string problem = settings.validate(); !problem.empty()) return Error::badInput(problem);
  if (std::string problem = render_detail::checkDrawableGraph(graph); !problem.empty())
    return Error::badInput("the layered graph is inconsistent: " + problem);

  Picture picture;
  auto colours = makeColourScale(graph, settings);
  if (!colours) return colours.error();
  picture.colours = std::move(*colours);
  picture.bands = nodeBands(graph);

  std::vector<LayerBand> all_bands = layerBands(graph);
  std::vector<LayerBand> shown;
  if (settings.layer >= 0) {
    if (static_cast<std::size_t>(settings.layer) >= all_bands.size())
      return Error::badInput(fmt::format("--layers {}: no such band (the graph has {} band{}{})", settings.layer,
                                         all_bands.size(), all_bands.size() == 1 ? "" : "s",
                                         all_bands.empty() ? "" : fmt::format(": 0..{}", all_bands.size() - 1)));
    shown.push_back(all_bands[static_cast<std::size_t>(settings.layer)]);
  } else {
    shown = all_bands;
  }
  if (shown.empty()) shown.push_back(LayerBand{});  // an empty graph still gets one (empty) panel

  const nav::GridFrame& grid = graph.grid;
  RenderRegion region = settings.region ? *settings.region : defaultRegion(graph);
  if (settings.region) {
    const double grid_max_x = grid.origin_x + grid.width_cells * grid.cell_size;
    const double grid_max_z = grid.origin_z + grid.depth_cells * grid.cell_size;
    if (region.max_x <= grid.origin_x || region.min_x >= grid_max_x || region.max_z <= grid.origin_z ||
        region.min_z >= grid_max_z)
      return Error::badInput(fmt::format("--region {},{},{},{}: outside the graph's grid (x {}..{}, z {}..{})",
                                         number(region.min_x), number(region.min_z), number(region.max_x),
                                         number(region.max_z), number(grid.origin_x), number(grid_max_x),
                                         number(grid.origin_z), number(grid_max_z)));
  }

  Geometry& g = picture.geometry;
  g.width = settings.width_px;
  g.scale = g.width >= 900 ? 2 : 1;
  g.line_height = render_detail::kLineHeight * g.scale;
  const int n = static_cast<int>(shown.size());
  const double region_width = region.max_x - region.min_x, region_depth = region.max_z - region.min_z;
  const int max_map_height = 4 * g.width;
  const int header = 2 * g.line_height + 6;  // a panel's two label lines, above its map
  // The panels' width, scale and map height with `columns` panels to a row.
  struct Fit {
    int panel_width = 0, map_height = 0;
    double ppm = 0;
  };
  auto fit = [&](int columns) {
    Fit f;
    f.panel_width = (g.width - 2 * kMargin - (columns - 1) * kPanelGap) / columns;
    f.ppm = f.panel_width / region_width;
    if (region_depth * f.ppm > max_map_height) f.ppm = max_map_height / region_depth;
    f.map_height = std::max(1, static_cast<int>(std::ceil(region_depth * f.ppm)));
    return f;
  };
  // At most three panels to a row, the rows balanced (four bands: two rows of two): five bands
  // of a level side by side at 1200 px were 225 px maps, three to a row are 381 px. Where a row
  // is too narrow for its labels, fewer to a row (at least one fits, the width being at least
  // 200 px; three bands at 200 px were refused).
  const int rows = (n + kMaxColumns - 1) / kMaxColumns;
  int columns = (n + rows - 1) / rows;
  while (columns > 1 && fit(columns).panel_width < kMinPanelWidth) --columns;
  const Fit chosen = fit(columns);
  g.panel_width = chosen.panel_width;
  g.ppm = chosen.ppm;
  g.map_height = chosen.map_height;
  g.columns = columns;

  g.title_y = kMargin;
  g.panels_y = g.title_y + g.line_height + 8;
  g.map_y = g.panels_y + header;
  const int row_count = (n + columns - 1) / columns;
  g.legend_y = g.panels_y + row_count * (header + g.map_height) + (row_count - 1) * kRowGap + 16;

  // Legend row 1: colour key (ramp or swatches); row 2+: edge key, then scale bar on the right.
  const int swatch = 6 * g.scale + 2;
  const int text_height = render_detail::kGlyphHeight * g.scale;
  int y = g.legend_y;
  const int right_reserve = 0;
  auto layoutItems = [&](std::vector<LegendItem> items) {
    int x = kMargin;
    for (LegendItem& item : items) {
      item.width = swatch + 4 + render_detail::textWidth(item.label) * g.scale + 14;
      if (x + item.width > g.width - kMargin - right_reserve && x > kMargin) {
        x = kMargin;
        y += g.line_height + 6;
      }
      item.x = x;
      item.y = y;
      x += item.width;
      g.items.push_back(item);
    }
    y += g.line_height + 6;
  };
  const std::string caption = std::string("colour: ") + channelName(settings.channel) +
                              (settings.channel == RenderChannel::Field ? ":" + settings.field_name : "");
  if (picture.colours.continuous) {
    g.ramp_x = kMargin + render_detail::textWidth(picture.colours.unit) * g.scale + 10;
    g.ramp_y = y;
    g.ramp_width = std::min(320, g.width / 3);
    g.ramp_height = text_height;
    y += g.line_height + 4 + g.line_height + 6;  // ramp, then its numbers
  } else {
    std::vector<LegendItem> items;
    for (std::size_t i = 0; i < picture.colours.categories.size(); ++i)
      items.push_back({0, 0, 0, kPalette[i % kPaletteSize], picture.colours.categories[i], 0});
    if (settings.channel == RenderChannel::Component && graph.component_count > static_cast<uint32_t>(kPaletteSize))
      items.push_back({0, 0, 0, kPictureBackground, fmt::format("(colours repeat; {} components)", graph.component_count), 0});
    if (items.empty()) items.push_back({0, 0, 0, kPictureBackground, "(none)", 0});
    layoutItems(items);
  }
  std::vector<LegendItem> edge_items;
  if (settings.draw_edges) {
    edge_items.push_back({0, 0, 0, kJumpColour, "jump", 1});
    edge_items.push_back({0, 0, 0, kDropColour, "drop", 1});
    edge_items.push_back({0, 0, 0, kClimbColour, "climb", 1});
    edge_items.push_back({0, 0, 0, kLinkColour, "link", 2});
  }
  edge_items.push_back({0, 0, 0, kPathColour, "path", 3});
  if (picture.colours.channel == RenderChannel::Field)
    edge_items.push_back({0, 0, 0, kUnreachable, "unreachable", 0});
  layoutItems(edge_items);

  g.scalebar_metres = niceLength(std::min(200.0, g.width / 4.0) / g.ppm);
  g.scalebar_x = kMargin;
  g.scalebar_y = y;
  y += 6 + 4 + g.line_height + 4;
  g.height = y + kMargin;
  (void)caption;

  RenderLayout& layout = picture.layout;
  layout.width = g.width;
  layout.height = g.height;
  layout.pixels_per_metre = g.ppm;
  layout.region = region;
  for (int i = 0; i < n; ++i) {
    RenderLayout::Panel panel;
    panel.band = shown[static_cast<std::size_t>(i)];
    const int column = i % g.columns, row = i / g.columns;
    panel.x = kMargin + column * (g.panel_width + kPanelGap);
    panel.y = g.map_y + row * (g.map_y - g.panels_y + g.map_height + kRowGap);
    panel.width = std::min(g.panel_width, std::max(1, static_cast<int>(std::ceil(region_width * g.ppm))));
    panel.height = g.map_height;
    layout.panels.push_back(panel);
  }
  return picture;
}

// Pixel X of world X in a panel (left edge of the pixel containing it).
// Pixel offsets are held to +-2^30 before they become ints: a region a micrometre wide makes a
// cell billions of pixels across, whose far edge overflowed int and the cell was not drawn (an
// audit); the panel clips far inside that bound.
int pixelOffset(double pixels) { return static_cast<int>(std::clamp(std::floor(pixels), -1073741824.0, 1073741824.0)); }
int pixelX(const RenderLayout& layout, const RenderLayout::Panel& panel, double world_x) {
  return panel.x + pixelOffset((world_x - layout.region.min_x) * layout.pixels_per_metre);
}
int pixelY(const RenderLayout& layout, const RenderLayout::Panel& panel, double world_z) {
  return panel.y + pixelOffset((world_z - layout.region.min_z) * layout.pixels_per_metre);
}
double pointX(const RenderLayout& layout, const RenderLayout::Panel& panel, double world_x) {
  return panel.x + (world_x - layout.region.min_x) * layout.pixels_per_metre;
}
double pointY(const RenderLayout& layout, const RenderLayout::Panel& panel, double world_z) {
  return panel.y + (world_z - layout.region.min_z) * layout.pixels_per_metre;
}

void drawNodes(Canvas& canvas, const nav::LayeredGraph& graph, Picture& picture, RenderLayout::Panel& panel) {
  const nav::GridFrame& grid = graph.grid;
  const RenderLayout& layout = picture.layout;
  const RenderRegion& region = layout.region;
  const PixelRect box{panel.x, panel.y, panel.x + panel.width, panel.y + panel.height};
  const int32_t x_begin = std::max(0, grid.columnX(region.min_x));
  const int32_t x_end = std::min(grid.width_cells - 1, grid.columnX(region.max_x));
  const int32_t z_begin = std::max(0, grid.columnZ(region.min_z));
  const int32_t z_end = std::min(grid.depth_cells - 1, grid.columnZ(region.max_z));
  const auto band = static_cast<uint32_t>(panel.band.index);
  if (grid.cell_size * layout.pixels_per_metre < 0.999) {  // (at 1, rounding can give a cell two pixels)
    // Cells smaller than a pixel: each node's square is one pixel, and several nodes fall in one
    // pixel, of which the last drawn shows (z rows in order, then x, as below). A row of pixels
    // is gathered first and drawn as one rectangle per run of a colour, so a picture holds at
    // most a rectangle per pixel, not one per node (an SVG of a 14-million-node level was 47 MB,
    // 359,796 rectangles of which 29,914 differed). The pixels are those the node-by-node
    // drawing below paints.
    std::vector<Rgb> colours(static_cast<std::size_t>(panel.width));
    std::vector<uint8_t> painted(static_cast<std::size_t>(panel.width), 0);
    int row_y = std::numeric_limits<int>::min();
    auto flush = [&] {
      if (row_y == std::numeric_limits<int>::min()) return;
      for (int i = 0; i < panel.width;) {
        if (!painted[static_cast<std::size_t>(i)]) {
          ++i;
          continue;
        }
        int j = i + 1;
        while (j < panel.width && painted[static_cast<std::size_t>(j)] && colours[static_cast<std::size_t>(j)] == colours[static_cast<std::size_t>(i)]) ++j;
        canvas.fillRect({panel.x + i, row_y, panel.x + j, row_y + 1}, colours[static_cast<std::size_t>(i)]);
        i = j;
      }
      std::fill(painted.begin(), painted.end(), uint8_t{0});
    };
    for (int32_t z = z_begin; z <= z_end; ++z) {
      const int y = pixelY(layout, panel, grid.origin_z + z * grid.cell_size);
      if (y < box.y0 || y >= box.y1) continue;
      if (y != row_y) flush(), row_y = y;
      for (int32_t x = x_begin; x <= x_end; ++x) {
        const uint32_t begin = graph.columnBegin(x, z);
        if (graph.columnEnd(x, z) - begin <= band) continue;
        const int px = pixelX(layout, panel, grid.origin_x + x * grid.cell_size);
        if (px < box.x0 || px >= box.x1) continue;
        ++panel.nodes_drawn;
        colours[static_cast<std::size_t>(px - panel.x)] = picture.colours.nodeColour(graph, begin + band);
        painted[static_cast<std::size_t>(px - panel.x)] = 1;
      }
    }
    flush();
    return;
  }
  for (int32_t z = z_begin; z <= z_end; ++z) {
    const int raw_y0 = pixelY(layout, panel, grid.origin_z + z * grid.cell_size);
    // A cell smaller than a pixel still shows.
    const int raw_y1 = std::max(raw_y0 + 1, pixelY(layout, panel, grid.origin_z + (z + 1) * grid.cell_size));
    const int y0 = std::max(box.y0, raw_y0), y1 = std::min(box.y1, raw_y1);
    if (y1 <= y0) continue;
    PixelRect run{0, y0, 0, y1};
    Rgb run_colour;
    bool open = false;
    for (int32_t x = x_begin; x <= x_end; ++x) {
      const uint32_t begin = graph.columnBegin(x, z);
      if (graph.columnEnd(x, z) - begin <= band) continue;
      const uint32_t node = begin + band;
      const int raw_x0 = pixelX(layout, panel, grid.origin_x + x * grid.cell_size);
      const int raw_x1 = std::max(raw_x0 + 1, pixelX(layout, panel, grid.origin_x + (x + 1) * grid.cell_size));
      const int x0 = std::max(box.x0, raw_x0), x1 = std::min(box.x1, raw_x1);
      if (x1 <= x0) continue;
      ++panel.nodes_drawn;
      const Rgb colour = picture.colours.nodeColour(graph, node);
      if (open && colour == run_colour && run.x1 >= x0) {
        run.x1 = std::max(run.x1, x1);
        continue;
      }
      if (open) canvas.fillRect(run, run_colour);
      run.x0 = x0;
      run.x1 = x1;
      run_colour = colour;
      open = true;
    }
    if (open) canvas.fillRect(run, run_colour);
  }
}

void drawEdges(Canvas& canvas, const nav::LayeredGraph& graph, const Picture& picture, const RenderLayout::Panel& panel) {
  const RenderLayout& layout = picture.layout;
  const RenderRegion& region = layout.region;
  const nav::GridFrame& grid = graph.grid;
  const double width = picture.geometry.scale == 1 ? 1.0 : 1.5;
  canvas.setClip({panel.x, panel.y, panel.x + panel.width, panel.y + panel.height});
  const int32_t x_begin = std::max(0, grid.columnX(region.min_x));
  const int32_t x_end = std::min(grid.width_cells - 1, grid.columnX(region.max_x));
  const int32_t z_begin = std::max(0, grid.columnZ(region.min_z));
  const int32_t z_end = std::min(grid.depth_cells - 1, grid.columnZ(region.max_z));
  const auto band = static_cast<uint32_t>(panel.band.index);
  for (int32_t z = z_begin; z <= z_end; ++z)
    for (int32_t x = x_begin; x <= x_end; ++x) {
      const uint32_t begin = graph.columnBegin(x, z);
      if (graph.columnEnd(x, z) - begin <= band) continue;
      const uint32_t node = begin + band;
      const double px = pointX(layout, panel, grid.centerX(x)), py = pointY(layout, panel, grid.centerZ(z));
      for (int d = 0; d < nav::kDirectionCount; ++d) {
        const nav::EdgeKind kind = graph.edgeKind(node, d);
        Rgb colour;
        if (kind == nav::EdgeKind::Jump) colour = kJumpColour;
        else if (kind == nav::EdgeKind::Drop) colour = kDropColour;
        else if (kind == nav::EdgeKind::Climb) colour = kClimbColour;
        else continue;
        const sim::Vec3 to = graph.nodePosition(graph.neighborOf(node, d));
        canvas.line(px, py, pointX(layout, panel, to.x), pointY(layout, panel, to.z), colour, width, false);
      }
      if (graph.link_offsets.size() == graph.nodeCount() + 1)
        for (uint32_t l = graph.link_offsets[node]; l < graph.link_offsets[node + 1]; ++l) {
          const sim::Vec3 to = graph.nodePosition(graph.links[l].to_node);
          const double tx = pointX(layout, panel, to.x), ty = pointY(layout, panel, to.z);
          if (graph.links[l].kind == nav::EdgeKind::Jump) {  // a second jump: drawn as the slots' jumps are
            canvas.line(px, py, tx, ty, kJumpColour, width, false);
            continue;
          }
          canvas.line(px, py, tx, ty, kLinkColour, width, true);
          canvas.disc(tx, ty, 2.5 * picture.geometry.scale, kLinkColour, kLinkColour);
        }
    }
  canvas.clearClip();
}

int waypointBand(const nav::LayeredGraph& graph, const std::vector<std::uint32_t>& bands, const sim::Vec3& point) {
  const uint32_t node = graph.nearestNode(point, 2.0 * graph.grid.cell_size, std::numeric_limits<double>::infinity());
  return node == nav::kNoNode ? -1 : bands[node];
}

void drawPaths(Canvas& canvas, const nav::LayeredGraph& graph, const Picture& picture, const RenderLayout::Panel& panel,
               const std::vector<RenderPath>& paths) {
  const RenderLayout& layout = picture.layout;
  const int s = picture.geometry.scale;
  canvas.setClip({panel.x, panel.y, panel.x + panel.width, panel.y + panel.height});
  for (const RenderPath& path : paths) {
    const std::size_t count = path.waypoints.size();
    std::vector<int> bands(count);
    for (std::size_t i = 0; i < count; ++i) bands[i] = waypointBand(graph, picture.bands, path.waypoints[i].position);
    auto inPanel = [&](std::size_t i) { return bands[i] < 0 || bands[i] == panel.band.index; };
    for (std::size_t i = 0; i + 1 < count; ++i) {
      if (!inPanel(i) && !inPanel(i + 1)) continue;
      const sim::Vec3& a = path.waypoints[i].position;
      const sim::Vec3& b = path.waypoints[i + 1].position;
      canvas.line(pointX(layout, panel, a.x), pointY(layout, panel, a.z), pointX(layout, panel, b.x),
                  pointY(layout, panel, b.z), kPathColour, s == 1 ? 2.0 : 3.0, false);
    }
    for (std::size_t i = 0; i < count; ++i) {
      if (!inPanel(i)) continue;
      const RenderWaypoint& waypoint = path.waypoints[i];
      const double px = pointX(layout, panel, waypoint.position.x), py = pointY(layout, panel, waypoint.position.z);
      const Rgb fill = i == 0 ? kStartColour : (i + 1 == count ? kGoalColour : kWaypointColour);
      canvas.disc(px, py, (i == 0 || i + 1 == count) ? 3.0 + 2 * s : 1.5 + s, fill, kPathColour);
      if (!waypoint.action.empty() && waypoint.action != "walk" && i > 0) {
        const int tx = static_cast<int>(std::lround(px)) + 3 + s;
        const int ty = static_cast<int>(std::lround(py)) - 3 - render_detail::kGlyphHeight;
        // Rectangles are not clipped by the canvas: the label's box is cut to the panel here (a
        // label by a waypoint just outside the region painted over the panel's header).
        const PixelRect box{std::max(tx - 1, panel.x), std::max(ty - 1, panel.y),
                            std::min(tx + render_detail::textWidth(waypoint.action) + 1, panel.x + panel.width),
                            std::min(ty + render_detail::kGlyphHeight + 1, panel.y + panel.height)};
        if (box.x0 < box.x1 && box.y0 < box.y1) canvas.fillRect(box, kPictureBackground);
        canvas.text(tx, ty, waypoint.action, kPathColour, 1);
      }
    }
  }
  canvas.clearClip();
}

// Text clipped to a width: drawn at `scale`, or at scale 1, or cut after its last whole word
// that fits (a number cut in half reads as another number: "y -3.89..15.24 m" showed as
// "y -3.89..1"; an audit), or, a single word too long, cut where the width ends.
void fittedText(Canvas& canvas, int x, int y, std::string text, int max_width, int scale, Rgb colour) {
  if (render_detail::textWidth(text) * scale > max_width) scale = 1;
  const int fit = std::max(0, (max_width + 1) / render_detail::kGlyphAdvance);
  if (static_cast<int>(text.size()) > fit) {
    const auto cut = static_cast<std::size_t>(fit);
    std::size_t end = cut;
    if (text[cut] != ' ') {
      const std::size_t space = text.rfind(' ', cut);
      if (space != std::string::npos) end = space;
    }
    while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == ',' || text[end - 1] == ':')) --end;
    text.resize(end);
  }
  canvas.text(x, y, text, colour, scale);
}

void drawPicture(Canvas& canvas, const nav::LayeredGraph& graph, Picture& picture, const std::vector<RenderPath>& paths,
                 const RenderSettings& settings) {
  const Geometry& g = picture.geometry;
  const int s = g.scale;
  std::string title = settings.title.empty() ? std::string() : settings.title + "  ";
  title += std::string("colour: ") + channelName(settings.channel) +
           (settings.channel == RenderChannel::Field ? ":" + settings.field_name : "");
  fittedText(canvas, kMargin, g.title_y, title, g.width - 2 * kMargin, s, kInk);

  for (RenderLayout::Panel& panel : picture.layout.panels) {
    const int label_y = panel.y - (g.map_y - g.panels_y);  // the panel's row's labels
    fittedText(canvas, panel.x, label_y, fmt::format("layer {}", panel.band.index), g.panel_width, s, kInk);
    // The height range in full, or as much of it as the panel holds: without the node count,
    // then the bare range, then its lower end (a narrow picture showed a lone "y", and a range
    // cut in a number reads as another range).
    std::string range = "no nodes";
    if (panel.band.node_count != 0) {
      const std::string low = number(panel.band.min_height) + "..", span = low + number(panel.band.max_height);
      for (const std::string& form : {fmt::format("y {} m, {} nodes", span, panel.band.node_count), "y " + span + " m", span, low}) {
        range = form;
        if (render_detail::textWidth(form) <= g.panel_width) break;
      }
    }
    fittedText(canvas, panel.x, label_y + g.line_height + 2, range, g.panel_width, s, kInk);
    canvas.fillRect({panel.x, panel.y, panel.x + panel.width, panel.y + panel.height}, kMapColour);
    canvas.strokeRect({panel.x - 1, panel.y - 1, panel.x + panel.width + 1, panel.y + panel.height + 1}, kFrame);
    drawNodes(canvas, graph, picture, panel);
    if (settings.draw_edges) drawEdges(canvas, graph, picture, panel);
    drawPaths(canvas, graph, picture, panel, paths);
  }

  // Colour key.
  const int text_height = render_detail::kGlyphHeight * s;
  if (picture.colours.continuous) {
    canvas.text(kMargin, g.ramp_y, picture.colours.unit, kInk, s);
    for (int i = 0; i < g.ramp_width; ++i)
      canvas.fillRect({g.ramp_x + i, g.ramp_y, g.ramp_x + i + 1, g.ramp_y + g.ramp_height},
                      rampColour(g.ramp_width > 1 ? static_cast<double>(i) / (g.ramp_width - 1) : 0));
    canvas.strokeRect({g.ramp_x - 1, g.ramp_y - 1, g.ramp_x + g.ramp_width + 1, g.ramp_y + g.ramp_height + 1}, kFrame);
    const int label_y = g.ramp_y + g.ramp_height + 4;
    const std::string lo = number(picture.colours.min), hi = number(picture.colours.max);
    const std::string mid = number((picture.colours.min + picture.colours.max) / 2);
    // The minimum at the ramp's left end, the maximum at its right end but never over the
    // minimum, and the middle only where it fits between them with a character's gap on each
    // side (a hunt: at --width 260 the three read "0  19.9939.98").
    const int gap = render_detail::textWidth("0") * s;
    const int lo_end = g.ramp_x + render_detail::textWidth(lo) * s;
    const int hi_x = std::max(g.ramp_x + g.ramp_width - render_detail::textWidth(hi) * s, lo_end + gap);
    const int mid_x = g.ramp_x + (g.ramp_width - render_detail::textWidth(mid) * s) / 2;
    canvas.text(g.ramp_x, label_y, lo, kInk, s);
    if (mid_x >= lo_end + gap && mid_x + render_detail::textWidth(mid) * s + gap <= hi_x)
      canvas.text(mid_x, label_y, mid, kInk, s);
    canvas.text(hi_x, label_y, hi, kInk, s);
  }
  const int swatch = 6 * s + 2;
  for (const LegendItem& item : g.items) {
    const int cy = item.y + text_height / 2;
    if (item.kind == 0) {
      if (!(item.colour == kPictureBackground)) {
        canvas.fillRect({item.x, cy - swatch / 2, item.x + swatch, cy - swatch / 2 + swatch}, item.colour);
        canvas.strokeRect({item.x, cy - swatch / 2, item.x + swatch, cy - swatch / 2 + swatch}, kFrame);
      }
    } else {
      canvas.line(item.x, cy + 0.5, item.x + swatch + 6, cy + 0.5, item.colour, item.kind == 3 ? 1.0 + s : s, item.kind == 2);
    }
    canvas.text(item.x + swatch + (item.kind == 0 ? 4 : 10), item.y, item.label, kInk, s);
  }

  // Scale bar and orientation.
  const int bar = std::max(1, static_cast<int>(std::lround(g.scalebar_metres * g.ppm)));
  const int by = g.scalebar_y;
  canvas.fillRect({g.scalebar_x, by + 4, g.scalebar_x + bar, by + 6}, kInk);
  canvas.fillRect({g.scalebar_x, by, g.scalebar_x + 2, by + 10}, kInk);
  canvas.fillRect({g.scalebar_x + bar - 2, by, g.scalebar_x + bar, by + 10}, kInk);
  const int label_x = g.scalebar_x + bar + 8;
  // The orientation whole, or shorter where the picture is narrow, never cut (an audit: at 300 px
  // it read "view from above: +x", and at 240 px "view from above").
  const int room = g.width - kMargin - label_x;
  std::string label;
  for (const char* orientation : {"    view from above: +x right, +z down", "    +x right, +z down", "  +x right +z down", ""}) {
    label = fmt::format("{:g} m{}", g.scalebar_metres, orientation);
    if (render_detail::textWidth(label) <= room) break;
  }
  fittedText(canvas, label_x, by + 1, label, room, s, kInk);
}

}  // namespace

std::string render_detail::checkDrawableGraph(const nav::LayeredGraph& graph) {
  const nav::GridFrame& grid = graph.grid;
  if (!(grid.cell_size > 0) || !std::isfinite(grid.cell_size)) return "cell size must be positive";
  if (grid.width_cells < 0 || grid.depth_cells < 0) return "grid size must not be negative";
  if (!std::isfinite(grid.origin_x) || !std::isfinite(grid.origin_z)) return "grid origin must be finite";
  if (graph.column_offsets.size() != grid.columnCount() + 1 || graph.column_offsets.front() != 0)
    return "column_offsets has the wrong length or does not start at 0";
  for (std::size_t i = 1; i < graph.column_offsets.size(); ++i)
    if (graph.column_offsets[i] < graph.column_offsets[i - 1]) return "column_offsets is not monotone";
  const std::size_t nodes = graph.nodeCount();
  if (graph.column_offsets.back() != nodes) return "column_offsets does not end at the node count";
  if (graph.normal.size() != nodes || graph.area.size() != nodes || graph.clearance.size() != nodes ||
      graph.component.size() != nodes)
    return "per-node arrays differ in length";
  if (graph.neighbor.size() != nodes * nav::kDirectionCount || graph.edge_kind.size() != nodes * nav::kDirectionCount)
    return "per-direction arrays must have 8 entries per node";
  for (std::size_t slot = 0; slot < graph.neighbor.size(); ++slot)
    if (graph.edge_kind[slot] != 0 && graph.neighbor[slot] >= nodes) return "an edge leads to a node out of range";
  for (std::size_t n = 0; n < nodes; ++n)
    if (graph.area[n] >= graph.area_names.size()) return "node " + std::to_string(n) + ": area out of range";
  if (!graph.link_offsets.empty()) {
    if (graph.link_offsets.size() != nodes + 1 || graph.link_offsets.back() != graph.links.size())
      return "link_offsets is inconsistent";
    for (std::size_t i = 1; i < graph.link_offsets.size(); ++i)
      if (graph.link_offsets[i] < graph.link_offsets[i - 1]) return "link_offsets is not monotone";
  }
  for (const nav::OffMeshLink& link : graph.links)
    if (link.from_node >= nodes || link.to_node >= nodes) return "a link has a node out of range";
  for (const nav::RouteField& field : graph.fields)
    if (field.distance.size() != nodes) return "field '" + field.name + "' has the wrong length";
  return {};
}

std::optional<RenderChannel> parseRenderChannel(const std::string& text, std::string& field_name) {
  if (text == "height") return RenderChannel::Height;
  if (text == "area") return RenderChannel::Area;
  if (text == "clearance") return RenderChannel::Clearance;
  if (text == "component") return RenderChannel::Component;
  if (text.rfind("field:", 0) == 0 && text.size() > 6) {
    field_name = text.substr(6);
    return RenderChannel::Field;
  }
  return std::nullopt;
}

std::string RenderSettings::validate() const {
  if (layer < -1) return fmt::format("--layers: {} is not a band number (0, 1, ... or all)", layer);
  if (width_px < 200 || width_px > 8192) return fmt::format("--width: {} px is outside 200..8192", width_px);
  if (channel == RenderChannel::Field && field_name.empty()) return "--color field:NAME: the field name is empty";
  if (region) {
    const RenderRegion& r = *region;
    if (!std::isfinite(r.min_x) || !std::isfinite(r.min_z) || !std::isfinite(r.max_x) || !std::isfinite(r.max_z))
      return "--region: coordinates must be finite";
    if (!std::isfinite(r.max_x - r.min_x) || !std::isfinite(r.max_z - r.min_z))
      return "--region: its width and depth must be finite numbers of metres";
    if (!(r.min_x < r.max_x) || !(r.min_z < r.max_z))
      return fmt::format("--region {},{},{},{}: needs minx < maxx and minz < maxz", number(r.min_x), number(r.min_z),
                         number(r.max_x), number(r.max_z));
  }
  return {};
}

std::vector<std::uint32_t> nodeBands(const nav::LayeredGraph& graph) {
  std::vector<std::uint32_t> bands(graph.nodeCount(), 0);
  for (std::size_t c = 0; c + 1 < graph.column_offsets.size(); ++c)
    for (uint32_t node = graph.column_offsets[c]; node < graph.column_offsets[c + 1] && node < bands.size(); ++node)
      bands[node] = node - graph.column_offsets[c];  // 32 bits: a column of 65,600 floors was cut at 65,535 (an audit)
  return bands;
}

std::vector<LayerBand> layerBands(const nav::LayeredGraph& graph) {
  const std::vector<std::uint32_t> bands = nodeBands(graph);
  std::vector<LayerBand> result;
  for (std::size_t node = 0; node < bands.size(); ++node) {
    const std::size_t b = bands[node];
    while (result.size() <= b) {
      LayerBand band;
      band.index = static_cast<int>(result.size());
      band.min_height = std::numeric_limits<float>::infinity();
      band.max_height = -std::numeric_limits<float>::infinity();
      result.push_back(band);
    }
    LayerBand& band = result[b];
    band.min_height = std::min(band.min_height, graph.height[node]);
    band.max_height = std::max(band.max_height, graph.height[node]);
    ++band.node_count;
  }
  return result;
}

Result<RasterImage> renderRaster(const nav::LayeredGraph& graph, const std::vector<RenderPath>& paths,
                                 const RenderSettings& settings, RenderLayout* layout) {
  auto picture = planPicture(graph, settings);
  if (!picture) return picture.error();
  RasterImage image;
  auto canvas = render_detail::makeRasterCanvas(image, picture->geometry.width, picture->geometry.height, kPictureBackground);
  drawPicture(*canvas, graph, *picture, paths, settings);
  if (layout) *layout = picture->layout;
  return image;
}

Result<std::string> renderSvg(const nav::LayeredGraph& graph, const std::vector<RenderPath>& paths,
                              const RenderSettings& settings, RenderLayout* layout) {
  auto picture = planPicture(graph, settings);
  if (!picture) return picture.error();
  auto canvas = render_detail::makeSvgCanvas(picture->geometry.width, picture->geometry.height, kPictureBackground);
  drawPicture(*canvas, graph, *picture, paths, settings);
  if (layout) *layout = picture->layout;
  return canvas->finish();
}

}  // namespace strata::formats
