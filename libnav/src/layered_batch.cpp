// Batches of layered path requests on a oneTBB task arena of the requested size. Each worker
// thread keeps its own SearchState (enumerable_thread_specific), so a search never shares
// memory with another; every result is written to its request's slot, so the output order and
// content do not depend on scheduling.

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "strata/nav/layered_search.h"

namespace strata::nav {

std::vector<PathResult> findLayeredPaths(const std::vector<const LayeredSearchGraph*>& agents,
                                         const std::vector<LayeredPathRequest>& requests, int threads) {
  std::vector<PathResult> results(requests.size());
  tbb::enumerable_thread_specific<SearchState> states;
  auto run = [&](std::size_t i) {
    const LayeredPathRequest& request = requests[i];
    if (request.agent >= agents.size() || agents[request.agent] == nullptr) {
      results[i].failure = PathFailure::NoStartNode;
      return;
    }
    results[i] = findLayeredPath(*agents[request.agent], request.from, request.to, request.settings, states.local());
  };
  tbb::task_arena arena(threads > 0 ? threads : tbb::task_arena::automatic);
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, requests.size(), 1), [&](const tbb::blocked_range<std::size_t>& range) {
      for (std::size_t i = range.begin(); i != range.end(); ++i) run(i);
    });
  });
  return results;
}

}  // namespace strata::nav
