#include "command.h"
#include "strata/formats/machine_memory.h"

#include <tbb/global_control.h>
#include <tbb/info.h>

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string_view>

#include "strata/formats/output_file.h"

namespace strata::cli {

std::vector<Command>& commandRegistry() {
  static std::vector<Command> registry;
  return registry;
}

namespace {

// Control bytes (a NUL in a name read from a file) and bytes that are not UTF-8 as \xNN; line
// breaks too, or as spaces.
std::string escaped(const std::string& message, bool breaks_as_spaces) {
  std::string line;
  // The length of the well-formed UTF-8 sequence starting at i (0 when it is not one).
  const auto sequence = [&](std::size_t i) -> std::size_t {
    const auto c = static_cast<unsigned char>(message[i]);
    const std::size_t n = c >= 0xF5 ? 0 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
    if (n == 0 || i + n > message.size()) return 0;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(message[i + k]) & 0xC0) != 0x80) return 0;
    // The second byte's range after E0, ED, F0 and F4 (no overlong forms, surrogates or code
    // points above U+10FFFF).
    const auto second = static_cast<unsigned char>(message[i + 1]);
    if ((c == 0xE0 && second < 0xA0) || (c == 0xED && second > 0x9F) || (c == 0xF0 && second < 0x90) ||
        (c == 0xF4 && second > 0x8F))
      return 0;
    return n;
  };
  for (std::size_t i = 0; i < message.size(); ++i) {
    const auto c = static_cast<unsigned char>(message[i]);
    if ((c == '\n' || c == '\r') && breaks_as_spaces) line += ' ';
    else if (c < 0x20 || c == 0x7f) line += fmt::format("\\x{:02X}", c);
    else if (c < 0x80) line += static_cast<char>(c);
    else if (const std::size_t n = sequence(i); n > 0) {
      // C1 controls (U+0080-U+009F: NEL breaks lines on some terminals) and the line and
      // paragraph separators (U+2028, U+2029) as \xNN bytes, like the C0 ones.
      const auto second = static_cast<unsigned char>(message[i + 1]);
      const bool control = (c == 0xC2 && second < 0xA0) ||
                           (c == 0xE2 && second == 0x80 && (static_cast<unsigned char>(message[i + 2]) | 1) == 0xA9);
      if (control)
        for (std::size_t k = 0; k < n; ++k) line += fmt::format("\\x{:02X}", static_cast<unsigned char>(message[i + k]));
      else
        line.append(message, i, n);
      i += n - 1;
    }
    else line += fmt::format("\\x{:02X}", c);  // not UTF-8 (a terminal would show garbage)
  }
  return line;
}

// A message as one printable line: line breaks become spaces, other control bytes \xNN, and a
// message longer than 2,000 bytes (a megabyte-long name, a list of 64 agents) is cut in the
// middle, so that its end, which says what is wrong, stays.
std::string oneLine(const std::string& message) {
  constexpr std::size_t kMaxBytes = 2000, kHead = 1200, kTail = 700;
  std::string line = escaped(message, true);
  if (line.size() > kMaxBytes) {
    // Cut at character boundaries (never inside a UTF-8 sequence).
    const auto continuation = [&](std::size_t k) { return (static_cast<unsigned char>(line[k]) & 0xC0) == 0x80; };
    std::size_t head = kHead, tail = line.size() - kTail;
    while (head > 0 && continuation(head)) --head;
    while (tail < line.size() && continuation(tail)) ++tail;
    line = line.substr(0, head) + " ... (cut) ... " + line.substr(tail);
  }
  return line;
}

}  // namespace

std::string printable(const std::string& text) { return escaped(text, false); }

int reportError(const Error& error) {
  toStderr(fmt::format("strata: error: {}\n", oneLine(error.message)));
  return error.kind == ErrorKind::BadInput ? kExitBadInput : kExitRuntime;
}

namespace {
std::string& usageCommand() {
  static std::string name;
  return name;
}
}  // namespace

void setUsageCommand(const std::string& name) { usageCommand() = name; }

int badInput(const std::string& message) {
  if (!message.empty() && message.front() == '-' && !usageCommand().empty())
    return reportError(Error::badInput(message + " (usage: strata " + usageCommand() + " --help)"));
  return reportError(Error::badInput(message));
}

std::string counted(std::size_t count, const std::string& noun, const std::string& plural) {
  return std::to_string(count) + " " + (count == 1 ? noun : plural.empty() ? noun + "s" : plural);
}

void warn(const std::string& message) { toStderr(fmt::format("strata: warning: {}\n", oneLine(message))); }

double printedNumber(double v) {
  if (!std::isfinite(v)) return v;
  if (v == 0) return 0.0;
  char text[64];
  // A value whose own shortest decimal is short (12 significant digits at most) is printed as
  // it is: exact. (Only then the float32 rule below: a ray's distance of 299999.875, exactly a
  // float, printed as the float's 299999.88, 1.6 cm off; an audit. A float32 read from the world
  // as a double, 3.8f = 3.799999952316284, has a long shortest decimal.)
  {
    const auto end = std::to_chars(text, text + sizeof text - 1, v).ptr;
    int digits = 0;
    bool leading = true;
    for (const char* c = text; c != end && *c != 'e' && *c != 'E'; ++c) {
      if (*c < '0' || *c > '9') continue;
      if (leading && *c == '0') continue;
      leading = false;
      ++digits;
    }
    if (digits <= 12) return v;
  }
  const float f = static_cast<float>(v);
  if (std::isfinite(f) && static_cast<double>(f) == v) {
    const auto end = std::to_chars(text, text + sizeof text - 1, f).ptr;  // the float's shortest decimal
    *end = '\0';
  } else {
    std::snprintf(text, sizeof text, "%.15g", v);
  }
  return std::strtod(text, nullptr);
}

void toStderr(const std::string& text) {
  [[maybe_unused]] const std::size_t written = std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
  std::clearerr(stderr);
}

bool roundsToZero(double v) { return v == 0 && errno == ERANGE; }

namespace {

// How one number reads, as every number option and each number of a list reads it.
enum class Decimal { kOk, kNotANumber, kTooSmall, kTooLarge, kNotFinite };

// Decimal only: strtod also reads hexadecimal ("0x1p3"), which no number option takes (and no
// other whitespace first: strtod would skip a tab or a line break before the number); the
// whole text; finite; and not 0 only because it was too small for a double (1e-400).
Decimal readDecimal(const std::string& text, double& value) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0])) || text.find_first_of("xX") != std::string::npos)
    return Decimal::kNotANumber;
  char* end = nullptr;
  errno = 0;
  value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return Decimal::kNotANumber;
  if (roundsToZero(value)) return Decimal::kTooSmall;
  if (!std::isfinite(value)) return errno == ERANGE ? Decimal::kTooLarge : Decimal::kNotFinite;
  return Decimal::kOk;
}

// The comma-separated parts of `text`, spaces around each dropped ("1, 2," gives 1, 2 and "").
std::vector<std::string> commaParts(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    parts.push_back(trimmedSpaces(text.substr(start, end - start)));
    if (end == text.size()) return parts;
    start = end + 1;
  }
}

}  // namespace

std::optional<std::vector<double>> parseNumbers(const std::string& text, std::size_t count) {
  std::vector<double> values;
  for (const std::string& part : commaParts(text)) {
    double v = 0;
    if (readDecimal(part, v) != Decimal::kOk) return std::nullopt;
    values.push_back(v);
  }
  if (values.size() != count) return std::nullopt;
  return values;
}

std::string numbersNote(const std::string& text) {
  for (const std::string& part : commaParts(text)) {
    double v = 0;
    const Decimal read = readDecimal(part, v);
    if (read == Decimal::kTooSmall) return fmt::format(" ('{}' is too small to represent: it would read as 0)", part);
    if (read == Decimal::kTooLarge) return fmt::format(" ('{}' is too large to represent)", part);
  }
  return {};
}

std::optional<sim::Vec3> parseVec3(const std::string& text) {
  auto values = parseNumbers(text, 3);
  if (!values) return std::nullopt;
  return sim::Vec3{(*values)[0], (*values)[1], (*values)[2]};
}

bool stderrIsTerminal() { return isatty(STDERR_FILENO) == 1; }

bool stderrCanRedrawLine() {
  const char* term = std::getenv("TERM");
  return term != nullptr && *term != '\0' && std::string_view(term) != "dumb";
}

std::size_t stderrColumns() {
  winsize size{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  if (const char* columns = std::getenv("COLUMNS"); columns != nullptr) {
    char* end = nullptr;
    const long value = std::strtol(columns, &end, 10);
    if (end != columns && *end == '\0' && value > 0 && value < 100000) return static_cast<std::size_t>(value);
  }
  return 80;
}

std::string trimmedSpaces(const std::string& text) {
  const std::size_t first = text.find_first_not_of(' ');
  return first == std::string::npos ? std::string() : text.substr(first, text.find_last_not_of(' ') - first + 1);
}

namespace {

// Spaces around a number are dropped, as around each number of a point ("1, 2, 3"): ' 2' and
// '2 ' read as 2 for every number option (strtod skipped leading space of any kind, so --radius
// took ' 2' and '\t2' while --threads refused ' 2'). Other whitespace is refused. `text` becomes
// the number alone (CLI11 converts the validated text).
std::string trimSpaces(std::string& text) {
  std::string typed = std::move(text);
  text = trimmedSpaces(typed);
  return typed;
}

// A validator of one finite number for which `allowed(v)` holds; `what` completes "'x' is not ...".
CLI::Validator numberValidator(std::function<bool(double)> allowed, const std::string& what, const std::string& description) {
  return CLI::Validator(
      [allowed, what](std::string& text) -> std::string {
        const std::string typed = trimSpaces(text);
        double v = 0;
        const Decimal read = readDecimal(text, v);  // as parseNumbers reads each number
        if (read == Decimal::kTooSmall) return fmt::format("'{}' is too small to represent (it would read as 0)", typed);
        if (read != Decimal::kOk || !allowed(v)) return fmt::format("'{}' is not {}", typed, what);
        return {};
      },
      description, what);
}

}  // namespace

CLI::Validator positiveNumber(double max) {
  if (!std::isfinite(max)) return numberValidator([](double v) { return v > 0; }, "a finite number > 0", "> 0");
  return numberValidator([max](double v) { return v > 0 && v <= max; }, fmt::format("a number > 0 and <= {}", max),
                         fmt::format("(0, {}]", max));
}

CLI::Validator nonNegativeNumber(double max) {
  if (!std::isfinite(max)) return numberValidator([](double v) { return v >= 0; }, "a finite number >= 0", ">= 0");
  return numberValidator([max](double v) { return v >= 0 && v <= max; }, fmt::format("a number >= 0 and <= {}", max),
                         fmt::format("[0, {}]", max));
}

CLI::Validator finiteNumber() {
  return numberValidator([](double) { return true; }, "a finite number", "finite");
}

CLI::Validator fileName() {
  return CLI::Validator([](std::string& text) -> std::string { return text.empty() ? "a file name cannot be empty" : ""; },
                        "FILE", "file name");
}

std::string readHead(const std::string& path, std::size_t bytes) {
  std::ifstream in(path, std::ios::binary);
  std::string head(bytes, '\0');
  in.read(head.data(), static_cast<std::streamsize>(bytes));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return head;
}

bool isWorldFile(const std::string& path) {
  // Only a regular file is opened (opening a FIFO with no writer would block for ever); the
  // readers refuse anything else with their own message.
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec) && readHead(path, 8) == std::string("\x89HDF\r\n\x1a\n", 8)) return true;
  return formats::lowerExtension(path) == ".h5";
}

CLI::Validator oneOf(const std::vector<std::string>& words) {
  return CLI::Validator(
      [words](std::string& text) -> std::string {
        if (std::find(words.begin(), words.end(), text) != words.end()) return "";
        return fmt::format("'{}' is not one of: {}", text, fmt::join(words, ", "));
      },
      fmt::format("{{{}}}", fmt::join(words, ",")), "one of");
}

CLI::Validator agentName() {
  return CLI::Validator([](std::string& text) -> std::string { return text.empty() ? "an agent name cannot be empty" : ""; },
                        "NAME", "agent name");
}

CLI::Validator integerRange(long long lo, long long hi) {
  const bool unbounded = hi == std::numeric_limits<long long>::max();
  const std::string allowed = unbounded ? fmt::format("an integer >= {}", lo) : fmt::format("an integer from {} to {}", lo, hi);
  return CLI::Validator(
      [lo, hi, allowed](std::string& text) -> std::string {
        const std::string typed = trimSpaces(text);
        long long v = 0;
        // A '+' sign, as the decimal number options take it ("+2"), but not before a '-'.
        const char* begin = text.c_str() + (text.size() > 1 && text[0] == '+' && text[1] != '-' ? 1 : 0);
        const char* end = text.c_str() + text.size();
        const auto [ptr, ec] = std::from_chars(begin, end, v);
        if (ec == std::errc::result_out_of_range && ptr == end && *begin != '-')
          return fmt::format("'{}' is larger than {}", typed, hi);  // all digits, past long long
        if (text.empty() || ec != std::errc() || ptr != end || v < lo || v > hi)
          return fmt::format("'{}' is not {}", typed, allowed);
        // The value checked, in plain decimal digits, is what CLI11 converts: it reads a leading
        // 0 as octal (an audit: --budget 010 ran 8 expansions, --width 0400 drew 256 pixels,
        // after 10 and 400 had passed this check; 08 was "not a number").
        text = std::to_string(v);
        return {};
      },
      unbounded ? fmt::format(">= {}", lo) : fmt::format("{}..{}", lo, hi), allowed);
}

std::string addressSpaceShortfall(unsigned long long room, const std::string& where, const std::string& purpose) {
  const unsigned long long allowed = formats::addressSpaceLimit();
  if (allowed == 0) return {};
  const unsigned long long mapped = formats::mappedAddressSpace();
  if (mapped == 0 || allowed >= mapped + room) return {};
  constexpr unsigned long long kMiB = 1ull << 20;
  return fmt::format("the address-space limit (ulimit -v) of {} MiB leaves {} MiB beyond the {} MiB mapped {}: too little {}; "
                     "raise it to at least {} MiB",
                     allowed / kMiB, allowed > mapped ? (allowed - mapped) / kMiB : 0, mapped / kMiB, where, purpose,
                     (mapped + room + kMiB - 1) / kMiB);
}

std::string threadRoomShortfall(int threads) {
  if (threads <= 0) threads = std::max(1, tbb::info::default_concurrency());
  const std::size_t stack = tbb::global_control::active_value(tbb::global_control::thread_stack_size);
  // Besides the stacks: a bake at --threads 1 (whose one worker oneTBB starts as the bake's
  // thread limit is lifted at its end) was aborted with 12.7 MiB of room and ran with 14.6.
  constexpr unsigned long long kWorkRoom = 16ull << 20;
  const auto count = static_cast<unsigned long long>(std::max(threads, 1));
  return addressSpaceShortfall(kWorkRoom + count * stack, "now",
                               fmt::format("for {} with {} MiB of stack each (or give fewer --threads)",
                                           counted(count, "thread"), (stack + (1u << 20) - 1) >> 20));
}

}  // namespace strata::cli
