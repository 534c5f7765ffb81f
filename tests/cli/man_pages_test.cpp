// Every subcommand's --help and its man page agree: each long option the help lists appears in
// man/strata-<command>.1, and strata(1) names every subcommand. A new option without
// documentation fails here.

#include <catch2/catch.hpp>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.h"

namespace {

using strata::test::runStrata;
using strata::test::sourceDir;

// The names listed under "Subcommands:" in a help text.
std::vector<std::string> subcommands(const std::string& help) {
  std::vector<std::string> names;
  std::istringstream in(help);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.rfind("Subcommands:", 0) == 0) {
      inside = true;
      continue;
    }
    if (!inside || line.size() < 3 || line[0] != ' ' || line[1] != ' ' || line[2] == ' ') continue;
    names.push_back(line.substr(2, line.find(' ', 2) - 2));
  }
  return names;
}

// The long options (--name) of the option lines of a help text (lines starting with blanks and a dash).
std::set<std::string> longOptions(const std::string& help) {
  std::set<std::string> options;
  std::istringstream in(help);
  std::string line;
  while (std::getline(in, line)) {
    const auto first = line.find_first_not_of(' ');
    if (first == std::string::npos || first == 0 || line[first] != '-') continue;
    // Only the option column: names end at the first blank after the names.
    const std::string names = line.substr(first, line.find(' ', first) - first);
    for (std::size_t at = names.find("--"); at != std::string::npos; at = names.find("--", at + 2)) {
      std::size_t end = at + 2;
      while (end < names.size() && (std::isalnum(static_cast<unsigned char>(names[end])) || names[end] == '-')) ++end;
      if (end > at + 2) options.insert(names.substr(at, end - at));
    }
  }
  options.erase("--help");
  return options;
}

std::string roffEscaped(const std::string& text) {
  std::string out;
  for (char ch : text) out += ch == '-' ? std::string("\\-") : std::string(1, ch);
  return out;
}

}  // namespace

TEST_CASE("every subcommand's options are in its man page, and strata(1) names every subcommand", "[cli][docs]") {
  auto top = runStrata({"--help"});
  REQUIRE(top.exit_code == 0);
  const std::vector<std::string> commands = subcommands(top.out);
  REQUIRE(commands.size() >= 7);
  const std::string main_page = strata::test::readFile(sourceDir() / "man" / "strata.1");
  for (const std::string& command : commands) {
    INFO("strata " << command);
    CHECK_THAT(main_page, Catch::Contains("strata\\-" + command) || Catch::Contains("strata-" + command + " (1)"));
    auto help = runStrata({command, "--help"});
    REQUIRE(help.exit_code == 0);
    std::set<std::string> options = longOptions(help.out);
    for (const std::string& sub : subcommands(help.out)) {  // strata query WORLD ray|overlap|...
      // The kind follows the world ('strata query ray --help' is query's own help, ray taken for
      // the world), and its usage line says so.
      auto sub_help = runStrata({command, "world.h5", sub, "--help"});
      REQUIRE(sub_help.exit_code == 0);
      CHECK_THAT(sub_help.out, Catch::Contains("Usage: strata " + command + " [OPTIONS] WORLD " + sub + " "));
      const std::set<std::string> more = longOptions(sub_help.out);
      options.insert(more.begin(), more.end());
    }
    CHECK_FALSE(options.empty());
    const std::string page = strata::test::readFile(sourceDir() / "man" / ("strata-" + command + ".1"));
    for (const std::string& option : options) {
      INFO(option);
      CHECK_THAT(page, Catch::Contains(roffEscaped(option)));
    }
  }
}
