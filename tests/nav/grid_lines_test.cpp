// Feet and photons (spec "Feet and photons"): lineOfSight vs sightLine over ASCII height maps.
// Heights: digits are ground in metres, max step 1 m, '#' is a blocked cell with no ground.

#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "grid_fixtures.h"

using namespace strata;
using namespace strata::nav;
using namespace strata::nav::test;

TEST_CASE("lines: a trench blocks feet but not eyes", "[nav][grid][lines]") {
  Grid grid = ascii({"55500555"});  // endpoints at 5 m, a 5 m deep walkable trench between
  CHECK_FALSE(grid.lineOfSight(0, 0, 7, 0));
  CHECK(grid.sightLine(0, 0, 7, 0));
}

TEST_CASE("lines: a ridge blocks both", "[nav][grid][lines]") {
  Grid grid = ascii({"00099000"});
  CHECK_FALSE(grid.lineOfSight(0, 0, 7, 0));
  CHECK_FALSE(grid.sightLine(0, 0, 7, 0));
}

TEST_CASE("lines: a wall's walkable top still occludes", "[nav][grid][lines]") {
  Grid grid = ascii({"1119111"});  // the wall top is walkable ground at 9 m
  CHECK(grid.isWalkable(3, 0));
  CHECK_FALSE(grid.sightLine(0, 0, 6, 0));
}

TEST_CASE("lines: a cliff inside the band still blocks walking", "[nav][grid][lines]") {
  // Endpoints 0 and 2: the band is [-1, 3]; every cell is in it, but 0 -> 2 is a 2 m step.
  Grid cliff = ascii({"000222"});
  CHECK_FALSE(cliff.lineOfSight(0, 0, 5, 0));
  CHECK(cliff.sightLine(0, 0, 5, 0));
  // The same rise as a ramp is walkable.
  Grid ramp = ascii({"001122"});
  CHECK(ramp.lineOfSight(0, 0, 5, 0));
}

TEST_CASE("lines: cells outside the endpoints' band block walking", "[nav][grid][lines]") {
  Grid grid = ascii({"0123210"});  // consecutive steps are fine, but 3 m is outside [-1, 1]
  CHECK_FALSE(grid.lineOfSight(0, 0, 6, 0));
  CHECK(grid.lineOfSight(0, 0, 2, 0));  // endpoints 0 and 2: band [-1, 3]
}

TEST_CASE("lines: unwalkable cells block sight unless their ground is below the band", "[nav][grid][lines]") {
  GridSettings s = unitSettings();
  s.width_cells = 5;
  s.depth_cells = 1;
  // Cell 2: not walkable. With ground at -10 m (a lava pit) it is transparent; with no ground
  // (a pillar) or ground inside the band (a fence on flat ground) it blocks.
  for (auto [ground, visible] : {std::pair<std::optional<double>, bool>{-10.0, true}, {std::nullopt, false}, {0.0, false}}) {
    auto grid = Grid::create(s, [ground = ground](const sim::Vec3& c) {
      CellProbe p;
      p.walkable = !(c.x > 2 && c.x < 3);
      p.ground_y = p.walkable ? std::optional<double>(0.0) : ground;
      return p;
    });
    REQUIRE(grid.ok());
    CHECK(grid->sightLine(0, 0, 4, 0) == visible);
    CHECK_FALSE(grid->lineOfSight(0, 0, 4, 0));
  }
}

TEST_CASE("lines: no corner threading for feet, diagonal gaps for eyes", "[nav][grid][lines]") {
  Grid grid = ascii({
      ".#",
      "#.",
  });
  CHECK_FALSE(grid.lineOfSight(0, 0, 1, 1));
  CHECK(grid.sightLine(0, 0, 1, 1));
  Grid open = ascii({
      "..",
      "#.",
  });
  CHECK(open.lineOfSight(0, 0, 1, 1) == false);  // one side blocked is still a corner
  Grid clear = ascii({
      "..",
      "..",
  });
  CHECK(clear.lineOfSight(0, 0, 1, 1));
}

TEST_CASE("lines: both directions give the same answer, off-grid is false", "[nav][grid][lines]") {
  Grid grid = ascii({
      "....#.....",
      "..#.......",
      ".....#..#.",
      "..........",
  });
  for (int x0 = 0; x0 < 10; ++x0)
    for (int z0 = 0; z0 < 4; ++z0)
      for (int x1 = 0; x1 < 10; ++x1)
        for (int z1 = 0; z1 < 4; ++z1) {
          CHECK(grid.lineOfSight(x0, z0, x1, z1) == grid.lineOfSight(x1, z1, x0, z0));
          CHECK(grid.sightLine(x0, z0, x1, z1) == grid.sightLine(x1, z1, x0, z0));
        }
  CHECK_FALSE(grid.lineOfSight(-1, 0, 3, 3));
  CHECK_FALSE(grid.sightLine(0, 0, 10, 0));
}

TEST_CASE("lines: a map's mirror images and turns give the same answers", "[nav][grid][lines]") {
  // An audit: ".@ / .. / .." and its mirror "@. / .. / .." gave one line blocked and the other
  // clear. The line from cell (1,0) to (0,2) runs exactly between cells (0,1) and (1,1) at the
  // middle row, and never near (0,0); Bresenham's walk took (0,1) and then a diagonal step to
  // (1,0), whose corner rule asked for (0,0).
  Grid left = ascii({"#.", "..", ".."}), right = ascii({".#", "..", ".."});
  CHECK(left.lineOfSight(1, 0, 0, 2));
  CHECK(right.lineOfSight(0, 0, 1, 2));
  std::vector<CellCoord> cells;
  left.lineCells(1, 0, 0, 2, cells);
  CHECK(cells == std::vector<CellCoord>{{1, 0}, {1, 1}, {0, 1}, {0, 2}});
  // Random maps under the 8 symmetries of the square, every pair of cells: the same answers.
  std::mt19937 random(20261207);
  for (int map = 0; map < 12; ++map) {
    const int width = 5 + map % 4, depth = 4 + map % 3;
    std::vector<std::string> rows(depth, std::string(width, '.'));
    for (auto& row : rows)
      for (char& c : row)
        if (random() % 100 < 12 + 3 * static_cast<unsigned>(map)) c = '#';
    // Symmetry s: bit 0 mirrors x, bit 1 mirrors z, bit 2 swaps the axes (after the mirrors).
    auto place = [&](int s, int x, int z) {
      if (s & 1) x = width - 1 - x;
      if (s & 2) z = depth - 1 - z;
      return (s & 4) ? CellCoord{z, x} : CellCoord{x, z};
    };
    std::vector<Grid> grids;
    for (int s = 0; s < 8; ++s) {
      const bool swapped = (s & 4) != 0;
      std::vector<std::string> out(swapped ? width : depth, std::string(swapped ? depth : width, '.'));
      for (int z = 0; z < depth; ++z)
        for (int x = 0; x < width; ++x) {
          const CellCoord c = place(s, x, z);
          out[c.z][c.x] = rows[z][x];
        }
      grids.push_back(ascii(out));
    }
    int clear = 0, blocked = 0;
    for (int x0 = 0; x0 < width; ++x0)
      for (int z0 = 0; z0 < depth; ++z0)
        for (int x1 = 0; x1 < width; ++x1)
          for (int z1 = 0; z1 < depth; ++z1) {
            const bool feet = grids[0].lineOfSight(x0, z0, x1, z1), eyes = grids[0].sightLine(x0, z0, x1, z1);
            (feet ? clear : blocked) += 1;
            for (int s = 1; s < 8; ++s) {
              const CellCoord a = place(s, x0, z0), b = place(s, x1, z1);
              INFO("map " << map << " symmetry " << s << ": (" << x0 << "," << z0 << ") -> (" << x1 << "," << z1 << ")");
              CHECK(grids[s].lineOfSight(a.x, a.z, b.x, b.z) == feet);
              CHECK(grids[s].sightLine(a.x, a.z, b.x, b.z) == eyes);
            }
          }
    CHECK(clear > 0);
    CHECK(blocked > 0);
  }
}
