#include "hdf5_io.h"
#include "strata/formats/machine_memory.h"

#include <libdeflate.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <type_traits>

#include <tbb/parallel_pipeline.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace strata::formats::h5 {

namespace {

// Element types: the memory type HDF5 converts into, and the two file types accepted on read
// (little- and big-endian spellings of the same class, size and sign). The first is written.
template <class T>
struct ElementTraits;

#define STRATA_H5_ELEMENT(type, native, little, big, label)                              \
  template <>                                                                           \
  struct ElementTraits<type> {                                                          \
    static hid_t memory() { return native; }                                            \
    static hid_t fileLittle() { return little; }                                        \
    static hid_t fileBig() { return big; }                                              \
    static constexpr const char* kName = label;                                         \
  };
STRATA_H5_ELEMENT(float, H5T_NATIVE_FLOAT, H5T_IEEE_F32LE, H5T_IEEE_F32BE, "float32")
STRATA_H5_ELEMENT(double, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, H5T_IEEE_F64BE, "float64")
STRATA_H5_ELEMENT(std::int8_t, H5T_NATIVE_INT8, H5T_STD_I8LE, H5T_STD_I8BE, "int8")
STRATA_H5_ELEMENT(std::uint8_t, H5T_NATIVE_UINT8, H5T_STD_U8LE, H5T_STD_U8BE, "uint8")
STRATA_H5_ELEMENT(std::int32_t, H5T_NATIVE_INT32, H5T_STD_I32LE, H5T_STD_I32BE, "int32")
STRATA_H5_ELEMENT(std::uint32_t, H5T_NATIVE_UINT32, H5T_STD_U32LE, H5T_STD_U32BE, "uint32")
STRATA_H5_ELEMENT(std::int64_t, H5T_NATIVE_INT64, H5T_STD_I64LE, H5T_STD_I64BE, "int64")
STRATA_H5_ELEMENT(std::uint64_t, H5T_NATIVE_UINT64, H5T_STD_U64LE, H5T_STD_U64BE, "uint64")
#undef STRATA_H5_ELEMENT

std::string str(std::string_view s) { return std::string(s); }

// Deflate cannot shrink data by more than about 1032:1; 1100 leaves margin. A dataset whose
// logical size exceeds its stored bytes by more than this (plus a small allowance for fill
// values of tiny datasets) is a hostile or corrupt header, refused before allocating.
constexpr std::uint64_t kMaxExpansion = 1100;
constexpr std::uint64_t kSmallAllowanceBytes = 1u << 20;

// A dataset creation list: timestamps off; chunked + shuffle + deflate + Fletcher32 when the
// array has rows, contiguous (no filters possible) when it is empty.
Result<PropertyList> datasetCreationList(const Location& parent, std::string_view name, int rank,
                                         const hsize_t* dims, std::size_t row_bytes) {
  PropertyList dcpl(H5Pcreate(H5P_DATASET_CREATE));
  if (!dcpl || H5Pset_obj_track_times(dcpl.get(), false) < 0)
    return Error::runtime(parent.where(name) + ": cannot set up dataset creation" + errorSuffix());
  if (dims[0] == 0) {
    if (H5Pset_layout(dcpl.get(), H5D_CONTIGUOUS) < 0)
      return Error::runtime(parent.where(name) + ": cannot set contiguous layout" + errorSuffix());
    return dcpl;
  }
  const std::size_t rows_per_chunk =
      std::clamp<std::size_t>(kTargetChunkBytes / std::max<std::size_t>(row_bytes, 1), 1, dims[0]);
  std::array<hsize_t, 2> chunk{rows_per_chunk, rank > 1 ? dims[1] : 1};
  if (H5Pset_chunk(dcpl.get(), rank, chunk.data()) < 0 || H5Pset_shuffle(dcpl.get()) < 0 ||
      H5Pset_deflate(dcpl.get(), kDeflateLevel) < 0 || H5Pset_fletcher32(dcpl.get()) < 0)
    return Error::runtime(parent.where(name) + ": cannot set chunking and filters" + errorSuffix());
  return dcpl;
}

// Writes need the memory bytes to be the file bytes: every file type is little-endian.
static_assert(std::endian::native == std::endian::little, "the world file writer assumes a little-endian host");

// The Fletcher-32 checksum of HDF5's filter (H5Z_FILTER_FLETCHER32) over `size` bytes: the
// bytes taken as big-endian 16-bit words (an odd last byte is the high byte of a last word),
// both sums folded to 16 bits with end-around carry after every 360 words, after the odd byte
// and once more at the end (that schedule decides whether a sum that is a multiple of 65535
// comes out as 0 or 0xffff, so it is HDF5's). Returns sum2 << 16 | sum1.
uint32_t fletcher32(const unsigned char* data, std::size_t size) {
  auto fold = [](uint32_t v) { return (v & 0xffffu) + (v >> 16); };
  uint32_t sum1 = 0, sum2 = 0;
  for (std::size_t words = size / 2; words > 0;) {
    const std::size_t block = std::min<std::size_t>(words, 360);
    words -= block;
    for (const unsigned char* end = data + 2 * block; data != end; data += 2) {
      sum1 += uint32_t(data[0]) << 8 | uint32_t(data[1]);
      sum2 += sum1;
    }
    sum1 = fold(sum1), sum2 = fold(sum2);
  }
  if (size % 2 != 0) {
    sum1 += uint32_t(data[0]) << 8;
    sum2 += sum1;
    sum1 = fold(sum1), sum2 = fold(sum2);
  }
  sum1 = fold(sum1), sum2 = fold(sum2);
  return sum2 << 16 | sum1;
}

// HDF5's shuffle filter (`kShuffle`) and its inverse: in the shuffled form, byte k of element
// i of a chunk of `count` elements sits at k * count + i. One pass for the element sizes Strata
// writes (a compile-time size lets the byte loop unroll), a generic loop for the rest.
template <bool kShuffle, std::size_t kSize>
void shuffleFixed(const unsigned char* in, std::size_t count, unsigned char* out, std::size_t first = 0) {
  for (std::size_t i = first; i < count; ++i)
    for (std::size_t k = 0; k < kSize; ++k) {
      if constexpr (kShuffle) out[k * count + i] = in[i * kSize + k];
      else out[i * kSize + k] = in[k * count + i];
    }
}

#if defined(__SSE2__)
// 4-byte elements, 16 at a time with SSE2 (part of every x86-64): the byte loop above moves one
// byte per step and was a quarter of a large world's load.
template <bool kShuffle>
void shuffle4(const unsigned char* in, std::size_t count, unsigned char* out) {
  const std::size_t blocks = count / 16;
  if constexpr (kShuffle) {
    // 16 elements (64 bytes) -> 16 bytes of each plane: two rounds of "even bytes, odd bytes".
    const __m128i low = _mm_set1_epi16(0x00FF);
    for (std::size_t b = 0; b < blocks; ++b) {
      const auto* src = reinterpret_cast<const __m128i*>(in + 64 * b);
      const __m128i v0 = _mm_loadu_si128(src), v1 = _mm_loadu_si128(src + 1);
      const __m128i v2 = _mm_loadu_si128(src + 2), v3 = _mm_loadu_si128(src + 3);
      // bytes 0 and 2, and bytes 1 and 3, of elements 0-7 and 8-15
      const __m128i a = _mm_packus_epi16(_mm_and_si128(v0, low), _mm_and_si128(v1, low));
      const __m128i c = _mm_packus_epi16(_mm_and_si128(v2, low), _mm_and_si128(v3, low));
      const __m128i o = _mm_packus_epi16(_mm_srli_epi16(v0, 8), _mm_srli_epi16(v1, 8));
      const __m128i d = _mm_packus_epi16(_mm_srli_epi16(v2, 8), _mm_srli_epi16(v3, 8));
      const std::size_t at = 16 * b;
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + at),
                       _mm_packus_epi16(_mm_and_si128(a, low), _mm_and_si128(c, low)));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + count + at),
                       _mm_packus_epi16(_mm_and_si128(o, low), _mm_and_si128(d, low)));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * count + at),
                       _mm_packus_epi16(_mm_srli_epi16(a, 8), _mm_srli_epi16(c, 8)));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 3 * count + at),
                       _mm_packus_epi16(_mm_srli_epi16(o, 8), _mm_srli_epi16(d, 8)));
    }
  } else {
    // 16 bytes of each plane -> 16 elements: interleave bytes of planes 0/1 and 2/3, then pairs.
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::size_t at = 16 * b;
      const __m128i p0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + at));
      const __m128i p1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + count + at));
      const __m128i p2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + 2 * count + at));
      const __m128i p3 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + 3 * count + at));
      const __m128i lo01 = _mm_unpacklo_epi8(p0, p1), hi01 = _mm_unpackhi_epi8(p0, p1);
      const __m128i lo23 = _mm_unpacklo_epi8(p2, p3), hi23 = _mm_unpackhi_epi8(p2, p3);
      auto* dst = reinterpret_cast<__m128i*>(out + 64 * b);
      _mm_storeu_si128(dst, _mm_unpacklo_epi16(lo01, lo23));
      _mm_storeu_si128(dst + 1, _mm_unpackhi_epi16(lo01, lo23));
      _mm_storeu_si128(dst + 2, _mm_unpacklo_epi16(hi01, hi23));
      _mm_storeu_si128(dst + 3, _mm_unpackhi_epi16(hi01, hi23));
    }
  }
  shuffleFixed<kShuffle, 4>(in, count, out, blocks * 16);  // the last count % 16 elements
}
#endif
template <bool kShuffle>
void shuffleBytes(const unsigned char* in, std::size_t size, std::size_t element, unsigned char* out) {
  const std::size_t count = size / element;
  switch (element) {
    case 2: return shuffleFixed<kShuffle, 2>(in, count, out);
#if defined(__SSE2__)
    case 4: return shuffle4<kShuffle>(in, count, out);
#else
    case 4: return shuffleFixed<kShuffle, 4>(in, count, out);
#endif
    case 8: return shuffleFixed<kShuffle, 8>(in, count, out);
    default:
      for (std::size_t i = 0; i < count; ++i)
        for (std::size_t k = 0; k < element; ++k) {
          if constexpr (kShuffle) out[k * count + i] = in[i * element + k];
          else out[i * element + k] = in[k * count + i];
        }
  }
}

// Per-thread libdeflate state, allocated on first use and kept (a compressor is a few hundred
// KiB of tables; allocating one per chunk would cost more than compressing it).
struct FreeCompressor {
  void operator()(libdeflate_compressor* c) const { libdeflate_free_compressor(c); }
};
struct FreeDecompressor {
  void operator()(libdeflate_decompressor* d) const { libdeflate_free_decompressor(d); }
};
// libdeflate returns no (de)compressor only when its memory cannot be had: std::bad_alloc, so
// that running out of memory while writing or reading a world says so (it was "cannot
// compress chunk 1"; an audit), and a thread that failed once tries again next time.
libdeflate_compressor* threadCompressor() {
  thread_local std::unique_ptr<libdeflate_compressor, FreeCompressor> compressor;
  if (!compressor) compressor.reset(libdeflate_alloc_compressor(static_cast<int>(kDeflateLevel)));
  if (!compressor) throw std::bad_alloc();
  return compressor.get();
}
libdeflate_decompressor* threadDecompressor() {
  thread_local std::unique_ptr<libdeflate_decompressor, FreeDecompressor> decompressor;
  if (!decompressor) decompressor.reset(libdeflate_alloc_decompressor());
  if (!decompressor) throw std::bad_alloc();
  return decompressor.get();
}

// One chunk through the pipeline datasetCreationList declares: shuffle (for elements of
// `element` bytes), deflate at kDeflateLevel as a zlib stream (RFC 1950, what HDF5's deflate
// filter stores and inflates; libdeflate's encoder), then the Fletcher-32 of the deflated bytes
// appended little-endian, into `out`. The scratch buffers are per thread and reused (fresh
// 256 KiB buffers per chunk cost a page fault per 4 KiB). False when compression fails.
bool filterChunk(const unsigned char* raw, std::size_t size, std::size_t element, std::vector<unsigned char>& out) {
  thread_local std::vector<unsigned char> shuffled, packed_buffer;
  const unsigned char* input = raw;
  if (element > 1) {
    shuffled.resize(size);
    shuffleBytes<true>(raw, size, element, shuffled.data());
    input = shuffled.data();
  }
  libdeflate_compressor* compressor = threadCompressor();
  const std::size_t bound = libdeflate_zlib_compress_bound(compressor, size);
  if (packed_buffer.size() < bound) packed_buffer.resize(bound);
  const std::size_t packed = libdeflate_zlib_compress(compressor, input, size, packed_buffer.data(), bound);
  if (packed == 0) return false;
  out.reserve(packed + 4);
  out.assign(packed_buffer.begin(), packed_buffer.begin() + static_cast<std::ptrdiff_t>(packed));
  const uint32_t sum = fletcher32(out.data(), packed);
  for (int b = 0; b < 4; ++b) out.push_back(static_cast<unsigned char>(sum >> (8 * b)));
  return true;
}

// Creates and fills one dataset; `data` may be null only when the dataset is empty. The chunks
// are filtered in parallel (oneTBB, as many threads as the caller allows) and written in chunk
// order with H5Dwrite_chunk, so the file is the same at any thread count; HDF5's own filter
// pipeline would run them one after another (13 s of a 2 km town's 38 s bake-and-write).
Status createAndWrite(const Location& parent, std::string_view name, hid_t file_type, hid_t memory_type, int rank,
                      const hsize_t* dims, std::size_t row_bytes, const void* data) {
  Dataspace space(H5Screate_simple(rank, dims, nullptr));
  if (!space) return Error::runtime(parent.where(name) + ": cannot create dataspace" + errorSuffix());
  auto dcpl = datasetCreationList(parent, name, rank, dims, row_bytes);
  if (!dcpl) return dcpl.error();
  Dataset dataset(H5Dcreate2(parent.id, str(name).c_str(), file_type, space.get(), H5P_DEFAULT, dcpl->get(),
                             H5P_DEFAULT));
  if (!dataset) return Error::runtime(parent.where(name) + ": cannot create dataset" + errorSuffix());
  const std::size_t element = H5Tget_size(file_type);
  if (element == 0 || element != H5Tget_size(memory_type) || row_bytes % element != 0)
    return Error::runtime(parent.where(name) + ": element sizes in memory and file differ" + errorSuffix());
  if (dims[0] > 0) {
    std::array<hsize_t, 2> chunk{0, 0};
    if (H5Pget_chunk(dcpl->get(), rank, chunk.data()) != rank)
      return Error::runtime(parent.where(name) + ": cannot read chunk shape" + errorSuffix());
    const std::size_t rows_per_chunk = chunk[0], chunk_bytes = rows_per_chunk * row_bytes;
    const std::size_t chunks = (dims[0] + rows_per_chunk - 1) / rows_per_chunk;
    const auto* bytes = static_cast<const unsigned char*>(data);
    struct Filtered {
      std::size_t index = 0;
      std::vector<unsigned char> bytes;
      bool ok = true;
    };
    std::size_t next = 0;
    std::atomic<bool> failed{false};
    std::string problem;
    tbb::parallel_pipeline(
        16,
        tbb::make_filter<void, std::size_t>(tbb::filter_mode::serial_in_order,
                                            [&](tbb::flow_control& fc) -> std::size_t {
                                              if (next == chunks || failed.load()) {
                                                fc.stop();
                                                return 0;
                                              }
                                              return next++;
                                            }) &
            tbb::make_filter<std::size_t, Filtered>(
                tbb::filter_mode::parallel,
                [&](std::size_t index) {
                  thread_local std::vector<unsigned char> raw;
                  Filtered f;
                  f.index = index;
                  const std::size_t begin = index * chunk_bytes;
                  const std::size_t available = std::min<std::size_t>(chunk_bytes, std::size_t(dims[0]) * row_bytes - begin);
                  const unsigned char* source = bytes + begin;
                  if (available < chunk_bytes) {  // the last chunk: whole, zero past the rows
                    raw.assign(chunk_bytes, 0);
                    std::memcpy(raw.data(), source, available);
                    source = raw.data();
                  }
                  f.ok = filterChunk(source, chunk_bytes, element, f.bytes);
                  return f;
                }) &
            tbb::make_filter<Filtered, void>(tbb::filter_mode::serial_in_order, [&](const Filtered& f) {
              // HDF5 is built thread-safe: error stacks (and their printing) are per thread.
              const ErrorSilencer silence;
              if (failed.load()) return;
              if (!f.ok) {
                problem = ": cannot compress chunk " + std::to_string(f.index);
                failed = true;
                return;
              }
              const std::array<hsize_t, 2> offset{hsize_t(f.index * rows_per_chunk), 0};
              if (H5Dwrite_chunk(dataset.get(), H5P_DEFAULT, 0, offset.data(), f.bytes.size(), f.bytes.data()) < 0) {
                problem = ": cannot write dataset" + errorSuffix();
                failed = true;
              }
            }));
    if (failed) return Error::runtime(parent.where(name) + problem);
  }
  if (!dataset.close()) return Error::runtime(parent.where(name) + ": cannot close dataset" + errorSuffix());
  return Ok{};
}

// A fixed-length, null-padded UTF-8 string type of `width` bytes.
Datatype fixedStringType(std::size_t width) {
  Datatype type(H5Tcopy(H5T_C_S1));
  if (!type || H5Tset_size(type.get(), width) < 0 || H5Tset_strpad(type.get(), H5T_STR_NULLPAD) < 0 ||
      H5Tset_cset(type.get(), H5T_CSET_UTF8) < 0)
    return Datatype{};
  return type;
}

// Opens a dataset reached through a hard link (soft and external links are refused: a world
// file must not make Strata open other files).
Result<Dataset> openDataset(const Location& parent, std::string_view name) {
  const std::string key = str(name);
  const htri_t exists = H5Lexists(parent.id, key.c_str(), H5P_DEFAULT);
  if (exists < 0) return Error::badInput(parent.self() + ": unreadable group" + errorSuffix());
  if (exists == 0) return Error::badInput(parent.where(name) + ": dataset missing");
  H5L_info_t link{};
  if (H5Lget_info(parent.id, key.c_str(), &link, H5P_DEFAULT) < 0 || link.type != H5L_TYPE_HARD)
    return Error::badInput(parent.where(name) + ": not a hard link to a dataset" + errorSuffix());
  Dataset dataset(H5Dopen2(parent.id, key.c_str(), H5P_DEFAULT));
  if (!dataset) return Error::badInput(parent.where(name) + ": not a readable dataset" + errorSuffix());
  return dataset;
}

// Reads the simple extent of `dataset` and checks its rank and shape.
Result<std::array<hsize_t, 2>> checkShape(const Location& parent, std::string_view name, hid_t dataset,
                                          std::size_t columns, std::optional<std::size_t> rows) {
  Dataspace space(H5Dget_space(dataset));
  if (!space) return Error::badInput(parent.where(name) + ": unreadable dataspace" + errorSuffix());
  const H5S_class_t space_class = H5Sget_simple_extent_type(space.get());
  const int rank = H5Sget_simple_extent_ndims(space.get());
  const int expected_rank = columns == 0 ? 1 : 2;
  // The row count when known ("[N, 42655]" read as if the rows were wrong when the columns were,
  // and N, the node count in docs/format.md, is not the row count of every dataset: an audit).
  const std::string row_text = rows ? std::to_string(*rows) : "N";
  const std::string expected_shape = columns == 0 ? "[" + row_text + "]" : "[" + row_text + ", " + std::to_string(columns) + "]";
  if (space_class != H5S_SIMPLE || rank != expected_rank)
    return Error::badInput(parent.where(name) + ": expected shape " + expected_shape + ", found rank " +
                           std::to_string(std::max(rank, 0)));
  std::array<hsize_t, 2> dims{0, 0};
  if (H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr) < 0)
    return Error::badInput(parent.where(name) + ": unreadable dimensions" + errorSuffix());
  if (columns != 0 && dims[1] != columns)
    return Error::badInput(parent.where(name) + ": expected shape " + expected_shape + ", found [" +
                           std::to_string(dims[0]) + ", " + std::to_string(dims[1]) + "]");
  if (rows && dims[0] != *rows)
    return Error::badInput(parent.where(name) + ": has " + std::to_string(dims[0]) + (dims[0] == 1 ? " row" : " rows") + ", expected " +
                           std::to_string(*rows));
  return dims;
}

}  // namespace

Status checkShapeOf(const Location& parent, std::string_view name, std::size_t columns, std::size_t rows) {
  auto dataset = openDataset(parent, name);
  if (!dataset) return dataset.error();
  auto dims = checkShape(parent, name, dataset->get(), columns, rows);
  if (!dims) return dims.error();
  return Ok{};
}

namespace {

// Refuses logical sizes that the stored bytes cannot explain (see kMaxExpansion).
Status checkPlausibleSize(const Location& parent, std::string_view name, hid_t dataset, std::uint64_t elements,
                          std::uint64_t element_bytes) {
  constexpr std::uint64_t kMaxBytes = std::numeric_limits<std::uint64_t>::max() / 2;
  if (element_bytes != 0 && elements > kMaxBytes / element_bytes)
    return Error::badInput(parent.where(name) + ": claims an impossible size (" + std::to_string(elements) +
                           " elements)");
  const std::uint64_t logical = elements * element_bytes;
  std::uint64_t stored = H5Dget_storage_size(dataset);
  File file(H5Iget_file_id(dataset));
  hsize_t file_bytes = 0;
  if (file && H5Fget_filesize(file.get(), &file_bytes) >= 0) stored = std::min<std::uint64_t>(stored, file_bytes);
  // A dataset with no stored bytes at all reads as its fill value (every element the same,
  // which no writer here produces: HDF5 allocates what is written), whatever its size.
  if ((logical > 0 && stored == 0) || (logical > kSmallAllowanceBytes && logical / kMaxExpansion > stored))
    return Error::badInput(parent.where(name) + ": claims " + std::to_string(elements) + " elements but the file stores only " +
                           std::to_string(stored) + " bytes for it");
  // Some chunks stored and others never written: those read as the fill value too, which the
  // size test above lets through when enough of the dataset is stored (an audit: heights past
  // the fifth of 18 chunks read 0, a 3 m platform and a 6 m pit at ground level, and `info`
  // accepted the file). (H5Dget_space_status cannot tell: it reports any compressed dataset as
  // partly allocated.)
  if (logical > 0) {
    PropertyList create(H5Dget_create_plist(dataset));
    if (create && H5Pget_layout(create.get()) == H5D_CHUNKED) {
      Dataspace space(H5Dget_space(dataset));
      const int rank = space ? H5Sget_simple_extent_ndims(space.get()) : -1;
      std::array<hsize_t, H5S_MAX_RANK> dims{}, chunk{};
      hsize_t expected = 1, present = 0;
      const bool known = rank > 0 && rank <= H5S_MAX_RANK && H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr) == rank &&
                         H5Pget_chunk(create.get(), rank, chunk.data()) == rank &&
                         H5Dget_num_chunks(dataset, space.get(), &present) >= 0;  // (1.10.8 refuses H5S_ALL)
      for (std::size_t d = 0; known && d < static_cast<std::size_t>(rank); ++d)
        expected *= chunk[d] == 0 ? 0 : (dims[d] + chunk[d] - 1) / chunk[d];  // chunks along axis d
      if (!known || present != expected)
        return Error::badInput(parent.where(name) + ": part of it was never written (" +
                               (known ? std::to_string(present) + " of its " + std::to_string(expected) + " chunks are stored"
                                      : std::string("its chunks cannot be counted")) +
                               "; the rest would read as the fill value)");
    }
  }
  return Ok{};
}

std::string describeType(hid_t type) {
  switch (H5Tget_class(type)) {
    case H5T_INTEGER: return (H5Tget_sign(type) == H5T_SGN_NONE ? "uint" : "int") + std::to_string(8 * H5Tget_size(type));
    case H5T_FLOAT: return "float" + std::to_string(8 * H5Tget_size(type));
    case H5T_STRING: return H5Tis_variable_str(type) > 0 ? "variable-length string" : "fixed-length string";
    case H5T_COMPOUND: return "compound";
    case H5T_ENUM: return "enum";
    case H5T_ARRAY: return "array";
    case H5T_VLEN: return "variable-length sequence";
    case H5T_REFERENCE: return "reference";
    case H5T_OPAQUE: return "opaque";
    case H5T_BITFIELD: return "bitfield";
    case H5T_TIME: return "time";
    default: return "unknown type";
  }
}

// Accepts fixed-length string types only; returns the element width in bytes or an error.
Result<std::size_t> fixedStringWidth(const std::string& where, hid_t type, std::size_t max_bytes = kMaxStringBytes) {
  if (H5Tget_class(type) != H5T_STRING || H5Tis_variable_str(type) != 0)
    return Error::badInput(where + ": expected fixed-length string, found " + describeType(type));
  const std::size_t width = H5Tget_size(type);
  if (width == 0 || width > max_bytes)
    return Error::badInput(where + ": string width " + std::to_string(width) + " out of range");
  return width;
}

// Cuts a fixed-length element at its first NUL and drops space padding. Strings never hold a NUL
// (the writer refuses them), so anything but padding after the first NUL is a string with a NUL
// inside, edited in by hand: nullopt (reading it cut short would change a label without a word).
std::optional<std::string> unpad(const char* data, std::size_t width, H5T_str_t pad) {
  std::size_t length = 0;
  while (length < width && data[length] != '\0') ++length;
  for (std::size_t k = length; k < width; ++k)
    if (data[k] != '\0' && !(pad == H5T_STR_SPACEPAD && data[k] == ' ')) return std::nullopt;
  if (pad == H5T_STR_SPACEPAD)
    while (length > 0 && data[length - 1] == ' ') --length;
  return std::string(data, length);
}

}  // namespace

// ---- Location ------------------------------------------------------------------------------

std::string Location::childPath(std::string_view name) const {
  return path == "/" ? "/" + str(name) : path + "/" + str(name);
}
std::string Location::where(std::string_view name) const { return file + ": " + childPath(name); }
std::string Location::self() const { return file + ": " + path; }
Location Location::child(const Group& group, std::string_view name) const {
  return Location{group.get(), file, childPath(name)};
}

// ---- writing -------------------------------------------------------------------------------

PropertyList groupCreationList() {
  PropertyList list(H5Pcreate(H5P_GROUP_CREATE));
  if (list && H5Pset_obj_track_times(list.get(), false) < 0) return PropertyList{};
  return list;
}

Result<Group> createGroup(const Location& parent, std::string_view name) {
  PropertyList gcpl = groupCreationList();
  if (!gcpl) return Error::runtime(parent.where(name) + ": cannot set up group creation" + errorSuffix());
  Group group(H5Gcreate2(parent.id, str(name).c_str(), H5P_DEFAULT, gcpl.get(), H5P_DEFAULT));
  if (!group) return Error::runtime(parent.where(name) + ": cannot create group" + errorSuffix());
  return group;
}

template <class T>
Status writeArray(const Location& parent, std::string_view name, std::span<const T> values, std::size_t columns) {
  const std::size_t width = std::max<std::size_t>(columns, 1);
  if (values.size() % width != 0)
    return Error::runtime(parent.where(name) + ": " + std::to_string(values.size()) +
                          " values do not fill rows of " + std::to_string(width));
  const int rank = columns == 0 ? 1 : 2;
  const std::array<hsize_t, 2> dims{values.size() / width, width};
  return createAndWrite(parent, name, ElementTraits<T>::fileLittle(), ElementTraits<T>::memory(), rank, dims.data(),
                        width * sizeof(T), values.data());
}

Status writeStringTable(const Location& parent, std::string_view name, const std::vector<std::string>& strings) {
  std::size_t width = 1;
  for (std::size_t i = 0; i < strings.size(); ++i) {
    if (strings[i].find('\0') != std::string::npos)
      return Error::badInput(parent.where(name) + ": entry " + std::to_string(i) + " contains a NUL byte");
    width = std::max(width, strings[i].size());
  }
  if (width > kMaxStringBytes)
    return Error::badInput(parent.where(name) + ": an entry is longer than " + std::to_string(kMaxStringBytes) + " bytes");
  Datatype type = fixedStringType(width);
  if (!type) return Error::runtime(parent.where(name) + ": cannot create string type" + errorSuffix());
  std::vector<char> buffer(strings.size() * width, '\0');
  for (std::size_t i = 0; i < strings.size(); ++i) std::memcpy(buffer.data() + i * width, strings[i].data(), strings[i].size());
  const std::array<hsize_t, 2> dims{strings.size(), 1};
  return createAndWrite(parent, name, type.get(), type.get(), 1, dims.data(), width, buffer.data());
}

Status writeStringAttribute(const Location& object, std::string_view name, std::string_view value, std::size_t max_bytes) {
  const std::string where = object.self() + " attribute " + str(name);
  if (value.find('\0') != std::string_view::npos) return Error::badInput(where + ": contains a NUL byte");
  if (value.size() > max_bytes)
    return Error::badInput(where + ": " + std::to_string(value.size()) + " bytes, longer than the " +
                           std::to_string(max_bytes) + " a reader accepts");
  Datatype type = fixedStringType(std::max<std::size_t>(value.size(), 1));
  Dataspace space(H5Screate(H5S_SCALAR));
  if (!type || !space) return Error::runtime(where + ": cannot create type" + errorSuffix());
  Attribute attribute(H5Acreate2(object.id, str(name).c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT));
  std::vector<char> buffer(std::max<std::size_t>(value.size(), 1), '\0');
  std::memcpy(buffer.data(), value.data(), value.size());
  if (!attribute || H5Awrite(attribute.get(), type.get(), buffer.data()) < 0 || !attribute.close())
    return Error::runtime(where + ": cannot write" + errorSuffix());
  return Ok{};
}

Status writeInt32Attribute(const Location& object, std::string_view name, std::int32_t value) {
  const std::string where = object.self() + " attribute " + str(name);
  Dataspace space(H5Screate(H5S_SCALAR));
  if (!space) return Error::runtime(where + ": cannot create dataspace" + errorSuffix());
  Attribute attribute(H5Acreate2(object.id, str(name).c_str(), H5T_STD_I32LE, space.get(), H5P_DEFAULT, H5P_DEFAULT));
  if (!attribute || H5Awrite(attribute.get(), H5T_NATIVE_INT32, &value) < 0 || !attribute.close())
    return Error::runtime(where + ": cannot write" + errorSuffix());
  return Ok{};
}

// ---- reading -------------------------------------------------------------------------------

Result<bool> hasLink(const Location& parent, std::string_view name) {
  const htri_t exists = H5Lexists(parent.id, str(name).c_str(), H5P_DEFAULT);
  if (exists < 0) return Error::badInput(parent.self() + ": unreadable group" + errorSuffix());
  return exists > 0;
}

Result<std::vector<std::string>> linkNames(const Location& group) {
  H5G_info_t info{};
  if (H5Gget_info(group.id, &info) < 0) return Error::badInput(group.self() + ": unreadable group" + errorSuffix());
  std::vector<std::string> names;
  for (hsize_t i = 0; i < info.nlinks; ++i) {
    const ssize_t length = H5Lget_name_by_idx(group.id, ".", H5_INDEX_NAME, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
    if (length < 0) return Error::badInput(group.self() + ": unreadable group" + errorSuffix());
    std::vector<char> name(static_cast<std::size_t>(length) + 1, '\0');
    if (H5Lget_name_by_idx(group.id, ".", H5_INDEX_NAME, H5_ITER_INC, i, name.data(), name.size(), H5P_DEFAULT) < 0)
      return Error::badInput(group.self() + ": unreadable group" + errorSuffix());
    names.emplace_back(name.data(), static_cast<std::size_t>(length));
  }
  return names;
}

Result<Group> openGroup(const Location& parent, std::string_view name) {
  const std::string key = str(name);
  const htri_t exists = H5Lexists(parent.id, key.c_str(), H5P_DEFAULT);
  if (exists < 0) return Error::badInput(parent.self() + ": unreadable group" + errorSuffix());
  if (exists == 0) return Error::badInput(parent.where(name) + ": group missing");
  H5L_info_t link{};
  if (H5Lget_info(parent.id, key.c_str(), &link, H5P_DEFAULT) < 0 || link.type != H5L_TYPE_HARD)
    return Error::badInput(parent.where(name) + ": not a hard link to a group" + errorSuffix());
  Group group(H5Gopen2(parent.id, key.c_str(), H5P_DEFAULT));
  if (!group) return Error::badInput(parent.where(name) + ": not a group" + errorSuffix());
  return group;
}

namespace {

// Reads a dataset stored the way createAndWrite stores it (chunked whole rows, filters exactly
// shuffle + deflate + Fletcher-32, a little-endian type of `element` bytes) into `out`
// (rows * row_bytes bytes): the chunks are fetched raw with H5Dread_chunk in order and decoded
// in parallel (checksum checked, inflated, unshuffled) straight into `out`. HDF5's own
// pipeline decodes chunk after chunk through fresh buffers (on a 2 km town, 37 s to load the
// world, half of it in page faults). False when the dataset is stored any other way or a chunk
// does not decode (a corrupt or foreign file): the caller then reads it with H5Dread, which
// handles every layout and words the error.
bool readChunksInParallel(hid_t dataset, std::size_t element, std::size_t row_bytes, std::uint64_t rows, unsigned char* out) {
  PropertyList dcpl(H5Dget_create_plist(dataset));
  if (!dcpl || H5Pget_layout(dcpl.get()) != H5D_CHUNKED || H5Pget_nfilters(dcpl.get()) != 3) return false;
  const H5Z_filter_t expected[3] = {H5Z_FILTER_SHUFFLE, H5Z_FILTER_DEFLATE, H5Z_FILTER_FLETCHER32};
  for (unsigned i = 0; i < 3; ++i) {
    unsigned flags = 0, values[1] = {0};
    std::size_t count = 1;
    if (H5Pget_filter2(dcpl.get(), i, &flags, &count, values, 0, nullptr, nullptr) != expected[i]) return false;
    if (i == 0 && (count < 1 || values[0] != element)) return false;  // shuffle's element size
  }
  Dataspace space(H5Dget_space(dataset));
  const int rank = space ? H5Sget_simple_extent_ndims(space.get()) : -1;
  if (rank != 1 && rank != 2) return false;
  std::array<hsize_t, 2> dims{0, 0}, chunk{0, 0};
  if (H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr) < 0 || H5Pget_chunk(dcpl.get(), rank, chunk.data()) != rank)
    return false;
  if (chunk[0] == 0 || (rank == 2 && chunk[1] != dims[1]) || dims[0] != rows) return false;
  constexpr std::size_t kMaxChunkBytes = std::size_t(64) << 20;
  if (chunk[0] > kMaxChunkBytes / std::max<std::size_t>(row_bytes, 1)) return false;
  const std::size_t rows_per_chunk = chunk[0], chunk_bytes = rows_per_chunk * row_bytes;
  const std::size_t chunks = (rows + rows_per_chunk - 1) / rows_per_chunk;
  // A chunk not stored (size 0) or larger than deflate's bound plus the checksum stops the
  // decoding below, and HDF5 then reads the whole array over whatever was decoded.
  const std::size_t max_stored = chunk_bytes + chunk_bytes / 1000 + 1024;  // above zlib's and libdeflate's bounds
  struct Raw {
    std::size_t index = 0;
    uint32_t mask = 0;
    std::vector<unsigned char> bytes;
  };
  std::size_t next = 0;
  std::atomic<bool> failed{false};
  tbb::parallel_pipeline(
      16,
      tbb::make_filter<void, Raw>(tbb::filter_mode::serial_in_order,
                                  [&](tbb::flow_control& fc) -> Raw {
                                    Raw r;
                                    if (next == chunks || failed.load()) {
                                      fc.stop();
                                      return r;
                                    }
                                    const ErrorSilencer silence;  // per thread: HDF5 is built thread-safe
                                    r.index = next++;
                                    const std::array<hsize_t, 2> offset{hsize_t(r.index * rows_per_chunk), 0};
                                    hsize_t size = 0;
                                    if (H5Dget_chunk_storage_size(dataset, offset.data(), &size) < 0 || size == 0 ||
                                        size > max_stored) {
                                      failed = true;
                                      return r;
                                    }
                                    r.bytes.resize(static_cast<std::size_t>(size));
                                    if (H5Dread_chunk(dataset, H5P_DEFAULT, offset.data(), &r.mask, r.bytes.data()) < 0) failed = true;
                                    return r;
                                  }) &
          tbb::make_filter<Raw, void>(tbb::filter_mode::parallel, [&](const Raw& r) {
            if (failed.load() || r.bytes.empty()) return;
            thread_local std::vector<unsigned char> inflated, plain;
            // Filters HDF5 skipped for this chunk (optional ones that did not pay) are set in
            // the mask: bit 0 shuffle, bit 1 deflate, bit 2 Fletcher-32.
            if (r.mask & ~uint32_t(7)) {
              failed = true;
              return;
            }
            std::size_t size = r.bytes.size();
            if (!(r.mask & 4u)) {
              if (size < 4) {
                failed = true;
                return;
              }
              size -= 4;
              uint32_t stored = 0;
              for (int b = 0; b < 4; ++b) stored |= uint32_t(r.bytes[size + std::size_t(b)]) << (8 * b);
              if (fletcher32(r.bytes.data(), size) != stored) {
                failed = true;
                return;
              }
            }
            const unsigned char* data = r.bytes.data();
            if (!(r.mask & 2u)) {
              inflated.resize(chunk_bytes);
              // Exactly chunk_bytes or an error (a null length pointer asks for the whole buffer);
              // libdeflate checks the stream's Adler-32.
              libdeflate_decompressor* decompressor = threadDecompressor();
              if (libdeflate_zlib_decompress(decompressor, data, size, inflated.data(), chunk_bytes, nullptr) !=
                  LIBDEFLATE_SUCCESS) {
                failed = true;
                return;
              }
              data = inflated.data(), size = chunk_bytes;
            }
            if (size != chunk_bytes) {
              failed = true;
              return;
            }
            const std::size_t begin = r.index * chunk_bytes;
            const std::size_t wanted = std::min<std::size_t>(chunk_bytes, static_cast<std::size_t>(rows) * row_bytes - begin);
            const bool shuffled = !(r.mask & 1u) && element > 1;
            if (!shuffled) {
              std::memcpy(out + begin, data, wanted);
            } else if (wanted == chunk_bytes) {
              shuffleBytes<false>(data, chunk_bytes, element, out + begin);
            } else {  // the last chunk: whole in the file, only its rows wanted
              plain.resize(chunk_bytes);
              shuffleBytes<false>(data, chunk_bytes, element, plain.data());
              std::memcpy(out + begin, plain.data(), wanted);
            }
          }));
  return !failed.load();
}

}  // namespace

namespace {

// An opened array dataset whose element type, shape and stored size readArray accepts.
struct CheckedArray {
  Dataset dataset;
  bool little = true;  ///< stored little-endian (else big-endian)
  std::uint64_t rows = 0;
};

template <class T>
Result<CheckedArray> openArray(const Location& parent, std::string_view name, std::size_t columns,
                               std::optional<std::size_t> rows) {
  auto dataset = openDataset(parent, name);
  if (!dataset) return dataset.error();
  Datatype type(H5Dget_type(dataset->get()));
  if (!type) return Error::badInput(parent.where(name) + ": unreadable datatype" + errorSuffix());
  const bool little = H5Tequal(type.get(), ElementTraits<T>::fileLittle()) > 0;
  if (!little && H5Tequal(type.get(), ElementTraits<T>::fileBig()) <= 0)
    return Error::badInput(parent.where(name) + ": expected " + ElementTraits<T>::kName + ", found " +
                           describeType(type.get()));
  auto dims = checkShape(parent, name, dataset->get(), columns, rows);
  if (!dims) return dims.error();
  const std::uint64_t width = std::max<std::size_t>(columns, 1);
  const std::uint64_t row_count = (*dims)[0];
  if (row_count > std::numeric_limits<std::uint64_t>::max() / 16 / width)
    return Error::badInput(parent.where(name) + ": claims an impossible size (" + std::to_string(row_count) + " rows)");
  if (auto plausible = checkPlausibleSize(parent, name, dataset->get(), row_count * width, sizeof(T)); !plausible)
    return plausible.error();
  return CheckedArray{std::move(*dataset), little, row_count};
}

// A dataset HDF5 could not read: bad input, unless HDF5 ran out of memory doing it, which is a
// runtime failure. Under `ulimit -v` a chunk's buffer read as "cannot read data (HDF5: memory
// allocation failed for raw data chunk)", exit 2, as if the file were damaged; and zlib's own
// allocation failing reads "inflate() failed", which HDF5 also says of a damaged stream, so that
// one counts as out of memory only within 16 MiB of an address-space limit (a damaged stream
// behind a correct Fletcher32 checksum is bad input everywhere else).
Error readFailure(const std::string& where) {
  const std::string detail = takeErrorDetail();
  const std::string suffix = detail.empty() ? std::string{} : " (HDF5: " + detail + ")";
  bool memory = detail.find("memory allocation failed") != std::string::npos;
  if (!memory && detail.find("inflate() failed") != std::string::npos) {
    const std::uint64_t limit = addressSpaceLimit(), mapped = mappedAddressSpace();
    memory = limit != 0 && mapped != 0 && mapped + (std::uint64_t{16} << 20) > limit;
  }
  if (memory) return Error::runtime(where + ": out of memory reading data" + suffix);
  return Error::badInput(where + ": cannot read data" + suffix);
}

// Reads the values of an opened array into `out` (rows * width values): Strata's own layout in
// little-endian decoded in parallel, anything else by HDF5.
template <class T>
Status decodeArray(const Location& parent, std::string_view name, const CheckedArray& array, std::size_t width, T* out) {
  if (array.rows == 0) return Ok{};
  if (array.little && readChunksInParallel(array.dataset.get(), sizeof(T), width * sizeof(T), array.rows,
                                           reinterpret_cast<unsigned char*>(out)))
    return Ok{};
  if (H5Dread(array.dataset.get(), ElementTraits<T>::memory(), H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0)
    return readFailure(parent.where(name));
  return Ok{};
}

}  // namespace

template <class T>
Result<Array<T>> readArray(const Location& parent, std::string_view name, std::size_t columns,
                           std::optional<std::size_t> rows) {
  auto opened = openArray<T>(parent, name, columns, rows);
  if (!opened) return opened.error();
  const std::size_t width = std::max<std::size_t>(columns, 1);
  Array<T> array;
  array.rows = static_cast<std::size_t>(opened->rows);
  array.columns = columns;
  array.values.resize(array.rows * width);
  if (auto read = decodeArray(parent, name, *opened, width, array.values.data()); !read) return read.error();
  return array;
}

template <class T>
Status readArrayInto(const Location& parent, std::string_view name, std::size_t columns, std::size_t rows,
                     std::span<T> out) {
  const std::size_t width = std::max<std::size_t>(columns, 1);
  if (out.size() != rows * width)
    return Error::runtime(parent.where(name) + ": destination holds " + std::to_string(out.size()) + " values, not " +
                          std::to_string(rows * width));
  auto opened = openArray<T>(parent, name, columns, rows);
  if (!opened) return opened.error();
  return decodeArray(parent, name, *opened, width, out.data());
}

Result<std::vector<std::string>> readStringTable(const Location& parent, std::string_view name,
                                                 std::optional<std::size_t> rows) {
  auto dataset = openDataset(parent, name);
  if (!dataset) return dataset.error();
  Datatype type(H5Dget_type(dataset->get()));
  if (!type) return Error::badInput(parent.where(name) + ": unreadable datatype" + errorSuffix());
  auto width = fixedStringWidth(parent.where(name), type.get());
  if (!width) return width.error();
  auto dims = checkShape(parent, name, dataset->get(), 0, rows);
  if (!dims) return dims.error();
  const std::uint64_t count = (*dims)[0];
  if (auto plausible = checkPlausibleSize(parent, name, dataset->get(), count, *width); !plausible)
    return plausible.error();
  const H5T_str_t pad = H5Tget_strpad(type.get());
  // Read into a memory type of the same width and padding so HDF5 does no conversion.
  Datatype memory(H5Tcopy(type.get()));
  if (!memory) return Error::badInput(parent.where(name) + ": unreadable datatype" + errorSuffix());
  std::vector<char> buffer(static_cast<std::size_t>(count) * *width);
  if (!buffer.empty() && H5Dread(dataset->get(), memory.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer.data()) < 0)
    return readFailure(parent.where(name));
  std::vector<std::string> strings;
  strings.reserve(static_cast<std::size_t>(count));
  for (std::size_t i = 0; i < count; ++i) {
    std::optional<std::string> text = unpad(buffer.data() + i * *width, *width, pad);
    if (!text) return Error::badInput(parent.where(name) + ": entry " + std::to_string(i) + " contains a NUL byte");
    strings.push_back(std::move(*text));
  }
  return strings;
}

Result<bool> hasAttribute(const Location& object, std::string_view name) {
  const htri_t exists = H5Aexists(object.id, str(name).c_str());
  if (exists < 0) return Error::badInput(object.self() + ": unreadable object header" + errorSuffix());
  return exists > 0;
}

namespace {

// Opens a scalar (or single-element) attribute and its type.
Result<std::pair<Attribute, Datatype>> openScalarAttribute(const Location& object, std::string_view name,
                                                           const std::string& where) {
  auto exists = hasAttribute(object, name);
  if (!exists) return exists.error();
  if (!*exists) return Error::badInput(where + ": missing");
  Attribute attribute(H5Aopen(object.id, str(name).c_str(), H5P_DEFAULT));
  if (!attribute) return Error::badInput(where + ": unreadable" + errorSuffix());
  Dataspace space(H5Aget_space(attribute.get()));
  const hssize_t points = space ? H5Sget_simple_extent_npoints(space.get()) : -1;
  if (points != 1) return Error::badInput(where + ": expected a single value" + errorSuffix());
  Datatype type(H5Aget_type(attribute.get()));
  if (!type) return Error::badInput(where + ": unreadable datatype" + errorSuffix());
  return std::pair<Attribute, Datatype>{std::move(attribute), std::move(type)};
}

}  // namespace

Result<std::string> readStringAttribute(const Location& object, std::string_view name, std::size_t max_bytes) {
  const std::string where = object.self() + " attribute " + str(name);
  auto opened = openScalarAttribute(object, name, where);
  if (!opened) return opened.error();
  auto& [attribute, type] = *opened;
  auto width = fixedStringWidth(where, type.get(), max_bytes);
  if (!width) return width.error();
  std::vector<char> buffer(*width);
  if (H5Aread(attribute.get(), type.get(), buffer.data()) < 0)
    return Error::badInput(where + ": cannot read" + errorSuffix());
  std::optional<std::string> text = unpad(buffer.data(), buffer.size(), H5Tget_strpad(type.get()));
  if (!text) return Error::badInput(where + ": contains a NUL byte");
  return std::move(*text);
}

Result<std::int64_t> readIntegerAttribute(const Location& object, std::string_view name) {
  const std::string where = object.self() + " attribute " + str(name);
  auto opened = openScalarAttribute(object, name, where);
  if (!opened) return opened.error();
  auto& [attribute, type] = *opened;
  if (H5Tget_class(type.get()) != H5T_INTEGER || H5Tget_size(type.get()) > 8)
    return Error::badInput(where + ": expected an integer, found " + describeType(type.get()));
  // An unsigned value above int64's range is said as it is (read as int64, HDF5 clamped 2^64 - 1
  // to 2^63 - 1, and the message named a value the file does not hold: an audit).
  if (H5Tget_sign(type.get()) == H5T_SGN_NONE && H5Tget_size(type.get()) == 8) {
    std::uint64_t unsigned_value = 0;
    if (H5Aread(attribute.get(), H5T_NATIVE_UINT64, &unsigned_value) < 0)
      return Error::badInput(where + ": cannot read" + errorSuffix());
    if (unsigned_value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      return Error::badInput(where + ": " + std::to_string(unsigned_value) + " is out of range (at most " +
                             std::to_string(std::numeric_limits<std::int64_t>::max()) + ")");
    return static_cast<std::int64_t>(unsigned_value);
  }
  std::int64_t value = 0;
  if (H5Aread(attribute.get(), H5T_NATIVE_INT64, &value) < 0)
    return Error::badInput(where + ": cannot read" + errorSuffix());
  return value;
}

// Explicit instantiations for the element types of ElementTraits.
#define STRATA_H5_INSTANTIATE(type)                                                                        \
  template Status writeArray<type>(const Location&, std::string_view, std::span<const type>, std::size_t); \
  template Result<Array<type>> readArray<type>(const Location&, std::string_view, std::size_t,             \
                                               std::optional<std::size_t>);                                \
  template Status readArrayInto<type>(const Location&, std::string_view, std::size_t, std::size_t, std::span<type>);
STRATA_H5_INSTANTIATE(float)
STRATA_H5_INSTANTIATE(double)
STRATA_H5_INSTANTIATE(std::int8_t)
STRATA_H5_INSTANTIATE(std::uint8_t)
STRATA_H5_INSTANTIATE(std::int32_t)
STRATA_H5_INSTANTIATE(std::uint32_t)
STRATA_H5_INSTANTIATE(std::int64_t)
STRATA_H5_INSTANTIATE(std::uint64_t)
#undef STRATA_H5_INSTANTIATE

}  // namespace strata::formats::h5
