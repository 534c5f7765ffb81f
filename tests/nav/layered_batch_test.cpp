// Batches of layered path requests: input order and identical results for any thread count.

#include <catch2/catch.hpp>

#include <random>

#include "layered_fixtures.h"
#include "strata/nav/layered_search.h"
#include "test_support.h"

using namespace strata;
using namespace strata::nav;
using strata::test::LayeredBuilder;

namespace {

// `count` requests between random points of a size x size floor, the methods taken in turn.
std::vector<LayeredPathRequest> randomRequests(std::mt19937& rng, int count, double size, const std::vector<SearchMethod>& methods) {
  std::vector<LayeredPathRequest> requests;
  std::uniform_real_distribution<double> coord(0, size);
  for (int i = 0; i < count; ++i) {
    LayeredPathRequest r;
    r.from = {coord(rng), 0, coord(rng)};
    r.to = {coord(rng), 0, coord(rng)};
    r.settings.method = methods[std::size_t(i) % methods.size()];
    requests.push_back(r);
  }
  return requests;
}

// A size x size world of random floors, and the generator that made it (for the requests).
struct RandomWorld {
  RandomWorld(uint32_t seed, int size) : rng(seed) {
    LayeredBuilder b(size, size);
    b.addRandomFloors(rng);
    g = b.build();
  }
  std::mt19937 rng;
  LayeredGraph g;
  AgentSettings agent;
};

}  // namespace

TEST_CASE("layered batch: results in input order, identical across thread counts", "[nav][layered][batch]") {
  RandomWorld w(11, 40);
  const LayeredSearchGraph view(w.g, w.agent);
  std::vector<LayeredPathRequest> requests =
      randomRequests(w.rng, 300, 40, {SearchMethod::Theta, SearchMethod::AStar, SearchMethod::Direct});
  LayeredPathRequest bad_agent;
  bad_agent.agent = 5;
  requests.push_back(bad_agent);
  const auto one = findLayeredPaths({&view}, requests, 1);
  REQUIRE(one.size() == requests.size());
  CHECK(one.back().failure == PathFailure::NoStartNode);
  // Order: each slot is the answer to its own request.
  SearchState state;
  for (std::size_t i = 0; i + 1 < requests.size(); i += 17) {
    const auto single = findLayeredPath(view, requests[i].from, requests[i].to, requests[i].settings, state);
    CHECK(single.failure == one[i].failure);
    CHECK(single.nodes == one[i].nodes);
  }
  std::size_t found = 0;
  for (const auto& r : one) found += r.ok();
  CHECK(found > 50);
  for (int threads : {2, 3, 0}) {
    const auto many = findLayeredPaths({&view}, requests, threads);
    REQUIRE(many.size() == one.size());
    for (std::size_t i = 0; i < one.size(); ++i) {
      CHECK(many[i].failure == one[i].failure);
      CHECK(many[i].nodes == one[i].nodes);
      CHECK(many[i].cost == one[i].cost);
      CHECK(many[i].expansions == one[i].expansions);
    }
  }
}

TEST_CASE("layered batch: chunk by chunk, the same results in order, and a stop when asked", "[nav][layered][batch]") {
  RandomWorld w(12, 30);
  const LayeredSearchGraph view(w.g, w.agent);
  const std::vector<LayeredPathRequest> requests = randomRequests(w.rng, 101, 30, {SearchMethod::AStar, SearchMethod::Corridor});
  const auto whole = findLayeredPaths({&view}, requests, 1);
  for (const std::size_t chunk : {std::size_t(1), std::size_t(7), std::size_t(100), std::size_t(101), std::size_t(500)}) {
    for (const int threads : {1, 2}) {
      CAPTURE(chunk, threads);
      std::vector<std::size_t> firsts;
      std::vector<PathResult> joined;
      findLayeredPaths({&view}, requests, threads, chunk, [&](std::size_t first, std::vector<PathResult>& results) {
        firsts.push_back(first);
        CHECK(first == joined.size());
        CHECK(results.size() == std::min(chunk, requests.size() - first));
        for (PathResult& r : results) joined.push_back(std::move(r));
        return true;
      });
      CHECK(firsts.size() == (requests.size() + chunk - 1) / chunk);
      REQUIRE(joined.size() == whole.size());
      for (std::size_t i = 0; i < whole.size(); ++i) {
        CHECK(joined[i].failure == whole[i].failure);
        CHECK(joined[i].nodes == whole[i].nodes);
        CHECK(joined[i].cost == whole[i].cost);
      }
    }
  }
  // Returning false stops after that chunk.
  int calls = 0;
  findLayeredPaths({&view}, requests, 2, 10, [&](std::size_t, std::vector<PathResult>&) { return ++calls < 3; });
  CHECK(calls == 3);
  // No requests: no call.
  findLayeredPaths({&view}, std::span<const LayeredPathRequest>(), 1, 10, [&](std::size_t, std::vector<PathResult>&) {
    FAIL("called for an empty batch");
    return true;
  });
  CHECK(findLayeredPaths({&view}, std::span<const LayeredPathRequest>(), 1).empty());
}
