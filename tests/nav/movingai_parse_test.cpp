// Moving AI .map / .scen parsing: the rules of SOURCE.md and located errors for bad input.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <istream>
#include <streambuf>
#include <string>

#include "strata/nav/grid_search.h"
#include "strata/nav/movingai.h"
#include "test_support.h"

using namespace strata;
using namespace strata::nav;

TEST_CASE("movingai: a map parses with its passable characters", "[nav][movingai]") {
  const auto map = parseMovingAiMap("type octile\r\nheight 2\r\nwidth 4\r\nmap\r\n.G@S\r\nOTW.\r\n", "m.map");
  REQUIRE(map.ok());
  CHECK(map->width == 4);
  CHECK(map->height == 2);
  CHECK(map->passable == std::vector<std::uint8_t>{1, 1, 0, 1, 0, 0, 0, 1});
  CHECK(looksLikeMovingAiMap("type octile\nheight 1"));
  // CR-ended lines: a map, whose reader then names its line ends (an audit: 'not a Moving AI map').
  CHECK(looksLikeMovingAiMap("type octile\rheight 1\r"));
  const auto bom = parseMovingAiScenarios("\xEF\xBB\xBFversion 1\n", "b.scen");
  REQUIRE_FALSE(bom.ok());
  CHECK(bom.error().message == "b.scen:1: expected 'version 1', not a UTF-8 byte-order mark before it");
  CHECK_FALSE(looksLikeMovingAiMap("\x89HDF\r\n"));
  auto grid = makeMovingAiGrid(*map);
  REQUIRE(grid.ok());
  CHECK(grid->isWalkable(3, 0));
  CHECK_FALSE(grid->isWalkable(2, 0));
  CHECK(grid->bitmap() != nullptr);  // fully rasterized
}

TEST_CASE("movingai: a map struct whose passable array is not width x height is refused", "[nav][movingai]") {
  // An audit: the grid read past the end of a short array (valgrind) and returned ok.
  MovingAiMap bad;
  bad.width = 3;
  bad.height = 3;
  bad.passable = {1, 1};
  const auto grid = makeMovingAiGrid(bad);
  REQUIRE_FALSE(grid.ok());
  CHECK(grid.error().kind == ErrorKind::BadInput);
  CHECK_THAT(grid.error().message, Catch::Contains("passable holds 2 cells, the map 3 x 3"));
  bad.passable.assign(9, 1);
  CHECK(makeMovingAiGrid(bad).ok());
}

TEST_CASE("movingai: malformed maps name the file and line", "[nav][movingai]") {
  auto error = [](const std::string& text) {
    const auto map = parseMovingAiMap(text, "bad.map");
    REQUIRE_FALSE(map.ok());
    return map.error().message;
  };
  CHECK(error("type hex\nheight 1\nwidth 1\nmap\n.\n") == "bad.map:1: unsupported map type 'hex' (expected octile)");
  CHECK(error("height 1\n") == "bad.map:1: expected 'type octile'");
  CHECK(error("type octile\nheight x\nwidth 1\nmap\n.\n") == "bad.map:2: height must be an integer in 1..65535");
  CHECK(error("type octile\nheight 2\nwidth 3\nmap\n...\n..\n") == "bad.map:6: row has 2 characters, expected 3");
  CHECK(error("type octile\nheight 2\nwidth 3\nmap\n...\n") == "bad.map:5: the map ends after 1 row, expected 2");
  CHECK(error("type octile\nheight 1\nwidth 3\nmap\n.x.\n") ==
        "bad.map:5: column 2: unknown map character 'x' (expected one of . G S @ O T W)");
  // A row with a byte that is no map character names it, also where the row's length is off
  // too (a two-byte UTF-8 letter in a 4-wide row read "row has 5 characters": an audit).
  CHECK(error("type octile\nheight 1\nwidth 4\nmap\n..\xC3\xA9.\n") ==
        "bad.map:5: column 3: unknown map character '\\xC3' (expected one of . G S @ O T W)");
  CHECK(error("type octile\nheight 1\nwidth 8\nmap\n.x.\n") ==
        "bad.map:5: column 2: unknown map character 'x' (expected one of . G S @ O T W)");
  CHECK(error("type octile\nwidth 3\nmap\n...\n").find("'height' must come before 'map'") != std::string::npos);
  CHECK(error("type octile\nheight 9\nheight 1\nwidth 3\nmap\n...\n") == "bad.map:3: 'height' given twice");
  CHECK(error("type octile\nheight 1\nwidth 3\nwidth 3\nmap\n...\n") == "bad.map:4: 'width' given twice");
  // Over 2^31 cells, or a header alone: refused before any cell is allocated.
  CHECK(error("type octile\nheight 46341\nwidth 46341\nmap\n") == "bad.map:4: 46341 x 46341 cells is over the limit of 2^31 cells");
  CHECK(error("type octile\nheight 40000\nwidth 40000\nmap\n") == "bad.map:4: the map ends after 0 rows, expected 40000");
  // File bytes in a message: printable, and short.
  CHECK(error(std::string("type octile\nheight 1\nwidth 3\nmap\n.") + '\0' + ".\n") ==
        "bad.map:5: column 2: unknown map character '\\x00' (expected one of . G S @ O T W)");
  CHECK(error("type octile\rheight 1\rwidth 1\rmap\r" + std::string(5000, '.') + "\n") ==
        "bad.map:1: lines end in a bare carriage return (expected LF or CRLF)");
  // An audit: a bare CR after the first line passed as a character of the line (a misleading
  // "height must be an integer", "map has 1 rows"), and one at the very end was accepted.
  CHECK(error("type octile\nheight 2\rwidth 3\rmap\r...\r...\r") ==
        "bad.map:2: lines end in a bare carriage return (expected LF or CRLF)");
  CHECK(error("type octile\nheight 3\nwidth 3\nmap\n...\r...\r...\n") ==
        "bad.map:5: lines end in a bare carriage return (expected LF or CRLF)");
  CHECK(error("type octile\r\nheight 1\r\nwidth 3\r\nmap\r\n...\r") ==
        "bad.map:5: lines end in a bare carriage return (expected LF or CRLF)");
  CHECK(error("type octile\nheight 1\nwidth 3\nmap\n...\n\r") ==
        "bad.map:6: lines end in a bare carriage return (expected LF or CRLF)");
  CHECK(parseMovingAiMap("type octile\r\nheight 1\r\nwidth 3\r\nmap\r\n...\r\n", "ok.map").ok());
}

TEST_CASE("movingai: scenarios parse both generations and skip blank lines", "[nav][movingai]") {
  const auto scen = parseMovingAiScenarios(
      "version 1\n0\tmaps/dao/arena.map\t49\t49\t1\t11\t1\t12\t1\n"
      "3\tmaze.map\t512\t512\t477\t130\t476\t131\t2.41421356\n\n",
      "s.scen");
  REQUIRE(scen.ok());
  REQUIRE(scen->size() == 2);
  CHECK((*scen)[0].map == "maps/dao/arena.map");
  CHECK((*scen)[1].optimal == Approx(2.41421356));
  CHECK((*scen)[1].line == 3);
  CHECK(parseMovingAiScenarios("version 1.0\n", "s.scen").ok());
}

TEST_CASE("movingai: malformed scenarios name the file and line", "[nav][movingai]") {
  auto error = [](const std::string& text) {
    const auto s = parseMovingAiScenarios(text, "bad.scen");
    REQUIRE_FALSE(s.ok());
    return s.error().message;
  };
  CHECK(error("version 2\n") == "bad.scen:1: expected 'version 1'");
  CHECK(error("version 1\r0\tm.map\t1\t1\t0\t0\t0\t0\t0\r") ==
        "bad.scen:1: lines end in a bare carriage return (expected LF or CRLF)");
  CHECK(error("version 1\n0\tm.map\t1\t1\t0\t0\t0\t0\t0\r0\tm.map\t1\t1\t0\t0\t0\t0\t0\n") ==
        "bad.scen:2: lines end in a bare carriage return (expected LF or CRLF)");
  CHECK(error("version 1\r\n0\tm.map\t1\t1\t0\t0\t0\t0\t0\r") ==
        "bad.scen:2: lines end in a bare carriage return (expected LF or CRLF)");
  CHECK(error("version 1\n0\ta.map\t4\t4\t0\t0\t1\n") == "bad.scen:2: expected 9 tab-separated fields, got 7");
  CHECK(error("version 1\n0\ta.map\t4\t4\t0\t0\t1\t1\tlong\n") == "bad.scen:2: field 9 (optimal length) is not a number >= 0");
  const auto map = parseMovingAiMap("type octile\nheight 2\nwidth 2\nmap\n.@\n..\n", "m.map");
  REQUIRE(map.ok());
  auto scen = parseMovingAiScenarios("version 1\n0\tm.map\t2\t2\t0\t0\t1\t0\t1\n", "s.scen");
  REQUIRE(scen.ok());
  CHECK(checkScenarios(*map, *scen, "s.scen").error().message == "s.scen:2: goal is on a blocked cell");
  scen = parseMovingAiScenarios("version 1\n0\tm.map\t3\t2\t0\t0\t0\t1\t1\n", "s.scen");
  CHECK(checkScenarios(*map, *scen, "s.scen").error().message == "s.scen:2: scenario is for a 3x2 map, the map is 2x2");
  scen = parseMovingAiScenarios("version 1\n0\tm.map\t2\t2\t0\t0\t5\t1\t1\n", "s.scen");
  CHECK(checkScenarios(*map, *scen, "s.scen").error().message == "s.scen:2: goal is off the map");
  // The map a scenario names, by its last path component.
  scen = parseMovingAiScenarios("version 1\n0\tmaps/dao/m.map\t2\t2\t0\t0\t0\t1\t1\n1\tother.map\t2\t2\t0\t0\t0\t1\t1\n",
                                "s.scen");
  REQUIRE(scen.ok());
  const MovingAiScenario* other = firstScenarioOfOtherMap(*scen, "data/m.map");
  REQUIRE(other != nullptr);
  CHECK(other->line == 3);
  scen = parseMovingAiScenarios("version 1\n0\tmaps\\dao\\m.map\t2\t2\t0\t0\t0\t1\t1\n", "s.scen");
  CHECK(firstScenarioOfOtherMap(*scen, "m.map") == nullptr);
}

TEST_CASE("movingai: length tolerance follows the printed precision", "[nav][movingai]") {
  CHECK(movingAiLengthMatches(3.4142135, 3.41421));
  CHECK(movingAiLengthMatches(124.7995, 124.799));
  CHECK_FALSE(movingAiLengthMatches(125.0, 124.799));
  CHECK(movingAiLengthMatches(1500.004, 1500.0));   // 1e-5 relative above 100 cells
  CHECK_FALSE(movingAiLengthMatches(1500.02, 1500.0));
}

TEST_CASE("movingai: a directory given as a map or scenario file says so", "[nav][movingai]") {
  strata::test::TempDir dir;
  std::filesystem::create_directory(dir / "d.scen");
  const auto scen = loadMovingAiScenarios(dir / "d.scen");
  REQUIRE_FALSE(scen.ok());
  CHECK_THAT(scen.error().message, Catch::EndsWith("d.scen: is a directory"));
  const auto map = loadMovingAiMap(dir.path());
  REQUIRE_FALSE(map.ok());
  CHECK_THAT(map.error().message, Catch::EndsWith(": is a directory"));
}

TEST_CASE("movingai: a scenario file past 256 MiB is refused, not read until memory runs out", "[nav][movingai]") {
  // An audit: /dev/zero as a .scen took 3 GB, and a failed allocation ended the read early in
  // silence, the bytes read so far parsed as the whole file.
  strata::test::TempDir dir;
  const auto path = dir / "huge.scen";
  { std::ofstream(path, std::ios::binary) << "version 1\n"; }
  std::filesystem::resize_file(path, (std::uintmax_t(256) << 20) + 1);  // sparse: no disk written
  const auto scen = loadMovingAiScenarios(path);
  REQUIRE_FALSE(scen.ok());
  CHECK(scen.error().message == path.string() + ": more than 256 MiB: not a Moving AI scenario file");
  std::filesystem::resize_file(path, std::uintmax_t(256) << 20);  // at the limit: read, then parsed
  const auto at_limit = loadMovingAiScenarios(path);
  REQUIRE_FALSE(at_limit.ok());
  CHECK_THAT(at_limit.error().message, Catch::Contains("huge.scen:2:"));
}

namespace {
// A stream of `prefix` and then `fill` bytes of `c`, counting the bytes handed out.
class GeneratedBuffer : public std::streambuf {
 public:
  GeneratedBuffer(std::string prefix, std::uint64_t fill, char c) : prefix_(std::move(prefix)), fill_(fill), c_(c) {}
  std::uint64_t served() const { return served_; }

 protected:
  int_type underflow() override {
    if (!prefix_done_) {
      chunk_ = prefix_;
      prefix_done_ = true;
    } else if (filled_ < fill_) {
      const std::uint64_t n = std::min<std::uint64_t>(fill_ - filled_, 1 << 16);
      chunk_.assign(static_cast<std::size_t>(n), c_);
      filled_ += n;
    } else {
      return traits_type::eof();
    }
    if (chunk_.empty()) return underflow();
    served_ += chunk_.size();
    setg(chunk_.data(), chunk_.data(), chunk_.data() + chunk_.size());
    return traits_type::to_int_type(chunk_[0]);
  }

 private:
  std::string prefix_, chunk_;
  bool prefix_done_ = false;
  std::uint64_t fill_, filled_ = 0, served_ = 0;
  char c_;
};
}  // namespace

TEST_CASE("movingai: a map is read no further than its header lets it need", "[nav][movingai]") {
  // An audit: a 3-row map padded to 1 GiB with NUL bytes was read whole (17 s, 2.1 GB) before
  // "unexpected text after the last map row", and one of 7 GB up to the 6 GiB limit (95 s, 8.4 GB).
  const std::string map = "type octile\nheight 3\nwidth 4\nmap\n....\n.@..\n....\n";
  const std::uint64_t padding = std::uint64_t(64) << 20;
  SECTION("text after the rows is said at its line, read no further than the rows allow") {
    GeneratedBuffer buffer(map, padding, '\0');
    std::istream in(&buffer);
    const auto text = readMovingAiMapRest(in, "padded.map", {});
    REQUIRE_FALSE(text.ok());
    CHECK(text.error().message == "padded.map:8: unexpected text after the last map row");
    CHECK(buffer.served() < (std::uint64_t(3) << 20));
  }
  SECTION("blanks past what a map may hold: refused for the size") {
    GeneratedBuffer buffer(map, padding, '\n');
    std::istream in(&buffer);
    const auto text = readMovingAiMapRest(in, "blank.map", {});
    REQUIRE_FALSE(text.ok());
    CHECK_THAT(text.error().message, Catch::StartsWith("blank.map: more than ") && Catch::Contains("too many for a map of 4 x 3 cells"));
    CHECK(buffer.served() < (std::uint64_t(3) << 20));
  }
  SECTION("trailing blanks and blank lines within the allowance read and parse") {
    std::string spaced = "type octile\nheight 3\nwidth 4\nmap\n....    \n.@..\t\n....\n";
    GeneratedBuffer buffer(spaced, std::uint64_t(900) << 10, '\n');
    std::istream in(&buffer);
    const auto text = readMovingAiMapRest(in, "spaced.map", {});
    REQUIRE(text.ok());
    CHECK(text->size() == spaced.size() + (std::size_t(900) << 10));
    const auto parsed = parseMovingAiMap(*text, "spaced.map");
    REQUIRE(parsed.ok());
    CHECK(parsed->width == 4);
    CHECK(parsed->passable[5] == 0);
  }
  SECTION("rows with long trailing blanks: read whole within 256 bytes a row, else refused for the size") {
    // A review: 10,000 rows of 8 cells and 200 blanks each were "the map ends after 5975 rows".
    const auto rows = [](int blanks) {
      std::string text = "type octile\nheight 10000\nwidth 8\nmap\n";
      for (int y = 0; y < 10000; ++y) text += std::string(8, '.') + std::string(static_cast<std::size_t>(blanks), ' ') + "\n";
      return text;
    };
    GeneratedBuffer fits(rows(200), 0, ' ');
    std::istream in(&fits);
    const auto text = readMovingAiMapRest(in, "blanks.map", {});
    REQUIRE(text.ok());
    CHECK(parseMovingAiMap(*text, "blanks.map").ok());
    GeneratedBuffer over(rows(400), 0, ' ');
    std::istream in_over(&over);
    const auto refused = readMovingAiMapRest(in_over, "wide.map", {});
    REQUIRE_FALSE(refused.ok());
    CHECK_THAT(refused.error().message, Catch::StartsWith("wide.map: more than ") && Catch::Contains("too many for a map of 8 x 10000 cells"));
  }
  SECTION("a header longer than the first 64 KiB is said to be") {
    // A review: a "height" line with 70,000 trailing blanks was "missing 'map' line".
    GeneratedBuffer buffer("type octile\nheight 3" + std::string(70000, ' ') + "\nwidth 4\nmap\n....\n.@..\n....\n", 0, ' ');
    std::istream in(&buffer);
    const auto text = readMovingAiMapRest(in, "long.map", {});
    REQUIRE_FALSE(text.ok());
    CHECK(text.error().message == "long.map: the header (its four lines: type, height, width, map) is longer than 64 KiB");
  }
  SECTION("a file: the same reader") {
    strata::test::TempDir dir;
    const auto path = dir / "padded.map";
    { std::ofstream(path, std::ios::binary) << map; }
    std::filesystem::resize_file(path, padding);  // sparse: NUL bytes, no disk written
    const auto loaded = loadMovingAiMap(path);
    REQUIRE_FALSE(loaded.ok());
    CHECK(loaded.error().message == path.string() + ":8: unexpected text after the last map row");
  }
}
