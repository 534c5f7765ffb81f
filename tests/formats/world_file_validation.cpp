// World file: the reader refuses anything but a valid world with a BadInput error naming the
// file and the dataset. Invalid files are made by writing a good world and patching it with the
// raw HDF5 API.

#include <catch2/catch.hpp>

#include <cstdint>
#include <fstream>
#include <limits>
#include <random>

#include "hdf5_handles.h"
#include "test_support.h"
#include "world_file_fixtures.h"
#include "world_file_internal.h"

using namespace strata;
using strata::test::TempDir;
namespace h5 = strata::formats::h5;

namespace {

// Writes the cube world to `path` and opens it read-write for patching.
h5::File writeAndOpen(const std::filesystem::path& path, const formats::World& world = test::cubeWorld()) {
  REQUIRE(formats::writeWorldFile(path, world).ok());
  h5::File file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
  REQUIRE(file);
  return file;
}

// Replaces dataset `path` with a contiguous one of `type` and `dims`, filled from `data`.
void replaceDataset(hid_t file, const char* path, hid_t type, std::vector<hsize_t> dims, const void* data) {
  REQUIRE(H5Ldelete(file, path, H5P_DEFAULT) >= 0);
  h5::Dataspace space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
  h5::Dataset dataset(H5Dcreate2(file, path, type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  REQUIRE(dataset);
  if (data != nullptr) REQUIRE(H5Dwrite(dataset.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
}

// Overwrites one uint32 element (row, column) of an existing [N, columns] or [N] dataset.
void patchUint32(hid_t file, const char* path, hsize_t row, hsize_t column, std::uint32_t value) {
  h5::Dataset dataset(H5Dopen2(file, path, H5P_DEFAULT));
  REQUIRE(dataset);
  h5::Dataspace space(H5Dget_space(dataset.get()));
  const int rank = H5Sget_simple_extent_ndims(space.get());
  const hsize_t start[2] = {row, column};
  const hsize_t count[2] = {1, 1};
  REQUIRE(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr) >= 0);
  const hsize_t one = 1;
  h5::Dataspace memory(H5Screate_simple(1, &one, nullptr));
  REQUIRE(rank >= 1);
  REQUIRE(H5Dwrite(dataset.get(), H5T_NATIVE_UINT32, memory.get(), space.get(), H5P_DEFAULT, &value) >= 0);
}

std::string readError(const std::filesystem::path& path) {
  auto result = formats::readWorldFile(path);
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().kind == ErrorKind::BadInput);
  CHECK(result.error().message.rfind(path.string() + ": ", 0) == 0);  // names the file first
  CHECK(result.error().message.find('\n') == std::string::npos);
  return result.error().message;
}

void writeBytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

TEST_CASE("world reader: the shared bad HDF5 inputs are refused", "[formats][world_file][validation]") {
  const auto folder = test::sharedData() / "bad-inputs" / "h5";
  for (const char* name : {"random_bytes.h5", "signature_then_garbage.h5", "text_file.h5", "zero_bytes.h5"}) {
    INFO(name);
    const std::string message = readError(folder / name);
    if (std::string(name) == "signature_then_garbage.h5")
      CHECK(message.find("not a readable HDF5 file") != std::string::npos);
    else
      CHECK(message.find("not a Strata world file (HDF5 signature missing)") != std::string::npos);
  }
}

TEST_CASE("world reader: missing files, directories and meshes get plain answers", "[formats][world_file][validation]") {
  TempDir dir;
  CHECK(readError(dir / "absent.h5") == (dir / "absent.h5").string() + ": no such file");
  CHECK(readError(dir.path()).find("is a directory") != std::string::npos);
  writeBytes(dir / "level.obj", "v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3\n");
  CHECK(readError(dir / "level.obj") ==
        (dir / "level.obj").string() +
            ": not a Strata world file (HDF5 signature missing); to import a mesh use strata import");
}

TEST_CASE("world reader: truncated files are refused", "[formats][world_file][validation]") {
  TempDir dir;
  const formats::World world = test::terrainWorld(30);
  REQUIRE(formats::writeWorldFile(dir / "good.h5", world).ok());
  const std::string bytes = test::readFile(dir / "good.h5");
  REQUIRE(bytes.size() > 4096);
  // Every length up to the first KiB (superblock and root group), then sampled cut points.
  std::vector<std::size_t> lengths;
  for (std::size_t n = 1; n < 1024; n += 7) lengths.push_back(n);
  for (std::size_t n = 1024; n < bytes.size(); n += bytes.size() / 61 + 1) lengths.push_back(n);
  lengths.push_back(bytes.size() - 1);
  for (std::size_t length : lengths) {
    INFO("truncated to " << length << " of " << bytes.size() << " bytes");
    writeBytes(dir / "cut.h5", bytes.substr(0, length));
    readError(dir / "cut.h5");
  }
}

TEST_CASE("world reader: bytes appended after the HDF5 data are refused", "[formats][world_file][validation]") {
  // HDF5 ignores bytes past its end of allocation, so a world with garbage appended read as
  // sound (an audit).
  TempDir dir;
  REQUIRE(formats::writeWorldFile(dir / "good.h5", test::cubeWorld()).ok());
  const std::string good = test::readFile(dir / "good.h5");
  REQUIRE(formats::readWorldFile(dir / "good.h5").ok());
  for (const std::size_t extra : {std::size_t(1), std::size_t(7), std::size_t(4096)}) {
    INFO(extra << " bytes appended");
    writeBytes(dir / "long.h5", good + std::string(extra, 'x'));
    const std::string message = readError(dir / "long.h5");
    CHECK(message == (dir / "long.h5").string() + ": " + std::to_string(extra) + " bytes after the end of the HDF5 data at byte " +
                         std::to_string(good.size()) + " (the file was appended to or damaged)");
  }
}

TEST_CASE("world reader: random bytes after a valid prefix are refused", "[formats][world_file][validation]") {
  TempDir dir;
  REQUIRE(formats::writeWorldFile(dir / "good.h5", test::cubeWorld()).ok());
  const std::string good = test::readFile(dir / "good.h5");
  std::mt19937 random(12345);
  for (int trial = 0; trial < 40; ++trial) {
    std::string bytes = good;
    // Keep the signature (and, half the time, the superblock), scramble from a random offset.
    const std::size_t from = trial % 2 == 0 ? 8 : 8 + random() % (bytes.size() - 8);
    for (std::size_t i = from; i < bytes.size(); ++i) bytes[i] = static_cast<char>(random());
    writeBytes(dir / "noise.h5", bytes);
    INFO("trial " << trial << ", scrambled from byte " << from);
    auto result = formats::readWorldFile(dir / "noise.h5");
    if (!result.ok()) CHECK(result.error().kind == ErrorKind::BadInput);
  }
}

TEST_CASE("world reader: single flipped bytes are caught", "[formats][world_file][validation]") {
  // Every structure of the file carries a checksum (superblock v3, object headers v2, fixed-array
  // chunk indexes, Fletcher32 on every chunk), so no single corrupted byte can change what is
  // read: the reader either refuses the file or returns the original world.
  TempDir dir;
  const formats::World world = test::cubeWorld();
  REQUIRE(formats::writeWorldFile(dir / "good.h5", world).ok());
  const std::string good = test::readFile(dir / "good.h5");
  std::size_t refused = 0;
  for (std::size_t i = 0; i < good.size(); i += 2) {
    std::string bytes = good;
    bytes[i] = static_cast<char>(bytes[i] ^ 0x5a);
    auto result = formats::detail::readWorldImage(std::as_bytes(std::span(bytes.data(), bytes.size())), "flip.h5");
    INFO("byte " << i << " flipped");
    if (result.ok()) CHECK(test::sameWorld(world, *result));
    else ++refused;
  }
  CHECK(refused > good.size() / 4);
}

TEST_CASE("world reader: schema_version is checked", "[formats][world_file][validation]") {
  TempDir dir;
  const auto path = dir / "w.h5";
  {
    h5::File file = writeAndOpen(path);
    REQUIRE(H5Adelete(file.get(), "schema_version") >= 0);
    SECTION("missing") {}
    SECTION("another value") {
      h5::Dataspace scalar(H5Screate(H5S_SCALAR));
      h5::Attribute attribute(H5Acreate2(file.get(), "schema_version", H5T_STD_I32LE, scalar.get(), H5P_DEFAULT, H5P_DEFAULT));
      const std::int32_t seven = 7;
      REQUIRE(H5Awrite(attribute.get(), H5T_NATIVE_INT32, &seven) >= 0);
    }
    SECTION("not an integer") {
      h5::Dataspace scalar(H5Screate(H5S_SCALAR));
      h5::Attribute attribute(H5Acreate2(file.get(), "schema_version", H5T_IEEE_F64LE, scalar.get(), H5P_DEFAULT, H5P_DEFAULT));
      const double one = 1.0;
      REQUIRE(H5Awrite(attribute.get(), H5T_NATIVE_DOUBLE, &one) >= 0);
    }
  }
  const std::string message = readError(path);
  CHECK(message.find("schema_version") != std::string::npos);
  if (message.find("missing") != std::string::npos)
    CHECK(message == path.string() + ": not a Strata world file (root attribute schema_version missing)");
}

TEST_CASE("world reader: an unsigned attribute above int64's range is said as the file holds it", "[formats][world_file][validation]") {
  // An audit: read as int64, HDF5 clamped 2^64 - 1 to 2^63 - 1, which the message then named.
  TempDir dir;
  const auto path = dir / "w.h5";
  {
    h5::File file = writeAndOpen(path);
    REQUIRE(H5Adelete(file.get(), "schema_version") >= 0);
    h5::Dataspace scalar(H5Screate(H5S_SCALAR));
    h5::Attribute attribute(H5Acreate2(file.get(), "schema_version", H5T_STD_U64LE, scalar.get(), H5P_DEFAULT, H5P_DEFAULT));
    const std::uint64_t most = std::numeric_limits<std::uint64_t>::max();
    REQUIRE(H5Awrite(attribute.get(), H5T_NATIVE_UINT64, &most) >= 0);
  }
  CHECK(readError(path) ==
        path.string() + ": / attribute schema_version: 18446744073709551615 is out of range (at most 9223372036854775807)");
}

TEST_CASE("world reader: schema_version 4 and 0 name the versions read", "[formats][world_file][validation]") {
  for (const std::int32_t version : {4, 0}) {
    TempDir dir;
    const auto path = dir / "w.h5";
    {
      h5::File file = writeAndOpen(path);
      h5::Attribute attribute(H5Aopen(file.get(), "schema_version", H5P_DEFAULT));
      REQUIRE(H5Awrite(attribute.get(), H5T_NATIVE_INT32, &version) >= 0);
    }
    CHECK(readError(path) == path.string() + ": schema_version " + std::to_string(version) +
                                 " is not supported (this strata reads schema_version 1 to 3)");
  }
}

TEST_CASE("world reader: datasets with the wrong dtype or shape are refused", "[formats][world_file][validation]") {
  TempDir dir;
  const auto path = dir / "w.h5";
  std::string expected;
  {
    h5::File file = writeAndOpen(path);
    SECTION("float64 vertices") {
      std::vector<double> vertices(24, 0.0);
      replaceDataset(file.get(), "/geometry/vertices", H5T_IEEE_F64LE, {8, 3}, vertices.data());
      expected = "/geometry/vertices: expected float32, found float64";
    }
    SECTION("vertices in chunks, one of them never written (HDF5 reads it as zeros)") {
      // An audit left an agent's heights past the fifth of 18 chunks unwritten: HDF5 read them
      // as 0, a 3 m platform and a 6 m pit at ground level, and the world was accepted.
      REQUIRE(H5Ldelete(file.get(), "/geometry/vertices", H5P_DEFAULT) >= 0);
      const hsize_t dims[2] = {8, 3}, chunk[2] = {2, 3};
      h5::Dataspace space(H5Screate_simple(2, dims, nullptr));
      h5::PropertyList dcpl(H5Pcreate(H5P_DATASET_CREATE));
      REQUIRE(H5Pset_chunk(dcpl.get(), 2, chunk) >= 0);
      REQUIRE(H5Pset_deflate(dcpl.get(), 4) >= 0);
      h5::Dataset dataset(H5Dcreate2(file.get(), "/geometry/vertices", H5T_IEEE_F32LE, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT));
      REQUIRE(dataset);
      const std::vector<float> vertices(18, 1.0f);  // rows 0 .. 5: chunks 0 .. 2 of 4
      const hsize_t start[2] = {0, 0}, count[2] = {6, 3};
      REQUIRE(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr) >= 0);
      h5::Dataspace memory(H5Screate_simple(2, count, nullptr));
      REQUIRE(H5Dwrite(dataset.get(), H5T_NATIVE_FLOAT, memory.get(), space.get(), H5P_DEFAULT, vertices.data()) >= 0);
      expected = "/geometry/vertices: part of it was never written (3 of its 4 chunks are stored; the rest would read as the fill value)";
    }
    SECTION("signed triangle indices") {
      std::vector<std::int32_t> triangles(36, 0);
      replaceDataset(file.get(), "/geometry/triangles", H5T_STD_I32LE, {12, 3}, triangles.data());
      expected = "/geometry/triangles: expected uint32, found int32";
    }
    SECTION("vertices of four columns") {
      std::vector<float> vertices(32, 0.0f);
      replaceDataset(file.get(), "/geometry/vertices", H5T_IEEE_F32LE, {8, 4}, vertices.data());
      expected = "/geometry/vertices: expected shape [N, 3], found [8, 4]";
    }
    SECTION("flat vertices") {
      std::vector<float> vertices(24, 0.0f);
      replaceDataset(file.get(), "/geometry/vertices", H5T_IEEE_F32LE, {24}, vertices.data());
      expected = "/geometry/vertices: expected shape [N, 3], found rank 1";
    }
    SECTION("a label id per triangle, minus one") {
      std::vector<std::uint32_t> ids(11, 0);
      replaceDataset(file.get(), "/geometry/label_ids", H5T_STD_U32LE, {11}, ids.data());
      expected = "/geometry/label_ids: has 11 rows, expected 12";
    }
    SECTION("numeric labels") {
      std::vector<std::uint32_t> labels(2, 0);
      replaceDataset(file.get(), "/geometry/labels", H5T_STD_U32LE, {2}, labels.data());
      expected = "/geometry/labels: expected fixed-length string, found uint32";
    }
    SECTION("a missing dataset") {
      REQUIRE(H5Ldelete(file.get(), "/geometry/tag_ids", H5P_DEFAULT) >= 0);
      expected = "/geometry/tag_ids: dataset missing";
    }
    SECTION("a missing group") {
      REQUIRE(H5Ldelete(file.get(), "/metadata", H5P_DEFAULT) >= 0);
      expected = "/metadata: group missing";
    }
    SECTION("a soft link instead of a dataset") {
      REQUIRE(H5Ldelete(file.get(), "/geometry/tags", H5P_DEFAULT) >= 0);
      REQUIRE(H5Lcreate_soft("/geometry/labels", file.get(), "/geometry/tags", H5P_DEFAULT, H5P_DEFAULT) >= 0);
      expected = "/geometry/tags: not a hard link to a dataset";
    }
    SECTION("a huge claimed size with no data behind it") {
      // Edge case: a hostile header must not make the reader allocate 12 GB.
      h5::Dataspace space(H5Screate_simple(2, std::array<hsize_t, 2>{1'000'000'000, 3}.data(), nullptr));
      h5::PropertyList dcpl(H5Pcreate(H5P_DATASET_CREATE));
      REQUIRE(H5Pset_chunk(dcpl.get(), 2, std::array<hsize_t, 2>{1024, 3}.data()) >= 0);
      REQUIRE(H5Ldelete(file.get(), "/geometry/vertices", H5P_DEFAULT) >= 0);
      h5::Dataset dataset(H5Dcreate2(file.get(), "/geometry/vertices", H5T_IEEE_F32LE, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT));
      REQUIRE(dataset);
      expected = "/geometry/vertices: claims 3000000000 elements but the file stores only 0 bytes for it";
    }
  }
  CHECK(readError(path) == path.string() + ": " + expected);
}

TEST_CASE("world reader: out-of-range values are refused with their row", "[formats][world_file][validation]") {
  TempDir dir;
  const auto path = dir / "w.h5";
  std::string expected;
  {
    h5::File file = writeAndOpen(path);
    SECTION("a triangle index past the vertices") {
      patchUint32(file.get(), "/geometry/triangles", 5, 2, 8);
      expected = "/geometry/triangles: triangle 5: index 8 out of range (8 vertices)";
    }
    SECTION("a label id past the label table") {
      patchUint32(file.get(), "/geometry/label_ids", 11, 0, 2);
      expected = "/geometry/label_ids: triangle 11: id 2 out of range (2 labels)";
    }
    SECTION("a tag id past the tag table") {
      patchUint32(file.get(), "/geometry/tag_ids", 0, 0, 4000000000u);
      expected = "/geometry/tag_ids: triangle 0: id 4000000000 out of range (1 tags)";
    }
    SECTION("a NaN vertex") {
      std::vector<float> vertices(24, 1.0f);
      vertices[3 * 6 + 1] = std::numeric_limits<float>::quiet_NaN();
      replaceDataset(file.get(), "/geometry/vertices", H5T_IEEE_F32LE, {8, 3}, vertices.data());
      expected = "/geometry/vertices: vertex 6 is not finite";
    }
    SECTION("a label with a NUL byte inside (read cut short, it would rename the label unseen)") {
      h5::Datatype type(H5Tcopy(H5T_C_S1));
      REQUIRE(H5Tset_size(type.get(), 8) >= 0);
      REQUIRE(H5Tset_strpad(type.get(), H5T_STR_NULLPAD) >= 0);
      const char labels[16] = {'f', 'l', 'o', 'o', 'r', 0, 0, 0, 'w', 0, 'a', 'l', 'l', 0, 0, 0};
      replaceDataset(file.get(), "/geometry/labels", type.get(), {2}, labels);
      expected = "/geometry/labels: entry 1 contains a NUL byte";
    }
    SECTION("a vertex beyond the world bound") {
      std::vector<float> vertices(24, 1.0f);
      vertices[3 * 2 + 2] = -2.0e6f;
      replaceDataset(file.get(), "/geometry/vertices", H5T_IEEE_F32LE, {8, 3}, vertices.data());
      expected = "/geometry/vertices: vertex 2 lies beyond the world bound of 1e6 m";
    }
  }
  CHECK(readError(path) == path.string() + ": " + expected);
}

TEST_CASE("world reader: in-memory images read like files", "[formats][world_file][validation]") {
  TempDir dir;
  const formats::World world = test::cubeWorld();
  REQUIRE(formats::writeWorldFile(dir / "w.h5", world).ok());
  const std::string bytes = test::readFile(dir / "w.h5");
  auto image = formats::detail::readWorldImage(std::as_bytes(std::span(bytes.data(), bytes.size())), "memory.h5");
  REQUIRE(image.ok());
  CHECK(test::sameWorld(world, *image));
  auto cut = formats::detail::readWorldImage(std::as_bytes(std::span(bytes.data(), bytes.size() / 2)), "memory.h5");
  REQUIRE_FALSE(cut.ok());
  CHECK(cut.error().message.rfind("memory.h5: ", 0) == 0);
  auto empty = formats::detail::readWorldImage({}, "memory.h5");
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.error().message.find("empty file") != std::string::npos);
}

TEST_CASE("world reader and writer: import options nested too deeply are refused", "[formats][world_file][validation]") {
  // strata info parses the import options; a value of 50,000 nested brackets, edited in,
  // overflowed its stack (a hunt). A reader refuses more than 64 levels, as the writer does.
  TempDir dir;
  // Objects in objects (the options are one object): {"a":{"a":...{}}}, `depth` levels.
  auto nested = [](std::size_t depth) {
    std::string text;
    for (std::size_t i = 1; i < depth; ++i) text += R"({"a":)";
    return text + "{}" + std::string(depth - 1, '}');
  };
  formats::World world = test::cubeWorld();
  world.provenance.import_options_json = nested(64);
  REQUIRE(formats::writeWorldFile(dir / "deep64.h5", world).ok());
  REQUIRE(formats::readWorldFile(dir / "deep64.h5").ok());
  world.provenance.import_options_json = nested(65);
  auto refused = formats::writeWorldFile(dir / "deep65.h5", world);
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.error().message, Catch::Contains("nested more than 64 arrays or objects deep"));
  // Brackets inside strings do not count.
  world.provenance.import_options_json = R"({"up": ")" + std::string(100, '[') + R"("})";
  CHECK(formats::writeWorldFile(dir / "strings.h5", world).ok());
  // One object: strata info printed an edited 5 or [1,2] as the options (documented an object).
  for (const char* not_object : {"5", "[1,2]", R"("x")", "null"}) {
    INFO(not_object);
    world.provenance.import_options_json = not_object;
    auto written = formats::writeWorldFile(dir / "scalar.h5", world);
    REQUIRE_FALSE(written.ok());
    CHECK_THAT(written.error().message, Catch::Contains("not a JSON object"));
  }

  const auto path = dir / "w.h5";
  {
    h5::File file = writeAndOpen(path);
    h5::Group metadata(H5Gopen2(file.get(), "metadata", H5P_DEFAULT));
    REQUIRE(metadata);
    REQUIRE(H5Adelete(metadata.get(), "import_options_json") >= 0);
    const std::string deep = nested(50000);
    h5::Datatype type(H5Tcopy(H5T_C_S1));
    REQUIRE(H5Tset_size(type.get(), deep.size()) >= 0);
    REQUIRE(H5Tset_strpad(type.get(), H5T_STR_NULLPAD) >= 0);
    REQUIRE(H5Tset_cset(type.get(), H5T_CSET_UTF8) >= 0);
    h5::Dataspace scalar(H5Screate(H5S_SCALAR));
    h5::Attribute attribute(H5Acreate2(metadata.get(), "import_options_json", type.get(), scalar.get(), H5P_DEFAULT, H5P_DEFAULT));
    REQUIRE(attribute);
    REQUIRE(H5Awrite(attribute.get(), type.get(), deep.data()) >= 0);
  }
  CHECK_THAT(readError(path), Catch::Contains("import_options_json: nested more than 64 arrays or objects deep"));
}
