#pragma once
/// \file
/// How much memory this process may use, for the refusals made before large work (a bake, a
/// world read, an export): the machine's physical memory, or less when the process runs in a
/// control group with a lower memory limit (a container, a CI job, a systemd slice), where going
/// past the limit gets the process killed with nothing said.

#include <cstdint>
#include <filesystem>
#include <string_view>

namespace strata::formats {

/// The lowest memory limit set on the control group named in `proc_self_cgroup` (the text of
/// /proc/self/cgroup) or on any of its ancestors, read below `cgroup_root` (normally
/// /sys/fs/cgroup): cgroup v2's memory.max ("0::/path" lines; the files at root/path, root/parent,
/// ...) and cgroup v1's memory.limit_in_bytes (the "memory" controller's line; the files at
/// root/memory/path and up). 0 when none is set ("max", v1's page-rounded 2^63, missing or
/// unreadable files).
std::uint64_t cgroupMemoryLimit(std::string_view proc_self_cgroup, const std::filesystem::path& cgroup_root);

/// This process's address-space limit, RLIMIT_AS (`ulimit -v`), in bytes; 0 when there is none.
std::uint64_t addressSpaceLimit();

/// The bytes of address space this process maps now (/proc/self/statm's first field); 0 when
/// unknown. Against addressSpaceLimit(): the room left under `ulimit -v`.
std::uint64_t mappedAddressSpace();

/// The machine's physical memory, or the control-group limit of this process, or its
/// address-space limit (addressSpaceLimit), whichever is lowest; 0 when none is known.
std::uint64_t usableMemoryBytes();

}  // namespace strata::formats
