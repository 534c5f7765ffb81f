// Moving AI Lab map and scenario parsing (movingai.com/benchmarks/formats.html; the rules are
// restated in movingai.h). Bad input is a located error, never an assert.

#include "strata/nav/movingai.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <istream>
#include <new>
#include <utility>

namespace strata::nav {

namespace {

// Splits text into lines, dropping a trailing '\r' from each.
std::vector<std::string_view> splitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

std::string_view trimRight(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return trimRight(s);
}

bool parseInt(std::string_view s, int& out) {
  s = trim(s);
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

bool parseDouble(std::string_view s, double& out) {
  s = trim(s);
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size() && std::isfinite(out);
}

Error located(const std::string& name, std::size_t line, const std::string& problem) {
  return Error::badInput(name + ":" + std::to_string(line) + ": " + problem);
}

// Appends the rest of `in` to `text` until the stream ends or `text` holds more than `limit`
// bytes; true when it stopped for the limit (then `text` holds limit + 1 bytes). Read in blocks
// of at most 1 MiB: `buffer << in.rdbuf()` caught a failed allocation itself and returned what it
// had read so far, which was then parsed as the whole file (an audit: /dev/zero as a .scen).
Result<bool> readBlocks(std::istream& in, const std::string& name, std::string& text, std::uint64_t limit) {
  try {
    constexpr std::uint64_t kBlock = std::uint64_t(1) << 20;
    while (in && text.size() <= limit) {
      const std::size_t had = text.size();
      const auto block = static_cast<std::size_t>(std::min<std::uint64_t>(kBlock, limit + 1 - had));
      text.resize(had + block);
      in.read(text.data() + had, static_cast<std::streamsize>(block));
      text.resize(had + static_cast<std::size_t>(in.gcount()));
    }
  } catch (const std::bad_alloc&) {
    return Error::runtime(name + ": out of memory reading it (" + std::to_string(text.size()) + " bytes read)");
  }
  if (in.bad()) return Error::runtime(name + ": read error");
  return text.size() > limit;
}

// The rest of `in` appended to `text`, refused past `max_bytes` in all (what names it: "a Moving
// AI scenario file").
Result<std::string> readRest(std::istream& in, const std::string& name, std::string text, std::uint64_t max_bytes,
                             const char* what) {
  const Result<bool> over = readBlocks(in, name, text, max_bytes);
  if (!over) return over.error();
  if (*over) return Error::badInput(name + ": more than " + std::to_string(max_bytes >> 20) + " MiB: not " + what);
  return text;
}

// What `read(stream, name)` makes of the file at `path` (a directory or a file that does not
// open refused first).
template <class Read>
Result<std::string> readFile(const std::filesystem::path& path, Read&& read) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return Error::badInput(path.string() + ": is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::cannotOpen(path.string());
  return read(in, path.string());
}

// The whole file (readRest).
Result<std::string> readText(const std::filesystem::path& path, std::uint64_t max_bytes, const char* what) {
  return readFile(path, [&](std::istream& in, const std::string& name) { return readRest(in, name, {}, max_bytes, what); });
}

// (2^31 cells at most, each row a line: the rows' bytes and line ends.)
constexpr std::uint64_t kMaxMapBytes = std::uint64_t(6) << 30;
constexpr const char* kMapWhat = "a Moving AI map of at most 2^31 cells";

// Text from a file quoted in a message: at most 40 bytes, anything but printable ASCII as \xNN
// (a NUL byte, a whole map on one line of CR endings).
std::string quoted(std::string_view text) {
  std::string out;
  const std::size_t shown = std::min<std::size_t>(text.size(), 40);
  for (std::size_t k = 0; k < shown; ++k) {
    const auto c = static_cast<unsigned char>(text[k]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02X", c);
      out += hex;
    }
  }
  if (shown < text.size()) out += "...";
  return out;
}

// "key value" header line; returns the value.
bool headerValue(std::string_view line, std::string_view key, std::string_view& value) {
  line = trim(line);
  if (line.substr(0, key.size()) != key) return false;
  if (line.size() == key.size()) return false;
  if (line[key.size()] != ' ' && line[key.size()] != '\t') return false;
  value = trim(line.substr(key.size()));
  return true;
}

}  // namespace

bool looksLikeMovingAiMap(std::string_view text) {
  // The first line ends at LF or CR: a map of CR-ended lines is one, and its reader says what is
  // wrong with it (an audit: 'not a Moving AI map' of a file whose first line is 'type octile').
  const std::size_t end = text.find_first_of("\r\n");
  const std::string_view first = trim(text.substr(0, end == std::string_view::npos ? text.size() : end));
  std::string_view value;
  // Only the one type there is: a mesh whose first line reads "type quad" is no map (strata path
  // took such an OBJ for one, where import, query and render read it as the mesh it is).
  return headerValue(first, "type", value) && value == "octile";
}

namespace {

// The header of a map (`lines` as splitLines gives them): "type octile", then height and width
// in either order, then "map". Sets map.width and map.height; returns the index of the "map"
// line. The 2^31-cell limit and the rows are the caller's.
Result<std::size_t> parseMapHeader(const std::vector<std::string_view>& lines, const std::string& name, MovingAiMap& map) {
  std::string_view value;
  if (lines.empty() || !headerValue(lines[0], "type", value)) return located(name, 1, "expected 'type octile'");
  if (value != "octile") return located(name, 1, "unsupported map type '" + quoted(value) + "' (expected octile)");
  bool have_height = false, have_width = false;
  std::size_t i = 1;
  for (; i < lines.size(); ++i) {
    const std::string_view line = trim(lines[i]);
    if (line == "map") break;
    if (headerValue(line, "height", value)) {
      if (have_height) return located(name, i + 1, "'height' given twice");
      if (!parseInt(value, map.height) || map.height < 1 || map.height > 65535)
        return located(name, i + 1, "height must be an integer in 1..65535");
      have_height = true;
    } else if (headerValue(line, "width", value)) {
      if (have_width) return located(name, i + 1, "'width' given twice");
      if (!parseInt(value, map.width) || map.width < 1 || map.width > 65535)
        return located(name, i + 1, "width must be an integer in 1..65535");
      have_width = true;
    } else {
      return located(name, i + 1, "expected 'height N', 'width N' or 'map'");
    }
  }
  if (i >= lines.size()) return located(name, lines.size(), "missing 'map' line");
  if (!have_height) return located(name, i + 1, "'height' must come before 'map'");
  if (!have_width) return located(name, i + 1, "'width' must come before 'map'");
  return i;
}

}  // namespace

std::int64_t movingAiDeclaredCells(std::string_view head) {
  MovingAiMap map;
  if (!parseMapHeader(splitLines(head), {}, map)) return 0;
  return static_cast<std::int64_t>(map.width) * map.height;
}

namespace {
// The line (1-based) of the first carriage return not followed by a line feed, 0 when none: such
// a file breaks (some of) its lines with bare CRs, which neither LF nor CRLF reading would split
// as the author meant. Also a lone CR at the end of the file, or on a line of its own.
std::size_t bareCarriageReturnLine(std::string_view text) {
  for (std::size_t at = text.find('\r'); at != std::string_view::npos; at = text.find('\r', at + 1))
    if (at + 1 == text.size() || text[at + 1] != '\n')
      return static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n')) + 1;
  return 0;
}
}  // namespace

Result<MovingAiMap> parseMovingAiMap(std::string_view text, const std::string& name) {
  if (const std::size_t line = bareCarriageReturnLine(text); line != 0)
    return located(name, line, "lines end in a bare carriage return (expected LF or CRLF)");
  const std::vector<std::string_view> lines = splitLines(text);
  MovingAiMap map;
  const Result<std::size_t> map_line = parseMapHeader(lines, name, map);
  if (!map_line) return map_line.error();
  const std::size_t i = *map_line;
  if (static_cast<std::int64_t>(map.width) * map.height > (std::int64_t{1} << 31))
    return located(name, i + 1, std::to_string(map.width) + " x " + std::to_string(map.height) +
                                    " cells is over the limit of 2^31 cells");
  // The rows are counted before the cells are allocated: a header alone must not cost gigabytes.
  if (const std::size_t rows = lines.size() - (i + 1); rows < static_cast<std::size_t>(map.height))
    return located(name, lines.size(), "the map ends after " + std::to_string(rows) + (rows == 1 ? " row" : " rows") +
                                           ", expected " + std::to_string(map.height));
  map.passable.assign(static_cast<std::size_t>(map.width) * static_cast<std::size_t>(map.height), 0);
  for (int y = 0; y < map.height; ++y) {
    const std::size_t line_index = i + 1 + static_cast<std::size_t>(y);
    const std::string_view row = trimRight(lines[line_index]);  // editors leave trailing blanks
    // The characters first: a byte that is no map character (one of a UTF-8 letter's two) made
    // the row one "character" longer than it looked, and the message blamed its length (an audit).
    for (std::size_t x = 0; x < row.size(); ++x) {
      const char c = row[x];
      if (c == '.' || c == 'G' || c == 'S' || c == '@' || c == 'O' || c == 'T' || c == 'W') continue;
      return located(name, line_index + 1, "column " + std::to_string(x + 1) + ": unknown map character '" +
                                               quoted(std::string_view(&c, 1)) + "' (expected one of . G S @ O T W)");
    }
    if (row.size() != static_cast<std::size_t>(map.width))
      return located(name, line_index + 1, "row has " + std::to_string(row.size()) + " characters, expected " + std::to_string(map.width));
    for (int x = 0; x < map.width; ++x) {
      const char c = row[static_cast<std::size_t>(x)];
      map.passable[static_cast<std::size_t>(y) * static_cast<std::size_t>(map.width) + static_cast<std::size_t>(x)] =
          (c == '.' || c == 'G' || c == 'S') ? 1 : 0;
    }
  }
  for (std::size_t extra = i + 1 + static_cast<std::size_t>(map.height); extra < lines.size(); ++extra)
    if (!trim(lines[extra]).empty()) return located(name, extra + 1, "unexpected text after the last map row");
  return map;
}

namespace {

// A map's text: `text` (already read) and the rest of `in`, read no further than the map can
// need. Once its header is read (up to the 'map' line, within the first 64 KiB), its rows take
// height x (width + 2) bytes with their line ends; the text may hold as much again and 256 bytes
// a row more (trailing blanks) and 1 MiB more (blank lines after the rows). Past that, what was
// read is parsed, so that an error in the rows or text after them is said at its line; when it
// parses, the file is refused for its size. (An audit: a 3-row map padded to 1 GiB with NUL
// bytes was read whole, 17 s and 2.1 GB, before "unexpected text after the last map row", and
// one of 7 GB up to the 6 GiB limit, 95 s and 8.4 GB.)
Result<std::string> readMapText(std::istream& in, const std::string& name, std::string text) {
  constexpr std::uint64_t kHead = std::uint64_t(64) << 10, kBlankLines = std::uint64_t(1) << 20;
  constexpr std::uint64_t kRowBlanks = 256;  // trailing blanks a row may carry beyond its own length
  // The header first: a valid one is four short lines.
  const Result<bool> long_head = readBlocks(in, name, text, kHead - 1);
  if (!long_head) return long_head.error();
  if (!*long_head) return text;  // all of it
  // A header line cut at kHead would be misread (a review: a valid "height" line of 70,000
  // trailing blanks was "missing 'map' line"): its four lines must end within it.
  if (std::count(text.begin(), text.end(), '\n') < 4)
    return Error::badInput(name + ": the header (its four lines: type, height, width, map) is longer than " +
                           std::to_string(kHead >> 10) + " KiB");
  // The rows' size bounds the rest.
  const std::vector<std::string_view> lines = splitLines(text);
  MovingAiMap header;
  const Result<std::size_t> map_line = parseMapHeader(lines, name, header);
  if (!map_line) return text;  // the parser says what is wrong with the header
  const std::uint64_t rows_start = static_cast<std::uint64_t>(lines[*map_line].data() - text.data()) + lines[*map_line].size() + 1;
  const std::uint64_t rows = static_cast<std::uint64_t>(header.height) * (static_cast<std::uint64_t>(header.width) + 2);
  const std::uint64_t cap =
      std::min<std::uint64_t>(kMaxMapBytes, rows_start + 2 * rows + static_cast<std::uint64_t>(header.height) * kRowBlanks + kBlankLines);
  const Result<bool> over = readBlocks(in, name, text, cap);
  if (!over) return over.error();
  if (!*over) return text;
  // What was read, to its last whole line, parsed: an error there is the file's (text after the
  // rows, a bad row); rows cut short by the cap are not (a review: a map of long trailing blanks
  // was "the map ends after 5975 rows").
  text.resize(static_cast<std::size_t>(cap));
  if (!text.empty() && text.back() == '\r') text.pop_back();  // a CRLF the cap split
  const std::size_t whole = text.rfind('\n');
  const std::string_view whole_lines(text.data(), whole == std::string::npos ? 0 : whole + 1);
  if (auto parsed = parseMovingAiMap(whole_lines, name); !parsed) {
    if (parsed.error().message.find(": the map ends after ") == std::string::npos) return parsed.error();
  } else if (auto all = parseMovingAiMap(text, name); !all) {
    return all.error();  // the rows whole, text after them on the line the cap cut
  }
  if (cap == kMaxMapBytes) return Error::badInput(name + ": more than " + std::to_string(cap >> 20) + " MiB: not " + kMapWhat);
  return Error::badInput(name + ": more than " + std::to_string(cap) + " bytes, too many for a map of " + std::to_string(header.width) +
                         " x " + std::to_string(header.height) + " cells (its rows, as much again and " + std::to_string(kRowBlanks) +
                         " bytes a row of trailing blanks, and at most 1 MiB of blank lines after them)");
}

}  // namespace

Result<MovingAiMap> loadMovingAiMap(const std::filesystem::path& path) {
  auto text = readFile(path, [](std::istream& in, const std::string& name) { return readMapText(in, name, {}); });
  if (!text) return text.error();
  return parseMovingAiMap(*text, path.string());
}

Result<std::string> readMovingAiMapRest(std::istream& in, const std::string& name, std::string head) {
  return readMapText(in, name, std::move(head));
}

Result<std::vector<MovingAiScenario>> parseMovingAiScenarios(std::string_view text, const std::string& name) {
  if (const std::size_t line = bareCarriageReturnLine(text); line != 0)
    return located(name, line, "lines end in a bare carriage return (expected LF or CRLF)");
  const std::vector<std::string_view> lines = splitLines(text);
  std::string_view value;
  if (lines.empty() || !headerValue(lines[0], "version", value) || (value != "1" && value != "1.0"))
    return located(name, 1, text.rfind("\xEF\xBB\xBF", 0) == 0
                                ? "expected 'version 1', not a UTF-8 byte-order mark before it"  // as maps say (an audit)
                                : "expected 'version 1'");
  std::vector<MovingAiScenario> scenarios;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::string_view line = trimRight(lines[i]);  // a trailing tab is no tenth field
    if (trim(line).empty()) continue;
    std::vector<std::string_view> fields;
    std::size_t start = 0;
    for (;;) {
      const std::size_t tab = line.find('\t', start);
      fields.push_back(line.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start));
      if (tab == std::string_view::npos) break;
      start = tab + 1;
    }
    if (fields.size() != 9)
      return located(name, i + 1, "expected 9 tab-separated fields, got " + std::to_string(fields.size()));
    MovingAiScenario s;
    s.line = static_cast<int>(i + 1);
    s.map = std::string(trim(fields[1]));
    if (!parseInt(fields[0], s.bucket)) return located(name, i + 1, "field 1 (bucket) is not an integer");
    if (!parseInt(fields[2], s.map_width) || s.map_width < 1) return located(name, i + 1, "field 3 (map width) is not a positive integer");
    if (!parseInt(fields[3], s.map_height) || s.map_height < 1) return located(name, i + 1, "field 4 (map height) is not a positive integer");
    if (!parseInt(fields[4], s.start_x)) return located(name, i + 1, "field 5 (start x) is not an integer");
    if (!parseInt(fields[5], s.start_y)) return located(name, i + 1, "field 6 (start y) is not an integer");
    if (!parseInt(fields[6], s.goal_x)) return located(name, i + 1, "field 7 (goal x) is not an integer");
    if (!parseInt(fields[7], s.goal_y)) return located(name, i + 1, "field 8 (goal y) is not an integer");
    if (!parseDouble(fields[8], s.optimal) || s.optimal < 0)
      return located(name, i + 1, "field 9 (optimal length) is not a number >= 0");
    scenarios.push_back(std::move(s));
  }
  return scenarios;
}

Result<std::vector<MovingAiScenario>> loadMovingAiScenarios(const std::filesystem::path& path) {
  // (The benchmark's largest scenario files are a few MiB.)
  auto text = readText(path, std::uint64_t(256) << 20, "a Moving AI scenario file");
  if (!text) return text.error();
  return parseMovingAiScenarios(*text, path.string());
}

namespace {
std::string_view lastComponent(std::string_view path) {
  const std::size_t slash = path.find_last_of("/\\");
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}
}  // namespace

const MovingAiScenario* firstScenarioOfOtherMap(const std::vector<MovingAiScenario>& scenarios, std::string_view map_file) {
  const std::string_view map_name = lastComponent(map_file);
  for (const MovingAiScenario& s : scenarios)
    if (lastComponent(s.map) != map_name) return &s;
  return nullptr;
}

Status checkScenarios(const MovingAiMap& map, const std::vector<MovingAiScenario>& scenarios, const std::string& name) {
  for (const MovingAiScenario& s : scenarios) {
    if (s.map_width != map.width || s.map_height != map.height)
      return located(name, static_cast<std::size_t>(s.line),
                     "scenario is for a " + std::to_string(s.map_width) + "x" + std::to_string(s.map_height) +
                         " map, the map is " + std::to_string(map.width) + "x" + std::to_string(map.height));
    auto passable = [&](int x, int y) {
      return x >= 0 && y >= 0 && x < map.width && y < map.height &&
             map.passable[static_cast<std::size_t>(y) * static_cast<std::size_t>(map.width) + static_cast<std::size_t>(x)];
    };
    if (s.start_x < 0 || s.start_y < 0 || s.start_x >= map.width || s.start_y >= map.height)
      return located(name, static_cast<std::size_t>(s.line), "start is off the map");
    if (s.goal_x < 0 || s.goal_y < 0 || s.goal_x >= map.width || s.goal_y >= map.height)
      return located(name, static_cast<std::size_t>(s.line), "goal is off the map");
    if (!passable(s.start_x, s.start_y)) return located(name, static_cast<std::size_t>(s.line), "start is on a blocked cell");
    if (!passable(s.goal_x, s.goal_y)) return located(name, static_cast<std::size_t>(s.line), "goal is on a blocked cell");
  }
  return Ok{};
}

Result<Grid> makeMovingAiGrid(const MovingAiMap& map) {
  // The struct's fields are public: a passable array of another size than the map's cells was
  // read past its end when the grid was rasterized.
  if (map.width > 0 && map.height > 0 &&
      map.passable.size() != static_cast<std::size_t>(map.width) * static_cast<std::size_t>(map.height))
    return Error::badInput("Moving AI map: passable holds " + std::to_string(map.passable.size()) + " cells, the map " +
                           std::to_string(map.width) + " x " + std::to_string(map.height));
  GridSettings settings;
  settings.width_cells = map.width;
  settings.depth_cells = map.height;
  settings.cell_size = 1.0;
  const int width = map.width;
  auto grid = Grid::create(settings, [passable = map.passable, width](const sim::Vec3& center) {
    const auto x = static_cast<std::size_t>(center.x), z = static_cast<std::size_t>(center.z);
    CellProbe probe;
    probe.walkable = passable[z * static_cast<std::size_t>(width) + x] != 0;
    return probe;
  });
  if (grid) grid->rasterizeAll();
  return grid;
}

bool movingAiLengthMatches(double length, double optimal) {
  return std::abs(length - optimal) <= std::max(1e-3, 1e-5 * optimal);
}

}  // namespace strata::nav
