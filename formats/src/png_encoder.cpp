// PNG encoding of strata render's raster through libpng: 8-bit RGB, no interlace, zlib level 9
// with the default adaptive filters, and no tIME/tEXt chunks, so the same raster always gives the
// same bytes (for a given libpng/zlib). libpng reports errors by longjmp; nothing here allocates
// with automatic C++ lifetimes across the setjmp, and the write callback appends to a string.

#include <png.h>

#include <csetjmp>
#include <string>

#include "strata/formats/render.h"

namespace strata::formats {
namespace {

void appendBytes(png_structp png, png_bytep data, png_size_t length) {
  auto* out = static_cast<std::string*>(png_get_io_ptr(png));
  out->append(reinterpret_cast<const char*>(data), length);
}

void noFlush(png_structp) {}

// Keeps libpng from printing: the message is stored and the error longjmps back.
void onError(png_structp png, png_const_charp message) {
  auto* error = static_cast<std::string*>(png_get_error_ptr(png));
  if (error) *error = message ? message : "unknown libpng error";
  png_longjmp(png, 1);
}
void onWarning(png_structp, png_const_charp) {}

}  // namespace

Result<std::string> encodePng(const RasterImage& image) {
  if (image.width <= 0 || image.height <= 0 ||
      image.rgb.size() != static_cast<std::size_t>(image.width) * static_cast<std::size_t>(image.height) * 3)
    return Error::badInput("PNG encoder: the raster is empty or its size does not match its buffer");
  std::string out;
  std::string error;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &error, onError, onWarning);
  if (!png) return Error::runtime("PNG encoder: libpng could not start");
  png_infop info = png_create_info_struct(png);
  if (!info) {
    png_destroy_write_struct(&png, nullptr);
    return Error::runtime("PNG encoder: libpng could not start");
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return Error::runtime("PNG encoder: " + error);
  }
  png_set_write_fn(png, &out, appendBytes, noFlush);
  png_set_compression_level(png, 9);
  png_set_IHDR(png, info, static_cast<png_uint_32>(image.width), static_cast<png_uint_32>(image.height), 8,
               PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  const std::size_t stride = static_cast<std::size_t>(image.width) * 3;
  for (int y = 0; y < image.height; ++y)
    png_write_row(png, const_cast<png_bytep>(image.rgb.data() + static_cast<std::size_t>(y) * stride));
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return out;
}

}  // namespace strata::formats
