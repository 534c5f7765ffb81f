// Black-box tests of the navigation kinds of `strata query` on the tower and course samples.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <regex>

#include "test_support.h"

using strata::test::runStrata;
using strata::test::sourceDir;
using Json = nlohmann::json;

namespace {

strata::test::RunResult query(const std::string& name, const std::string& kind, std::vector<std::string> extra) {
  std::vector<std::string> args{"query", (sourceDir() / "samples" / (name + ".obj")).string(), "--json", kind,
                                "--profile", (sourceDir() / "samples" / (name + ".toml")).string()};
  for (auto& a : extra) args.push_back(a);
  return runStrata(args);
}

}  // namespace

TEST_CASE("strata query height: the three layers of the tower", "[cli][query][layered]") {
  const auto r = query("tower", "height", {"--at", "0,-4"});
  REQUIRE(r.exit_code == 0);
  const auto layers = Json::parse(r.out)["layers"];
  REQUIRE(layers.size() == 3);
  CHECK(layers[0]["height"].get<double>() == Approx(0).margin(0.05));
  CHECK(layers[1]["height"].get<double>() == Approx(4).margin(0.05));
  CHECK(layers[2]["height"].get<double>() == Approx(8).margin(0.05));
  CHECK(query("tower", "height", {"--at", "100,100"}).exit_code == 3);
}

// Every number in `text` (a JSON document) with at most `decimals` digits after its point.
static bool shortNumbers(const std::string& text, int decimals) {
  const std::regex longer("[0-9]\\.[0-9]{" + std::to_string(decimals + 1) + ",}");
  return !std::regex_search(text, longer);
}

TEST_CASE("strata query and path JSON: float32 values and cell centres print as short decimals", "[cli][query][layered]") {
  // Heights, headroom and clearance are float32 in the world: 3.8, not 3.799999952316284.
  const auto height = query("tower", "height", {"--at", "0.1,0.1"});
  REQUIRE(height.exit_code == 0);
  INFO(height.out);
  CHECK(shortNumbers(height.out, 4));
  CHECK(Json::parse(height.out)["layers"][0]["headroom"].get<double>() == 3.8);
  // Waypoints: cell centres and float heights (14.55 and 0.925, not 14.549999999999999 and
  // 0.925000011920929); the length is a double printed to 15 significant digits.
  const auto path = runStrata({"path", (sourceDir() / "samples" / "tower.obj").string(), "--profile",
                               (sourceDir() / "samples" / "tower.toml").string(), "--from", "0,0,0", "--to", "5,10,5", "--json"});
  REQUIRE(path.exit_code == 0);
  INFO(path.out);
  const auto doc = Json::parse(path.out);
  REQUIRE(doc["waypoints"].size() >= 3);
  CHECK(shortNumbers(doc["waypoints"].dump(), 4));
  CHECK_FALSE(shortNumbers(doc["length"].dump(), 4));  // not rounded to a few decimals
}

TEST_CASE("strata query nearest: the floor below, not the roof above", "[cli][query][layered]") {
  auto r = query("tower", "nearest", {"--at", "0,3,-4"});  // under the bridge (4): the road
  REQUIRE(r.exit_code == 0);
  CHECK(Json::parse(r.out)["position"][1].get<double>() == Approx(0).margin(0.05));
  r = query("tower", "nearest", {"--at", "0,7,-4"});  // under the roof (8): the bridge
  REQUIRE(r.exit_code == 0);
  CHECK(Json::parse(r.out)["position"][1].get<double>() == Approx(4).margin(0.05));
}

TEST_CASE("strata query nearest: a miss under a floor says where the floor above lies", "[cli][query][layered]") {
  // A fresh-user audit took "no walkable floor within 2.4 m" for a hole in the bake: the floor
  // was 5 m over the point, and a point takes the floor below it. 3 m under the tower's road:
  const auto text = runStrata({"query", (sourceDir() / "samples" / "tower.obj").string(), "nearest", "--profile",
                               (sourceDir() / "samples" / "tower.toml").string(), "--at", "0.15,-3,-24.75"});
  CHECK(text.exit_code == 3);
  CHECK(text.out == "nearest: no walkable floor within 2.4 m\n(a floor lies 3.000 m over the point, at (0.150, 0.000, -24.750): a "
                    "point takes the floor below it, or one at most 0.5 m over it)\n");
  // Nothing above: the miss alone. (JSON: found false, as before.)
  const auto off = runStrata({"query", (sourceDir() / "samples" / "tower.obj").string(), "nearest", "--profile",
                              (sourceDir() / "samples" / "tower.toml").string(), "--at", "500,0,500"});
  CHECK(off.exit_code == 3);
  CHECK(off.out == "nearest: no walkable floor within 2.4 m\n");
  const auto json = query("tower", "nearest", {"--at", "0.15,-3,-24.75"});
  CHECK(json.exit_code == 3);
  CHECK(Json::parse(json.out)["found"] == false);
}

TEST_CASE("strata query sight: without --eye a short agent's eyes sit at 0.9 x its height", "[cli][query][layered]") {
  // An audit: a 1.0 m agent under the course's 1.2 m slab, whose feet pass (los clear), was
  // blocked by its own ceiling: the default eyes were 1.6 m up, over the slab. 1.6 m stays the
  // default for agents of 1.78 m and taller (the default agent's eyes do not move).
  strata::test::TempDir dir;
  const auto profile = dir / "short.toml";
  { std::ofstream(profile) << "[agent.short]\nheight = 1.0\nstep_height = 0.3\ncell_size = 0.25\n"; }
  auto sight = [&](std::vector<std::string> extra) {
    std::vector<std::string> args{"query", (sourceDir() / "samples" / "course.obj").string(), "sight", "--profile", profile.string(),
                                  "--from", "1,0,4", "--to", "3,0,4"};
    for (auto& a : extra) args.push_back(a);
    return runStrata(args);
  };
  CHECK(sight({}).exit_code == 0);
  CHECK(sight({"--eye", "1.6"}).exit_code == 3);
  CHECK(sight({"--eye", "0.9"}).exit_code == 0);
}

TEST_CASE("strata query los and sight: the course gap blocks feet, not eyes", "[cli][query][layered]") {
  CHECK(query("course", "los", {"--from", "32,0,0", "--to", "38,0,0"}).exit_code == 3);
  CHECK(query("course", "sight", {"--from", "32,0,0", "--to", "38,0,0"}).exit_code == 0);
  // Eyes just above the floor see across the gap too; eyes at the floor itself (0) are refused:
  // that segment touched the gap's rim and was blocked (an audit).
  CHECK(query("course", "sight", {"--from", "32,0,0", "--to", "38,0,0", "--eye", "0.001"}).exit_code == 0);
  const auto zero = query("course", "sight", {"--from", "32,0,0", "--to", "38,0,0", "--eye", "0"});
  CHECK(zero.exit_code == 2);
  CHECK_THAT(zero.err, Catch::Contains("--eye"));
  CHECK(std::count(zero.err.begin(), zero.err.end(), '\n') == 1);
  CHECK(query("course", "los", {"--from", "22,0,0", "--to", "30,0,1"}).exit_code == 0);
  // An end with no floor below it is said to be one, not a blocked line.
  for (const char* kind : {"los", "sight"}) {
    INFO(kind);
    const auto r = query("tower", kind, {"--from", "0,0,25", "--to", "40,0,25"});
    CHECK(r.exit_code == 3);
    const Json doc = Json::parse(r.out);
    CHECK(doc["clear"] == false);
    CHECK(doc["reason"] == "NoGoalNode");
    CHECK(Json::parse(query("tower", kind, {"--from", "40,0,25", "--to", "0,0,25"}).out)["reason"] == "NoStartNode");
  }
}

TEST_CASE("strata query los and sight: a blocked line says where and why", "[cli][query][layered]") {
  // The course's gap (x 34..36): only a jump leads on, from the last column before x = 34.
  auto r = query("course", "los", {"--from", "32,0,0", "--to", "38,0,0"});
  REQUIRE(r.exit_code == 3);
  Json doc = Json::parse(r.out);
  CHECK(doc["reason"] == "OnlyAction");
  CHECK(doc["at"][0].get<double>() > 33.4);
  CHECK(doc["at"][0].get<double>() <= 34.0);
  CHECK(doc["at"][1].get<double>() == Approx(0).margin(0.05));
  CHECK(doc["distance"].get<double>() == Approx(doc["at"][0].get<double>() - 32).margin(0.31));  // from --from's column centre
  CHECK_THAT(doc["why"].get<std::string>(), Catch::Contains("only a jump leads on"));
  // The 5 cm wall at x 44..44.05: nothing to stand on beside it for the feet; its face for the eyes.
  r = query("course", "los", {"--from", "40,0,0", "--to", "48,0,0"});
  REQUIRE(r.exit_code == 3);
  doc = Json::parse(r.out);
  CHECK(doc["reason"] == "NoFloor");
  CHECK(doc["at"][0].get<double>() > 43.0);
  CHECK(doc["at"][0].get<double>() < 44.0);
  r = query("course", "sight", {"--from", "40,0,0", "--to", "48,0,0"});
  REQUIRE(r.exit_code == 3);
  doc = Json::parse(r.out);
  CHECK(doc["reason"] == "Surface");
  CHECK(doc["at"][0].get<double>() == Approx(44.0).margin(1e-6));
  CHECK(doc["at"][1].get<double>() == Approx(1.6).margin(0.05));
  CHECK_THAT(doc["why"].get<std::string>(), Catch::Contains("label \"wall\""));
  // Text: one line, the place and the reason.
  const auto text = runStrata({"query", (sourceDir() / "samples" / "course.obj").string(), "los", "--profile",
                               (sourceDir() / "samples" / "course.toml").string(), "--from", "40,0,0", "--to", "48,0,0"});
  CHECK(text.exit_code == 3);
  CHECK(std::count(text.out.begin(), text.out.end(), '\n') == 1);
  CHECK_THAT(text.out, Catch::StartsWith("los: blocked ") && Catch::Contains(" m along the line, at (4") &&
                           Catch::Contains("nothing to stand on in the next column"));
  // A clear line carries none of it.
  doc = Json::parse(query("course", "los", {"--from", "22,0,0", "--to", "30,0,1"}).out);
  CHECK(doc["clear"] == true);
  CHECK_FALSE(doc.contains("reason"));
  CHECK_FALSE(doc.contains("at"));
}

TEST_CASE("strata query field and component", "[cli][query][layered]") {
  auto r = query("tower", "field", {"--name", "from_road", "--at", "0,0,20"});
  REQUIRE(r.exit_code == 0);
  CHECK(Json::parse(r.out)["distance"].get<double>() == Approx(5).margin(0.6));
  r = query("tower", "field", {"--origin", "0,0,25", "--at", "0,0,20"});
  REQUIRE(r.exit_code == 0);
  CHECK(Json::parse(r.out)["distance"].get<double>() == Approx(5).margin(0.6));
  // The baked field's origin (0, 0, 25) lies on a column border (x = 0, cell 0.3): the bake and
  // the query snap it to the same column, so the field reads 0 at its own origin (it read 0.3).
  for (const char* origin : {"0,0,25", "0,0.5,25"}) {
    r = query("tower", "field", {"--name", "from_road", "--at", origin});
    REQUIRE(r.exit_code == 0);
    CHECK(Json::parse(r.out)["distance"].get<double>() == 0.0);
  }
  r = query("tower", "field", {"--origin", "0,0,25", "--at", "0,0,25"});
  REQUIRE(r.exit_code == 0);
  CHECK(Json::parse(r.out)["distance"].get<double>() == 0.0);
  CHECK(query("tower", "field", {"--name", "nope", "--at", "0,0,20"}).exit_code == 2);
  // Each refusal names the option at fault.
  r = query("tower", "field", {"--name", "nope", "--at", "0,0,20"});
  // (And the agent whose fields they are: another agent of a world may have the field.)
  CHECK_THAT(r.err, Catch::Contains(": agent human: --name: no route-distance field 'nope' (baked fields: from_road"));
  r = query("tower", "field", {"--name", "from_road", "--at", "500,0,500"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains(": --at: no walkable floor near the point"));
  r = query("tower", "field", {"--name", "", "--at", "0,0,20"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--name: a field name cannot be empty"));
  CHECK(query("maze", "component", {"--at", "0.6,0,-1", "--to", "17.5,0,3.5"}).exit_code == 3);
  CHECK(query("maze", "component", {"--at", "0.6,0,-1", "--to", "5,0,5"}).exit_code == 0);
  // Beyond a field's limit is not out of reach (an audit: "reachable": false where component
  // --to said reachable): no distance (exit 3), but reachable, beyond the limit.
  r = query("maze", "field", {"--origin", "0.6,0,-1", "--at", "5,0,5", "--max", "1"});
  CHECK(r.exit_code == 3);
  Json field = Json::parse(r.out);
  CHECK(field["reachable"] == true);
  CHECK(field["beyond_limit"] == true);
  CHECK(field["distance"].is_null());
  r = query("maze", "field", {"--origin", "0.6,0,-1", "--at", "5,0,5"});
  CHECK(r.exit_code == 0);
  field = Json::parse(r.out);
  CHECK(field["reachable"] == true);
  CHECK(field["beyond_limit"] == false);
  CHECK(field["distance"].get<double>() > 1);
  r = query("maze", "field", {"--origin", "0.6,0,-1", "--at", "17.5,0,3.5"});
  CHECK(r.exit_code == 3);
  field = Json::parse(r.out);
  CHECK(field["reachable"] == false);
  CHECK(field["beyond_limit"] == false);
  CHECK(field["distance"].is_null());
  const auto beyond = runStrata({"query", (sourceDir() / "samples" / "maze.obj").string(), "field", "--profile",
                                 (sourceDir() / "samples" / "maze.toml").string(), "--origin", "0.6,0,-1", "--at", "5,0,5",
                                 "--max", "1"});
  CHECK(beyond.exit_code == 3);
  CHECK(beyond.out == "field: beyond the limit of 1 (reachable, farther)\n");
  // A baked field's own limit alike.
  strata::test::TempDir dir;
  const auto near = (dir / "near.toml").string();
  std::ofstream(near) << "[agent.a]\n[[agent.a.fields]]\nname = \"near\"\norigin = [0.6, 0, -1]\nmax_distance = 1\n";
  for (const char* point : {"5,0,5", "17.5,0,3.5"}) {
    r = runStrata({"query", (sourceDir() / "samples" / "maze.obj").string(), "field", "--profile", near, "--name", "near", "--at",
                   point, "--json"});
    CHECK(r.exit_code == 3);
    field = Json::parse(r.out);
    const bool reachable = std::string(point) == "5,0,5";
    CHECK(field["reachable"] == reachable);
    CHECK(field["beyond_limit"] == reachable);
    CHECK(field["distance"].is_null());
  }
  // An audit: `--to ''` (an unset variable) answered as if --to were not given.
  r = query("maze", "component", {"--at", "0.6,0,-1", "--to", ""});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--to"));
  CHECK(r.out.empty());
  r = query("tower", "clearance", {"--at", "0,0,-4"});
  REQUIRE(r.exit_code == 0);
  CHECK(Json::parse(r.out)["floor"]["clearance"].get<double>() > 0.3);
}
