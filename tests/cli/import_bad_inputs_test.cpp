// Black-box: every entry of bad-inputs/EXPECTED.tsv through `strata import`.
// reject: exit 2, exactly one stderr line "strata: error: ..." naming the file, no output file,
// under 10 s. accept: exit 0 and a world file. either: one of the two, cleanly.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "test_support.h"

using namespace strata::test;

namespace {

std::vector<std::pair<std::string, std::string>> readExpectations() {
  std::ifstream in(sharedData() / "bad-inputs" / "EXPECTED.tsv");
  std::vector<std::pair<std::string, std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string path, expect;
    std::getline(fields, path, '\t');
    std::getline(fields, expect, '\t');
    rows.emplace_back(path, expect);
  }
  return rows;
}

std::size_t lineCount(const std::string& text) {
  std::size_t lines = 0;
  for (char c : text) lines += c == '\n';
  return lines;
}

}  // namespace

TEST_CASE("strata import: every bad-inputs/EXPECTED.tsv entry gets its exit code and message", "[cli][import][bad-inputs]") {
  const auto rows = readExpectations();
  REQUIRE(rows.size() >= 90);
  TempDir dir;
  int index = 0;
  for (const auto& [relative, expect] : rows) {
    const auto input = sharedData() / "bad-inputs" / relative;
    const auto output = dir / ("world" + std::to_string(index++) + ".h5");
    const RunResult run = runStrata({"import", input.string(), "-o", output.string()}, 30);
    INFO(relative << " (" << expect << "): exit " << run.exit_code << ", stderr: " << run.err);
    CHECK(run.seconds < 10.0);
    if (expect == "accept" || (expect == "either" && run.exit_code == 0)) {
      CHECK(run.exit_code == 0);
      CHECK(std::filesystem::exists(output));
      continue;
    }
    CHECK(run.exit_code == 2);
    CHECK_FALSE(std::filesystem::exists(output));
    CHECK(run.out.empty());
    // One line, "strata: error: <path as given>: <problem>".
    CHECK(lineCount(run.err) == 1);
    CHECK(run.err.rfind("strata: error: " + input.string() + ": ", 0) == 0);
    // No stray temporary files either.
    for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
      CHECK(entry.path().filename().string().rfind("world" + std::to_string(index - 1) + ".h5", 0) != 0);
  }
}
