// The parallel chunk writer and reader of hdf5_io.cpp. Every chunk the writer stores must be
// what HDF5's own filter pipeline (shuffle, deflate, Fletcher-32) decodes: the same chunk
// shape, the checksum HDF5 verifies, a zlib stream zlib itself inflates to the shuffled rows;
// and the file must not depend on the thread count. The reader decodes Strata's layout itself
// (chunks deflated by zlib included) and must read everything else (other filters, byte orders,
// chunks HDF5 left unfiltered) exactly as HDF5 does.

#include <catch2/catch.hpp>

#include <tbb/global_control.h>
#include <zlib.h>

#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <type_traits>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "hdf5_handles.h"
#include "hdf5_io.h"
#include "test_support.h"

using namespace strata;
using strata::test::TempDir;
namespace h5 = strata::formats::h5;

namespace {

// Values like a bake's: small integers, smooth floats, a few repeats; `noise` true gives random
// bits (deflate gains nothing there, so HDF5 may keep its output or skip it).
template <class T>
std::vector<T> sampleValues(std::size_t count, uint32_t seed, bool noise) {
  std::mt19937 rng(seed);
  std::vector<T> values(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (noise) {
      uint64_t bits = (uint64_t(rng()) << 32) | rng();
      std::memcpy(&values[i], &bits, sizeof(T));
      if constexpr (std::is_floating_point_v<T>)
        if (values[i] != values[i]) values[i] = T(i);  // no NaNs: the round trip compares values
    } else if constexpr (std::is_floating_point_v<T>) {
      values[i] = T(std::sin(double(i) * 0.01) * 40.0 + double(rng() % 8) * 0.25);
    } else {
      values[i] = T((i / 3) % 1000 + rng() % 4);
    }
  }
  return values;
}

template <class T>
hid_t nativeType() {
  if constexpr (std::is_same_v<T, float>) return H5T_NATIVE_FLOAT;
  else if constexpr (std::is_same_v<T, double>) return H5T_NATIVE_DOUBLE;
  else if constexpr (std::is_same_v<T, uint32_t>) return H5T_NATIVE_UINT32;
  else return H5T_NATIVE_UINT8;
}

struct ChunkBytes {
  uint32_t mask = 0;
  std::vector<unsigned char> bytes;
};

// Fletcher-32 as HDF5's filter computes it (big-endian 16-bit words, an odd last byte as the
// high byte of a word); HDF5 verifies it on every read, which is what checks this copy.
uint32_t fletcher32(const std::vector<unsigned char>& bytes) {
  uint32_t sum1 = 0, sum2 = 0;
  std::size_t i = 0;
  for (std::size_t words = bytes.size() / 2; words > 0;) {
    const std::size_t block = std::min<std::size_t>(words, 360);
    words -= block;
    for (std::size_t w = 0; w < block; ++w, i += 2) {
      sum1 += uint32_t(bytes[i]) << 8 | bytes[i + 1];
      sum2 += sum1;
    }
    sum1 = (sum1 & 0xffff) + (sum1 >> 16), sum2 = (sum2 & 0xffff) + (sum2 >> 16);
  }
  if (bytes.size() % 2) {
    sum1 += uint32_t(bytes[i]) << 8;
    sum2 += sum1;
    sum1 = (sum1 & 0xffff) + (sum1 >> 16), sum2 = (sum2 & 0xffff) + (sum2 >> 16);
  }
  sum1 = (sum1 & 0xffff) + (sum1 >> 16), sum2 = (sum2 & 0xffff) + (sum2 >> 16);
  return sum2 << 16 | sum1;
}

// Every stored chunk of `path` in `file`, in chunk order.
std::vector<ChunkBytes> storedChunks(const std::filesystem::path& file, const char* path) {
  h5::File f(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  REQUIRE(f);
  h5::Dataset d(H5Dopen2(f.get(), path, H5P_DEFAULT));
  REQUIRE(d);
  h5::PropertyList dcpl(H5Dget_create_plist(d.get()));
  h5::Dataspace space(H5Dget_space(d.get()));
  const int rank = H5Sget_simple_extent_ndims(space.get());
  std::array<hsize_t, 2> dims{0, 0}, chunk{0, 0};
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  REQUIRE(H5Pget_chunk(dcpl.get(), rank, chunk.data()) == rank);
  std::vector<ChunkBytes> out;
  for (hsize_t row = 0; row < dims[0]; row += chunk[0]) {
    const std::array<hsize_t, 2> offset{row, 0};
    hsize_t size = 0;
    REQUIRE(H5Dget_chunk_storage_size(d.get(), offset.data(), &size) >= 0);
    ChunkBytes c;
    c.bytes.resize(size);
    REQUIRE(H5Dread_chunk(d.get(), H5P_DEFAULT, offset.data(), &c.mask, c.bytes.data()) >= 0);
    out.push_back(std::move(c));
  }
  return out;
}

// Rows per chunk of dataset `path` in `file`.
std::size_t chunkRows(const std::filesystem::path& file, const char* path) {
  h5::File f(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  h5::Dataset d(H5Dopen2(f.get(), path, H5P_DEFAULT));
  REQUIRE(d);
  h5::PropertyList dcpl(H5Dget_create_plist(d.get()));
  h5::Dataspace space(H5Dget_space(d.get()));
  const int rank = H5Sget_simple_extent_ndims(space.get());
  std::array<hsize_t, 2> chunk{0, 0};
  REQUIRE(H5Pget_chunk(dcpl.get(), rank, chunk.data()) == rank);
  return static_cast<std::size_t>(chunk[0]);
}

// The same array through HDF5's own filters: a dataset with the chunk shape, filters and
// element type of `like` (a dataset of `reference_file`), written with H5Dwrite.
void writeWithHdf5(const std::filesystem::path& reference_file, const char* like, const std::filesystem::path& out,
                   const void* data, hid_t memory_type) {
  h5::File ref(H5Fopen(reference_file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  h5::Dataset d(H5Dopen2(ref.get(), like, H5P_DEFAULT));
  REQUIRE(d);
  h5::PropertyList stored(H5Dget_create_plist(d.get()));
  h5::Dataspace space(H5Dget_space(d.get()));
  h5::Datatype type(H5Dget_type(d.get()));
  const int rank = H5Sget_simple_extent_ndims(space.get());
  std::array<hsize_t, 2> chunk{0, 0};
  REQUIRE(H5Pget_chunk(stored.get(), rank, chunk.data()) == rank);
  h5::PropertyList dcpl(H5Pcreate(H5P_DATASET_CREATE));
  REQUIRE(H5Pset_obj_track_times(dcpl.get(), false) >= 0);
  REQUIRE(H5Pset_chunk(dcpl.get(), rank, chunk.data()) >= 0);
  REQUIRE(H5Pset_shuffle(dcpl.get()) >= 0);
  REQUIRE(H5Pset_deflate(dcpl.get(), h5::kDeflateLevel) >= 0);
  REQUIRE(H5Pset_fletcher32(dcpl.get()) >= 0);
  h5::File f(H5Fcreate(out.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
  REQUIRE(f);
  h5::Dataset w(H5Dcreate2(f.get(), like, type.get(), space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT));
  REQUIRE(w);
  REQUIRE(H5Dwrite(w.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
}

template <class T>
void checkAgainstHdf5(const char* label, std::size_t count, std::size_t columns, uint32_t seed) {
  INFO(label << ": " << count << " values, " << columns << " columns");
  TempDir dir;
  const std::vector<T> values = sampleValues<T>(count, seed, false);
  h5::ErrorSilencer silence;
  {
    h5::File f(H5Fcreate((dir / "ours.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    REQUIRE(f);
    const h5::Location root{f.get(), "ours.h5", "/"};
    REQUIRE(h5::writeArray<T>(root, "a", values, columns).ok());
  }
  writeWithHdf5(dir / "ours.h5", "/a", dir / "hdf5.h5", values.data(), nativeType<T>());
  const auto ours = storedChunks(dir / "ours.h5", "/a"), theirs = storedChunks(dir / "hdf5.h5", "/a");
  REQUIRE(ours.size() == theirs.size());
  REQUIRE(ours.size() >= 2);  // several chunks, the last one partial
  // Each stored chunk, taken apart independently: the Fletcher-32 of the deflated bytes, a zlib
  // stream that zlib inflates to exactly one chunk, the shuffled bytes of the chunk's rows (zero
  // past the last row).
  const std::size_t element = sizeof(T);
  const std::size_t chunk_elements = chunkRows(dir / "ours.h5", "/a") * std::max<std::size_t>(columns, 1);
  for (std::size_t i = 0; i < ours.size(); ++i) {
    INFO("chunk " << i);
    CHECK(ours[i].mask == 0);
    CHECK(theirs[i].mask == 0);
    REQUIRE(ours[i].bytes.size() > 4);
    std::vector<unsigned char> deflated(ours[i].bytes.begin(), ours[i].bytes.end() - 4);
    uint32_t stored = 0;
    for (int b = 0; b < 4; ++b) stored |= uint32_t(ours[i].bytes[deflated.size() + std::size_t(b)]) << (8 * b);
    CHECK(stored == fletcher32(deflated));
    std::vector<unsigned char> plain(chunk_elements * element);
    std::vector<unsigned char> inflated(plain.size() + 1);
    uLongf produced = inflated.size();
    REQUIRE(uncompress(inflated.data(), &produced, deflated.data(), uLong(deflated.size())) == Z_OK);
    REQUIRE(produced == plain.size());
    const std::size_t first = i * chunk_elements, rows_here = std::min(chunk_elements, values.size() - first);
    std::memcpy(plain.data(), values.data() + first, rows_here * element);
    bool same = true;
    for (std::size_t e = 0; e < chunk_elements && same; ++e)
      for (std::size_t k = 0; k < element; ++k)
        if (inflated[k * chunk_elements + e] != plain[e * element + k]) same = false;
    CHECK(same);
  }
  // HDF5's own pipeline reads it (checksums verified, inflated, unshuffled) to the same values.
  {
    h5::File f(H5Fopen((dir / "ours.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    h5::Dataset d(H5Dopen2(f.get(), "/a", H5P_DEFAULT));
    REQUIRE(d);
    std::vector<T> reference(values.size());
    REQUIRE(H5Dread(d.get(), nativeType<T>(), H5S_ALL, H5S_ALL, H5P_DEFAULT, reference.data()) >= 0);
    CHECK(reference == values);
  }
  // And Strata's reader reads both files, its own and the one zlib deflated, to the same values.
  for (const char* name : {"ours.h5", "hdf5.h5"}) {
    INFO(name);
    h5::File f(H5Fopen((dir / name).c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    const h5::Location root{f.get(), name, "/"};
    auto read = h5::readArray<T>(root, "a", columns);
    REQUIRE(read.ok());
    CHECK(read->values == values);
  }
}

}  // namespace

TEST_CASE("hdf5 writer: every chunk is one HDF5's own shuffle/deflate/Fletcher-32 pipeline decodes",
          "[formats][hdf5]") {
  // 256 KiB chunks: 65,536 floats or uint32s per chunk; sizes leave a partial last chunk.
  checkAgainstHdf5<float>("float32 1-D", 200'003, 0, 1);
  checkAgainstHdf5<float>("float32 [N, 3]", 3 * 70'001, 3, 2);
  checkAgainstHdf5<uint32_t>("uint32 [N, 8]", 8 * 40'001, 8, 3);
  checkAgainstHdf5<uint8_t>("uint8 1-D (no shuffle effect)", 600'007, 0, 4);
  checkAgainstHdf5<double>("float64 1-D", 70'001, 0, 5);
}

TEST_CASE("hdf5 writer: the Fletcher-32 of odd and even chunk lengths is HDF5's", "[formats][hdf5]") {
  // Random bits barely deflate, so stored chunk lengths are arbitrary, odd ones included; HDF5
  // verifies each checksum when it reads them back.
  TempDir dir;
  h5::ErrorSilencer silence;
  bool odd = false;
  for (uint32_t seed = 10; seed < 16; ++seed) {
    INFO("seed " << seed);
    const std::vector<uint8_t> values = sampleValues<uint8_t>(300'000 + seed * 977, seed, true);
    const std::filesystem::path path = dir / ("noise" + std::to_string(seed) + ".h5");
    {
      h5::File f(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
      const h5::Location root{f.get(), path.string(), "/"};
      REQUIRE(h5::writeArray<uint8_t>(root, "noise", values).ok());
    }
    for (const ChunkBytes& c : storedChunks(path, "/noise")) odd = odd || c.bytes.size() % 2 == 1;
    h5::File f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    const h5::Location root{f.get(), path.string(), "/"};
    auto read = h5::readArray<uint8_t>(root, "noise");
    REQUIRE(read.ok());
    CHECK(read->values == values);
  }
  CHECK(odd);  // over the six arrays some chunk had an odd length
}

TEST_CASE("hdf5 writer: the file is the same on 1 and 2 threads", "[formats][hdf5][determinism]") {
  TempDir dir;
  const std::vector<float> values = sampleValues<float>(900'001, 7, false);
  h5::ErrorSilencer silence;
  for (int threads : {1, 2}) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, std::size_t(threads));
    const std::filesystem::path path = dir / ("t" + std::to_string(threads) + ".h5");
    h5::PropertyList fcpl(H5Pcreate(H5P_FILE_CREATE));
    REQUIRE(H5Pset_obj_track_times(fcpl.get(), false) >= 0);
    h5::File f(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl.get(), H5P_DEFAULT));
    const h5::Location root{f.get(), path.string(), "/"};
    REQUIRE(h5::writeArray<float>(root, "v", values).ok());
  }
  CHECK(test::sameBytes(dir / "t1.h5", dir / "t2.h5"));
}

namespace {

// What h5::readArray reads from float32 dataset "v" of `path`.
std::vector<float> readBack(const std::filesystem::path& path) {
  h5::File f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  const h5::Location root{f.get(), path.string(), "/"};
  auto read = h5::readArray<float>(root, "v");
  REQUIRE(read.ok());
  return read->values;
}

// Writes `values` as float32 dataset "/v" of a new file with the given creation list and file
// type through HDF5 (H5Dwrite), and returns what h5::readArray reads back.
std::vector<float> viaHdf5(const std::filesystem::path& path, hid_t dcpl, hid_t file_type, const std::vector<float>& values) {
  {
    h5::File f(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    REQUIRE(f);
    const hsize_t dims[1] = {values.size()};
    h5::Dataspace space(H5Screate_simple(1, dims, nullptr));
    h5::Dataset d(H5Dcreate2(f.get(), "v", file_type, space.get(), H5P_DEFAULT, dcpl, H5P_DEFAULT));
    REQUIRE(d);
    REQUIRE(H5Dwrite(d.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
  }
  return readBack(path);
}

h5::PropertyList chunkedList(hsize_t rows, bool shuffle, unsigned deflate, bool fletcher) {
  h5::PropertyList dcpl(H5Pcreate(H5P_DATASET_CREATE));
  REQUIRE(H5Pset_chunk(dcpl.get(), 1, &rows) >= 0);
  if (shuffle) REQUIRE(H5Pset_shuffle(dcpl.get()) >= 0);
  if (deflate > 0) REQUIRE(H5Pset_deflate(dcpl.get(), deflate) >= 0);
  if (fletcher) REQUIRE(H5Pset_fletcher32(dcpl.get()) >= 0);
  return dcpl;
}

// A new file `path` holding float32 dataset "v" of `count` values in Strata's layout (chunks of
// `rows`, shuffle + deflate 4 + Fletcher-32), nothing written yet.
struct NewDataset {
  h5::File file;
  h5::Dataset dataset;
};
NewDataset strataLayout(const std::filesystem::path& path, std::size_t count, hsize_t rows) {
  NewDataset out;
  out.file = h5::File(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
  REQUIRE(out.file);
  const hsize_t dims[1] = {count};
  h5::Dataspace space(H5Screate_simple(1, dims, nullptr));
  h5::PropertyList dcpl = chunkedList(rows, true, 4, true);
  out.dataset = h5::Dataset(H5Dcreate2(out.file.get(), "v", H5T_IEEE_F32LE, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT));
  REQUIRE(out.dataset);
  return out;
}

}  // namespace

TEST_CASE("hdf5 reader: arrays stored any other way read as HDF5 reads them", "[formats][hdf5]") {
  TempDir dir;
  h5::ErrorSilencer silence;
  const std::vector<float> values = sampleValues<float>(150'001, 21, false);
  SECTION("contiguous, no filters") {
    h5::PropertyList dcpl(H5Pcreate(H5P_DATASET_CREATE));
    CHECK(viaHdf5(dir / "plain.h5", dcpl.get(), H5T_IEEE_F32LE, values) == values);
  }
  SECTION("deflate alone, level 9") {
    CHECK(viaHdf5(dir / "gzip.h5", chunkedList(40'000, false, 9, false).get(), H5T_IEEE_F32LE, values) == values);
  }
  SECTION("Strata's filters over big-endian floats") {
    CHECK(viaHdf5(dir / "be.h5", chunkedList(40'000, true, 4, true).get(), H5T_IEEE_F32BE, values) == values);
  }
  SECTION("Strata's filters, chunks never written: refused (HDF5 would read its fill value)") {
    const std::filesystem::path path = dir / "hole.h5";
    const hsize_t rows = 40'000;
    {
      const NewDataset d = strataLayout(path, values.size(), rows);
      // Only the first chunk's rows are written: the later chunks are never allocated.
      const hsize_t dims[1] = {values.size()}, start[1] = {0}, count[1] = {rows};
      h5::Dataspace part(H5Screate_simple(1, dims, nullptr));
      REQUIRE(H5Sselect_hyperslab(part.get(), H5S_SELECT_SET, start, nullptr, count, nullptr) >= 0);
      h5::Dataspace memory(H5Screate_simple(1, count, nullptr));
      REQUIRE(H5Dwrite(d.dataset.get(), H5T_NATIVE_FLOAT, memory.get(), part.get(), H5P_DEFAULT, values.data()) >= 0);
    }
    // HDF5 reads the missing chunks as zeros: heights of a world read that way put a 3 m
    // platform and a 6 m pit at ground level (an audit), so the reader refuses them.
    h5::File f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    const h5::Location root{f.get(), path.string(), "/"};
    const auto read = h5::readArray<float>(root, "v");
    REQUIRE_FALSE(read.ok());
    INFO(read.error().message);
    CHECK(read.error().message.find("/v: part of it was never written (1 of its 4 chunks are stored") != std::string::npos);
  }
  SECTION("Strata's filters, some chunks stored without deflate or without shuffle") {
    // HDF5 skips an optional filter that fails on a chunk and marks it in the chunk's filter
    // mask (bit 0 shuffle, bit 1 deflate); the reader must honour the mask per chunk.
    const std::filesystem::path path = dir / "mask.h5";
    const hsize_t rows = 40'000;
    {
      const NewDataset d = strataLayout(path, values.size(), rows);
      for (hsize_t row = 0, index = 0; row < values.size(); row += rows, ++index) {
        // The chunk's bytes (zero past the end), then the filters this chunk keeps.
        std::vector<unsigned char> bytes(rows * 4, 0);
        const std::size_t count = std::min<std::size_t>(rows, values.size() - row);
        std::memcpy(bytes.data(), values.data() + row, count * 4);
        const bool shuffled = index % 2 == 0, deflated = index % 3 != 1;
        if (shuffled) {
          std::vector<unsigned char> out(bytes.size());
          for (std::size_t i = 0; i < rows; ++i)
            for (std::size_t k = 0; k < 4; ++k) out[k * rows + i] = bytes[i * 4 + k];
          bytes.swap(out);
        }
        if (deflated) {
          uLongf size = compressBound(uLong(bytes.size()));
          std::vector<unsigned char> out(size);
          REQUIRE(compress2(out.data(), &size, bytes.data(), uLong(bytes.size()), 4) == Z_OK);
          out.resize(size);
          bytes.swap(out);
        }
        // Fletcher-32 as HDF5 computes it: the reference is HDF5 itself reading the file below
        // through H5Dread (the checksum is verified there too).
        const uint32_t sum = fletcher32(bytes);
        for (int b = 0; b < 4; ++b) bytes.push_back(static_cast<unsigned char>(sum >> (8 * b)));
        const uint32_t mask = (shuffled ? 0u : 1u) | (deflated ? 0u : 2u);
        const hsize_t offset[1] = {row};
        REQUIRE(H5Dwrite_chunk(d.dataset.get(), H5P_DEFAULT, mask, offset, bytes.size(), bytes.data()) >= 0);
      }
    }
    {
      h5::File f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
      h5::Dataset d(H5Dopen2(f.get(), "v", H5P_DEFAULT));
      std::vector<float> reference(values.size());
      REQUIRE(H5Dread(d.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, reference.data()) >= 0);
      CHECK(reference == values);  // HDF5 agrees with how the chunks were built
    }
    CHECK(readBack(path) == values);
  }
}

TEST_CASE("hdf5 reader: a damaged chunk is an error naming the dataset, never other values", "[formats][hdf5]") {
  TempDir dir;
  h5::ErrorSilencer silence;
  const std::vector<uint32_t> values = sampleValues<uint32_t>(300'000, 22, false);
  const std::filesystem::path path = dir / "damaged.h5";
  haddr_t address = 0;
  hsize_t size = 0;
  {
    h5::File f(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    const h5::Location root{f.get(), path.string(), "/"};
    REQUIRE(h5::writeArray<uint32_t>(root, "ids", values).ok());
    h5::Dataset d(H5Dopen2(f.get(), "ids", H5P_DEFAULT));
    const hsize_t third[1] = {2 * h5::kTargetChunkBytes / 4};  // the third chunk
    unsigned mask = 0;
    REQUIRE(H5Dget_chunk_info_by_coord(d.get(), third, &mask, &address, &size) >= 0);
  }
  REQUIRE(size > 16);
  for (const hsize_t at : {hsize_t(2), size / 2, size - 2}) {  // zlib header, payload, checksum
    INFO("byte " << at << " of " << size);
    const std::filesystem::path copy = dir / ("copy" + std::to_string(at) + ".h5");
    std::filesystem::copy_file(path, copy);
    {
      std::fstream file(copy, std::ios::in | std::ios::out | std::ios::binary);
      file.seekg(std::streamoff(address + at));
      const char byte = static_cast<char>(file.get());
      file.seekp(std::streamoff(address + at));
      file.put(static_cast<char>(byte ^ 0x5a));
    }
    h5::File f(H5Fopen(copy.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    const h5::Location root{f.get(), copy.string(), "/"};
    auto read = h5::readArray<uint32_t>(root, "ids");
    REQUIRE_FALSE(read.ok());
    CHECK(read.error().message.find(copy.string() + ": /ids: cannot read data") == 0);
  }
}

TEST_CASE("hdf5 reader: readArrayInto fills the caller's memory exactly as readArray reads", "[formats][hdf5]") {
  TempDir dir;
  h5::ErrorSilencer silence;
  const std::vector<float> values = sampleValues<float>(3 * 90'001, 23, false);
  const std::filesystem::path path = dir / "into.h5";
  {
    h5::File f(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    const h5::Location root{f.get(), path.string(), "/"};
    REQUIRE(h5::writeArray<float>(root, "xyz", values, 3).ok());
  }
  h5::File f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  const h5::Location root{f.get(), path.string(), "/"};
  std::vector<float> into(values.size(), -1.0f);
  REQUIRE(h5::readArrayInto<float>(root, "xyz", 3, 90'001, into).ok());
  CHECK(into == values);
  // A destination of the wrong size, or a row count the file does not have, is an error.
  std::vector<float> short_one(values.size() - 3);
  CHECK_FALSE(h5::readArrayInto<float>(root, "xyz", 3, 90'001, short_one).ok());
  CHECK_FALSE(h5::readArrayInto<float>(root, "xyz", 3, 90'000, short_one).ok());
}
