#pragma once
/// \file
/// Navigation queries on a baked layered graph (issue 5): nearest walkable point, the floors of
/// a column, walking line vs sight line, components, route-distance fields (baked lookup and an
/// on-demand Dijkstra flood) and clearance. Spec: grid-pathfinding-library.md ("Forgiving
/// inputs", "Feet and photons", "Distance fields") carried over to stacked floors.
///
/// Multi-storey rule: a point picks, in each column, the floor *below* it (the highest floor not
/// more than `SnapSettings::above` over the point, unless the point lies in the room of the floor
/// beneath that one, under its ceiling), never a floor that is nearer in 3-D through a ceiling.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "strata/nav/agent.h"
#include "strata/nav/layered_graph.h"
#include "strata/nav/layered_search.h"
#include "strata/sim/math.h"
#include "strata/sim/query_index.h"
#include "strata/sim/result.h"

namespace strata::nav {

/// A floor node a query landed on.
struct FloorHit {
  NodeId node = kNoNode;          ///< the node
  sim::Vec3 position;             ///< its column centre at its floor height, metres
  double horizontal_distance = 0; ///< from the query point to `position`, metres
};

/// The floor of column (x, z) below `point` (highest whose surface under the point, its height
/// carried along its plane to the point's x/z clamped into the column, is <= y + above and
/// >= y - below;
/// a floor above the point only when the point is not clearly in the room of the floor beneath
/// it, more than 1 cm under its ceiling, height + headroom, carried to the point's own x/z
/// (clamped into the column) along the floor above's plane: a point 0.2 m under a 0.2 m slab is
/// in the room below, while a point at a thin floor's height or just above a ramp is on it),
/// kNoNode when none or when the column is outside the grid.
NodeId floorBelowAt(const LayeredGraph& graph, int32_t x, int32_t z, const sim::Vec3& point, double above, double below);

/// floorBelowAt for a point at the centre of column (x, z) at height `y`.
NodeId floorBelow(const LayeredGraph& graph, int32_t x, int32_t z, double y, double above, double below);

/// Ring search for the nearest walkable floor: square rings of columns outward from the point's
/// column (the nearest grid column for a point off the grid), taking in each column the floor
/// below the point, among columns whose centre lies within `snap.max_horizontal` of the point
/// itself (the point's own column always counts); returns the horizontally nearest, except when
/// that floor lies more than 0.1 m below the point and one of the eight columns around the
/// point's own holds a floor at the point's level (0.1 m below it to 0.03 m above) whose square
/// lies nearer the point horizontally than the found floor lies below it: then the nearest such
/// (a point on a deck near its edge, whose own column holds only the road below, takes the deck
/// in the next column; one hovering over the ground beside a low step keeps the ground; one
/// inside a slab or a solid step keeps the floor it is in). Ties, within a
/// micrometre of the nearest, such as a point on a column border: lower node id, i.e. lower z
/// then x of the column, so the baked grid and an on-demand region's agree whatever their
/// rounding.
/// nullopt when there is none, e.g. for a point farther than that off the grid.
std::optional<FloorHit> nearestWalkable(const LayeredGraph& graph, const sim::Vec3& point, const SnapSettings& snap);

/// One floor of a column (the `height` query).
struct FloorLayer {
  NodeId node = kNoNode;  ///< node id
  double height = 0;      ///< the floor's surface under the point asked about (LayeredGraph::surfaceAt), metres
  double headroom = 0;    ///< free space above, metres (+inf: open sky)
  double clearance = 0;   ///< horizontal distance to the edge of walkable space, metres
  uint16_t area = 0;      ///< area id
  uint32_t component = 0; ///< connected component
};

/// All floors of the column containing world (x, z), lowest first (by their heights at the
/// column's centre), each with its surface's height under (x, z); empty outside the grid or where
/// no floor was baked.
std::vector<FloorLayer> floorsAt(const LayeredGraph& graph, double x, double z);

/// Feet: can the agent walk straight from `from` to `to`? Both snap as a path's ends do
/// (snapToNode: the floor below, within snap.max_horizontal); the line follows walk edges column
/// by column (LayeredSearchGraph::walkLine without the area rule), so it is clear exactly when
/// Direct walks it. False when either end has no floor.
bool lineOfSight(const LayeredSearchGraph& graph, const sim::Vec3& from, const sim::Vec3& to, const SnapSettings& snap);

/// Settings of the sight line.
struct SightSettings {
  double eye_height = 1.6;  ///< eye height above the floor at each end, metres. [Limit: > 0, finite]
  /// Checks every field; the message names the field.
  Status validate() const;
};

/// Eyes: can an agent standing at `from` see `to`? Both snap as a path's ends do; the sight
/// segment runs between the two eye points (floor + eye_height). Each column the segment crosses
/// with floors must have a floor below the segment whose free space (headroom) reaches it: pits
/// and valleys never block, rising ground and low ceilings do. There is no corner rule. False
/// when either end has no floor.
/// With `geometry` (the query index over the world's triangles), the segment between the eye
/// points must also cross no triangle: walls block, also one thinner than a column standing
/// between two column centres (the column walk alone samples only centres), and a column without
/// floors is left to the triangles (a wall is triangles; a trench too narrow to stand in or the
/// foot of a ledge is open air), as is a segment over the ceiling of the column's floor below it
/// (over a steep beam or a hanging lamp, which the graph does not hold, up to the next floor).
/// Without it, either blocks (wall or hole, beam or slab: the graph cannot tell).
bool sightLine(const LayeredGraph& graph, const sim::Vec3& from, const sim::Vec3& to, const SnapSettings& snap,
               const SightSettings& sight, const sim::QueryIndex* geometry = nullptr);

/// Where and why a line query is blocked (lineStop for the feet, sightStop for the eyes).
struct LineStop {
  enum class Why : uint8_t {
    Clear,        ///< not blocked
    NoStartNode,  ///< no floor below `from` (snapToNode)
    NoGoalNode,   ///< no floor below `to`
    NoRoom,       ///< feet: the line passes off the centre of the column (x, z), on a side without room for the agent
    NoFloor,      ///< feet: the next column, (x, z), has no floor (a wall, a hole, or a floor with no room to stand)
    Step,         ///< feet: the next column's nearest floor lies `rise` away, more than a step
    OnlyAction,   ///< feet: only a jump, drop or climb edge (`edge`, rising `rise`) leads towards (x, z)
    NoWalkEdge,   ///< feet: a floor within a step at (x, z) but no walk edge to it (a wall thinner than a column,
                  ///< a corner the diagonal would cut, a floor of infinite area cost)
    OtherFloor,   ///< feet: the line reaches the end's column (x, z) on another floor, `rise` below the end's
    EyesCovered,  ///< eyes: an end's eye point (`at_start`) is over its floor's ceiling, `rise` = headroom
    GroundRises,  ///< eyes: column (x, z) holds no floor below the segment, its lowest `rise` over it (rising ground)
    Ceiling,      ///< eyes, without geometry: the segment passes over the ceiling of the floor below it at (x, z)
    Surface,      ///< eyes: a triangle crosses the segment at `point` (`label`: QueryIndex::labelName)
  };
  Why why = Why::Clear;
  sim::Vec3 point;       ///< where the line stops: on the feet's line at the floor it last stood on, on the eye segment
  double distance = 0;   ///< horizontal distance from the start's column centre to `point`, metres
  double x = 0, z = 0;   ///< world centre of the column at fault (see Why)
  double rise = 0;       ///< see Why, metres
  EdgeKind edge = EdgeKind::None;  ///< OnlyAction: the edge there
  bool at_start = true;  ///< EyesCovered: the end at fault
  uint32_t label = sim::kInvalidId;  ///< Surface: the triangle's label
  bool clear() const { return why == Why::Clear; }
};

/// lineOfSight with the place and reason of a block. Clear exactly when lineOfSight is true.
LineStop lineStop(const LayeredSearchGraph& graph, const sim::Vec3& from, const sim::Vec3& to, const SnapSettings& snap);

/// sightLine with the place and reason of a block: the first along the segment from `from` (the
/// start's eyes, then the columns and the triangles before the first column that blocks, then
/// the end's eyes). Clear exactly when sightLine is true.
LineStop sightStop(const LayeredGraph& graph, const sim::Vec3& from, const sim::Vec3& to, const SnapSettings& snap,
                   const SightSettings& sight, const sim::QueryIndex* geometry = nullptr);

/// Component of the floor below `point` (ring search of `snap`), nullopt when none.
std::optional<uint32_t> componentAt(const LayeredGraph& graph, const sim::Vec3& point, const SnapSettings& snap);

/// Value of the baked route-distance field `name` at the floor node below `point`.
/// Errors (BadInput) when the field does not exist; +inf when unreachable within the field's
/// limit; nullopt-like NaN is never returned: a point with no floor gives an error too.
Result<double> fieldValueAt(const LayeredGraph& graph, const std::string& name, const sim::Vec3& point,
                            const SnapSettings& snap);

/// The spec's distanceField on demand: Dijkstra route cost from `origin` over every edge of the
/// graph (walk, jump, drop, climb, links), stopping at `max_cost` (nodes beyond stay +inf; every
/// node, the origin too, when `max_cost` is NaN).
/// One float per node.
std::vector<float> floodDistanceField(const LayeredSearchGraph& graph, NodeId origin, double max_cost);
/// One value of that field: floodDistanceField(graph, origin, max_cost)[target], exactly (the
/// same float), the flood stopping once `target` is settled (its search grows with the distance
/// asked about, not with the world, and so does its memory until the flood has reached a 64th of
/// the nodes, when it takes a double per node; +inf when `target` is out of reach or no node).
double fieldDistanceBetween(const LayeredSearchGraph& graph, NodeId origin, NodeId target, double max_cost);

/// Clearance and headroom at the floor below `point` (ring search of `snap`); nullopt when none.
std::optional<FloorLayer> clearanceAt(const LayeredGraph& graph, const sim::Vec3& point, const SnapSettings& snap);

}  // namespace strata::nav
