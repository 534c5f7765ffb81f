#pragma once
// Internal: the corridor method's route search over the rectangle graph (corridor_search.cpp).

#include <cstdint>
#include <vector>

#include "strata/nav/corridor.h"

namespace strata::nav::detail {

/// Outcome of a route search: on success `chain` holds the edges from the start rectangle to the
/// goal rectangle, in order.
struct RouteSearch {
  bool found = false;
  int64_t expansions = 0;  ///< search nodes expanded
  double cost = 0;         ///< the route's cost in the plane (found only)
};

/// Interval search (Polyanya, Cui, Harabor & Grastien 2017) over the corridor index's
/// rectangles taken as cells [x0 - 0.5, x1 + 0.5] x [z0 - 0.5, z1 + 0.5] in column units, joined
/// through their portals (the shared side of a run's columns); special edges jump from the
/// take-off column's centre to the landing column's centre at their own cost. A search node is
/// a root point (the start, a landing, or a portal end the route turns round) with an interval
/// of a portal seen from it; the search returns the rectangles of the shortest route in that
/// plane (horizontal length times `cost_per_metre`, plus the special edges' costs), which the
/// caller string-pulls through the column centres. Only for graphs whose rectangles share one
/// area cost, `cost_per_metre` (walking costs that per metre; the heuristic takes the lower of it
/// and the view's costPerMetre, which cheap links lower). `max_expansions` 0 = unlimited.
RouteSearch searchIntervals(const CorridorIndex& index, NodeId start, NodeId goal, double cost_per_metre,
                            int64_t max_expansions, std::vector<const CorridorEdge*>& chain);

}  // namespace strata::nav::detail
