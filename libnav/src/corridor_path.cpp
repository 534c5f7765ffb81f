// The corridor query (corridor.h): A* over the rectangles of a CorridorIndex, then string pulling
// through the chosen rectangles, broken at every special edge.
//
// The rectangle search follows Detour's findPath (Mononen, Recast & Detour): a state is a
// rectangle with the point where the route entered it, and an edge's cost is the distance from
// that point to the next entry point times the area cost. The entry point on a portal is the
// point of the portal run that minimises |entry - here| + |goal - entry| (the straight line to
// the goal where it crosses the run, reflected when the goal lies behind the portal, clamped to
// the run), which keeps corridors closer to the taut route than portal midpoints do. Entering the
// goal rectangle adds the straight distance to the goal. The heuristic is the straight distance
// to the goal times the cheapest cost per metre. A rectangle is expanded at most once, except one
// of a dearer area than the cheapest, once per edge it is entered by (see `dear` below).
//
// The corridor then becomes legs: from the start (or the landing of a special edge) through the
// portals (each portal is two funnel portals, the source side and the destination side of its
// two-column strip; a walking special edge is a portal of one column on each side) to the goal
// (or the take-off of the next non-walking special edge). pullString gives each
// leg's corners, all column centres of known nodes. Every walking segment is checked with the
// line test while its cost is summed (length times the area cost of each column it crosses, plus
// half the height change times the area entered, like a walk edge); should one fail, the query
// answers with Theta* instead. Scratch memory is per thread and reused: no allocation per query
// except the result.

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <span>
#include <type_traits>

#include "strata/nav/corridor.h"

#include "four_ary_heap.h"
#include "column_line.h"
#include "corridor_search.h"
#include "end_legs.h"
#include "line_cost_runs.h"
#include "search_rates.h"

namespace strata::nav {
namespace {

// Where a walking segment enters another area: at parameter t along it, onto `node`.
struct AreaCrossing {
  double t;
  NodeId node;
};

struct Record {
  double g = 0;              // cost to the entry point
  double key = 0;            // g plus the straight rest to the goal (g alone in the goal rectangle)
  float x = 0, z = 0;        // entry point, column coordinates (exact below 2^24 columns)
  uint32_t parent = kNoNode; // previous rectangle
  uint32_t edge = kNoNode;   // index of the edge that entered (into the index's edge array of the parent)
  uint32_t stamp = 0;
  bool closed = false;
};

// The first entry point of a rectangle that was expanded (rectangles of dear areas, which keep a
// record per entering edge).
struct Expanded {
  double g = 0;
  float x = 0, z = 0;
  uint32_t stamp = 0;
};

struct Entry {
  float f;  // float keeps entries at 8 bytes; the order of the heap is still deterministic
  uint32_t rect;
};
struct Later {
  bool operator()(const Entry& a, const Entry& b) const { return a.f > b.f; }  // pushes are deterministic: so is the order
};

struct Scratch {
  std::vector<Record> records;
  std::vector<Expanded> expanded;  // per rectangle
  FourAryHeap<Entry, Later> heap;
  uint32_t generation = 0;
  std::vector<const CorridorEdge*> chain;
  std::vector<std::array<float, 2>> chain_entry;  // per chain edge: the search's entry point (column coordinates)
  // Per record (areas of different costs only): where the route entered the parent's rectangle
  // when the record's special edge was costed from the point of that rectangle's entering
  // portal in line with the take-off instead of from the parent's entry point; NaN otherwise.
  std::vector<std::array<float, 2>> via;
  std::vector<FunnelPortal> portals;  // the current leg's portals: the first portal_count
  std::size_t portal_count = 0;
  void addPortal(const FunnelPortal& p) { portals[portal_count++] = p; }  // sized per query
  std::vector<FunnelPoint> corners;
  std::vector<MoveAction> actions;   // per route node: how it is reached
  std::vector<float> special_cost;   // per route node: the cost of the special edge reaching it
  std::vector<AreaCrossing> crossings;   // area changes along the walking segments, in route order
  std::vector<AreaCrossing> probe;       // crossings of trial walks (discarded)
  std::vector<uint32_t> crossing_offsets; // per route node i: crossings of segment i-1 -> i start here
  std::vector<double> segment_cost;  // per route node i: the cost of the pulled segment i-1 -> i (areas of different costs only)
  std::vector<NodeId> nodes;         // the route's nodes while it is built (copied out at its size)
  std::vector<Waypoint> points;      // its waypoints, likewise

  void begin(std::size_t expanded_needed, std::size_t records_needed) {
    if (records.size() < records_needed) records.resize(records_needed);
    if (expanded.size() < expanded_needed) expanded.resize(expanded_needed);
    if (expanded_needed > 0 && via.size() < records_needed) via.resize(records_needed);
    if (++generation == 0) {
      for (Record& r : records) r.stamp = 0;
      for (Expanded& e : expanded) e.stamp = 0;
      generation = 1;
    }
    heap.clear();
  }
  Record& touch(uint32_t rect) {
    Record& r = records[rect];
    if (r.stamp != generation) r = Record{std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(), 0.0f, 0.0f,
                                            kNoNode, kNoNode, generation, false};
    return r;
  }
  void push(Entry e) { heap.push(e); }
  Entry pop() { return heap.pop(); }
};

// sqrt(x^2 + z^2): std::hypot's overflow care costs several times more and is not needed for
// column coordinates.
inline double distance(double x, double z) { return std::sqrt(x * x + z * z); }

// The heuristic is inflated (weighted A*, Pohl 1970): entry points make rectangle costs
// approximate anyway, and the weight cuts rectangle expansions by about 40 % on the Recast meshes
// for routes about 0.5 % longer (docs/performance.md).
constexpr double kHeuristicWeight = 1.25;

Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

FunnelPoint pointOf(const LayeredSearchGraph& view, NodeId node) {
  const auto c = view.column(node);
  return {c[0], c[1], node};
}

// Where on the portal line (across = 0 there; `a` and `b` along it, at distances d1 and d2 > 0
// from it) the way a -> p -> b costs least at rate r1 before the line and r2 after it (Snell's
// law: r1 sin(t1) = r2 sin(t2)), clamped to [lo, hi]: the derivative of the convex cost, found
// by Newton steps kept inside a bracket that bisection narrows.
double refractedEntry(double a, double d1, double b, double d2, double r1, double r2, double lo, double hi) {
  auto slope = [&](double t, double& curvature) {
    const double u1 = t - a, u2 = t - b;
    const double s1 = std::sqrt(u1 * u1 + d1 * d1), s2 = std::sqrt(u2 * u2 + d2 * d2);
    curvature = r1 * d1 * d1 / (s1 * s1 * s1) + r2 * d2 * d2 / (s2 * s2 * s2);
    return r1 * u1 / s1 + r2 * u2 / s2;
  };
  double curvature = 0;
  if (slope(lo, curvature) >= 0) return lo;
  if (slope(hi, curvature) <= 0) return hi;
  double left = lo, right = hi, t = std::clamp(a + (b - a) * d1 / (d1 + d2), lo, hi);  // the equal-rate crossing
  for (int k = 0; k < 8 && right - left > 0.05; ++k) {
    const double f = slope(t, curvature);
    if (f > 0) right = t;
    else left = t;
    const double next = t - f / curvature;
    t = next > left && next < right ? next : 0.5 * (left + right);
  }
  return t;
}

// The entry point of portal `e` for a route at (x, z) heading to (gx, gz), column coordinates.
// kRated (where areas differ in cost): the route costs `here_rate` per column up to the portal
// and `rest_rate` after it, and the point is where the way to the goal costs least.
template <bool kRated = false>
void portalEntry(const CorridorEdge& e, double x, double z, double gx, double gz, double& ex, double& ez,
                 double here_rate = 1, double rest_rate = 1) {
  const bool along_z = e.direction == 0 || e.direction == 4;  // E / W sides run along Z
  const int step = (e.direction == 0 || e.direction == 2) ? 1 : -1;
  const double across_here = along_z ? x : z, along_here = along_z ? z : x;
  double across_goal = along_z ? gx : gz;
  const double along_goal = along_z ? gz : gx;
  const double middle = e.line + 0.5 * step;
  if ((across_here - middle) * (across_goal - middle) > 0) across_goal = 2 * middle - across_goal;  // goal behind: reflect
  double along = along_here;
  if (kRated && here_rate != rest_rate) {
    along = refractedEntry(along_here, std::fabs(middle - across_here), along_goal, std::fabs(across_goal - middle), here_rate,
                           rest_rate, e.lo, e.hi);
  } else {
    const double denominator = across_goal - across_here;
    if (std::fabs(denominator) > 1e-12) along = along_here + (middle - across_here) / denominator * (along_goal - along_here);
    along = std::clamp(along, static_cast<double>(e.lo), static_cast<double>(e.hi));
  }
  const double across = e.line + step;
  ex = along_z ? across : along;
  ez = along_z ? along : across;
}

// The two funnel portals of portal edge `e` (its strip's source side, then destination side).
template <class Add>
void addPortal(const CorridorEdge& e, Add&& add) {
  const bool along_z = e.direction == 0 || e.direction == 4;
  const int step = (e.direction == 0 || e.direction == 2) ? 1 : -1;
  auto at = [&](int32_t line, int32_t u, NodeId node) {
    return along_z ? FunnelPoint{line, u, node} : FunnelPoint{u, line, node};
  };
  // Walking E, the left is +Z (hi); walking N, the left is -X (lo); W and S mirror them.
  const bool hi_is_left = e.direction == 0 || e.direction == 6;
  for (int side = 0; side < 2; ++side) {
    const int32_t line = e.line + side * step;
    const FunnelPoint lo = at(line, e.lo, side == 0 ? e.from_lo : e.to_lo);
    const FunnelPoint hi = at(line, e.hi, side == 0 ? e.from_hi : e.to_hi);
    add(hi_is_left ? FunnelPortal{hi, lo} : FunnelPortal{lo, hi});
  }
}

// The line test of LayeredSearchGraph::walkLine (same column walk, same rules, no area rule)
// that also sums the walking cost and records where the line enters another area. False when a
// step is not a walk edge into the next column or the walk ends neither on b nor on a twin of b
// (`landed` tells which). The cost is summed per run of one area (length share times the area
// cost, plus half the height changes times the cost of the area they enter), so the parameter
// along the line is only computed where the area changes.
// kRoom: also the room test off the column centres (ColumnLine::quadrantMask). A segment of the
// funnel's route needs none: it runs inside the rectangles' and portal strips' closed sets of
// column centres, a rectilinear polygon with corners on column centres, so every square between
// four column centres that it crosses lies in one rectangle or strip, whose nodes' diagonal walk
// edges all exist (corridor_index.cpp).
template <bool kRoom = true>
bool walkSegment(const CorridorIndex& index, NodeId a, NodeId b, double& cost, std::vector<AreaCrossing>& crossings,
                 NodeId& landed) {
  const LayeredSearchGraph& view = index.view();
  const LayeredGraph& g = view.graph();
  const auto ca = view.column(a), cb = view.column(b);
  const int32_t dx = cb[0] - ca[0], dz = cb[1] - ca[1];
  const double length = std::sqrt(double(dx) * double(dx) + double(dz) * double(dz)) * g.grid.cell_size;
  // One table of walk steps into the adjacent column (a byte per step: the destination's index
  // in its column) and one of heights and areas (built with the index), so a step reads two
  // rows and the column's first node instead of the graph's kind, neighbour, column, height and
  // area arrays.
  const uint8_t* walk_step = index.walkSteps();
  const NodeId* neighbor = g.neighbor.data();
  const CorridorFloor* floors = index.floors();
  const uint32_t* offsets = g.column_offsets.data();
  const int64_t width = g.grid.width_cells;
  // The columns of the line are known in advance, its nodes are not (each step follows the
  // previous node's edge): a second walk a few columns ahead prefetches the first node of each
  // column, which is the node on single-floor columns, so the chain of loads hits the cache.
  constexpr int kLookahead = 8;
  ColumnLine ahead(dx, dz);
  int64_t px = ca[0], pz = ca[1];
  auto lookahead = [&] {
    ahead.step();
    px += ahead.stepX(), pz += ahead.stepZ();
    const uint32_t guess = offsets[pz * width + px];
    __builtin_prefetch(walk_step + static_cast<std::size_t>(guess) * kDirectionCount);
    __builtin_prefetch(floors + guess);
  };
  for (int k = 0; k < kLookahead && !ahead.done(); ++k) lookahead();
  NodeId current = a;
  int64_t cx = ca[0], cz = ca[1];
  CorridorFloor here = floors[a];
  detail::LineCostRuns runs(length, view.areaCost(a), view.costPerMetre());  // as walkCost sums them
  ColumnLine line(dx, dz);
  // The agent off its column's centre (LayeredSearchGraph::walkColumns): each quadrant the
  // segment passes through needs the diagonal walk step there (the mask holds diagonal bits
  // only; the floor's byte of walk steps answers it, branch-free).
  // A floor with all four diagonal steps (most floors away from walls) passes whatever the mask,
  // so the mask is only computed beside a wall.
  const auto quadrantsFree = [&](const CorridorFloor& floor) {
    const unsigned missing = ~unsigned(floor.walks) & ColumnLine::kDiagonalBits;
    return missing == 0 || (line.quadrantMask() & missing) == 0;
  };
  if (kRoom && !quadrantsFree(here)) return false;
  while (!line.done()) {
    const int direction = line.step();
    const std::size_t slot = static_cast<std::size_t>(current) * kDirectionCount + static_cast<std::size_t>(direction);
    const uint8_t step = walk_step[slot];
    if (step == CorridorIndex::kNoWalkStep) return false;
    cx += line.stepX(), cz += line.stepZ();
    const NodeId next = step == CorridorIndex::kFarWalkStep ? neighbor[slot] : offsets[cz * width + cx] + step;
    if (!ahead.done()) lookahead();
    const CorridorFloor there = floors[next];
    const double rise = std::fabs(double(there.height) - double(here.height));
    if (there.area != here.area) {  // the line enters another area at the step's parameter t
      const double t = line.crossing();
      crossings.push_back({t, next});
      runs.enter(t, view.areaCost(next));
    }
    runs.rise(rise);
    current = next;
    here = there;
    if (kRoom && !quadrantsFree(here)) return false;
  }
  cost = runs.total();
  landed = current;
  return index.clusterOf(current) == index.clusterOf(b);
}

// The interval method's last pass: a route through column centres that follows a plane route
// hugging cell corners turns one column away from each corner it hugs. One pass over the
// walking corners between two walking segments moves each to the neighbouring column (its walk
// edge) that shortens the route most while both new segments pass the line test (ending exactly
// on their corners). (Further passes, and dropping corners whose neighbours then see each other,
// shortened the Recast meshes' routes by less than 0.01 % for about 15 % more time.) Returns
// true when a corner moved.
bool tightenCorners(const CorridorIndex& index, std::vector<NodeId>& nodes, const std::vector<MoveAction>& actions,
                    const std::vector<float>& special_cost, std::vector<AreaCrossing>& probe) {
  const LayeredSearchGraph& view = index.view();
  auto walking = [&](std::size_t i) { return actions[i] == MoveAction::Walk && special_cost[i] == 0; };
  auto passes = [&](NodeId a, NodeId b) {
    probe.clear();
    double leg = 0;
    NodeId landed = kNoNode;
    return walkSegment(index, a, b, leg, probe, landed) && landed == b;
  };
  bool changed = false;
  for (std::size_t i = 1; i + 1 < nodes.size(); ++i) {
    if (!walking(i) || !walking(i + 1)) continue;
    const auto a = view.column(nodes[i - 1]), c = view.column(nodes[i]), b = view.column(nodes[i + 1]);
    auto length = [&](double x, double z) {
      return std::sqrt((x - a[0]) * (x - a[0]) + (z - a[1]) * (z - a[1])) + std::sqrt((b[0] - x) * (b[0] - x) + (b[1] - z) * (b[1] - z));
    };
    const double now = length(c[0], c[1]);
    struct Candidate {
      double gain;
      NodeId node;
    };
    std::array<Candidate, kDirectionCount> candidates{};
    int count = 0;
    for (int d = 0; d < kDirectionCount; ++d) {
      const NodeId m = index.walkTarget(nodes[i], d);
      if (m == kNoNode) continue;
      const double gain = now - length(c[0] + kDirectionDx[d], c[1] + kDirectionDz[d]);
      if (gain > 1e-9) candidates[count++] = {gain, m};
    }
    for (int k = 1; k < count; ++k)  // by gain, largest first (insertion sort: at most 8)
      for (int j = k; j > 0 && (candidates[j].gain > candidates[j - 1].gain ||
                                (candidates[j].gain == candidates[j - 1].gain && candidates[j].node < candidates[j - 1].node));
           --j)
        std::swap(candidates[j], candidates[j - 1]);
    for (int k = 0; k < count; ++k)
      if (passes(nodes[i - 1], candidates[k].node) && passes(candidates[k].node, nodes[i + 1])) {
        nodes[i] = candidates[k].node;
        changed = true;
        break;
      }
  }
  return changed;
}

// True when the straight walk from a to c (column coordinates ca, cc) certainly fails where it
// passes through column (x, z): in a quadrant of that column whose diagonal walk step no floor
// of the column has (walkSegment's room test), or the column has no floor at all. Wherever the
// walk reaches that column, on whichever floor, it stops there, so the answer is walkSegment's
// without the walk. False when the segment does not pass through the column (quadrantMaskAt).
bool blockedColumn(const CorridorIndex& index, const std::array<int32_t, 2>& ca, const std::array<int32_t, 2>& cc, int32_t x, int32_t z) {
  const LayeredGraph& g = index.view().graph();
  if (!g.grid.contains(x, z)) return false;
  const unsigned mask = ColumnLine::quadrantMaskAt(cc[0] - ca[0], cc[1] - ca[1], int64_t(x) - ca[0], int64_t(z) - ca[1]);
  if (mask == 0) return false;
  const CorridorFloor* floors = index.floors();
  for (uint32_t n = g.columnBegin(x, z), end = g.columnEnd(x, z); n < end; ++n)
    if ((~unsigned(floors[n].walks) & mask) == 0) return false;
  return true;
}
// A greedy shortcut a -> c past corner b mostly fails beside b, after a walk as long as a -> b
// (on nav_test 84 % of the tries failed, each after about the walk's whole length, a fifth of a
// corridor query's time): a look at the one column of the line nearest to b first answers 69 %
// of the failing tries without walking (the same answers: blockedColumn).
bool blockedNear(const CorridorIndex& index, NodeId a, NodeId c, NodeId b) {
  const LayeredSearchGraph& view = index.view();
  const auto ca = view.column(a), cc = view.column(c), cb = view.column(b);
  const double dx = cc[0] - ca[0], dz = cc[1] - ca[1];
  if (dx == 0 && dz == 0) return false;
  const double t = ((cb[0] - ca[0]) * dx + (cb[1] - ca[1]) * dz) / (dx * dx + dz * dz);
  // (The point nearest b is no farther from a than b is: within the grid's span of a column.)
  return blockedColumn(index, ca, cc, static_cast<int32_t>(std::lround(ca[0] + t * dx)), static_cast<int32_t>(std::lround(ca[1] + t * dz)));
}

// Drops walking waypoints that continue straight on, horizontally, within one area (the merged
// line is the same line): the corner passes merge corners by their columns, but a corner kept
// because a longer line test failed (a line through column corners, a twin floor) can still lie
// on the line between its neighbours (4 of 40 random dungeon routes kept such points).
void dropStraightWaypoints(std::vector<Waypoint>& points) {
  if (points.size() < 3) return;
  std::size_t kept = 1;
  for (std::size_t i = 1; i + 1 < points.size(); ++i) {
    const Waypoint &a = points[kept - 1], &b = points[i], &c = points[i + 1];
    if (b.action == MoveAction::Walk && c.action == MoveAction::Walk && a.area == b.area && b.area == c.area) {
      const double dx1 = b.position.x - a.position.x, dz1 = b.position.z - a.position.z;
      const double dx2 = c.position.x - b.position.x, dz2 = c.position.z - b.position.z;
      const double cross = dx1 * dz2 - dz1 * dx2, dot = dx1 * dx2 + dz1 * dz2;
      if (dot > 0 && std::fabs(cross) <= 1e-9 * std::hypot(dx1, dz1) * std::hypot(dx2, dz2)) continue;
    }
    points[kept++] = points[i];
  }
  points[kept++] = points.back();
  points.resize(kept);
}

PathResult failed(PathFailure reason, int64_t expansions, SearchMethod method) {
  PathResult r;
  r.failure = reason;
  r.expansions = expansions;
  r.answered_by = method;
  return r;
}

}  // namespace

PathResult findCorridorPath(const CorridorIndex& index, NodeId start, NodeId goal, const sim::Vec3& from,
                            const sim::Vec3& to, const LayeredSearchSettings& settings, SearchState& state,
                            CorridorStats* stats) {
  const LayeredSearchGraph& view = index.view();
  const bool in_plane = settings.method == SearchMethod::Interval;
  // Where areas differ in cost, the rectangle search charges each rectangle its area's cost and
  // the route is pulled area by area (see below); the interval method's plane has no costs, so
  // Theta* answers for it, and where a link is cheaper than walking for both (the rectangle
  // graph leaves out links inside one rectangle, and a route's straight legs would walk past
  // them).
  const bool uniform = index.costIsLength();
  if (index.answersWithTheta(settings.method)) {
    if (stats) stats->fell_back = true, stats->corridor_rects = 0;
    LayeredSearchSettings theta = settings;
    theta.method = SearchMethod::Theta;
    return findLayeredPath(view, from, to, theta, state);
  }
  const LayeredGraph& g = view.graph();
  const double cell = g.grid.cell_size;
  // The rate a route pays per metre at least: the cheapest area a floor has (the graph's own rate
  // also counts areas no floor has, and links, which are not cheaper here).
  const double per_metre = std::isfinite(index.cheapestAreaCost()) ? index.cheapestAreaCost() : view.costPerMetre();
  Scratch& s = scratch();
  s.chain.clear();
  const uint32_t start_rect = index.rectOf(start), goal_rect = index.rectOf(goal);
  const auto goal_column = view.column(goal);
  const double gx = goal_column[0], gz = goal_column[1];
  int64_t expansions = 0;
  NodeId end = goal;
  PathFailure failure = PathFailure::None;

  // A straight walk from start to goal inside one area of the cheapest cost per metre is the
  // route the search would pull taut anyway (no route is shorter, none crosses cheaper ground):
  // one line test first spares the search. (Height changes are charged either way.)
  bool straight = start_rect == goal_rect;
  // Inside one rectangle the straight line is the route at the cheapest rate; in a dearer one a
  // route out over cheaper ground and back in can cost less, so the
  // rectangle search runs from the start's rectangle with the straight line as the route to
  // beat, and keeps the best way back into it (`loop`).
  const bool loop = straight && !uniform && view.areaCost(start) > per_metre;
  if (loop) straight = false;
  double loop_straight = std::numeric_limits<double>::infinity();  // loop: the straight line's cost (heights too)
  if (loop) {
    s.probe.clear();
    NodeId landed = kNoNode;
    double leg = 0;
    if (walkSegment<false>(index, start, goal, leg, s.probe, landed) && landed == goal && s.probe.empty()) loop_straight = leg;
  }
  double straight_cost = -1;  // >= 0: the line was walked (checked and costed) here
  if (!straight && g.area[start] == g.area[goal] && view.areaCost(start) == per_metre) {
    s.crossings.clear();
    double leg = 0;
    NodeId landed = kNoNode;
    straight = walkSegment(index, start, goal, leg, s.crossings, landed) && landed == goal && s.crossings.empty();
    if (straight) straight_cost = leg;
  }
  // The interval method: the interval search (corridor_search.h) finds the rectangles of the
  // shortest route in their plane, and corners are tightened after.
  bool routed = false;
  float loop_x = 0, loop_z = 0;  // loop: where the chain's last edge enters the start's rectangle
  if (!straight && in_plane) {
    const detail::RouteSearch route = detail::searchIntervals(index, start, goal, index.uniformAreaCost(),
                                                              settings.limits.max_expansions, s.chain);
    expansions = route.expansions;
    routed = route.found;
  }
  if (!straight && !routed) {
    // The corridor method, or the interval method when the interval search found no route
    // within the budget: A* over rectangles. The way from a rectangle's entry point to the next
    // entry point (or take-off) is charged at the rectangle's area cost, as Detour charges a
    // polygon's stretch at its area's cost; where every area costs the same (costIsLength())
    // that is per_metre everywhere. Only the start's rectangle can lie in an area of infinite
    // cost (never entered); leaving it is charged per_metre.
    s.chain.clear();
    // Records 0 .. rect_count - 1 are the rectangles; where areas differ in cost, then one per
    // edge, for the rectangles of dear areas, which keep a record per edge they are entered by
    // (below), and a first expanded entry per rectangle.
    const uint32_t rect_count = static_cast<uint32_t>(index.rectCount());
    s.begin(uniform ? 0 : rect_count, uniform ? rect_count : rect_count + index.edgeCount());
    {
      const auto c = view.column(start);
      Record& r = s.touch(start_rect);
      r.g = 0, r.key = 0, r.x = float(c[0]), r.z = float(c[1]);
      s.push({float(distance(r.x - gx, r.z - gz) * cell * per_metre), start_rect});
    }
    const CorridorEdge* edges_base = index.edgesOf(0).data();
    const double h_scale = cell * per_metre * kHeuristicWeight;
    const std::vector<float>& area_costs = g.area_costs;
    auto scaleOf = [&](uint32_t rect) {  // cost of one column's length in the rectangle
      if (uniform) return cell * per_metre;
      const double c = area_costs[index.rects()[rect].area];
      return (std::isfinite(c) ? c : per_metre) * cell;
    };
    // A rectangle keeps one record, but the cheap way through a rectangle of a dearer area than
    // the cheapest can step out over cheaper ground and back in further on (a mud strip with
    // floor beside it, leading to a room at its end: the mud was walked at 4.6x A*'s cost, a
    // review), as many times as the cheap ground is broken. So a dear rectangle (its scale above
    // cheapest_scale) keeps a record per edge it is entered by (record rect_count + the edge's index): the start's rectangle
    // can be entered again, the goal's passed through, a dear one in between crossed twice.
    const double cheapest_scale = cell * per_metre;
    auto rectOf = [&](uint32_t record) { return record < rect_count ? record : edges_base[record - rect_count].to_rect; };
    // Dead ends that do not hold the goal are left out (CorridorIndex::deadEnd), except when the
    // closest rectangle is wanted should the goal be out of reach.
    // (Nor in a loop: a cheap part hanging off the start's dear rectangle can be the way round.)
    // (Nor off a dear rectangle, below: the way out through a dead end and back in can be the
    // cheap way along it. Off a rectangle of the cheapest area it never is: the rectangle is
    // convex, and its straight line is no dearer than any way out and back.)
    const bool prune_dead_ends = !settings.return_closest && !loop;
    uint32_t closest = start_rect;
    double closest_h = std::numeric_limits<double>::infinity();
    bool found = false, budget = false;
    // loop: the best way found back into the start's rectangle (none: the straight line).
    double loop_cost = std::numeric_limits<double>::infinity();
    uint32_t loop_edge = kNoNode, loop_parent = kNoNode;
    std::array<float, 2> loop_via = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::quiet_NaN()};
    if (loop) {
      const auto c = view.column(start);
      loop_cost = std::min(loop_straight, distance(c[0] - gx, c[1] - gz) * scaleOf(start_rect));
    }
    // The search loop, compiled twice: where areas differ in cost (kAreas) and where they do
    // not, which then pays nothing for the records of dear rectangles.
    auto searchLoop = [&](auto areas) {
      constexpr bool kAreas = decltype(areas)::value;
      while (!s.heap.empty()) {
        const Entry top = s.pop();
        // Nothing left can beat the best way: every key (cost plus the unweighted rest) is at least
        // the weighted priority over the heuristic's weight.
        if (loop && top.f >= kHeuristicWeight * loop_cost) break;
        Record& current = s.touch(top.rect);
        if (current.closed) continue;
        current.closed = true;
        if (top.rect == goal_rect && !loop) {
          found = true;
          break;
        }
        const double x = current.x, z = current.z, g_here = current.g;
        const uint32_t here = kAreas ? rectOf(top.rect) : top.rect;
        const double scale = kAreas ? scaleOf(here) : cheapest_scale;
        if (kAreas && scale > cheapest_scale) {
          // Another entry into a dear rectangle already expanded is worth expanding only where it
          // was reached for less than walking to it inside the rectangle from the first.
          Expanded& first = s.expanded[here];
          if (first.stamp != s.generation) first = {g_here, float(x), float(z), s.generation};
          else if (first.g + distance(first.x - x, first.z - z) * scale <= g_here) continue;
        }
        if (settings.limits.max_expansions > 0 && expansions >= settings.limits.max_expansions) {
          budget = true;
          break;
        }
        ++expansions;
        if (settings.return_closest) {  // the rectangle nearest to the goal (distance to its columns)
          const CorridorRect& rect = index.rects()[here];
          const double dx = std::clamp(gx, double(rect.x0), double(rect.x1)) - gx;
          const double dz = std::clamp(gz, double(rect.z0), double(rect.z1)) - gz;
          const double d = distance(dx, dz);
          if (d < closest_h) closest_h = d, closest = top.rect;
        }
        // The rectangle was entered through a portal at the point in line with the goal; a special
        // edge elsewhere in it is better reached by entering through that portal aimed at its
        // take-off instead (the parent is closed, so its record is final).
        const Record* parent = nullptr;
        const CorridorEdge* entered = nullptr;
        if (current.parent != kNoNode && current.edge != kNoNode && edges_base[current.edge].portal) {
          parent = &s.records[current.parent];
          entered = edges_base + current.edge;
        }
        const std::span<const CorridorEdge> out = index.edgesOf(here);
        for (std::size_t k = 0; k < out.size(); ++k) {
          const CorridorEdge* chosen = &out[k];
          if (!chosen->portal) {
            // A rectangle along a ledge has a drop (or jump) edge per column, side by side in the
            // index into each rectangle below. Of such a run only the edge whose way looks shortest
            // is relaxed: entry point to take-off plus landing to goal, both octile distances (no
            // square root), plus its cost. (Relaxing each took 2.3x Detour's time per query on
            // zdm2 for routes 0.02 % shorter: docs/performance.md.)
            std::size_t end = k + 1;
            while (end < out.size() && !out[end].portal && out[end].to_rect == chosen->to_rect && out[end].action == chosen->action)
              ++end;
            if (end - k > 1) {
              using detail::octile;
              double best = std::numeric_limits<double>::infinity();
              for (std::size_t j = k; j < end; ++j) {
                const CorridorEdge& c = out[j];
                const double way = octile(c.lo - x, c.hi - z) + octile(c.line - gx, c.to_z - gz) + c.cost / scale;
                if (way < best) best = way, chosen = &c;
              }
              k = end - 1;
            }
          }
          const CorridorEdge& e = *chosen;
          if (prune_dead_ends && index.deadEnd(here, e.to_rect, goal_rect) && !(kAreas && scale > cheapest_scale)) continue;
          const double next_scale = !kAreas || e.to_rect == here ? scale : scaleOf(e.to_rect);
          const bool into_dear = kAreas && next_scale > cheapest_scale;
          // (A dear rectangle: the record of this edge, so an entry that would lose to another
          // on the key alone is kept: a review found the cheap entry at a mud strip's far end
          // dropped for the near one, 2.5-3.5x A*'s cost. The goal's rectangle is entered for
          // the goal's record and, dear, for this edge's record to go on from.)
          const uint32_t to = into_dear ? rect_count + static_cast<uint32_t>(&e - edges_base) : e.to_rect;
          if (e.to_rect != goal_rect && s.touch(to).closed) continue;
          double ex, ez, cost;
          double g_next;
          // (kAreas: the take-off costed from the entering portal's point in line with it.)
          std::array<float, 2> via = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::quiet_NaN()};
          if (e.portal) {
            if (!kAreas) {
              portalEntry(e, x, z, gx, gz, ex, ez);
              cost = distance(ex - x, ez - z) * scale;
            } else {
              // Snell's law at the portal, the rest of the way taken at the entered rectangle's rate
              // (so a dear rectangle is entered where it is crossed shortest, not on the line to
              // the goal). The way there is charged as the route goes: inside this rectangle to the
              // portal line beside the entry point, then half a column across at the entered rate.
              portalEntry<true>(e, x, z, gx, gz, ex, ez, scale, next_scale);
              const bool along_z = e.direction == 0 || e.direction == 4;
              const double back = (e.direction == 0 || e.direction == 2) ? -0.5 : 0.5;
              const double lx = along_z ? ex + back : ex, lz = along_z ? ez : ez + back;
              cost = distance(lx - x, lz - z) * scale + 0.5 * next_scale;
            }
            g_next = g_here + cost;
          } else {
            ex = e.line, ez = e.to_z;
            cost = distance(e.lo - x, e.hi - z) * scale + e.cost;
            g_next = g_here + cost;
            // (Only worth a look when the take-off is more than a step from the entry point.)
            if (parent != nullptr && (e.lo - x) * (e.lo - x) + (e.hi - z) * (e.hi - z) > 2.5) {
              double px, pz;
              const double parent_scale = kAreas ? scaleOf(rectOf(current.parent)) : scale;
              if (!kAreas) portalEntry(*entered, parent->x, parent->z, e.lo, e.hi, px, pz);
              else portalEntry<true>(*entered, parent->x, parent->z, e.lo, e.hi, px, pz, parent_scale, scale);
              const double in_line = parent->g + distance(px - parent->x, pz - parent->z) * parent_scale +
                                     distance(e.lo - px, e.hi - pz) * scale + e.cost;
              if (in_line < g_next) {
                g_next = in_line;
                // Where areas differ in cost the route crosses each portal at the entry point the
                // search kept (below), so it must cross this one where this cost was measured:
                // the mud's entry aimed at the goal was 20 columns from a take-off beside the
                // cheap strip it was reached from, 1.8x A*'s cost (an audit).
                if constexpr (kAreas) via = {float(px), float(pz)};
              }
            }
          }
          if (loop && e.to_rect == goal_rect) {  // back into the start's rectangle, whose record is the start's
            const double whole = g_next + distance(ex - gx, ez - gz) * next_scale;
            if (whole < loop_cost) {
              loop_cost = whole, loop_x = float(ex), loop_z = float(ez);
              loop_edge = static_cast<uint32_t>(&e - edges_base), loop_parent = top.rect;
              loop_via = via;
            }
          }
          // A rectangle keeps one entry point. When one entry can walk to the other inside the
          // (convex) rectangle for less than the other was reached, it is the better one whatever
          // lies ahead. Otherwise neither is, and the one whose route can still be shortest wins:
          // reached cost plus the straight rest to the goal (a strip entered cheaply at its far end
          // can cost more in all than one entered dearer right in line with the goal). In the goal
          // rectangle the key is the whole cost.
          auto relax = [&](uint32_t record, bool at_goal) __attribute__((always_inline)) {
            Record& next = s.touch(record);
            if (next.closed) return;
            const double rest = distance(ex - gx, ez - gz);
            const double g_record = at_goal ? g_next + rest * next_scale : g_next;
            if (kAreas && record >= rect_count) {  // (as at expansion: another entry of a dear rectangle already expanded)
              const Expanded& first = s.expanded[e.to_rect];
              if (first.stamp == s.generation && first.g + distance(first.x - ex, first.z - ez) * next_scale <= g_record) return;
            }
            const double key = at_goal ? g_record : g_record + rest * cell * per_metre;
            bool better = key < next.key;
            if (next.g < std::numeric_limits<double>::infinity() && !at_goal) {
              const double between = distance(ex - next.x, ez - next.z) * next_scale;
              if (g_record >= next.g + between) better = false;      // the kept entry reaches this one cheaper
              else if (next.g >= g_record + between) better = true;  // this one reaches the kept entry cheaper
            }
            if (better) {
              next.g = g_record, next.key = key, next.x = float(ex), next.z = float(ez);
              next.parent = top.rect;
              next.edge = static_cast<uint32_t>(&e - edges_base);
              if constexpr (kAreas) s.via[record] = via;
              s.push({float(g_record + (at_goal ? 0.0 : rest * h_scale)), record});
            }
          };
          // Into the goal's rectangle: the goal's record (in a loop the best way back, above), and
          // where the rectangle is dear, its record for this edge to go on from.
          if (e.to_rect == goal_rect && !loop) relax(goal_rect, true);
          if (!kAreas ? e.to_rect != goal_rect : (e.to_rect != goal_rect || to != goal_rect)) relax(to, false);
        }
      }
    };
    if (uniform) searchLoop(std::false_type{});
    else searchLoop(std::true_type{});
    uint32_t last_rect = goal_rect;
    if (loop && !budget) {  // the best way found, the straight line at worst
      found = true;
      if (loop_edge == kNoNode) {
        straight = true;  // no chain
        last_rect = start_rect;
      } else {
        s.chain.push_back(edges_base + loop_edge);
        last_rect = loop_parent;
      }
    }
    if (!found) {
      const PathFailure reason = budget ? PathFailure::BudgetExhausted : PathFailure::NoPath;
      // (A loop's closest rectangle would be the start's, which holds the goal.)
      if (!settings.return_closest || loop) return failed(reason, expansions, settings.method);
      // The route ends on the closest rectangle's node nearest to the goal.
      const CorridorRect& rect = index.rects()[rectOf(closest)];
      end = index.nodeAt(rectOf(closest), std::clamp(goal_column[0], rect.x0, rect.x1), std::clamp(goal_column[1], rect.z0, rect.z1));
      if (end == kNoNode || end == start || !(view.heuristic(end, goal, false) < view.heuristic(start, goal, false)))
        return failed(reason, expansions, settings.method);
      failure = PathFailure::ClosestNoPath;
      last_rect = closest;
    }
    // (The entry points are read where the area cost changes along the chain.)
    s.chain_entry.clear();
    // A record's entry point, unless the edge taken out of its rectangle was costed from another
    // point of the portal it was entered by (Scratch::via, kept by the record that edge reached).
    std::array<float, 2> entered_at = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::quiet_NaN()};
    if (loop && !straight) {  // the loop's last edge enters the start's record
      s.chain_entry.push_back({loop_x, loop_z});
      entered_at = loop_via;
    }
    for (uint32_t r = last_rect; r != start_rect; r = s.records[r].parent) {
      s.chain.push_back(edges_base + s.records[r].edge);
      if (!uniform) {
        s.chain_entry.push_back(std::isnan(entered_at[0]) ? std::array<float, 2>{s.records[r].x, s.records[r].z} : entered_at);
        entered_at = s.via[r];
      }
    }
    std::reverse(s.chain.begin(), s.chain.end());
    std::reverse(s.chain_entry.begin(), s.chain_entry.end());
  }
  if (stats) stats->corridor_rects = s.chain.size() + 1, stats->fell_back = false;

  // Legs through the corridor, each string-pulled; special edges between them.
  PathResult result;
  result.failure = failure;
  result.expansions = expansions;
  // The interval method's rectangles come from the corridor method's A* when its search found
  // no route within the budget.
  result.answered_by = in_plane && !straight && !routed ? SearchMethod::Corridor : settings.method;
  s.actions.clear();
  s.special_cost.clear();
  s.nodes.clear();
  auto appendLeg = [&] {
    s.corners.clear();
    pullString({s.portals.data(), s.portal_count}, s.corners);
    for (const FunnelPoint& p : s.corners) {
      if (!s.nodes.empty() && s.nodes.back() == p.node) continue;
      s.nodes.push_back(p.node);
      s.actions.push_back(MoveAction::Walk);
      s.special_cost.push_back(0);
    }
  };
  double cost = 0;
  if (straight_cost >= 0) {  // walked by the straight test already
    s.nodes.assign({start, goal});
    s.actions.assign(2, MoveAction::Walk);
    s.special_cost.assign(2, 0.0f);
    s.crossing_offsets.assign(3, 0);
    cost = straight_cost;
  } else {
    // A leg has at most the start, two funnel portals per corridor edge and the end.
    if (s.portals.size() < 2 * s.chain.size() + 2) s.portals.resize(2 * s.chain.size() + 2);
    s.portal_count = 0;
    s.addPortal({pointOf(view, start), pointOf(view, start)});
    uint32_t rect = start_rect;  // the rectangle the chain is in
    for (std::size_t link = 0; link < s.chain.size(); ++link) {
      const CorridorEdge* e = s.chain[link];
      const uint32_t from_rect = rect;
      rect = e->to_rect;
      if (e->portal) {
        const auto& rects = index.rects();
        if (uniform || g.area_costs[rects[from_rect].area] == g.area_costs[rects[rect].area]) {
          addPortal(*e, [&](const FunnelPortal& p) { s.addPortal(p); });
          continue;
        }
        // Into an area of another cost: a string pulled by length through both would cut across
        // the dearer one wherever the corridor lets it be shortest. The route crosses the
        // portal by one step at the rectangle search's entry point (the column pair of the run
        // nearest to it), where the search charged the change of cost: this leg ends on the near
        // side, the next starts on the far side, each pulled inside its own area; the greedy
        // shortcuts below then drop corners only where the straight line costs no more.
        const float entry_x = s.chain_entry[link][0], entry_z = s.chain_entry[link][1];
        const int32_t far_x = int32_t(std::lround(entry_x)), far_z = int32_t(std::lround(entry_z));
        const bool along_z = e->direction == 0 || e->direction == 4;
        const int32_t back = (e->direction == 0 || e->direction == 2) ? -1 : 1;  // from the far side to the near one
        const NodeId near_side = index.nodeAt(from_rect, along_z ? far_x + back : far_x, along_z ? far_z : far_z + back);
        const NodeId far_side = index.nodeAt(rect, far_x, far_z);
        s.addPortal({pointOf(view, near_side), pointOf(view, near_side)});
        appendLeg();
        s.portal_count = 0;
        s.addPortal({pointOf(view, far_side), pointOf(view, far_side)});
        continue;
      }
      if (e->action == MoveAction::Walk) {  // a one-way or corner walk edge: a one-column portal
        s.addPortal({pointOf(view, e->from_lo), pointOf(view, e->from_lo)});
        s.addPortal({pointOf(view, e->to_lo), pointOf(view, e->to_lo)});
        continue;
      }
      s.addPortal({pointOf(view, e->from_lo), pointOf(view, e->from_lo)});
      appendLeg();
      s.nodes.push_back(e->to_lo);
      s.actions.push_back(e->action);
      s.special_cost.push_back(e->cost);
      s.portal_count = 0;
      s.addPortal({pointOf(view, e->to_lo), pointOf(view, e->to_lo)});
    }
    s.addPortal({pointOf(view, end), pointOf(view, end)});
    appendLeg();
    s.actions.front() = MoveAction::Walk;
    // Both passes below drop corners in place: corner `from` moves to position `to`, then the
    // lists are cut to the corners kept.
    auto moveCorner = [&](std::size_t to, std::size_t from) {
      s.nodes[to] = s.nodes[from];
      s.actions[to] = s.actions[from];
      s.special_cost[to] = s.special_cost[from];
    };
    auto keepCorners = [&](std::size_t count) {
      s.nodes.resize(count);
      s.actions.resize(count);
      s.special_cost.resize(count);
    };
    // The funnel reports a corner where the route merely touches a corridor side along a straight
    // line; drop walking corners that continue straight on (the merged line crosses the same
    // columns, so it passes the same line test).
    {
      std::vector<NodeId>& nodes = s.nodes;
      std::size_t kept = 1;
      for (std::size_t i = 1; i < nodes.size(); ++i) {
        const bool walking = s.actions[i] == MoveAction::Walk && s.special_cost[i] == 0;
        if (walking && i + 1 < nodes.size() && s.actions[i + 1] == MoveAction::Walk && s.special_cost[i + 1] == 0) {
          const auto a = view.column(nodes[kept - 1]), b = view.column(nodes[i]), c = view.column(nodes[i + 1]);
          const int64_t dx1 = b[0] - a[0], dz1 = b[1] - a[1], dx2 = c[0] - b[0], dz2 = c[1] - b[1];
          if (dx1 * dz2 - dz1 * dx2 == 0 && dx1 * dx2 + dz1 * dz2 > 0) continue;
        }
        moveCorner(kept++, i);
      }
      keepCorners(kept);
    }
    // The funnel's route is the shortest inside the chosen rectangles; a straight line through
    // rectangles next to them can still be shorter. Greedy shortcuts: from each kept corner, skip
    // the following walking corners while the line to the one after passes the line test (ending
    // exactly on that corner). The same pass checks every walking segment it keeps with the line
    // test and sums the costs (special edges cost what the graph says): a successful shortcut's
    // walk is kept for its segment, so no line is walked twice. Where areas differ in cost, a
    // shortcut must also cost no more than the two segments it replaces (a shorter line can
    // cross a dear area the route went round), so those segments are costed first.
    {
      std::vector<NodeId>& nodes = s.nodes;
      auto walking = [&](std::size_t i) { return s.actions[i] == MoveAction::Walk && s.special_cost[i] == 0; };
      if (!uniform) {
        s.segment_cost.assign(nodes.size(), 0.0);
        for (std::size_t i = 1; i < nodes.size(); ++i) {
          if (!walking(i)) continue;
          s.probe.clear();
          double leg = 0;
          NodeId landed = kNoNode;
          const bool walked = walkSegment<false>(index, nodes[i - 1], nodes[i], leg, s.probe, landed);
          // (On a twin of the corner: its cost is close enough for the comparison; checked when kept.)
          s.segment_cost[i] = walked ? leg : std::numeric_limits<double>::infinity();
        }
      }
      s.crossings.clear();
      s.crossing_offsets.assign(nodes.size() + 1, 0);
      // A verified walk from the last kept corner to corner `pending` (its crossings are the tail
      // of s.crossings from pending_crossings).
      std::size_t pending = 0, pending_crossings = 0;
      double pending_cost = 0;
      std::size_t kept = 1;
      for (std::size_t i = 1; i < nodes.size(); ++i) {
        if (walking(i) && i + 1 < nodes.size() && walking(i + 1)) {
          const std::size_t mark = s.crossings.size();
          double leg = 0;
          NodeId landed = kNoNode;
          // Corner i was reached from corner kept - 1 by the verified shortcut or (kept - 1 == i - 1)
          // by the pulled segment.
          if (!blockedNear(index, nodes[kept - 1], nodes[i + 1], nodes[i]) &&
              walkSegment(index, nodes[kept - 1], nodes[i + 1], leg, s.crossings, landed) && landed == nodes[i + 1] &&
              (uniform || leg <= (pending == i ? pending_cost : s.segment_cost[i]) + s.segment_cost[i + 1])) {
            if (pending != 0) {  // supersedes the shorter verified walk
              s.crossings.erase(s.crossings.begin() + static_cast<std::ptrdiff_t>(pending_crossings),
                                s.crossings.begin() + static_cast<std::ptrdiff_t>(mark));
            }
            pending_crossings = pending != 0 ? pending_crossings : mark;
            pending = i + 1, pending_cost = leg;
            continue;  // corner i is not needed
          }
          s.crossings.resize(mark);
        }
        // Corner i is kept: the segment from the last kept corner to it.
        if (!walking(i)) {
          cost += s.special_cost[i];
          s.crossing_offsets[kept] = static_cast<uint32_t>(s.crossings.size());
        } else if (pending == i) {
          cost += pending_cost;
          s.crossing_offsets[kept] = static_cast<uint32_t>(pending_crossings);
        } else {
          s.crossing_offsets[kept] = static_cast<uint32_t>(s.crossings.size());
          double leg = 0;
          NodeId landed = kNoNode;
          // A segment of the funnel's route (no shortcut from corner kept - 1 held): in the corridor.
          const bool walked = walkSegment<false>(index, nodes[kept - 1], nodes[i], leg, s.crossings, landed);
          // On a twin of the corner aimed at: carry on from there, unless a special edge leaves
          // from the corner itself.
          const bool special_next = i + 1 < nodes.size() && !walking(i + 1);
          if (walked && landed != nodes[i] && !special_next) nodes[i] = landed;
          if (!walked || landed != nodes[i]) {
            if (stats) stats->fell_back = true;
            LayeredSearchSettings theta = settings;
            theta.method = SearchMethod::Theta;
            return findLayeredPath(view, from, to, theta, state);
          }
          cost += leg;
        }
        pending = 0;
        moveCorner(kept++, i);
      }
      keepCorners(kept);
      s.crossing_offsets[kept] = static_cast<uint32_t>(s.crossings.size());
    }
    // (Only where every area costs the same: a shorter route is then a cheaper one, heights aside.)
    if (in_plane && tightenCorners(index, s.nodes, s.actions, s.special_cost, s.probe)) {
      std::vector<NodeId>& nodes = s.nodes;
      // A corner moved onto its neighbour's column is that node twice in a row: its neighbours
      // see each other (both segments passed), so one is dropped. (Kept, it was a waypoint
      // repeated, a leg of length zero.)
      std::size_t kept = 1;
      for (std::size_t i = 1; i < nodes.size(); ++i) {
        if (nodes[i] == nodes[kept - 1] && s.actions[i] == MoveAction::Walk && s.special_cost[i] == 0) continue;
        nodes[kept] = nodes[i];
        s.actions[kept] = s.actions[i];
        s.special_cost[kept] = s.special_cost[i];
        ++kept;
      }
      nodes.resize(kept);
      s.actions.resize(kept);
      s.special_cost.resize(kept);
      // Costs and area crossings again, segment by segment (every walking one passed above).
      cost = 0;
      s.crossings.clear();
      s.crossing_offsets.assign(nodes.size() + 1, 0);
      for (std::size_t i = 1; i < nodes.size(); ++i) {
        s.crossing_offsets[i] = static_cast<uint32_t>(s.crossings.size());
        if (s.actions[i] != MoveAction::Walk || s.special_cost[i] != 0) {
          cost += s.special_cost[i];
          continue;
        }
        double leg = 0;
        NodeId landed = kNoNode;
        walkSegment<false>(index, nodes[i - 1], nodes[i], leg, s.crossings, landed);  // passed above
        cost += leg;
      }
      s.crossing_offsets[nodes.size()] = static_cast<uint32_t>(s.crossings.size());
    }
    // A loop's way out and back in was chosen on the search's estimates; should it cost more
    // than the straight line after all (181 against 180 in a review's case), the line it is.
    if (loop && cost > loop_straight) {
      s.nodes.assign({start, goal});
      s.actions.assign(2, MoveAction::Walk);
      s.special_cost.assign(2, 0.0f);
      s.crossings.clear();
      s.crossing_offsets.assign(3, 0);
      cost = loop_straight;
    }
  }
  result.cost = cost;

  // Waypoints: the exact start, every corner and special edge end, the points where a walking
  // segment enters another area, the exact end (plus the end nodes unless an endpoint lies on
  // its node's column and the leg from it is a clear walk, as in the other methods:
  // layered_waypoints.cpp).
  const GridFrame& grid = g.grid;
  auto centre = [&](NodeId n) {
    const auto c = view.column(n);
    return sim::Vec3{grid.centerX(c[0]), static_cast<double>(g.height[n]), grid.centerZ(c[1])};
  };
  const sim::Vec3 end_point = end == goal ? to : centre(end);
  const std::size_t count = s.nodes.size();
  const NodeId first = s.nodes.front(), last = s.nodes.back();
  auto walkingLeg = [&](std::size_t i) { return s.actions[i] == MoveAction::Walk && s.special_cost[i] == 0; };
  detail::EndCentres ends;  // (end_legs.h)
  if (count > 1)
    ends = detail::endCentres(view, from, first, s.nodes[1], walkingLeg(1), end_point, last, s.nodes[count - 2], walkingLeg(count - 1));
  const bool drop_start = ends.drop_start, drop_end = ends.drop_goal;
  std::vector<Waypoint>& points = s.points;
  points.clear();
  points.push_back({{from.x, g.surfaceAt(first, view.column(first), from.x, from.z), from.z}, MoveAction::Walk, g.area[first]});
  if (count > 1 && !drop_start) points.push_back({centre(first), MoveAction::Walk, g.area[first]});
  if (count == 1 && detail::oneNodeThroughCentre(view, first, from, end_point))
    points.push_back({centre(first), MoveAction::Walk, g.area[first]});
  for (std::size_t i = 1; i < count; ++i) {
    const sim::Vec3 a = centre(s.nodes[i - 1]), b = centre(s.nodes[i]);
    const std::size_t first_crossing = points.size();
    for (uint32_t k = s.crossing_offsets[i]; k < s.crossing_offsets[i + 1]; ++k) {
      const AreaCrossing& c = s.crossings[k];
      points.push_back({a + (b - a) * c.t, MoveAction::Walk, g.area[c.node]});
    }
    // A leg from or to an exact endpoint whose centre is left out (end_legs.h).
    const bool from_exact = i == 1 && drop_start, to_exact = i + 1 == count && drop_end;
    if ((from_exact || to_exact) && points.size() > first_crossing)
      detail::moveCrossingsOntoLeg(grid, std::span(points).subspan(first_crossing), a, b, from_exact ? from : a,
                                   to_exact ? end_point : b);
    // Each crossing stands on the surface of the floor it enters, under it (where it lies now).
    for (uint32_t k = s.crossing_offsets[i]; k < s.crossing_offsets[i + 1]; ++k) {
      sim::Vec3& p = points[first_crossing + (k - s.crossing_offsets[i])].position;
      const NodeId entered = s.crossings[k].node;
      p.y = g.surfaceAt(entered, view.column(entered), p.x, p.z);
    }
    if (i + 1 < count) {
      const NodeId n = s.nodes[i];
      points.push_back({b, s.actions[i], g.area[n],
                        s.actions[i] == MoveAction::Link ? g.linkLabel(s.nodes[i - 1], n) : -1});
    }
  }
  MoveAction final_action = count > 1 ? s.actions[count - 1] : MoveAction::Walk;
  const int32_t final_link = final_action == MoveAction::Link ? g.linkLabel(s.nodes[count - 2], last) : -1;
  if (count > 1 && !drop_end) {
    points.push_back({centre(last), final_action, g.area[last], final_link});
    final_action = MoveAction::Walk;
  }
  points.push_back({{end_point.x, g.surfaceAt(last, view.column(last), end_point.x, end_point.z), end_point.z}, final_action, g.area[last],
                    final_action == MoveAction::Link ? final_link : -1});
  dropStraightWaypoints(points);
  // Copied out at their sizes: one allocation each (a batch keeps thousands of results).
  result.nodes.assign(s.nodes.begin(), s.nodes.end());
  if (settings.waypoint_spacing > 0) {
    result.waypoints = spaceWaypoints(view, points, settings.waypoint_spacing);
  } else {
    result.waypoints.assign(points.begin(), points.end());
  }
  result.length = horizontalLength(result.waypoints);
  return result;
}

}  // namespace strata::nav
