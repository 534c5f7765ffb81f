// ctest runs each Catch2 test case by name (catch_discover_tests). A name with a semicolon is
// split by CMake's list rules into two ctest entries that match no test case and pass without
// running anything: eleven test cases went unrun that way until this check. Every test source's
// TEST_CASE names are read here and must not contain one.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "test_support.h"

TEST_CASE("test case names have no semicolon (ctest would split them and run nothing)", "[cli][docs]") {
  const std::string marker = std::string("TEST_CASE") + "(\"";
  int sources = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(strata::test::sourceDir() / "tests")) {
    if (entry.path().extension() != ".cpp") continue;
    ++sources;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string s = text.str();
    for (std::size_t at = s.find(marker); at != std::string::npos; at = s.find(marker, at + 1)) {
      const std::size_t begin = at + marker.size();
      const std::size_t end = s.find('"', begin);
      REQUIRE(end != std::string::npos);
      const std::string name = s.substr(begin, end - begin);
      INFO(entry.path().filename().string() << ": " << name);
      CHECK(name.find(';') == std::string::npos);
    }
  }
  CHECK(sources > 20);
}
