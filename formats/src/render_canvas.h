#pragma once
// The drawing surface of strata render: the picture layout (render_picture.cpp) draws through
// this interface, and a raster canvas (render_raster.cpp, for PNG) and an SVG canvas
// (svg_canvas.cpp) implement it, so both formats show exactly the same picture.

#include <cstdint>
#include <memory>
#include <string>

#include "strata/formats/render.h"

namespace strata::formats::render_detail {

/// An 8-bit RGB colour.
struct Rgb {
  std::uint8_t r = 0, g = 0, b = 0;
  bool operator==(const Rgb&) const = default;
};

/// Categorical palette for areas and components, shared by pictures and exported meshes (none
/// equals the map background of render.h).
inline constexpr Rgb kCategoryPalette[] = {{31, 119, 180},  {255, 127, 14}, {44, 160, 44},  {214, 39, 40},
                                          {148, 103, 189}, {140, 86, 75},  {227, 119, 194}, {127, 127, 127},
                                          {188, 189, 34},  {23, 190, 207}, {174, 199, 232}, {255, 187, 120}};
/// Edge colours, shared by pictures and exported meshes.
inline constexpr Rgb kJumpColour{255, 140, 0};
inline constexpr Rgb kDropColour{200, 20, 20};
inline constexpr Rgb kClimbColour{0, 150, 60};
inline constexpr Rgb kLinkColour{190, 0, 190};

/// A pixel rectangle [x0, x1) x [y0, y1).
struct PixelRect {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

/// Drawing primitives in pixel coordinates (origin top-left, y down).
class Canvas {
 public:
  virtual ~Canvas() = default;
  /// Fills [x0, x1) x [y0, y1).
  virtual void fillRect(const PixelRect& rect, Rgb colour) = 0;
  /// A one-pixel outline just inside `rect`.
  virtual void strokeRect(const PixelRect& rect, Rgb colour) = 0;
  /// A segment `width` pixels wide between two points (pixel centres at +0.5); dashed or solid.
  virtual void line(double x0, double y0, double x1, double y1, Rgb colour, double width, bool dashed) = 0;
  /// A filled disc with a one-pixel outline.
  virtual void disc(double cx, double cy, double radius, Rgb fill, Rgb outline) = 0;
  /// Text with its top-left corner at (x, y), glyphs `scale` pixels per font pixel (5x7 font).
  virtual void text(int x, int y, const std::string& text, Rgb colour, int scale) = 0;
  /// Restricts later lines, discs and text to `rect` (rectangles are clipped by the caller).
  virtual void setClip(const PixelRect& rect) = 0;
  /// Removes the clip.
  virtual void clearClip() = 0;
};

/// Empty when the arrays that pictures and exported meshes read are mutually consistent (sizes,
/// monotone offsets, neighbour/link/area indices in range), else what is wrong.
std::string checkDrawableGraph(const nav::LayeredGraph& graph);

/// A canvas drawing into an RGB raster of the given size filled with `background`.
std::unique_ptr<Canvas> makeRasterCanvas(RasterImage& image, int width, int height, Rgb background);

/// A canvas writing SVG elements; `finish()` returns the complete document.
class SvgCanvas : public Canvas {
 public:
  virtual std::string finish() = 0;
};
std::unique_ptr<SvgCanvas> makeSvgCanvas(int width, int height, Rgb background);

}  // namespace strata::formats::render_detail
