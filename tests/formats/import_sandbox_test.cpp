// The sandbox (crash, timeout, memory limit, exit status) and the reply framing the parent
// decodes from the untrusted child.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <thread>

#include "import_framing.h"
#include "import_sandbox.h"
#include "strata/formats/machine_memory.h"
#include "test_support.h"

using namespace strata::formats;
using strata::ErrorKind;
using strata::Result;

namespace {

SceneGeometry sampleScene() {
  SceneGeometry scene;
  scene.meshes = 2;
  scene.non_triangles_dropped = 1;
  scene.warnings = {"material 'x' is not defined"};
  scene.mesh.vertices = {{0, 0, 0}, {1, 0, 0}, {0, 0, 1}, {1, 0, 1}};
  scene.mesh.triangles = {{0, 2, 1}, {1, 2, 3}};
  scene.mesh.labels = {"Grass", "Stone"};
  scene.mesh.tags = {"level/Floor"};
  scene.mesh.triangle_labels = {0, 1};
  scene.mesh.triangle_tags = {0, 0};
  return scene;
}

}  // namespace

TEST_CASE("sandbox returns the child's bytes", "[formats][import][sandbox]") {
  auto reply = runSandboxed([] { return std::vector<std::uint8_t>{1, 2, 3}; }, {});
  REQUIRE(reply.ok());
  CHECK(reply.value() == std::vector<std::uint8_t>{1, 2, 3});
  // A reply larger than the pipe buffer arrives whole.
  auto big = runSandboxed([] { return std::vector<std::uint8_t>(5'000'000, 7); }, {});
  REQUIRE(big.ok());
  CHECK(big->size() == 5'000'000);
}

TEST_CASE("sandbox turns a crash into a BadInput error naming the signal", "[formats][import][sandbox]") {
  auto reply = runSandboxed(
      []() -> std::vector<std::uint8_t> {
        raise(SIGSEGV);
        return {};
      },
      {});
  REQUIRE_FALSE(reply.ok());
  CHECK(reply.error().kind == ErrorKind::BadInput);
  CHECK_THAT(reply.error().message, Catch::Contains("the importer crashed (signal 11"));
}

TEST_CASE("sandbox kills a child that outlives the wall-clock timeout", "[formats][import][sandbox]") {
  SandboxLimits limits;
  limits.timeout_seconds = 0.3;
  const auto start = std::chrono::steady_clock::now();
  auto reply = runSandboxed(
      [] {
        std::this_thread::sleep_for(std::chrono::seconds(30));
        return std::vector<std::uint8_t>{};
      },
      limits);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE_FALSE(reply.ok());
  CHECK_THAT(reply.error().message, Catch::Contains("timed out after 0.3 s"));
  CHECK(seconds < 5.0);
}

TEST_CASE("sandbox reports a child that closes its output and then hangs as timed out", "[formats][import][sandbox]") {
  SandboxLimits limits;
  limits.timeout_seconds = 0.3;
  auto reply = runSandboxed(
      [] {
        for (int fd = 3; fd < 256; ++fd) close(fd);  // closes the pipe: the parent sees EOF
        std::this_thread::sleep_for(std::chrono::seconds(30));
        return std::vector<std::uint8_t>{};
      },
      limits);
  REQUIRE_FALSE(reply.ok());
  CHECK_THAT(reply.error().message, Catch::Contains("timed out"));
}

#if !defined(STRATA_SHADOW_SANITIZER)
namespace {
// A child's work that allocates `bytes`, every byte written, and replies with 4 of them.
std::function<std::vector<std::uint8_t>()> allocating(std::size_t bytes) {
  return [bytes] {
    std::vector<std::uint8_t> block(bytes, 1);
    return std::vector<std::uint8_t>(block.begin(), block.begin() + 4);
  };
}

}  // namespace

TEST_CASE("sandbox memory limit turns a huge allocation into an error", "[formats][import][sandbox]") {
  SandboxLimits limits;
  limits.memory_limit_mib = 512;
  auto reply = runSandboxed(allocating(std::size_t{8} << 30), limits);  // 8 GiB
  REQUIRE_FALSE(reply.ok());
  CHECK_THAT(reply.error().message, Catch::Contains("ran out of memory (limit 512 MiB; strata import --memory-limit raises it"));
}

TEST_CASE("sandbox memory limit counts what the parse adds to the parent's address space", "[formats][import][sandbox]") {
  // A process embedding the library may map far more than the limit: that must neither fail
  // every import (the limit was the child's whole address space) nor lift the limit.
  const std::size_t parent_bytes = std::size_t{2} << 30;  // 2 GiB mapped, never touched
  void* parent_map = mmap(nullptr, parent_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  REQUIRE(parent_map != MAP_FAILED);
  SandboxLimits limits;
  limits.memory_limit_mib = 128;
  auto fits = runSandboxed(allocating(std::size_t{64} << 20), limits);  // 64 MiB under a 128 MiB limit
  INFO((fits.ok() ? std::string("ok") : fits.error().message));
  CHECK(fits.ok());
  auto too_big = runSandboxed(allocating(std::size_t{512} << 20), limits);  // 512 MiB over it
  munmap(parent_map, parent_bytes);
  REQUIRE_FALSE(too_big.ok());
  CHECK_THAT(too_big.error().message, Catch::Contains("ran out of memory (limit 128 MiB"));
}

TEST_CASE("sandbox names the process's own address-space limit when that is the lower one", "[formats][import][sandbox]") {
  // An audit: under `ulimit -v` 60 MB a bake's import said "ran out of memory (limit 4096 MiB;
  // strata import --memory-limit raises it ...)", a limit it never reached and an option that
  // could not help. In a child process (the limit stays there): 256 MiB over what it maps.
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const std::uint64_t mapped = mappedAddressSpace();
    if (mapped == 0) _exit(10);
    rlimit limit{};
    limit.rlim_cur = limit.rlim_max = static_cast<rlim_t>(mapped + (std::size_t{256} << 20));
    if (setrlimit(RLIMIT_AS, &limit) != 0) _exit(11);
    SandboxLimits limits;
    limits.memory_limit_mib = 4096;
    auto reply = runSandboxed(allocating(std::size_t{1} << 30), limits);  // 1 GiB
    if (reply.ok()) _exit(12);
    const std::string& message = reply.error().message;
    if (message.find("ran out of memory under this process's address-space limit of ") == std::string::npos) _exit(13);
    if (message.find(" MiB (ulimit -v), lower than the importer's own 4096 MiB") == std::string::npos) _exit(14);
    _exit(0);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}
#endif

TEST_CASE("sandbox reports a non-zero exit status", "[formats][import][sandbox]") {
  auto reply = runSandboxed(
      []() -> std::vector<std::uint8_t> { _exit(7); }, {});
  REQUIRE_FALSE(reply.ok());
  CHECK_THAT(reply.error().message, Catch::Contains("exit status 7"));
}

TEST_CASE("reply framing round-trips geometry and errors", "[formats][import][framing]") {
  const SceneGeometry scene = sampleScene();
  auto decoded = decodeSceneReply(encodeSceneReply(Result<SceneGeometry>(scene)));
  REQUIRE(decoded.ok());
  CHECK(decoded->meshes == 2);
  CHECK(decoded->non_triangles_dropped == 1);
  CHECK(decoded->warnings == scene.warnings);
  CHECK(decoded->mesh.vertices == scene.mesh.vertices);
  CHECK(decoded->mesh.triangles == scene.mesh.triangles);
  CHECK(decoded->mesh.labels == scene.mesh.labels);
  CHECK(decoded->mesh.tags == scene.mesh.tags);
  CHECK(decoded->mesh.triangle_labels == scene.mesh.triangle_labels);

  auto error = decodeSceneReply(encodeSceneReply(Result<SceneGeometry>(strata::Error::badInput("a.obj: vertex is NaN"))));
  REQUIRE_FALSE(error.ok());
  CHECK(error.error().kind == ErrorKind::BadInput);
  CHECK(error.error().message == "a.obj: vertex is NaN");

  // An error reply with an empty message (found by fuzz_import_precheck) still says something.
  auto empty = decodeSceneReply(encodeSceneReply(Result<SceneGeometry>(strata::Error::runtime(""))));
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.error().kind == ErrorKind::Runtime);
  CHECK_FALSE(empty.error().message.empty());
}

TEST_CASE("reply framing rejects every truncation and corruption without crashing", "[formats][import][framing]") {
  const std::vector<std::uint8_t> good = encodeSceneReply(Result<SceneGeometry>(sampleScene()));
  // Every strict prefix is malformed.
  for (std::size_t n = 0; n < good.size(); ++n) {
    auto decoded = decodeSceneReply(std::span<const std::uint8_t>(good.data(), n));
    REQUIRE_FALSE(decoded.ok());
    CHECK_THAT(decoded.error().message, Catch::StartsWith("malformed reply from the importer process"));
  }
  // Trailing garbage.
  auto longer = good;
  longer.push_back(0);
  CHECK_FALSE(decodeSceneReply(longer).ok());
  // Every single-byte corruption either decodes to a mesh that still validates or is an error.
  for (std::size_t i = 0; i < good.size(); ++i) {
    auto corrupt = good;
    corrupt[i] ^= 0xFF;
    auto decoded = decodeSceneReply(corrupt);
    if (decoded.ok()) CHECK(decoded->mesh.validate().empty());
  }
  // An index out of range and a NaN coordinate are caught by the re-validation.
  SceneGeometry bad_index = sampleScene();
  bad_index.mesh.triangles[1][2] = 99;
  CHECK_THAT(decodeSceneReply(encodeSceneReply(Result<SceneGeometry>(bad_index))).error().message,
             Catch::Contains("index 99 out of range"));
  SceneGeometry bad_vertex = sampleScene();
  bad_vertex.mesh.vertices[0].x = std::numeric_limits<float>::quiet_NaN();
  CHECK_THAT(decodeSceneReply(encodeSceneReply(Result<SceneGeometry>(bad_vertex))).error().message,
             Catch::Contains("not finite"));
  SceneGeometry bad_label = sampleScene();
  bad_label.mesh.triangle_labels[0] = 5;
  CHECK_FALSE(decodeSceneReply(encodeSceneReply(Result<SceneGeometry>(bad_label))).ok());
}
