// Black-box tests of `strata path MAP.map --scen FILE.scen`: summary and JSON output, exit codes
// (0 all matching, 1 a mismatch, 2 malformed input naming file and line); and of one request on
// a map (`--from X,Y --to X,Y`: exit 0 a route, 3 a failure reason).

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <queue>
#include <random>
#include <thread>

#include "test_support.h"

using strata::test::runStrata;
using strata::test::sharedData;
using strata::test::TempDir;

namespace {

std::string movingAi(const std::string& name) { return (sharedData() / "movingai" / name).string(); }

void write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

}  // namespace

TEST_CASE("strata path --scen answers every arena scenario optimally", "[cli][path]") {
  auto run = runStrata({"path", movingAi("arena.map"), "--scen", movingAi("arena.map.scen")});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(run.out.find("scenarios: 160") != std::string::npos);
  CHECK(run.out.find("mismatches: 0") != std::string::npos);
  CHECK(run.out.find("us/query") != std::string::npos);
}

TEST_CASE("strata path --scen --json: one document with results in .scen order", "[cli][path]") {
  for (const char* method : {"astar", "theta"}) {
    auto run = runStrata({"path", movingAi("den312d.map"), "--scen", movingAi("den312d.map.scen"), "--method", method, "--json"});
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    const auto doc = nlohmann::json::parse(run.out);
    CHECK(doc["scenarios"] == 320);
    CHECK(doc["mismatches"] == 0);
    CHECK(doc["mean_us"].get<double>() > 0);
    CHECK(doc["p99_us"].get<double>() >= doc["mean_us"].get<double>() * 0.0);
    REQUIRE(doc["results"].size() == 320);
    for (std::size_t i = 0; i < 320; ++i) {
      CHECK(doc["results"][i]["index"] == i);
      if (std::string(method) == "astar")
        CHECK(doc["results"][i]["length"].get<double>() == Approx(doc["results"][i]["optimal"].get<double>()).margin(1e-3));
      else
        CHECK(doc["results"][i]["length"].get<double>() <= doc["results"][i]["optimal"].get<double>() + 1e-3);
    }
  }
}

TEST_CASE("strata path --scen: a wrong optimal length is a mismatch and exit 1", "[cli][path]") {
  TempDir dir;
  write(dir / "tiny.map", "type octile\nheight 3\nwidth 4\nmap\n....\n.@@.\n....\n");
  // Line 2 is right (3 straight steps); line 3 claims 2 for a route of 5 (the blocked cells
  // forbid both diagonals past their corners).
  write(dir / "tiny.map.scen", "version 1\n0\ttiny.map\t4\t3\t0\t0\t3\t0\t3\n1\ttiny.map\t4\t3\t0\t0\t3\t2\t2\n");
  auto run = runStrata({"path", (dir / "tiny.map").string(), "--scen", (dir / "tiny.map.scen").string(), "--json"});
  CHECK(run.exit_code == 1);
  const auto doc = nlohmann::json::parse(run.out);
  CHECK(doc["mismatches"] == 1);
  CHECK(doc["results"][1]["length"].get<double>() == Approx(5.0));
  CHECK(doc["results"][1]["mismatch"] == true);
}

TEST_CASE("strata path --scen: trailing blanks on map rows and scenario lines are not data", "[cli][path]") {
  TempDir dir;
  // An editor's trailing space on a row, a trailing tab after the optimal length.
  write(dir / "t.map", "type octile\nheight 2\nwidth 3\nmap\n... \n.@.\t\n");
  write(dir / "t.scen", "version 1\n0\tt.map\t3\t2\t0\t0\t2\t0\t2\t\n");
  auto run = runStrata({"path", (dir / "t.map").string(), "--scen", (dir / "t.scen").string(), "--json"});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(nlohmann::json::parse(run.out)["scenarios"] == 1);
  // A blank inside a row is still an unknown character.
  write(dir / "t.map", "type octile\nheight 2\nwidth 3\nmap\n. .\n.@.\n");
  run = runStrata({"path", (dir / "t.map").string(), "--scen", (dir / "t.scen").string()});
  CHECK(run.exit_code == 2);
  CHECK_THAT(run.err, Catch::Contains("t.map:5: column 2: unknown map character ' '"));
}

TEST_CASE("strata path --scen: a map from a FIFO or a pipe is read once", "[cli][path]") {
  TempDir dir;
  const std::string text = "type octile\nheight 2\nwidth 3\nmap\n...\n...\n";
  write(dir / "t.scen", "version 1\n0\tt.map\t3\t2\t0\t0\t2\t1\t2.41421356\n");
  const auto fifo = dir / "t.map";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // The writer blocks until strata opens the FIFO; opened a second time, strata would wait for
  // a writer that never comes (the run's timeout ends it).
  std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << text; });
  auto run = runStrata({"path", fifo.string(), "--scen", (dir / "t.scen").string()}, 20);
  // Should strata never have opened it, open it here so that the writer returns.
  const int unblock = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  writer.join();
  if (unblock >= 0) ::close(unblock);
  INFO(run.err);
  CHECK(run.exit_code == 0);
  CHECK_THAT(run.out, Catch::Contains("mismatches: 0"));
  // Anything else from a FIFO is refused before it is read in full.
  const auto other = dir / "w.h5";
  REQUIRE(::mkfifo(other.c_str(), 0600) == 0);
  std::thread hdf5([&] { std::ofstream(other, std::ios::binary) << "\x89HDF\r\n\x1a\n"; });
  run = runStrata({"path", other.string(), "--from", "0,0,0", "--to", "1,0,1"}, 20);
  const int unblock2 = ::open(other.c_str(), O_RDONLY | O_NONBLOCK);
  hdf5.join();
  if (unblock2 >= 0) ::close(unblock2);
  CHECK(run.exit_code == 2);
  CHECK_THAT(run.err, Catch::Contains("w.h5: not a regular file"));
  // A map but for a byte-order mark before its header is named so, as a map file is (the
  // re-audit: it said "not a regular file").
  const auto bom = dir / "bom.map";
  REQUIRE(::mkfifo(bom.c_str(), 0600) == 0);
  std::thread bom_writer([&] { std::ofstream(bom, std::ios::binary) << "\xEF\xBB\xBF" << text; });
  run = runStrata({"path", bom.string(), "--scen", (dir / "t.scen").string()}, 20);
  const int unblock3 = ::open(bom.c_str(), O_RDONLY | O_NONBLOCK);
  bom_writer.join();
  if (unblock3 >= 0) ::close(unblock3);
  CHECK(run.exit_code == 2);
  CHECK_THAT(run.err, Catch::Contains("bom.map:1: not a Moving AI map (expected 'type octile' on the first line, not a UTF-8 byte-order mark before it)"));
}

TEST_CASE("strata path --scen: malformed input exits 2 naming file and line", "[cli][path]") {
  TempDir dir;
  const auto map = (dir / "bad.map").string();
  const auto scen = (dir / "bad.scen").string();
  write(map, "type octile\nheight 2\nwidth 3\nmap\n...\n.#.\n");
  write(scen, "version 1\n");
  auto run = runStrata({"path", map, "--scen", scen});
  CHECK(run.exit_code == 2);
  CHECK(run.err == "strata: error: " + map + ":6: column 2: unknown map character '#' (expected one of . G S @ O T W)\n");

  write(map, "type octile\nheight 2\nwidth 3\nmap\n...\n...\n");
  write(scen, "version 1\n0\tbad.map\t3\t2\t0\t0\t2\n");
  run = runStrata({"path", map, "--scen", scen});
  CHECK(run.exit_code == 2);
  CHECK(run.err == "strata: error: " + scen + ":2: expected 9 tab-separated fields, got 7\n");

  write(scen, "version 1\n0\tbad.map\t3\t2\t0\t0\t9\t0\t9\n");
  run = runStrata({"path", map, "--scen", scen});
  CHECK(run.exit_code == 2);
  CHECK(run.err == "strata: error: " + scen + ":2: goal is off the map\n");

  // The version line alone runs nothing: an error, not a summary of 0 scenarios (exit 0).
  write(scen, "version 1\n\n");
  for (const bool json : {false, true}) {
    std::vector<std::string> args = {"path", map, "--scen", scen};
    if (json) args.push_back("--json");
    run = runStrata(args);
    CHECK(run.exit_code == 2);
    CHECK(run.out.empty());
    CHECK_THAT(run.err, Catch::StartsWith("strata: error: " + scen + ": no scenarios (after the version line"));
  }

  run = runStrata({"path", map});
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("needs --scen") != std::string::npos);

  run = runStrata({"path", map, "--scen", (dir / "missing.scen").string()});
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("missing.scen: no such file") != std::string::npos);

  run = runStrata({"path", map, "--scen", scen, "--method", "dijkstra"});
  CHECK(run.exit_code == 2);

  // A first line that is no 'type' header is located at line 1 like every other map error.
  const auto typo = (dir / "typo.map").string();
  write(typo, "typo octile\nheight 2\nwidth 3\nmap\n...\n...\n");
  run = runStrata({"path", typo, "--scen", scen});
  CHECK(run.exit_code == 2);
  CHECK(run.err == "strata: error: " + typo + ":1: not a Moving AI map (expected 'type octile' on the first line)\n");
  // A byte-order mark before the header is named (an audit: the message did not say why).
  const auto bom = (dir / "bom.map").string();
  write(bom, "\xEF\xBB\xBFtype octile\nheight 2\nwidth 3\nmap\n...\n...\n");
  run = runStrata({"path", bom, "--scen", scen});
  CHECK(run.exit_code == 2);
  CHECK(run.err == "strata: error: " + bom +
                       ":1: not a Moving AI map (expected 'type octile' on the first line, not a UTF-8 byte-order mark before it)\n");
}

TEST_CASE("strata path --scen --budget bounds every search, theta's exactness check included", "[cli][path]") {
  for (const char* method : {"astar", "theta"}) {
    for (const char* budget : {"10", "30", "100"}) {
      INFO(method << " --budget " << budget);
      auto run = runStrata({"path", movingAi("den312d.map"), "--scen", movingAi("den312d.map.scen"), "--method", method,
                            "--budget", budget, "--json"});
      const auto doc = nlohmann::json::parse(run.out);
      int over = 0, exhausted = 0, marked = 0;
      for (const auto& r : doc["results"]) {
        if (r["expansions"].get<long long>() > std::stoll(budget)) ++over;
        if (r.value("failure", "") == "BudgetExhausted") ++exhausted, marked += r.contains("mismatch");
      }
      CHECK(over == 0);
      // A search the budget stopped is a failure, not a length mismatch: exit 3 (a mismatch: 1).
      if (std::string(budget) == "10") CHECK(exhausted > 0);
      CHECK(marked == 0);
      CHECK(doc["failures"] == exhausted);
      CHECK(doc["mismatches"].get<int>() + exhausted <= doc["scenarios"].get<int>());
      CHECK(run.exit_code == (doc["mismatches"].get<int>() > 0 ? 1 : exhausted > 0 ? 3 : 0));
    }
  }
}

TEST_CASE("strata path --scen --json: a file name that is not UTF-8 still gives valid JSON", "[cli][path]") {
  TempDir dir;
  const auto map = dir / "bad\xff.map", scen = dir / "bad\xff.scen";
  std::filesystem::copy_file(movingAi("arena.map"), map);
  std::filesystem::copy_file(movingAi("arena.map.scen"), scen);
  auto run = runStrata({"path", map.string(), "--scen", scen.string(), "--json"});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const auto doc = nlohmann::json::parse(run.out);  // the name's bad byte is replaced, not fatal
  CHECK(doc["scenarios"] == 160);
}

TEST_CASE("strata path --scen: file names with line breaks print escaped, one item a line", "[cli][path]") {
  // An audit: the text summary printed the map and .scen names raw, so a name with a line break
  // could forge a 'mismatches: 0' line.
  TempDir dir;
  const auto map = dir / "evil\nmismatches: 0\nx.map", scen = dir / "s\ncen";
  std::filesystem::copy_file(movingAi("arena.map"), map);
  std::filesystem::copy_file(movingAi("arena.map.scen"), scen);
  auto run = runStrata({"path", map.string(), "--scen", scen.string()});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.out, Catch::Contains("evil\\x0Amismatches: 0\\x0Ax.map"));
  CHECK_THAT(run.out, Catch::Contains("s\\x0Acen"));
  CHECK(std::count(run.out.begin(), run.out.end(), '\n') == 7);  // map, scenarios, method, mismatches, failures, mean, p99
}

TEST_CASE("strata path --scen warns when the scenarios name another map", "[cli][path]") {
  // An audit: the map column of a .scen was ignored, so the scenarios of another map of the same
  // size ran and reported mismatches as if the search were wrong. A renamed copy still runs.
  auto same = runStrata({"path", movingAi("arena.map"), "--scen", movingAi("arena.map.scen")});
  CHECK(same.exit_code == 0);
  CHECK(same.err.empty());
  TempDir dir;
  const auto copy = dir / "copy.map";
  std::filesystem::copy_file(movingAi("arena.map"), copy);
  auto renamed = runStrata({"path", copy.string(), "--scen", movingAi("arena.map.scen")});
  CHECK(renamed.exit_code == 0);
  CHECK(renamed.err == "strata: warning: " + movingAi("arena.map.scen") +
                           ":2: the scenario is for map 'maps/dao/arena.map', not copy.map (a renamed copy runs as usual; "
                           "another map of the same size gives mismatches)\n");
}

TEST_CASE("strata path --scen: a map larger than memory is refused from its header", "[cli][path]") {
  // The header declares 65535 x 65535 cells (about 64 GB in grid mode); the rows are never read.
  strata::test::TempDir dir;
  { std::ofstream(dir / "huge.map") << "type octile\nheight 65535\nwidth 65535\nmap\n"; }
  { std::ofstream(dir / "huge.scen") << "version 1\n0\thuge.map\t65535\t65535\t0\t0\t5\t5\t7.0710678\n"; }
  const auto r = strata::test::runStrata({"path", (dir / "huge.map").string(), "--scen", (dir / "huge.scen").string()});
  CHECK(r.exit_code == 2);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  // (On a machine with more than 64 GB the parser refuses the missing rows instead.)
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kib = 0;
  meminfo >> key >> kib;  // "MemTotal: N kB"
  if (key == "MemTotal:" && kib * 1024 < 15.0 * 4294836225.0)
    CHECK_THAT(r.err, Catch::StartsWith("strata: error: " + (dir / "huge.map").string() + ": a map of 4294836225 cells needs about"));
}

namespace {

// Octile distances from (sx, sy) by Dijkstra: 8-connected, a diagonal step only when both side
// cells are free (no corner cutting); '.' is free. Infinity where unreachable.
std::vector<double> octileDistances(const std::vector<std::string>& rows, int sx, int sy) {
  const int h = int(rows.size()), w = int(rows[0].size());
  std::vector<double> d(std::size_t(w * h), std::numeric_limits<double>::infinity());
  using Item = std::pair<double, int>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> open;
  d[std::size_t(sy * w + sx)] = 0;
  open.push({0, sy * w + sx});
  auto free = [&](int x, int y) { return x >= 0 && y >= 0 && x < w && y < h && rows[std::size_t(y)][std::size_t(x)] == '.'; };
  while (!open.empty()) {
    const auto [g, c] = open.top();
    open.pop();
    if (g > d[std::size_t(c)]) continue;
    const int x = c % w, y = c / w;
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        if ((dx == 0 && dy == 0) || !free(x + dx, y + dy)) continue;
        if (dx != 0 && dy != 0 && (!free(x + dx, y) || !free(x, y + dy))) continue;
        const double next = g + (dx != 0 && dy != 0 ? std::sqrt(2.0) : 1.0);
        if (next < d[std::size_t((y + dy) * w + x + dx)]) {
          d[std::size_t((y + dy) * w + x + dx)] = next;
          open.push({next, (y + dy) * w + x + dx});
        }
      }
  }
  return d;
}

}  // namespace

TEST_CASE("strata path MAP --from X,Y --to X,Y: one request, lengths against an independent Dijkstra", "[cli][path][grid]") {
  TempDir dir;
  std::mt19937 rng(7);
  for (int trial = 0; trial < 4; ++trial) {
    const int w = 9 + trial, h = 7;
    std::vector<std::string> rows(std::size_t(h), std::string(std::size_t(w), '.'));
    std::bernoulli_distribution wall(0.25);
    for (auto& row : rows)
      for (char& c : row) c = wall(rng) ? '@' : '.';
    std::string text = "type octile\nheight " + std::to_string(h) + "\nwidth " + std::to_string(w) + "\nmap\n";
    for (const auto& row : rows) text += row + "\n";
    const auto map = (dir / ("m" + std::to_string(trial) + ".map")).string();
    write(map, text);
    for (int q = 0; q < 8; ++q) {
      const int sx = int(rng() % unsigned(w)), sy = int(rng() % unsigned(h)), gx = int(rng() % unsigned(w)), gy = int(rng() % unsigned(h));
      const std::string from = std::to_string(sx) + "," + std::to_string(sy), to = std::to_string(gx) + "," + std::to_string(gy);
      INFO(text << from << " -> " << to);
      const bool start_free = rows[std::size_t(sy)][std::size_t(sx)] == '.', goal_free = rows[std::size_t(gy)][std::size_t(gx)] == '.';
      const double optimal = start_free ? octileDistances(rows, sx, sy)[std::size_t(gy * w + gx)] : 0;
      const auto astar = runStrata({"path", map, "--from", from, "--to", to, "--json"});
      const auto theta = runStrata({"path", map, "--from", from, "--to", to, "--json", "--method", "theta"});
      const auto a = nlohmann::json::parse(astar.out), t = nlohmann::json::parse(theta.out);
      const std::string expected = !start_free ? "StartBlocked" : !goal_free ? "GoalBlocked" : std::isinf(optimal) ? "NoPath" : "None";
      CHECK(a["reason"] == expected);
      CHECK(t["reason"] == expected);
      CHECK(astar.exit_code == (expected == "None" ? 0 : 3));
      CHECK(theta.exit_code == astar.exit_code);
      if (expected != "None") continue;
      CHECK(a["length"].get<double>() == Approx(optimal).margin(1e-9));
      CHECK(t["length"].get<double>() <= a["length"].get<double>() + 1e-9);
      // The exact endpoints (cell centres) first and last; every waypoint on a free cell.
      for (const auto* doc : {&a, &t}) {
        const auto& points = (*doc)["waypoints"];
        REQUIRE(points.size() >= 1);
        CHECK(points.front() == nlohmann::json::array({sx + 0.5, sy + 0.5}));
        CHECK(points.back() == nlohmann::json::array({gx + 0.5, gy + 0.5}));
        for (const auto& p : points)
          CHECK(rows[std::size_t(std::floor(p[1].get<double>()))][std::size_t(std::floor(p[0].get<double>()))] == '.');
      }
    }
  }
}

TEST_CASE("strata path MAP --from X,Y --to X,Y: every grid failure reason exits 3", "[cli][path][grid]") {
  TempDir dir;
  const auto map = (dir / "t.map").string();
  // A wall down column 2 (rows 0..2) and a sealed cell at (5, 0).
  write(map, "type octile\nheight 4\nwidth 7\nmap\n..@..@.\n..@..@@\n..@....\n.......\n");
  struct Case {
    std::vector<std::string> args;
    std::string reason;
  };
  const std::vector<Case> cases{
      {{"--from", "-1,0", "--to", "4,0"}, "StartOutsideGrid"},
      {{"--from", "0,0", "--to", "7,0"}, "GoalOutsideGrid"},
      {{"--from", "2,0", "--to", "4,0"}, "StartBlocked"},
      {{"--from", "0,0", "--to", "2,1"}, "GoalBlocked"},
      {{"--from", "0,0", "--to", "6,0"}, "NoPath"},
      {{"--from", "0,0", "--to", "4,0", "--budget", "2"}, "BudgetExhausted"},
      {{"--from", "0,0", "--to", "4,0", "--method", "direct"}, "Blocked"},
  };
  for (const Case& c : cases) {
    INFO(c.reason);
    std::vector<std::string> args{"path", map};
    args.insert(args.end(), c.args.begin(), c.args.end());
    args.push_back("--json");
    const auto r = runStrata(args);
    CHECK(r.exit_code == 3);
    const auto doc = nlohmann::json::parse(r.out);
    CHECK(doc["reason"] == c.reason);
    CHECK(doc["found"] == false);
    CHECK(doc["waypoints"].empty());
    // No route: no length or cost (null, not 0, which a script could add up as a route).
    CHECK(doc["length"].is_null());
    CHECK(doc["cost"].is_null());
    args.pop_back();  // the text output names the reason too
    const auto text = runStrata(args);
    CHECK(text.exit_code == 3);
    CHECK_THAT(text.out, Catch::StartsWith("result: " + c.reason + "\n"));
  }
  // The largest int is a cell (off this map), spaces around a number are dropped.
  auto r = runStrata({"path", map, "--from", "2147483647,0", "--to", " 1 , 1 ", "--json"});
  CHECK(r.exit_code == 3);
  CHECK(nlohmann::json::parse(r.out)["reason"] == "StartOutsideGrid");
  // A straight line that is free: direct answers with the two cell centres.
  r = runStrata({"path", map, "--from", "0,0", "--to", "1,3", "--method", "direct", "--json"});
  CHECK(r.exit_code == 0);
  CHECK(nlohmann::json::parse(r.out)["length"].get<double>() == Approx(std::sqrt(10.0)));
  // Usage: cells are integers; both ends; not with --scen; direct only for one request.
  const std::vector<std::pair<std::vector<std::string>, std::string>> refused{
      {{"--from", "0.5,0", "--to", "1,1"}, "--from: expected a map cell X,Y (two whole numbers from -2147483648 to 2147483647"},
      {{"--from", "1e3,0", "--to", "1,1"}, "--from: expected a map cell X,Y"},
      {{"--from", "+3,0", "--to", "1,1"}, "--from: expected a map cell X,Y"},
      {{"--from", "0,0", "--to", "2147483648,1"}, "--to: expected a map cell X,Y"},
      {{"--from", "1e-400,0", "--to", "1,1"}, "--from: expected a map cell X,Y"},
      {{"--from", "0,0", "--to", "1,1", "--spacing", "0.01"}, "--spacing: '0.01' is neither 0 (none) nor a finite number >= 0.05 (cells on a map)"},
      {{"--from", "0,0", "--to", "1,1", "--method", "corridor"}, "a Moving AI map takes astar, theta or direct"},
      {{"--from", "0,0,0", "--to", "1,1"}, "--from: expected a map cell X,Y"},
      {{"--from", "0,0"}, "a request on a map needs both --from X,Y and --to X,Y"},
      {{"--from", "0,0", "--to", "1,1", "--scen", map}, "give either --scen or --from/--to, not both"},
      {{"--from", "0,0", "--to", "1,1", "--agent", "a"}, "--agent applies to worlds, not to Moving AI maps"},
      {{"--scen", map, "--method", "direct"}, "--method: expected astar or theta, got 'direct' (direct takes one request"},
      {{"--scen", map, "--spacing", "1"}, "--spacing applies to one request (--from/--to), not to --scen"},
  };
  for (const auto& [extra, message] : refused) {
    INFO(message);
    std::vector<std::string> args{"path", map};
    args.insert(args.end(), extra.begin(), extra.end());
    r = runStrata(args);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(message));
  }
}
