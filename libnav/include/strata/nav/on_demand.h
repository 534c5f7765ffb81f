#pragma once
/// \file
/// On-demand layered search over an unbaked world (spec: character-movement-and-navigation.md,
/// "Surface columns instead of a single height field"): the search region is a horizontal grid of
/// columns spanning the endpoints and a margin, and columns are built as the search reaches them,
/// by the same ColumnBuilder and the same edge rules as the offline bake, so the two agree
/// wherever their grids coincide (tests/nav/on_demand_test.cpp compares every edge).
///
/// Region rules:
///  - the rectangle of the two endpoints, grown by `margin` (at least the snap radius, so that
///    an endpoint snaps as in the bake whatever the margin) on every side, then, at expansion
///    factor f, grown by (f - 1) times its longer half-side on every side (the longer side is
///    scaled by f about the centre, the shorter grows by the same distance, so even a region as
///    narrow as the endpoints widens); factors 1, 2 and 4 are tried in turn while the search
///    answers NoPath (the region ran out); any other answer is final;
///  - cell size: the larger of the region's longer horizontal side / 128 and the agent's cell
///    size (`AgentSettings::effectiveCellSize()`: the radius clamped, as in the bake), so a region
///    never has more than about 129 columns a side; the grid is aligned to multiples of the cell
///    size, as the bake's is; in a region of coarser cells each endpoint's snapped floor is
///    compared with the one a probe at the agent's own cell size finds: farther in height than
///    walking could rise between their column centres (step_height + distance x tan(max_slope)),
///    the coarse grid missed the endpoint's floor (a roof narrower than a cell, the road below
///    taken for it): NoStartNode / NoGoalNode in the first region, and in an enlarged one the
///    answer of the region before it (NoPath), as when an enlarged region's cells leave an
///    endpoint no floor to snap to;
///  - vertical extent: floors lower than `vertical_extent` below the lower endpoint, or higher than
///    `vertical_extent` plus the agent height above the higher endpoint, are left out;
///  - endpoints more than `LayeredSearchLimits::max_horizontal_distance` apart: NoPath; at most
///    `max_expansions` node expansions per region.
/// Custom links of the profile join the nodes nearest their ends (within link_snap_distance and link_snap_height)
/// when both ends lie inside the region. Only A* runs on demand (Theta*, Corridor and Direct need
/// a baked graph). Components are not known on demand, so an unreachable goal costs a full
/// search of each region.

#include <cstdint>
#include <string>
#include <vector>

#include "strata/nav/layered_search.h"
#include "strata/nav/profile.h"
#include "strata/sim/mesh.h"
#include "strata/sim/query_index.h"
#include "strata/sim/result.h"

namespace strata::nav {

/// Region settings of the on-demand search.
struct OnDemandSettings {
  double margin = 8.0;              ///< metres added around the endpoints' rectangle at factor 1. [Limit: 0 .. kMaxMargin]
  static constexpr double kMaxMargin = 10000;  ///< largest margin, metres (far beyond the 2,048-stud route limit)
  double max_columns_per_side = 128;///< the spec's span / 128 cell-size term. [Limit: >= 8]
  double vertical_extent = 26.88;   ///< metres below the lower / above the higher endpoint (96 studs). [Limit: > 0, finite]
  /// Checks every field; the message names the field.
  Status validate() const;
};

/// The region of one attempt.
struct OnDemandRegion {
  GridFrame grid;        ///< columns of the region (aligned to multiples of the cell size)
  double min_height = 0; ///< lowest floor kept, metres
  double max_height = 0; ///< highest floor kept, metres
  int factor = 1;        ///< expansion factor of this attempt
};

/// The region for endpoints `from`, `to` at expansion `factor` (rules in the file comment).
/// `snap_reach`: the endpoints' snap radius (SnapSettings::max_horizontal); the region reaches at
/// least that far round each endpoint whatever the margin, so that an endpoint snaps to the
/// floor the baked search would (a margin of 0 cut the snap off at the region's edge).
OnDemandRegion onDemandRegion(const AgentSettings& agent, const sim::Vec3& from, const sim::Vec3& to, int factor,
                              const OnDemandSettings& settings, double snap_reach = 0);

/// An on-demand answer: the path, and what it cost to build.
struct OnDemandPath {
  PathResult path;              ///< as findLayeredPath's (node ids are those of the last region's snapshot; expansions: every region's search, which share the budget)
  OnDemandRegion region;        ///< the region of the last attempt
  int regions = 0;              ///< regions searched (1-3; 0 when the horizontal limit answered before any)
  std::size_t columns_built = 0;///< columns built over all attempts
  std::size_t nodes_built = 0;  ///< floor nodes found in them
  std::vector<std::string> area_names; ///< names of the waypoints' area indices (the profile's areas)
  std::vector<std::string> link_labels;///< labels of the waypoints' link indices (Waypoint::link)
};

/// Finds a route from `from` to `to` over `mesh` (whose query index is `index`) for `agent`,
/// building columns on demand. BadInput when a setting is invalid or the method is not AStar.
Result<OnDemandPath> findOnDemandPath(const sim::TriangleMesh& mesh, const sim::QueryIndex& index,
                                      const AgentProfile& agent, const sim::Vec3& from, const sim::Vec3& to,
                                      const LayeredSearchSettings& settings, const OnDemandSettings& region,
                                      SearchState& state);

}  // namespace strata::nav
