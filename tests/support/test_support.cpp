#include "test_support.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string_view>

extern char** environ;

namespace strata::test {

std::filesystem::path sharedData() {
  if (const char* env = std::getenv("STRATA_SHARED_DATA")) return env;
  return STRATA_SHARED_DATA;
}
std::filesystem::path sourceDir() { return STRATA_SOURCE_DIR; }
std::filesystem::path strataBinary() { return STRATA_BINARY; }

TempDir::TempDir() {
  static std::atomic<int> counter{0};
  std::random_device rd;
  path_ = std::filesystem::temp_directory_path() /
          ("strata-test-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + "-" + std::to_string(rd()));
  std::filesystem::create_directories(path_);
}
TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

namespace {

// Runs argv with stdout on a pipe and stderr on a pipe, or (tty != nullptr) on the slave side of
// a pseudo-terminal of tty->columns columns with TERM set to tty->term (unset when empty).
RunResult run(const std::vector<std::string>& args, double timeout_seconds, const TerminalStderr* tty) {
  RunResult result;
  int out_pipe[2], err_pipe[2];
  if (pipe(out_pipe) != 0) throw std::runtime_error("pipe failed");
  std::string slave_name;
  if (tty != nullptr) {
    err_pipe[0] = posix_openpt(O_RDWR | O_NOCTTY);
    if (err_pipe[0] < 0 || grantpt(err_pipe[0]) != 0 || unlockpt(err_pipe[0]) != 0) throw std::runtime_error("posix_openpt failed");
    slave_name = ptsname(err_pipe[0]);
    err_pipe[1] = open(slave_name.c_str(), O_RDWR | O_NOCTTY);
    if (err_pipe[1] < 0) throw std::runtime_error("cannot open " + slave_name);
    winsize size{};
    size.ws_row = 24;
    size.ws_col = static_cast<unsigned short>(tty->columns);
    if (ioctl(err_pipe[1], TIOCSWINSZ, &size) != 0) throw std::runtime_error("TIOCSWINSZ failed");
  } else if (pipe(err_pipe) != 0) {
    throw std::runtime_error("pipe failed");
  }
  std::vector<std::string> environment;
  for (char** e = environ; *e != nullptr; ++e)
    if (tty == nullptr || (std::string_view(*e).substr(0, 5) != "TERM=" && std::string_view(*e).substr(0, 8) != "COLUMNS="))
      environment.emplace_back(*e);
  if (tty != nullptr && !tty->term.empty()) environment.push_back("TERM=" + tty->term);
  std::vector<char*> envp;
  for (std::string& e : environment) envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  posix_spawn_file_actions_addclose(&actions, out_pipe[0]);
  posix_spawn_file_actions_addclose(&actions, err_pipe[0]);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (rc != 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    result.exit_code = 127;
    result.err = "spawn failed";
    return result;
  }
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_count = 2;
  bool killed = false;
  char buffer[65536];
  while (open_count > 0) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!killed && elapsed > timeout_seconds) {
      kill(pid, SIGKILL);
      killed = true;
    }
    if (poll(fds, 2, 100) < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        (i == 0 ? result.out : result.err).append(buffer, static_cast<std::size_t>(n));
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_count;
      }
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) result.exit_code = 128 + WTERMSIG(status);
  return result;
}

}  // namespace

RunResult runProgram(const std::vector<std::string>& args, double timeout_seconds) {
  return run(args, timeout_seconds, nullptr);
}

RunResult runStrataOnTerminal(const std::vector<std::string>& args, const TerminalStderr& tty, double timeout_seconds) {
  std::vector<std::string> argv{strataBinary().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv, timeout_seconds, &tty);
}

RunResult runStrata(const std::vector<std::string>& args, double timeout_seconds) {
  std::vector<std::string> argv{strataBinary().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return runProgram(argv, timeout_seconds);
}

CoProcess::CoProcess(const std::vector<std::string>& args, bool nonblocking_stdin) {
  // Close-on-exec, so that no other child inherits the ends (the spawned one gets its two by dup2).
  int in_pipe[2], out_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    close(in_pipe[0]);
    close(in_pipe[1]);
    throw std::runtime_error("pipe failed");
  }
  if (nonblocking_stdin) fcntl(in_pipe[0], F_SETFL, fcntl(in_pipe[0], F_GETFL) | O_NONBLOCK);
  const std::string err_path = (dir_.path() / "stderr").string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addclose(&actions, in_pipe[1]);
  posix_spawn_file_actions_addclose(&actions, out_pipe[0]);
  std::vector<std::string> all{strataBinary().string()};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(in_pipe[0]);
  close(out_pipe[1]);
  if (rc != 0) {
    close(in_pipe[1]);
    close(out_pipe[0]);
    throw std::runtime_error("spawn failed");
  }
  pid_ = pid;
  in_ = in_pipe[1];
  out_ = out_pipe[0];
}

CoProcess::~CoProcess() {
  if (in_ >= 0) close(in_);
  if (out_ >= 0) close(out_);
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
}

void CoProcess::write(const std::string& text) {
  // A write to a process that has exited fails instead of killing the test (SIGPIPE ignored
  // for the write only).
  struct sigaction ignore {}, saved {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGPIPE, &ignore, &saved);
  std::size_t done = 0;
  bool failed = false;
  while (in_ >= 0 && done < text.size() && !failed) {
    const ssize_t n = ::write(in_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) failed = true;
    else done += static_cast<std::size_t>(n);
  }
  sigaction(SIGPIPE, &saved, nullptr);
  if (failed) throw std::runtime_error("cannot write to the co-process");
}

std::optional<std::string> CoProcess::readLine(double timeout_seconds) {
  const auto start = std::chrono::steady_clock::now();
  char buffer[65536];
  for (;;) {
    if (const std::size_t newline = pending_.find('\n'); newline != std::string::npos) {
      std::string line = pending_.substr(0, newline);
      pending_.erase(0, newline + 1);
      return line;
    }
    const double left = timeout_seconds - std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (out_ < 0 || left <= 0) return std::nullopt;
    pollfd fd{out_, POLLIN, 0};
    if (poll(&fd, 1, static_cast<int>(left * 1000) + 1) <= 0) continue;
    const ssize_t n = read(out_, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    pending_.append(buffer, static_cast<std::size_t>(n));
  }
}

RunResult CoProcess::finish(double timeout_seconds) {
  RunResult result;
  if (in_ >= 0) close(in_);
  in_ = -1;
  const auto start = std::chrono::steady_clock::now();
  char buffer[65536];
  bool killed = false;
  while (out_ >= 0) {
    if (!killed && std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > timeout_seconds) {
      kill(pid_, SIGKILL);
      killed = true;
    }
    pollfd fd{out_, POLLIN, 0};
    if (poll(&fd, 1, 100) <= 0) continue;
    const ssize_t n = read(out_, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      close(out_);
      out_ = -1;
    } else {
      pending_.append(buffer, static_cast<std::size_t>(n));
    }
  }
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) result.exit_code = 128 + WTERMSIG(status);
  result.out = std::move(pending_);
  result.err = readFile(dir_.path() / "stderr");
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool sameBytes(const std::filesystem::path& a, const std::filesystem::path& b) {
  if (!std::filesystem::is_regular_file(a) || !std::filesystem::is_regular_file(b)) return false;
  return readFile(a) == readFile(b);
}

}  // namespace strata::test
