// Black-box tests of `strata query WORLD --batch`: every kind answered as the same query on the
// command line answers it, refused requests named and the others answered, the same bytes at any
// thread count.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.h"

using strata::test::runStrata;
using strata::test::sourceDir;
using Json = nlohmann::json;

namespace {

// The tower sample baked once into `dir`.
std::string bakeTower(const strata::test::TempDir& dir) {
  const std::string world = (dir / "tower.h5").string();
  const auto bake = runStrata({"bake", (sourceDir() / "samples" / "tower.obj").string(), "--profile",
                               (sourceDir() / "samples" / "tower.toml").string(), "-o", world});
  REQUIRE(bake.exit_code == 0);
  return world;
}

std::vector<Json> resultLines(const std::string& text) {
  std::istringstream lines(text);
  std::vector<Json> results;
  for (std::string line; std::getline(lines, line);) results.push_back(Json::parse(line));
  return results;
}

// One query of each kind, as a batch member list and as the command line's words.
struct Asked {
  std::string request;              // the JSON line
  std::vector<std::string> words;   // the same query: KIND --option value ...
};

}  // namespace

TEST_CASE("strata query --batch: each answer is the document of the same query run alone", "[cli][query][batch]") {
  strata::test::TempDir dir;
  const std::string world = bakeTower(dir);
  // Every kind, positive and negative answers, flags, defaults left out and given, the agent named.
  const std::vector<Asked> asked = {
      {R"({"kind":"ray","from":[0,20,-4],"dir":[0,-1,0],"all":true})", {"ray", "--from", "0,20,-4", "--dir", "0,-1,0", "--all"}},
      {R"({"kind":"ray","from":[0,20,-4],"dir":[0,1,0]})", {"ray", "--from", "0,20,-4", "--dir", "0,1,0"}},
      {R"({"kind":"ray","from":[0,3.9,-4],"dir":[0,1,0],"front_only":true})",
       {"ray", "--from", "0,3.9,-4", "--dir", "0,1,0", "--front-only"}},
      {R"({"kind":"overlap","box":[0,1,-4,0.5,1,0.5],"yaw":30})", {"overlap", "--box", "0,1,-4,0.5,1,0.5", "--yaw", "30"}},
      {R"({"kind":"cast","capsule":[0.3,1.8],"from":[0,6,-4],"to":[0,-2,-4]})",
       {"cast", "--capsule", "0.3,1.8", "--from", "0,6,-4", "--to", "0,-2,-4"}},
      {R"({"kind":"cast","sphere":0.25,"from":[0,2,-30],"to":[0,2,-29]})",
       {"cast", "--sphere", "0.25", "--from", "0,2,-30", "--to", "0,2,-29"}},
      {R"({"kind":"height","at":[0,-4]})", {"height", "--at", "0,-4"}},
      {R"({"kind":"height","at":[100,100]})", {"height", "--at", "100,100"}},
      {R"({"kind":"nearest","at":[0,7,-4],"agent":"human"})", {"nearest", "--at", "0,7,-4", "--agent", "human"}},
      {R"({"kind":"nearest","at":[0.15,-3,-24.75],"radius":1})", {"nearest", "--at", "0.15,-3,-24.75", "--radius", "1"}},
      {R"({"kind":"los","from":[0,0,25],"to":[0,0,20]})", {"los", "--from", "0,0,25", "--to", "0,0,20"}},
      {R"({"kind":"los","from":[0,0,-25],"to":[0,8,-4]})", {"los", "--from", "0,0,-25", "--to", "0,8,-4"}},
      {R"({"kind":"sight","from":[0,0,25],"to":[0,0,-25],"eye":1.2})", {"sight", "--from", "0,0,25", "--to", "0,0,-25", "--eye", "1.2"}},
      {R"({"kind":"field","at":[0,8,-4],"name":"from_road"})", {"field", "--at", "0,8,-4", "--name", "from_road"}},
      {R"({"kind":"field","at":[0,0,20],"origin":[0,0,25],"max":2})", {"field", "--at", "0,0,20", "--origin", "0,0,25", "--max", "2"}},
      {R"({"kind":"component","at":[0,0,25],"to":[0,8,-4]})", {"component", "--at", "0,0,25", "--to", "0,8,-4"}},
      {R"({"kind":"clearance","at":[0,0,25]})", {"clearance", "--at", "0,0,25"}},
  };
  {
    std::ofstream in(dir / "requests.jsonl");
    for (std::size_t i = 0; i < asked.size(); ++i) {
      if (i == 3) in << "  \n";  // a blank line: skipped, but counted
      in << asked[i].request << "\n";
    }
  }
  const auto batch = runStrata({"query", world, "--batch", (dir / "requests.jsonl").string()});
  INFO(batch.err);
  const auto results = resultLines(batch.out);
  REQUIRE(results.size() == asked.size());
  bool negative = false;
  for (std::size_t i = 0; i < asked.size(); ++i) {
    std::vector<std::string> args{"query", world, "--json"};
    args.insert(args.end(), asked[i].words.begin(), asked[i].words.end());
    const auto alone = runStrata(args);
    INFO(asked[i].request);
    INFO(alone.err);
    REQUIRE((alone.exit_code == 0 || alone.exit_code == 3));
    negative = negative || alone.exit_code == 3;
    Json expected = Json::parse(alone.out);
    Json got = results[i];
    CHECK(got["line"] == (i < 3 ? i + 1 : i + 2));
    got.erase("line");
    CHECK(got == expected);
  }
  // Some answers are negative (a miss, no floor, a blocked line), none refused: exit 3.
  CHECK(negative);
  CHECK(batch.exit_code == 3);
  CHECK(batch.err.empty());
}

TEST_CASE("strata query --batch: refused requests get an error line, the others an answer", "[cli][query][batch]") {
  strata::test::TempDir dir;
  const std::string world = bakeTower(dir);
  const std::vector<std::pair<std::string, std::string>> refused = {
      {R"({"kind":"heigth","at":[0,-4],"id":"typo"})", "unknown kind \"heigth\""},
      {R"({"at":[0,-4]})", "a request needs \"kind\""},
      {R"({"kind":"height","att":[0,-4]})", "unknown member \"att\" (a height request has kind, id, agent, profile, at)"},
      {R"({"kind":"height"})", "height: --at is required"},
      {R"({"kind":"nearest","at":[0,0]})", "nearest: --at: expected X,Y,Z (three finite numbers), got '0,0'"},
      {R"({"kind":"ray","from":[0,1,0],"dir":[0,0,0]})", "ray: --dir: expected a non-zero X,Y,Z direction"},
      {R"({"kind":"ray","from":[0,1,0],"dir":[0,-1,0],"all":1})", "\"all\" must be true or false"},
      {R"({"kind":"nearest","at":{"x":1}})", "\"at\" must be an array of numbers (X,Y,Z)"},
      {R"({"kind":"nearest","at":[0,0,0],"radius":-1})", "nearest: --radius"},
      {R"({"kind":"height","at":[0,-4],"agent":"nobody"})", "no agent 'nobody'"},
      {R"({"kind":"height","at":[0,-4],"id":1.5})", "\"id\" must be a string or an integer"},
      {R"({"kind":"height","at":[0,-4]} x)", "not valid JSON"},
      {R"({"kind":"height","at":[0,-4],"kind":"los"})", "member \"kind\" given twice"},
      // One option spelt both ways is one member given twice; an empty name is named as such;
      // a kind's own message names the kind once.
      {R"({"kind":"ray","from":[0,20,-4],"dir":[0,-1,0],"front-only":false,"front_only":true})",
       "member \"front-only\" given twice (as \"front-only\" and \"front_only\")"},
      {R"({"kind":"height","at":[0,-4],"agent":""})", "height: --agent: an agent name cannot be empty"},
      {R"({"kind":"field","at":[0,0,-4]})", ": field: give either --name NAME or --origin X,Y,Z"},
      {R"({"kind":"overlap"})", ": overlap: give one of --box, --sphere or --capsule"},
      // Each member of its option's JSON type, as in a path batch: a list an array of numbers, a
      // number a number, a name a string (an audit: "agent": 5 was the agent "5", "max": [13]
      // was 13 and "at": "0,-4" a point).
      {R"({"kind":"height","at":[0,-4],"agent":5})", "\"agent\" must be a string"},
      {R"({"kind":"ray","from":[0,20,-4],"dir":[0,-1,0],"max":[13]})", "\"max\" must be a number"},
      {R"({"kind":"ray","from":[0,20,-4],"dir":[0,-1,0],"max":"13"})", "\"max\" must be a number"},
      {R"({"kind":"height","at":"0,-4"})", "\"at\" must be an array of numbers (X,Z)"},
      {R"({"kind":"cast","capsule":[0.3,"1.8"],"from":[0,6,-4],"to":[0,-2,-4]})", "\"capsule\" must be an array of numbers (R,H)"},
      {R"({"kind":"ray","from":[],"dir":[0,-1,0]})", "\"from\" must be an array of numbers (X,Y,Z)"},
      {R"({"kind":"field","at":[0,8,-4],"name":["from_road"]})", "\"name\" must be a string"},
  };
  std::string text = R"({"kind":"height","at":[0,-4],"id":"first"})" "\n";
  for (const auto& [line, message] : refused) text += line + "\n";
  text += R"({"kind":"component","at":[0,0,25],"to":[0,8,-4],"id":"last"})" "\n";
  {
    std::ofstream in(dir / "mixed.jsonl");
    in << text;
  }
  const auto r = runStrata({"query", world, "--batch", (dir / "mixed.jsonl").string(), "-o", (dir / "out.jsonl").string()});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  const auto results = resultLines(strata::test::readFile(dir / "out.jsonl"));
  REQUIRE(results.size() == refused.size() + 2);
  CHECK(results.front()["id"] == "first");
  CHECK(results.front()["layers"].size() == 3);
  CHECK(results.back()["id"] == "last");
  CHECK(results.back()["reachable"] == true);
  for (std::size_t i = 0; i < refused.size(); ++i) {
    const Json& got = results[i + 1];
    INFO(refused[i].first);
    INFO(got.dump());
    CHECK(got["line"] == i + 2);
    REQUIRE(got.contains("error"));
    CHECK_FALSE(got.contains("kind"));
    const std::string error = got["error"].get<std::string>();
    CHECK_THAT(error, Catch::StartsWith("mixed.jsonl:" + std::to_string(i + 2) + ": ") ||
                          Catch::StartsWith((dir / "mixed.jsonl").string() + ":" + std::to_string(i + 2) + ": "));
    CHECK_THAT(error, Catch::Contains(refused[i].second));
    // Each refusal is also said on stderr, in order.
    CHECK_THAT(r.err, Catch::Contains(error));
  }
  CHECK(results[1]["id"] == "typo");  // the id of a refused request, echoed
  CHECK_FALSE(results[11].contains("id"));  // (an "id" that is no string or integer is not)
}

TEST_CASE("strata query --batch: the same bytes on 1 and 2 threads, exit 0 when every answer is positive", "[cli][query][batch]") {
  strata::test::TempDir dir;
  const std::string world = bakeTower(dir);
  {
    // Many requests, so that each block is shared among the workers.
    std::ofstream in(dir / "many.jsonl");
    for (int i = 0; i < 3000; ++i) {
      const double x = -9.75 + 0.3 * (i % 66), z = -24.75 + 0.3 * (i / 66 % 166);
      switch (i % 4) {
        case 0: in << R"({"kind":"height","at":[)" << x << "," << z << "]}\n"; break;
        case 1: in << R"({"kind":"nearest","at":[)" << x << ",9," << z << "],\"id\":" << i << "}\n"; break;
        case 2: in << R"({"kind":"los","from":[)" << x << ",0," << z << "],\"to\":[0,0,25]}\n"; break;
        default: in << R"({"kind":"ray","from":[)" << x << ",20," << z << "],\"dir\":[0,-1,0]}\n"; break;
      }
    }
  }
  const auto one = runStrata({"query", world, "--batch", (dir / "many.jsonl").string(), "-o", (dir / "one.jsonl").string(), "--threads", "1"});
  const auto two = runStrata({"query", world, "--batch", (dir / "many.jsonl").string(), "-o", (dir / "two.jsonl").string(), "--threads", "2"});
  CHECK(one.exit_code == two.exit_code);
  CHECK(strata::test::sameBytes(dir / "one.jsonl", dir / "two.jsonl"));
  const auto results = resultLines(strata::test::readFile(dir / "one.jsonl"));
  REQUIRE(results.size() == 3000);
  for (std::size_t i = 0; i < results.size(); i += 97) CHECK(results[i]["line"] == i + 1);

  // Only positive answers: exit 0, from standard input too.
  {
    std::ofstream in(dir / "yes.jsonl");
    in << R"({"kind":"height","at":[0,-4]})" << "\n" << R"({"kind":"ray","from":[0,20,-4],"dir":[0,-1,0]})" << "\n";
  }
  const auto yes = runStrata({"query", world, "--batch", (dir / "yes.jsonl").string()});
  CHECK(yes.exit_code == 0);
  CHECK(resultLines(yes.out).size() == 2);
}

TEST_CASE("strata query --batch: tag filters per request, the batch's for the others", "[cli][query][batch]") {
  strata::test::TempDir dir;
  const std::string world = bakeTower(dir);
  // Straight down through the roof (8 m) onto the road (0 m): the batch's --tag keeps the roof,
  // a request's own "tag" or "exclude_tag" replaces the batch's option of that name.
  const std::string down = R"("kind":"ray","from":[0,20,-4],"dir":[0,-1,0],"all":true)";
  {
    std::ofstream in(dir / "tags.jsonl");
    in << "{" << down << "}\n"
       << "{" << down << R"(,"tag":"tower/road"})" << "\n"
       << "{" << down << R"(,"tag":["tower/road","tower/roof"],"exclude_tag":"tower/roof"})" << "\n"
       << "{" << down << R"(,"tag":"tower/nothing"})" << "\n"
       << R"({"kind":"height","at":[0,-4]})" << "\n"
       << R"({"kind":"height","at":[0,-4],"tag":"tower/road"})" << "\n"
       << "{" << down << R"(,"exclude_tag":[]})" << "\n";
  }
  const auto r = runStrata({"query", world, "--batch", (dir / "tags.jsonl").string(), "--tag", "tower/roof"});
  INFO(r.err);
  CHECK(r.exit_code == 2);
  const auto results = resultLines(r.out);
  REQUIRE(results.size() == 7);
  const auto tags = [](const Json& result) {  // of the hits, each once
    std::set<std::string> seen;
    for (const Json& hit : result["hits"]) seen.insert(hit["tag"].get<std::string>());
    return seen;
  };
  CHECK(tags(results[0]) == std::set<std::string>{"tower/roof"});
  CHECK(tags(results[1]) == std::set<std::string>{"tower/road"});
  CHECK(tags(results[2]) == std::set<std::string>{"tower/road"});
  CHECK(results[3]["hit"] == false);
  CHECK_THAT(r.err, Catch::Contains("tags.jsonl:4: --tag tower/nothing: no such tag (it matches nothing)"));
  // Each is the answer of the same query alone with those options.
  const auto alone = runStrata({"query", world, "ray", "--from", "0,20,-4", "--dir", "0,-1,0", "--all", "--tag", "tower/road",
                                "--tag", "tower/roof", "--exclude-tag", "tower/roof", "--json"});
  Json third = results[2];
  third.erase("line");
  CHECK(third == Json::parse(alone.out));
  // The batch's --tag does not concern a navigation request; a request's own tag is refused, as
  // --tag is with a navigation kind on the command line.
  CHECK(results[4]["layers"].size() == 3);
  CHECK_THAT(results[5]["error"].get<std::string>(), Catch::Contains("height: --tag and --exclude-tag apply to ray, overlap and cast"));
  CHECK_THAT(results[6]["error"].get<std::string>(), Catch::Contains("\"exclude_tag\" must be a tag name or an array of tag names"));
}

TEST_CASE("strata query --batch: usage errors and defaults given before the kind", "[cli][query][batch]") {
  strata::test::TempDir dir;
  const std::string world = bakeTower(dir);
  {
    std::ofstream in(dir / "one.jsonl");
    in << R"({"kind":"height","at":[0,-4]})" << "\n";
  }
  const std::string requests = (dir / "one.jsonl").string();
  // A kind and a batch, or batch options without a batch: refused before any work.
  auto r = runStrata({"query", world, "height", "--at", "0,-4", "--batch", requests});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("give either a KIND or --batch"));
  r = runStrata({"query", world, "height", "--at", "0,-4", "--threads", "2"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--threads applies to --batch only"));
  r = runStrata({"query", world, "-o", (dir / "x.jsonl").string(), "height", "--at", "0,-4"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("-o/--output applies to --batch only"));
  // An agent the world lacks refuses the requests that need it; the others are answered.
  {
    std::ofstream in(dir / "two.jsonl");
    in << R"({"kind":"ray","from":[0,20,-4],"dir":[0,-1,0]})" << "\n" << R"({"kind":"height","at":[0,-4]})" << "\n";
  }
  r = runStrata({"query", world, "--batch", (dir / "two.jsonl").string(), "--agent", "nobody", "-o", (dir / "out.jsonl").string()});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("two.jsonl:2: height: ") && Catch::Contains("no agent 'nobody'"));
  const auto answered = resultLines(strata::test::readFile(dir / "out.jsonl"));
  REQUIRE(answered.size() == 2);
  CHECK(answered[0]["hit"] == true);
  CHECK(answered[1].contains("error"));
  // A world error, and a --profile with a world file, are said once, before any request.
  r = runStrata({"query", (dir / "one.jsonl").string(), "--batch", requests});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  // A binary file given as the requests: one line, not an error per "line" of it.
  r = runStrata({"query", world, "--batch", world});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "strata: error: " + world + ": not a JSON-lines text file (line 1, byte 1: 0x89, a byte no JSON text holds)\n");
  r = runStrata({"query", world, "--batch", requests, "--profile", (sourceDir() / "samples" / "tower.toml").string()});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--profile applies to mesh inputs only"));
  // A results file that is an input is refused.
  r = runStrata({"query", world, "--batch", requests, "-o", requests});
  CHECK(r.exit_code == 2);
  CHECK(strata::test::readFile(dir / "one.jsonl") == "{\"kind\":\"height\",\"at\":[0,-4]}\n");
  // An empty batch warns.
  {
    std::ofstream in(dir / "empty.jsonl");
  }
  r = runStrata({"query", world, "--batch", (dir / "empty.jsonl").string()});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Contains("no requests"));

  // --agent and --profile before the kind: the agent (and for a mesh, the profile) of a
  // navigation kind that names none, alone and in a batch.
  const std::string mesh = (sourceDir() / "samples" / "tower.obj").string();
  const std::string profile = (sourceDir() / "samples" / "tower.toml").string();
  r = runStrata({"query", mesh, "--profile", profile, "--agent", "human", "--json", "height", "--at", "0,-4"});
  REQUIRE(r.exit_code == 0);
  CHECK(Json::parse(r.out)["layers"].size() == 3);
  r = runStrata({"query", mesh, "--profile", profile, "--batch", requests});
  REQUIRE(r.exit_code == 0);
  CHECK(resultLines(r.out).at(0)["layers"].size() == 3);
}

TEST_CASE("strata query --batch - --stream: each request is answered while the input is still open", "[cli][query][batch]") {
  strata::test::TempDir dir;
  const std::string world = bakeTower(dir);
  strata::test::CoProcess co({"query", world, "--batch", "-", "--stream", "--threads", "2"});
  // One request, and its result before anything more is written.
  co.write(R"({"kind":"height","at":[0,-4],"id":"a"})" "\n");
  const auto first = co.readLine();
  REQUIRE(first);
  const Json one = Json::parse(*first);
  CHECK(one["line"] == 1);
  CHECK(one["id"] == "a");
  CHECK(one["layers"].size() == 3);
  // A refused line gets its error result at once, and the stream goes on.
  co.write(R"({"kind":"height","id":7,"bogus":1})" "\n");
  const auto second = co.readLine();
  REQUIRE(second);
  CHECK(Json::parse(*second)["id"] == 7);
  CHECK_THAT(Json::parse(*second)["error"].get<std::string>(), Catch::StartsWith("<stdin>:2: unknown member \"bogus\""));
  // Two lines at once, then half of one: the whole lines are answered, the half waits.
  co.write(R"({"kind":"los","from":[0,0,25],"to":[0,0,20]})" "\n" R"({"kind":"ray","from":[0,20,-4],"dir":[0,-1,0]})" "\n"
           R"({"kind":"clearance",)");
  const auto los = co.readLine();
  const auto ray = co.readLine();
  REQUIRE(los);
  REQUIRE(ray);
  CHECK(Json::parse(*los)["clear"] == true);
  CHECK(Json::parse(*ray)["line"] == 4);
  CHECK_FALSE(co.readLine(0.5));
  co.write(R"("at":[0,0,25]})" "\n");
  const auto half = co.readLine();
  REQUIRE(half);
  CHECK(Json::parse(*half)["line"] == 5);
  CHECK(Json::parse(*half)["found"] == true);
  const auto end = co.finish();
  CHECK(end.exit_code == 2);  // one request was refused
  CHECK(end.out.empty());

  // Not with -o, and not without --batch.
  auto r = runStrata({"query", world, "--batch", "-", "--stream", "-o", (dir / "x.jsonl").string()});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("not with -o"));
  r = runStrata({"query", world, "--stream", "height", "--at", "0,-4"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--stream applies to --batch only"));
}
