#pragma once
// The JSON-lines requests of a batch (`strata path --batch`, `strata query --batch`): lines read
// straight from a file descriptor with a length limit, and each line's JSON object parsed with
// the checks every batch makes (byte-order mark, NUL, nesting, duplicate members, numbers too
// small to represent), so that both commands refuse the same lines with the same messages.

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "strata/sim/math.h"

namespace strata::cli {

/// A batch line is at most this many bytes without its newline (a request is a short object: an
/// unbounded line, such as /dev/zero's, would grow until memory ran out).
inline constexpr std::size_t kMaxRequestLine = std::size_t(1) << 20;
/// Deepest nesting of arrays and objects a request line may have.
inline constexpr int kMaxRequestDepth = 16;

/// Deepest nesting of arrays and objects in a JSON text (brackets inside strings do not count).
int jsonDepth(const std::string& text);

enum class LineRead { Line, End, TooLong, Failed };

/// The lines of a batch, read straight from a file descriptor (standard input is read where it
/// stands: opening /dev/stdin again read a file from its start, and refused a socket). A line
/// ends at a newline or at the end of the input; a read error (the stream buffer's, which getline
/// turned into the end of the file, once dropped the requests after it and exited 0) is Failed.
/// For --stream it also tells whether the next line has come (ready()) without waiting for it.
class DescriptorLines {
 public:
  explicit DescriptorLines(int fd) : fd_(fd) {}
  LineRead next(std::string& line);
  /// True when next() would return at once: a whole line (or one over the limit) is buffered, or
  /// the input has ended or failed. What is waiting is read in first, without blocking; part of
  /// a line is kept for later (so a finished line is never held back by an unfinished one).
  bool ready();

 private:
  bool fill(bool wait);

  int fd_;
  std::string buffer_;
  std::size_t begin_ = 0;    // the next line's first byte
  std::size_t scanned_ = 0;  // buffer_ before it holds no newline after begin_
  bool ended_ = false, failed_ = false;
};

/// The next block of batch lines into `texts`, their line numbers (counted in `number`) into
/// `numbers`: until `max_lines` lines or `max_bytes` bytes, or the input stops (End, TooLong or
/// Failed, returned; a line that could not be read is counted), and with `waiting_only`, after the
/// first line, only the lines already there (--stream). Line: the input goes on.
LineRead readBlock(DescriptorLines& reader, std::size_t& number, std::size_t max_lines, std::size_t max_bytes,
                   bool waiting_only, std::vector<std::string>& texts, std::vector<std::size_t>& numbers);

/// A read error or a line over the limit that ended the input at line `number`, reported, and its
/// exit code; kExitOk when the input goes on or ended.
int reportStop(LineRead stopped, const std::string& name, std::size_t number);

/// The first number of a JSON text that is not 0 but too small for a double (1e-400), which the
/// parser reads as 0. Strings are skipped; the text is valid JSON.
std::optional<std::string> underflowingNumber(const std::string& text);

/// An array of three finite numbers, else nullopt.
std::optional<sim::Vec3> pointFromJson(const nlohmann::ordered_json& value);

/// The offset of the first byte of `line` that no JSON text holds (a NUL, a control character
/// other than tab and carriage return, DEL, or a byte that is not part of valid UTF-8), nullopt
/// when there is none. `first`: a UTF-8 byte-order mark opening the line is allowed.
std::optional<std::size_t> binaryByte(const std::string& line, bool first);

/// One batch line parsed as a JSON object. `error` non-empty: the line's message, which starts
/// with "FILE:LINE: ".
struct RequestObject {
  bool blank = false;  ///< nothing but spaces and tabs: no request
  nlohmann::ordered_json request;
  std::string error;
};

/// Parses line `number` of `file` (a carriage return ending it and a byte-order mark opening
/// line 1 are dropped from `line`).
RequestObject parseRequestObject(std::string& line, std::size_t number, const std::string& file);

/// The request file of a batch, opened: "-" is standard input, named "<stdin>" in messages.
/// The descriptor is closed with the object (never standard input).
class BatchSource {
 public:
  BatchSource() = default;
  ~BatchSource();
  BatchSource(const BatchSource&) = delete;
  BatchSource& operator=(const BatchSource&) = delete;
  int fd() const { return fd_; }
  const std::string& name() const { return name_; }  ///< for messages
  bool fromStdin() const { return from_stdin_; }
  /// Opens `batch` after checking, before any work, that `output` (when not empty) can be
  /// written as batch results and is none of `inputs` nor the request file. Returns kExitOk, or
  /// the exit code of the one-line error it reported.
  int open(const std::string& batch, const std::string& output, std::vector<std::string> inputs);

 private:
  int fd_ = -1;
  std::string name_;
  bool from_stdin_ = false;
};

/// The "id" of a request line that was refused, when the line is a JSON object whose "id" is one
/// (so that a co-process can match the error to its request); null otherwise.
nlohmann::ordered_json refusedId(const std::string& text);

/// The result line of a refused request, with its newline: {"line", "id" (unless null), "error"}.
std::string errorLine(std::size_t line, const nlohmann::ordered_json& id, const std::string& error);

/// A request's "id" member checked: a string or an integer, echoed as given. Empty when valid,
/// else the message (after "FILE:LINE: ").
std::string idProblem(const nlohmann::ordered_json& id);

}  // namespace strata::cli
