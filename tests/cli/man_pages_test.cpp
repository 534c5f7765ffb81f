// Every subcommand's --help and its man page agree: each long option the help lists appears in
// man/strata-<command>.1, and strata(1) names every subcommand. A new option without
// documentation fails here.

#include <catch2/catch.hpp>

#include <filesystem>
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

// The arguments of a roff macro line: words, or "quoted" strings ("" inside stands for a quote).
std::vector<std::string> macroArguments(const std::string& line) {
  std::vector<std::string> args;
  std::size_t at = line.find(' ');
  while (at != std::string::npos && at < line.size()) {
    at = line.find_first_not_of(' ', at);
    if (at == std::string::npos) break;
    std::size_t end = at + 1;
    if (line[at] == '"') {
      while (end < line.size() && !(line[end] == '"' && (end + 1 >= line.size() || line[end + 1] != '"'))) end += line[end] == '"' ? 2 : 1;
      ++end;
    } else {
      end = line.find(' ', at);
      if (end == std::string::npos) end = line.size();
    }
    args.push_back(line.substr(at, end - at));
    at = end;
  }
  return args;
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

// The alternating-font macros (.BR, .IR, .RB ...) join their arguments without spaces, so a
// sentence written after one (".RB ( answered_by ). The corridor method's route ...") prints as
// "Thecorridormethod's". Three unquoted words in a row (a word: starts with a letter, ends with a
// letter or an apostrophe) are such a sentence; "node N" (italic node, roman N) is two.
TEST_CASE("no man page runs a sentence's words together in an alternating-font macro", "[cli][docs]") {
  const auto isWord = [](const std::string& arg) {
    return !arg.empty() && arg[0] != '"' && std::isalpha(static_cast<unsigned char>(arg.front())) &&
           (std::isalpha(static_cast<unsigned char>(arg.back())) || arg.back() == '\'');
  };
  int pages = 0, macros = 0;
  for (const auto& entry : std::filesystem::directory_iterator(sourceDir() / "man")) {
    if (entry.path().extension() != ".1") continue;
    ++pages;
    std::istringstream in(strata::test::readFile(entry.path()));
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      static const std::set<std::string> alternating = {".BR", ".RB", ".IR", ".RI", ".BI", ".IB"};
      if (line.size() < 3 || !alternating.count(line.substr(0, 3))) continue;
      ++macros;
      const std::vector<std::string> args = macroArguments(line);
      int run = 0;
      for (const std::string& arg : args) {
        run = isWord(arg) ? run + 1 : 0;
        INFO(entry.path().filename().string() << ":" << number << ": " << line);
        CHECK(run < 3);
      }
    }
  }
  CHECK(pages >= 8);
  CHECK(macros > 100);
}
