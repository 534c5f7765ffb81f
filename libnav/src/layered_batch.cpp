// Batches of layered path requests on a oneTBB task arena of the requested size. Each worker
// thread keeps its own SearchState (enumerable_thread_specific), so a search never shares
// memory with another; every result is written to its request's slot, so the output order and
// content do not depend on scheduling.

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>

#include "strata/nav/layered_search.h"

namespace strata::nav {

void findLayeredPaths(const std::vector<const LayeredSearchGraph*>& agents, std::span<const LayeredPathRequest> requests,
                      int threads, std::size_t chunk,
                      const std::function<bool(std::size_t first, std::vector<PathResult>& results)>& done) {
  chunk = std::max<std::size_t>(chunk, 1);
  tbb::enumerable_thread_specific<SearchState> states;
  tbb::task_arena arena(threads > 0 ? threads : tbb::task_arena::automatic);
  std::vector<PathResult> results;
  for (std::size_t first = 0; first < requests.size(); first += chunk) {
    const std::size_t count = std::min(chunk, requests.size() - first);
    results.assign(count, PathResult{});
    auto run = [&](std::size_t i) {
      const LayeredPathRequest& request = requests[first + i];
      if (request.agent >= agents.size() || agents[request.agent] == nullptr) {
        results[i].failure = PathFailure::NoStartNode;
        return;
      }
      results[i] = findLayeredPath(*agents[request.agent], request.from, request.to, request.settings, states.local());
    };
    arena.execute([&] {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, count, 1), [&](const tbb::blocked_range<std::size_t>& range) {
        for (std::size_t i = range.begin(); i != range.end(); ++i) run(i);
      });
    });
    if (!done(first, results)) return;
  }
}

std::vector<PathResult> findLayeredPaths(const std::vector<const LayeredSearchGraph*>& agents,
                                         std::span<const LayeredPathRequest> requests, int threads) {
  std::vector<PathResult> all;
  findLayeredPaths(agents, requests, threads, std::max<std::size_t>(requests.size(), 1),
                   [&](std::size_t, std::vector<PathResult>& results) {
                     all = std::move(results);
                     return true;
                   });
  all.resize(requests.size());
  return all;
}

}  // namespace strata::nav
