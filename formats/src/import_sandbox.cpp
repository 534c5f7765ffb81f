#include "import_sandbox.h"
#include "strata/formats/machine_memory.h"

#include <fcntl.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <thread>

#include "shadow_sanitizer.h"  // under ASan or TSan the child gets no address-space limit

namespace strata::formats {
namespace {

constexpr int kChildOutOfMemory = 3;
constexpr int kChildFailed = 4;

void limit(int resource, rlim_t soft, rlim_t hard) {
  rlimit value{soft, hard};
  setrlimit(resource, &value);
}

bool writeAll(int fd, const std::uint8_t* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

[[noreturn]] void runChild(int write_fd, pid_t parent, const std::function<std::vector<std::uint8_t>()>& work,
                           const SandboxLimits& limits) {
  // Ended with the parent: a strata killed by a signal (or a pipeline's timeout) must not leave
  // the parse running on for up to its time and memory limits.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(kChildFailed);  // the parent ended before the line above
  // Default dispositions, so a crash kills the child instead of running a test framework's
  // handler; no core files; no output on the parent's terminal.
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGPIPE, SIGXCPU}) signal(sig, SIG_DFL);
  // The reply pipe above the standard descriptors first: a parent started with 0, 1 or 2 closed
  // (from cron, `strata import ... <&- >&-`) got the pipe there, and /dev/null put over them
  // below would cut the reply off.
  if (write_fd <= STDERR_FILENO) {
    const int moved = fcntl(write_fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
    if (moved < 0) _exit(kChildFailed);
    write_fd = moved;
  }
  const int null_fd = open("/dev/null", O_RDWR);
  if (null_fd >= 0) {
    dup2(null_fd, STDIN_FILENO);
    dup2(null_fd, STDOUT_FILENO);
    dup2(null_fd, STDERR_FILENO);
    if (null_fd > STDERR_FILENO) close(null_fd);
  }
  limit(RLIMIT_CORE, 0, 0);
#ifndef STRATA_SHADOW_SANITIZER  // the sanitizers reserve terabytes of shadow address space
  if (limits.memory_limit_mib > 0) {
    // The limit is what the parse may add to the address space the child inherits: a process
    // that maps gigabytes (a pipeline embedding the library) must not fail every import, and
    // one with free heap must not lend it to the parse. So the inherited free heap goes back
    // to the system first, and large blocks come from mmap, which the limit counts, instead of
    // from heap the parent freed (glibc raises its mmap threshold as a process frees blocks).
#if defined(__GLIBC__)
    malloc_trim(0);
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
    const rlim_t bytes = static_cast<rlim_t>(limits.memory_limit_mib) << 20;
    const rlim_t mapped = static_cast<rlim_t>(mappedAddressSpace());
    const rlim_t total = mapped > RLIM_INFINITY - 1 - bytes ? RLIM_INFINITY : mapped + bytes;
    limit(RLIMIT_AS, total, total);
  }
#endif
  const rlim_t cpu_seconds = static_cast<rlim_t>(std::ceil(limits.timeout_seconds)) + 1;
  limit(RLIMIT_CPU, cpu_seconds, cpu_seconds + 1);
  int status = 0;
  try {
    const std::vector<std::uint8_t> reply = work();
    if (!writeAll(write_fd, reply.data(), reply.size())) status = kChildFailed;
  } catch (const std::bad_alloc&) {
    status = kChildOutOfMemory;
  } catch (...) {
    status = kChildFailed;
  }
  close(write_fd);
  _exit(status);
}

std::string describeSignal(int sig) {
  const char* name = strsignal(sig);
  return "signal " + std::to_string(sig) + (name != nullptr ? std::string(": ") + name : std::string());
}

std::string formatSeconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", seconds);
  return text;
}

}  // namespace

Result<std::vector<std::uint8_t>> runSandboxed(const std::function<std::vector<std::uint8_t>()>& work,
                                               const SandboxLimits& limits) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return Error::runtime(std::string("cannot create a pipe: ") + std::strerror(errno));
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    const int saved = errno;
    close(fds[0]);
    close(fds[1]);
    return Error::runtime(std::string("cannot start the importer process: ") + std::strerror(saved));
  }
  if (pid == 0) {
    close(fds[0]);
    runChild(fds[1], parent, work, limits);
  }
  close(fds[1]);

  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(limits.timeout_seconds));
  std::vector<std::uint8_t> reply;
  bool killed_for_time = false;
  bool too_large = false;
  std::vector<std::uint8_t> chunk(1 << 16);
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      killed_for_time = true;
      break;
    }
    pollfd poll_fd{fds[0], POLLIN, 0};
    const int ready = poll(&poll_fd, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    const ssize_t n = read(fds[0], chunk.data(), chunk.size());
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      break;
    }
    if (n == 0) break;  // the child closed the pipe: it has finished or died
    if (reply.size() + static_cast<std::size_t>(n) > limits.max_reply_bytes) {
      too_large = true;
      break;
    }
    reply.insert(reply.end(), chunk.begin(), chunk.begin() + n);
  }
  close(fds[0]);

  // Reap the child, still under the deadline (it may hang after closing the pipe).
  int status = 0;
  for (;;) {
    if (killed_for_time || too_large) {
      kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) return Error::runtime(std::string("waitpid failed: ") + std::strerror(errno));
    if (Clock::now() >= deadline) {
      killed_for_time = true;
      continue;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }

  if (killed_for_time)
    return Error::badInput("the importer timed out after " + formatSeconds(limits.timeout_seconds) +
                           " s (strata import --timeout raises it for large trusted files)");
  if (too_large) return Error::badInput("the importer produced more than " + std::to_string(limits.max_reply_bytes) + " bytes");
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    if (sig == SIGXCPU)
      return Error::badInput("the importer exceeded its CPU time limit (" + formatSeconds(limits.timeout_seconds) + " s)");
    if (sig == SIGKILL)
      return Error::badInput("the importer was killed (" + describeSignal(sig) + "), probably for running out of memory");
    return Error::badInput("the importer crashed (" + describeSignal(sig) + ")");
  }
  if (WIFEXITED(status)) {
    const int code = WEXITSTATUS(status);
    if (code == kChildOutOfMemory) {
#ifndef STRATA_SHADOW_SANITIZER
      // Under a lower address-space limit than the importer's own (ulimit -v, which it cannot
      // raise), that limit is the one run into: an audit's 60 MB `ulimit -v` was reported as the
      // 4096 MiB limit, which --memory-limit could not have changed.
      rlimit inherited{};
      const rlim_t wanted = static_cast<rlim_t>(limits.memory_limit_mib) << 20;
      if (limits.memory_limit_mib > 0 && getrlimit(RLIMIT_AS, &inherited) == 0 && inherited.rlim_cur != RLIM_INFINITY &&
          (inherited.rlim_max == RLIM_INFINITY ? inherited.rlim_cur : inherited.rlim_max) < static_cast<rlim_t>(mappedAddressSpace()) + wanted)
        return Error::badInput("the importer ran out of memory under this process's address-space limit of " +
                               std::to_string(inherited.rlim_cur >> 20) + " MiB (ulimit -v), lower than the importer's own " +
                               std::to_string(limits.memory_limit_mib) + " MiB");
#endif
      return Error::badInput("the importer ran out of memory (limit " + std::to_string(limits.memory_limit_mib) +
                             " MiB; strata import --memory-limit raises it for large trusted files)");
    }
    if (code != 0) return Error::badInput("the importer failed (exit status " + std::to_string(code) + ")");
  }
  return reply;
}

}  // namespace strata::formats
