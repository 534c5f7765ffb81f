// World file: reading one agent, or the agents' profiles only (WorldReadOptions). The graphs read
// must be exactly those a full read gives, and the graphs not asked for must not be read at all:
// a world whose other agent is damaged still reads.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <limits>

#include "hdf5_handles.h"
#include "strata/formats/profile.h"
#include "strata/formats/world_file.h"
#include "strata/nav/bake.h"
#include "test_support.h"
#include "world_file_fixtures.h"
#include "world_file_sections.h"

using namespace strata;
using strata::test::TempDir;
using Agents = formats::WorldReadOptions::Agents;
namespace h5 = strata::formats::h5;

namespace {

// A terrain baked for two agents of different sizes, "walker" and "crawler" (stored in the
// profile's order).
formats::World twoAgentWorld() {
  formats::World world = test::terrainWorld(24);
  auto profile = formats::parseProfile(R"(
[agent.walker]
radius = 0.3
height = 1.8

[agent.crawler]
radius = 0.2
height = 0.6
cell_size = 0.2
)",
                                       "two.toml");
  REQUIRE(profile.ok());
  auto baked = nav::bakeWorld(world.geometry, *profile, nav::BakeOptions{}, "terrain");
  REQUIRE(baked.ok());
  world.agents = std::move(baked->agents);
  REQUIRE(world.agents.size() == 2);
  return world;
}

// Removes the dataset `name` from the world file at `path` (a damaged or older file).
void deleteDataset(const std::filesystem::path& path, const char* name) {
  h5::File file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
  REQUIRE(file);
  REQUIRE(H5Ldelete(file.get(), name, H5P_DEFAULT) >= 0);
}

void checkSameGraph(const nav::LayeredGraph& a, const nav::LayeredGraph& b) {
  CHECK(a.grid.width_cells == b.grid.width_cells);
  CHECK(a.grid.depth_cells == b.grid.depth_cells);
  CHECK(a.grid.cell_size == b.grid.cell_size);
  CHECK(a.column_offsets == b.column_offsets);
  CHECK(a.height == b.height);
  CHECK(a.clearance == b.clearance);
  CHECK(a.component == b.component);
  CHECK(a.neighbor == b.neighbor);
  CHECK(a.edge_kind == b.edge_kind);
  CHECK(a.edge_cost == b.edge_cost);
  CHECK(a.component_count == b.component_count);
}

}  // namespace

TEST_CASE("world reader: one agent is read as a full read gives it, alone", "[formats][world_file]") {
  TempDir dir;
  const std::filesystem::path path = dir / "two.h5";
  REQUIRE(formats::writeWorldFile(path, twoAgentWorld()).ok());
  auto all = formats::readWorldFile(path);
  REQUIRE(all.ok());
  REQUIRE(all->agents.size() == 2);
  const std::string first_name = all->agents[0].profile.settings.name;
  const std::string second_name = all->agents[1].profile.settings.name;
  CHECK(first_name != second_name);
  REQUIRE(all->agents[0].graph.nodeCount() > 0);
  REQUIRE(all->agents[1].graph.nodeCount() > 0);

  auto second = formats::readWorldFile(path, {Agents::One, second_name});
  REQUIRE(second.ok());
  REQUIRE(second->agents.size() == 1);
  CHECK(second->agents[0].profile.settings.name == second_name);
  checkSameGraph(second->agents[0].graph, all->agents[1].graph);
  CHECK(test::sameWorld(*second, *all));  // geometry and provenance as before

  auto first = formats::readWorldFile(path, {Agents::One, ""});  // no name: the first stored
  REQUIRE(first.ok());
  REQUIRE(first->agents.size() == 1);
  CHECK(first->agents[0].profile.settings.name == first_name);
  checkSameGraph(first->agents[0].graph, all->agents[0].graph);

  auto ghost = formats::readWorldFile(path, {Agents::One, "ghost"});
  REQUIRE_FALSE(ghost.ok());
  CHECK(ghost.error().kind == ErrorKind::BadInput);
  CHECK(ghost.error().message ==
        path.string() + ": no agent 'ghost' (agents: " + first_name + ", " + second_name + ")");
}

TEST_CASE("world writer: what the reader would refuse is not written", "[formats][world_file][validation]") {
  // An audit: a library caller's graph with a NaN edge cost, a neighbour past the nodes, or an
  // agent named "bad name!" was written, then refused by readWorldFile.
  TempDir dir;
  const auto path = dir / "w.h5";
  const formats::World good = twoAgentWorld();
  REQUIRE(formats::writeWorldFile(path, good).ok());
  REQUIRE(formats::readWorldFile(path).ok());
  std::filesystem::remove(path);
  auto refused = [&](const formats::World& world, const std::string& words) {
    const Status written = formats::writeWorldFile(path, world);
    REQUIRE_FALSE(written.ok());
    CHECK(written.error().kind == ErrorKind::BadInput);
    CHECK_THAT(written.error().message, Catch::Contains(words));
    CHECK_FALSE(std::filesystem::exists(path));
    CHECK(std::distance(std::filesystem::directory_iterator(dir.path()), std::filesystem::directory_iterator{}) == 0);
  };
  formats::World world = good;
  std::size_t slot = 0;
  while (world.agents[0].graph.edge_kind[slot] == static_cast<uint8_t>(nav::EdgeKind::None)) ++slot;
  world.agents[0].graph.edge_cost[slot] = std::numeric_limits<float>::quiet_NaN();
  refused(world, "edge_cost");
  world = good;
  world.agents[0].graph.neighbor[slot] = 99999999;
  refused(world, "w.h5: /navigation/agents/walker: cannot write: ");
  world = good;
  world.agents[1].profile.settings.name = "bad name!";
  refused(world, "cannot write: ");
  // A NaN setting is named (it read back as a TOML parse error at "agent 'walker':2:13").
  world = good;
  world.agents[0].profile.settings.radius = std::numeric_limits<double>::quiet_NaN();
  refused(world, "radius");
  world = good;
  world.agents[0].profile.settings.jump_penalty = std::numeric_limits<double>::quiet_NaN();
  refused(world, "jump_penalty");
}

TEST_CASE("world reader: profiles only, every agent, no graph", "[formats][world_file]") {
  TempDir dir;
  const std::filesystem::path path = dir / "two.h5";
  const formats::World world = twoAgentWorld();
  REQUIRE(formats::writeWorldFile(path, world).ok());
  auto profiles = formats::readWorldFile(path, {Agents::ProfilesOnly, {}});
  REQUIRE(profiles.ok());
  REQUIRE(profiles->agents.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    INFO("agent " << i);
    CHECK(profiles->agents[i].profile.settings.name == world.agents[i].profile.settings.name);
    CHECK(profiles->agents[i].profile.settings.radius == world.agents[i].profile.settings.radius);
    CHECK(profiles->agents[i].profile.settings.cell_size == world.agents[i].profile.settings.cell_size);
    CHECK(profiles->agents[i].graph.nodeCount() == 0);
    CHECK(profiles->agents[i].graph.column_offsets.empty());
  }
  CHECK(test::sameWorld(*profiles, world));
}

TEST_CASE("world reader: graphs larger than the memory limit are refused before they are read", "[formats][world_file]") {
  TempDir dir;
  const std::filesystem::path path = dir / "two.h5";
  const formats::World world = twoAgentWorld();
  REQUIRE(formats::writeWorldFile(path, world).ok());
  // Reading a graph takes 115 bytes a node (height 4, normal 12, area 2 and 4 more as read,
  // headroom, clearance, component, region 4 each, flags 1, link offsets 4, and per direction
  // neighbour 4, kind 1, cost 4) and 4 a column (no fields here).
  auto bytes = [&](std::size_t agent) {
    const nav::LayeredGraph& g = world.agents[agent].graph;
    return static_cast<std::uint64_t>(115 * g.nodeCount() + 4 * g.grid.columnCount());
  };
  auto read = [&](Agents agents, const std::string& name, std::uint64_t limit) {
    formats::WorldReadOptions options{agents, name};
    options.memory_limit_bytes = limit;
    return formats::readWorldFile(path, options);
  };
  // One agent: refused one byte below its size, read at it.
  auto refused = read(Agents::One, "crawler", bytes(1) - 1);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().kind == ErrorKind::BadInput);
  CHECK(refused.error().message.rfind(path.string() + ": agent 'crawler': " + std::to_string(world.agents[1].graph.nodeCount()) +
                                          " floor nodes would need about ",
                                      0) == 0);
  CHECK(refused.error().message.find("GB to read, more than the ") != std::string::npos);
  CHECK(read(Agents::One, "crawler", bytes(1)).ok());
  // Every agent: the limit holds for them together.
  refused = read(Agents::All, {}, bytes(0) + bytes(1) - 1);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message.find("agent 'crawler'") != std::string::npos);
  CHECK(refused.error().message.find("(with the agents before it)") != std::string::npos);
  auto all = read(Agents::All, {}, bytes(0) + bytes(1));
  REQUIRE(all.ok());
  CHECK(test::sameWorld(*all, world));
  // Profiles read no graph: any limit.
  CHECK(read(Agents::ProfilesOnly, {}, 1).ok());
  CHECK(read(Agents::All, {}, 0).ok());  // 0: no limit
  // A node count the node arrays do not hold (the last column offset raised) is a damaged file,
  // said as such, not a world too large for the memory.
  {
    h5::File file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    REQUIRE(file);
    h5::Dataset offsets(H5Dopen2(file.get(), "/navigation/agents/crawler/column_offsets", H5P_DEFAULT));
    REQUIRE(offsets);
    h5::Dataspace space(H5Dget_space(offsets.get()));
    const hsize_t last = world.agents[1].graph.grid.columnCount(), one = 1;
    REQUIRE(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, &last, nullptr, &one, nullptr) >= 0);
    h5::Dataspace memory(H5Screate_simple(1, &one, nullptr));
    const std::uint32_t huge = 4000000000u;
    REQUIRE(H5Dwrite(offsets.get(), H5T_NATIVE_UINT32, memory.get(), space.get(), H5P_DEFAULT, &huge) >= 0);
  }
  refused = read(Agents::One, "crawler", bytes(1));
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message == path.string() + ": /navigation/agents/crawler/height: has " +
                                       std::to_string(world.agents[1].graph.nodeCount()) +
                                       " rows, expected 4000000000 (the node count: the last entry of column_offsets)");
}

TEST_CASE("world reader: an agent not asked for is not read, so its damage does not matter", "[formats][world_file]") {
  TempDir dir;
  const std::filesystem::path path = dir / "two.h5";
  REQUIRE(formats::writeWorldFile(path, twoAgentWorld()).ok());
  deleteDataset(path, "/navigation/agents/crawler/height");
  auto all = formats::readWorldFile(path);
  REQUIRE_FALSE(all.ok());
  CHECK(all.error().message.find("/navigation/agents/crawler/height") != std::string::npos);
  auto walker = formats::readWorldFile(path, {Agents::One, "walker"});
  REQUIRE(walker.ok());
  CHECK(walker->agents.size() == 1);
  CHECK(formats::readWorldFile(path, {Agents::ProfilesOnly, {}}).ok());
  // The damaged agent itself is still refused, naming the dataset.
  auto crawler = formats::readWorldFile(path, {Agents::One, "crawler"});
  REQUIRE_FALSE(crawler.ok());
  CHECK(crawler.error().message.find("/navigation/agents/crawler/height") != std::string::npos);
}

TEST_CASE("world reader: without geometry, the vertices alone and the same agents, and the triangles not read",
          "[formats][world_file]") {
  TempDir dir;
  const std::filesystem::path path = dir / "two.h5";
  REQUIRE(formats::writeWorldFile(path, twoAgentWorld()).ok());
  auto all = formats::readWorldFile(path);
  REQUIRE(all.ok());
  REQUIRE(all->geometry.triangleCount() > 0);
  formats::WorldReadOptions lean{Agents::One, "crawler"};
  lean.geometry = false;
  auto crawler = formats::readWorldFile(path, lean);
  REQUIRE(crawler.ok());
  CHECK(crawler->geometry.vertices.size() == all->geometry.vertices.size());
  CHECK(std::equal(crawler->geometry.vertices.begin(), crawler->geometry.vertices.end(), all->geometry.vertices.begin(),
                   [](const sim::Vec3f& a, const sim::Vec3f& b) { return a.x == b.x && a.y == b.y && a.z == b.z; }));
  CHECK(crawler->geometry.triangleCount() == 0);
  CHECK(crawler->geometry.triangle_labels.empty());
  CHECK(crawler->geometry.triangle_tags.empty());
  CHECK(crawler->geometry.validate().empty());
  REQUIRE(crawler->agents.size() == 1);
  checkSameGraph(crawler->agents[0].graph, all->agents[1].graph);
  // Not read, so their damage does not matter; the vertices are still checked.
  deleteDataset(path, "/geometry/triangles");
  deleteDataset(path, "/geometry/tag_ids");
  CHECK_FALSE(formats::readWorldFile(path).ok());
  CHECK(formats::readWorldFile(path, lean).ok());
  deleteDataset(path, "/geometry/vertices");
  auto no_vertices = formats::readWorldFile(path, lean);
  REQUIRE_FALSE(no_vertices.ok());
  CHECK(no_vertices.error().message.find("/geometry/vertices") != std::string::npos);
}

TEST_CASE("world reader: an agent listed without its group is refused by every read", "[formats][world_file][validation]") {
  // An audit: a file whose agent_names listed an agent with no group under /navigation/agents
  // was refused by `strata info` but read by path, query, render and export, which read one.
  TempDir dir;
  const std::filesystem::path path = dir / "two.h5";
  REQUIRE(formats::writeWorldFile(path, twoAgentWorld()).ok());
  {
    h5::File file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    REQUIRE(file);
    REQUIRE(H5Ldelete(file.get(), "/navigation/agents/crawler", H5P_DEFAULT) >= 0);
  }
  for (const formats::WorldReadOptions& options :
       {formats::WorldReadOptions{}, formats::WorldReadOptions{Agents::One, "walker"}, formats::WorldReadOptions{Agents::One, ""},
        formats::WorldReadOptions{Agents::ProfilesOnly, {}}}) {
    auto read = formats::readWorldFile(path, options);
    REQUIRE_FALSE(read.ok());
    CHECK(read.error().kind == ErrorKind::BadInput);
    CHECK(read.error().message ==
          path.string() + ": /navigation/agents/crawler: missing (agent 'crawler' is listed in agent_names)");
  }
}

TEST_CASE("world reader: an agent group not listed in agent_names is refused by every read", "[formats][world_file][validation]") {
  // A hunt: agent_names emptied with h5py, the agent's group left in place, and `strata info`
  // said "agents 0" of a file that holds a baked graph.
  TempDir dir;
  const std::filesystem::path path = dir / "two.h5";
  formats::World world = twoAgentWorld();
  world.agents.pop_back();  // walker only
  REQUIRE(formats::writeWorldFile(path, world).ok());
  {
    // Copy walker's group as "crawler", an agent the list does not name.
    h5::File file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    REQUIRE(file);
    REQUIRE(H5Ocopy(file.get(), "/navigation/agents/walker", file.get(), "/navigation/agents/crawler", H5P_DEFAULT, H5P_DEFAULT) >= 0);
  }
  for (const formats::WorldReadOptions& options :
       {formats::WorldReadOptions{}, formats::WorldReadOptions{Agents::One, "walker"}, formats::WorldReadOptions{Agents::ProfilesOnly, {}}}) {
    auto read = formats::readWorldFile(path, options);
    REQUIRE_FALSE(read.ok());
    CHECK(read.error().kind == ErrorKind::BadInput);
    CHECK(read.error().message ==
          path.string() + ": /navigation/agents/crawler: an agent group not listed in /navigation/agent_names");
  }
}

TEST_CASE("world reader: a world without agents reads with none, whatever the options", "[formats][world_file]") {
  TempDir dir;
  const std::filesystem::path path = dir / "cube.h5";
  REQUIRE(formats::writeWorldFile(path, test::cubeWorld()).ok());
  for (const formats::WorldReadOptions& options :
       {formats::WorldReadOptions{Agents::One, "walker"}, formats::WorldReadOptions{Agents::ProfilesOnly, {}}}) {
    auto world = formats::readWorldFile(path, options);
    REQUIRE(world.ok());
    CHECK(world->agents.empty());
  }
}

TEST_CASE("world reader: values no bake writes are refused, naming the dataset", "[formats][world_file][validation]") {
  // A file edited by hand gets valid checksums, so the reader checks the values themselves: each
  // section writes a world with one value a bake never writes and expects it refused.
  TempDir dir;
  const std::filesystem::path path = dir / "w.h5";
  formats::World world = twoAgentWorld();
  nav::BakedAgent& walker = world.agents[0];
  nav::LayeredGraph& g = walker.graph;
  REQUIRE(g.nodeCount() > 10);
  std::size_t slot = 0;  // a used edge slot
  while (g.edge_kind[slot] == static_cast<uint8_t>(nav::EdgeKind::None)) ++slot;
  std::string expected;
  // A field "home" in the profile and the graph, origin node `origin`, every distance 1 (for a
  // section to spoil).
  auto homeField = [&](uint32_t origin) -> nav::RouteField& {
    walker.profile.fields.push_back({"home", {0, 0, 0}, 10, {}});
    nav::RouteField field;
    field.name = "home";
    field.max_distance = 10;
    field.origin_node = origin;
    field.distance.assign(g.nodeCount(), 1.0f);
    g.fields.push_back(field);
    return g.fields.back();
  };
  SECTION("a NaN height") {
    g.height[5] = std::numeric_limits<float>::quiet_NaN();
    expected = "/navigation/agents/walker/height: column ";
  }
  SECTION("a normal pointing down") {
    g.normal[3] = {0, -1, 0};
    expected = "/navigation/agents/walker/normal: node 3: not an upward unit normal";
  }
  SECTION("a negative clearance") {
    g.clearance[7] = -1;
    expected = "/navigation/agents/walker/clearance: node 7: negative or NaN";
  }
  SECTION("a clearance under the agent's radius") {
    // An audit: 0.01 against a 0.3 m radius was read, and a wider agent "fitted" there.
    g.clearance[7] = static_cast<float>(walker.profile.settings.radius) * 0.5f;
    expected = "/navigation/agents/walker/clearance: node 7: ";
  }
  SECTION("a link from a node to itself") {
    g.links = {{3, 3, 1.5f, nav::kNoLinkLabel, nav::kNoLinkLabel, false, nav::EdgeKind::Jump}};
    g.indexLinkOffsets();
    expected = "/navigation/agents/walker/links: link 0 leads from node 3 to itself";
  }
  SECTION("a field whose origin node is not at 0") {
    homeField(4).distance[0] = 0;  // the flood's start, but the origin names node 4
    expected = "/navigation/agents/walker/field_distance: field 'home': its origin node 4 reads 1.000000, not 0";
  }
  SECTION("a field without an origin node holding distances") {
    // An audit set field_origin_node to none (all ones) under finite distances: accepted, and
    // `query field` went on answering them.
    homeField(nav::kNoNode).distance[2] = std::numeric_limits<float>::infinity();
    expected = "/navigation/agents/walker/field_distance: field 'home', node 0: a distance, but the field has no origin node";
  }
  SECTION("a NaN headroom") {
    g.headroom[2] = std::numeric_limits<float>::quiet_NaN();
    expected = "/navigation/agents/walker/headroom: node 2: negative or NaN";
  }
  SECTION("unknown flag bits") {
    g.flags[4] = 0x80;
    expected = "/navigation/agents/walker/flags: node 4: unknown flag bits";
  }
  SECTION("a free edge") {
    g.edge_cost[slot] = 0;
    expected = "/navigation/agents/walker/edge_cost: node " + std::to_string(slot / 8) + ", direction " + std::to_string(slot % 8) +
               " (slot " + std::to_string(slot) + "): not a finite cost > 0";
  }
  SECTION("a custom link's kind in an edge slot") {
    // An audit: kind 5 (links live in the links table) was accepted, and a route crossed it as a link.
    g.edge_kind[slot] = static_cast<uint8_t>(nav::EdgeKind::Link);
    expected = "/navigation/agents/walker: node " + std::to_string(slot / 8) + ", direction " + std::to_string(slot % 8) + " (slot " +
               std::to_string(slot) + "): bad edge kind";
  }
  SECTION("a walk from a node to itself") {
    std::size_t walk = 0;
    while (g.edge_kind[walk] != static_cast<uint8_t>(nav::EdgeKind::Walk)) ++walk;
    g.neighbor[walk] = static_cast<uint32_t>(walk / nav::kDirectionCount);
    const auto column = g.nodeColumn(g.neighbor[walk]);
    expected = "/navigation/agents/walker/neighbor: column " + std::to_string(g.grid.columnIndex(column[0], column[1])) +
               ": an edge that does not land ahead along its direction (a walk: in the next column)";
  }
  // East (direction 0) from the first node with a walk that way (`inner`: in a column whose
  // neighbouring columns are all on the grid, which take a shorter check of walks) to the floor
  // two columns on.
  auto walkTwoColumnsOn = [&](bool inner) {
    std::size_t from = 0;
    for (; from < g.nodeCount(); ++from) {
      const auto c = g.nodeColumn(static_cast<uint32_t>(from));
      const bool inside = c[0] > 0 && c[1] > 0 && c[0] + 1 < g.grid.width_cells && c[1] + 1 < g.grid.depth_cells;
      if ((inside || !inner) && g.edge_kind[from * nav::kDirectionCount] == static_cast<uint8_t>(nav::EdgeKind::Walk) &&
          g.grid.contains(c[0] + 2, c[1]) && g.columnEnd(c[0] + 2, c[1]) > g.columnBegin(c[0] + 2, c[1]))
        break;
    }
    REQUIRE(from < g.nodeCount());
    const auto c = g.nodeColumn(static_cast<uint32_t>(from));
    g.neighbor[from * nav::kDirectionCount] = g.columnBegin(c[0] + 2, c[1]);
    expected = "/navigation/agents/walker/neighbor: column " + std::to_string(g.grid.columnIndex(c[0], c[1])) + ": ";
  };
  SECTION("a walk two columns on") { walkTwoColumnsOn(false); }
  SECTION("a walk from a column inside the grid to a floor two columns on") { walkTwoColumnsOn(true); }
  SECTION("two problems: the one checked first is named, wherever the other lies") {
    // The checks of nodes and edges run in one pass; a free edge at the first used slot and a
    // bad normal at the last node still name the normal, as checks run one after the other did.
    g.edge_cost[slot] = 0;
    g.normal[g.nodeCount() - 1] = {0, -1, 0};
    expected = "/navigation/agents/walker/normal: node " + std::to_string(g.nodeCount() - 1) + ": not an upward unit normal";
  }
  SECTION("a component count above the components") {
    // An audit: `info` then reported components no node is in.
    g.component_count += 1;
    expected = "/navigation/agents/walker/component: component_count is " + std::to_string(g.component_count) +
               " but no node is in component " + std::to_string(g.component_count - 1);
  }
  SECTION("a region count above the regions") {
    // An audit kept region_count 3 with regions 1 and 2 empty: accepted.
    REQUIRE(g.hasRegions());
    g.region_count += 1;
    g.region_reach_offsets.push_back(g.region_reach_offsets.back());
    expected = "/navigation/agents/walker/region: region_count is " + std::to_string(g.region_count) +
               " but no node is in region " + std::to_string(g.region_count - 1);
  }
  SECTION("a region count above the node count") {
    // The re-audit: 17,109 regions over 17,108 nodes blamed region 0, which has nodes.
    REQUIRE(g.hasRegions());
    const uint32_t count = static_cast<uint32_t>(g.nodeCount()) + 1;
    g.region_reach_offsets.resize(std::size_t(count) + 1, g.region_reach_offsets.back());
    g.region_count = count;
    expected = "/navigation/agents/walker/region: region_count " + std::to_string(count) + " is more than the " +
               std::to_string(g.nodeCount()) + " nodes (every region holds one)";
  }
  SECTION("an area cost other than the profile's") {
    g.area_costs[0] = 0.5f;
    expected = "/navigation/agents/walker/area_names: the areas or their costs differ from the stored profile's";
  }
  SECTION("an area the profile does not name") {
    g.area_names.push_back(g.area_names[0]);
    g.area_costs.push_back(1);
    expected = "/navigation/agents/walker/area_names: the areas or their costs differ from the stored profile's";
  }
  SECTION("a field the profile does not have") {
    g.fields.push_back({"home", {0, 0, 0}, 10, 0, std::vector<float>(g.nodeCount(), 1.0f)});
    expected = "/navigation/agents/walker/field_names: 1 fields, but the stored profile has 0";
  }
  SECTION("a field distance beyond the field's limit") {
    walker.profile.fields.push_back({"home", {0, 0, 0}, 10, {}});
    g.fields.push_back({"home", {0, 0, 0}, 10, 0, std::vector<float>(g.nodeCount(), 1.0f)});
    g.fields.back().distance[6] = 10.5f;
    expected = "/navigation/agents/walker/field_distance: field 'home', node 6: negative, NaN or beyond max_distance";
  }
  SECTION("a two-way link without its other direction") {
    walker.profile.links.push_back({{0, 0, 0}, {1, 0, 1}, "door", -1, true, {}});
    g.link_labels = {"door"};
    g.links = {{0, 1, 1.5f, 0, 0, true}};
    g.indexLinkOffsets();
    expected = "/navigation/agents/walker/links: link 0 is two-way but its other direction is missing";
  }
  SECTION("a second jump with a label") {
    g.link_labels = {"door"};
    g.links = {{0, 1, 1.5f, 0, nav::kNoLinkLabel, false, nav::EdgeKind::Jump}};
    g.indexLinkOffsets();
    expected = "/navigation/agents/walker/links: link 0: a second jump (link_kinds 2) with a label, a profile link or two ways";
  }
  SECTION("a link of a kind the bake never stores there") {
    g.links = {{0, 1, 1.5f, nav::kNoLinkLabel, nav::kNoLinkLabel, false, nav::EdgeKind::Drop}};
    g.indexLinkOffsets();
    expected = "/navigation/agents/walker/link_kinds: link 0: kind 3 is neither 5 (a custom link) nor 2 (a second jump)";
  }
  SECTION("a negative field distance") {
    homeField(0).distance[9] = -7;
    expected = "/navigation/agents/walker/field_distance: field 'home', node 9: negative, NaN or beyond max_distance";
  }
  SECTION("a node moved into a region of its own (its edges then lead to a region no row lists)") {
    std::size_t moved = 1;
    while (moved < g.nodeCount() &&
           g.edge_kind[moved * nav::kDirectionCount] == static_cast<uint8_t>(nav::EdgeKind::None))
      ++moved;
    REQUIRE(moved < g.nodeCount());
    const uint32_t last = g.region_count;
    for (std::size_t n = moved + 1; n < g.nodeCount(); ++n) REQUIRE(g.region[n] < last);
    g.region[moved] = last;
    g.region_count = last + 1;
    g.region_reach_offsets.push_back(g.region_reach_offsets.back());  // an empty row: it reaches nothing
    expected = "/navigation/agents/walker/region_reach: node ";
  }
  SECTION("a node moved into a component of its own (its edges then leave its component)") {
    // Numbered as a bake numbers components (by first node), so only the edges tell.
    std::size_t moved = 1;
    auto hasEdge = [&](std::size_t n) {
      for (int d = 0; d < nav::kDirectionCount; ++d)
        if (g.edge_kind[n * nav::kDirectionCount + static_cast<std::size_t>(d)] != static_cast<uint8_t>(nav::EdgeKind::None))
          return true;
      return false;
    };
    while (moved < g.nodeCount() && !hasEdge(moved)) ++moved;
    REQUIRE(moved < g.nodeCount());
    const uint32_t last = g.component_count;
    for (std::size_t n = moved + 1; n < g.nodeCount(); ++n) REQUIRE(g.component[n] < last);
    g.component[moved] = last;
    g.component_count = last + 1;
    expected = "/navigation/agents/walker/region_reach: node ";
  }
  // (An audit: these three were said of grid_cells.)
  SECTION("a cell size of 0") {
    g.grid.cell_size = 0;
    expected = "/navigation/agents/walker/cell_size: not a finite size > 0 (0)";
  }
  SECTION("a NaN cell size") {
    g.grid.cell_size = std::numeric_limits<double>::quiet_NaN();
    expected = "/navigation/agents/walker/cell_size: not a finite size > 0 (nan)";
  }
  SECTION("a NaN grid origin") {
    g.grid.origin_z = std::numeric_limits<double>::quiet_NaN();
    expected = "/navigation/agents/walker/grid_origin_xz: not finite (";
  }
  SECTION("a column grid not laid over the geometry") {
    g.grid.origin_x += g.grid.cell_size;
    expected = "/navigation/agents/walker/grid_cells: the column grid does not cover the geometry as a bake lays it";
  }
  // The writer refuses such a world (the next test); the file is made as an editor would.
  CHECK_FALSE(formats::writeWorldFile(path, world).ok());
  REQUIRE(formats::detail::writeWorldFileUnchecked(path, world).ok());
  auto read = formats::readWorldFile(path);
  REQUIRE_FALSE(read.ok());
  CHECK(read.error().kind == ErrorKind::BadInput);
  CHECK_THAT(read.error().message, Catch::StartsWith(path.string() + ": " + expected));
  CHECK(read.error().message.find('\n') == std::string::npos);
}

TEST_CASE("world reader: a dataset with no stored bytes is refused, not read as its fill value", "[formats][world_file][validation]") {
  TempDir dir;
  const std::filesystem::path path = dir / "w.h5";
  const formats::World world = twoAgentWorld();
  REQUIRE(formats::writeWorldFile(path, world).ok());
  {
    h5::File file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    REQUIRE(file);
    const char* name = "/navigation/agents/walker/height";
    REQUIRE(H5Ldelete(file.get(), name, H5P_DEFAULT) >= 0);
    const hsize_t nodes = world.agents[0].graph.nodeCount();
    h5::Dataspace space(H5Screate_simple(1, &nodes, nullptr));
    h5::Dataset unwritten(H5Dcreate2(file.get(), name, H5T_IEEE_F32LE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    REQUIRE(unwritten);
  }
  auto read = formats::readWorldFile(path);
  REQUIRE_FALSE(read.ok());
  CHECK(read.error().message == path.string() + ": /navigation/agents/walker/height: claims " +
                                    std::to_string(world.agents[0].graph.nodeCount()) +
                                    " elements but the file stores only 0 bytes for it");
}

TEST_CASE("world reader: a per-node dataset of the wrong width says the row count it expects", "[formats][world_file][validation]") {
  // An audit: "expected shape [N, 42655], found [1, 42652]" for a field's distances read as if
  // the rows were wrong (N is the node count in docs/format.md; there it meant the field count).
  TempDir dir;
  const std::filesystem::path path = dir / "w.h5";
  const formats::World world = twoAgentWorld();
  REQUIRE(formats::writeWorldFile(path, world).ok());
  const hsize_t nodes = world.agents[0].graph.nodeCount();
  {
    h5::File file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    REQUIRE(file);
    const char* name = "/navigation/agents/walker/neighbor";
    REQUIRE(H5Ldelete(file.get(), name, H5P_DEFAULT) >= 0);
    const hsize_t dims[2] = {nodes, 7};
    h5::Dataspace space(H5Screate_simple(2, dims, nullptr));
    h5::Dataset narrow(H5Dcreate2(file.get(), name, H5T_STD_U32LE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    REQUIRE(narrow);
    const std::vector<uint32_t> zeros(nodes * 7, 0);
    REQUIRE(H5Dwrite(narrow.get(), H5T_NATIVE_UINT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, zeros.data()) >= 0);
  }
  auto read = formats::readWorldFile(path);
  REQUIRE_FALSE(read.ok());
  CHECK(read.error().message == path.string() + ": /navigation/agents/walker/neighbor: expected shape [" + std::to_string(nodes) +
                                    ", 8], found [" + std::to_string(nodes) + ", 7]");
}

TEST_CASE("world file: second jumps keep their kind, and a schema 1 file reads its links as custom links",
          "[formats][world_file]") {
  TempDir dir;
  const std::filesystem::path path = dir / "w.h5";
  formats::World world = twoAgentWorld();
  nav::BakedAgent& walker = world.agents[0];
  nav::LayeredGraph& g = walker.graph;
  REQUIRE(g.nodeCount() > 10);
  walker.profile.links.push_back({{0, 0, 0}, {1, 0, 1}, "door", -1, false, {}});
  g.link_labels = {"door"};
  g.links = {{2, 9, 2.5f, 0, 0, false},
             {3, 8, 4.25f, nav::kNoLinkLabel, nav::kNoLinkLabel, false, nav::EdgeKind::Jump}};
  g.indexLinkOffsets();
  REQUIRE(formats::writeWorldFile(path, world).ok());
  {
    auto read = formats::readWorldFile(path);
    REQUIRE(read.ok());
    const nav::LayeredGraph& r = read->agents[0].graph;
    REQUIRE(r.links.size() == 2);
    CHECK(r.links[0].kind == nav::EdgeKind::Link);
    CHECK(r.links[0].label == 0);
    CHECK(r.links[1].kind == nav::EdgeKind::Jump);
    CHECK(r.links[1].to_node == 8);
    CHECK(r.links[1].cost == 4.25f);
    CHECK(r.customLinkCount() == 1);
    CHECK(r.secondJumpCount() == 1);
    CHECK(r.edgeCount() == g.edgeCount());
    CHECK(r.linkLabel(2, 9) == 0);
    CHECK(r.linkLabel(3, 8) == -1);  // a jump, not a custom link
  }
  // Schema version 1: no link_kinds, every link a custom link; a second jump's row is refused.
  auto downgrade = [&] {
    deleteDataset(path, "/navigation/agents/walker/link_kinds");
    h5::File file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    REQUIRE(file);
    h5::Attribute attribute(H5Aopen(file.get(), "schema_version", H5P_DEFAULT));
    const std::int32_t one = 1;
    REQUIRE(H5Awrite(attribute.get(), H5T_NATIVE_INT32, &one) >= 0);
  };
  deleteDataset(path, "/navigation/agents/walker/link_kinds");  // schema 2 without link_kinds: refused
  {
    auto read = formats::readWorldFile(path);
    REQUIRE_FALSE(read.ok());
    CHECK(read.error().message.find("/navigation/agents/walker/link_kinds") != std::string::npos);
    CHECK(read.error().message.find('\n') == std::string::npos);
  }
  REQUIRE(formats::writeWorldFile(path, world).ok());
  downgrade();
  {
    auto read = formats::readWorldFile(path);
    REQUIRE_FALSE(read.ok());
    CHECK_THAT(read.error().message, Catch::StartsWith(path.string() + ": /navigation/agents/walker/links: link 1: label 4294967295 out of range (1 link_labels)"));
  }
  g.links.pop_back();
  g.indexLinkOffsets();
  REQUIRE(formats::writeWorldFile(path, world).ok());
  downgrade();
  auto read = formats::readWorldFile(path);
  REQUIRE(read.ok());
  REQUIRE(read->agents[0].graph.links.size() == 1);
  CHECK(read->agents[0].graph.links[0].kind == nav::EdgeKind::Link);
  CHECK(read->agents[0].graph.linkLabel(2, 9) == 0);
}

TEST_CASE("world reader: region_reach rows other than the edges make them are refused", "[formats][world_file][validation]") {
  // Three 4 m platforms at heights 2, 1 and 0 in a row along +x, each a 1 m drop below the last:
  // three regions, the top one reaching the others (the middle one through an edge, the bottom
  // one only through the middle one).
  formats::World world = test::cubeWorld();
  sim::TriangleMesh& m = world.geometry;
  m.vertices.clear();
  m.triangles.clear();
  for (uint32_t step = 0; step < 3; ++step) {
    const float x = 4.0f * static_cast<float>(step), y = 2.0f - static_cast<float>(step);
    const uint32_t v = static_cast<uint32_t>(m.vertices.size());
    m.vertices.insert(m.vertices.end(), {{x, y, 0}, {x + 4, y, 0}, {x + 4, y, 4}, {x, y, 4}});
    m.triangles.push_back({v, v + 3, v + 2});
    m.triangles.push_back({v, v + 2, v + 1});
  }
  m.triangle_labels.assign(m.triangles.size(), 0);
  m.triangle_tags.assign(m.triangles.size(), 0);
  auto profile = formats::parseProfile("[agent.walker]\nradius = 0.3\nheight = 1.8\nstep_height = 0.4\ncan_jump = false\n"
                                       "max_drop = 2.0\n",
                                       "steps.toml");
  REQUIRE(profile.ok());
  auto baked = nav::bakeWorld(world.geometry, *profile, nav::BakeOptions{}, "steps");
  REQUIRE(baked.ok());
  world.agents = std::move(baked->agents);
  nav::LayeredGraph& g = world.agents[0].graph;
  REQUIRE(g.region_count == 3);
  REQUIRE(g.region_reach_closure);
  // Regions are numbered by lowest node, and the top platform's columns come first.
  REQUIRE(g.region_reach_offsets == std::vector<uint32_t>{0, 2, 3, 3});
  REQUIRE(g.region_reach == std::vector<uint32_t>{1, 2, 2});
  TempDir dir;
  const std::filesystem::path path = dir / "steps.h5";
  REQUIRE(formats::writeWorldFile(path, world).ok());
  std::string expected;
  SECTION("a closure row without a region reached through another") {
    // An audit: accepted, and the route from the top to the bottom was NoPath.
    g.region_reach_offsets = {0, 1, 2, 2};
    g.region_reach = {1, 2};
    expected = "region 0 reaches region 2 through region 1 (whose row lists it), but its row does not list it";
  }
  SECTION("a closure row listing a region above it") {
    g.region_reach_offsets = {0, 2, 3, 4};
    g.region_reach = {1, 2, 2, 1};
    expected = "region 2's row lists region 1, and region 1 has an edge or link into region 2: regions that reach each "
               "other would be one region";
  }
  SECTION("regions around a cycle all listing a region none of them reaches (the review)") {
    g.region_reach_offsets = {0, 2, 4, 4};
    g.region_reach = {1, 2, 0, 2};
    expected = "region 1's row lists region 0, and region 0 has an edge or link into region 1: regions that reach each "
               "other would be one region";
  }
  SECTION("a closure row listing a region not reached, which the rows above it then list too") {
    g.region_reach_offsets = {0, 2, 3, 4};
    g.region_reach = {1, 2, 2, 0};
    expected = "region 1 reaches region 0 through region 2 (whose row lists it), but its row does not list it";
  }
  SECTION("the region graph's edges with one left out, or one too many") {
    g.region_reach_closure = false;
    g.region_reach_offsets = {0, 1, 2, 2};
    g.region_reach = {1, 2};
    REQUIRE(formats::writeWorldFile(path, world).ok());  // the edges, as a bake stores them
    REQUIRE(formats::readWorldFile(path).ok());
    g.region_reach_offsets = {0, 2, 3, 3};
    g.region_reach = {1, 2, 2};
    expected = "region 0's row lists region 2, which it has no edge or link to";
  }
  CHECK_FALSE(formats::writeWorldFile(path, world).ok());
  REQUIRE(formats::detail::writeWorldFileUnchecked(path, world).ok());
  auto read = formats::readWorldFile(path);
  REQUIRE_FALSE(read.ok());
  CHECK(read.error().kind == ErrorKind::BadInput);
  CHECK(read.error().message == path.string() + ": /navigation/agents/walker/region_reach: " + expected);
}

TEST_CASE("world file: region_reach_closure is kept, required from schema 3, and a schema 2 file holds the closure",
          "[formats][world_file]") {
  TempDir dir;
  const std::filesystem::path path = dir / "w.h5";
  formats::World world = twoAgentWorld();
  nav::LayeredGraph& g = world.agents[0].graph;
  for (const bool closure : {true, false}) {
    g.region_reach_closure = closure;
    REQUIRE(formats::writeWorldFile(path, world).ok());
    auto read = formats::readWorldFile(path);
    REQUIRE(read.ok());
    CHECK(read->agents[0].graph.region_reach_closure == closure);
    CHECK(read->agents[0].graph.region_reach == g.region_reach);
  }
  auto setSchema = [&](std::int32_t version) {
    h5::File file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    REQUIRE(file);
    h5::Attribute attribute(H5Aopen(file.get(), "schema_version", H5P_DEFAULT));
    REQUIRE(H5Awrite(attribute.get(), H5T_NATIVE_INT32, &version) >= 0);
  };
  auto deleteClosureFlag = [&] {
    h5::File file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    REQUIRE(file);
    REQUIRE(H5Adelete_by_name(file.get(), "/navigation/agents/walker", "region_reach_closure", H5P_DEFAULT) >= 0);
  };
  // Schema 3 without the attribute: refused, naming the agent.
  deleteClosureFlag();
  {
    auto read = formats::readWorldFile(path);
    REQUIRE_FALSE(read.ok());
    CHECK(read.error().message.find("/navigation/agents/walker") != std::string::npos);
    CHECK(read.error().message.find("region_reach_closure") != std::string::npos);
  }
  // Schema 2 (no attribute): the closure.
  setSchema(2);
  {
    auto read = formats::readWorldFile(path);
    REQUIRE(read.ok());
    CHECK(read->agents[0].graph.region_reach_closure);
  }
  // A value other than 0 or 1: refused.
  g.region_reach_closure = true;
  REQUIRE(formats::writeWorldFile(path, world).ok());
  {
    h5::File file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    REQUIRE(file);
    REQUIRE(H5Adelete_by_name(file.get(), "/navigation/agents/walker", "region_reach_closure", H5P_DEFAULT) >= 0);
    h5::Dataspace scalar(H5Screate(H5S_SCALAR));
    h5::Attribute attribute(H5Acreate_by_name(file.get(), "/navigation/agents/walker", "region_reach_closure", H5T_STD_I32LE,
                                              scalar.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    const std::int32_t two = 2;
    REQUIRE(H5Awrite(attribute.get(), H5T_NATIVE_INT32, &two) >= 0);
  }
  auto read = formats::readWorldFile(path);
  REQUIRE_FALSE(read.ok());
  CHECK(read.error().message.find("region_reach_closure") != std::string::npos);
}

TEST_CASE("world reader: a component or region count wider than int32 is refused, not cut to 32 bits",
          "[formats][world_file][validation]") {
  // A count of 2^32 + 2 stored as int64 read as 2 components (a hunt).
  TempDir dir;
  const std::filesystem::path path = dir / "w.h5";
  const formats::World world = twoAgentWorld();
  for (const char* name : {"component_count", "region_count"}) {
    INFO(name);
    REQUIRE(formats::writeWorldFile(path, world).ok());
    {
      h5::File file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
      REQUIRE(file);
      REQUIRE(H5Adelete_by_name(file.get(), "/navigation/agents/walker", name, H5P_DEFAULT) >= 0);
      h5::Dataspace scalar(H5Screate(H5S_SCALAR));
      h5::Attribute attribute(H5Acreate_by_name(file.get(), "/navigation/agents/walker", name, H5T_STD_I64LE, scalar.get(),
                                                H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
      const std::int64_t wide = (std::int64_t{1} << 32) + world.agents[0].graph.component_count;
      REQUIRE(H5Awrite(attribute.get(), H5T_NATIVE_INT64, &wide) >= 0);
    }
    auto read = formats::readWorldFile(path);
    REQUIRE_FALSE(read.ok());
    CHECK(read.error().message.find("/navigation/agents/walker: component or region count above 2147483647") !=
          std::string::npos);
  }
}

TEST_CASE("world reader: a column grid not laid over the geometry is refused before the columns are read",
          "[formats][world_file][validation]") {
  // grid_cells edited to 20,000 x 20,000 (with column offsets to match) cost 10 s and 1.6 GB
  // before the grid was compared with the geometry (a hunt); the grid is now checked first, so
  // the message names the grid whatever the column arrays hold.
  TempDir dir;
  const std::filesystem::path path = dir / "w.h5";
  REQUIRE(formats::writeWorldFile(path, twoAgentWorld()).ok());
  {
    h5::File file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    REQUIRE(file);
    h5::Dataset cells(H5Dopen2(file.get(), "/navigation/agents/walker/grid_cells", H5P_DEFAULT));
    REQUIRE(cells);
    const std::int32_t huge[2] = {20000, 20000};
    REQUIRE(H5Dwrite(cells.get(), H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, huge) >= 0);
  }
  auto read = formats::readWorldFile(path);
  REQUIRE_FALSE(read.ok());
  CHECK_THAT(read.error().message,
             Catch::StartsWith(path.string() +
                               ": /navigation/agents/walker/grid_cells: the column grid does not cover the geometry as a bake lays it"));
}
