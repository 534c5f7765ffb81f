// The SVG canvas of strata render (see render_canvas.h): writes SVG 1.1 elements directly, with
// coordinates printed at fixed precision so documents are reproducible. Clipping uses one
// <clipPath> per setClip call.

#include <fmt/format.h>

#include <cstdint>
#include <string>

#include "render_canvas.h"
#include "render_font.h"

namespace strata::formats::render_detail {
namespace {

std::string hex(Rgb c) { return fmt::format("#{:02x}{:02x}{:02x}", c.r, c.g, c.b); }

std::string escapeXml(const std::string& text) {
  // Text is UTF-8 (labels, --paths actions); XML 1.0 allows only #x9 | #xA | #xD | [#x20-#xD7FF] |
  // [#xE000-#xFFFD] | [#x10000-#x10FFFF], well-formed. Control characters become spaces; a
  // malformed sequence, a surrogate, U+FFFE or U+FFFF becomes U+FFFD (an action ending in U+FFFF
  // made the SVG unreadable to every XML parser).
  std::string out;
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        default: out += c < 0x20 || c == 0x7F ? ' ' : static_cast<char>(c);  // DEL is a control character too
      }
      ++i;
      continue;
    }
    const std::size_t length = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 0;
    uint32_t code = length == 4 ? c & 0x07u : length == 3 ? c & 0x0Fu : c & 0x1Fu;
    bool formed = length != 0 && i + length <= n;  // a lead byte and its continuation bytes
    for (std::size_t k = 1; formed && k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      formed = (next & 0xC0) == 0x80;
      code = (code << 6) | (next & 0x3Fu);
    }
    if (!formed) {
      out += "\xEF\xBF\xBD";  // U+FFFD for the stray byte
      ++i;
      continue;
    }
    // Overlong forms, surrogates, beyond U+10FFFF and the two non-characters XML forbids: one
    // U+FFFD for the whole sequence.
    const bool allowed = !(length == 3 && code < 0x800) && !(length == 4 && (code < 0x10000 || code > 0x10FFFF)) &&
                         !(code >= 0xD800 && code <= 0xDFFF) && code != 0xFFFE && code != 0xFFFF;
    if (allowed && code >= 0x80 && code <= 0x9F) out += ' ';  // the C1 control characters, as the C0 ones (an audit)
    else if (allowed) out.append(text, i, length);
    else out += "\xEF\xBF\xBD";
    i += length;
  }
  return out;
}

class SvgCanvasImpl final : public SvgCanvas {
 public:
  SvgCanvasImpl(int width, int height, Rgb background) {
    out_ = fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0}\" height=\"{1}\" "
        "viewBox=\"0 0 {0} {1}\" shape-rendering=\"crispEdges\">\n"
        "<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"{2}\"/>\n",
        width, height, hex(background));
  }

  void fillRect(const PixelRect& r, Rgb colour) override {
    if (r.x1 <= r.x0 || r.y1 <= r.y0) return;
    out_ += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>\n", r.x0, r.y0, r.x1 - r.x0,
                        r.y1 - r.y0, hex(colour));
  }

  void strokeRect(const PixelRect& r, Rgb colour) override {
    out_ += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"{}\"/>\n",
                        r.x0 + 0.5, r.y0 + 0.5, r.x1 - r.x0 - 1, r.y1 - r.y0 - 1, hex(colour));
  }

  void line(double x0, double y0, double x1, double y1, Rgb colour, double width, bool dashed) override {
    out_ += fmt::format("<line x1=\"{:.2f}\" y1=\"{:.2f}\" x2=\"{:.2f}\" y2=\"{:.2f}\" stroke=\"{}\" stroke-width=\"{:.2f}\" "
                        "stroke-linecap=\"round\"{}{}/>\n",
                        x0, y0, x1, y1, hex(colour), width, dashed ? " stroke-dasharray=\"4 4\"" : "", clipAttribute());
  }

  void disc(double cx, double cy, double radius, Rgb fill, Rgb outline) override {
    out_ += fmt::format("<circle cx=\"{:.2f}\" cy=\"{:.2f}\" r=\"{:.2f}\" fill=\"{}\" stroke=\"{}\"{}/>\n", cx, cy,
                        radius - 0.5, hex(fill), hex(outline), clipAttribute());
  }

  void text(int x, int y, const std::string& text, Rgb colour, int scale) override {
    // Monospace text as wide as the raster font's: 6 px advance per scale unit.
    const int size = kGlyphHeight * scale + scale;
    out_ += fmt::format("<text x=\"{}\" y=\"{}\" font-family=\"monospace\" font-size=\"{}\" fill=\"{}\"{}>{}</text>\n",
                        x, y + kGlyphHeight * scale, size, hex(colour), clipAttribute(), escapeXml(text));
  }

  void setClip(const PixelRect& r) override {
    ++clip_count_;
    clip_id_ = fmt::format("clip{}", clip_count_);
    out_ += fmt::format("<clipPath id=\"{}\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/></clipPath>\n", clip_id_,
                        r.x0, r.y0, r.x1 - r.x0, r.y1 - r.y0);
  }
  void clearClip() override { clip_id_.clear(); }

  std::string finish() override { return out_ + "</svg>\n"; }

 private:
  std::string clipAttribute() const {
    return clip_id_.empty() ? std::string() : fmt::format(" clip-path=\"url(#{})\"", clip_id_);
  }

  std::string out_;
  std::string clip_id_;
  int clip_count_ = 0;
};

}  // namespace

std::unique_ptr<SvgCanvas> makeSvgCanvas(int width, int height, Rgb background) {
  return std::make_unique<SvgCanvasImpl>(width, height, background);
}

}  // namespace strata::formats::render_detail
