// Black-box tests of `strata import`: summary and JSON output, warnings, flags, usage errors,
// atomic output (nothing written on a reject), and the world file read back by `strata info`.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <fstream>

#include "test_support.h"

using namespace strata::test;

namespace {

const char* kQuadObj = "mtllib quad.mtl\nv 0 0 0\nv 0 0 2\nv 2 0 2\nv 2 0 0\no Floor\nusemtl Grass\nf 1 2 3 4\n";

void writeText(const std::filesystem::path& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

TEST_CASE("strata import: JSON summary lists counts, bounds, inputs with SHA-256 and warnings", "[cli][import]") {
  TempDir dir;
  writeText(dir / "quad.obj", kQuadObj);  // quad.mtl is missing: a warning
  const RunResult run = runStrata({"import", (dir / "quad.obj").string(), "-o", (dir / "w.h5").string(), "--json"});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const auto doc = nlohmann::json::parse(run.out);
  CHECK(doc["output"] == (dir / "w.h5").string());
  CHECK(doc["triangles"] == 2);
  CHECK(doc["vertices"] == 4);
  CHECK(doc["degenerate_dropped"] == 0);
  CHECK(doc["bounds"]["min"] == nlohmann::json::array({0.0, 0.0, 0.0}));
  CHECK(doc["bounds"]["max"] == nlohmann::json::array({2.0, 0.0, 2.0}));
  REQUIRE(doc["inputs"].size() == 1);
  CHECK(doc["inputs"][0]["path"] == (dir / "quad.obj").string());
  CHECK(doc["inputs"][0]["bytes"] == std::string(kQuadObj).size());
  CHECK(doc["inputs"][0]["sha256"].get<std::string>().size() == 64);
  REQUIRE(doc["warnings"].size() == 1);
  CHECK_THAT(doc["warnings"][0].get<std::string>(), Catch::Contains("material library 'quad.mtl' not found"));
  // The warning also goes to stderr, and does not fail the import.
  CHECK_THAT(run.err, Catch::StartsWith("strata: warning: ") && Catch::Contains("quad.mtl"));
  CHECK(std::filesystem::exists(dir / "w.h5"));
}

TEST_CASE("strata import: human summary, then strata info reads the world back", "[cli][import]") {
  TempDir dir;
  const auto mesh = sharedData() / "meshes" / "recast" / "dungeon.obj";
  const RunResult run = runStrata({"import", mesh.string(), "-o", (dir / "dungeon.h5").string()});
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.out, Catch::Contains("10133 triangles"));
  CHECK(run.err.empty());
  const RunResult info = runStrata({"info", (dir / "dungeon.h5").string(), "--json"});
  REQUIRE(info.exit_code == 0);
  const auto doc = nlohmann::json::parse(info.out);
  CHECK(doc["counts"]["triangles"] == 10133);
  CHECK(doc["inputs"][0]["sha256"] == "6b157db01f8eaa4b0290d18bd8d6515e969f674213de6f3a3e014f82ae1facc4");
  CHECK(doc["import_options"]["scale"] == 1.0);
  // Counts of one are singular, here and in info's and bake's summaries.
  writeText(dir / "one.obj", "v 0 0 0\nv 0 0 2\nv 2 0 2\nf 1 2 3\n");
  const RunResult one = runStrata({"import", (dir / "one.obj").string(), "-o", (dir / "one.h5").string()});
  REQUIRE(one.exit_code == 0);
  CHECK_THAT(one.out, Catch::StartsWith("wrote " + (dir / "one.h5").string() +
                                        ": 1 triangle, 3 vertices, 1 label, 1 tag from 1 file\n"));
  writeText(dir / "floor.obj", "v -5 0 -5\nv -5 0 5\nv 5 0 5\nv 5 0 -5\nf 1 2 3 4\n");
  const RunResult baked = runStrata({"bake", (dir / "floor.obj").string(), "-o", (dir / "floor.h5").string(), "--threads", "1"});
  REQUIRE(baked.exit_code == 0);
  CHECK_THAT(baked.out, Catch::Contains("1 agent baked from") && Catch::Contains("(2 triangles) on 1 thread\n") &&
                            Catch::Contains(", 0 links, 0 second jumps, 1 component, 1 reachability region, 0 fields\n"));
  const RunResult floor_info = runStrata({"info", (dir / "floor.h5").string()});
  REQUIRE(floor_info.exit_code == 0);
  CHECK_THAT(floor_info.out, Catch::Contains("0 links, 0 second jumps, 1 component, 1 reachability region, 0 fields\n"));
}

TEST_CASE("strata import: --scale, --up z and --in-process", "[cli][import]") {
  TempDir dir;
  writeText(dir / "tri.obj", "v 0 0 0\nv 1 0 0\nv 1 2 3\nf 1 2 3\n");
  auto bounds = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"import", (dir / "tri.obj").string(), "-o", (dir / "t.h5").string(), "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const RunResult run = runStrata(args);
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    return nlohmann::json::parse(run.out)["bounds"]["max"];
  };
  CHECK(bounds({}) == nlohmann::json::array({1.0, 2.0, 3.0}));
  CHECK(bounds({"--scale", "2"}) == nlohmann::json::array({2.0, 4.0, 6.0}));
  CHECK(bounds({"--up", "z"}) == nlohmann::json::array({1.0, 3.0, 0.0}));  // (1,2,3) -> (1,3,-2)
  CHECK(bounds({"--in-process"}) == nlohmann::json::array({1.0, 2.0, 3.0}));
  CHECK(bounds({"--timeout", "5", "--memory-limit", "1024"}) == nlohmann::json::array({1.0, 2.0, 3.0}));
}

TEST_CASE("strata import: the game maps at Cube scale 0.05", "[cli][import]") {
  TempDir dir;
  const auto mesh = sharedData() / "meshes" / "real" / "game-maps-obj" / "fdm6.obj";
  const RunResult run = runStrata({"import", mesh.string(), "-o", (dir / "fdm6.h5").string(), "--scale", "0.05", "--json"});
  REQUIRE(run.exit_code == 0);
  const auto doc = nlohmann::json::parse(run.out);
  CHECK(doc["triangles"] == 9771);
  CHECK(doc["degenerate_dropped"] == 8);
  CHECK(doc["bounds"]["max"][0].get<double>() == Approx(12.8));
}

TEST_CASE("strata import: usage errors exit 2 with one line", "[cli][import]") {
  TempDir dir;
  writeText(dir / "tri.obj", "v 0 0 0\nv 1 0 0\nv 1 2 3\nf 1 2 3\n");
  const std::string input = (dir / "tri.obj").string();
  const std::string output = (dir / "t.h5").string();
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"import", input},                                          // no -o
           {"import", "-o", output},                                   // no input
           {"import", input, "-o", output, "--scale", "0"},            // scale must be > 0
           {"import", input, "-o", output, "--scale", "-1"},
           {"import", input, "-o", output, "--up", "x"},               // y or z
           {"import", input, "-o", output, "--timeout", "0"},
           {"import", input, "-o", output, "--memory-limit", "1"},
           {"import", input, "-o", (dir / "missing" / "t.h5").string()},  // no such output directory
           {"import", input, "-o", input},                             // would overwrite the input
       }) {
    const RunResult run = runStrata(args);
    INFO(run.err);
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.err, Catch::StartsWith("strata: error: "));
    CHECK_FALSE(std::filesystem::exists(output));
  }
  // The input survived the attempt to overwrite it.
  CHECK(readFile(dir / "tri.obj") == "v 0 0 0\nv 1 0 0\nv 1 2 3\nf 1 2 3\n");
}

TEST_CASE("strata import: one bad file among good ones writes nothing", "[cli][import]") {
  TempDir dir;
  writeText(dir / "good.obj", "v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 3 2\n");
  writeText(dir / "bad.obj", "v 0 0 0\nv nan 0 0\nv 0 0 1\nf 1 3 2\n");
  const RunResult run = runStrata({"import", (dir / "good.obj").string(), (dir / "bad.obj").string(), "-o", (dir / "w.h5").string()});
  CHECK(run.exit_code == 2);
  CHECK_THAT(run.err, Catch::Contains("bad.obj: mesh 0") && Catch::Contains(": coordinate is NaN"));
  CHECK_FALSE(std::filesystem::exists(dir / "w.h5"));
  // A lone triangle with a NaN corner is named as such (joining identical vertices merged the
  // NaN corner into another one, and the file was reported as one degenerate triangle).
  writeText(dir / "lone.obj", "v 0 0 0\nv 1 0 0\nv nan 0 1\nf 1 2 3\n");
  const RunResult lone = runStrata({"import", (dir / "lone.obj").string(), "-o", (dir / "w.h5").string()});
  CHECK(lone.exit_code == 2);
  CHECK(lone.err == "strata: error: " + (dir / "lone.obj").string() + ": mesh 0 ('defaultobject'), vertex 2: coordinate is NaN\n");
  // A NaN corner of a line or a point only is no error: those faces are dropped and counted (a
  // hunt: the file was refused, where the same line to a vertex at 1e30 was dropped).
  writeText(dir / "line.obj", "v 0 0 0\nv 1 0 0\nv 0 0 1\nv nan 0 0\nf 1 3 2\nl 3 4\np 4\n");
  const RunResult line = runStrata({"import", (dir / "line.obj").string(), "-o", (dir / "l.h5").string()});
  CHECK(line.exit_code == 0);
  CHECK_THAT(line.out, Catch::Contains("1 triangle") && Catch::Contains("2 points/lines"));
  // An existing world at the target is left untouched by a failed import.
  writeText(dir / "w.h5", "previous");
  CHECK(runStrata({"import", (dir / "bad.obj").string(), "-o", (dir / "w.h5").string()}).exit_code == 2);
  CHECK(readFile(dir / "w.h5") == "previous");
}
