#pragma once
// Internal: the bake stages after the columns (one file each), run by bake.cpp in this order.

#include <cstdint>
#include <string>
#include <vector>

#include "strata/nav/layered_graph.h"
#include "strata/nav/layered_search.h"
#include "strata/nav/profile.h"
#include "strata/sim/mesh.h"
#include "strata/sim/result.h"

namespace strata::nav {

/// area_stage.cpp: fills graph.area_names / area_costs from the profile and returns the area of
/// every mesh triangle (first matching label or tag rule; 0 = "default").
std::vector<uint16_t> triangleAreas(const sim::TriangleMesh& mesh, const AgentProfile& profile, LayeredGraph& graph);
/// area_stage.cpp: per modifier volume of `profile`, the index of its area in `area_names` (the
/// table profileAreaTable made), found through a hash index: O(names + volumes).
std::vector<uint16_t> modifierAreas(const AgentProfile& profile, const std::vector<std::string>& area_names);
/// area_stage.cpp: overrides node areas inside modifier volumes (later volumes win) and flags them.
/// A volume that holds no node gets a line in `warnings` (when not null), named like the bake's
/// errors (`source`: the mesh).
void applyModifierVolumes(const AgentProfile& profile, LayeredGraph& graph, const std::string& source,
                          std::vector<std::string>* warnings);
/// Whether a modifier volume's box holds a floor node at `position` (its column centre and
/// stored height): the box's horizontal sides within kModifierSideTolerance (column centres are
/// computed from their index: 1.5 * 0.3 = 0.44999999999999996), its bottom and top within the
/// rules' height tolerance (1 mm) plus float32's spacing at the height (float32Spacing), since floor
/// heights are stored in float32 (a box from 3.2 to 3.2 missed a floor authored at 3.2, stored as
/// 3.2000000477; one at 70000.3 the floor stored as 70000.296875).
bool modifierHolds(const sim::Aabb& box, const sim::Vec3& position);
/// Metres: how far outside a modifier box's x or z side a column centre still counts as inside
/// (modifierHolds).
inline constexpr double kModifierSideTolerance = 1e-6;
/// The columns of `grid` whose centres a modifier box may hold (modifierHolds), clamped to the
/// grid: x0..x1 by z0..z1, empty when x0 > x1 or z0 > z1. The bake and the on-demand search both
/// visit a volume's columns by it.
struct ColumnRange {
  int32_t x0, x1, z0, z1;
};
ColumnRange modifierColumns(const GridFrame& grid, const sim::Aabb& box);
/// area_stage.cpp: one warning per area rule and climbable glob that matches no surface label
/// (or tag) of the mesh: such an entry changes nothing, most often a misspelt name or a tag path
/// written as in the source file instead of as imported; and one for climbable labels given to
/// an agent that cannot climb. Named where the profile wrote them when it says so, else like the
/// bake's errors.
void unmatchedGlobWarnings(const sim::TriangleMesh& mesh, const AgentProfile& profile, const std::string& source,
                           std::vector<std::string>& warnings);
/// area_stage.cpp: per triangle, 1 when its label matches a climbable glob.
std::vector<uint8_t> climbableTriangles(const sim::TriangleMesh& mesh, const AgentProfile& profile);

/// link_stage.cpp: snaps the profile's links to nodes and fills links / link_offsets /
/// link_labels, with the edge stage's `second_jumps` (kind Jump) among them. Errors name the
/// agent and the link. A link whose ends snap to one node is left out with a line in `warnings`
/// (when not null).
Status addCustomLinks(const AgentProfile& profile, LayeredGraph& graph, const std::string& source,
                      std::vector<OffMeshLink> second_jumps = {}, std::vector<std::string>* warnings = nullptr);

/// "no floor within 2 m across and 2 m up or down": the words of every error for a link end that
/// snaps to nothing (the bake's links, on-demand search's links).
std::string noFloorWithin(const AgentSettings& settings);

/// How the bake's warnings and errors name a profile entry. Where the profile parser recorded
/// where it was written (`written`, "P.toml:5:1: agent.a.links[0]"): `name` is that and
/// `detail` ("('zip')"), and `in` (" in MESH") names the geometry, the other party, after the
/// problem. Else (a profile made in code): `name` is the mesh, the agent and `fallback`
/// ("MESH: agent a: link 0 ('zip')"), and `in` is empty.
struct ProfileEntryName {
  std::string name;
  std::string in;
};
ProfileEntryName profileEntryName(const std::string& written, const std::string& mesh, const std::string& agent,
                                  const std::string& fallback, const std::string& detail);
/// The node a link end snaps to: the floor under the point by the queries' rule (snapToNode: the
/// floor below it, or up to 0.5 m above it, never one through a ceiling) within
/// link_snap_distance across and link_snap_height below; when there is none, the nearest floor
/// in 3-D within link_snap_distance across and link_snap_height up or down (a point under the
/// level, where link_snap_height allows it), never a floor above a ceiling over the point (one
/// above the top of the room of a lower floor of its column that holds the point). kNoNode when
/// neither finds one.
uint32_t snapEndpoint(const LayeredGraph& graph, const sim::Vec3& point, const AgentSettings& settings);
/// Per custom link of the profile: the first area rule (index) whose label glob matches the
/// link's label, -1 when none does (literal globs through a hash index, as the surfaces' rules).
std::vector<int> linkLabelRules(const AgentProfile& profile);
/// A custom link's cost: its `cost` when given; else its straight-line length (between the ends
/// as written, at least 0.001) times the cost of the area rule `label_rule` (linkLabelRules; spec:
/// "A custom link can use its own label's cost"), or 1 when it is -1. +inf (a label whose area
/// costs inf) leaves the link out.
double customLinkCost(const AgentProfile& profile, const LinkSpec& spec, int label_rule);
/// link_snap_height with the edge rules' height tolerance (kHeightTolerance): an end written at a
/// floor's modelled height lies within float32 rounding of it, also with link_snap_height 0.
double linkSnapHeight(const AgentSettings& settings);
/// Sorts graph.links by (from_node, profile_index, to_node) and rebuilds link_offsets (a node's
/// second jumps, profile_index kNoLinkLabel, come after its custom links).
void indexLinks(LayeredGraph& graph);

/// clearance_stage.cpp: border flags and per-node clearance (radius + route distance over walk
/// edges to the nearest border node).
void computeClearance(double radius, LayeredGraph& graph);

/// component_stage.cpp: the closure budget of a graph of `nodes` nodes (region_reach entries):
/// max(2^20, 8 x nodes).
std::size_t regionClosureBudget(std::size_t nodes);
/// component_stage.cpp: weakly connected components over edges and links, ids in node order;
/// strongly connected regions, numbered by lowest node; region_reach: each region's closure
/// when all of them hold at most `max_closure_entries` entries, else each region's direct
/// successors (graph.region_reach_closure says which).
void computeComponents(LayeredGraph& graph, std::size_t max_closure_entries);
inline void computeComponents(LayeredGraph& graph) { computeComponents(graph, regionClosureBudget(graph.nodeCount())); }

/// route_field_stage.cpp: Dijkstra flood of edge and link costs from one node, up to
/// max_distance (+inf beyond / unreachable).
std::vector<float> floodRouteDistance(const LayeredGraph& graph, uint32_t origin, double max_distance);
/// route_field_stage.cpp: the profile's named fields. Errors name the agent and the field.
Status computeRouteFields(const AgentProfile& profile, LayeredGraph& graph, const std::string& source);

}  // namespace strata::nav
