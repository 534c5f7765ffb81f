#pragma once
// The arithmetic the search heuristics and the link rules share (internal): one definition of
// the octile metric, of the cheapest rate a walked metre can cost, and of an enterable area, for
// the grid graph, the baked layered graph, on-demand search and the bake's link stage.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace strata::nav::detail {

inline constexpr double kSqrt2 = 1.4142135623730951;

/// Octile distance: the length of the shortest 8-connected route |dx| across and |dz| along
/// (straight steps 1, diagonal steps sqrt 2), in the unit of dx and dz.
inline double octile(double dx, double dz) {
  dx = std::abs(dx), dz = std::abs(dz);
  return dx > dz ? dx + (kSqrt2 - 1.0) * dz : dz + (kSqrt2 - 1.0) * dx;
}

/// Whether a node of `area` may be entered: an area without an entry in `costs` costs 1, and an
/// area of infinite cost is never entered (no edge or link lands in it).
inline bool enterableArea(const std::vector<float>& costs, uint16_t area) {
  return area >= costs.size() || std::isfinite(costs[area]);
}

/// `area_costs` with +inf for each area that `present` (a flag per area) does not mark: areas no
/// floor has, which the heuristic's rate must not count (a floor all of mud at cost 2 under the
/// table's "default" at 1 halved the heuristic: an audit).
inline std::vector<float> presentAreaCosts(std::vector<float> area_costs, const std::vector<uint8_t>& present) {
  for (std::size_t a = 0; a < area_costs.size(); ++a)
    if (a >= present.size() || !present[a]) area_costs[a] = std::numeric_limits<float>::infinity();
  return area_costs;
}

/// The cost per metre an admissible heuristic may charge: the cheapest finite area cost (1 when
/// no area has one), lowered by every link cheaper than walking its span. The span is measured in
/// each heuristic's own metric: a link at a slant spans more octile metres than euclidean ones,
/// so A*'s octile heuristic may need a lower rate than Theta*'s euclidean one.
struct HeuristicRates {
  double euclidean = 1.0;
  double octile = 1.0;

  HeuristicRates() = default;
  explicit HeuristicRates(const std::vector<float>& area_costs) {
    double cheapest = std::numeric_limits<double>::infinity();
    for (float cost : area_costs)
      if (std::isfinite(cost) && cost > 0) cheapest = std::min(cheapest, static_cast<double>(cost));
    euclidean = octile = std::isfinite(cheapest) ? cheapest : 1.0;
  }

  /// A link of `cost` whose ends lie dx across and dz along apart (metres).
  void addLink(double dx, double dz, double cost) {
    cost = std::max(0.0, cost);
    const double span = std::hypot(dx, dz);
    if (span > 0) euclidean = std::min(euclidean, cost / span);
    const double octile_span = detail::octile(dx, dz);
    if (octile_span > 0) octile = std::min(octile, cost / octile_span);
  }
};

}  // namespace strata::nav::detail
