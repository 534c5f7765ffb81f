#pragma once

// STRATA_SHADOW_SANITIZER (formats/src): under AddressSanitizer or ThreadSanitizer a process
// cannot run under an address-space limit, so the tests that set one are left out there.
#include "shadow_sanitizer.h"

// Helpers shared by the test suites: where the shared data and the built `strata` live, a
// scratch directory per test, and running `strata` as a black box.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace strata::test {

/// ../shared/data (read-only; tests never copy from it into the repository).
std::filesystem::path sharedData();
/// The project source directory (samples/, docs/ …).
std::filesystem::path sourceDir();
/// The built `strata` executable.
std::filesystem::path strataBinary();

/// A fresh empty directory, removed when the object goes out of scope.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

struct RunResult {
  int exit_code = -1;   ///< exit status, or 128+signal if killed
  std::string out;      ///< captured stdout
  std::string err;      ///< captured stderr
  double seconds = 0;   ///< wall time
};

/// Runs `strata` with `args` (no shell), capturing output. `timeout_seconds` kills it.
RunResult runStrata(const std::vector<std::string>& args, double timeout_seconds = 60);
/// Runs any program (argv[0] looked up in PATH).
RunResult runProgram(const std::vector<std::string>& argv, double timeout_seconds = 60);

/// A pseudo-terminal for stderr: its width, and TERM (left unset when empty; COLUMNS is unset).
struct TerminalStderr {
  int columns = 80;
  std::string term = "xterm";
};
/// Runs `strata` with stderr on a pseudo-terminal (what it writes there lands in `err`, with the
/// terminal's newline translation: "\r\n" for "\n").
RunResult runStrataOnTerminal(const std::vector<std::string>& args, const TerminalStderr& tty, double timeout_seconds = 60);

/// Reads a whole file; empty string if it does not exist.
std::string readFile(const std::filesystem::path& path);
/// True when the two files exist and have identical bytes.
bool sameBytes(const std::filesystem::path& a, const std::filesystem::path& b);

/// `strata ARGS` run as a co-process: its stdin and stdout are pipes held by the test, so that a
/// test can write a line and wait for the answer while the input is still open; stderr goes to
/// a file read at the end. The process is killed if still running when the object is destroyed.
class CoProcess {
 public:
  /// `nonblocking_stdin`: the child's stdin is set O_NONBLOCK (reads that would wait fail with
  /// EAGAIN), as some callers leave it.
  explicit CoProcess(const std::vector<std::string>& args, bool nonblocking_stdin = false);
  ~CoProcess();
  CoProcess(const CoProcess&) = delete;
  CoProcess& operator=(const CoProcess&) = delete;
  /// Writes `text` to the process's stdin.
  void write(const std::string& text);
  /// The next line of its stdout (without the newline); nullopt when none came within
  /// `timeout_seconds` or the output ended.
  std::optional<std::string> readLine(double timeout_seconds = 60);
  /// Closes its stdin, then reads the rest of its stdout and waits for it to exit (killing it
  /// after `timeout_seconds`): out is what came after the lines read, err all of stderr.
  RunResult finish(double timeout_seconds = 60);

 private:
  TempDir dir_;
  int pid_ = -1;
  int in_ = -1, out_ = -1;
  std::string pending_;  // stdout read but not yet returned
};

}  // namespace strata::test
