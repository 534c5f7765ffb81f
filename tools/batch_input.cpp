// The JSON-lines input of a batch (batch_input.h).

#include "batch_input.h"

#include <fmt/format.h>

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "baked_input.h"
#include "command.h"

namespace strata::cli {

using Json = nlohmann::ordered_json;

int jsonDepth(const std::string& text) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

LineRead DescriptorLines::next(std::string& line) {
  line.clear();
  for (;;) {
    if (const std::size_t newline = buffer_.find('\n', scanned_); newline != std::string::npos) {
      if (newline - begin_ > kMaxRequestLine) return LineRead::TooLong;
      line.assign(buffer_, begin_, newline - begin_);
      begin_ = scanned_ = newline + 1;
      return LineRead::Line;
    }
    scanned_ = buffer_.size();
    if (buffer_.size() - begin_ > kMaxRequestLine) return LineRead::TooLong;
    if (failed_) return LineRead::Failed;
    if (ended_) {
      if (begin_ == buffer_.size()) return LineRead::End;
      line.assign(buffer_, begin_, std::string::npos);
      begin_ = scanned_ = buffer_.size();
      return LineRead::Line;
    }
    fill(true);
  }
}

bool DescriptorLines::ready() {
  for (;;) {
    if (failed_ || ended_ || buffer_.find('\n', scanned_) != std::string::npos || buffer_.size() - begin_ > kMaxRequestLine)
      return true;
    scanned_ = buffer_.size();
    if (!fill(false)) return false;
  }
}

// Reads what is there, waiting for it when `wait` (also on a descriptor set non-blocking);
// false when nothing could be read without waiting.
bool DescriptorLines::fill(bool wait) {
  if (begin_ > 0) {  // the lines taken are dropped
    buffer_.erase(0, begin_);
    scanned_ -= begin_;
    begin_ = 0;
  }
  char block[1 << 16];
  for (;;) {
    pollfd waiting{fd_, POLLIN, 0};
    const int polled = ::poll(&waiting, 1, wait ? -1 : 0);
    if (polled < 0 && errno == EINTR) continue;
    // (Where poll(2) fails, the descriptor is read when waiting is allowed; if it is
    // non-blocking and has nothing, the wait is a pause of 10 ms, not a spin: a review.)
    if (polled == 0 || (polled < 0 && !wait)) return false;
    const bool unpolled = polled < 0;
    const ssize_t got = ::read(fd_, block, sizeof block);
    if (got > 0) {
      buffer_.append(block, static_cast<std::size_t>(got));
      return true;
    }
    if (got == 0) {
      ended_ = true;
      return true;
    }
    if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) {
      if (!wait) return false;
      if (unpolled && errno != EINTR) ::usleep(10000);
      continue;
    }
    failed_ = true;
    return true;
  }
}

// The next block of batch lines into `texts`, their line numbers (counted in `number`) into
// `numbers`: until `max_lines` lines or `max_bytes` bytes, or the input stops (End, TooLong or
// Failed, returned; a line that could not be read is counted), and with `waiting_only`, after the
// first line, only the lines already there (--stream). Line: the input goes on.
LineRead readBlock(DescriptorLines& reader, std::size_t& number, std::size_t max_lines, std::size_t max_bytes,
                   bool waiting_only, std::vector<std::string>& texts, std::vector<std::size_t>& numbers) {
  texts.clear();
  numbers.clear();
  std::size_t bytes = 0;
  std::string line;
  for (;;) {
    const LineRead read = reader.next(line);
    if (read != LineRead::Line) {
      if (read != LineRead::End) ++number;
      return read;
    }
    ++number;
    bytes += line.size();
    texts.push_back(std::move(line));
    numbers.push_back(number);
    if (texts.size() >= max_lines || bytes >= max_bytes || (waiting_only && !reader.ready())) return LineRead::Line;
  }
}

// A read error or a line over the limit that ended the input at line `number`, reported, and its
// exit code; kExitOk when the input goes on or ended.
int reportStop(LineRead stopped, const std::string& name, std::size_t number) {
  if (stopped == LineRead::Failed)
    return reportError(Error::runtime(fmt::format("{}:{}: cannot read the file (an I/O error)", name, number)));
  if (stopped == LineRead::TooLong)
    return badInput(fmt::format("{}:{}: longer than {} bytes (a request is one short JSON object per line)", name, number,
                                kMaxRequestLine));
  return kExitOk;
}

// The first number of a JSON text that is not 0 but too small for a double (1e-400), which the
// parser reads as 0: refused as 1e400 is (an audit: "spacing": 1e-400 meant none, while a
// spacing from 0 to 0.05 is an error). Strings are skipped; the text is valid JSON.
std::optional<std::string> underflowingNumber(const std::string& text) {
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
      ++i;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      const std::size_t end = text.find_first_not_of("0123456789+-.eE", i);
      const std::string number = text.substr(i, end == std::string::npos ? std::string::npos : end - i);
      errno = 0;
      if (roundsToZero(std::strtod(number.c_str(), nullptr))) return number;
      i += number.size();
    } else {
      ++i;
    }
  }
  return std::nullopt;
}

std::optional<sim::Vec3> pointFromJson(const Json& value) {
  if (!value.is_array() || value.size() != 3) return std::nullopt;
  sim::Vec3 p;
  for (int i = 0; i < 3; ++i) {
    if (!value[i].is_number()) return std::nullopt;
    const double v = value[i].get<double>();
    if (!std::isfinite(v)) return std::nullopt;
    (i == 0 ? p.x : i == 1 ? p.y : p.z) = v;
  }
  return p;
}

std::optional<std::size_t> binaryByte(const std::string& line, bool first) {
  std::size_t i = first && line.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;
  while (i < line.size()) {
    const auto c = static_cast<unsigned char>(line[i]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) return i;
      ++i;
      continue;
    }
    // The length of a UTF-8 sequence from its lead byte (overlong and surrogate forms are left
    // to the JSON parser, which names them); continuation bytes must follow.
    const std::size_t length = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (length == 0 || i + length > line.size()) return i;
    for (std::size_t k = 1; k < length; ++k)
      if ((static_cast<unsigned char>(line[i + k]) & 0xC0) != 0x80) return i;
    i += length;
  }
  return std::nullopt;
}

RequestObject parseRequestObject(std::string& line, std::size_t number, const std::string& file) {
  RequestObject out;
  const auto fail = [&](std::string message) {
    out.error = std::move(message);
    return out;
  };
  if (!line.empty() && line.back() == '\r') line.pop_back();
  // A UTF-8 byte-order mark opening the file is no part of a request (alone on its line, that
  // line is blank).
  if (number == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
  if (line.find_first_not_of(" \t") == std::string::npos) {
    out.blank = true;
    return out;
  }
  // (The file and line of an error message: only formatted for one.)
  const auto where = [&] { return fmt::format("{}:{}", file, number); };
  // Anywhere else it is a malformed line (the JSON parser skips one opening its input, so two
  // BOMs, or one opening a later line, read as a request).
  if (line.rfind("\xEF\xBB\xBF", 0) == 0)
    return fail(where() + ": a UTF-8 byte-order mark that does not open the file");
  // A NUL ends the parser's input (what follows it would be ignored), and nesting far deeper
  // than a request's two levels would overflow the stack of the JSON value's recursive copy.
  if (line.find('\0') != std::string::npos) return fail(where() + ": contains a NUL byte");
  if (jsonDepth(line) > kMaxRequestDepth)
    return fail(where() + ": nested deeper than " + std::to_string(kMaxRequestDepth) + " levels");
  // Parsed with the reason kept (a syntax error, a number out of range such as 1e400), and the
  // request's own members checked: a duplicate or unknown member (a typo) is an error.
  std::set<std::string> members;
  std::string duplicate;
  Json request;
  try {
    request = Json::parse(line, [&](int depth, Json::parse_event_t event, Json& parsed) {
      if (event == Json::parse_event_t::key && depth == 1 && !members.insert(parsed.get<std::string>()).second &&
          duplicate.empty())
        duplicate = parsed.get<std::string>();
      return true;
    });
  } catch (const Json::exception& e) {
    std::string reason = e.what();
    if (const std::size_t close = reason.find("] "); reason.rfind("[json.exception", 0) == 0 && close != std::string::npos)
      reason = reason.substr(close + 2);
    // A carriage return not followed by a line feed (a file from an old Mac, or two requests
    // joined) is JSON whitespace, so the parser names only what follows it (an audit).
    if (const std::size_t cr = line.find('\r'); cr != std::string::npos)
      reason += fmt::format(" (a carriage return without a line feed at byte {} of the line: a line ends with a line feed)", cr + 1);
    return fail(where() + ": not valid JSON: " + reason);
  }
  if (!request.is_object()) return fail(where() + ": not a JSON object");
  if (!duplicate.empty()) return fail(where() + ": member \"" + duplicate + "\" given twice");
  if (const auto tiny = underflowingNumber(line))
    return fail(where() + ": the number " + *tiny + " is too small to represent (it would read as 0)");
  out.request = std::move(request);
  return out;
}

// The "id" of a request line that was refused, when the line is a JSON object whose "id" is one
// (so that a co-process can match the error to its request); null otherwise.
Json refusedId(const std::string& text) {
  // (Not a line refused for its nesting or a NUL: parsing it whole cost as much as the rest.)
  if (text.find('\0') != std::string::npos || jsonDepth(text) > kMaxRequestDepth) return Json();
  Json doc = Json::parse(text, nullptr, false);
  if (!doc.is_object() || !doc.contains("id")) return Json();
  const Json& id = doc["id"];
  return id.is_string() || id.is_number_integer() ? id : Json();
}

BatchSource::~BatchSource() {
  if (fd_ > STDIN_FILENO) ::close(fd_);
}

int BatchSource::open(const std::string& batch, const std::string& output, std::vector<std::string> inputs) {
  from_stdin_ = batch == "-";
  name_ = from_stdin_ ? "<stdin>" : batch;
  const std::string source = from_stdin_ ? "/dev/stdin" : batch;
  std::error_code ec;
  if (std::filesystem::is_directory(source, ec)) return badInput(name_ + ": is a directory");
  // Before any work: the results file can be written and is none of the inputs.
  inputs.push_back(source);
  if (!output.empty())
    if (const int code = checkNamedOutput(output, inputs, {".jsonl", ".ndjson", ".json"}, "batch results are"); code != kExitOk)
      return code;
  // A closed standard input is said so, before the world is read (whose file could otherwise
  // take descriptor 0).
  if (from_stdin_ && ::fcntl(STDIN_FILENO, F_GETFD) < 0) return badInput("<stdin>: standard input is closed");
  fd_ = from_stdin_ ? STDIN_FILENO : ::open(source.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) return reportError(Error::cannotOpen(name_, source));
  return kExitOk;
}

std::string errorLine(std::size_t line, const Json& id, const std::string& error) {
  Json doc;
  doc["line"] = line;
  if (!id.is_null()) doc["id"] = id;
  doc["error"] = error;
  return printedJson(std::move(doc)) + "\n";
}

std::string idProblem(const Json& id) {
  // Echoed as given: strings and integers only (a JSON number with a fraction or exponent was
  // printed back shortened, 1.0000000000000002 as 1.0: the re-audit).
  if (id.is_string() || id.is_number_integer()) return {};
  return "\"id\" must be a string or an integer (from -2^63 to 2^64 - 1)";
}

}  // namespace strata::cli
