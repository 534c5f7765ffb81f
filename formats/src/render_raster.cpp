// The raster canvas of strata render (see render_canvas.h): rectangles, thick lines stamped along
// the segment at half-pixel steps, discs by pixel-centre distance, and text in the 5x7 font of
// render_font.cpp. Pure integer/double arithmetic in a fixed order, so pictures are reproducible.

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "render_canvas.h"
#include "render_font.h"

namespace strata::formats::render_detail {
namespace {

class RasterCanvas final : public Canvas {
 public:
  RasterCanvas(RasterImage& image, int width, int height, Rgb background) : image_(image) {
    image_.width = width;
    image_.height = height;
    image_.rgb.assign(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3, 0);
    for (std::size_t i = 0; i < image_.rgb.size(); i += 3) {
      image_.rgb[i] = background.r;
      image_.rgb[i + 1] = background.g;
      image_.rgb[i + 2] = background.b;
    }
    clearClip();
  }

  void fillRect(const PixelRect& rect, Rgb colour) override {
    const int x0 = std::max(rect.x0, 0), x1 = std::min(rect.x1, image_.width);
    const int y0 = std::max(rect.y0, 0), y1 = std::min(rect.y1, image_.height);
    for (int y = y0; y < y1; ++y)
      for (int x = x0; x < x1; ++x) put(x, y, colour);
  }

  void strokeRect(const PixelRect& rect, Rgb colour) override {
    fillRect({rect.x0, rect.y0, rect.x1, rect.y0 + 1}, colour);
    fillRect({rect.x0, rect.y1 - 1, rect.x1, rect.y1}, colour);
    fillRect({rect.x0, rect.y0, rect.x0 + 1, rect.y1}, colour);
    fillRect({rect.x1 - 1, rect.y0, rect.x1, rect.y1}, colour);
  }

  void line(double x0, double y0, double x1, double y1, Rgb colour, double width, bool dashed) override {
    const double length = std::hypot(x1 - x0, y1 - y0);
    if (!std::isfinite(length)) return;
    const auto steps = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::min(std::ceil(length * 2.0), 9.0e15)));
    const int size = std::max(1, static_cast<int>(std::lround(width)));
    const double dash = 4.0;  // pixels on, pixels off
    // Only the steps whose stamps can reach the clip rectangle (the same points as stepping from
    // the start: a line billions of pixels long, from a region a micrometre wide, overflowed the
    // step count and would take that many steps; an audit).
    double t_lo = 0, t_hi = 1;
    const double margin = size + 1.0;
    const auto keep = [&](double p, double q) {  // the part of the segment where p * t <= q
      if (p == 0) return q >= 0;
      const double r = q / p;
      if (p < 0) t_lo = std::max(t_lo, r);
      else t_hi = std::min(t_hi, r);
      return t_lo <= t_hi;
    };
    if (!keep(-(x1 - x0), x0 - (clip_.x0 - margin)) || !keep(x1 - x0, (clip_.x1 + margin) - x0) ||
        !keep(-(y1 - y0), y0 - (clip_.y0 - margin)) || !keep(y1 - y0, (clip_.y1 + margin) - y0))
      return;
    const auto first = std::max<std::int64_t>(0, static_cast<std::int64_t>(std::floor(t_lo * static_cast<double>(steps))) - 1);
    const auto last = std::min<std::int64_t>(steps, static_cast<std::int64_t>(std::ceil(t_hi * static_cast<double>(steps))) + 1);
    for (std::int64_t i = first; i <= last; ++i) {
      const double t = static_cast<double>(i) / static_cast<double>(steps);
      if (dashed && std::fmod(t * length, 2 * dash) >= dash) continue;
      const double x = x0 + (x1 - x0) * t, y = y0 + (y1 - y0) * t;
      const int px = static_cast<int>(std::floor(x - size / 2.0 + 0.5));
      const int py = static_cast<int>(std::floor(y - size / 2.0 + 0.5));
      for (int dy = 0; dy < size; ++dy)
        for (int dx = 0; dx < size; ++dx) putClipped(px + dx, py + dy, colour);
    }
  }

  void disc(double cx, double cy, double radius, Rgb fill, Rgb outline) override {
    const int x0 = static_cast<int>(std::floor(cx - radius - 1)), x1 = static_cast<int>(std::ceil(cx + radius + 1));
    const int y0 = static_cast<int>(std::floor(cy - radius - 1)), y1 = static_cast<int>(std::ceil(cy + radius + 1));
    for (int y = y0; y <= y1; ++y)
      for (int x = x0; x <= x1; ++x) {
        const double d = std::hypot(x + 0.5 - cx, y + 0.5 - cy);
        if (d <= radius - 1.0) putClipped(x, y, fill);
        else if (d <= radius) putClipped(x, y, outline);
      }
  }

  void text(int x, int y, const std::string& text, Rgb colour, int scale) override {
    int pen = x;
    for (char c : text) {
      const Glyph& glyph = glyphFor(c);
      for (int row = 0; row < kGlyphHeight; ++row)
        for (int column = 0; column < kGlyphWidth; ++column) {
          if ((glyph[static_cast<std::size_t>(row)] & (1u << (kGlyphWidth - 1 - column))) == 0) continue;
          for (int sy = 0; sy < scale; ++sy)
            for (int sx = 0; sx < scale; ++sx) putClipped(pen + column * scale + sx, y + row * scale + sy, colour);
        }
      pen += kGlyphAdvance * scale;
    }
  }

  void setClip(const PixelRect& rect) override {
    clip_ = {std::max(rect.x0, 0), std::max(rect.y0, 0), std::min(rect.x1, image_.width),
             std::min(rect.y1, image_.height)};
  }
  void clearClip() override { clip_ = {0, 0, image_.width, image_.height}; }

 private:
  void put(int x, int y, Rgb colour) {
    const std::size_t i = (static_cast<std::size_t>(y) * static_cast<std::size_t>(image_.width) + static_cast<std::size_t>(x)) * 3;
    image_.rgb[i] = colour.r;
    image_.rgb[i + 1] = colour.g;
    image_.rgb[i + 2] = colour.b;
  }
  void putClipped(int x, int y, Rgb colour) {
    if (x < clip_.x0 || y < clip_.y0 || x >= clip_.x1 || y >= clip_.y1) return;
    put(x, y, colour);
  }

  RasterImage& image_;
  PixelRect clip_;
};

}  // namespace

std::unique_ptr<Canvas> makeRasterCanvas(RasterImage& image, int width, int height, Rgb background) {
  return std::make_unique<RasterCanvas>(image, width, height, background);
}

}  // namespace strata::formats::render_detail
