// What large worlds rely on: a search's records cost only the memory the search touches
// (SearchState); LayeredGraph::validate, which checks the per-node and per-slot arrays in
// parallel, still names the first bad node or slot, as a serial scan would; link offsets built
// in parallel equal a serial count.

#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "bake_fixtures.h"
#include "strata/nav/search.h"

using namespace strata;
using strata::nav::EdgeKind;
using strata::nav::kNoNode;

namespace {

// Resident memory of this process, bytes (Linux /proc/self/statm).
std::size_t residentBytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long size = 0, resident = 0;
  const int read = std::fscanf(f, "%lu %lu", &size, &resident);
  std::fclose(f);
  return read == 2 ? resident * static_cast<std::size_t>(sysconf(_SC_PAGESIZE)) : 0;
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

}  // namespace

TEST_CASE("SearchState: a search over a huge graph writes only the records it touches", "[nav][search]") {
  nav::SearchState state;
  constexpr std::size_t kNodes = 40'000'000;  // 800 MB of stamps and records
  const std::size_t before = residentBytes();
  state.begin(kNodes);
  for (nav::NodeId n : {0u, 12'345'678u, 39'999'999u}) {
    nav::SearchState::Record& r = state.touch(n);
    CHECK(r.g == std::numeric_limits<double>::infinity());
    CHECK(r.parent == kNoNode);
    CHECK_FALSE(state.closed(n));
    CHECK(state.arrival(n) == nav::MoveAction::Walk);
    r.g = 1.5;
  }
  CHECK(state.reached(12'345'678u));
  CHECK_FALSE(state.reached(12'345'679u));
  CHECK_FALSE(state.reached(20'000'000u));
  // Sanitizers keep their own allocator and shadow memory: the resident figure means nothing there.
  if (!kSanitized) CHECK(residentBytes() - before < (64u << 20));

  // A new search forgets the old records; records stay valid when a graph grows mid-search.
  state.begin(kNodes);
  CHECK_FALSE(state.reached(12'345'678u));
  state.touch(7).g = 3.0;
  state.touch(kNodes + 100);  // beyond the records: they grow, the search's records are kept
  CHECK(state.reached(7));
  CHECK(state.record(7).g == 3.0);
  CHECK(state.reached(kNodes + 100));
  CHECK_FALSE(state.reached(8));
}

TEST_CASE("NodeArray: large arrays come whole in 2 MiB pages, small ones as before", "[nav][bake]") {
  // A world's big per-node arrays are asked for in transparent huge pages (madvise): each 4 KiB
  // page was a fault of its own, 1.4 million faults and 10 s of system time to load a
  // 47-million-node world. The advice needs 2 MiB-aligned memory.
  constexpr std::uintptr_t kHugePage = std::uintptr_t(2) << 20;
  nav::NodeArray<uint32_t> large;
  large.resize(nav::detail::kLargeArrayBytes / sizeof(uint32_t) + 3);
  CHECK(reinterpret_cast<std::uintptr_t>(large.data()) % kHugePage == 0);
  std::fill(large.begin(), large.end(), 7u);  // the whole allocation is usable
  large.resize(large.size() * 3);             // regrown: moved into a new large allocation
  CHECK(reinterpret_cast<std::uintptr_t>(large.data()) % kHugePage == 0);
  CHECK(large[5] == 7u);
  CHECK(std::count(large.begin(), large.begin() + 1000, 7u) == 1000);
  nav::NodeArray<uint8_t> small(1000, 3);
  CHECK(small[999] == 3);
  large.clear();
  large.shrink_to_fit();  // the large allocation freed
  CHECK(large.capacity() == 0);
}

TEST_CASE("LayeredGraph::validate names the first bad node and the first bad slot", "[nav][bake]") {
  // A 70 m x 70 m floor at 0.25 m: 78,400 nodes and 627,200 slots, several of validate's
  // parallel blocks (65,536 entries each) for both.
  test::MeshBuilder level;
  level.floor(0, 0, 70, 70, 0);
  const nav::BakedAgent baked = test::bakeOne(level.mesh(), test::testAgent(), 2);
  const nav::LayeredGraph& good = baked.graph;
  REQUIRE(good.nodeCount() == 78'400);
  REQUIRE(good.validate().empty());
  const auto bad_area = static_cast<uint16_t>(good.area_names.size());

  SECTION("nodes") {
    nav::LayeredGraph g = good;
    g.area[70'000] = bad_area;
    CHECK(g.validate() == "node 70000: area out of range");
    g.component[1'000] = g.component_count;
    CHECK(g.validate() == "node 1000: component out of range");
    g.area[999] = bad_area;
    CHECK(g.validate() == "node 999: area out of range");
    g = good;
    g.region[77'000] = g.region_count;
    g.region[66'000] = g.region_count + 3;
    CHECK(g.validate() == "node 66000: region out of range");
  }
  SECTION("slots") {
    nav::LayeredGraph g = good;
    g.edge_kind[600'000] = 200;
    CHECK(g.validate() == "node 75000, direction 0 (slot 600000): bad edge kind");
    g.neighbor[300'001] = static_cast<uint32_t>(good.nodeCount() + 5);
    g.edge_kind[300'001] = static_cast<uint8_t>(EdgeKind::Walk);
    CHECK(g.validate() == "node 37500, direction 1 (slot 300001): neighbour out of range");
    g.edge_kind[70'000] = static_cast<uint8_t>(EdgeKind::None);
    g.neighbor[70'000] = 0;
    CHECK(g.validate() == "node 8750, direction 0 (slot 70000): kind and neighbour disagree");
  }
}

TEST_CASE("LayeredGraph::indexLinkOffsets matches a serial count over many parallel blocks", "[nav][bake]") {
  nav::LayeredGraph g;
  g.height.assign(200'000, 0.0f);  // nodeCount(): about three blocks of 65,536
  std::mt19937 rng(7);
  std::uniform_int_distribution<uint32_t> node(0, 199'999);
  for (int i = 0; i < 5'000; ++i) g.links.push_back({node(rng), node(rng), 1.0f, 0, 0, false});
  // Runs of links from one node, nodes at the ends and at block edges.
  for (uint32_t n : {0u, 0u, 65'535u, 65'536u, 65'536u, 131'072u, 199'999u, 199'999u}) g.links.push_back({n, 1, 1.0f, 0, 0, false});
  std::sort(g.links.begin(), g.links.end(), [](const auto& a, const auto& b) { return a.from_node < b.from_node; });
  g.indexLinkOffsets();
  std::vector<uint32_t> expected(g.nodeCount() + 1, 0);
  for (const nav::OffMeshLink& link : g.links) ++expected[link.from_node + 1];
  for (std::size_t n = 0; n + 1 < expected.size(); ++n) expected[n + 1] += expected[n];
  REQUIRE(g.link_offsets.size() == expected.size());
  CHECK(std::equal(expected.begin(), expected.end(), g.link_offsets.begin()));
  for (const uint32_t n : {0u, 65'536u, 199'999u})
    for (uint32_t i = g.link_offsets[n]; i < g.link_offsets[n + 1]; ++i) CHECK(g.links[i].from_node == n);

  g.links.clear();  // no links: all zero
  g.indexLinkOffsets();
  CHECK(std::all_of(g.link_offsets.begin(), g.link_offsets.end(), [](uint32_t v) { return v == 0; }));
}
