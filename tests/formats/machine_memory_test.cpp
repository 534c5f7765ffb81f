// Usable memory (machine_memory.h): control-group memory limits read from a fake /sys/fs/cgroup
// tree, v1 and v2, on the group and its ancestors; the address space left under RLIMIT_AS;
// usableMemoryBytes on this machine.

#include <catch2/catch.hpp>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "strata/formats/machine_memory.h"
#include "test_support.h"

using namespace strata;
using strata::test::TempDir;

namespace {

void put(const std::filesystem::path& file, const char* text) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

}  // namespace

TEST_CASE("cgroup memory limits: v2, v1, ancestors, none", "[formats][memory]") {
  TempDir dir;
  const std::filesystem::path root = dir / "cgroup";
  SECTION("v2: the group's memory.max, the lowest up the tree") {
    put(root / "job" / "step" / "memory.max", "max\n");
    put(root / "job" / "memory.max", "4294967296\n");
    CHECK(formats::cgroupMemoryLimit("0::/job/step\n", root) == 4294967296u);
    put(root / "job" / "step" / "memory.max", "1073741824\n");
    CHECK(formats::cgroupMemoryLimit("0::/job/step\n", root) == 1073741824u);
  }
  SECTION("v2: no limit anywhere") {
    put(root / "job" / "memory.max", "max\n");
    CHECK(formats::cgroupMemoryLimit("0::/job\n", root) == 0);
    CHECK(formats::cgroupMemoryLimit("0::/\n", root) == 0);  // the root has no memory.max
  }
  SECTION("v2 in a cgroup namespace: the group is '/', its limit at the root") {
    put(root / "memory.max", "2147483648\n");
    CHECK(formats::cgroupMemoryLimit("0::/\n", root) == 2147483648u);
  }
  SECTION("v1: the memory controller's line, its limit_in_bytes, 2^63 as none") {
    const char* groups = "9:name=systemd:/\n7:cpu,cpuacct:/x\n4:memory:/docker/abc\n0::/\n";
    put(root / "memory" / "docker" / "abc" / "memory.limit_in_bytes", "9223372036854771712\n");
    CHECK(formats::cgroupMemoryLimit(groups, root) == 0);
    put(root / "memory" / "docker" / "memory.limit_in_bytes", "536870912\n");
    CHECK(formats::cgroupMemoryLimit(groups, root) == 536870912u);
    // A controller listed with others.
    CHECK(formats::cgroupMemoryLimit("3:cpuset,memory:/docker/abc\n", root) == 536870912u);
  }
  SECTION("v1 without a cgroup namespace: the group's path is not under the mount, its limit at the mount's root") {
    put(root / "memory" / "memory.limit_in_bytes", "3221225472\n");
    CHECK(formats::cgroupMemoryLimit("4:memory:/docker/0123\n", root) == 3221225472u);
  }
  SECTION("hybrid: v1 and v2 both limit; the lower wins") {
    put(root / "memory" / "a" / "memory.limit_in_bytes", "800\n");
    put(root / "a" / "memory.max", "700\n");
    CHECK(formats::cgroupMemoryLimit("4:memory:/a\n0::/a\n", root) == 700u);
  }
  SECTION("malformed values and text are no limit") {
    put(root / "a" / "memory.max", "12 MB\n");
    CHECK(formats::cgroupMemoryLimit("0::/a\n", root) == 0);
    put(root / "a" / "memory.max", "0\n");
    CHECK(formats::cgroupMemoryLimit("0::/a\n", root) == 0);
    CHECK(formats::cgroupMemoryLimit("", root) == 0);
    CHECK(formats::cgroupMemoryLimit("garbage\nno colons here\n", root) == 0);
    CHECK(formats::cgroupMemoryLimit("0::/a/../../etc\n", root) == 0);  // '..' is not followed
  }
}

TEST_CASE("usable memory is at most the physical memory", "[formats][memory]") {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  REQUIRE(pages > 0);
  REQUIRE(page > 0);
  const std::uint64_t physical = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
  const std::uint64_t usable = formats::usableMemoryBytes();
  CHECK(usable > 0);
  CHECK(usable <= physical);
}

#if !defined(STRATA_SHADOW_SANITIZER)  // the sanitizers map terabytes of shadow: a 3 GiB limit stops their allocator
TEST_CASE("an address-space limit (ulimit -v) is a memory limit", "[formats][memory]") {
  // An audit: under `ulimit -v` a bake that could not fit was not refused before any work; it ran
  // 15 s up to the limit and then ran out. In a child process (the limit stays there): a limit of
  // 3 GiB is the address-space limit, and the usable memory is no more than it.
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    constexpr std::uint64_t kLimit = std::uint64_t{3} << 30;
    rlimit limit{};
    limit.rlim_cur = limit.rlim_max = static_cast<rlim_t>(kLimit);
    if (setrlimit(RLIMIT_AS, &limit) != 0) _exit(10);
    if (formats::addressSpaceLimit() != kLimit) _exit(11);
    const std::uint64_t usable = formats::usableMemoryBytes();
    if (usable == 0 || usable > kLimit) _exit(12);
    _exit(0);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  // Without a limit (this process's, unless the suite runs under one): none.
  rlimit own{};
  REQUIRE(getrlimit(RLIMIT_AS, &own) == 0);
  if (own.rlim_cur == RLIM_INFINITY) CHECK(formats::addressSpaceLimit() == 0);
}
#endif
