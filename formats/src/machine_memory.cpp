// Usable memory: physical memory and control-group limits (machine_memory.h).

#include "strata/formats/machine_memory.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <charconv>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace strata::formats {
namespace {

// The tighter of two limits, 0 standing for none.
std::uint64_t tighter(std::uint64_t a, std::uint64_t b) { return a == 0 ? b : b == 0 ? a : std::min(a, b); }

// A limit file's value: a decimal byte count; "max" (v2) or v1's "no limit" (2^63 rounded down
// to a page) read as none (0), as does anything else.
std::uint64_t readLimit(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string text;
  if (!in || !std::getline(in, text)) return 0;
  while (!text.empty() && (text.back() == ' ' || text.back() == '\r')) text.pop_back();
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value == 0) return 0;
  constexpr std::uint64_t kNoLimit = std::uint64_t{1} << 62;  // v1 reports about 2^63 for none
  return value >= kNoLimit ? 0 : value;
}

// The smallest limit in `file_name` at `dir` and each of its ancestors up to `root`.
std::uint64_t lowestUpTo(const std::filesystem::path& root, std::string_view group, const char* file_name) {
  // The group path as written in /proc/self/cgroup ("/a/b"); ".." never appears there, but a
  // component of it is not followed anyway.
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in{std::string(group)};
  while (std::getline(in, part, '/'))
    if (!part.empty() && part != "." && part != "..") parts.push_back(part);
  std::uint64_t lowest = 0;
  for (std::size_t depth = parts.size() + 1; depth-- > 0;) {
    std::filesystem::path dir = root;
    for (std::size_t i = 0; i < depth; ++i) dir /= parts[i];
    lowest = tighter(lowest, readLimit(dir / file_name));
  }
  return lowest;
}

}  // namespace

std::uint64_t cgroupMemoryLimit(std::string_view proc_self_cgroup, const std::filesystem::path& cgroup_root) {
  std::uint64_t lowest = 0;
  // Lines "ID:CONTROLLERS:PATH": v2 is "0::PATH"; v1 lists its controllers ("4:memory:/x",
  // "7:cpu,memory:/x").
  std::istringstream lines{std::string(proc_self_cgroup)};
  std::string line;
  while (std::getline(lines, line)) {
    const std::size_t first = line.find(':');
    const std::size_t second = first == std::string::npos ? std::string::npos : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string group = line.substr(second + 1);
    if (line.compare(0, first, "0") == 0 && controllers.empty()) {
      lowest = tighter(lowest, lowestUpTo(cgroup_root, group, "memory.max"));  // v2 (or a hybrid's unified tree)
      continue;
    }
    std::istringstream names(controllers);
    std::string name;
    while (std::getline(names, name, ','))
      if (name == "memory") lowest = tighter(lowest, lowestUpTo(cgroup_root / "memory", group, "memory.limit_in_bytes"));
  }
  return lowest;
}

std::uint64_t usableMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  const std::uint64_t physical = pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
  std::ifstream in("/proc/self/cgroup");
  std::stringstream text;
  text << in.rdbuf();
  return tighter(tighter(physical, cgroupMemoryLimit(text.str(), "/sys/fs/cgroup")), addressSpaceLimit());
}

std::uint64_t addressSpaceLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 0;
  // The whole limit, not the limit less what is mapped now: the mapped size counts address space
  // reserved and not used (glibc's per-thread heaps reserve 64 MiB each, more of them the more
  // the limit allows), so subtracting it made a higher limit refuse an export a lower one let
  // finish (a re-audit). Work estimated beyond the whole limit cannot fit whatever is mapped.
  return static_cast<std::uint64_t>(limit.rlim_cur);
}

std::uint64_t mappedAddressSpace() {
  std::FILE* file = std::fopen("/proc/self/statm", "r");
  if (file == nullptr) return 0;
  unsigned long long pages = 0;
  const bool read = std::fscanf(file, "%llu", &pages) == 1;
  std::fclose(file);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (!read || page_size <= 0) return 0;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size);
}

}  // namespace strata::formats
