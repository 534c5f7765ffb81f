#pragma once
/// \file
/// Top-down pictures of a baked layered graph (`strata render`, docs/rendering.md).
///
/// A picture is one panel per layer band, side by side (at most three to a row, more bands in
/// balanced rows), each labelled with its band number, height
/// range and node count; nodes are filled cell squares coloured by one channel (height, area,
/// clearance, component or a route-distance field); jump, drop, climb and link edges are drawn as
/// coloured lines; paths are overlaid with their waypoints and actions; a legend, an edge key and a
/// scale bar sit under the panels. View from above: +X to the right, +Z down.
///
/// Layer bands: the band of a node is its rank in its column (0 = the lowest floor of the column,
/// 1 = the next floor up, ...). So a panel never holds two nodes of one column, and a road under a
/// bridge under a roof gives three panels. Output is PNG (libpng, fixed compression, no time
/// chunk) or SVG (written directly); both are deterministic: the same graph and settings give the
/// same bytes.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "strata/nav/layered_graph.h"
#include "strata/sim/math.h"
#include "strata/sim/result.h"

namespace strata::formats {

/// Which per-node value picks a node's colour.
enum class RenderChannel : std::uint8_t {
  Height,     ///< floor height (continuous ramp, metres)
  Area,       ///< area name (one colour per area)
  Clearance,  ///< horizontal clearance (continuous ramp, metres)
  Component,  ///< connected component (one colour per component id, cycling a palette)
  Field,      ///< a named route-distance field (continuous ramp; unreachable nodes grey)
};

/// Parses "height", "area", "clearance", "component" or "field:NAME" (NAME into `field_name`).
std::optional<RenderChannel> parseRenderChannel(const std::string& text, std::string& field_name);

/// One waypoint of an overlaid path.
struct RenderWaypoint {
  sim::Vec3 position;   ///< metres
  std::string action;   ///< how the waypoint is reached ("walk", "jump", "drop", "climb", "link", ...); "" = walk
};

/// A path to overlay.
struct RenderPath {
  std::vector<RenderWaypoint> waypoints;  ///< in travel order
  std::string agent;                      ///< the result line's "agent" (readPathLines); empty when it names none
};

/// A world rectangle in the X/Z plane.
struct RenderRegion {
  double min_x = 0;  ///< metres
  double min_z = 0;  ///< metres
  double max_x = 0;  ///< metres (> min_x)
  double max_z = 0;  ///< metres (> min_z)
};

/// Picture settings; each field maps 1:1 to a `strata render` flag.
struct RenderSettings {
  RenderChannel channel = RenderChannel::Height;  ///< --color
  std::string field_name;                         ///< --color field:NAME (the field's name)
  int layer = -1;                                 ///< --layers N: only band N; -1 = all bands. [Limit: >= -1]
  std::optional<RenderRegion> region;             ///< --region: world rectangle to show; default = the nodes' extent
  int width_px = 1200;                            ///< --width: picture width in pixels. [Limit: 200 .. 8192]
  bool draw_edges = true;                         ///< draw jump, drop, climb and link edges
  std::string title;                              ///< first line of the picture (e.g. "tower.h5  agent human")

  /// Empty when valid, else "<field>: <problem>".
  std::string validate() const;
};

/// One layer band of a graph.
struct LayerBand {
  int index = 0;                 ///< rank within the column (0 = lowest floor)
  float min_height = 0;          ///< lowest node height in the band, metres
  float max_height = 0;          ///< highest node height in the band, metres
  std::size_t node_count = 0;    ///< nodes in the band
};

/// Band of every node (its rank in its column), size graph.nodeCount().
std::vector<std::uint32_t> nodeBands(const nav::LayeredGraph& graph);
/// The bands of a graph, lowest first (empty for a graph without nodes).
std::vector<LayerBand> layerBands(const nav::LayeredGraph& graph);

/// An 8-bit RGB raster, rows top to bottom.
struct RasterImage {
  int width = 0;                    ///< pixels
  int height = 0;                   ///< pixels
  std::vector<std::uint8_t> rgb;    ///< width * height * 3 bytes
};

/// Where things ended up in a picture (for tests and the CLI summary).
struct RenderLayout {
  int width = 0;                          ///< picture width, pixels
  int height = 0;                         ///< picture height, pixels
  double pixels_per_metre = 0;            ///< map scale of every panel
  RenderRegion region;                    ///< world rectangle shown
  struct Panel {
    LayerBand band;                       ///< the band shown
    int x = 0, y = 0, width = 0, height = 0;  ///< the map box in pixels (inside the frame)
    std::size_t nodes_drawn = 0;          ///< nodes of the band inside the region
  };
  std::vector<Panel> panels;              ///< left to right
};

/// Background colour of the map boxes (what a pixel without a node looks like).
inline constexpr std::uint8_t kMapBackground[3] = {236, 236, 236};

/// Renders `graph` to a raster. Errors (BadInput): invalid settings, an unknown field, a band that
/// does not exist, a region that misses the grid; messages name the problem, the caller adds the file.
Result<RasterImage> renderRaster(const nav::LayeredGraph& graph, const std::vector<RenderPath>& paths,
                                 const RenderSettings& settings, RenderLayout* layout = nullptr);

/// Renders `graph` to an SVG document (same layout and errors as renderRaster).
Result<std::string> renderSvg(const nav::LayeredGraph& graph, const std::vector<RenderPath>& paths,
                              const RenderSettings& settings, RenderLayout* layout = nullptr);

/// Encodes a raster as PNG bytes: 8-bit RGB, zlib level 9, no time or text chunks.
Result<std::string> encodePng(const RasterImage& image);

/// Renders to `path`, PNG or SVG by its extension (.png / .svg), written atomically (temporary
/// file beside the target, then renamed). Errors name `path`.
Status writeRender(const std::filesystem::path& path, const nav::LayeredGraph& graph,
                   const std::vector<RenderPath>& paths, const RenderSettings& settings,
                   RenderLayout* layout = nullptr);

/// Reads paths from JSON lines as `strata path --batch` writes them: one object per line with a
/// "waypoints" array whose entries have x, y, z (or "position": [x, y, z]) and an optional
/// "action" string. Lines without waypoints (failed requests) are skipped; blank lines are
/// ignored. Errors name the file and line.
Result<std::vector<RenderPath>> readPathLines(const std::filesystem::path& path);

/// Writes `bytes` to `path` atomically (temporary file in the same folder, then rename).
Status writeFileAtomically(const std::filesystem::path& path, const std::string& bytes);

}  // namespace strata::formats
