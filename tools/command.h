#pragma once
/// \file
/// Subcommand registry and the helpers every subcommand shares: exit codes, error lines,
/// parsing of "x,y,z" arguments, JSON output.

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "strata/sim/math.h"
#include "strata/sim/result.h"

namespace strata::cli {

/// Exit codes of the command-line contract (DESIGN.md).
enum ExitCode : int {
  kExitOk = 0,        ///< success
  kExitRuntime = 1,   ///< runtime failure (I/O, resources)
  kExitBadInput = 2,  ///< bad usage or bad input; the message names the file and the problem
  kExitNegative = 3,  ///< a well-formed query with a negative answer (no path, ray missed)
};

/// A registered subcommand: `setup` adds the CLI11 subcommand with its options and returns a
/// function that runs it (called only if that subcommand was selected) and yields an exit code.
struct Command {
  std::string name;
  int order;  ///< position in `strata --help`
  std::function<std::function<int()>(CLI::App& app)> setup;
};

std::vector<Command>& commandRegistry();

struct CommandRegistrar {
  explicit CommandRegistrar(Command command) { commandRegistry().push_back(std::move(command)); }
};

/// Registers a subcommand from its own .cpp file: STRATA_COMMAND(info, 10, setupInfo).
#define STRATA_COMMAND(name, order, setup_fn) \
  static const ::strata::cli::CommandRegistrar strata_command_##name{{#name, order, setup_fn}};

/// Prints `strata: error: <message>` on stderr and returns the exit code for the error kind.
int reportError(const Error& error);
/// Prints `strata: error: <message>` on stderr and returns kExitBadInput. A message about an
/// option (it starts with '-': "--spacing: ...") is a usage error and ends, as CLI11's do, with
/// where the usage is: " (usage: strata path --help)" (the command set by setUsageCommand).
int badInput(const std::string& message);
/// The subcommand whose --help a usage error points to (main sets it before running it).
void setUsageCommand(const std::string& name);
/// "1 label", "6 labels" ("1 vertex", "8 vertices" with `plural` given).
std::string counted(std::size_t count, const std::string& noun, const std::string& plural = {});
/// `text` for a line of text output: control characters (line breaks too) and bytes that are not
/// UTF-8 as \xNN, so a file name holding a line break cannot forge or split output lines.
std::string printable(const std::string& text);
/// Prints `strata: warning: <message>` on stderr.
void warn(const std::string& message);
/// Writes `text` to stderr, best effort: a stderr that cannot be written (2>/dev/full, closed)
/// changes neither the command's work nor its exit code (fmt::print would throw, and a throw
/// from the error handler ended the process with SIGABRT).
void toStderr(const std::string& text);

/// A value for text output with `decimals` decimals: one that rounds to zero prints as 0.000, not
/// -0.000 (a floor at y = 0 is stored as -4e-16 by the ray arithmetic on some meshes).
inline double shown(double v, int decimals = 3) { return std::fabs(v) < 0.5 * std::pow(10.0, -decimals) ? 0.0 : v; }
/// `text` without the spaces around it (numbers may have spaces around them, as in "1, 2, 3").
std::string trimmedSpaces(const std::string& text);

/// True when `v`, just read by strtod with errno cleared before, is 0 only because the number
/// written was too small for a double (1e-400: strtod's underflow), so that such a number is
/// refused as 1e400 is, rather than read as 0 (an --spacing of 0 means none).
bool roundsToZero(double v);

/// Why a comma-separated list of numbers that parseNumbers refused holds a number that is
/// written as one but cannot be read as a finite double: " ('1e-400' is too small to represent:
/// it would read as 0)" or " ('1e400' is too large to represent)" for the first such number, to
/// append to the message that quotes the list; empty otherwise (a word, a count of numbers).
std::string numbersNote(const std::string& text);

/// Parses "x,y,z" (three finite numbers). Returns nullopt on malformed input.
std::optional<sim::Vec3> parseVec3(const std::string& text);
/// Parses a comma-separated list of exactly `count` finite numbers.
std::optional<std::vector<double>> parseNumbers(const std::string& text, std::size_t count);

/// The value a printed JSON document carries for `v`: the shortest decimal that names it at the
/// precision it has. A value whose own shortest decimal has at most 12 significant digits is
/// itself (299999.875 stays exact); else a value that is exactly a float32 (heights, headroom,
/// clearance and slopes are stored as float32) gets the float's shortest decimal (0.925, not
/// 0.925000011920929); any other, 15 significant digits (a cell centre 14.55, not
/// 14.549999999999999). -0 becomes 0.
double printedNumber(double v);

/// A JSON document as text (`indent` -1: one line), bytes that are not UTF-8 (a file name's)
/// replaced by U+FFFD instead of throwing: the documents the tools store go through it.
template <class Json>
std::string jsonText(const Json& doc, int indent = -1) {
  return doc.dump(indent, ' ', false, Json::error_handler_t::replace);
}

/// jsonText for a document the tools print: every floating-point number in it as printedNumber,
/// except those equal to one of `given` (not 0), numbers the user typed (a route's exact ends'
/// x and z), which print as their shortest round-trip decimal: as typed, read back to the bit.
template <class Json>
std::string printedJson(Json doc, int indent = -1, std::initializer_list<double> given = {}) {
  const auto tidy = [&given](auto& self, Json& value) -> void {
    if (value.is_number_float()) {
      const double v = value.template get<double>();
      if (v == 0 || std::find(given.begin(), given.end(), v) == given.end()) value = printedNumber(v);
    } else if (value.is_structured()) {
      for (auto& item : value) self(self, item);
    }
  };
  tidy(tidy, doc);
  return jsonText(doc, indent);
}

/// True when stderr is a terminal (progress bars and colour only then).
bool stderrIsTerminal();
/// True when stderr's terminal can redraw a line in place (TERM is set and not "dumb").
bool stderrCanRedrawLine();
/// The width of stderr's terminal in columns: TIOCGWINSZ, else a positive $COLUMNS, else 80.
std::size_t stderrColumns();

/// Option validators whose messages say what was typed and what is allowed, on one line
/// (CLI11's own print a 300-digit bound for an unbounded range, and "not in range" for a word):
/// a finite number > 0 and <= `max` (no bound when max is infinite)...
CLI::Validator positiveNumber(double max = HUGE_VAL);
/// ... a finite number >= 0 and <= `max` ...
CLI::Validator nonNegativeNumber(double max = HUGE_VAL);
/// ... a finite number ...
CLI::Validator finiteNumber();
/// ... and an integer in [lo, hi] (hi = LLONG_MAX: no upper bound).
CLI::Validator integerRange(long long lo, long long hi);
/// One of `words`, exactly as written ("--up: 'w' is not one of: y, z"; CLI11's IsMember said
/// "--up: w not in {y,z}", the value unquoted). Shown in --help as {y,z}.
CLI::Validator oneOf(const std::vector<std::string>& words);
/// A non-empty agent name (`--agent ''` is an error, not the default agent).
CLI::Validator agentName();
/// A non-empty file name (`--profile "$UNSET"` is an error, not "no profile").
CLI::Validator fileName();

/// Up to `bytes` first bytes of a file (fewer when it is shorter or unreadable).
std::string readHead(const std::string& path, std::size_t bytes);

/// Whether `path` names a world file: its content starts with the HDF5 signature, or (an empty
/// or unreadable file, which the world reader then describes) its name ends in .h5. So a world
/// written as `level.world` or `level.hdf5` is read as a world, not refused as a mesh format.
bool isWorldFile(const std::string& path);

/// Under an address-space limit (ulimit -v) that leaves less than `room` bytes beyond what the
/// process maps now: "the address-space limit (ulimit -v) of L MiB leaves R MiB beyond the M MiB
/// mapped WHERE: too little PURPOSE; raise it to at least N MiB", else empty (no limit, or room).
std::string addressSpaceShortfall(unsigned long long room, const std::string& where, const std::string& purpose);

/// The same for a command about to run `threads` threads (0 or less: oneTBB's default, the CPUs
/// this process may run on): each worker thread maps its stack
/// (oneTBB's thread_stack_size, 4 MiB), and a worker that cannot start ends the process
/// (oneTBB throws from a destructor: SIGABRT), so the room for them is checked before any work.
std::string threadRoomShortfall(int threads);

/// "VERSION (git describe)" of this build: `strata --version` and every world file's
/// tool_version (generated at build time by cmake/WriteVersion.cmake).
const char* versionString();

}  // namespace strata::cli
