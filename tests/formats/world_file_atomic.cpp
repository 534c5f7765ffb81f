// World file: atomic replacement. A failed or killed writer never leaves a partial file at the
// target path and never damages an existing good one.

#include <catch2/catch.hpp>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "test_support.h"
#include "world_file_fixtures.h"
#include "strata/formats/output_file.h"
#include "world_file_internal.h"

using namespace strata;
using strata::test::TempDir;

namespace {

// Files in `dir` that are writeWorldFile temporaries for `target_name`.
std::vector<std::filesystem::path> temporaries(const std::filesystem::path& dir, const std::string& target_name) {
  std::vector<std::filesystem::path> found;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (formats::isTemporaryNameFor(entry.path().filename().string(), target_name)) found.push_back(entry.path());
  return found;
}

}  // namespace

TEST_CASE("world file: temporary names sit beside the target and are unique", "[formats][world_file][atomic]") {
  const auto a = formats::temporaryPathFor("/data/out/world.h5");
  const auto b = formats::temporaryPathFor("/data/out/world.h5");
  CHECK(a.parent_path() == "/data/out");
  CHECK(a != b);
  CHECK(formats::isTemporaryNameFor(a.filename().string(), "world.h5"));
  CHECK_FALSE(formats::isTemporaryNameFor("world.h5", "world.h5"));
  CHECK(formats::temporaryPathFor("w.h5").parent_path().empty());
}

TEST_CASE("world file: writing into a missing directory fails clearly", "[formats][world_file][atomic]") {
  TempDir dir;
  const auto target = dir / "no-such-dir" / "w.h5";
  const Status status = formats::writeWorldFile(target, test::cubeWorld());
  REQUIRE_FALSE(status.ok());
  CHECK(status.error().kind == ErrorKind::BadInput);
  CHECK(status.error().message == target.string() + ": the output directory '" + (dir / "no-such-dir").string() +
                                      "' does not exist");
  CHECK_FALSE(std::filesystem::exists(target));
}

TEST_CASE("world file: a rewrite replaces the old file whole", "[formats][world_file][atomic]") {
  TempDir dir;
  REQUIRE(formats::writeWorldFile(dir / "w.h5", test::cubeWorld()).ok());
  const formats::World second = test::terrainWorld(20);
  REQUIRE(formats::writeWorldFile(dir / "w.h5", second).ok());
  auto read = formats::readWorldFile(dir / "w.h5");
  REQUIRE(read.ok());
  CHECK(test::sameWorld(second, *read));
  CHECK(temporaries(dir.path(), "w.h5").empty());
}

TEST_CASE("world file: a failed write keeps the old file and removes its temporary", "[formats][world_file][atomic]") {
  TempDir dir;
  const auto target = dir / "w.h5";
  REQUIRE(formats::writeWorldFile(target, test::cubeWorld()).ok());
  const std::string before = test::readFile(target);

  SECTION("invalid geometry is refused before anything is written") {
    formats::World bad = test::cubeWorld();
    bad.geometry.triangles[3][1] = 99;  // edge case: index past the 8 vertices
    const Status status = formats::writeWorldFile(target, bad);
    REQUIRE_FALSE(status.ok());
    CHECK(status.error().message == target.string() + ": cannot write world: triangle 3: index 99 out of range (8 vertices)");
  }
  SECTION("a failure half-way through the HDF5 writing") {
    // The NUL byte is only detected when the tag table is written, after the vertices.
    formats::World bad = test::cubeWorld();
    bad.geometry.tags[0] = std::string("a\0b", 3);
    const Status status = formats::writeWorldFile(target, bad);
    REQUIRE_FALSE(status.ok());
    CHECK(status.error().message.find("/geometry/tags: entry 0 contains a NUL byte") != std::string::npos);
  }
  SECTION("a bad provenance record") {
    formats::World bad = test::cubeWorld();
    bad.provenance.inputs[0].sha256 = "not-a-hash";
    CHECK_FALSE(formats::writeWorldFile(target, bad).ok());
  }
  CHECK(test::readFile(target) == before);
  CHECK(temporaries(dir.path(), "w.h5").empty());
}

TEST_CASE("world file: a writer killed mid-write leaves the old file intact", "[formats][world_file][atomic]") {
  TempDir dir;
  const auto target = dir / "w.h5";
  const formats::World old_world = test::cubeWorld();
  REQUIRE(formats::writeWorldFile(target, old_world).ok());
  const std::string before = test::readFile(target);

  // The child writes a large world (several seconds of deflate); we kill it as soon as its
  // temporary file appears, i.e. while HDF5 is writing.
  const formats::World big = test::terrainWorld(1500);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) _exit(formats::writeWorldFile(target, big).ok() ? 0 : 1);
  bool seen_temporary = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!seen_temporary && std::chrono::steady_clock::now() < deadline) {
    seen_temporary = !temporaries(dir.path(), "w.h5").empty();
    if (!seen_temporary) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // let it write some data
  kill(child, SIGKILL);
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(seen_temporary);
  REQUIRE(WIFSIGNALED(status));  // it really was interrupted, not finished

  CHECK(test::readFile(target) == before);
  auto read = formats::readWorldFile(target);
  REQUIRE(read.ok());
  CHECK(test::sameWorld(old_world, *read));
}
