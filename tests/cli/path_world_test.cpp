// Black-box tests of `strata path WORLD` on the samples (baked in memory from the mesh and its
// profile: the same bake `strata bake` writes into a world file).

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <thread>
#include <chrono>

#include "strata/formats/world_file.h"
#include "test_support.h"
#include "world_file_sections.h"

using strata::test::runStrata;
using strata::test::sourceDir;
using Json = nlohmann::json;

namespace {

std::vector<std::string> sample(const std::string& name) {
  return {(sourceDir() / "samples" / (name + ".obj")).string(), "--profile", (sourceDir() / "samples" / (name + ".toml")).string()};
}

strata::test::RunResult path(const std::string& name, std::vector<std::string> extra) {
  std::vector<std::string> args{"path"};
  for (auto& a : sample(name)) args.push_back(a);
  for (auto& a : extra) args.push_back(a);
  return runStrata(args);
}

}  // namespace

TEST_CASE("strata path tower: road to roof climbs the stairs", "[cli][path][layered]") {
  const auto r = path("tower", {"--from", "0,0,-25", "--to", "0,8,-4", "--json"});
  REQUIRE(r.exit_code == 0);
  const Json doc = Json::parse(r.out);
  CHECK(doc["found"] == true);
  const auto& w = doc["waypoints"];
  CHECK(w.front()["position"][0] == 0.0);
  CHECK(w.back()["position"][1] == 8.0);
  // Some leg climbs the stairs (x 2..5, z 0..5) from the landing (y 4) to the roof (y 8).
  bool stairs = false;
  for (std::size_t i = 1; i < w.size(); ++i) {
    const auto& a = w[i - 1]["position"];
    const auto& b = w[i]["position"];
    const double x = (a[0].get<double>() + b[0].get<double>()) / 2;
    if (x > 2 && x < 5 && a[1].get<double>() <= 4.3 && b[1].get<double>() >= 7.9) stairs = true;
  }
  CHECK(stairs);
}

TEST_CASE("strata path tower: under the bridge stays on the road", "[cli][path][layered]") {
  for (const char* method : {"astar", "theta"}) {
    const auto r = path("tower", {"--from", "0,0,-19", "--to", "0,0,25", "--method", method, "--json"});
    REQUIRE(r.exit_code == 0);
    const Json doc = Json::parse(r.out);
    for (const auto& w : doc["waypoints"]) CHECK(w["position"][1].get<double>() == Approx(0).margin(0.05));
  }
}

TEST_CASE("strata path course: across the gap carries a jump", "[cli][path][layered]") {
  const auto r = path("course", {"--from", "30,0,0", "--to", "40,0,0", "--json"});
  REQUIRE(r.exit_code == 0);
  bool jump = false;
  const Json doc = Json::parse(r.out);
  for (const auto& w : doc["waypoints"]) jump = jump || w["action"] == "jump";
  CHECK(jump);
}

TEST_CASE("strata path course: the custom link's waypoint names the link it takes", "[cli][path][layered]") {
  // The moving-platform pad carries the agent up onto the climb platform. The spec keeps a link's
  // label; without it on the waypoint a caller could not tell which of several links to trigger.
  const std::vector<std::string> ends{"--from", "58,0,0", "--to", "68,3,-2.5"};
  auto check = [](const Json& doc) {
    int links = 0;
    for (const auto& w : doc["waypoints"]) {
      if (w["action"] == "link") {
        ++links;
        CHECK(w["link"] == "moving_platform");
      } else {
        CHECK_FALSE(w.contains("link"));
      }
    }
    CHECK(links == 1);
  };
  for (const std::string method : {"astar", "theta", "corridor"}) {
    INFO(method);
    std::vector<std::string> args = ends;
    for (const char* a : {"--json", "--method"}) args.push_back(a);
    args.push_back(method);
    const auto r = path("course", args);
    REQUIRE(r.exit_code == 0);
    check(Json::parse(r.out));
  }
  const auto text = path("course", ends);
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("  via moving_platform\n"));
  // On demand, from the imported mesh.
  strata::test::TempDir dir;
  const std::string world = (dir / "course.h5").string();
  REQUIRE(runStrata({"import", (sourceDir() / "samples" / "course.obj").string(), "-o", world}).exit_code == 0);
  std::vector<std::string> args{"path", world, "--profile", (sourceDir() / "samples" / "course.toml").string(), "--on-demand", "--json"};
  for (const auto& a : ends) args.push_back(a);
  const auto demand = runStrata(args);
  REQUIRE(demand.exit_code == 0);
  check(Json::parse(demand.out));
}

TEST_CASE("strata path query and render on a mesh with a profile bake only the agent asked for", "[cli][path][layered]") {
  // An audit: agent b's link that snaps to no floor failed every command on the mesh, for agent
  // a too, since every agent of the profile was baked; only a world file read just the one.
  strata::test::TempDir dir;
  const auto profile = (dir / "two.toml").string();
  std::ofstream(profile) << "[agent.a]\ncell_size = 0.3\n[agent.b]\ncell_size = 0.3\n[[agent.b.links]]\n"
                            "from = [500.0, 0.0, 500.0]\nto = [501.0, 0.0, 501.0]\nlabel = \"nowhere\"\n";
  const std::string course = (sourceDir() / "samples" / "course.obj").string();
  const auto a = runStrata({"path", course, "--profile", profile, "--agent", "a", "--from", "20,0,0", "--to", "22,0,0"});
  INFO(a.err);
  CHECK(a.exit_code == 0);
  CHECK(runStrata({"query", course, "height", "--profile", profile, "--agent", "a", "--at", "20,0"}).exit_code == 0);
  CHECK(runStrata({"render", course, "--profile", profile, "--agent", "a", "-o", (dir / "a.svg").string()}).exit_code == 0);
  // Agent b's own error stands, and an unknown agent is named with the profile's agents.
  const auto b = runStrata({"path", course, "--profile", profile, "--agent", "b", "--from", "20,0,0", "--to", "22,0,0"});
  CHECK(b.exit_code == 2);
  CHECK_THAT(b.err, Catch::Contains("agent.b.links[0] ('nowhere'): no floor within"));
  const auto unknown = runStrata({"path", course, "--profile", profile, "--agent", "zz", "--from", "20,0,0", "--to", "22,0,0"});
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.err, Catch::Contains("no agent 'zz' (agents: a, b)"));
}

TEST_CASE("strata path maze: the sealed room is rejected without expanding", "[cli][path][layered]") {
  const auto r = path("maze", {"--from", "0.6,0,-1", "--to", "17.5,0,3.5", "--json"});
  CHECK(r.exit_code == 3);
  const Json doc = Json::parse(r.out);
  CHECK(doc["reason"] == "NoPath");
  CHECK(doc["expansions"] == 0);
  // No route: length and cost are null, not 0 (which a script could add up as a route).
  CHECK(doc["length"].is_null());
  CHECK(doc["cost"].is_null());
  CHECK(doc["waypoints"].empty());
  // Text output names the reason too.
  const auto text = path("maze", {"--from", "0.6,0,-1", "--to", "17.5,0,3.5"});
  CHECK(text.exit_code == 3);
  CHECK(text.out.find("NoPath") != std::string::npos);
  // And says why, with the floors the ends snapped to (a fresh-user audit: nothing told the
  // user that the goal had snapped to a floor that no route reaches).
  CHECK_THAT(text.out, Catch::Contains("\nwhy: the start snapped to the floor at (") &&
                           Catch::EndsWith(": no edge or link joins their components\n"));
}

TEST_CASE("strata path text output: a NoPath the bake proves says why: one-way drops", "[cli][path][layered]") {
  // A 1.5 m ledge: dropped from, never stepped or jumped up (can_jump false). One component, no
  // way up: the reason names the one-way edges. The way down is a route.
  strata::test::TempDir dir;
  {
    std::ofstream obj(dir / "ledge.obj");
    obj << "v 0 1.5 0\nv 5 1.5 0\nv 5 1.5 5\nv 0 1.5 5\n"   // the ledge's top, 0..5
        << "v 5 0 0\nv 12 0 0\nv 12 0 5\nv 5 0 5\n"       // the ground beside it, 5..12
        << "f 1 4 3 2\nf 5 8 7 6\n";
    std::ofstream(dir / "ledge.toml") << "[agent.a]\nradius = 0.3\ncell_size = 0.25\ncan_jump = false\n";
  }
  auto run = [&](const std::string& from, const std::string& to) {
    return runStrata({"path", (dir / "ledge.obj").string(), "--profile", (dir / "ledge.toml").string(), "--from", from, "--to", to});
  };
  const auto down = run("2,1.5,2.5", "9,0,2.5");
  CHECK(down.exit_code == 0);
  CHECK(down.out.find("why:") == std::string::npos);
  const auto up = run("9,0,2.5", "2,1.5,2.5");
  CHECK(up.exit_code == 3);
  CHECK_THAT(up.out, Catch::Contains("expansions: 0\nwhy: the start snapped to the floor at (8.875, 0.000, 2.375), component 0") &&
                         Catch::Contains("the goal to the floor at (1.875, 1.500, 2.375), component 0: ") &&
                         Catch::EndsWith(": only one-way edges (drops, jumps down, one-way links) join them, none leading "
                                         "from the start's side to the goal's\n"));
}

TEST_CASE("strata path text output: a height that rounds to zero prints as 0.000, not -0.000", "[cli][path][layered]") {
  // maze's floor at y = 0 is baked as -4.4e-16 in some columns (the ray arithmetic; JSON keeps
  // the value): the text printed -0.000 for the last two waypoints of this route.
  const auto text = path("maze", {"--from", "0.6,0,0.6", "--to", "1.15,1,0.6"});
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("-0.000") == std::string::npos);
  CHECK(text.out.find("   0.000 ") != std::string::npos);
}

TEST_CASE("strata path --json: a point given as -0 prints as 0 - and a link label's C1 control and line separator are escaped in text", "[cli][path][layered]") {
  const auto json = path("tower", {"--from", "-0,0,25", "--to", "-0,0,25", "--json"});
  REQUIRE(json.exit_code == 0);
  CHECK(json.out.find("-0.0") == std::string::npos);
  CHECK(Json::parse(json.out)["waypoints"][0]["position"][0].get<double>() == 0.0);
  // NEL (U+0085) and LINE SEPARATOR (U+2028) broke the waypoint's line on some terminals.
  strata::test::TempDir dir;
  {
    std::ofstream profile(dir / "link.toml");
    profile << "[agent.a]\nradius = 0.3\n[[agent.a.links]]\nfrom = [-4, 0, -4]\nto = [4, 0, 4]\n"
               "label = \"tele\\nport\\u0085\\u2028x\"\n";
  }
  const auto text = runStrata({"path", (sourceDir() / "samples" / "tower.obj").string(), "--profile", (dir / "link.toml").string(),
                               "--from", "-4,0,-4", "--to", "4,0,4"});
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("via tele\\x0Aport\\xC2\\x85\\xE2\\x80\\xA8x\n"));
}

TEST_CASE("strata path --json: the exact ends read back as the x and z typed, to the bit", "[cli][path][layered]") {
  // Printed at 15 significant digits, 29.028741055506334 came back 3e-14 off (an audit): a script
  // comparing the first waypoint with its start found them different.
  const std::string fx = "29.028741055506334", fz = "18.43651304976788", tx = "26.763172568766066", tz = "-19.564907912438105";
  auto check = [&](const Json& doc) {
    REQUIRE(doc["found"] == true);
    const auto& w = doc["waypoints"];
    CHECK(w.front()["position"][0].get<double>() == std::stod(fx));
    CHECK(w.front()["position"][2].get<double>() == std::stod(fz));
    CHECK(w.back()["position"][0].get<double>() == std::stod(tx));
    CHECK(w.back()["position"][2].get<double>() == std::stod(tz));
  };
  const auto r = path("tower", {"--from", fx + ",0.3," + fz, "--to", tx + ",0.3," + tz, "--json"});
  REQUIRE(r.exit_code == 0);
  check(Json::parse(r.out));
  strata::test::TempDir dir;
  {
    std::ofstream batch(dir / "b.jsonl");
    batch << "{\"from\": [" << fx << ", 0.3, " << fz << "], \"to\": [" << tx << ", 0.3, " << tz << "]}\n";
  }
  const auto b = path("tower", {"--batch", (dir / "b.jsonl").string()});
  REQUIRE(b.exit_code == 0);
  check(Json::parse(b.out));
  // Other numbers keep the printed rule: 15 significant digits at most (the length here).
  const std::size_t at = r.out.find("\"length\":");
  REQUIRE(at != std::string::npos);
  const std::string length = r.out.substr(at + 9, r.out.find(',', at) - at - 9);
  CHECK(std::count_if(length.begin(), length.end(), [](char c) { return c >= '0' && c <= '9'; }) <= 15);
  CHECK(std::stod(length) > 30);
}

TEST_CASE("strata path WORLD: bad input exits 2 with one located line", "[cli][path][layered]") {
  auto r = path("tower", {"--from", "0,0", "--to", "0,8,-4"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.rfind("strata: error: --from", 0) == 0);
  r = path("tower", {"--from", "0,0,0", "--to", "1,0,0", "--method", "dijkstra"});
  CHECK(r.exit_code == 2);
  r = path("tower", {"--from", "0,0,0"});
  CHECK(r.exit_code == 2);
  r = path("tower", {"--from", "0,0,0", "--to", "1,0,0", "--agent", "nobody"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("nobody") != std::string::npos);
}

TEST_CASE("strata path --batch: input order, atomic output, same bytes for 1 and 2 threads", "[cli][path][layered][batch]") {
  strata::test::TempDir dir;
  {
    std::ofstream in(dir / "requests.jsonl");
    in << R"({"from":[0,0,-25],"to":[0,8,-4],"id":"road-to-roof"})" << "\n";
    in << R"({"from":[0,0,-19],"to":[0,0,25],"method":"theta"})" << "\n";
    in << "\n";
    in << R"({"id":18446744073709551615,"from":[0,0,-19],"to":[5,0,20],"method":"direct"})" << "\n";
    in << R"({"from":[0,0,-19],"to":[0,0,-10],"agent":"human"})" << "\n";
  }
  const auto one = path("tower", {"--batch", (dir / "requests.jsonl").string(), "-o", (dir / "one.jsonl").string(), "--threads", "1"});
  const auto two = path("tower", {"--batch", (dir / "requests.jsonl").string(), "-o", (dir / "two.jsonl").string(), "--threads", "2"});
  // More threads than this machine has cores: the same bytes, and nothing on stderr (TBB's
  // "number of workers is currently limited" warning used to appear).
  const auto eight = path("tower", {"--batch", (dir / "requests.jsonl").string(), "-o", (dir / "eight.jsonl").string(), "--threads", "8"});
  CHECK(one.exit_code == two.exit_code);
  CHECK(eight.exit_code == one.exit_code);
  CHECK(eight.err.empty());
  CHECK(strata::test::sameBytes(dir / "one.jsonl", dir / "two.jsonl"));
  CHECK(strata::test::sameBytes(dir / "one.jsonl", dir / "eight.jsonl"));
  std::istringstream lines(strata::test::readFile(dir / "one.jsonl"));
  std::vector<Json> results;
  for (std::string line; std::getline(lines, line);) results.push_back(Json::parse(line));
  REQUIRE(results.size() == 4);
  CHECK(results[0]["line"] == 1);
  // The caller's id, echoed after the line (scripts match results by it); none when not given.
  CHECK(results[0]["id"] == "road-to-roof");
  CHECK_THAT(strata::test::readFile(dir / "one.jsonl"), Catch::StartsWith(R"({"line":1,"id":"road-to-roof","found":)"));
  CHECK(results[2]["id"] == 18446744073709551615u);
  CHECK_FALSE(results[1].contains("id"));
  CHECK(results[1]["line"] == 2);
  CHECK(results[1]["method"] == "theta");
  CHECK(results[2]["line"] == 4);
  CHECK(results[2]["method"] == "direct");
  CHECK(results[3]["line"] == 5);
  CHECK(results[0]["found"] == true);

  // A malformed line names the file and the line, and nothing is written.
  {
    std::ofstream in(dir / "bad.jsonl");
    in << R"({"from":[0,0,-25],"to":[0,8,-4]})" << "\n" << R"({"from":[0,0],"to":[0,8,-4]})" << "\n";
  }
  const auto bad = path("tower", {"--batch", (dir / "bad.jsonl").string(), "-o", (dir / "bad_out.jsonl").string()});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("bad.jsonl:2:") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "bad_out.jsonl"));

  // A misspelt member, a member given twice, a number out of range, a bad "closest": each an
  // error naming the line, before any search.
  const std::vector<std::pair<std::string, std::string>> refused = {
      {R"({"from":[0,0,-25],"to":[0,8,-4],"metod":"theta"})", ":1: unknown member \"metod\""},
      {R"({"from":[0,0,-25],"to":[0,8,-4],"method":"theta","method":"astar"})", ":1: member \"method\" given twice"},
      {R"({"from":[0,0,1e400],"to":[0,8,-4]})", ":1: not valid JSON: "},
      {R"({"from":[0,0,-25],"to":[0,8,-4],"closest":1})", ":1: \"closest\" must be true or false"},
      {R"({"from":[0,0,-25],"to":[0,8,-4],"id":{"a":1}})", ":1: \"id\" must be a string or an integer"},
      // (A fraction was echoed shortened: 1.0000000000000002 as 1.0, the re-audit.)
      {R"({"from":[0,0,-25],"to":[0,8,-4],"id":1.0000000000000002})", ":1: \"id\" must be a string or an integer"},
      {R"({"from":[0,0,-25],"to":[0,8,-4],"id":18446744073709551616})", ":1: \"id\" must be a string or an integer"},
      {R"([1,2,3])", ":1: not a JSON object"},
      {R"({"from":[0,0,-25],"to":[0,8,-4],"budget":-1})", ":1: \"budget\" must be a whole number >= 0"},
      {R"({"from":[0,0,-25],"to":[0,8,-4],"budget":9223372036854775808})", ":1: \"budget\" must be at most 9223372036854775807"},
      // Past 2^64 the JSON parser keeps the number as a float: the same message (it said "must
      // be an integer >= 0": an audit).
      {R"({"from":[0,0,-25],"to":[0,8,-4],"budget":18446744073709551616})", ":1: \"budget\" must be at most 9223372036854775807"},
      {R"({"from":[0,0,-25],"to":[0,8,-4],"budget":1e19})", ":1: \"budget\" must be at most 9223372036854775807"},
      {R"({"from":[0,0,-25],"to":[0,8,-4],"budget":2.5})", ":1: \"budget\" must be a whole number >= 0"},
      {R"({"from":[0,0,-25],"to":[0,8,-4],"budget":-1.0})", ":1: \"budget\" must be a whole number >= 0"},
      // A NUL used to end the parser's input (the junk after it was ignored); 60,000 levels of
      // nesting crashed the JSON value's recursive copy (SIGSEGV).
      {std::string(R"({"from":[0,0,-25],"to":[0,8,-4]})") + '\0' + R"({"from": junk)", ":1: contains a NUL byte"},
      {R"({"from":)" + std::string(60000, '[') + std::string(60000, ']') + R"(,"to":[0,0,0]})", ":1: nested deeper than 16 levels"},
      // Two requests joined by a carriage return alone: the parser's message named only the
      // second '{' (an audit).
      {std::string(R"({"from":[0,0,-25],"to":[0,8,-4]})") + "\r" + R"({"from":[0,0,-25],"to":[0,8,-4]})",
       ":1: not valid JSON: parse error at line 1, column 34: syntax error while parsing value - unexpected '{'; expected end of input "
       "(a carriage return without a line feed at byte 33 of the line: a line ends with a line feed)"},
  };
  for (const auto& [text, message] : refused) {
    INFO(text);
    { std::ofstream(dir / "refused.jsonl") << text << "\n"; }
    const auto r = path("tower", {"--batch", (dir / "refused.jsonl").string(), "-o", (dir / "refused_out.jsonl").string()});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("refused.jsonl" + message));
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK_FALSE(std::filesystem::exists(dir / "refused_out.jsonl"));
  }
  // A whole number written as a float (Python's json.dumps of 100000.0) is that budget (it was
  // refused: an audit).
  {
    { std::ofstream(dir / "floats.jsonl") << R"({"from":[0,0,-25],"to":[0,8,-4],"budget":100000})" << "\n"
                                          << R"({"from":[0,0,-25],"to":[0,8,-4],"budget":100000.0})" << "\n"
                                          << R"({"from":[0,0,-25],"to":[0,8,-4],"budget":1e5})" << "\n"
                                          << R"({"from":[0,0,-25],"to":[0,8,-4],"budget":3.0})" << "\n"
                                          << R"({"from":[0,0,-25],"to":[0,8,-4],"budget":3})" << "\n"; }
    const auto r = path("tower", {"--batch", (dir / "floats.jsonl").string()});
    CHECK(r.exit_code == 3);  // the budget of 3 runs out
    std::vector<nlohmann::json> lines;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) {
      auto j = nlohmann::json::parse(line);
      j.erase("line");
      lines.push_back(j);
    }
    REQUIRE(lines.size() == 5);
    CHECK(lines[0]["found"] == true);
    CHECK(lines[1] == lines[0]);
    CHECK(lines[2] == lines[0]);
    CHECK(lines[3]["reason"] == "BudgetExhausted");
    CHECK(lines[4] == lines[3]);
  }
  // A UTF-8 byte-order mark opening the file is ignored, also alone on its line (that line was
  // refused as invalid JSON: an audit); one further on is an error.
  {
    { std::ofstream(dir / "bom.jsonl") << "\xEF\xBB\xBF\n" << R"({"from":[0,0,-25],"to":[0,8,-4]})" << "\n"; }
    const auto r = path("tower", {"--batch", (dir / "bom.jsonl").string()});
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::StartsWith("{\"line\":2,"));
    CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 1);
    { std::ofstream(dir / "bom2.jsonl") << R"({"from":[0,0,-25],"to":[0,8,-4]})" << "\n\xEF\xBB\xBF\n"; }
    const auto second = path("tower", {"--batch", (dir / "bom2.jsonl").string()});
    CHECK(second.exit_code == 2);
    CHECK_THAT(second.err, Catch::Contains("bom2.jsonl:2: "));
    // Also opening a request further on, or a second one opening the file: the JSON parser
    // skips a BOM that opens its input, so both read as requests (an audit).
    const std::string request = R"({"from":[0,0,-25],"to":[0,8,-4]})";
    for (const auto& [text, where] : {std::pair<std::string, std::string>{request + "\n\xEF\xBB\xBF" + request + "\n", ":2: "},
                                      {"\xEF\xBB\xBF\xEF\xBB\xBF" + request + "\n", ":1: "}}) {
      { std::ofstream(dir / "bom3.jsonl") << text; }
      const auto r = path("tower", {"--batch", (dir / "bom3.jsonl").string()});
      CHECK(r.exit_code == 2);
      CHECK_THAT(r.err, Catch::Contains("bom3.jsonl" + where + "a UTF-8 byte-order mark that does not open the file"));
    }
  }
  // A line over 1 MiB is refused by line (an unbounded one, /dev/zero's, grew until memory ran
  // out, and a line that could not grow ended the file: exit 0, the requests after it dropped,
  // an audit); a read error is a runtime failure naming the file, not the end of the requests
  // (/proc/self/mem's first read fails with EIO; the batch answered nothing, exit 0, and
  // replaced -o with an empty file). The output is left as it was.
  {
    const std::string request = R"({"from":[0,0,-25],"to":[0,8,-4]})";
    {
      std::ofstream out(dir / "long.jsonl");
      out << request << "\n" << R"({"from":[0,0,-25],"to":[0,8,-4],"id":")" << std::string(std::size_t(1) << 20, 'a') << "\"}\n"
          << request << "\n";
    }
    { std::ofstream(dir / "kept.jsonl") << "kept\n"; }
    const auto r = path("tower", {"--batch", (dir / "long.jsonl").string(), "-o", (dir / "kept.jsonl").string()});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("long.jsonl:2: longer than 1048576 bytes"));
    if (std::filesystem::exists("/proc/self/mem")) {
      const auto eio = path("tower", {"--batch", "/proc/self/mem", "-o", (dir / "kept.jsonl").string()});
      CHECK(eio.exit_code == 1);
      CHECK_THAT(eio.err, Catch::Contains("/proc/self/mem:1: cannot read the file"));
    }
    std::ifstream kept(dir / "kept.jsonl");
    std::string text((std::istreambuf_iterator<char>(kept)), std::istreambuf_iterator<char>());
    CHECK(text == "kept\n");
    // A request of exactly 1 MiB is answered.
    const std::string head = R"({"from":[0,0,-25],"to":[0,8,-4],"id":")", tail = "\"}";
    { std::ofstream(dir / "full.jsonl") << head << std::string((std::size_t(1) << 20) - head.size() - tail.size(), 'a') << tail << "\n"; }
    const auto full = path("tower", {"--batch", (dir / "full.jsonl").string()});
    CHECK(full.exit_code == 0);
    CHECK_THAT(full.out, Catch::StartsWith("{\"line\":1,\"id\":\"aaaa"));
  }
  // Bytes that are not UTF-8 (a UTF-16 byte-order mark) are escaped in the message, not echoed
  // to the terminal; UTF-8 in it (a file name's) is kept.
  {
    { std::ofstream(dir / "utf16.jsonl") << "\xFF\xFE{\n"; }
    const auto r = path("tower", {"--batch", (dir / "utf16.jsonl").string()});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("utf16.jsonl:1: ") && Catch::Contains("\\xFF"));
    CHECK(r.err.find('\xFF') == std::string::npos);
    { std::ofstream(dir / "caf\xC3\xA9.jsonl") << "[1]\n"; }
    const auto cafe = path("tower", {"--batch", (dir / "caf\xC3\xA9.jsonl").string()});
    CHECK_THAT(cafe.err, Catch::Contains("caf\xC3\xA9.jsonl:1: not a JSON object"));
  }
  // "closest" is accepted per request.
  { std::ofstream(dir / "closest.jsonl") << R"({"from":[0,0,-25],"to":[0,8,-4],"closest":true})" << "\n"; }
  CHECK(path("tower", {"--batch", (dir / "closest.jsonl").string()}).exit_code == 0);
}

TEST_CASE("strata path --method corridor and interval: stairs, bridge, gap and sealed room like the exact methods", "[cli][path][layered][corridor]") {
  for (const std::string method : {"corridor", "interval"}) {
  INFO(method);
  auto r = path("tower", {"--from", "0,0,-25", "--to", "0,8,-4", "--method", method, "--json"});
  REQUIRE(r.exit_code == 0);
  Json doc = Json::parse(r.out);
  CHECK(doc["method"] == method);
  // tower's ramp costs 1.5: route costs are not lengths there. The corridor method charges
  // each rectangle its area's cost; the interval method's plane has no costs, so Theta*
  // answers for it, and says so.
  CHECK(doc["answered_by"] == (method == "corridor" ? "corridor" : "theta"));
  {
    const auto exact = path("tower", {"--from", "0,0,-25", "--to", "0,8,-4", "--method", "astar", "--json"});
    REQUIRE(exact.exit_code == 0);
    CHECK(doc["cost"].get<double>() <= 1.05 * Json::parse(exact.out)["cost"].get<double>());
  }
  CHECK(doc["waypoints"].back()["position"][1] == 8.0);
  // Some leg climbs the stairs (x 2..5, z 0..5) from the landing (y 4) towards the roof (y 8).
  bool stairs = false;
  const auto& w = doc["waypoints"];
  for (std::size_t i = 1; i < w.size(); ++i) {
    const double x = (w[i - 1]["position"][0].get<double>() + w[i]["position"][0].get<double>()) / 2;
    const double z = (w[i - 1]["position"][2].get<double>() + w[i]["position"][2].get<double>()) / 2;
    if (x > 2 && x < 5 && z > -0.5 && z < 5.5 && w[i]["position"][1].get<double>() > w[i - 1]["position"][1].get<double>() + 1)
      stairs = true;
  }
  CHECK(stairs);
  // Under the bridge: every waypoint on the road.
  r = path("tower", {"--from", "0,0,-19", "--to", "0,0,25", "--method", method, "--json"});
  REQUIRE(r.exit_code == 0);
  doc = Json::parse(r.out);
  for (const auto& p : doc["waypoints"]) CHECK(p["position"][1].get<double>() == Approx(0).margin(0.05));
  // Across the gap: a jump.
  r = path("course", {"--from", "30,0,0", "--to", "40,0,0", "--method", method, "--json"});
  REQUIRE(r.exit_code == 0);
  bool jump = false;
  doc = Json::parse(r.out);
  for (const auto& p : doc["waypoints"]) jump = jump || p["action"] == "jump";
  CHECK(jump);
  // The sealed room: NoPath without expanding.
  r = path("maze", {"--from", "0.6,0,-1", "--to", "17.5,0,3.5", "--method", method, "--json"});
  CHECK(r.exit_code == 3);
  doc = Json::parse(r.out);
  CHECK(doc["reason"] == "NoPath");
  CHECK(doc["expansions"] == 0);
  }
}

TEST_CASE("strata path --batch - --stream: each request is answered while the input is still open", "[cli][path][layered][batch]") {
  std::vector<std::string> args{"path"};
  for (auto& a : sample("tower")) args.push_back(a);
  for (const char* a : {"--batch", "-", "--stream", "--threads", "2"}) args.push_back(a);
  strata::test::CoProcess co(args);
  // One request, and its result before anything more is written (a batch answers at the end).
  co.write(R"({"from":[0,0,-25],"to":[0,8,-4],"id":"a"})" "\n");
  const auto first = co.readLine();
  REQUIRE(first);
  const Json one = Json::parse(*first);
  CHECK(one["line"] == 1);
  CHECK(one["id"] == "a");
  CHECK(one["found"] == true);
  // A bad line gets an error result (with its id) and the stream goes on.
  co.write(R"({"from":[0,0,-25],"to":[0,8,-4],"id":7,"bogus":1})" "\n");
  const auto second = co.readLine();
  REQUIRE(second);
  const Json two = Json::parse(*second);
  CHECK(two["line"] == 2);
  CHECK(two["id"] == 7);
  CHECK_THAT(two["error"].get<std::string>(), Catch::StartsWith("<stdin>:2: unknown member \"bogus\""));
  CHECK_FALSE(two.contains("found"));
  // Several lines at once (a blank one among them): answered in order; an unknown agent is a
  // bad line too.
  co.write("\n" R"({"from":[0,0,-19],"to":[0,0,25],"method":"corridor"})" "\n" R"({"from":[0,0,-19],"to":[0,0,25],"method":"theta"})"
           "\n" R"({"from":[0,0,-19],"to":[0,0,25],"agent":"nobody"})" "\n");
  std::vector<Json> group;
  for (int i = 0; i < 3; ++i) {
    const auto line = co.readLine();
    REQUIRE(line);
    group.push_back(Json::parse(*line));
  }
  CHECK(group[0]["line"] == 4);
  CHECK(group[0]["method"] == "corridor");
  CHECK(group[1]["line"] == 5);
  CHECK(group[1]["method"] == "theta");
  CHECK(group[2]["line"] == 6);
  CHECK(group[2]["error"].get<std::string>().find("nobody") != std::string::npos);
  // A line and half of the next in one write: the whole line is answered, the half waits for its
  // newline.
  co.write(R"({"from":[0,0,-25],"to":[0,8,-4],"id":"whole"})" "\n" R"({"from":[0,0,-25],)");
  const auto whole = co.readLine();
  REQUIRE(whole);
  CHECK(Json::parse(*whole)["id"] == "whole");
  CHECK_FALSE(co.readLine(0.5));
  co.write(R"("to":[0,8,-4],"id":"half"})" "\n");
  const auto half = co.readLine();
  REQUIRE(half);
  CHECK(Json::parse(*half)["id"] == "half");
  CHECK(Json::parse(*half)["line"] == 8);
  // The last line without its newline is answered when the input ends; the exit status says a
  // line was refused, and stderr has one line per refusal.
  co.write(R"({"from":[0,0,-25],"to":[0,8,-4]})");
  const auto end = co.finish();
  CHECK(end.exit_code == 2);
  REQUIRE(!end.out.empty());
  CHECK(Json::parse(end.out)["line"] == 9);
  CHECK(std::count(end.err.begin(), end.err.end(), '\n') == 2);
  CHECK(end.err.find("strata: error: <stdin>:2: unknown member") != std::string::npos);
}

TEST_CASE("strata path --batch --stream: the batch's results, line for line", "[cli][path][layered][batch]") {
  strata::test::TempDir dir;
  {
    std::ofstream in(dir / "requests.jsonl");
    in << R"({"from":[0,0,-25],"to":[0,8,-4],"id":"road-to-roof"})" << "\n";
    in << R"({"from":[0,0,-19],"to":[0,0,25],"method":"theta"})" << "\n";
    in << "\n";
    in << R"({"from":[0,0,-19],"to":[5,0,20],"method":"direct"})" << "\n";
    for (int i = 0; i < 40; ++i)
      in << R"({"from":[)" << (i % 7) - 3 << R"(,0,-19],"to":[0,8,-4],"method":")" << (i % 2 ? "corridor" : "interval") << "\"}\n";
  }
  const std::string requests = (dir / "requests.jsonl").string();
  const auto batch = path("tower", {"--batch", requests, "--threads", "1"});
  REQUIRE((batch.exit_code == 0 || batch.exit_code == 3));
  REQUIRE(std::count(batch.out.begin(), batch.out.end(), '\n') == 43);
  for (const char* threads : {"1", "2"}) {
    const auto streamed = path("tower", {"--batch", requests, "--stream", "--threads", threads});
    CHECK(streamed.exit_code == batch.exit_code);
    CHECK(streamed.out == batch.out);
    CHECK(streamed.err.empty());
  }
  // "-" reads standard input, with or without --stream.
  std::string command = strata::test::strataBinary().string() + " path";
  for (const auto& a : sample("tower")) command += " '" + a + "'";
  for (const char* extra : {" --batch -", " --batch - --stream"}) {
    const auto piped = strata::test::runProgram({"sh", "-c", command + extra + " < '" + requests + "'"});
    CHECK(piped.exit_code == batch.exit_code);
    CHECK(piped.out == batch.out);
  }
  // Standard input is read where it stands (it was opened again as /dev/stdin: a file was read
  // from its start, the line a shell had taken answered again), and one set non-blocking is
  // waited on (it was a read error).
  for (const char* extra : {" --batch -", " --batch - --stream"}) {
    const auto rest = strata::test::runProgram({"sh", "-c", "{ read -r first; " + command + extra + "; } < '" + requests + "'"});
    CHECK(rest.exit_code == batch.exit_code);
    // The batch's results after the first, their line numbers one less.
    std::istringstream all(batch.out), got(rest.out);
    std::string expected_line, got_line;
    std::getline(all, expected_line);
    int compared = 0;
    while (std::getline(all, expected_line)) {
      REQUIRE(std::getline(got, got_line));
      Json expected = Json::parse(expected_line);
      expected["line"] = expected["line"].get<int>() - 1;
      CHECK(Json::parse(got_line) == expected);
      ++compared;
    }
    CHECK(compared == 42);
    CHECK_FALSE(std::getline(got, got_line));
  }
  {
    std::vector<std::string> args{"path"};
    for (auto& a : sample("tower")) args.push_back(a);
    for (const char* a : {"--batch", "-", "--stream"}) args.push_back(a);
    strata::test::CoProcess co(args, true);
    co.write(R"({"from":[0,0,-25],"to":[0,8,-4]})" "\n");
    CHECK(co.readLine());
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // it is waiting for the next line
    co.write(R"({"from":[0,0,-25],"to":[0,8,-4]})" "\n");
    CHECK(co.readLine());
    const auto end = co.finish();
    CHECK(end.exit_code == 0);
    CHECK(end.err.empty());
  }
  // A closed standard input is said so, exit 2 (it was an I/O error, exit 1).
  for (const char* extra : {" --batch -", " --batch - --stream"}) {
    const auto closed = strata::test::runProgram({"sh", "-c", command + extra + " <&-"});
    CHECK(closed.exit_code == 2);
    CHECK(closed.err == "strata: error: <stdin>: standard input is closed\n");
  }
  // A failed write is said once (the stream's own message and the command's final check both
  // said it), exit 1.
  const auto full = strata::test::runProgram({"sh", "-c", command + " --batch - --stream < '" + requests + "' > /dev/full"});
  CHECK(full.exit_code == 1);
  CHECK(full.err == "strata: error: standard output: No space left on device\n");
  // A bad line from a file is named by the file; a line over the limit ends the stream after the
  // lines before it are answered.
  {
    std::ofstream in(dir / "long.jsonl");
    in << R"({"from":[0,0,-25],"to":[0,8,-4]})" << "\n" << R"({"from":[0,0],"to":[0,8,-4]})" << "\n" << std::string(1 << 21, ' ') << "\n"
       << R"({"from":[0,0,-25],"to":[0,8,-4]})" << "\n";
  }
  const auto ended = path("tower", {"--batch", (dir / "long.jsonl").string(), "--stream"});
  CHECK(ended.exit_code == 2);
  CHECK(std::count(ended.out.begin(), ended.out.end(), '\n') == 2);
  CHECK(ended.out.find(R"("found":true)") != std::string::npos);
  CHECK(ended.err.find("long.jsonl:2: ") != std::string::npos);
  CHECK(ended.err.find("long.jsonl:3: longer than") != std::string::npos);
  // Usage: --stream needs --batch and writes to stdout.
  const auto alone = path("tower", {"--from", "0,0,-25", "--to", "0,8,-4", "--stream"});
  CHECK(alone.exit_code == 2);
  CHECK(alone.err.find("--stream applies to --batch only") != std::string::npos);
  const auto to_file = path("tower", {"--batch", requests, "--stream", "-o", (dir / "out.jsonl").string()});
  CHECK(to_file.exit_code == 2);
  CHECK(to_file.err.find("--stream: the results go to standard output") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "out.jsonl"));
}

TEST_CASE("strata path --batch: thousands of requests come out in order, chunk after chunk", "[cli][path][layered][batch]") {
  // More requests than one chunk of results (4,096) holds: written out chunk by chunk, in input
  // order, the same bytes to a file as to stdout and for 1 and 2 threads, each line the answer
  // to its own request (its id; spot checks against single requests).
  strata::test::TempDir dir;
  const int count = 9001;
  {
    std::ofstream in(dir / "many.jsonl");
    for (int i = 0; i < count; ++i) {
      const int x = (i * 7) % 21 - 10, z = (i * 13) % 41 - 20;
      in << R"({"id":)" << i << R"(,"from":[)" << x << ",0," << z << R"(],"to":[)" << -z / 2 << ",0," << x * 2
         << R"(],"method":")" << (i % 2 ? "corridor" : "astar") << "\"}\n";
      if (i % 1000 == 999) in << "\n";  // blank lines count as lines
    }
  }
  const auto file = path("tower", {"--batch", (dir / "many.jsonl").string(), "-o", (dir / "one.jsonl").string(), "--threads", "1"});
  const auto two = path("tower", {"--batch", (dir / "many.jsonl").string(), "-o", (dir / "two.jsonl").string(), "--threads", "2"});
  const auto out = path("tower", {"--batch", (dir / "many.jsonl").string(), "--threads", "2"});
  INFO(file.err);
  REQUIRE((file.exit_code == 0 || file.exit_code == 3));
  CHECK(two.exit_code == file.exit_code);
  CHECK(out.exit_code == file.exit_code);
  const std::string text = strata::test::readFile(dir / "one.jsonl");
  CHECK(strata::test::sameBytes(dir / "one.jsonl", dir / "two.jsonl"));
  CHECK(out.out == text);
  std::istringstream lines(text);
  int i = 0;
  for (std::string line; std::getline(lines, line); ++i) {
    const Json r = Json::parse(line);
    REQUIRE(r["id"] == i);
    CHECK(r["line"] == i + 1 + i / 1000);
    if (i % 997 == 0) {
      const int x = (i * 7) % 21 - 10, z = (i * 13) % 41 - 20;
      const auto single = path("tower", {"--from", std::to_string(x) + ",0," + std::to_string(z), "--to",
                                         std::to_string(-z / 2) + ",0," + std::to_string(x * 2), "--method",
                                         i % 2 ? "corridor" : "astar", "--json"});
      const Json one = Json::parse(single.out);
      CHECK(one["found"] == r["found"]);
      CHECK(one["waypoints"] == r["waypoints"]);
    }
  }
  CHECK(i == count);
}

TEST_CASE("strata path --batch: the first bad line is the one named, however the lines are parsed", "[cli][path][layered][batch]") {
  // Lines are parsed a block of 8,192 (or 16 MiB) at a time, in parallel, and taken in line order: the error
  // named is the first bad line's (by line, not by which worker finished first), in the first
  // block or a later one, before a line too long to read further on, and an unreadable line is
  // named only when every line before it is good. Nothing is written.
  strata::test::TempDir dir;
  const std::string good = R"({"from":[0,0,-25],"to":[0,8,-4]})";
  const std::string too_long = R"({"id":")" + std::string(std::size_t(1) << 20, 'a') + "\"}";
  struct Case {
    std::vector<std::pair<int, std::string>> bad;  // line number (1-based) -> its text; others good
    int lines;
    std::string named;
  };
  const std::vector<Case> cases = {
      {{{5000, R"({"from":[0,0],"to":[0,8,-4]})"}, {3, "[1]"}, {7000, "x"}}, 9000, ":3: not a JSON object"},
      {{{8192, "x"}, {8193, "[1]"}}, 9000, ":8192: not valid JSON"},
      {{{8193, "[1]"}, {9000, "x"}}, 9000, ":8193: not a JSON object"},
      {{{20000, R"({"from":[0,0,-25],"to":[0,8,-4],"agent":"nobody"})"}, {20001, "[1]"}}, 20001, ":20000: "},
      {{{100, "[1]"}, {200, too_long}}, 300, ":100: not a JSON object"},
      {{{100, too_long}, {50, "x"}}, 300, ":50: not valid JSON"},
      {{{8300, too_long}}, 9000, ":8300: longer than 1048576 bytes"},
      // A block also ends at 16 MiB of text: 30 requests of 0.9 MB make two blocks.
      {{{31, "[1]"}, {32, "x"}}, 32, ":31: not a JSON object"},
      {{{12, "x"}}, 32, ":12: not valid JSON"},
  };
  const std::string padded = R"({"from":[0,0,-25],"to":[0,8,-4],"id":")" + std::string(900000, 'p') + "\"}";
  for (const Case& c : cases) {
    {
      std::ofstream out(dir / "requests.jsonl");
      for (int line = 1; line <= c.lines; ++line) {
        const auto bad = std::find_if(c.bad.begin(), c.bad.end(), [&](const auto& b) { return b.first == line; });
        out << (bad != c.bad.end() ? bad->second : c.lines == 32 ? padded : good) << "\n";
      }
    }
    for (const char* threads : {"1", "2"}) {
      const auto r = path("tower", {"--batch", (dir / "requests.jsonl").string(), "-o", (dir / "out.jsonl").string(), "--threads", threads});
      INFO(c.named << " threads " << threads);
      CHECK(r.exit_code == 2);
      CHECK_THAT(r.err, Catch::Contains("requests.jsonl" + c.named));
      CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
      CHECK_FALSE(std::filesystem::exists(dir / "out.jsonl"));
    }
  }
}

TEST_CASE("strata path --batch with corridor requests: same bytes for 1 and 2 threads", "[cli][path][layered][corridor][batch]") {
  strata::test::TempDir dir;
  {
    std::ofstream in(dir / "requests.jsonl");
    in << R"({"from":[0,0,-25],"to":[0,8,-4],"method":"corridor"})" << "\n";
    in << R"({"from":[0,0,-19],"to":[0,0,25],"method":"corridor"})" << "\n";
    in << R"({"from":[0,0,-19],"to":[5,0,20],"method":"astar"})" << "\n";
    in << R"({"from":[0,0,-25],"to":[0,8,-4],"method":"interval"})" << "\n";
  }
  const auto one = path("tower", {"--batch", (dir / "requests.jsonl").string(), "-o", (dir / "one.jsonl").string(), "--threads", "1"});
  const auto two = path("tower", {"--batch", (dir / "requests.jsonl").string(), "-o", (dir / "two.jsonl").string(), "--threads", "2"});
  CHECK(one.exit_code == 0);
  CHECK(two.exit_code == 0);
  CHECK(strata::test::sameBytes(dir / "one.jsonl", dir / "two.jsonl"));
  std::istringstream lines(strata::test::readFile(dir / "one.jsonl"));
  std::vector<Json> results;
  for (std::string line; std::getline(lines, line);) results.push_back(Json::parse(line));
  REQUIRE(results.size() == 4);
  CHECK(results[0]["method"] == "corridor");
  CHECK(results[0]["found"] == true);
  CHECK(results[1]["found"] == true);
  CHECK(results[3]["method"] == "interval");
  CHECK(results[3]["found"] == true);
}

TEST_CASE("strata path MAP.map --method corridor or interval is a usage error (worlds only)", "[cli][path][corridor]") {
  const auto map = (strata::test::sharedData() / "movingai" / "arena.map").string();
  for (const std::string method : {"corridor", "interval"}) {
    const auto r = runStrata({"path", map, "--scen", map + ".scen", "--method", method});
    CHECK(r.exit_code == 2);
    CHECK(r.err.rfind("strata: error: --method: " + method + " searches baked worlds only", 0) == 0);
    CHECK(r.err.find('\n') == r.err.size() - 1);
  }
}

TEST_CASE("strata path --on-demand: an imported, unbaked tower from the road to the roof", "[cli][path][ondemand]") {
  strata::test::TempDir dir;
  const std::string world = (dir / "tower.h5").string();
  REQUIRE(runStrata({"import", (sourceDir() / "samples" / "tower.obj").string(), "-o", world}).exit_code == 0);
  const std::string profile = (sourceDir() / "samples" / "tower.toml").string();
  // Without --on-demand an unbaked world has nothing to search.
  CHECK(runStrata({"path", world, "--from", "0,0,-25", "--to", "0,8,-4"}).exit_code == 2);
  const auto r = runStrata({"path", world, "--profile", profile, "--on-demand", "--from", "0,0,-25", "--to", "0,8,-4", "--json"});
  REQUIRE(r.exit_code == 0);
  const Json doc = Json::parse(r.out);
  CHECK(doc["found"] == true);
  CHECK(doc["method"] == "astar");
  CHECK(doc["waypoints"].back()["position"][1] == 8.0);
  // The stairs lie outside the first region (the endpoints' rectangle + 8 m): the second finds them.
  CHECK(doc["on_demand"]["factor"] == 2);
  CHECK(doc["on_demand"]["regions"] == 2);
  CHECK(doc["on_demand"]["columns_built"].get<int>() > 0);
  const auto text = runStrata({"path", world, "--profile", profile, "--on-demand", "--from", "0,0,-25", "--to", "0,8,-4"});
  CHECK_THAT(text.out, Catch::Contains("on demand: 2 regions, the last ") && Catch::Contains(" (factor 2); "));
  // Endpoints past the horizontal limit: no region is searched, and none is reported.
  const auto far = runStrata({"path", world, "--profile", profile, "--on-demand", "--from", "0,0,-25", "--to", "600,0,-25", "--json"});
  CHECK(far.exit_code == 3);
  const Json none = Json::parse(far.out);
  CHECK(none["on_demand"]["regions"] == 0);
  CHECK(none["on_demand"]["cell_size"].is_null());
  CHECK(none["on_demand"]["columns_built"] == 0);
  // The region's longest side over 128, or the agent's cell size when larger.
  CHECK(doc["on_demand"]["cell_size"].get<double>() >= 0.25);
  // Usage errors.
  CHECK(runStrata({"path", world, "--on-demand", "--method", "theta", "--from", "0,0,-25", "--to", "0,8,-4"}).exit_code == 2);
  CHECK(runStrata({"path", world, "--on-demand", "--margin", "-1", "--from", "0,0,-25", "--to", "0,8,-4"}).exit_code == 2);
  CHECK(runStrata({"path", world, "--margin", "4", "--from", "0,0,-25", "--to", "0,8,-4"}).exit_code == 2);
  const auto missing = runStrata({"path", world, "--on-demand", "--agent", "nobody", "--from", "0,0,-25", "--to", "0,8,-4"});
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.err, Catch::Contains("nobody"));
}

TEST_CASE("strata path --batch -o: never an input, a directory, a device or a missing folder", "[cli][path][layered][batch]") {
  strata::test::TempDir dir;
  // Copies of the sample, so that a failure here cannot damage the source tree.
  std::filesystem::copy_file(sourceDir() / "samples" / "tower.obj", dir / "tower.obj");
  std::filesystem::copy_file(sourceDir() / "samples" / "tower.toml", dir / "tower.toml");
  { std::ofstream(dir / "requests.jsonl") << R"({"from":[0,0,-25],"to":[0,8,-4]})" << "\n"; }
  const std::string world = (dir / "tower.obj").string(), profile = (dir / "tower.toml").string(),
                    requests = (dir / "requests.jsonl").string();
  const std::string world_bytes = strata::test::readFile(dir / "tower.obj");
  const std::string request_bytes = strata::test::readFile(dir / "requests.jsonl");
  // An audit: --margin, and --from / --to given empty, were ignored beside --batch.
  CHECK(runStrata({"path", world, "--profile", profile, "--batch", requests}).exit_code == 0);
  for (const std::vector<std::string>& extra : {std::vector<std::string>{"--margin", "4"}, {"--from", ""}, {"--to", ""}}) {
    std::vector<std::string> args{"path", world, "--profile", profile, "--batch", requests};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = runStrata(args);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(extra[0]));
    CHECK(r.out.empty());
  }
  const auto batch = [&](const std::string& batch_file, const std::string& out) {
    return runStrata({"path", world, "--profile", profile, "--batch", batch_file, "-o", out});
  };
  for (const std::string& out : {world, requests, profile}) {
    INFO(out);
    const auto r = batch(requests, out);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(out + ": the output file is also an input"));
  }
  CHECK(strata::test::readFile(dir / "tower.obj") == world_bytes);
  CHECK(strata::test::readFile(dir / "requests.jsonl") == request_bytes);
  auto r = batch(requests, (dir / "nodir" / "r.jsonl").string());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("does not exist"));
  r = batch(requests, "/dev/null");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("/dev/null: is not a regular file"));
  r = batch(requests, dir.path().string());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("is a directory"));
  // The requests "file" is a directory.
  r = batch(dir.path().string(), (dir / "r.jsonl").string());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains(dir.path().string() + ": is a directory"));
  CHECK_FALSE(std::filesystem::exists(dir / "r.jsonl"));
  // Through a symbolic link: the file it names is written, the link stays.
  std::filesystem::create_symlink("results-v1.jsonl", dir / "results.jsonl");
  r = batch(requests, (dir / "results.jsonl").string());
  CHECK(r.exit_code == 0);
  CHECK(std::filesystem::is_symlink(dir / "results.jsonl"));
  CHECK_THAT(strata::test::readFile(dir / "results-v1.jsonl"), Catch::Contains("\"found\":true"));
  // A results name only (.jsonl, .ndjson, .json, any case): a hunt's mistyped -o replaced a
  // profile that the command did not read, and any other file could go the same way.
  { std::ofstream(dir / "other.toml") << "[agent.a]\n"; }
  for (const char* name : {"other.toml", "notes", "fresh.txt"}) {
    INFO(name);
    r = batch(requests, (dir / name).string());
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("batch results are written to a .jsonl (or .ndjson, .json) name"));
  }
  CHECK(strata::test::readFile(dir / "other.toml") == "[agent.a]\n");
  CHECK_FALSE(std::filesystem::exists(dir / "fresh.txt"));
  std::filesystem::create_symlink("other.toml", dir / "to_profile.jsonl");
  r = batch(requests, (dir / "to_profile.jsonl").string());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("the symbolic link's target"));
  for (const char* name : {"r.JSON", "r.ndjson"}) CHECK(batch(requests, (dir / name).string()).exit_code == 0);
}

TEST_CASE("strata path and query: a point far off the grid snaps to nothing, baked or on demand", "[cli][path][layered]") {
  // The tower's grid ends near z = -30; a goal 10 m beyond it is farther than the 1 m snap.
  auto r = path("tower", {"--from", "0,0,-25", "--to", "0,0,-40", "--json"});
  CHECK(r.exit_code == 3);
  CHECK(Json::parse(r.out)["reason"] == "NoGoalNode");
  r = path("tower", {"--from", "0,0,-25", "--to", "0,0,-40", "--json", "--on-demand"});
  CHECK(r.exit_code == 3);
  CHECK(Json::parse(r.out)["reason"] == "NoGoalNode");
  r = path("tower", {"--from", "0,0,-45", "--to", "0,0,-25", "--json"});
  CHECK(r.exit_code == 3);
  CHECK(Json::parse(r.out)["reason"] == "NoStartNode");
  const std::string tower = (sourceDir() / "samples" / "tower.obj").string();
  const std::string profile = (sourceDir() / "samples" / "tower.toml").string();
  // nearest: the distance is from the point itself.
  r = runStrata({"query", tower, "nearest", "--at", "40,0,40", "--profile", profile, "--json"});
  CHECK(r.exit_code == 3);
  r = runStrata({"query", tower, "nearest", "--at", "40,0,40", "--radius", "20", "--profile", profile, "--json"});
  REQUIRE(r.exit_code == 0);
  const Json doc = Json::parse(r.out);
  const double dx = doc["position"][0].get<double>() - 40, dz = doc["position"][2].get<double>() - 40;
  CHECK(doc["distance"].get<double>() == Approx(std::hypot(dx, dz)));
  CHECK(doc["distance"].get<double>() > 10);
}

TEST_CASE("strata path --method direct costs each area it crosses and marks where it enters it", "[cli][path][layered]") {
  // Straight up the tower's ramp (area cost 1.5): the same cost as the exact search's straight route.
  const auto direct = path("tower", {"--from", "0.15,0,18", "--to", "0.15,4,8", "--method", "direct", "--json"});
  const auto astar = path("tower", {"--from", "0.15,0,18", "--to", "0.15,4,8", "--method", "astar", "--json"});
  REQUIRE(direct.exit_code == 0);
  REQUIRE(astar.exit_code == 0);
  const Json d = Json::parse(direct.out), a = Json::parse(astar.out);
  CHECK(d["length"].get<double>() == Approx(a["length"].get<double>()).margin(0.01));
  CHECK(d["cost"].get<double>() == Approx(a["cost"].get<double>()).epsilon(1e-4));
  CHECK(d["cost"].get<double>() > d["length"].get<double>() * 1.2);  // the ramp is dearer than walking
  std::vector<std::string> areas;
  for (const auto& w : d["waypoints"]) areas.push_back(w["area"].get<std::string>());
  CHECK(std::find(areas.begin(), areas.end(), "ramp") != areas.end());
  CHECK(areas.back() == "default");
}

TEST_CASE("strata path --method interval is never longer than corridor (narrow maze passages)", "[cli][path][layered][corridor]") {
  // The plane of whole column cells cuts every turn of a one-column passage; this route through
  // the maze's interior was 49.3 m against the corridor method's 44.2 m.
  const std::vector<std::string> ends{"--from", "11.758,0,5.119", "--to", "0.328,0,1.354", "--json"};
  auto run = [&](const char* method) {
    std::vector<std::string> args = ends;
    args.push_back("--method");
    args.push_back(method);
    const auto r = path("maze", args);
    REQUIRE(r.exit_code == 0);
    const Json doc = Json::parse(r.out);
    // maze has one area: the corridor methods answer themselves (interval may keep the corridor
    // method's route, when it is the cheaper one).
    const std::string by = doc["answered_by"];
    CHECK((by == method || (by == "corridor" && std::string(method) == "interval")));
    return doc["length"].get<double>();
  };
  const double interval = run("interval"), corridor = run("corridor"), theta = run("theta");
  CHECK(interval <= corridor + 1e-9);
  CHECK(interval <= theta * 1.01);
  // The text names the method that answered when it is not the one asked for.
  const auto tower = path("tower", {"--from", "0,0,-25", "--to", "0,8,-4", "--method", "interval"});
  REQUIRE(tower.exit_code == 0);
  CHECK_THAT(tower.out, Catch::Contains("method: interval (answered by theta)\n"));
  const auto maze = path("maze", {"--from", "11.758,0,5.119", "--to", "0.328,0,1.354", "--method", "corridor"});
  REQUIRE(maze.exit_code == 0);
  CHECK_THAT(maze.out, Catch::Contains("method: corridor\n"));
}

TEST_CASE("strata path --batch: a batch of no requests warns, and writes its empty results", "[cli][path][layered][batch]") {
  strata::test::TempDir dir;
  const auto empty = (dir / "empty.jsonl").string(), blank = (dir / "blank.jsonl").string(), out = (dir / "out.jsonl").string();
  std::ofstream(empty).close();
  std::ofstream(blank) << "\n  \n\n";
  std::vector<std::string> args{"path"};
  for (auto& a : sample("tower")) args.push_back(a);
  args.insert(args.end(), {"--batch", empty, "-o", out});
  auto r = runStrata(args);
  CHECK(r.exit_code == 0);
  CHECK(r.err == "strata: warning: " + empty + ": no requests (the file is empty): an empty results file is written\n");
  REQUIRE(std::filesystem::exists(out));
  CHECK(std::filesystem::file_size(out) == 0);
  args[args.size() - 3] = blank;
  args.resize(args.size() - 2);  // no -o
  r = runStrata(args);
  CHECK(r.exit_code == 0);
  CHECK(r.out.empty());
  CHECK(r.err == "strata: warning: " + blank + ": no requests (blank lines only): no results\n");
}

TEST_CASE("strata path --batch checks the world and the agent even with no requests", "[cli][path][layered][batch]") {
  strata::test::TempDir dir;
  const auto empty = (dir / "empty.jsonl").string(), text = (dir / "text.h5").string();
  std::ofstream(empty).close();
  std::ofstream(text) << "hello\n";
  auto r = runStrata({"path", text, "--batch", empty, "-o", (dir / "out.jsonl").string()});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("text.h5: not a Strata world file") && !Catch::Contains("empty.jsonl"));
  CHECK_FALSE(std::filesystem::exists(dir / "out.jsonl"));
  std::vector<std::string> args{"path"};
  for (auto& a : sample("tower")) args.push_back(a);
  for (auto a : {"--batch", empty.c_str(), "--agent", "nobody"}) args.push_back(a);
  r = runStrata(args);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("no agent 'nobody'"));
  // An empty file named like a world is a world that is not there, not a Moving AI map.
  const auto zero = (dir / "zero.h5").string();
  std::ofstream(zero).close();
  r = runStrata({"path", zero, "--from", "0,0,25", "--to", "0,8,-4"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("zero.h5: empty file"));
  // A mesh whose first line reads "type quad" is a mesh (only "type octile" makes a map of a file
  // not named *.map), as import, query and render read it.
  const auto typed = (dir / "typed.obj").string();
  std::ofstream(typed) << "type quad\nv 0 0 0\nv 0 0 10\nv 10 0 10\nv 10 0 0\nf 1 2 3\nf 1 3 4\n";
  r = runStrata({"path", typed, "--from", "2,0,2", "--to", "8,0,8"});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("result: found"));
  // Named *.map, another type is a map with an unsupported type.
  const auto hex = (dir / "hex.map").string();
  std::ofstream(hex) << "type hex\nheight 1\nwidth 1\nmap\n.\n";
  r = runStrata({"path", hex, "--scen", hex});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("hex.map:1: not a Moving AI map (expected 'type octile' on the first line)"));
  {
    std::ofstream named(dir / "agent.jsonl");
    named << R"({"from": [0, 0, -25], "to": [0, 8, -4], "agent": ""})" << "\n";
  }
  args = {"path"};
  for (auto& a : sample("tower")) args.push_back(a);
  args.push_back("--batch");
  args.push_back((dir / "agent.jsonl").string());
  r = runStrata(args);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("agent.jsonl:1: \"agent\" must not be empty"));
}

TEST_CASE("strata path --closest: a goal the bake proves unreachable gets the closest route", "[cli][path][layered]") {
  // The course's pit (y -6) is no floor the start's component reaches: without --closest, NoPath
  // with zero expansions; with it, the search runs and answers ClosestNoPath with a route.
  const auto plain = path("course", {"--from", "-4,0,0", "--to", "35,-6,0", "--json"});
  CHECK(plain.exit_code == 3);
  CHECK(Json::parse(plain.out)["reason"] == "NoPath");
  CHECK(Json::parse(plain.out)["expansions"] == 0);
  for (const char* method : {"astar", "corridor"}) {
    INFO(method);
    const auto r = path("course", {"--from", "-4,0,0", "--to", "35,-6,0", "--closest", "--method", method, "--json"});
    CHECK(r.exit_code == 3);
    const Json doc = Json::parse(r.out);
    CHECK(doc["reason"] == "ClosestNoPath");
    REQUIRE(doc["waypoints"].size() >= 2);
    // The closest route has its length and cost.
    CHECK(doc["length"].get<double>() > 0);
    CHECK(doc["cost"].get<double>() > 0);
    const auto& end = doc["waypoints"].back()["position"];
    CHECK(std::hypot(end[0].get<double>() - 35, end[2].get<double>()) < std::hypot(-4.0 - 35, 0.0));
  }
}

TEST_CASE("strata path --batch: messages are one printable, bounded line - spacing is named as written", "[cli][path][layered][batch]") {
  strata::test::TempDir dir;
  {
    std::ofstream in(dir / "spacing.jsonl");
    in << R"({"from": [0, 0, -25], "to": [0, 8, -4], "spacing": 0.01})" << "\n";
  }
  {
    std::ofstream in(dir / "nul.jsonl", std::ios::binary);
    in << "{\"from\": [0, 0, -25], \"to\": [0, 8, -4], \"a\\u0000b\": 1}\n";
  }
  {
    std::ofstream in(dir / "long.jsonl");
    in << R"({"from": [0, 0, -25], "to": [0, 8, -4], "agent": ")" << std::string(1 << 20, 'x') << "\"}\n";
  }
  auto batch = [&](const char* file) {
    std::vector<std::string> args{"path"};
    for (auto& a : sample("tower")) args.push_back(a);
    args.push_back("--batch");
    args.push_back((dir / file).string());
    return runStrata(args);
  };
  auto r = batch("spacing.jsonl");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("spacing.jsonl:1: \"spacing\" must be 0 (none) or a finite number >= 0.05"));
  r = batch("nul.jsonl");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("unknown member \"a\\x00b\""));
  CHECK(r.err.find('\0') == std::string::npos);
  r = batch("long.jsonl");
  CHECK(r.exit_code == 2);
  CHECK(r.err.size() < 2100);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

TEST_CASE("strata path --batch reads only the agents its requests name", "[cli][path][batch]") {
  // A world whose first agent is damaged (a component_count no bake writes): single requests for
  // the second agent answer, and so must a batch whose requests all name it (it read the first,
  // default, agent's graph up front and failed; strata-path(1): only the agents requests name are
  // read). A request for the damaged agent, or a default one, still fails naming its line.
  strata::test::TempDir dir;
  const auto profile = (dir / "two.toml").string(), baked = (dir / "two.h5").string(), damaged = (dir / "damaged.h5").string();
  std::ofstream(profile) << "[agent.first]\ncell_size = 0.5\n[agent.second]\ncell_size = 0.5\nradius = 0.2\n";
  const auto course = (sourceDir() / "samples" / "course.obj").string();
  REQUIRE(runStrata({"bake", course, "--profile", profile, "-o", baked}).exit_code == 0);
  auto world = strata::formats::readWorldFile(baked);
  REQUIRE(world.ok());
  REQUIRE(world->agents.size() == 2);
  world->agents[0].graph.component_count += 1;
  REQUIRE(strata::formats::detail::writeWorldFileUnchecked(damaged, *world).ok());  // writeWorldFile refuses it
  const auto second = (dir / "second.jsonl").string(), plain = (dir / "plain.jsonl").string();
  std::ofstream(second) << R"({"from": [-4, 0, 0], "to": [3, 0, 0], "agent": "second"})" << "\n";
  std::ofstream(plain) << R"({"from": [-4, 0, 0], "to": [3, 0, 0]})" << "\n";
  auto r = runStrata({"path", damaged, "--batch", second});
  CHECK(r.exit_code == 0);
  CHECK(Json::parse(r.out)["found"] == true);
  CHECK(Json::parse(r.out)["agent"] == "second");
  r = runStrata({"path", damaged, "--batch", plain});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("plain.jsonl:1: ") && Catch::Contains("/navigation/agents/first/component"));
  // An unknown --agent is still refused before any request is read.
  r = runStrata({"path", damaged, "--batch", second, "--agent", "zz"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("no agent 'zz' (agents: first, second)"));
}

TEST_CASE("strata path: an endpoint off its column centre keeps the centre where the leg from it is not clear", "[cli][path][layered]") {
  // An audit: from 0.2 m off its column centre, the line to the next corner passed the end of
  // the maze's east wall 0.07 m closer than the radius (the line from the centre clears it), and
  // on course a jump over the gap from the exact start was 2.69 m, past jump_distance (2.5 m).
  for (const char* method : {"astar", "theta", "corridor", "interval", "direct"}) {
    INFO(method);
    const auto r = path("maze", {"--from", "13.51,0,-0.8", "--to", "13.79,0,13", "--method", method, "--json"});
    REQUIRE(r.exit_code == 0);
    const Json doc = Json::parse(r.out);
    const auto& w = doc["waypoints"];
    REQUIRE(w.size() >= 3);
    // The second waypoint is the start's column centre, within half a cell of the start.
    CHECK(std::fabs(w[1]["position"][0].get<double>() - 13.51) < 0.2);
    CHECK(std::fabs(w[1]["position"][2].get<double>() + 0.8) < 0.2);
  }
  for (const char* method : {"astar", "theta", "corridor"}) {
    INFO(method);
    const auto r = path("course", {"--from", "33.61,0,3.61", "--to", "36.29,0,3.89", "--method", method, "--json"});
    REQUIRE(r.exit_code == 0);
    const Json doc = Json::parse(r.out);
    const auto& w = doc["waypoints"];
    bool jumped = false;
    for (std::size_t i = 1; i < w.size(); ++i) {
      if (w[i]["action"] != "jump") continue;
      jumped = true;
      const double dx = w[i]["position"][0].get<double>() - w[i - 1]["position"][0].get<double>();
      const double dz = w[i]["position"][2].get<double>() - w[i - 1]["position"][2].get<double>();
      CHECK(std::hypot(dx, dz) <= 2.5 + 1e-9);
    }
    CHECK(jumped);
  }
}

TEST_CASE("strata path: an endpoint typed as its column centre is that centre - no waypoint twice", "[cli][path][layered]") {
  // An audit: 16.35 typed and the centre computed as 16.349999999999998 were taken for two
  // places, and the centre was kept beside the exact start: two waypoints an ulp apart (8 % of
  // a batch of such requests).
  for (const char* method : {"astar", "theta", "corridor", "interval", "direct"}) {
    INFO(method);
    const auto r = path("maze", {"--from", "16.35,0.1,15.75", "--to", "8.85,0.1,15.15", "--method", method, "--json"});
    if (std::string(method) == "direct" && r.exit_code == 3) continue;  // a wall between: no line
    REQUIRE(r.exit_code == 0);
    const Json doc = Json::parse(r.out);
    const auto& w = doc["waypoints"];
    REQUIRE(w.size() >= 2);
    for (std::size_t i = 1; i < w.size(); ++i) {
      const double dx = w[i]["position"][0].get<double>() - w[i - 1]["position"][0].get<double>();
      const double dz = w[i]["position"][2].get<double>() - w[i - 1]["position"][2].get<double>();
      const double dy = w[i]["position"][1].get<double>() - w[i - 1]["position"][1].get<double>();
      CHECK(std::hypot(dx, dy, dz) > 1e-6);
    }
  }
}

TEST_CASE("strata path --method corridor: a way out of a mud row and back never costs more than the line through it", "[cli][path][layered][corridor]") {
  // A review's world: a floor slab (z -10 .. 1.6) with a wall along z 0 .. 0.4 save a doorway
  // (x 9 .. 11) and a mud band (z 0.5 .. 1.6, cost 10) north of it. Start and goal lie in the
  // mud; the loop search chose a way out through the doorway and back that, once pulled,
  // cost 181 against the straight line's 180.
  strata::test::TempDir dir;
  {
    std::ofstream obj(dir / "mud.obj");
    int vertices = 0;
    auto box = [&](double x0, double y0, double z0, double x1, double y1, double z1) {
      const double xs[2] = {x0, x1}, ys[2] = {y0, y1}, zs[2] = {z0, z1};
      for (int i = 0; i < 8; ++i) obj << "v " << xs[i & 1] << ' ' << ys[(i >> 1) & 1] << ' ' << zs[(i >> 2) & 1] << '\n';
      // Faces by corner index (bit 0 x, bit 1 y, bit 2 z), outward.
      const int faces[6][4] = {{2, 6, 7, 3}, {0, 1, 5, 4}, {0, 2, 3, 1}, {4, 5, 7, 6}, {0, 4, 6, 2}, {1, 3, 7, 5}};
      for (const auto& f : faces)
        obj << "f " << vertices + f[0] + 1 << ' ' << vertices + f[1] + 1 << ' ' << vertices + f[2] + 1 << ' ' << vertices + f[3] + 1 << '\n';
      vertices += 8;
    };
    box(0, -0.2, -10, 20, 0, 1.6);
    box(0, 0, 0, 9, 2, 0.4);
    box(11, 0, 0, 20, 2, 0.4);
  }
  std::ofstream(dir / "mud.toml") << "[agent.a]\nradius = 0.3\nheight = 1.8\ncell_size = 0.5\nstep_height = 0.4\nmax_slope = 45.0\n"
                                     "[[agent.a.modifiers]]\nmin = [0.0, -1.0, 0.5]\nmax = [20.0, 1.0, 1.6]\narea = \"mud\"\ncost = 10.0\n";
  auto cost = [&](const char* method) {
    const auto r = runStrata({"path", (dir / "mud.obj").string(), "--profile", (dir / "mud.toml").string(), "--from", "1,0,0.75", "--to",
                              "19,0,0.75", "--method", method, "--json"});
    REQUIRE(r.exit_code == 0);
    return Json::parse(r.out)["cost"].get<double>();
  };
  const double line = cost("direct"), corridor = cost("corridor");
  CHECK(corridor <= line + 1e-9);
  CHECK(corridor <= 1.05 * cost("astar"));
}
