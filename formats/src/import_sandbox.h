#pragma once
/// \file
/// Running untrusted parsing code in a child process.
///
/// Assimp 5.2.5 crashes (SIGSEGV) on some malformed files and allocates without bound on
/// others. The sandbox forks; the child lowers its limits (RLIMIT_AS for memory, RLIMIT_CPU for
/// CPU time, RLIMIT_CORE = 0), runs the work and writes the bytes it produced to a pipe. The
/// parent reads them under a wall-clock deadline, kills the child when the deadline passes, and
/// turns a crash, a limit or a timeout into an error. The bytes the parent receives are
/// untrusted: callers must parse them defensively (see import_framing.h).
///
/// fork() copies only the calling thread: call this from a process that is not concurrently
/// holding locks in other threads (the `strata` CLI imports before starting any worker threads).

#include <cstdint>
#include <functional>
#include <vector>

#include "strata/sim/result.h"

namespace strata::formats {

/// Limits of one sandboxed run.
struct SandboxLimits {
  double timeout_seconds = 60.0;          ///< wall-clock limit (s); the child is killed after it. [Limit: > 0]
  std::uint64_t memory_limit_mib = 4096;  ///< address space the child may add to what it inherits (MiB); 0 = none
  std::uint64_t max_reply_bytes = std::uint64_t{1} << 32;  ///< larger replies are an error
};

/// Runs `work` in a forked child under `limits` and returns the bytes it returned. Errors are
/// BadInput (the input made the child crash, time out or exceed a limit; the message has no
/// file name, e.g. "the importer crashed (signal 11: Segmentation fault)") or Runtime (fork or
/// pipe failed).
Result<std::vector<std::uint8_t>> runSandboxed(const std::function<std::vector<std::uint8_t>()>& work,
                                               const SandboxLimits& limits);

}  // namespace strata::formats
