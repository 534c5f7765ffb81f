#pragma once
/// \file
/// Moving AI Lab grid benchmarks (Sturtevant, "Benchmarks for Grid-Based Pathfinding", IEEE
/// TCIAIG 2012): `.map` files ("type octile") and `.scen` scenario files, and a Grid over a map.
///
/// Map rules: '.', 'G' and 'S' are passable; '@', 'O', 'T' and 'W' are blocked. Moves are
/// 8-connected, diagonal cost sqrt 2, and a diagonal move needs both orthogonal neighbours
/// passable (no corner cutting), which is what the scenario lengths assume.

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "strata/nav/grid.h"
#include "strata/sim/result.h"

namespace strata::nav {

/// A parsed `.map` file. Row y of the file is z = y on the grid; column x is x.
struct MovingAiMap {
  int width = 0;                       ///< columns
  int height = 0;                      ///< rows
  std::vector<std::uint8_t> passable;  ///< row-major (y * width + x); 1 = passable
};

/// One `.scen` line.
struct MovingAiScenario {
  int bucket = 0;          ///< difficulty bucket
  std::string map;         ///< map name as written in the file
  int map_width = 0;       ///< map width the scenario was made for
  int map_height = 0;      ///< map height the scenario was made for
  int start_x = 0;         ///< start column
  int start_y = 0;         ///< start row
  int goal_x = 0;          ///< goal column
  int goal_y = 0;          ///< goal row
  double optimal = 0;      ///< optimal length (cardinal 1, diagonal sqrt 2)
  int line = 0;            ///< 1-based line number in the file
};

/// True when `text` starts like a Moving AI map: "type octile" on its first line (another type
/// is no map; parseMovingAiMap names it).
bool looksLikeMovingAiMap(std::string_view text);
/// The cells a map declares (width x height) when `head`, the start of its text, holds a valid
/// header up to 'map'; 0 otherwise (parseMovingAiMap then says what is wrong). For a check of
/// the memory a map needs before its rows are read.
std::int64_t movingAiDeclaredCells(std::string_view head);
/// Parses map text; errors read "<name>:<line>: <problem>".
Result<MovingAiMap> parseMovingAiMap(std::string_view text, const std::string& name);
/// Reads and parses a `.map` file.
Result<MovingAiMap> loadMovingAiMap(const std::filesystem::path& path);
/// The text of a map read from a stream once (a pipe or a device): `head`, already read, then
/// the rest of `in`, refused past the size a map file may have (6 GiB) as loadMovingAiMap
/// refuses it; errors name `name`.
Result<std::string> readMovingAiMapRest(std::istream& in, const std::string& name, std::string head);
/// Parses scenario text ("version 1" or "version 1.0", then 9 tab-separated fields per line;
/// blank lines are skipped); errors read "<name>:<line>: <problem>".
Result<std::vector<MovingAiScenario>> parseMovingAiScenarios(std::string_view text, const std::string& name);
/// Reads and parses a `.scen` file.
Result<std::vector<MovingAiScenario>> loadMovingAiScenarios(const std::filesystem::path& path);
/// Checks every scenario against the map (size, endpoints on passable cells); errors read
/// "<name>:<line>: <problem>".
Status checkScenarios(const MovingAiMap& map, const std::vector<MovingAiScenario>& scenarios, const std::string& name);
/// The first scenario naming a map other than `map_file` (field 2 and map_file compared by their
/// last path component, after '/' or '\\'), or nullptr: a renamed copy of the map, or the wrong
/// map of the same size, whose scenarios would run and report mismatches.
const MovingAiScenario* firstScenarioOfOtherMap(const std::vector<MovingAiScenario>& scenarios, std::string_view map_file);

/// A grid over the map: cell size 1, origin (0, 0, 0), no heights; every cell is probed at once
/// (BadInput when `passable` does not hold width x height cells)
/// so the grid can be searched from several threads.
Result<Grid> makeMovingAiGrid(const MovingAiMap& map);
/// The world position of a cell centre on a grid from makeMovingAiGrid.
inline sim::Vec3 movingAiCellCenter(int x, int y) { return {x + 0.5, 0.0, y + 0.5}; }

/// Scenario lengths match when |length - optimal| <= max(1e-3, 1e-5 * optimal): the older files
/// print about 6 significant digits.
bool movingAiLengthMatches(double length, double optimal);

}  // namespace strata::nav
