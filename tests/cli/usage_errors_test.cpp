// Usage errors (CLI11's parse errors) are one line on stderr naming the option, the value typed
// and what is allowed, with exit code 2, like every other bad input.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "test_support.h"

using strata::test::runStrata;

namespace {

struct Case {
  std::vector<std::string> args;
  std::string expected;  ///< part of the one line on stderr
};

// Each case: exit code 2 and one short line on stderr, `strata: error: ...` holding `expected`.
void checkRefused(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    INFO(c.expected);
    const auto r = runStrata(c.args);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::StartsWith("strata: error: ") && Catch::Contains(c.expected));
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.err.size() < 300);  // no 300-digit bound
  }
}

}  // namespace

TEST_CASE("usage errors: one line naming the option, the value and the allowed range", "[cli][usage]") {
  checkRefused({
      {{"bake", "x.obj", "-o", "y.h5", "--scale", "0"}, "--scale: '0' is not a finite number > 0 (usage: strata bake --help)"},
      {{"bake", "x.obj", "-o", "y.h5", "--scale", "nan"}, "--scale: 'nan' is not a finite number > 0"},
      // strata's own --version, given after a query kind, printed the version and ran nothing.
      {{"query", "w.h5", "nearest", "--at", "0,0,0", "--version"}, "--version is an option of strata, not of 'query': strata --version"},
      {{"query", "--version"}, "--version is an option of strata, not of 'query'"},
      // (bake's INPUT missing was said first, and --version only as an unexpected argument.)
      {{"bake", "--version"}, "INPUT is required; unexpected arguments: --version; --version is an option of strata itself: strata --version"},
      // A misspelt option: the nearest real one (they said only "unexpected arguments").
      {{"bake", "x.obj", "-o", "y.h5", "--profil", "p.toml"}, "unexpected arguments: --profil p.toml (did you mean --profile?) (usage: strata bake --help)"},
      {{"bake", "x.obj", "-o", "y.h5", "--thread", "2"}, "unexpected arguments: --thread 2 (did you mean --threads?)"},
      {{"path", "x.h5", "--form", "1,2,3", "--to", "1,2,3"}, "unexpected arguments: --form 1,2,3 (did you mean --from?)"},
      {{"query", "x.h5", "nearest", "--att", "1,2,3"}, "--at is required; unexpected arguments: --att 1,2,3 (did you mean --at?)"},
      {{"bake", "x.obj", "-o", "y.h5", "--bogus"}, "unexpected arguments: --bogus (usage: strata bake --help)"},
      // Nothing offered for short or odd names, nor after "--" (the re-audit: ---x and --= were
      // offered --up, --h --to).
      {{"bake", "x.obj", "-o", "y.h5", "---x"}, "unexpected arguments: ---x (usage: strata bake --help)"},
      {{"bake", "x.obj", "-o", "y.h5", "--="}, "unexpected arguments: --= (usage: strata bake --help)"},
      {{"path", "x.h5", "--h"}, "unexpected arguments: --h (usage: strata path --help)"},
      {{"bake", "x.obj", "-o", "y.h5", "--", "--profil"}, "unexpected arguments: --profil (usage: strata bake --help)"},
      // "-" for an input: standard input is not read (it said "-: no such file").
      {{"import", "-", "-o", "y.h5"}, "-: standard input is not read; give the input as a file"},
      {{"bake", "-", "-o", "y.h5"}, "-: standard input is not read; give the input as a file"},
      {{"info", "-"}, "-: standard input is not read; give the input as a file"},
      // An empty input name (it said ": no such file", naming nothing; the bake audit).
      {{"bake", "", "-o", "y.h5"}, "INPUT: a file name cannot be empty"},
      {{"import", "", "-o", "y.h5"}, "MESH: a file name cannot be empty"},
      {{"info", ""}, "FILE: a file name cannot be empty"},
      {{"path", "", "--from", "0,0,0", "--to", "1,0,1"}, "INPUT: a file name cannot be empty"},
      {{"query", "", "height", "--at", "0,0"}, "WORLD: a file name cannot be empty"},
      {{"render", "", "-o", "x.png"}, "WORLD: a file name cannot be empty"},
      {{"export", "", "-o", "x.obj"}, "WORLD: a file name cannot be empty"},
      {{"bake", "x.obj", "-o", "y.h5", "--threads", "abc"}, "--threads: 'abc' is not an integer from 0 to 1024"},
      {{"bake", "x.obj", "-o", "y.h5", "--threads", "2.5"}, "--threads: '2.5' is not an integer from 0 to 1024"},
      {{"import", "x.obj", "-o", "y.h5", "--timeout", "1e9"}, "--timeout: '1e9' is not a number > 0 and <= 86400"},
      {{"import", "x.obj", "-o", "y.h5", "--memory-limit", "9"}, "--memory-limit: '9' is not an integer from 64 to 1073741824"},
      {{"path", "x.h5", "--threads", "abc"}, "--threads: 'abc' is not an integer from 0 to 1024 (usage: strata path --help)"},
      {{"path", "x.h5", "--budget", ""}, "--budget: '' is not an integer >= 0"},
      {{"path", "x.h5", "--budget", "9223372036854775808"}, "--budget: '9223372036854775808' is larger than 9223372036854775807"},
      {{"path", "x.h5", "--budget", "-9223372036854775809"}, "--budget: '-9223372036854775809' is not an integer >= 0"},
      {{"path", "x.h5", "--margin", ""}, "--margin: '' is not a number >= 0 and <= 10000"},
      {{"path", "x.h5", "--margin", "1e308"}, "--margin: '1e308' is not a number >= 0 and <= 10000"},
      {{"path", "x.h5", "--spacing", "0x1p1"}, "--spacing: '0x1p1' is not a finite number >= 0"},
      {{"path", "x.h5", "--agent", ""}, "--agent: an agent name cannot be empty"},
      {{"bake", "x.obj", "-o", "y.h5", "--profile", ""}, "--profile: a file name cannot be empty"},
      {{"path", "x.h5", "--batch", ""}, "--batch: a file name cannot be empty"},
      {{"path", "x.map", "--scen", ""}, "--scen: a file name cannot be empty"},
      {{"query", "x.obj", "nearest", "--at", "0,0,0", "--profile", ""}, "--profile: a file name cannot be empty"},
      {{"query", "x.h5", "nearest", "--at", "0,0,0", "--agent", ""}, "--agent: an agent name cannot be empty"},
      {{"query", "x.h5", "nearest", "--at", "0,0,0", "--radius", ""}, "--radius: '' is not a finite number >= 0"},
      {{"query", "x.h5", "nearest", "--at", "0,0,0", "--radius", "inf"}, "--radius: 'inf' is not a finite number >= 0"},
      {{"query", "x.h5", "heigth", "--at", "0,0"}, "query: unknown kind 'heigth' (one of: ray, overlap, cast, nearest, height,"},
      {{"query", "x.h5", "--tag", "/a", "--json", "bogus"}, "query: unknown kind 'bogus'"},
      {{"query", "x.h5"}, "query: give one of: ray, overlap, cast,"},
      // A kind where the world goes.
      {{"query", "nearest", "--at", "0,0,0"},
       "query: 'nearest' stands where the world file goes; the world comes first: strata query WORLD nearest ... (usage: strata query --help)"},
      {{"query", "height", "x.h5", "--at", "0,0"}, "query: 'height' stands where the world file goes"},
      {{"query", "x.h5", "--agent", "human", "heigth"}, "query: unknown kind 'heigth'"},
      {{"query", "x.h5", "field", "--at", "0,0,0", "--origin", "0,0,1", "--max", "inf"}, "--max: 'inf' is not a finite number > 0"},
      {{"query", "x.h5", "ray", "--from", "0,0,0", "--dir", "0,-1,0", "--max", "-1"}, "--max: '-1' is not a finite number > 0"},
      {{"bake"}, "INPUT is required (usage: strata bake --help)"},
      {{"path", "--from", "1,0,1", "--to", "2,0,2"}, "INPUT is required (usage: strata path --help)"},
      {{"path", "x.h5", "--from", "0,0,0", "--from", "1,1,1", "--to", "2,2,2"}, "--from: given 2 times; give it once (usage: strata path --help)"},
      // Flags too (CLI11 let them repeat silently), on the command and on a query kind.
      {{"path", "x.h5", "--json", "--from", "0,0,0", "--to", "2,2,2", "--json"}, "--json: given 2 times; give it once (usage: strata path --help)"},
      {{"bake", "x.obj", "-o", "y.h5", "--in-process", "--in-process"}, "--in-process: given 2 times; give it once (usage: strata bake --help)"},
      {{"query", "x.h5", "nearest", "--at", "0,0,0", "--json", "--json"}, "--json: given 2 times; give it once (usage: strata query WORLD nearest --help)"},
      {{"bak"}, "unknown subcommand 'bak' (did you mean 'bake'?) (usage: strata --help)"},
      // In the order typed (CLI11 lists them reversed), and where an option of the kind belongs.
      {{"query", "x.h5", "field", "--at", "1,0,1", "--from", "1,0,1", "--to", "2,0,2"},
       "unexpected arguments: --from 1,0,1 --to 2,0,2 (usage: strata query WORLD field --help)"},
      {{"query", "x.obj", "--radius", "3", "nearest", "--at", "0,0,0"},
       "unexpected arguments: --radius 3 (--radius is an option of 'nearest': give it after 'nearest')"},
      // A command's own option typed before the command's name (only "unexpected arguments" before).
      {{"--json", "info", "x.h5"}, "unexpected arguments: --json (--json is an option of 'info': give it after 'info') (usage: strata info --help)"},
      {{"--threads", "2", "bake", "x.obj", "-o", "y.h5"},
       "unexpected arguments: --threads 2 (--threads is an option of 'bake': give it after 'bake') (usage: strata bake --help)"},
      // path's options (parsed into unnamed option groups), a query option before `query`, and a
      // short option (a re-audit: "did you mean --json?" for --json itself, or no hint).
      {{"--json", "path", "x.h5", "--from", "1,0,1", "--to", "5,0,5"},
       "unexpected arguments: --json (--json is an option of 'path': give it after 'path') (usage: strata path --help)"},
      {{"--from", "1,0,1", "path", "x.h5", "--to", "5,0,5"},
       "unexpected arguments: --from 1,0,1 (--from is an option of 'path': give it after 'path')"},
      {{"--json", "query", "x.h5", "height", "--at", "1,0,1"},
       "unexpected arguments: --json (--json is an option of 'query': give it after 'query') (usage: strata query WORLD height --help)"},
      {{"-o", "q.h5", "import", "x.obj"}, "--output is required; unexpected arguments: -o q.h5 (-o is an option of 'import': give it after 'import')"},
      // After "--" the words are positional: no hint.
      {{"path", "x.h5", "--from", "1,0,1", "--to", "5,0,5", "--", "--json"}, "unexpected arguments: --json (usage: strata path --help)"},
      // ... and so when the kind then lacks it.
      {{"query", "x.h5", "--at", "0,0", "height"},
       "--at is required; unexpected arguments: --at 0,0 (--at is an option of 'height': give it after 'height') (usage: strata query WORLD height --help)"},
      {{"bake", "x.obj", "-o", "y.h5", "extra1", "extra2"}, "unexpected arguments: extra1 extra2 (usage: strata bake --help)"},
      // A missing input and an unknown option: both named (only the input was).
      {{"info", "--bogus"}, "FILE is required; unexpected arguments: --bogus (usage: strata info --help)"},
  });
}

TEST_CASE("usage errors: a file named as a folder (a trailing slash) says so, not only 'no such file'", "[cli][usage]") {
  // An audit: `--batch requests.jsonl/` said "no such file" for a file that is there.
  const std::string obj = (strata::test::sourceDir() / "samples" / "tower.obj").string() + "/";
  const std::string said = obj + ": no such file (a part of the path is a file, not a folder)";
  checkRefused({
      {{"info", obj}, said},
      {{"import", obj, "-o", "y.h5"}, said},
      {{"bake", obj, "-o", "y.h5"}, said},
      {{"path", obj, "--from", "0,0,0", "--to", "1,0,1"}, said},
  });
  // A path that is not there at all keeps the plain message.
  checkRefused({{{"info", "no-such-folder/x.h5"}, "no-such-folder/x.h5: no such file"}});
}

TEST_CASE("usage errors: options that do not apply to the input are refused, not ignored", "[cli][usage]") {
  const std::string samples = (strata::test::sourceDir() / "samples").string();
  const std::string tower = samples + "/tower.obj", profile = samples + "/tower.toml";
  strata::test::TempDir dir;
  // A world file for bake's world input.
  REQUIRE(runStrata({"import", tower, "-o", (dir / "w.h5").string()}).exit_code == 0);
  const std::string map = (strata::test::sharedData() / "movingai" / "arena.map").string();
  checkRefused({
      {{"bake", (dir / "w.h5").string(), "-o", (dir / "b.h5").string(), "--scale", "0.05"},
       "w.h5: --scale applies to mesh inputs, not to world files"},
      {{"bake", (dir / "w.h5").string(), "-o", (dir / "b.h5").string(), "--up", "z"}, "--up applies to mesh inputs"},
      {{"path", tower, "--profile", profile, "--from", "0,0,-25", "--to", "0,8,-4", "--threads", "2"},
       "--threads applies to --batch only"},
      {{"path", tower, "--profile", profile, "--from", "0,0,-25", "--to", "0,8,-4", "--no-jump-points"},
       "--no-jump-points applies to Moving AI maps, not to worlds"},
      {{"path", map, "--scen", map + ".scen", "--from", "1,0,1"}, "arena.map: give either --scen or --from/--to, not both"},
      {{"path", map, "--scen", map + ".scen", "--agent", "a"}, "arena.map: --agent applies to worlds, not to Moving AI maps"},
      {{"path", map, "--scen", map + ".scen", "--batch", "r.jsonl"}, "--batch applies to worlds"},
      {{"path", map, "--scen", map + ".scen", "--stream"}, "arena.map: --stream applies to worlds, not to Moving AI maps"},
      {{"query", tower, "nearest", "--at", "0,0,-25", "--profile", profile, "--tag", "level"},
       "--tag and --exclude-tag apply to ray, overlap and cast, not to nearest"},
      {{"query", tower, "field", "--at", "0,0,20", "--name", "from_road", "--max", "5", "--profile", profile},
       "--max applies to --origin only"},
      // Not a map option problem: the input is missing.
      {{"path", (dir / "nonexist.h5").string(), "--from", "0,0,0", "--to", "1,1,1"}, "nonexist.h5: no such file"},
      {{"path", tower, "--profile", profile, "--batch", (dir / "r.jsonl").string(), "-o", ""},
       "-o/--output: the output path names no file"},
  });
  CHECK_FALSE(std::filesystem::exists(dir / "b.h5"));
}

TEST_CASE("output that cannot be written is a runtime failure, not a success", "[cli][usage]") {
  // Text mode buffers its lines: a full disk or a closed descriptor surfaces only at the flush.
  const std::string map = (strata::test::sharedData() / "movingai" / "arena.map").string();
  const std::string strata = "'" + strata::test::strataBinary().string() + "'";
  const std::string scen = " path '" + map + "' --scen '" + map + ".scen'";
  // The summary (written at the end), a long JSON document (written while it runs: fmt throws
  // at the first failed write), and the help and version texts (CLI11 writes them).
  for (const std::string& command : {strata + scen, strata + scen + " --json", strata + " --help",
                                     strata + " path --help", strata + " -V"})
    for (const char* redirect : {" > /dev/full", " >&-"}) {
      INFO(command << redirect);
      const auto r = strata::test::runProgram({"/bin/sh", "-c", command + redirect});
      CHECK(r.exit_code == 1);
      CHECK_THAT(r.err, Catch::StartsWith("strata: error: standard output: "));
      CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
      // The cause named is the real one (the version line's failed write, which ends in endl,
      // came before the flush and was reported as "Input/output error").
      CHECK_THAT(r.err, Catch::EndsWith(std::string(redirect) == " > /dev/full" ? "No space left on device\n"
                                                                               : "Bad file descriptor\n"));
    }
}

TEST_CASE("a pipe closed early and the file-size limit are write errors: exit 1, one line, no temporary", "[cli][usage]") {
  // Both ended the process by a signal (SIGPIPE 141, SIGXFSZ 153) without a word, and the size
  // limit left a partial temporary beside the output.
  const std::string strata = "'" + strata::test::strataBinary().string() + "'";
  const std::string map = (strata::test::sharedData() / "movingai" / "8room_000.map").string();
  // More than a pipe's buffer of JSON (2,140 scenarios) into a reader that reads none.
  auto piped = strata::test::runProgram(
      {"/bin/bash", "-c", "set -o pipefail; " + strata + " path '" + map + "' --scen '" + map + ".scen' --json | true"});
  CHECK(piped.exit_code == 1);
  CHECK(piped.err == "strata: error: standard output: Broken pipe\n");
  strata::test::TempDir dir;
  const std::string out = (dir / "d.h5").string();
  const std::string mesh = (strata::test::sharedData() / "meshes" / "recast" / "dungeon.obj").string();
  auto limited = strata::test::runProgram({"/bin/sh", "-c", "ulimit -f 20; " + strata + " bake '" + mesh + "' -o '" + out + "'"});
  CHECK(limited.exit_code == 1);
  CHECK_THAT(limited.err, Catch::StartsWith("strata: error: " + out + ": ") && Catch::EndsWith("File too large)\n"));
  CHECK(std::count(limited.err.begin(), limited.err.end(), '\n') == 1);
  CHECK(std::filesystem::is_empty(dir.path()));  // neither the world nor a temporary
}

TEST_CASE("an answer that fits a pipe's buffer is written before a reader like head goes - exit 0", "[cli][usage]") {
  // stdio wrote 4 KiB at a time, so `strata path --help | head -1` (or a 17 KB route) failed with
  // "Broken pipe" about one time in two (an audit of scripted use): now one write up to 64 KiB.
  const std::string strata = "'" + strata::test::strataBinary().string() + "'";
  strata::test::TempDir dir;
  const std::string world = (dir / "t.h5").string();
  REQUIRE(strata::test::runStrata({"bake", (strata::test::sourceDir() / "samples" / "tower.obj").string(), "-o", world})
              .exit_code == 0);
  const std::string route = strata + " path '" + world + "' --from 0,0,25 --to 0,8,-4 --spacing 0.1";
  REQUIRE(strata::test::runProgram({"/bin/sh", "-c", route + " | wc -c"}).out.size() > 1);
  for (const std::string& command : {strata + " path --help", strata + " --help", route}) {
    INFO(command);
    int failed = 0;
    for (int i = 0; i < 20; ++i)
      failed += strata::test::runProgram({"/bin/bash", "-c", "set -o pipefail; " + command + " | head -1 > /dev/null"}).exit_code != 0;
    CHECK(failed == 0);
  }
}

TEST_CASE("an option given an empty value with '=' is refused - it took the next argument", "[cli][usage]") {
  // An audit: `--exclude-tag="$T" --json` with T empty made --json the tag (text out, exit 0).
  strata::test::TempDir dir;
  const std::string world = (dir / "t.h5").string();
  REQUIRE(strata::test::runStrata({"bake", (strata::test::sourceDir() / "samples" / "tower.obj").string(), "-o", world})
              .exit_code == 0);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"query", world, "--exclude-tag=", "--json", "ray", "--from", "0,20,0", "--dir", "0,-1,0"},
        std::vector<std::string>{"path", world, "--from", "0,0,25", "--to", "0,8,-4", "--agent=", "--json"}}) {
    INFO(args[0]);
    const auto r = strata::test::runStrata(args);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK_THAT(r.err, Catch::StartsWith("strata: error: --") &&
                          Catch::Contains("=: the value after '=' is empty; give one, or leave the option out (usage: strata ") &&
                          Catch::EndsWith(" --help)\n"));
  }
}

TEST_CASE("arguments after -- are no options of an unnamed kind", "[cli][usage]") {
  // An audit: "(--to is an option of '': give it after '')".
  strata::test::TempDir dir;
  const std::string world = (dir / "t.h5").string();
  REQUIRE(strata::test::runStrata({"bake", (strata::test::sourceDir() / "samples" / "tower.obj").string(), "-o", world})
              .exit_code == 0);
  const auto r = strata::test::runStrata({"path", world, "--from", "0,0,25", "--", "--to", "0,8,-4"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("unexpected arguments: --to 0,8,-4") && !Catch::Contains("''"));
}

TEST_CASE("a stderr that cannot be written changes neither the work nor the exit code", "[cli][usage]") {
  // fmt::print throws on a failed write: the error line of a bad input, thrown again inside the
  // handler, ended the process with SIGABRT (134), and a bake's warning threw its world away.
  strata::test::TempDir dir;
  const std::string strata = "'" + strata::test::strataBinary().string() + "'";
  const std::string tower = "'" + (strata::test::sourceDir() / "samples" / "tower.obj").string() + "'";
  {
    std::ofstream profile(dir / "warn.toml");
    profile << "[agent.a]\nradius = 0.3\n[[agent.a.areas]]\nlabel = \"lava*\"\narea = \"lava\"\ncost = 5\n";
  }
  for (const char* redirect : {" 2> /dev/full", " 2>&-"}) {
    INFO(redirect);
    auto r = strata::test::runProgram({"/bin/sh", "-c", strata + " info '" + (dir / "nonexist.h5").string() + "'" + redirect});
    CHECK(r.exit_code == 2);
    const std::string world = (dir / (std::string("w") + (redirect[3] == '/' ? "1" : "2") + ".h5")).string();
    // Without the redirect the same bake warns (no label matches 'lava*') on stderr.
    r = strata::test::runProgram({"/bin/sh", "-c", strata + " bake " + tower + " --profile '" + (dir / "warn.toml").string() +
                                                       "' -o '" + world + "'" + redirect});
    CHECK(r.exit_code == 0);
    CHECK(std::filesystem::exists(world));
  }
  const auto warned = strata::test::runStrata({"bake", (strata::test::sourceDir() / "samples" / "tower.obj").string(), "--profile",
                                               (dir / "warn.toml").string(), "-o", (dir / "w3.h5").string()});
  CHECK(warned.exit_code == 0);
  CHECK_THAT(warned.err, Catch::Contains("strata: warning: "));
}

TEST_CASE("the sandboxed import works for a process started with its standard descriptors closed", "[cli][usage]") {
  // From cron or a daemon: the importer's reply pipe took descriptors 0 and 1, and the child put
  // /dev/null over them, so every mesh input failed with "malformed reply ... no data".
  strata::test::TempDir dir;
  const std::string strata = "'" + strata::test::strataBinary().string() + "'";
  const std::string tower = "'" + (strata::test::sourceDir() / "samples" / "tower.obj").string() + "'";
  const auto r = strata::test::runProgram(
      {"/bin/sh", "-c", strata + " import " + tower + " -o '" + (dir / "a.h5").string() + "' <&- >&-"});
  CHECK(r.exit_code == 1);  // the summary line cannot be written: standard output is closed
  CHECK_THAT(r.err, Catch::Contains("standard output: Bad file descriptor"));
  REQUIRE(std::filesystem::exists(dir / "a.h5"));
  CHECK(strata::test::runStrata({"info", (dir / "a.h5").string()}).exit_code == 0);
}

TEST_CASE("usage errors: an empty or hexadecimal point is a bad value, not a missing option", "[cli][usage]") {
  const std::string tower = (strata::test::sourceDir() / "samples" / "tower.obj").string();
  const std::string profile = (strata::test::sourceDir() / "samples" / "tower.toml").string();
  checkRefused({
      {{"path", tower, "--profile", profile, "--from", "", "--to", "0,8,-4"}, "--from: expected X,Y,Z (three finite numbers), got ''"},
      {{"path", tower, "--profile", profile, "--from", "0,0,25", "--to", ""}, "--to: expected X,Y,Z (three finite numbers), got ''"},
      {{"path", tower, "--profile", profile, "--from", "0x1,0,25", "--to", "0,8,-4"}, "--from"},
      {{"query", tower, "ray", "--from", "0,0x10,0", "--dir", "0,-1,0"}, "--from: expected X,Y,Z"},
      // Usage errors found after parsing end with where the usage is, as CLI11's do.
      {{"path", tower, "--profile", profile, "--from", "0,0,25", "--to", "0,8,-4", "--threads", "2"},
       "--threads applies to --batch only (usage: strata path --help)"},
      {{"path", tower, "--profile", profile, "--from", "0,0,25", "--to", "0,8,-4", "--spacing", "0.01"},
       "--spacing: '0.01' is neither 0 (none) nor a finite number >= 0.05 (metres) (usage: strata path --help)"},
      {{"query", tower, "nearest", "--at", "1,2"}, "--at: expected X,Y,Z (three finite numbers), got '1,2' (usage: strata query WORLD nearest --help)"},
      {{"bake", tower, "-o", "y.h5", "--up", "w"}, "--up: 'w' is not one of: y, z (usage: strata bake --help)"},
      {{"import", tower, "-o", "y.h5", "--up", ""}, "--up: '' is not one of: y, z (usage: strata import --help)"},
  });
}

TEST_CASE("a message too long for one line is cut in the middle: what is wrong, at its end, stays", "[cli][usage]") {
  strata::test::TempDir dir;
  const auto profile = (dir.path() / "long.toml").string();
  std::ofstream(profile) << "[agent.a]\n" << std::string(5000, 'k') << " = 1\n";
  const auto r = runStrata({"bake", (std::filesystem::path(STRATA_SOURCE_DIR) / "samples" / "tower.obj").string(),
                            "--profile", profile, "-o", (dir.path() / "w.h5").string()});
  CHECK(r.exit_code == 2);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(r.err.size() < 2100);
  CHECK_THAT(r.err, Catch::StartsWith("strata: error: " + profile + ":2:1: agent.a.kkkk"));
  CHECK_THAT(r.err, Catch::Contains("kkk ... (cut) ... kkk"));
  CHECK_THAT(r.err, Catch::Contains(": unknown key"));
  CHECK_FALSE(std::filesystem::exists(dir.path() / "w.h5"));
}

TEST_CASE("--help and --version answer however often they are given (other flags may not repeat)", "[cli][usage]") {
  auto r = runStrata({"path", "--help", "--help"});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("Find routes"));
  r = runStrata({"-V", "-V"});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("strata "));
  // Before a subcommand --version is strata's and answers (after one it is refused, above).
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--version", "info", "x.h5"}, {"-V", "path", "t.map", "--from", "0,0"}}) {
    r = runStrata(args);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::StartsWith("strata "));
  }
}

TEST_CASE("numbers may have spaces around them, as each number of a point - other whitespace is refused", "[cli][usage]") {
  // --radius took ' 2' (strtod skips leading whitespace) while --threads refused it, and both
  // refused '2 ': now every number option reads ' 2 ' as 2, as --at reads ' 0, 0, 25 '.
  const std::string tower = (strata::test::sourceDir() / "samples" / "tower.obj").string();
  const std::string profile = (strata::test::sourceDir() / "samples" / "tower.toml").string();
  auto r = runStrata({"query", tower, "nearest", "--profile", profile, "--at", " 0, 0, 25 ", "--radius", " 2 ", "--json"});
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  r = runStrata({"path", tower, "--profile", profile, "--from", "0,0,25", "--to", "0,8,-4", "--budget", "400000 ", "--spacing", " 0 "});
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  checkRefused({
      {{"path", "x.h5", "--budget", "\t2"}, "--budget: '\t2' is not an integer >= 0"},
      {{"path", "x.h5", "--threads", "2\n"}, "is not an integer from 0 to 1024"},
      {{"query", "x.h5", "nearest", "--at", "0,0,0", "--radius", "\t2"}, "--radius: '\t2' is not a finite number >= 0"},
      {{"path", "x.h5", "--budget", " "}, "--budget: ' ' is not an integer >= 0"},
      {{"query", tower, "nearest", "--profile", profile, "--at", "0,0,\t25"}, "--at: expected X,Y,Z (three finite numbers), got '0,0,\\x0925'"},
      {{"path", tower, "--profile", profile, "--from", "0,\n0,25", "--to", "0,8,-4"}, "--from: expected X,Y,Z"},
  });
}

TEST_CASE("numbers are decimal: a leading zero is no octal prefix - and one too small for a double is refused", "[cli][usage]") {
  // Whole-number options were range-checked as decimal and then converted by CLI11, which reads a
  // leading 0 as octal (an audit): --budget 010 ran 8 expansions, 08 was "not a number", and
  // --width 0400 drew 256 pixels. 1e-400 read as 0, so --spacing 1e-400 meant none where a
  // spacing between 0 and 0.05 is an error (in batch requests too).
  strata::test::TempDir dir;
  const std::string tower = (strata::test::sourceDir() / "samples" / "tower.obj").string();
  const std::string profile = (strata::test::sourceDir() / "samples" / "tower.toml").string();
  const std::string world = (dir.path() / "tower.h5").string();
  REQUIRE(runStrata({"bake", tower, "--profile", profile, "-o", world}).exit_code == 0);
  for (const auto& [typed, expansions] : std::vector<std::pair<std::string, int>>{{"010", 10}, {"08", 8}, {"+12", 12}, {" 0009 ", 9}}) {
    INFO(typed);
    const auto r = runStrata({"path", world, "--from", "0,0,25", "--to", "0,0,-25", "--budget", typed, "--json"});
    CHECK(r.exit_code == 3);
    CHECK_THAT(r.out, Catch::Contains("\"reason\":\"BudgetExhausted\"") && Catch::Contains("\"expansions\":" + std::to_string(expansions) + ","));
  }
  const auto picture = runStrata({"render", world, "-o", (dir.path() / "w.png").string(), "--width", "0400"});
  CHECK(picture.exit_code == 0);
  CHECK_THAT(picture.out, Catch::Contains(": 400x"));
  checkRefused({
      {{"path", world, "--from", "0,0,25", "--to", "0,0,-25", "--spacing", "1e-400"},
       "--spacing: '1e-400' is too small to represent (it would read as 0)"},
      {{"path", world, "--from", "0,0,25", "--to", "0,0,-25", "--spacing", "1e-5"}, "--spacing: '1e-5' is neither 0 (none)"},
      {{"path", world, "--from", "1e-400,0,25", "--to", "0,0,-25"},
       "--from: expected X,Y,Z (three finite numbers), got '1e-400,0,25' ('1e-400' is too small to represent: it would read as 0)"},
      {{"path", world, "--from", "0,0,25", "--to", "0, -1e999 ,-25"},
       "--to: expected X,Y,Z (three finite numbers), got '0, -1e999 ,-25' ('-1e999' is too large to represent)"},
      {{"query", world, "height", "--at", "1e-400,0"},
       "--at: expected X,Z or X,Y,Z (finite numbers), got '1e-400,0' ('1e-400' is too small to represent: it would read as 0)"},
      {{"query", world, "overlap", "--sphere", "0,0,0,1e400"},
       "--sphere: expected CX,CY,CZ,R with R >= 0, got '0,0,0,1e400' ('1e400' is too large to represent)"},
      {{"render", world, "-o", (dir.path() / "r.png").string(), "--path", "0,0,1e-999:1,0,1"},
       "--path 0,0,1e-999:1,0,1: expected X,Y,Z:X,Y,Z ('1e-999' is too small to represent: it would read as 0)"},
      {{"path", world, "--from", "abc,0,25", "--to", "0,0,-25"}, "--from: expected X,Y,Z (three finite numbers), got 'abc,0,25' (usage:"},
      {{"path", world, "--from", "0,0,25", "--to", "0,0,-25", "--budget", "+-1"}, "--budget: '+-1' is not an integer >= 0"},
      {{"path", world, "--from", "0,0,25", "--to", "0,0,-25", "--budget", "0x10"}, "--budget: '0x10' is not an integer >= 0"},
  });
  {
    std::ofstream(dir.path() / "tiny.jsonl") << "{\"from\":[0,0,25],\"to\":[0,0,-25],\"id\":\"1e-400\",\"spacing\":0e-400}\n"
                                             << "{\"from\":[0,0,25],\"to\":[0,0,-25],\"spacing\":-1E-400}\n";
    const auto r = runStrata({"path", world, "--batch", (dir.path() / "tiny.jsonl").string()});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("tiny.jsonl:2: the number -1E-400 is too small to represent (it would read as 0)"));
    CHECK(r.out.empty());
  }
}

TEST_CASE("an option given no value says so - not that the next option's value is unexpected", "[cli][usage]") {
  // "--from --to 0,0,-25" said "unexpected arguments: 0,0,-25" (an audit).
  checkRefused({
      {{"path", "x.h5", "--from", "--to", "0,0,-25"}, "--from: a value is required, and the next word, '--to', is an option (usage: strata path --help)"},
      {{"path", "x.h5", "--to", "0,0,-25", "--from"}, "--from: a value is required, and nothing follows it"},
      {{"query", "x.h5", "los", "--from", "--to", "1,1,1"}, "--from: a value is required, and the next word, '--to', is an option"},
      {{"bake", "x.obj", "-o", "y.h5", "--threads"}, "--threads: a value is required, and nothing follows it"},
      // Short names too, and CLI11 takes an option word for a value: -o took "--threads" (the re-audit).
      {{"bake", "x.obj", "-o", "--threads", "1"}, "-o: a value is required, and the next word, '--threads', is an option"},
      {{"bake", "x.obj", "-o"}, "-o: a value is required, and nothing follows it"},
      // Not an option that took a flag for its value when the trouble is elsewhere: the agent
      // '--json' (its own message), the misspelt --thread offered --threads.
      {{"path", "x.h5", "--agent", "--json", "--from", "0,0,25", "--to", "0,0,-25", "--thread", "2"},
       "unexpected arguments: --thread 2 (did you mean --threads?)"},
      // A flag given a value it does not read said "'maybe' is not a number".
      {{"export", "x.h5", "-o", "y.glb", "--flat=maybe"}, "--flat: 'maybe' is not a value this flag takes (give --flat alone, or --flat=true or =false)"},
      {{"query", "x.h5", "nearest", "--at", "0,0,0", "--json=x"}, "--json: 'x' is not a value this flag takes"},
  });
}
