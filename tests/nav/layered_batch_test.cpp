// Batches of layered path requests: input order and identical results for any thread count.

#include <catch2/catch.hpp>

#include <random>

#include "layered_fixtures.h"
#include "strata/nav/layered_search.h"
#include "test_support.h"

using namespace strata;
using namespace strata::nav;
using strata::test::LayeredBuilder;

TEST_CASE("layered batch: results in input order, identical across thread counts", "[nav][layered][batch]") {
  std::mt19937 rng(11);
  LayeredBuilder b(40, 40);
  b.addRandomFloors(rng);
  const auto g = b.build();
  const AgentSettings agent;
  const LayeredSearchGraph view(g, agent);
  std::vector<LayeredPathRequest> requests;
  std::uniform_real_distribution<double> coord(0, 40);
  for (int i = 0; i < 300; ++i) {
    LayeredPathRequest r;
    r.from = {coord(rng), 0, coord(rng)};
    r.to = {coord(rng), 0, coord(rng)};
    r.settings.method = i % 3 == 0 ? SearchMethod::Theta : (i % 3 == 1 ? SearchMethod::AStar : SearchMethod::Direct);
    requests.push_back(r);
  }
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
