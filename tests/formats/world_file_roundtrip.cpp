// World file: round trips, reproducible bytes, and readability by outside HDF5 tools.

#include <catch2/catch.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "hdf5_handles.h"
#include "test_support.h"
#include "world_file_fixtures.h"

using namespace strata;
using strata::test::TempDir;

TEST_CASE("world file: a cube round-trips exactly", "[formats][world_file]") {
  TempDir dir;
  const formats::World world = test::cubeWorld();
  REQUIRE(formats::writeWorldFile(dir / "cube.h5", world).ok());
  auto read = formats::readWorldFile(dir / "cube.h5");
  REQUIRE(read.ok());
  CHECK(test::sameWorld(world, *read));
}

TEST_CASE("world file: an empty world round-trips (zero-row datasets)", "[formats][world_file]") {
  // Edge case: HDF5 cannot chunk a fixed dimension of size 0, so empty arrays take another path.
  TempDir dir;
  formats::World world;
  REQUIRE(formats::writeWorldFile(dir / "empty.h5", world).ok());
  auto read = formats::readWorldFile(dir / "empty.h5");
  REQUIRE(read.ok());
  CHECK(test::sameWorld(world, *read));
  CHECK(read->geometry.bounds().empty());
}

TEST_CASE("world file: labels and tags of unusual lengths survive", "[formats][world_file]") {
  // Edge cases: an empty label, multi-byte UTF-8, one long tag widening the fixed-length table.
  TempDir dir;
  formats::World world = test::cubeWorld();
  world.geometry.labels = {"", "\xC3\xA9tage/b\xC3\xA9ton"};
  world.geometry.tags = {std::string(3000, 'x') + "/end"};
  world.provenance.tool_version = "";
  world.provenance.import_options_json = "";
  REQUIRE(formats::writeWorldFile(dir / "w.h5", world).ok());
  auto read = formats::readWorldFile(dir / "w.h5");
  REQUIRE(read.ok());
  CHECK(test::sameWorld(world, *read));
}

TEST_CASE("world file: a multi-chunk world round-trips", "[formats][world_file]") {
  // 160k vertices (1.9 MB) and 317k triangles span several 256 KiB chunks per dataset.
  TempDir dir;
  const formats::World world = test::terrainWorld(400);
  REQUIRE(formats::writeWorldFile(dir / "terrain.h5", world).ok());
  auto read = formats::readWorldFile(dir / "terrain.h5");
  REQUIRE(read.ok());
  CHECK(test::sameWorld(world, *read));
  // Compression works: the file is well below the raw size of the arrays.
  const auto raw = world.geometry.vertices.size() * 12 + world.geometry.triangles.size() * 20;
  CHECK(std::filesystem::file_size(dir / "terrain.h5") < raw);
}

TEST_CASE("world file: identical worlds give byte-identical files", "[formats][world_file][determinism]") {
  TempDir dir;
  const formats::World world = test::terrainWorld(60);
  REQUIRE(formats::writeWorldFile(dir / "a.h5", world).ok());
  // Over a second later, so a stored timestamp would show, and from another process, so
  // uninitialised memory copied into the file would likely differ.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) _exit(formats::writeWorldFile(dir / "b.h5", world).ok() ? 0 : 1);
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  REQUIRE(formats::writeWorldFile(dir / "c.h5", world).ok());
  CHECK(test::sameBytes(dir / "a.h5", dir / "b.h5"));
  CHECK(test::sameBytes(dir / "a.h5", dir / "c.h5"));
  // A different world gives a different file (the comparison can fail).
  formats::World other = world;
  other.geometry.vertices[7].y += 0.5f;
  REQUIRE(formats::writeWorldFile(dir / "d.h5", other).ok());
  CHECK_FALSE(test::sameBytes(dir / "a.h5", dir / "d.h5"));
}

TEST_CASE("world file: every dataset is chunked, shuffled, deflated and checksummed", "[formats][world_file]") {
  TempDir dir;
  REQUIRE(formats::writeWorldFile(dir / "cube.h5", test::cubeWorld()).ok());
  formats::h5::ErrorSilencer silence;
  formats::h5::File file(H5Fopen((dir / "cube.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  REQUIRE(file);
  for (const char* path : {"/geometry/vertices", "/geometry/triangles", "/geometry/label_ids", "/geometry/labels",
                           "/geometry/tag_ids", "/geometry/tags", "/metadata/input_paths", "/metadata/input_sha256",
                           "/metadata/input_bytes"}) {
    INFO(path);
    formats::h5::Dataset dataset(H5Dopen2(file.get(), path, H5P_DEFAULT));
    REQUIRE(dataset);
    formats::h5::PropertyList dcpl(H5Dget_create_plist(dataset.get()));
    CHECK(H5Pget_layout(dcpl.get()) == H5D_CHUNKED);
    REQUIRE(H5Pget_nfilters(dcpl.get()) == 3);
    const auto filter = [&](unsigned index) {
      unsigned flags = 0;
      std::size_t count = 0;  // no client data wanted
      return H5Pget_filter2(dcpl.get(), index, &flags, &count, nullptr, 0, nullptr, nullptr);
    };
    CHECK(filter(0) == H5Z_FILTER_SHUFFLE);
    CHECK(filter(1) == H5Z_FILTER_DEFLATE);
    CHECK(filter(2) == H5Z_FILTER_FLETCHER32);
    hbool_t track_times = true;
    CHECK(H5Pget_obj_track_times(dcpl.get(), &track_times) >= 0);
    CHECK_FALSE(track_times);
  }
}

TEST_CASE("world file: h5dump (and h5py when installed) read it", "[formats][world_file][interop]") {
  TempDir dir;
  const auto path = dir / "cube.h5";
  REQUIRE(formats::writeWorldFile(path, test::cubeWorld()).ok());

  const auto header = test::runProgram({"h5dump", "-H", path.string()});
  REQUIRE(header.exit_code == 0);
  for (const char* expected :
       {"ATTRIBUTE \"schema_version\"", "GROUP \"metadata\"", "GROUP \"geometry\"", "DATASET \"vertices\"",
        "H5T_IEEE_F32LE", "DATASET \"triangles\"", "H5T_STD_U32LE", "DATASET \"label_ids\"", "DATASET \"labels\"",
        "DATASET \"tag_ids\"", "DATASET \"tags\"", "DATASET \"input_sha256\"", "DATASET \"input_bytes\"",
        "ATTRIBUTE \"tool_version\"", "ATTRIBUTE \"import_options_json\"", "( 8, 3 )", "( 12, 3 )", "( 12 )"}) {
    INFO(expected);
    CHECK(header.out.find(expected) != std::string::npos);
  }
  const auto labels = test::runProgram({"h5dump", "-d", "/geometry/labels", path.string()});
  REQUIRE(labels.exit_code == 0);
  CHECK(labels.out.find("\"floor\"") != std::string::npos);
  CHECK(labels.out.find("\"wall") != std::string::npos);  // null-padded: "wall\000"

  // h5py: PATH's python3 first, then the system one (where the Debian package installs it).
  std::string python;
  for (const char* candidate : {"python3", "/usr/bin/python3"})
    if (python.empty() && test::runProgram({candidate, "-c", "import h5py"}).exit_code == 0) python = candidate;
  if (python.empty()) {
    WARN("no python3 with h5py: skipping the h5py half of this test");
    return;
  }
  const auto py = test::runProgram(
      {python, "-c",
       "import sys, h5py\n"
       "f = h5py.File(sys.argv[1], 'r')\n"
       "v = f['geometry/vertices'][...]\n"
       "t = f['geometry/triangles'][...]\n"
       "print(int(f.attrs['schema_version']), v.shape, v.dtype, t.shape, t.dtype, float(v[:,1].max()))\n",
       path.string()});
  INFO(py.err);
  REQUIRE(py.exit_code == 0);
  CHECK(py.out == "3 (8, 3) float32 (12, 3) uint32 2.0\n");

  // The example of docs/format.md runs as written.
  const std::string doc = test::readFile(test::sourceDir() / "docs" / "format.md");
  const auto begin = doc.find("```python\n", doc.find("## Reading a world with h5py"));
  REQUIRE(begin != std::string::npos);
  const auto end = doc.find("```", begin + 10);
  std::string example = doc.substr(begin + 10, end - begin - 10);
  const auto name = example.find("\"level.h5\"");
  REQUIRE(name != std::string::npos);
  example.replace(name, 10, "sys.argv[1]");
  const auto run = test::runProgram({python, "-c", "import sys\n" + example, path.string()});
  INFO(run.err);
  CHECK(run.exit_code == 0);
  CHECK(run.out.rfind("8 vertices, 12 triangles, bounds", 0) == 0);
}
