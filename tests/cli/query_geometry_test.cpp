// Black-box tests of `strata query WORLD ray|overlap|cast` on the tower sample (features in
// samples/README.md: road top y = 0, bridge deck top y = 4 at x -2..2, roof top y = 8 at
// x -6..6, z -8..0; the three layers overlap at (0, -4)).

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

#include "test_support.h"

using strata::test::runStrata;
using strata::test::sourceDir;
using strata::test::TempDir;

namespace {
std::string tower() { return (sourceDir() / "samples" / "tower.obj").string(); }
}  // namespace

TEST_CASE("query JSON: a computed value that is exactly a float32 prints exactly, far from the origin", "[cli][query]") {
  // An audit: a ray's distance of 299999.875 (exactly a float32) printed as the float's shortest
  // decimal, 299999.88, and the hit point's z 300000.15625 as 300000.16: 1.6 cm off. A 2 m floor
  // at y 0 with corners 299999..300001.
  TempDir dir;
  {
    std::ofstream obj(dir / "far.obj");
    obj << "v 299999 0 299999\nv 299999 0 300001\nv 300001 0 300001\nv 300001 0 299999\nf 1 2 3\nf 1 3 4\n";
  }
  const std::string world = (dir / "far.h5").string();
  REQUIRE(runStrata({"import", (dir / "far.obj").string(), "-o", world}).exit_code == 0);
  auto r = runStrata({"query", world, "--json", "ray", "--from", "299999.875,299999.875,300000.15625", "--dir", "0,-1,0"});
  REQUIRE(r.exit_code == 0);
  INFO(r.out);
  const auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["distance"].get<double>() == 299999.875);
  CHECK(doc["point"][0].get<double>() == 299999.875);
  CHECK(doc["point"][2].get<double>() == 300000.15625);
  CHECK(r.out.find("299999.875") != std::string::npos);
}

TEST_CASE("query ray: closest hit, all hits, miss exits 3", "[cli][query]") {
  TempDir dir;
  const std::string world = (dir / "tower.h5").string();
  auto imported = runStrata({"import", tower(), "-o", world});
  REQUIRE(imported.exit_code == 0);

  auto r = runStrata({"query", world, "ray", "--from", "0.3,20,-4.1", "--dir", "0,-1,0", "--json"});
  REQUIRE(r.exit_code == 0);
  auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["kind"] == "ray");  // the member every kind names itself with, geometry and navigation
  CHECK(doc["hit"] == true);
  CHECK(doc["distance"].get<double>() == Approx(12));  // the roof top at y = 8
  CHECK(doc["normal"][1].get<double>() == Approx(1));
  CHECK(doc["label"] == "roof");
  CHECK(doc["triangle"].is_number_integer());

  // all hits, nearest first: roof top, roof underside, bridge deck, bridge underside, road
  auto all = runStrata({"query", world, "ray", "--from", "0.3,20,-4.1", "--dir", "0,-1,0", "--all", "--json"});
  REQUIRE(all.exit_code == 0);
  auto hits = nlohmann::json::parse(all.out)["hits"];
  REQUIRE(hits.size() >= 3);
  double last = -1;
  for (const auto& h : hits) {
    CHECK(h["distance"].get<double>() >= last);
    last = h["distance"].get<double>();
  }
  CHECK(hits.back()["label"] == "road");

  // A direction is normalised whatever its size: the squares of 1e155 and 1e-170 overflow and
  // underflow, and neither is the zero vector.
  for (const char* dir_text : {"0,-1e155,0", "0,-1e-170,0", "1e-300,-1e300,0"}) {
    auto scaled = runStrata({"query", world, "ray", "--from", "0.3,20,-4.1", "--dir", dir_text, "--json"});
    INFO(dir_text);
    REQUIRE(scaled.exit_code == 0);
    CHECK(nlohmann::json::parse(scaled.out)["distance"].get<double>() == Approx(12));
  }

  // An unknown tag matches nothing, with a warning (a misspelt tag would read as a miss).
  auto unknown = runStrata({"query", world, "ray", "--from", "0.3,20,-4.1", "--dir", "0,-1,0", "--tag", "tower/rooof"});
  CHECK(unknown.exit_code == 3);
  CHECK(unknown.err == "strata: warning: " + world + ": --tag tower/rooof: no such tag (it matches nothing)\n");

  // An empty tag is a usage error, not a filter that silently matches nothing.
  for (const char* option : {"--tag", "--exclude-tag"}) {
    auto empty = runStrata({"query", world, option, "", "ray", "--from", "0.3,20,-4.1", "--dir", "0,-1,0"});
    INFO(option);
    CHECK(empty.exit_code == 2);
    CHECK_THAT(empty.err, Catch::Contains("a tag cannot be empty"));
  }

  // A ray starting on the road reads distance 0, not -0.
  auto on = runStrata({"query", world, "ray", "--from", "8.3,0,3.1", "--dir", "0,-1,0", "--json"});
  REQUIRE(on.exit_code == 0);
  const double distance = nlohmann::json::parse(on.out)["distance"].get<double>();
  CHECK(distance == 0.0);
  CHECK_FALSE(std::signbit(distance));

  auto miss = runStrata({"query", world, "ray", "--from", "0,20,-4", "--dir", "0,1,0"});
  CHECK(miss.exit_code == 3);
  CHECK(miss.out.find("no hit") != std::string::npos);
}

TEST_CASE("query overlap and cast on a mesh input - bad input exits 2", "[cli][query]") {
  auto overlap = runStrata({"query", tower(), "overlap", "--sphere", "0.3,0,-4.1,0.5", "--json"});
  REQUIRE(overlap.exit_code == 0);
  auto doc = nlohmann::json::parse(overlap.out);
  CHECK(doc["hit"] == true);
  for (const auto& h : doc["hits"]) CHECK(h["label"] == "road");

  auto clear = runStrata({"query", tower(), "overlap", "--box", "0,2,-4,0.5,0.5,0.5"});
  CHECK(clear.exit_code == 3);

  // A yaw is taken modulo a turn (1e308 degrees times pi overflows, and the box became NaN and
  // met nothing): 1e308 = 296 (mod 360).
  auto turned = [&](const char* yaw) {
    auto r = runStrata({"query", tower(), "overlap", "--box", "20,0,20,3,0.1,0.05", "--yaw", yaw, "--json"});
    REQUIRE(r.exit_code == 0);
    return nlohmann::json::parse(r.out)["hits"];
  };
  CHECK(std::fmod(1e308, 360.0) == 296.0);
  CHECK(turned("1e308") == turned("296"));
  // --yaw turns boxes only.
  auto yaw_sphere = runStrata({"query", tower(), "overlap", "--sphere", "0,0,-4,1", "--yaw", "30"});
  CHECK(yaw_sphere.exit_code == 2);
  CHECK_THAT(yaw_sphere.err, Catch::Contains("--yaw requires --box"));
  // Coordinates and sizes beyond 1e15 m are refused (a move too long to measure was reported as
  // free; an audit found a ray from 2e30 m missing the floor under it and a sphere of 1e31 m
  // reported 1e30 deep). 1e15 itself is answered.
  auto far = runStrata({"query", tower(), "cast", "--sphere", "0.5", "--from", "-1e308,10,0", "--to", "1e308,-10,0"});
  CHECK(far.exit_code == 2);
  CHECK(far.err == "strata: error: --from: coordinates and sizes beyond 1e15 m are refused (the world lies within 1e6 m of "
                   "the origin), got '-1e308,10,0' (usage: strata query WORLD cast --help)\n");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"ray", "--from", "0,2e30,0", "--dir", "0,-1,0", "--max", "1e31"},
        {"overlap", "--sphere", "0,2e30,0,2e30"}, {"overlap", "--box", "0,0,0,1e16,1,1"},
        {"overlap", "--capsule", "0,0,0,0,1,0,1.1e15"}, {"cast", "--sphere", "1e31", "--from", "0,5,0", "--to", "0,5,0"},
        {"cast", "--box", "1,1e16,1", "--from", "0,5,0", "--to", "0,-5,0"},
        {"cast", "--capsule", "1,3e15", "--from", "0,5,0", "--to", "0,-5,0"},
        {"cast", "--sphere", "0.5", "--from", "0,1e40,0", "--to", "0,0.25,0"}}) {
    std::vector<std::string> command{"query", tower()};
    command.insert(command.end(), args.begin(), args.end());
    INFO(args[0] << " " << args[1] << " " << args[2]);
    const auto refused = runStrata(command);
    CHECK(refused.exit_code == 2);
    CHECK_THAT(refused.err, Catch::Contains(": coordinates and sizes beyond 1e15 m are refused"));
  }
  auto at_limit = runStrata({"query", tower(), "ray", "--from", "0,1e15,-4", "--dir", "0,-1,0", "--max", "2e15"});
  CHECK(at_limit.exit_code == 0);
  auto wide = runStrata({"query", tower(), "overlap", "--sphere", "0,0,0,1e15", "--json"});
  CHECK(wide.exit_code == 0);

  // an upright capsule (r 0.3, h 1.8) dropped from between the bridge and the roof lands on the
  // bridge deck: its centre stops 0.9 m above y = 4
  auto cast = runStrata({"query", tower(), "cast", "--capsule", "0.3,1.8", "--from", "0.3,6,-4.1", "--to", "0.3,-2,-4.1",
                         "--json"});
  REQUIRE(cast.exit_code == 0);
  auto c = nlohmann::json::parse(cast.out);
  CHECK(c["center"][1].get<double>() == Approx(4.9));
  CHECK(c["normal"][1].get<double>() == Approx(1));
  CHECK(c["label"] == "bridge");
  CHECK(c["started_penetrating"] == false);

  // a box starting inside the road deck reports the penetration and the way out
  auto inside = runStrata({"query", tower(), "cast", "--box", "0.5,0.5,0.5", "--from", "20,0.2,20", "--to", "20,0.2,20",
                           "--json"});
  REQUIRE(inside.exit_code == 0);
  auto p = nlohmann::json::parse(inside.out);
  CHECK(p["started_penetrating"] == true);
  CHECK(p["penetration_depth"].get<double>() == Approx(0.3));

  // A bad sphere radius is named as such (-1 meant "no --sphere given").
  for (const char* radius : {"-1", "nan"}) {
    auto sphere = runStrata({"query", tower(), "cast", "--sphere", radius, "--from", "0,1,0", "--to", "0,-1,0"});
    CHECK(sphere.exit_code == 2);
    CHECK_THAT(sphere.err, Catch::Contains(std::string("--sphere: '") + radius + "' is not a finite number >= 0"));
  }

  auto bad = runStrata({"query", tower(), "ray", "--from", "0,x,0", "--dir", "0,-1,0"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.rfind("strata: error: --from", 0) == 0);
  auto zero = runStrata({"query", tower(), "ray", "--from", "0,1,0", "--dir", "0,0,0"});
  CHECK(zero.exit_code == 2);
  auto missing = runStrata({"query", "/nonexistent/world.h5", "ray", "--from", "0,1,0", "--dir", "0,-1,0"});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("world.h5") != std::string::npos);
}
