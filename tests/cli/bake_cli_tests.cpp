// Black-box tests of `strata bake`: outputs, JSON report, determinism across thread counts and
// runs (byte compare), world-file inputs, profile errors and exit codes, and `strata info`.

#include <sched.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <filesystem>
#include <nlohmann/json.hpp>

#include <fstream>

#include <sys/stat.h>
#include <unistd.h>

#include "test_support.h"

using strata::test::runStrata;
using strata::test::sameBytes;
using strata::test::sourceDir;
using strata::test::TempDir;

namespace {

std::string sample(const std::string& name) { return (sourceDir() / "samples" / name).string(); }

}  // namespace

TEST_CASE("strata bake writes a world with per-agent counts and stage timings", "[cli][bake]") {
  TempDir dir;
  const auto out = (dir / "course.h5").string();
  auto run = runStrata({"bake", sample("course.obj"), "--profile", sample("course.toml"), "-o", out, "--json"});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(run.err.empty());  // not a terminal: no progress bar
  const auto doc = nlohmann::json::parse(run.out);
  for (const char* stage : {"import", "index", "columns", "edges", "links", "clearance", "components", "fields", "total", "write"})
    CHECK(doc["timings_ms"][stage].get<double>() >= 0);
  REQUIRE(doc["agents"].size() == 1);
  const auto& agent = doc["agents"][0];
  CHECK(agent["name"] == "human");
  CHECK(agent["nodes"].get<std::size_t>() > 10000);
  CHECK(agent["edges"].get<std::size_t>() > agent["nodes"].get<std::size_t>());
  CHECK(agent["columns"].get<std::size_t>() >= agent["nodes"].get<std::size_t>() / 3);
  CHECK(agent["components"].get<std::size_t>() >= 1);
  CHECK(agent["fields"][0] == "from_start");
  // strata info shows the same per-agent summary.
  auto info = runStrata({"info", out, "--json"});
  REQUIRE(info.exit_code == 0);
  const auto described = nlohmann::json::parse(info.out);
  REQUIRE(described["agents"].size() == 1);
  CHECK(described["agents"][0]["nodes"] == agent["nodes"]);
  CHECK(described["agents"][0]["edges"] == agent["edges"]);
  CHECK(described["agents"][0]["fields"] == agent["fields"]);  // the names in both, not a count in one
  auto untimed = agent;
  untimed.erase("timings_ms");
  CHECK(described["agents"][0] == untimed);  // every member of bake's entry but its timings (grid, regions)
  auto text = runStrata({"info", out});
  CHECK_THAT(text.out, Catch::Contains("human  cell 0.3 m"));
}

TEST_CASE("strata bake is byte-identical at 1 and 2 threads and across runs", "[cli][bake][determinism]") {
  TempDir dir;
  const auto a = (dir / "a.h5").string(), b = (dir / "b.h5").string(), c = (dir / "c.h5").string();
  REQUIRE(runStrata({"bake", sample("tower.obj"), "--profile", sample("tower.toml"), "-o", a, "--threads", "1"}).exit_code == 0);
  REQUIRE(runStrata({"bake", sample("tower.obj"), "--profile", sample("tower.toml"), "-o", b, "--threads", "2"}).exit_code == 0);
  REQUIRE(runStrata({"bake", sample("tower.obj"), "--profile", sample("tower.toml"), "-o", c, "--threads", "2"}).exit_code == 0);
  CHECK(sameBytes(a, b));
  CHECK(sameBytes(b, c));
}

TEST_CASE("strata bake: the default thread count is the CPUs the process may run on", "[cli][bake]") {
  // An audit under `taskset -c 0`: the bake said (and ran) 2 threads, counting the machine's.
  // The child inherits this process's affinity mask.
  TempDir dir;
  cpu_set_t saved, one;
  REQUIRE(::sched_getaffinity(0, sizeof saved, &saved) == 0);
  int first = 0;
  while (first < CPU_SETSIZE && !CPU_ISSET(first, &saved)) ++first;
  REQUIRE(first < CPU_SETSIZE);
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  REQUIRE(::sched_setaffinity(0, sizeof one, &one) == 0);
  const auto baked = runStrata({"bake", sample("tower.obj"), "-o", (dir / "t.h5").string()});
  REQUIRE(::sched_setaffinity(0, sizeof saved, &saved) == 0);
  REQUIRE(baked.exit_code == 0);
  CHECK_THAT(baked.out, Catch::Contains(") on 1 thread\n"));
}

TEST_CASE("strata bake takes a world file from strata import and the default profile", "[cli][bake]") {
  TempDir dir;
  const auto imported = (dir / "maze.h5").string(), baked = (dir / "maze-baked.h5").string();
  REQUIRE(runStrata({"import", sample("maze.obj"), "-o", imported}).exit_code == 0);
  auto run = runStrata({"bake", imported, "-o", baked, "--json"});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const auto doc = nlohmann::json::parse(run.out);
  REQUIRE(doc["agents"].size() == 1);
  CHECK(doc["agents"][0]["name"] == "default");
  CHECK(doc["agents"][0]["cell_size"].get<double>() == Approx(0.3));
  // The text summary names the agent and the timings.
  auto text = runStrata({"bake", imported, "-o", baked});
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("agent default: cell 0.3 m"));
  CHECK_THAT(text.out, Catch::Contains("timings (ms): import"));
}

TEST_CASE("strata bake --agent bakes only the agents named and each as the whole profile bakes it", "[cli][bake]") {
  TempDir dir;
  const auto profile = (dir / "two.toml").string();
  {
    std::ofstream out(profile);
    out << "[agent.human]\nradius = 0.3\nheight = 1.8\n\n[agent.small]\nradius = 0.2\nheight = 1.0\n";
  }
  const auto all = (dir / "all.h5").string(), small = (dir / "small.h5").string(), both = (dir / "both.h5").string();
  auto agentsOf = [](const std::string& world) {
    auto info = runStrata({"info", world, "--json"});
    REQUIRE(info.exit_code == 0);
    return nlohmann::json::parse(info.out)["agents"];
  };
  REQUIRE(runStrata({"bake", sample("course.obj"), "--profile", profile, "-o", all}).exit_code == 0);
  const auto whole = agentsOf(all);
  REQUIRE(whole.size() == 2);
  auto run = runStrata({"bake", sample("course.obj"), "--profile", profile, "--agent", "small", "-o", small, "--json"});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const auto doc = nlohmann::json::parse(run.out);
  REQUIRE(doc["agents"].size() == 1);
  CHECK(doc["agents"][0]["name"] == "small");
  const auto alone = agentsOf(small);
  REQUIRE(alone.size() == 1);
  CHECK(alone[0] == whole[1]);  // the same graph: counts, grid, components, regions
  // Named in another order (and twice): the profile's order, each once.
  REQUIRE(runStrata({"bake", sample("course.obj"), "--profile", profile, "--agent", "small", "--agent", "human", "--agent", "small",
                     "-o", both})
              .exit_code == 0);
  CHECK(agentsOf(both) == whole);
  // A name the profile lacks: one line naming the profile and its agents, exit 2, nothing written.
  const auto none = (dir / "none.h5").string();
  auto bad = runStrata({"bake", sample("course.obj"), "--profile", profile, "--agent", "tiny", "-o", none});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err == "strata: error: " + profile + ": no agent 'tiny' (agents: human, small)\n");
  CHECK_FALSE(std::filesystem::exists(none));
  auto default_profile = runStrata({"bake", sample("course.obj"), "--agent", "human", "-o", none});
  CHECK(default_profile.exit_code == 2);
  CHECK(default_profile.err == "strata: error: default profile: no agent 'human' (agents: default)\n");
  CHECK_FALSE(std::filesystem::exists(none));
}

TEST_CASE("strata bake reports bad input on one line with exit code 2", "[cli][bake]") {
  TempDir dir;
  const auto out = (dir / "x.h5").string();
  auto missing = runStrata({"bake", (dir / "nope.obj").string(), "-o", out});
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.err, Catch::StartsWith("strata: error: ") && Catch::Contains("nope.obj: no such file"));
  {
    std::ofstream bad(dir / "bad.toml");
    bad << "[agent.a]\nradius = 0.3\nstep_hieght = 0.4\n";
  }
  auto profile = runStrata({"bake", sample("maze.obj"), "--profile", (dir / "bad.toml").string(), "-o", out});
  CHECK(profile.exit_code == 2);
  CHECK_THAT(profile.err, Catch::Contains("bad.toml:3:1: agent.a.step_hieght: unknown key"));
  CHECK(std::count(profile.err.begin(), profile.err.end(), '\n') == 1);
  {
    std::ofstream far(dir / "far.toml");
    far << "[agent.a]\n[[agent.a.links]]\nfrom = [0, 0, 0]\nto = [500, 0, 500]\nlabel = \"nowhere\"\n";
  }
  auto link = runStrata({"bake", sample("maze.obj"), "--profile", (dir / "far.toml").string(), "-o", out});
  CHECK(link.exit_code == 2);
  // Located in the profile, where the link was written; the mesh named as the other party.
  CHECK_THAT(link.err, Catch::Contains("far.toml:2:1: agent.a.links[0] ('nowhere'): no floor within 2 m across and 2 m up or down of to (500, 0, 500) in ") &&
                           Catch::Contains("maze.obj"));
  // Under the maze's floor (y = 0) at a column that has one: too far down by default, snapped
  // when link_snap_height allows it.
  {
    std::ofstream deep(dir / "deep.toml");
    deep << "[agent.a]\n[[agent.a.links]]\nfrom = [0.6, 0, -1]\nto = [0.6, -5, -1]\nlabel = \"down\"\n";
  }
  auto deep = runStrata({"bake", sample("maze.obj"), "--profile", (dir / "deep.toml").string(), "-o", out});
  CHECK(deep.exit_code == 2);
  CHECK_THAT(deep.err, Catch::Contains("deep.toml:2:1: agent.a.links[0] ('down'): no floor within 2 m across and 2 m up or down of to (0.6, -5, -1)"));
  CHECK_FALSE(std::filesystem::exists(out));
  {
    std::ofstream deep(dir / "deep.toml");
    deep << "[agent.a]\nlink_snap_height = 5.5\n[[agent.a.links]]\nfrom = [0.6, 0, -1]\nto = [0.6, -5, -1]\nlabel = \"down\"\n";
  }
  CHECK(runStrata({"bake", sample("maze.obj"), "--profile", (dir / "deep.toml").string(), "-o", out}).exit_code == 0);
  std::filesystem::remove(out);
  // Both ends on one floor node: baked, the link left out with a warning that says so.
  {
    std::ofstream loop(dir / "loop.toml");
    loop << "[agent.a]\n[[agent.a.links]]\nfrom = [0.7, 0, -1.1]\nto = [0.7, 0, -1.1]\nlabel = \"hop\"\n";
  }
  auto loop = runStrata({"bake", sample("maze.obj"), "--profile", (dir / "loop.toml").string(), "-o", out, "--json"});
  CHECK(loop.exit_code == 0);
  CHECK_THAT(loop.err, Catch::StartsWith("strata: warning: " + (dir / "loop.toml").string() +
                                         ":2:1: agent.a.links[0] ('hop'): both ends snap to the one floor node at (") &&
                           Catch::Contains(": the link leads nowhere and is left out\n"));
  CHECK(std::count(loop.err.begin(), loop.err.end(), '\n') == 1);
  CHECK(nlohmann::json::parse(loop.out)["agents"][0]["links"] == 0);
  std::filesystem::remove(out);
  // Entries that change nothing are named where the profile wrote them (an audit: a modifier
  // thinner than a column and climbable labels without can_climb baked without a word).
  {
    std::ofstream idle(dir / "idle.toml");
    idle << "[agent.a]\nclimbable = [\"wall\"]\n[[agent.a.modifiers]]\nmin = [500, -1, 500]\nmax = [501, 1, 501]\n"
            "area = \"lava\"\n";
  }
  auto idle = runStrata({"bake", sample("maze.obj"), "--profile", (dir / "idle.toml").string(), "-o", out, "--json"});
  CHECK(idle.exit_code == 0);
  const std::string idle_toml = (dir / "idle.toml").string();
  CHECK_THAT(idle.err, Catch::Contains("strata: warning: " + idle_toml + ":2:13: agent.a.climbable: can_climb is false, so "
                                       "the climbable labels change nothing (set can_climb = true to climb them)\n") &&
                           Catch::Contains("strata: warning: " + idle_toml + ":3:1: agent.a.modifiers[0] (area 'lava') in " +
                                           sample("maze.obj") + ": holds no floor node and changes nothing ("));
  CHECK(nlohmann::json::parse(idle.out)["warnings"].size() == 2);
  std::filesystem::remove(out);
  {
    std::ofstream far(dir / "field.toml");
    far << "[agent.a]\n[[agent.a.fields]]\nname = \"exit\"\norigin = [500, 0, 500]\n";
  }
  auto field = runStrata({"bake", sample("maze.obj"), "--profile", (dir / "field.toml").string(), "-o", out});
  CHECK(field.exit_code == 2);
  CHECK_THAT(field.err, Catch::Contains("field.toml:2:1: agent.a.fields[0] ('exit'): no walkable floor below origin (500, 0, 500) within 1 m across (or up to 0.5 m above it)"));
  auto same = runStrata({"bake", sample("maze.obj"), "-o", sample("maze.obj")});
  CHECK(same.exit_code == 2);
  auto threads = runStrata({"bake", sample("maze.obj"), "-o", out, "--threads", "-1"});
  CHECK(threads.exit_code == 2);
  // Output paths refused before any work: the profile, a device, a missing folder.
  std::filesystem::copy_file(sourceDir() / "samples" / "maze.toml", dir / "maze.toml");
  const std::string profile_bytes = strata::test::readFile(dir / "maze.toml");
  auto onto_profile = runStrata({"bake", sample("maze.obj"), "--profile", (dir / "maze.toml").string(), "-o",
                                 (dir / "maze.toml").string()});
  CHECK(onto_profile.exit_code == 2);
  CHECK_THAT(onto_profile.err, Catch::Contains("maze.toml: the output file is also an input"));
  CHECK(strata::test::readFile(dir / "maze.toml") == profile_bytes);
  auto device = runStrata({"bake", sample("maze.obj"), "-o", "/dev/null"});
  CHECK(device.exit_code == 2);
  CHECK_THAT(device.err, Catch::Contains("/dev/null: is not a regular file"));
  auto folder = runStrata({"bake", sample("maze.obj"), "-o", (dir / "no" / "x.h5").string()});
  CHECK(folder.exit_code == 2);
  CHECK_THAT(folder.err, Catch::Contains("does not exist"));
  CHECK_FALSE(std::filesystem::exists(out));  // nothing written on failure
}

TEST_CASE("strata bake: a profile of 10,000 links bakes into a world every command reads", "[cli][bake]") {
  // Stored, the profile is 1.1 MB: more than a plain string attribute's 1 MiB limit.
  TempDir dir;
  {
    std::ofstream plane(dir / "plane.obj");
    plane << "v -20 0 -20\nv -20 0 20\nv 20 0 20\nv 20 0 -20\nf 1 2 3\nf 1 3 4\n";
    std::ofstream profile(dir / "links.toml");
    profile << "[agent.a]\n";  // no two ends on one node (such a link is left out)
    for (int i = 0; i < 10000; ++i)
      profile << "[[agent.a.links]]\nfrom = [" << i % 39 - 19 << ", 0, 0]\nto = [0.5, 0, " << i % 37 - 18
              << "]\nlabel = \"jump_link_" << i << "\"\n";
  }
  const auto out = (dir / "links.h5").string();
  auto bake = runStrata({"bake", (dir / "plane.obj").string(), "--profile", (dir / "links.toml").string(), "-o", out});
  INFO(bake.err);
  REQUIRE(bake.exit_code == 0);
  auto info = runStrata({"info", out, "--json"});
  INFO(info.err);
  REQUIRE(info.exit_code == 0);
  CHECK(nlohmann::json::parse(info.out)["agents"][0]["links"] == 10000);
  CHECK(runStrata({"path", out, "--from", "-19,0,0", "--to", "0.5,0,18"}).exit_code == 0);
}

TEST_CASE("strata bake: a link never lands in an area of infinite cost", "[cli][bake]") {
  // Two islands; the far one is lava (cost inf) under a modifier: a link into it is left out, so
  // no route, field or component reaches it, and a two-way link keeps only its way out.
  TempDir dir;
  {
    std::ofstream islands(dir / "islands.obj");
    islands << "v -5 0 -3\nv -5 0 3\nv 0 0 3\nv 0 0 -3\nv 10 0 -3\nv 10 0 3\nv 15 0 3\nv 15 0 -3\n"
               "f 1 2 3\nf 1 3 4\nf 5 6 7\nf 5 7 8\n";
    std::ofstream one(dir / "one.toml");
    one << "[agent.a]\n[[agent.a.modifiers]]\nmin = [9, -1, -4]\nmax = [16, 1, 4]\narea = \"lava\"\ncost = inf\n"
           "[[agent.a.links]]\nfrom = [-1, 0, 0]\nto = [11.9, 0, 0]\nlabel = \"tele\"\n";
    std::ofstream two(dir / "two.toml");
    two << "[agent.a]\n[[agent.a.modifiers]]\nmin = [9, -1, -4]\nmax = [16, 1, 4]\narea = \"lava\"\ncost = inf\n"
           "[[agent.a.links]]\nfrom = [-1, 0, 0]\nto = [11.9, 0, 0]\nlabel = \"tele\"\nbidirectional = true\n";
  }
  const auto one = (dir / "one.h5").string(), two = (dir / "two.h5").string();
  REQUIRE(runStrata({"bake", (dir / "islands.obj").string(), "--profile", (dir / "one.toml").string(), "-o", one}).exit_code == 0);
  auto into = runStrata({"path", one, "--from", "-3,0,0", "--to", "14,0,0"});
  CHECK(into.exit_code == 3);
  CHECK_THAT(into.out, Catch::Contains("NoPath"));
  CHECK(runStrata({"query", one, "component", "--at", "-3,0,0", "--to", "14,0,0"}).exit_code == 3);
  REQUIRE(runStrata({"bake", (dir / "islands.obj").string(), "--profile", (dir / "two.toml").string(), "-o", two}).exit_code == 0);
  CHECK(runStrata({"path", two, "--from", "-3,0,0", "--to", "14,0,0"}).exit_code == 3);
  auto out = runStrata({"path", two, "--from", "11.9,0,0", "--to", "-3,0,0"});  // from the link's lava end
  INFO(out.out << out.err);
  CHECK(out.exit_code == 0);
  CHECK_THAT(out.out, Catch::Contains("link"));
  // On demand, the same rule.
  CHECK(runStrata({"path", (dir / "islands.obj").string(), "--profile", (dir / "one.toml").string(), "--on-demand",
                   "--from", "-3,0,0", "--to", "14,0,0"}).exit_code == 3);
}

TEST_CASE("a world file write that fails (file size limit) is one plain line, exit 1, and the old file stays", "[cli][bake]") {
  // An audit: HDF5's message for a failed write carried every argument of the call (time, file
  // descriptor, buffer address, the temporary file's name). A 1 KiB file size limit (SIGXFSZ
  // ignored, so a write past it fails with EFBIG) stands in for a full disk.
  for (const char* command : {"bake", "import"}) {
    INFO(command);
    TempDir dir;
    const auto out = dir.path() / "w.h5";
    { std::ofstream(out) << "old\n"; }
    const std::string shell = "ulimit -f 2; trap '' XFSZ; exec \"$0\" \"$1\" \"$2\" -o \"$3\"";
    const auto r = strata::test::runProgram({"sh", "-c", shell, STRATA_BINARY, command, sample("tower.obj"), out.string()});
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::StartsWith("strata: error: " + out.string() + ": "));
    CHECK_THAT(r.err, Catch::Contains("File too large"));
    CHECK_THAT(r.err, !Catch::Contains("time =") && !Catch::Contains("buf =") && !Catch::Contains(".tmp"));
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(strata::test::readFile(out) == "old\n");
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++entries;
    CHECK(entries == 1);  // no temporary file left
  }
}

TEST_CASE("bake and import into a directory one may write in but not read: written, exit 0", "[cli][bake][output]") {
  // A drop box (mode 0333) cannot be opened to sync it after the rename into it; the new world
  // is in place then, so the write stands (it exited 1, "written, but cannot sync directory",
  // with the new file in place: an audit). Root reads any directory, so as root the command
  // runs as the user nobody (setpriv, util-linux).
  namespace fs = std::filesystem;
  const bool root = ::geteuid() == 0;
  const std::vector<std::string> as_nobody = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
  if (root && !fs::exists(as_nobody.front())) {
    WARN("no /usr/bin/setpriv: not run as root");
    return;
  }
  for (const char* command : {"bake", "import"}) {
    INFO(command);
    TempDir dir;
    fs::permissions(dir.path(), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                                    fs::perms::others_exec);
    for (const char* file : {"tower.obj", "tower.mtl"}) fs::copy_file(sourceDir() / "samples" / file, dir.path() / file);
    if (root) {
      // (The user nobody must be able to run the binary where it was built and read the mesh in
      // the temporary directory: neither under a directory only root may enter, such as /root.)
      std::vector<std::string> probe = as_nobody;
      probe.insert(probe.end(), {"/bin/sh", "-c", "test -x \"$0\" && test -r \"$1\"", STRATA_BINARY, (dir.path() / "tower.obj").string()});
      if (strata::test::runProgram(probe).exit_code != 0) {
        WARN("the user nobody cannot run " STRATA_BINARY " or read " << dir.path().string() << ": not run as root");
        return;
      }
    }
    const fs::path box = dir.path() / "box", out = box / "w.h5";
    fs::create_directory(box);
    { std::ofstream(out) << "old\n"; }
    fs::permissions(box, fs::perms::owner_write | fs::perms::owner_exec | fs::perms::group_write | fs::perms::group_exec |
                             fs::perms::others_write | fs::perms::others_exec);
    std::vector<std::string> argv = {STRATA_BINARY, command, (dir.path() / "tower.obj").string(), "-o", out.string()};
    if (root) argv.insert(argv.begin(), as_nobody.begin(), as_nobody.end());
    const auto r = strata::test::runProgram(argv);
    fs::permissions(box, fs::perms::owner_all);
    CHECK(r.exit_code == 0);
    CHECK(r.err.find("error") == std::string::npos);
    CHECK(runStrata({"info", out.string()}).exit_code == 0);  // the new world, whole
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(box)) ++entries;
    CHECK(entries == 1);  // no temporary left
  }
}

#if !defined(STRATA_SHADOW_SANITIZER)  // the sanitizers need terabytes of address space
TEST_CASE("a bake that runs out of memory names the agent and its cell size, exit 1, and the old file stays", "[cli][bake]") {
  // A 300 m triangle at 0.3 m (a million columns) under address-space limits from 100 to 140 MB:
  // each run bakes, or fails in the bake (named by the mesh) or while writing (named by the
  // output; an audit found that one named the input mesh alone, no agent, no cell size) with
  // one line that names the agent and its cell size. The old output stays, no temporary left.
  TempDir dir;
  const auto mesh = dir.path() / "big.obj", out = dir.path() / "w.h5";
  { std::ofstream(mesh) << "v -150 0 -150\nv 150 0 -150\nv 0 0 150\nf 1 3 2\n"; }
  int ran_out = 0, refused = 0;
  for (int megabytes = 100; megabytes <= 140; megabytes += 2) {
    INFO(megabytes << " MB");
    { std::ofstream(out) << "old\n"; }
    const std::string shell = "ulimit -v " + std::to_string(megabytes * 1000) + "; exec \"$0\" bake \"$1\" -o \"$2\" --threads 2";
    const auto r = strata::test::runProgram({"sh", "-c", shell, STRATA_BINARY, mesh.string(), out.string()});
    INFO(r.err);
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++entries;
    CHECK(entries == 2);  // the mesh and the output: no temporary file left
    if (r.exit_code == 0) continue;
    CHECK(strata::test::readFile(out) == "old\n");
    // A limit below the bake's estimate is refused before any work (an audit: `ulimit -v` was
    // not counted as a limit, so such a bake ran 15 s to 3.8 GB and then ran out), exit 2.
    if (r.exit_code == 2) {
      ++refused;
      CHECK_THAT(r.err, Catch::StartsWith("strata: error: " + mesh.string() + ": agent default: about 5e+05 floor nodes in 1e+06 "
                                          "columns at cell_size 0.3 m would need about ") &&
                            Catch::EndsWith(" of memory; raise cell_size\n"));
      continue;
    }
    ++ran_out;
    CHECK(r.exit_code == 1);
    // Under ulimit -v the limit is named as the other thing to raise.
    const std::string limit = " (raise cell_size, or the address-space limit, ulimit -v, of " +
                              std::to_string(static_cast<long long>(megabytes) * 1000 / 1024) + " MiB)\n";
    CHECK((r.err == "strata: error: " + mesh.string() + ": agent default: out of memory baking at cell_size 0.3 m" + limit ||
           r.err == "strata: error: " + out.string() + ": out of memory writing the world file of agent default at cell_size 0.3 m" + limit));
  }
  CHECK(ran_out >= 2);
  CHECK(ran_out + refused >= 2);
}
#endif

TEST_CASE("bake and import write .h5 names only: a mistyped -o never replaces a mesh or a profile", "[cli][bake][output]") {
  // A new user's session: bake src.h5 -o src.glb wrote HDF5 over the source mesh (exit 0), and
  // -o tower.toml over the profile.
  TempDir dir;
  const auto mesh = (dir / "src.obj").string(), profile = (dir / "p.toml").string();
  std::filesystem::copy_file(sample("maze.obj"), mesh);
  std::ofstream(profile) << "[agent.a]\n";
  const std::string mesh_bytes = strata::test::readFile(mesh), profile_bytes = strata::test::readFile(profile);
  for (const std::string& output : {mesh, profile, (dir / "new.glb").string(), (dir / "noext").string()}) {
    INFO(output);
    auto r = runStrata({"bake", mesh, "--profile", profile, "-o", output});
    CHECK(r.exit_code == 2);
    // (an input as the output is refused before its name: "never an input")
    if (output != mesh && output != profile) CHECK_THAT(r.err, Catch::Contains("a world file is written to a .h5 (or .hdf5) name"));
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    r = runStrata({"import", mesh, "-o", output});
    CHECK(r.exit_code == 2);
  }
  CHECK(strata::test::readFile(mesh) == mesh_bytes);
  CHECK(strata::test::readFile(profile) == profile_bytes);
  // A .h5 link to a file of another name is refused too; a .h5 link to a .h5 file is written through.
  std::filesystem::create_symlink(mesh, dir / "link.h5");
  auto linked = runStrata({"bake", mesh, "-o", (dir / "link.h5").string()});
  CHECK(linked.exit_code == 2);
  CHECK(strata::test::readFile(mesh) == mesh_bytes);
  REQUIRE(runStrata({"import", mesh, "-o", (dir / "real.h5").string()}).exit_code == 0);
  std::filesystem::create_symlink(dir / "real.h5", dir / "alias.H5");
  CHECK(runStrata({"bake", mesh, "-o", (dir / "alias.H5").string()}).exit_code == 0);
  // A dangling link names the file the write would create (it wrote a world file as victim.glb),
  // through a chain of links and a relative target too.
  std::filesystem::create_symlink("victim.glb", dir / "dangling.h5");
  std::filesystem::create_symlink(dir / "dangling.h5", dir / "chain.h5");
  for (const char* name : {"dangling.h5", "chain.h5"}) {
    INFO(name);
    auto dangling = runStrata({"bake", mesh, "-o", (dir / name).string()});
    CHECK(dangling.exit_code == 2);
    CHECK_THAT(dangling.err, Catch::Contains("the symbolic link's target") && Catch::Contains("victim.glb"));
    CHECK(runStrata({"import", mesh, "-o", (dir / name).string()}).exit_code == 2);
    CHECK_FALSE(std::filesystem::exists(dir / "victim.glb"));
  }
  std::filesystem::create_symlink("fresh.h5", dir / "to_fresh.h5");
  CHECK(runStrata({"import", mesh, "-o", (dir / "to_fresh.h5").string()}).exit_code == 0);
  CHECK(std::filesystem::is_regular_file(dir / "fresh.h5"));
}

TEST_CASE("a bake that finds no walkable floor says so, naming the mesh's size", "[cli][bake]") {
  // A new user's ceiling (a plane facing down) baked to 0 nodes with no word.
  TempDir dir;
  const auto mesh = (dir / "ceiling.obj").string();
  std::ofstream(mesh) << "v 0 3 0\nv 0 3 4\nv 5 3 0\nv 5 3 4\nf 1 3 2\nf 3 4 2\n";
  auto r = runStrata({"bake", mesh, "-o", (dir / "c.h5").string(), "--json"});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Contains("ceiling.obj: agent default: no walkable floor (0 nodes) on a mesh of 5 x 0 x 4 m"));
  // Its top faces down: the warning asks about the winding too (the maze sample with every
  // triangle's winding reversed bakes 0 nodes).
  CHECK_THAT(r.err, Catch::Contains(" and max_slope? Seen from above, the first surface faces down at 1024 of 1024 points sampled "
                                    "(a ceiling seen from above does, and so does a floor whose winding is reversed): is the "
                                    "mesh's winding reversed (a floor must be counter-clockwise seen from above)?\n"));
  // A ramp too steep to walk (60 degrees) faces up: no word of the winding.
  const auto steep = (dir / "steep.obj").string();
  std::ofstream(steep) << "v 0 0 0\nv 0 0 3\nv 2 3.46 3\nv 2 3.46 0\nf 1 2 3\nf 1 3 4\n";
  const auto ramp = runStrata({"bake", steep, "-o", (dir / "s.h5").string()});
  CHECK_THAT(ramp.err, Catch::Contains("steep.obj: agent default: no walkable floor (0 nodes)") &&
                           Catch::EndsWith("and max_slope?\n"));
  const auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["agents"][0]["nodes"] == 0);
  // The document carries the warning too, as strata import's does (an audit: a script never saw it).
  REQUIRE(doc["warnings"].size() == 1);
  CHECK_THAT(doc["warnings"][0].get<std::string>(), Catch::StartsWith(mesh + ": agent default: no walkable floor (0 nodes)"));
  // A floor: no such warning.
  auto floor = runStrata({"bake", sample("maze.obj"), "-o", (dir / "m.h5").string(), "--json"});
  CHECK(floor.err.find("no walkable floor") == std::string::npos);
  CHECK(nlohmann::json::parse(floor.out)["warnings"] == nlohmann::json::array());
  // The import's warnings (a material library not found) are in it as well.
  std::ofstream(dir / "quad.obj") << "mtllib quad.mtl\nv 0 0 0\nv 0 0 2\nv 2 0 2\nv 2 0 0\nf 1 2 3 4\n";
  auto quad = runStrata({"bake", (dir / "quad.obj").string(), "-o", (dir / "q.h5").string(), "--json"});
  REQUIRE(quad.exit_code == 0);
  const auto quad_doc = nlohmann::json::parse(quad.out);
  REQUIRE(quad_doc["warnings"].size() == 1);
  CHECK_THAT(quad_doc["warnings"][0].get<std::string>(), Catch::Contains("material library 'quad.mtl' not found"));
  // A mesh baked in memory (path, query, render, export) says the same warnings, once each: it
  // said none (an audit), so a path on a ceiling answered NoStartNode with no hint.
  auto path = runStrata({"path", mesh, "--from", "1,3,1", "--to", "2,3,2"});
  CHECK(path.exit_code == 3);
  CHECK_THAT(path.err, Catch::Contains("ceiling.obj: agent default: no walkable floor (0 nodes)"));
  auto count = [](const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  const std::string quad_mesh = (dir / "quad.obj").string();
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"query", quad_mesh, "height", "--at", "1,1"},
        std::vector<std::string>{"query", quad_mesh, "ray", "--from", "1,5,1", "--dir", "0,-1,0"},
        std::vector<std::string>{"path", quad_mesh, "--from", "0.5,0,0.5", "--to", "1.5,0,1.5"},
        std::vector<std::string>{"path", quad_mesh, "--from", "0.5,0,0.5", "--to", "1.5,0,1.5", "--on-demand"},
        std::vector<std::string>{"render", quad_mesh, "-o", (dir / "q.png").string()}}) {
    auto r = runStrata(args);
    INFO(args[0] << " " << args[2] << ": " << r.err);
    CHECK(r.exit_code == 0);
    CHECK(count(r.err, "strata: warning: " + quad_mesh + ": material library 'quad.mtl' not found") == 1);
  }
  // A batch imports the mesh once, and says its warnings once.
  std::ofstream(dir / "requests.jsonl") << "{\"kind\":\"height\",\"at\":[1,1]}\n{\"kind\":\"ray\",\"from\":[1,5,1],\"dir\":[0,-1,0]}\n";
  auto batch = runStrata({"query", quad_mesh, "--batch", (dir / "requests.jsonl").string()});
  CHECK(batch.exit_code == 0);
  CHECK(count(batch.err, "material library 'quad.mtl' not found") == 1);
}

TEST_CASE("a cell wider than twice the radius is baked with a warning about the line test", "[cli][bake]") {
  // The walking line test leaves room between column centres through the diagonal walk edges,
  // which stand for the agent's box everywhere between centres only up to cell_size = 2 * radius.
  TempDir dir;
  const auto profile = (dir / "wide.toml").string(), out = (dir / "w.h5").string();
  std::ofstream(profile) << "[agent.wide]\nradius = 0.2\ncell_size = 0.5\n[agent.fits]\nradius = 0.25\ncell_size = 0.5\n";
  auto r = runStrata({"bake", sample("maze.obj"), "--profile", profile, "-o", out});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Contains("strata: warning: " + sample("maze.obj") +
                                    ": agent wide: cell_size 0.5 m is more than twice the radius (0.2 m)") &&
                        Catch::Contains("use cell_size <= 0.4 m\n"));
  CHECK(r.err.find("agent fits:") == std::string::npos);
  CHECK(std::filesystem::exists(out));
  // Whole after a long path (a fixed buffer cut it short in a deep checkout).
  const auto deep = dir / std::string(200, 'd');
  std::filesystem::create_directory(deep);
  std::filesystem::copy_file(sample("maze.obj"), deep / "maze.obj");
  auto far = runStrata({"bake", (deep / "maze.obj").string(), "--profile", profile, "-o", out});
  CHECK(far.exit_code == 0);
  CHECK_THAT(far.err, Catch::Contains((deep / "maze.obj").string() + ": agent wide: cell_size 0.5 m") &&
                          Catch::Contains("use cell_size <= 0.4 m\n"));
  // The default cell (the radius) never warns.
  auto plain = runStrata({"bake", sample("maze.obj"), "-o", out});
  CHECK(plain.exit_code == 0);
  CHECK(plain.err.find("twice the radius") == std::string::npos);
}

TEST_CASE("bake of a mesh tells what its import dropped, as strata import does", "[cli][bake]") {
  TempDir dir;
  const auto mesh = (dir / "deg.obj").string();
  // A floor of two triangles and one of zero area (three points on a line).
  std::ofstream(mesh) << "v 0 0 0\nv 1 0 0\nv 2 0 0\nv 0 0 4\nv 4 0 4\nv 4 0 0\nf 1 2 3\nf 1 4 5\nf 1 5 6\n";
  auto json = runStrata({"bake", mesh, "-o", (dir / "d.h5").string(), "--json"});
  REQUIRE(json.exit_code == 0);
  const auto doc = nlohmann::json::parse(json.out);
  CHECK(doc["degenerate_dropped"] == 1);
  CHECK(doc["non_triangles_dropped"] == 0);
  auto text = runStrata({"bake", mesh, "-o", (dir / "d.h5").string()});
  CHECK_THAT(text.out, Catch::Contains("dropped 1 degenerate triangle and 0 points/lines\n"));
  // A world file input: its geometry was imported before; nothing dropped now.
  auto again = runStrata({"bake", (dir / "d.h5").string(), "-o", (dir / "e.h5").string(), "--json"});
  REQUIRE(again.exit_code == 0);
  CHECK(nlohmann::json::parse(again.out)["degenerate_dropped"] == 0);
}

TEST_CASE("a world file is known by its content, whatever its name", "[cli][bake]") {
  // bake -o writes a .h5 name only (a mistyped -o replaced a mesh); a world copied or renamed
  // to any name must still read back in every command.
  TempDir dir;
  const auto world = (dir / "maze.world").string();
  auto refused = runStrata({"bake", sample("maze.obj"), "-o", world});
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.err, Catch::Contains("maze.world: the name ends in '.world': a world file is written to a .h5 (or .hdf5) name"));
  CHECK_FALSE(std::filesystem::exists(world));
  REQUIRE(runStrata({"bake", sample("maze.obj"), "-o", (dir / "maze.HDF5").string()}).exit_code == 0);
  std::filesystem::rename(dir / "maze.HDF5", world);
  CHECK(runStrata({"info", world}).exit_code == 0);
  CHECK(runStrata({"path", world, "--from", "0.6,0,0.6", "--to", "5,0,5"}).exit_code == 0);
  CHECK(runStrata({"query", world, "component", "--at", "0.6,0,0.6", "--to", "5,0,5"}).exit_code == 0);
  CHECK(runStrata({"query", world, "ray", "--from", "0.6,10,0.6", "--dir", "0,-1,0"}).exit_code == 0);
  CHECK(runStrata({"render", world, "-o", (dir / "maze.png").string()}).exit_code == 0);
  CHECK(runStrata({"export", world, "-o", (dir / "maze.glb").string()}).exit_code == 0);
  CHECK(runStrata({"bake", world, "-o", (dir / "again.h5").string()}).exit_code == 0);
  // The content is read from regular files only: a FIFO with no writer is refused, not waited on.
  const auto fifo = (dir / "pipe.obj").string();
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  auto piped = runStrata({"bake", fifo, "-o", (dir / "p.h5").string()});
  CHECK(piped.exit_code == 2);
  CHECK_THAT(piped.err, Catch::Contains("not a regular file"));
  CHECK(runStrata({"query", fifo, "ray", "--from", "0,5,0", "--dir", "0,-1,0"}).exit_code == 2);
}

TEST_CASE("strata bake --help and its man page document every option", "[cli][bake][docs]") {
  auto help = runStrata({"bake", "--help"});
  REQUIRE(help.exit_code == 0);
  const std::string man = strata::test::readFile(sourceDir() / "man" / "strata-bake.1");
  for (const char* option : {"--profile", "--agent", "--threads", "--json", "--scale", "--up", "--in-process", "--output"}) {
    INFO(option);
    CHECK_THAT(help.out, Catch::Contains(option));
    std::string escaped;
    for (char ch : std::string(option)) escaped += ch == '-' ? std::string("\\-") : std::string(1, ch);
    CHECK_THAT(man, Catch::Contains(escaped));
  }
}

TEST_CASE("the h5py example of docs/format.md finds the floors of a column", "[cli][bake][docs]") {
  std::string python;
  for (const char* candidate : {"python3", "/usr/bin/python3"})
    if (python.empty() && strata::test::runProgram({candidate, "-c", "import h5py"}).exit_code == 0) python = candidate;
  if (python.empty()) {
    WARN("no python3 with h5py: skipping");
    return;
  }
  TempDir dir;
  const auto out = (dir / "tower.h5").string();
  REQUIRE(runStrata({"bake", sample("tower.obj"), "--profile", sample("tower.toml"), "-o", out}).exit_code == 0);
  const std::string doc = strata::test::readFile(sourceDir() / "docs" / "format.md");
  const auto begin = doc.find("```python3\n");
  REQUIRE(begin != std::string::npos);
  const auto end = doc.find("```", begin + 11);
  std::string example = doc.substr(begin + 11, end - begin - 11);
  const auto name = example.find("\"level.h5\"");
  REQUIRE(name != std::string::npos);
  example.replace(name, 10, "sys.argv[1]");
  const auto run = strata::test::runProgram({python, "-c", "import sys\n" + example, out});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  // (0.1, -4.1) on the tower: road, bridge and roof.
  CHECK_THAT(run.out, Catch::StartsWith("human floors at [0.0, 4.0, 8.0]"));
}

TEST_CASE("strata bake refuses triangles listed in more tiles than its tables hold - it crashed", "[cli][bake]") {
  // An audit: 10,996 wall triangles along the diagonal of a 20 km square at cell_size 1 (under
  // the 4e8-column limit; walls, so no floors for the memory estimate), each bounding box over
  // all 390,625 tiles: 4.3e9 entries, whose 32-bit count wrapped to a small buffer that the fill
  // wrote far past (SIGSEGV after 7 s). Now a usage error before any work of the tiles. (Walls
  // along a diagonal are now listed by their footprints, about 1,900 tiles each: the triangles
  // here are slopes too steep to walk whose footprints are half the square, as many.)
  TempDir dir;
  {
    std::ofstream obj(dir / "diagonal.obj");
    constexpr int kSlopes = 10996;
    for (int i = 0; i < kSlopes; ++i) {
      const double y = i * 0.01;
      obj << "v 0 " << y << " 0\nv 19998 " << y << " 0\nv 0 " << y + 40000 << " 19998\n";
    }
    for (int i = 0; i < kSlopes; ++i) obj << "f " << 3 * i + 1 << ' ' << 3 * i + 2 << ' ' << 3 * i + 3 << '\n';
    std::ofstream(dir / "p.toml") << "[agent.a]\ncell_size = 1\nradius = 0.5\n";
  }
  const auto r = runStrata({"bake", (dir / "diagonal.obj").string(), "--profile", (dir / "p.toml").string(), "-o",
                            (dir / "w.h5").string(), "--threads", "1"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("diagonal.obj: agent a: its triangles, each listed once per tile of columns it spans, "
                                    "make 4.3e+09 entries at cell_size 1 m") &&
                        Catch::Contains("raise cell_size"));
  CHECK(!std::filesystem::exists(dir / "w.h5"));
}

namespace {

// The lines a terminal shows of `err`: split at "\r" and "\n", with the erase-line escape taken
// out (each redraw starts with "\r\033[K").
std::vector<std::string> terminalLines(const std::string& err) {
  std::vector<std::string> lines;
  std::string line;
  for (std::size_t i = 0; i < err.size(); ++i) {
    if (err.compare(i, 3, "\033[K") == 0) {
      i += 2;
    } else if (err[i] == '\r' || err[i] == '\n') {
      if (!line.empty()) lines.push_back(line);
      line.clear();
    } else {
      line += err[i];
    }
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("strata bake draws its progress bar within the terminal's width", "[cli][bake]") {
  static constexpr std::array<const char*, 7> kStages = {"index", "columns", "edges", "links", "clearance", "components", "fields"};
  TempDir dir;
  // An agent name of 64 characters: "NAME: stage" is longer than any narrow terminal.
  const std::string name(64, 'a');
  {
    std::ofstream profile(dir / "long.toml");
    profile << "[agent." << name << "]\nradius = 0.3\nheight = 1.8\n";
  }
  for (const int columns : {5, 12, 30, 40, 50, 120}) {
    CAPTURE(columns);
    const auto run = strata::test::runStrataOnTerminal(
        {"bake", sample("course.obj"), "--profile", (dir / "long.toml").string(), "-o", (dir / "w.h5").string()},
        {columns, "xterm"});
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(run.err.find("\r\033[K") != std::string::npos);  // redrawn in place
    std::size_t finished = 0;
    for (const std::string& line : terminalLines(run.err)) {
      CAPTURE(line);
      const bool done = line.find(" done in ") != std::string::npos;
      // A bar never reaches the last column (no wrap); a finished line keeps a readable label,
      // whole where the terminal is too narrow for one (it is not redrawn).
      if (!done) CHECK(line.size() < static_cast<std::size_t>(columns));
      else if (columns >= 30) CHECK(line.size() < static_cast<std::size_t>(columns));
      else CHECK((line.rfind("index", 0) == 0 || line.rfind(name + ": ", 0) == 0));
      // The name is cut short, not the stage (cutting the whole label left "aaaa... done in
      // 835 ms", no saying which stage: an audit).
      if (columns >= 30 && !line.empty())
        CHECK(std::any_of(kStages.begin(), kStages.end(), [&](const char* stage) { return line.find(stage) != std::string::npos; }));
      finished += done;
    }
    CHECK(finished >= 5);  // a line per finished stage
  }
}

TEST_CASE("strata bake on a terminal that cannot redraw prints only the finished stages", "[cli][bake]") {
  TempDir dir;
  for (const std::string term : {"dumb", ""}) {
    CAPTURE(term);
    const auto run = strata::test::runStrataOnTerminal(
        {"bake", sample("course.obj"), "--profile", sample("course.toml"), "-o", (dir / "w.h5").string()}, {80, term});
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    CHECK(run.err.find('\033') == std::string::npos);
    const auto lines = terminalLines(run.err);
    REQUIRE(lines.size() >= 5);
    for (const std::string& line : lines) CHECK(line.find(" done in ") != std::string::npos);
  }
}
