// Usage errors (CLI11's parse errors) are one line on stderr naming the option, the value typed
// and what is allowed, with exit code 2, like every other bad input.

#include <catch2/catch.hpp>

#include <algorithm>

#include "test_support.h"

using strata::test::runStrata;

TEST_CASE("usage errors: one line naming the option, the value and the allowed range", "[cli][usage]") {
  struct Case {
    std::vector<std::string> args;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {{"bake", "x.obj", "-o", "y.h5", "--scale", "0"}, "--scale: '0' is not a number > 0 (usage: strata bake --help)"},
      {{"bake", "x.obj", "-o", "y.h5", "--scale", "nan"}, "--scale: 'nan' is not a number > 0"},
      {{"bake", "x.obj", "-o", "y.h5", "--threads", "abc"}, "--threads: 'abc' is not an integer from 0 to 1024"},
      {{"bake", "x.obj", "-o", "y.h5", "--threads", "2.5"}, "--threads: '2.5' is not an integer from 0 to 1024"},
      {{"import", "x.obj", "-o", "y.h5", "--timeout", "1e9"}, "--timeout: '1e9' is not a number > 0 and <= 86400"},
      {{"import", "x.obj", "-o", "y.h5", "--memory-limit", "9"}, "--memory-limit: '9' is not an integer from 64 to 1073741824"},
      {{"path", "x.h5", "--threads", "abc"}, "--threads: 'abc' is not a number (usage: strata path --help)"},
      {{"bake"}, "INPUT is required (usage: strata bake --help)"},
      {{"bak"}, "unknown subcommand 'bak' (did you mean 'bake'?) (usage: strata --help)"},
  };
  for (const Case& c : cases) {
    INFO(c.expected);
    const auto r = runStrata(c.args);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::StartsWith("strata: error: ") && Catch::Contains(c.expected));
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.err.size() < 200);  // no 300-digit bound
  }
}
