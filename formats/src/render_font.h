#pragma once
// A tiny 5x7 bitmap font for labels in raster pictures (strata render). Hand-drawn glyphs for
// digits, upper-case letters (lower case is drawn upper case) and a few symbols; anything else is
// drawn as '?'. Each glyph sits in a 6x8 cell (one column and one row of spacing).

#include <array>
#include <cstdint>
#include <string_view>

namespace strata::formats::render_detail {

/// Glyph width and height in font pixels (without spacing).
inline constexpr int kGlyphWidth = 5;
inline constexpr int kGlyphHeight = 7;
/// Horizontal advance and line height in font pixels (glyph plus spacing).
inline constexpr int kGlyphAdvance = 6;
inline constexpr int kLineHeight = 8;

/// The rows of a glyph, top first; bit 4 is the leftmost pixel.
using Glyph = std::array<std::uint8_t, kGlyphHeight>;

/// The glyph drawn for character `c` (lower case maps to upper case, unknown characters to '?').
const Glyph& glyphFor(char c);

/// True when `c` has its own glyph (after mapping lower case to upper case).
bool hasGlyph(char c);

/// Width in font pixels of `text` drawn on one line (no trailing spacing).
int textWidth(std::string_view text);

}  // namespace strata::formats::render_detail
