// Black-box tests of `strata info FILE [--json]`.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <regex>
#include <string>

#include "../formats/world_file_fixtures.h"
#include "test_support.h"

using namespace strata;
using strata::test::runStrata;
using strata::test::TempDir;

namespace {

// The error contract: exit 2 and exactly one line `strata: error: FILE: problem`.
void checkBadInput(const test::RunResult& run, const std::string& file, const std::string& problem) {
  INFO(run.err);
  CHECK(run.exit_code == 2);
  CHECK(run.out.empty());
  CHECK(run.err.rfind("strata: error: " + file + ": ", 0) == 0);
  CHECK(run.err.find(problem) != std::string::npos);
  CHECK(std::count(run.err.begin(), run.err.end(), '\n') == 1);
}

}  // namespace

TEST_CASE("strata info describes a world in text", "[cli][info]") {
  TempDir dir;
  const auto path = (dir / "cube.h5").string();
  REQUIRE(formats::writeWorldFile(path, test::cubeWorld()).ok());
  const auto run = runStrata({"info", path});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(run.err.empty());
  for (const std::string& expected : std::vector<std::string>{
           "schema_version  3\n", "tool_version    strata 0.1.0 (test)\n", "inputs          1\n",
        "  levels/cube.glb  4242 bytes  sha256 " + std::string(64, 'a') + "\n", "vertices        8\n",
        "triangles       12\n", "labels          2: 'floor' (2), 'wall' (10)\n", "tags            1: '/level/cube' (12)\n",
        "bounds          min (-1, 0, -1)  max (1, 2, 1)  metres, Y up\n", "import_options  {\"scale\":1.0,\"up\":\"y\"}\n"}) {
    INFO(expected);
    CHECK(run.out.find(expected) != std::string::npos);
  }
}

TEST_CASE("strata info lists the first 12 label names in text and says how many more", "[cli][info]") {
  TempDir dir;
  const auto path = (dir / "many.h5").string();
  formats::World world = test::cubeWorld();
  world.geometry.labels.clear();
  for (int i = 0; i < 15; ++i) world.geometry.labels.push_back("m" + std::to_string(i));
  world.geometry.labels[1] = "o'k\\";  // a quote and a backslash, escaped in the text
  for (std::size_t t = 0; t < world.geometry.triangle_labels.size(); ++t) world.geometry.triangle_labels[t] = static_cast<uint32_t>(t);
  REQUIRE(formats::writeWorldFile(path, world).ok());
  const auto run = runStrata({"info", path});
  REQUIRE(run.exit_code == 0);
  CHECK(run.out.find("labels          15: 'm0' (1), 'o\\'k\\\\' (1), 'm2' (1), 'm3' (1), 'm4' (1), 'm5' (1), 'm6' (1), 'm7' (1), "
                     "'m8' (1), 'm9' (1), 'm10' (1), 'm11' (1), and 3 more (--json lists them all)\n") != std::string::npos);
  const auto doc = nlohmann::json::parse(runStrata({"info", path, "--json"}).out);
  REQUIRE(doc["labels"].size() == 15);
  CHECK(doc["labels"][14]["name"] == "m14");
  CHECK(doc["labels"][14]["triangles"] == 0);
}

TEST_CASE("strata info --json prints one document with the same fields", "[cli][info]") {
  TempDir dir;
  const auto path = (dir / "terrain.h5").string();
  const formats::World world = test::terrainWorld(11);
  REQUIRE(formats::writeWorldFile(path, world).ok());
  const auto run = runStrata({"info", path, "--json"});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const auto doc = nlohmann::json::parse(run.out);
  CHECK(doc["file"] == path);
  CHECK(doc["file_bytes"] == std::filesystem::file_size(path));
  CHECK(doc["schema_version"] == 3);
  CHECK(doc["tool_version"] == "strata 0.1.0 (test)");
  REQUIRE(doc["inputs"].size() == 2);
  CHECK(doc["inputs"][0]["path"] == "terrain.obj");
  CHECK(doc["inputs"][0]["bytes"] == 123456789);
  CHECK(doc["inputs"][1]["sha256"] == std::string(64, 'c'));
  CHECK(doc["import_options"].is_null());
  CHECK(doc["counts"]["vertices"] == 121);
  CHECK(doc["counts"]["triangles"] == 200);
  CHECK(doc["counts"]["labels"] == 3);
  CHECK(doc["counts"]["tags"] == 2);
  // The names, each with its triangle count (an audit: a new user found them only with h5dump).
  REQUIRE(doc["labels"].size() == 3);
  REQUIRE(doc["tags"].size() == 2);
  std::size_t labelled = 0, tagged = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(doc["labels"][i]["name"] == world.geometry.labels[i]);
    const auto expected = std::count(world.geometry.triangle_labels.begin(), world.geometry.triangle_labels.end(), i);
    CHECK(doc["labels"][i]["triangles"] == expected);
    labelled += doc["labels"][i]["triangles"].get<std::size_t>();
  }
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(doc["tags"][i]["name"] == world.geometry.tags[i]);
    tagged += doc["tags"][i]["triangles"].get<std::size_t>();
  }
  CHECK(labelled == 200);
  CHECK(tagged == 200);
  // Bounds agree with the geometry (float32 values printed in their shortest form).
  const sim::Aabb bounds = world.geometry.bounds();
  CHECK(doc["bounds"]["min"][0].get<double>() == 0.0);
  CHECK(doc["bounds"]["max"][0].get<double>() == 5.0);
  CHECK(doc["bounds"]["max"][2].get<double>() == 5.0);
  CHECK(static_cast<float>(doc["bounds"]["min"][1].get<double>()) == static_cast<float>(bounds.min.y));
  CHECK(static_cast<float>(doc["bounds"]["max"][1].get<double>()) == static_cast<float>(bounds.max.y));
}

TEST_CASE("strata info on an empty world reports empty bounds", "[cli][info]") {
  TempDir dir;
  const auto path = (dir / "empty.h5").string();
  REQUIRE(formats::writeWorldFile(path, formats::World{}).ok());
  const auto text = runStrata({"info", path});
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("bounds          empty\n") != std::string::npos);
  CHECK(text.out.find("tool_version    (not recorded)\n") != std::string::npos);
  const auto json = runStrata({"info", path, "--json"});
  REQUIRE(json.exit_code == 0);
  CHECK(nlohmann::json::parse(json.out)["bounds"].is_null());
}

TEST_CASE("strata info refuses the shared bad HDF5 files with one located line", "[cli][info]") {
  const auto folder = test::sharedData() / "bad-inputs" / "h5";
  checkBadInput(runStrata({"info", (folder / "zero_bytes.h5").string()}), (folder / "zero_bytes.h5").string(),
                "empty file (0 bytes)");
  checkBadInput(runStrata({"info", (folder / "text_file.h5").string()}), (folder / "text_file.h5").string(),
                "not a Strata world file (HDF5 signature missing)");
  checkBadInput(runStrata({"info", (folder / "random_bytes.h5").string()}), (folder / "random_bytes.h5").string(),
                "not a Strata world file (HDF5 signature missing)");
  checkBadInput(runStrata({"info", (folder / "signature_then_garbage.h5").string(), "--json"}),
                (folder / "signature_then_garbage.h5").string(), "not a readable HDF5 file");
}

TEST_CASE("strata info on a mesh says to use strata import", "[cli][info]") {
  TempDir dir;
  const auto mesh = (dir / "level.obj").string();
  std::ofstream(mesh) << "v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3\n";
  checkBadInput(runStrata({"info", mesh}), mesh,
                "not a Strata world file (HDF5 signature missing); to import a mesh use strata import");
}

TEST_CASE("strata info on missing files, truncated worlds and other versions", "[cli][info]") {
  TempDir dir;
  checkBadInput(runStrata({"info", (dir / "absent.h5").string()}), (dir / "absent.h5").string(), "no such file");
  // A name past the system's limit is not known to be missing (an audit: "no such file").
  const std::string long_name = (dir / (std::string(300, 'x') + ".h5")).string();
  checkBadInput(runStrata({"info", long_name}), long_name, "cannot open: File name too long");

  const auto good = dir / "good.h5";
  REQUIRE(formats::writeWorldFile(good, test::cubeWorld()).ok());
  const std::string bytes = test::readFile(good);
  const auto cut = (dir / "cut.h5").string();
  std::ofstream(cut, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 2));
  checkBadInput(runStrata({"info", cut}), cut, "");

  // A corrupted root object header: HDF5 must stay quiet (no diagnostics after our line).
  std::string flipped = bytes;
  flipped[54] = static_cast<char>(flipped[54] ^ 0x5a);
  const auto corrupt = (dir / "corrupt.h5").string();
  std::ofstream(corrupt, std::ios::binary).write(flipped.data(), static_cast<std::streamsize>(flipped.size()));
  checkBadInput(runStrata({"info", corrupt}), corrupt, "");
}

TEST_CASE("strata info usage errors and help", "[cli][info]") {
  const auto missing = runStrata({"info"});
  CHECK(missing.exit_code == 2);
  const auto help = runStrata({"info", "--help"});
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("--json") != std::string::npos);
  CHECK(help.out.find("strata-info(1)") != std::string::npos);
  // The man page exists and documents the same flag.
  const std::string man = test::readFile(test::sourceDir() / "man" / "strata-info.1");
  CHECK(man.find("\\-\\-json") != std::string::npos);
}

TEST_CASE("strata import then strata info: provenance and counts agree, output reproducible", "[cli][info][import]") {
  TempDir dir;
  // A unit quad (two triangles) in one material.
  const auto mesh = (dir / "quad.obj").string();
  std::ofstream(mesh) << "v 0 0 0\nv 1 0 0\nv 1 0 1\nv 0 0 1\nf 1 3 2\nf 1 4 3\n";
  const auto world = (dir / "quad.h5").string();
  const auto imported = runStrata({"import", mesh, "-o", world});
  INFO(imported.err);
  REQUIRE(imported.exit_code == 0);
  const auto run = runStrata({"info", world, "--json"});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const auto doc = nlohmann::json::parse(run.out);
  REQUIRE(doc["inputs"].size() == 1);
  CHECK(doc["inputs"][0]["path"] == mesh);
  CHECK(doc["inputs"][0]["bytes"] == std::filesystem::file_size(mesh));
  CHECK(doc["inputs"][0]["sha256"].get<std::string>().size() == 64);
  CHECK(doc["counts"]["triangles"] == 2);
  CHECK(doc["import_options"].is_object());
  CHECK(doc["bounds"]["max"][0].get<double>() == 1.0);
  // The same import again gives the same bytes.
  const auto again = (dir / "again.h5").string();
  REQUIRE(runStrata({"import", mesh, "-o", again}).exit_code == 0);
  CHECK(test::sameBytes(world, again));
}

TEST_CASE("text output escapes a line break in a file name: one line per item, as JSON escapes it", "[cli][info]") {
  // A file name may hold any byte but '/' and NUL; printed raw, a line break split the inputs
  // list (and a name could forge a line). info, import and bake print it as \x0A.
  TempDir dir;
  const auto mesh = dir / "a\nb.obj";
  std::filesystem::copy_file(test::sourceDir() / "samples" / "tower.obj", mesh);
  const auto world = (dir / "w\n.h5").string();
  auto run = runStrata({"import", mesh.string(), "-o", world});
  REQUIRE(run.exit_code == 0);
  CHECK(run.out.rfind("wrote " + (dir / "w\\x0A.h5").string() + ": ", 0) == 0);
  run = runStrata({"info", world});
  REQUIRE(run.exit_code == 0);
  CHECK(run.out.find("a\\x0Ab.obj  ") != std::string::npos);
  CHECK(run.out.find("\nb.obj") == std::string::npos);
  run = runStrata({"info", world, "--json"});
  REQUIRE(run.exit_code == 0);
  CHECK(nlohmann::json::parse(run.out)["inputs"][0]["path"].get<std::string>() == mesh.string());
  run = runStrata({"bake", world, "-o", (dir / "baked.h5").string()});
  REQUIRE(run.exit_code == 0);
  CHECK(run.out.find("baked from " + (dir / "w\\x0A.h5").string() + " (") != std::string::npos);
}

#if !defined(STRATA_SHADOW_SANITIZER)  // the sanitizers need terabytes of address space
TEST_CASE("running out of memory names the input, exit 1, one line", "[cli][info]") {
  // An audit: `strata info` (and path, query, render, export) under a small address-space limit
  // printed "strata: error: out of memory" without the file. A world of about a million nodes
  // (undulating at 0.1 m), read under limits from 300 MB down to 80 MB (below about 60 MB the
  // loader or the thread pool fails first): each run either answers, or fails with the one line
  // naming the world; limits just over the graph's estimate run out while reading it, naming the
  // agent and its size, and smaller ones are refused before reading (exit 2).
  TempDir dir;
  const auto world = (dir / "u.h5").string(), profile = (dir / "fine.toml").string();
  { std::ofstream(profile) << "[agent.fine]\ncell_size = 0.1\n"; }
  const auto mesh = (test::sharedData() / "meshes" / "recast" / "undulating.obj").string();
  REQUIRE(runStrata({"bake", mesh, "--profile", profile, "-o", world}).exit_code == 0);
  int ran_out = 0, reading_graph = 0, refused = 0;
  for (int megabytes = 300; megabytes >= 80; megabytes -= 20) {
    INFO(megabytes << " MB");
    const std::string shell = "ulimit -v " + std::to_string(megabytes * 1000) + "; exec \"$0\" info \"$1\"";
    const auto run = test::runProgram({"sh", "-c", shell, STRATA_BINARY, world});
    INFO(run.err);
    if (run.exit_code == 0) continue;
    // Below the graph's estimate, `ulimit -v` counts as a memory limit: refused before reading, exit 2.
    if (run.exit_code == 2) {
      CHECK(std::regex_match(run.err, std::regex("strata: error: .*u\\.h5: agent 'fine': [0-9]+ floor nodes would need about "
                                                 "[0-9.]+ GB to read, more than the [0-9.]+ GB of memory\n")));
      ++refused;
      continue;
    }
    CHECK(run.exit_code == 1);
    // Out of memory while reading the agent's graph, the agent and its size are named.
    const std::string reading = "strata: error: " + world + ": out of memory reading agent 'fine' (";
    if (run.err.rfind(reading, 0) == 0) {
      CHECK(std::regex_match(run.err, std::regex(".*\\([0-9]+ floor nodes: about [0-9.]+ GB\\)\n")));
      ++reading_graph;
    } else {
      CHECK(run.err == "strata: error: " + world + ": out of memory\n");
    }
    ++ran_out;
  }
  CHECK(ran_out >= 3);
  CHECK(reading_graph >= 1);
  CHECK(refused >= 1);
}

TEST_CASE("an address-space limit leaving almost nothing beyond the start is refused with the size to give", "[cli][info]") {
  // Found this session: at `ulimit -v 45000` a bake crashed with SIGSEGV in HDF5's own start-up.
  // Down from 60 MB to 10 MB (what the process maps at start depends on how it was linked: about
  // 42 MiB with HDF5's shared library, 25 MiB with its static one): each run answers, runs out of
  // memory (exit 1), is refused at start (exit 1, one line, nothing else tried) or cannot load
  // its libraries, and at the size it names it is not refused at start.
  TempDir dir;
  const auto world = (dir / "m.h5").string();
  const auto samples = test::sourceDir() / "samples";
  REQUIRE(runStrata({"bake", (samples / "maze.obj").string(), "--profile", (samples / "maze.toml").string(), "-o", world}).exit_code == 0);
  auto infoUnder = [&](long kilobytes) {
    const std::string shell = "ulimit -v " + std::to_string(kilobytes) + "; exec \"$0\" info \"$1\"";
    return test::runProgram({"sh", "-c", shell, STRATA_BINARY, world});
  };
  const std::regex refusal("strata: error: the address-space limit \\(ulimit -v\\) of ([0-9]+) MiB leaves [0-9]+ MiB beyond the "
                           "[0-9]+ MiB mapped at start: too little to run; raise it to at least ([0-9]+) MiB\n");
  int refused = 0;
  long advised = 0;
  for (long kilobytes = 60000; kilobytes >= 10000; kilobytes -= 2500) {
    INFO(kilobytes << " KiB");
    const auto run = infoUnder(kilobytes);
    INFO(run.err);
    if (run.exit_code == 0 || run.exit_code == 127) continue;  // answered; or the loader could not map the libraries
    CHECK(run.exit_code == 1);
    std::smatch m;
    if (!std::regex_match(run.err, m, refusal)) {  // out of memory, or a worker that could not start: one line naming the world
      CHECK(run.err.rfind("strata: error: " + world + ": ", 0) == 0);
      CHECK(std::count(run.err.begin(), run.err.end(), '\n') == 1);
      continue;
    }
    CHECK(run.exit_code == 1);
    CHECK(run.out.empty());
    CHECK(std::stol(m[1]) == kilobytes / 1024);
    advised = std::max(advised, std::stol(m[2]));
    ++refused;
  }
  REQUIRE(refused >= 1);
  // The size named is enough to start (a floor: a larger world needs more).
  const auto enough = infoUnder(advised * 1024);
  INFO(enough.err);
  CHECK(enough.err.find("too little to run") == std::string::npos);
  CHECK((enough.exit_code == 0 || enough.exit_code == 1));
}

TEST_CASE("a bake with more threads than the address-space limit has room for is refused, never aborted", "[cli][bake]") {
  // The re-audit: `ulimit -v 66000` and `bake --threads 8` ended in SIGABRT ("terminate called
  // after throwing ... pthread_create has failed"): oneTBB throws from a destructor when a worker
  // cannot start. Each worker maps its stack (4 MiB): the room for them is checked first.
  TempDir dir;
  const auto samples = test::sourceDir() / "samples";
  const auto world = (dir / "m.h5").string(), out = (dir / "o.h5").string();
  REQUIRE(runStrata({"import", (samples / "maze.obj").string(), "-o", world}).exit_code == 0);
  int refused = 0;
  for (long kilobytes = 60000; kilobytes <= 110000; kilobytes += 5000) {
    INFO(kilobytes << " KiB");
    const std::string shell = "ulimit -v " + std::to_string(kilobytes) + "; exec \"$0\" bake \"$1\" -o \"$2\" --threads 8";
    const auto run = test::runProgram({"sh", "-c", shell, STRATA_BINARY, world, out});
    INFO(run.err);
    CHECK((run.exit_code == 0 || run.exit_code == 1));  // never a signal (134, 139)
    if (run.err.find("too little for 8 threads with 4 MiB of stack each (or give fewer --threads)") != std::string::npos) {
      CHECK(run.exit_code == 1);
      ++refused;
    }
  }
  CHECK(refused >= 1);
}
#endif
