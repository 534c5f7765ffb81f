// strata render as a black box: the committed docs/tower.png is reproduced by the documented
// command, SVG and band selection work, paths come from --path and --paths, and bad input exits 2
// with one line naming the file and the problem, leaving no output behind.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "test_support.h"

using namespace strata;

namespace {

std::string sample(const std::string& file) { return (test::sourceDir() / "samples" / file).string(); }

std::size_t lineCount(const std::string& text) {
  std::size_t lines = 0;
  for (char c : text) lines += c == '\n' ? 1 : 0;
  return lines;
}

}  // namespace

TEST_CASE("strata render reproduces docs/tower.png with the documented command", "[cli][render]") {
  test::TempDir dir;
  const auto out = dir / "tower.png";
  const auto run = test::runStrata({"render", sample("tower.obj"), "--profile", sample("tower.toml"), "-o", out.string(),
                                    "--path", "0,0,25:0,8,-4"});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.out, Catch::Contains("3 panels") && Catch::Contains("1 path"));
  CHECK(test::sameBytes(out, test::sourceDir() / "docs" / "tower.png"));
}

TEST_CASE("strata render writes SVG, one band, a field colouring and --paths overlays", "[cli][render]") {
  test::TempDir dir;
  {
    std::ofstream results(dir / "results.jsonl");
    results << R"({"id":0,"waypoints":[{"x":0,"y":0,"z":25,"action":"walk"},{"x":0,"y":0,"z":17,"action":"walk"},{"x":0,"y":4,"z":9,"action":"walk"}]})"
            << "\n" << R"({"id":1,"status":"no_path","waypoints":[]})" << "\n"
            // Another agent's route (a batch over a world of several agents): not drawn, counted.
            << R"({"agent":"giant","waypoints":[{"x":0,"y":0,"z":25},{"x":0,"y":0,"z":17}]})" << "\n"
            << R"({"agent":"human","waypoints":[{"x":0,"y":0,"z":25},{"x":0,"y":0,"z":17}]})" << "\n";
  }
  const auto out = dir / "bridge.svg";
  const auto run = test::runStrata({"render", sample("tower.obj"), "--profile", sample("tower.toml"), "-o", out.string(),
                                    "--layers", "1", "--color", "field:from_road", "--paths",
                                    (dir / "results.jsonl").string(), "--width", "640"});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.out, Catch::Contains("1 panel,") && Catch::Contains("2 paths"));
  CHECK_THAT(run.err, Catch::Contains("results.jsonl: 1 route of other agents left out (the picture is agent human's"));
  const std::string svg = test::readFile(out);
  CHECK_THAT(svg, Catch::Contains("width=\"640\"") && Catch::Contains(">layer 1<"));
  CHECK_THAT(svg, !Catch::Contains(">layer 0<"));
  CHECK_THAT(svg, Catch::Contains("field:from_road"));
  CHECK_THAT(svg, Catch::Contains("stroke=\"#1428aa\""));  // the path colour
  // A region of a millimetre still gets a scale bar of a round length (not "0 m").
  const auto tiny = dir / "tiny.svg";
  REQUIRE(test::runStrata({"render", sample("tower.obj"), "--profile", sample("tower.toml"), "-o", tiny.string(),
                           "--region", "0,0,0.001,0.001", "--layers", "0"}).exit_code == 0);
  const std::string tiny_svg = test::readFile(tiny);
  CHECK_THAT(tiny_svg, Catch::Contains("0.0001 m    view from above") || Catch::Contains("0.0002 m    view from above") ||
                           Catch::Contains("0.0005 m    view from above"));
}

TEST_CASE("strata render: the scale bar's orientation is shortened in a narrow picture, never cut", "[cli][render]") {
  // An audit: at 300 px the label read "20 m    view from above: +x", at 240 px "view from above".
  test::TempDir dir;
  const std::regex whole(">[0-9.]+ m(    view from above: \\+x right, \\+z down|    \\+x right, \\+z down|  \\+x right \\+z down|)<");
  for (const char* width : {"240", "300", "400", "900"}) {
    INFO(width);
    const auto out = dir / (std::string(width) + ".svg");
    REQUIRE(test::runStrata({"render", sample("tower.obj"), "--profile", sample("tower.toml"), "-o", out.string(), "--width", width})
                .exit_code == 0);
    const std::string svg = test::readFile(out);
    CHECK(std::regex_search(svg, whole));
    CHECK_THAT(svg, Catch::Contains("+x right"));  // these widths all have room for the axes
  }
}

TEST_CASE("strata render --method: the --path routes of another search method", "[cli][render]") {
  // The road to the roof: theta's route has fewer corners than astar's, so the SVG has fewer
  // path segments (lines in the path colour); direct is blocked (the ramp turns): a warning,
  // exit 3 and no route drawn; an unknown method is a usage error.
  test::TempDir dir;
  auto points = [&](const std::string& method) {
    const auto out = dir / (method + ".svg");
    const auto run = test::runStrata({"render", sample("tower.obj"), "--profile", sample("tower.toml"), "-o", out.string(),
                                      "--path", "0,0,25:0,8,-4", "--method", method, "--layers", "0"});
    INFO(run.err);
    CHECK(run.exit_code == (method == "direct" ? 3 : 0));
    if (method == "direct") CHECK_THAT(run.err, Catch::Contains("no path (Blocked)"));
    const std::string svg = test::readFile(out);
    std::size_t segments = 0;
    for (std::size_t at = svg.find("<line"); at != std::string::npos; at = svg.find("<line", at + 1))
      segments += svg.compare(svg.find("stroke=", at), 16, "stroke=\"#1428aa\"") == 0 ? 1 : 0;
    return segments;
  };
  const auto astar = points("astar"), theta = points("theta"), direct = points("direct");
  CHECK(theta > 0);
  CHECK(theta < astar);
  CHECK(direct < theta);  // (the legend keeps its sample line)
  const auto bad = test::runStrata({"render", sample("tower.obj"), "--profile", sample("tower.toml"), "-o",
                                    (dir / "x.svg").string(), "--path", "0,0,25:0,8,-4", "--method", "dijkstra"});
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("--method: 'dijkstra' is not one of: astar, theta, direct, corridor or interval"));
  const auto alone = test::runStrata({"render", sample("tower.obj"), "--profile", sample("tower.toml"), "-o",
                                      (dir / "y.svg").string(), "--method", "theta"});
  CHECK(alone.exit_code == 2);
  CHECK_THAT(alone.err, Catch::Contains("--method applies to --path only (usage: strata render --help)"));
  CHECK_FALSE(std::filesystem::exists(dir / "y.svg"));
}

TEST_CASE("strata render: a --path with no path warns, still writes the picture and exits 3", "[cli][render]") {
  test::TempDir dir;
  const auto out = dir / "maze.png";
  // The sealed room of the maze (samples/README.md) is unreachable from the entrance.
  const auto run = test::runStrata({"render", sample("maze.obj"), "--profile", sample("maze.toml"), "-o", out.string(),
                                    "--path", "0.6,0,-1:17.5,0,3.5", "--width", "400"});
  CHECK(run.exit_code == 3);
  CHECK_THAT(run.err, Catch::StartsWith("strata: warning: ") && Catch::Contains("no path"));
  CHECK(std::filesystem::exists(out));
}

TEST_CASE("strata render --json: the summary as one document that agrees with the picture and the graph", "[cli][render]") {
  test::TempDir dir;
  const auto world = (dir / "maze.h5").string(), out = (dir / "maze.png").string();
  REQUIRE(test::runStrata({"bake", sample("maze.obj"), "--profile", sample("maze.toml"), "-o", world}).exit_code == 0);
  // One route found, one into the sealed room (samples/README.md) not.
  const auto run = test::runStrata({"render", world, "-o", out, "--json", "--width", "400", "--path", "0.6,0,-1:3.5,0,-1",
                                    "--path", "0.6,0,-1:17.5,0,3.5"});
  INFO(run.err);
  CHECK(run.exit_code == 3);
  CHECK_THAT(run.err, Catch::StartsWith("strata: warning: ") && Catch::Contains("no path"));
  const auto doc = nlohmann::ordered_json::parse(run.out);  // in the printed order
  std::vector<std::string> keys;
  for (const auto& [key, value] : doc.items()) keys.push_back(key);
  CHECK(keys == std::vector<std::string>{"output", "agent", "width", "height", "pixels_per_metre", "region", "paths", "paths_not_found", "layers"});
  CHECK(doc["output"] == out);
  CHECK(doc["agent"] == "human");
  CHECK(doc["width"] == 400);
  CHECK(doc["paths"] == 1);
  REQUIRE(doc["paths_not_found"].size() == 1);
  CHECK(doc["paths_not_found"][0]["to"] == nlohmann::ordered_json::array({17.5, 0.0, 3.5}));
  CHECK(doc["paths_not_found"][0]["reason"] == "NoPath");
  CHECK(doc["region"].size() == 4);
  // The PNG's own size (its IHDR chunk: width and height, big-endian, at bytes 16 and 20).
  std::ifstream png(out, std::ios::binary);
  unsigned char header[24] = {};
  png.read(reinterpret_cast<char*>(header), sizeof header);
  REQUIRE(png.gcount() == 24);
  auto be32 = [&](int at) { return (header[at] << 24) | (header[at + 1] << 16) | (header[at + 2] << 8) | header[at + 3]; };
  CHECK(be32(16) == doc["width"].get<int>());
  CHECK(be32(20) == doc["height"].get<int>());
  // Every node of the graph lies in one band (strata info counts them).
  const auto info = nlohmann::json::parse(test::runStrata({"info", world, "--json"}).out);
  std::size_t nodes = 0;
  for (const auto& layer : doc["layers"]) {
    nodes += layer["nodes"].get<std::size_t>();
    CHECK(layer["nodes_in_region"].get<std::size_t>() == layer["nodes"].get<std::size_t>());  // the default region holds every node
    CHECK(layer["min_height"].get<double>() <= layer["max_height"].get<double>());
  }
  CHECK(nodes == info["agents"][0]["nodes"].get<std::size_t>());
}

TEST_CASE("strata render: bad input exits 2 with one line naming the file and the problem", "[cli][render]") {
  test::TempDir dir;
  const auto out = (dir / "x.png").string();
  const std::string tower = sample("tower.obj"), profile = sample("tower.toml");
  struct Case {
    std::vector<std::string> extra;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {{"--agent", "robot"}, "no agent 'robot' (agents: human)"},
      {{"--color", "field:nope"}, "agent human: --color field:nope: no such field (fields: from_road)"},
      {{"--color", "rainbow"}, "--color rainbow"},
      {{"--region", "1,2,3"}, "--region 1,2,3: expected minx,minz,maxx,maxz"},
      {{"--region", "5,0,1,4"}, "--region 5,0,1,4: needs minx < maxx"},
      {{"--region", "500,500,600,600"}, "outside the graph's grid"},
      // Finite corners whose width overflows, and an empty value (not "the default region").
      {{"--region", "-1e308,-1e308,1e308,1e308"}, "--region: its width and depth must be finite"},
      {{"--region", ""}, "--region : expected minx,minz,maxx,maxz"},
      {{"--paths", ""}, "--paths: the path is empty"},
      {{"--layers", "7"}, "agent human: --layers 7: no such band"},
      {{"--layers", "top"}, "--layers top"},
      {{"--layers", "1.0"}, "--layers 1.0: use all or a band number"},
      {{"--layers", "1e0"}, "--layers 1e0: use all or a band number"},
      {{"--layers", "-1"}, "--layers -1: use all or a band number"},
      {{"--layers", "+1"}, "--layers +1: use all or a band number"},
      {{"--layers", "99999999999999999999"}, "--layers 99999999999999999999: no such band"},
      {{"--path", "0,0,25"}, "--path 0,0,25: expected X,Y,Z:X,Y,Z"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args{"render", tower, "--profile", profile, "-o", out};
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    const auto run = test::runStrata(args);
    INFO(c.extra.front() << " " << c.extra.back() << ": " << run.err);
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.err, Catch::StartsWith("strata: error: " + tower + ": ") && Catch::Contains(c.expected));
    CHECK(lineCount(run.err) == 1);
    CHECK_FALSE(std::filesystem::exists(out));
  }
  // A usage error names the option (not the world file).
  const auto width = test::runStrata({"render", tower, "--profile", profile, "-o", out, "--width", "50"});
  CHECK(width.exit_code == 2);
  CHECK(width.err == "strata: error: --width: '50' is not an integer from 200 to 8192 (usage: strata render --help)\n");
  const auto missing = test::runStrata({"render", (dir / "nothing.h5").string(), "-o", out});
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.err, Catch::Contains("nothing.h5: no such file"));
  const auto jpg = test::runStrata({"render", tower, "--profile", profile, "-o", (dir / "x.jpg").string()});
  CHECK(jpg.exit_code == 2);
  CHECK_THAT(jpg.err, Catch::Contains("x.jpg: unknown picture type"));
  // Through a symbolic link, the file written must be a picture of that type too: a link to a
  // profile had the profile replaced by an SVG (a dangling one made a PNG named .h5).
  { std::ofstream(dir / "keep.toml") << "[agent.a]\n"; }
  std::filesystem::create_symlink("keep.toml", dir / "pic.svg");
  std::filesystem::create_symlink("made.h5", dir / "pic.png");
  for (const char* link : {"pic.svg", "pic.png"}) {
    INFO(link);
    const auto r = test::runStrata({"render", tower, "--profile", profile, "-o", (dir / link).string()});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("the symbolic link's target") && Catch::Contains("a picture is written to a ."));
  }
  CHECK(test::readFile(dir / "keep.toml") == "[agent.a]\n");
  CHECK_FALSE(std::filesystem::exists(dir / "made.h5"));
  {
    std::ofstream bad(dir / "bad.jsonl");
    bad << R"({"waypoints":[{"x":1}]})" << "\n";
  }
  const auto paths = test::runStrata({"render", tower, "--profile", profile, "-o", out, "--paths", (dir / "bad.jsonl").string()});
  CHECK(paths.exit_code == 2);
  CHECK_THAT(paths.err, Catch::Contains("bad.jsonl:1: waypoint 0"));
  CHECK_FALSE(std::filesystem::exists(out));
  // A directory opens as a stream that reads nothing: it is refused, not read as no paths.
  const auto folder = test::runStrata({"render", tower, "--profile", profile, "-o", out, "--paths", dir.path().string()});
  CHECK(folder.exit_code == 2);
  CHECK(folder.err == "strata: error: " + dir.path().string() + ": is a directory\n");
  CHECK_FALSE(std::filesystem::exists(out));
  // A read error is a runtime failure naming the file (getline took it for the end: the picture
  // was drawn without the paths after it, exit 0; /proc/self/mem's first read fails with EIO).
  if (std::filesystem::exists("/proc/self/mem")) {
    const auto eio = test::runStrata({"render", tower, "--profile", profile, "-o", out, "--paths", "/proc/self/mem"});
    CHECK(eio.exit_code == 1);
    CHECK(eio.err == "strata: error: /proc/self/mem:1: cannot read the file (an I/O error)\n");
    CHECK_FALSE(std::filesystem::exists(out));
  }
}

TEST_CASE("strata render and export read the agents of a baked world file", "[cli][render][export]") {
  test::TempDir dir;
  const auto world = dir / "tower.h5";
  const auto bake = test::runStrata({"bake", sample("tower.obj"), "--profile", sample("tower.toml"), "-o", world.string()});
  INFO(bake.err);
  REQUIRE(bake.exit_code == 0);
  // The same picture as from the mesh: the world file stores the graph exactly.
  const auto picture = dir / "tower.png";
  const auto render = test::runStrata({"render", world.string(), "-o", picture.string(), "--path", "0,0,25:0,8,-4"});
  INFO(render.err);
  REQUIRE(render.exit_code == 0);
  CHECK(test::sameBytes(picture, test::sourceDir() / "docs" / "tower.png"));
  const auto exported = test::runStrata({"export", world.string(), "-o", (dir / "tower.gltf").string()});
  INFO(exported.err);
  CHECK(exported.exit_code == 0);
  CHECK(std::filesystem::exists(dir / "tower.bin"));

  const auto profile = test::runStrata({"render", world.string(), "--profile", sample("tower.toml"), "-o", picture.string()});
  CHECK(profile.exit_code == 2);
  CHECK_THAT(profile.err, Catch::Contains("tower.h5: --profile applies to mesh inputs only"));
  const auto agent = test::runStrata({"render", world.string(), "--agent", "robot", "-o", picture.string()});
  CHECK(agent.exit_code == 2);
  CHECK(agent.err == "strata: error: " + world.string() + ": no agent 'robot' (agents: human)\n");

  // A world that was imported but never baked has no agents.
  const auto imported = dir / "plain.h5";
  REQUIRE(test::runStrata({"import", sample("tower.obj"), "-o", imported.string()}).exit_code == 0);
  const auto unbaked = test::runStrata({"render", imported.string(), "-o", (dir / "plain.png").string()});
  CHECK(unbaked.exit_code == 2);
  CHECK_THAT(unbaked.err, Catch::Contains("plain.h5: has no baked agents"));
  CHECK_FALSE(std::filesystem::exists(dir / "plain.png"));
}
