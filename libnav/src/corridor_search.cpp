// The corridor method's route search (corridor_search.h): Polyanya-style interval search over
// the rectangles of a CorridorIndex.
//
// The plane is in column units: rectangle r is the cell [x0 - 0.5, x1 + 0.5] x [z0 - 0.5,
// z1 + 0.5], and a portal is the stretch of the side two rectangles share along its run of
// columns, [lo - 0.5, hi + 0.5]. A search node holds a root (a point the route reaches at cost
// g: the start, the landing of a special edge, or a portal end the route turns round) and, for
// an interval node, an interval of a portal seen from the root: every point of it is reached by
// a straight line from the root. Expanding a node into the rectangle beyond its interval:
//  - each other portal of the rectangle is clipped to the cone the root sees through the
//    interval (an observable successor, same root), and the parts beyond either edge of the cone
//    are reached by turning round that interval end when it is a corner of the plane (a
//    non-observable successor, rooted there; CorridorEdge::lo_corner / hi_corner: a portal end
//    where the columns beyond are all joined is flat, and routes never turn there); a portal on
//    the interval's own side is reached by turning round the interval end towards it and
//    following the side;
//  - each special edge is reached at its take-off column centre (straight, or round the nearer
//    interval end), and its landing becomes a new root;
//  - the goal, in the goal rectangle, is reached the same way and ends the search when popped.
// The heuristic is the length of the shortest line from the root through the interval to the
// goal (the goal mirrored when it lies on the root's side) at the graph's cheapest cost per metre
// (LayeredSearchGraph::costPerMetre: cheap links lower it), so it is admissible and consistent
// and the first goal popped is the cheapest route in this plane. Roots are pruned per (point,
// rectangle): a root reached again at no lower cost is dropped, and a popped node whose root has
// since been reached cheaper is skipped. Everything in the plane is axis-aligned, so the cone
// clips are a few multiplications per portal.

#include "corridor_search.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "four_ary_heap.h"

namespace strata::nav::detail {
namespace {

constexpr uint32_t kNone = 0xffffffffu;
constexpr double kEps = 1e-9;      // orientation and length tolerance, column units
constexpr double kMinLength = 1e-7; // intervals shorter than this are not pushed

struct Point {
  double x = 0, z = 0;
};
inline double distance(Point a, Point b) { return std::sqrt((a.x - b.x) * (a.x - b.x) + (a.z - b.z) * (a.z - b.z)); }
inline double cross(Point o, Point a, Point b) { return (a.x - o.x) * (b.z - o.z) - (a.z - o.z) * (b.x - o.x); }

// A portal's shared side: the line x = c (axis 0, u along z) or z = c (axis 1, u along x), u in
// [lo, hi].
struct Segment {
  uint8_t axis = 0;
  double c = 0, lo = 0, hi = 0;
};

Segment portalSegment(const CorridorEdge& e) {
  const bool along_z = e.direction == 0 || e.direction == 4;  // E / W sides run along Z
  const double offset = (e.direction == 0 || e.direction == 2) ? 0.5 : -0.5;
  return {uint8_t(along_z ? 0 : 1), double(e.line) + offset, double(e.lo) - 0.5, double(e.hi) + 0.5};
}

inline Point at(uint8_t axis, double c, double u) { return axis == 0 ? Point{c, u} : Point{u, c}; }
inline double along(uint8_t axis, Point p) { return axis == 0 ? p.z : p.x; }
inline double across(uint8_t axis, Point p) { return axis == 0 ? p.x : p.z; }

enum Kind : uint8_t { kInterval, kPoint, kFinal };

struct Node {
  double g = 0;                 // cost at the root
  Point root;                   // root, column units
  double c = 0, lo = 0, hi = 0; // interval (kInterval), on line `axis`
  uint32_t rect = 0;            // the rectangle the node leads into
  uint32_t root_rect = 0;       // the root's pruning key is (root, root_rect)
  uint32_t parent = kNone;      // node index
  uint32_t from_rect = kNone;   // the rectangle on the other side of the interval
  uint32_t edge = kNone;        // the edge entering `rect` (index into the index's edges)
  Kind kind = kPoint;
  uint8_t axis = 0;
  bool lo_vertex = false, hi_vertex = false;  // interval ends that are portal ends
  uint8_t entry_dir = 0;        // side of `rect` the interval lies on
};

struct HeapEntry {
  double f;
  uint32_t node;
};

struct Later {
  bool operator()(const HeapEntry& a, const HeapEntry& b) const { return a.f > b.f || (a.f == b.f && a.node > b.node); }
};

struct RootEntry {
  uint32_t stamp = 0;
  uint32_t rect = 0;
  int64_t kx = 0, kz = 0;  // twice the coordinates (roots are column centres or cell corners)
  double g = 0;
  uint32_t owner = 0xffffffffu;  // the node whose expansion reached it at g
};

struct Scratch {
  std::vector<Node> nodes;
  FourAryHeap<HeapEntry, Later> heap;
  std::vector<Node> batch;  // successors of the node being expanded
  std::vector<RootEntry> roots;
  std::size_t root_count = 0;
  uint32_t stamp = 0;

  void begin() {
    nodes.clear();
    heap.clear();
    if (roots.empty()) roots.resize(1024);
    if (++stamp == 0) {
      for (RootEntry& r : roots) r.stamp = 0;
      stamp = 1;
    }
    root_count = 0;
  }
  // Twice a coordinate, rounded half away from zero like std::llround (a truncating conversion
  // instead of the library call: roots are column centres or cell corners, so the product is
  // an integer but for rounding).
  static int64_t key(double v) {
    const double t = v * 2;
    return static_cast<int64_t>(t + (t >= 0 ? 0.5 : -0.5));
  }
  static uint64_t hash(uint32_t rect, int64_t kx, int64_t kz) {
    uint64_t h = uint64_t(rect) * 0x9E3779B97F4A7C15ull ^ uint64_t(kx) * 0xC2B2AE3D27D4EB4Full ^ uint64_t(kz) * 0x165667B19E3779F9ull;
    return h ^ (h >> 29);
  }
  RootEntry* find(uint32_t rect, Point p, bool insert) {
    const int64_t kx = key(p.x), kz = key(p.z);
    if (insert && 2 * (root_count + 1) > roots.size()) grow();
    const std::size_t mask = roots.size() - 1;
    for (std::size_t i = hash(rect, kx, kz) & mask;; i = (i + 1) & mask) {
      RootEntry& e = roots[i];
      if (e.stamp != stamp) {
        if (!insert) return nullptr;
        e = {stamp, rect, kx, kz, std::numeric_limits<double>::infinity(), 0xffffffffu};
        ++root_count;
        return &e;
      }
      if (e.rect == rect && e.kx == kx && e.kz == kz) return &e;
    }
  }
  void grow() {
    std::vector<RootEntry> old;
    old.swap(roots);
    roots.assign(old.size() * 2, RootEntry{});
    const uint32_t live = stamp;
    stamp = 1;
    for (RootEntry& r : roots) r.stamp = 0;
    root_count = 0;
    for (const RootEntry& r : old) {
      if (r.stamp != live) continue;
      const std::size_t mask = roots.size() - 1;
      std::size_t i = hash(r.rect, r.kx, r.kz) & mask;
      while (roots[i].stamp == stamp) i = (i + 1) & mask;
      roots[i] = r;
      roots[i].stamp = stamp;
      ++root_count;
    }
  }
  // False when (p, rect) was reached cheaper before, or at the same cost by the expansion of
  // another node than `owner`; otherwise records g. Ties within one expansion pass: the corner
  // is the root of a successor on each portal of the rectangle. A tie from another expansion
  // adds nothing: the first one's successors already reach every point x of the rectangle's
  // sides as cheaply as round p (g_p + |p x|) — straight from its root where x is in its cone
  // (the triangle inequality), round p itself beyond p's edge of the cone, round the cone's
  // other end beyond that edge (the line p -> x crosses that edge inside the rectangle), or
  // through a sibling interval where that end is flat. Passing such ties multiplied roots on a
  // lattice of pillars, where many staircase routes tie (236,536 nodes for a 57 m route that
  // the corridor method found with 288 rectangles; 3.1 M and 1.5 GB for 85 m).
  bool improve(uint32_t rect, Point p, double g, uint32_t owner) {
    RootEntry* e = find(rect, p, true);
    if (e->g < g - kEps) return false;
    if (e->g <= g + kEps && e->owner != owner) return false;
    if (g < e->g) e->g = g, e->owner = owner;
    return true;
  }
  // False when rectangle `rect` was already expanded from root p at no more cost.
  bool firstExpansion(uint32_t rect, Point p, double g) {
    RootEntry* e = find(rect | 0x80000000u, p, true);
    if (e->g <= g + kEps) return false;
    e->g = g;
    return true;
  }
  // True when the node's root has since been reached cheaper.
  bool stale(const Node& n) {
    const RootEntry* e = find(n.root_rect, n.root, false);
    return e != nullptr && e->g < n.g - kEps;
  }
  void push(double f, uint32_t node) { heap.push({f, node}); }
  HeapEntry pop() { return heap.pop(); }
};

Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

// The shortest line from `r` through the interval [lo, hi] of line `axis` = c to `goal`
// (mirrored to the far side when it lies on the root's side), column units.
double intervalHeuristic(Point r, uint8_t axis, double c, double lo, double hi, Point goal) {
  const double rw = across(axis, r) - c, ru = along(axis, r);
  double gw = across(axis, goal) - c;
  const double gu = along(axis, goal);
  if (rw * gw > 0) gw = -gw;
  double u = ru;
  if (std::fabs(rw - gw) > kEps) u = ru + (gu - ru) * (rw / (rw - gw));
  if (u >= lo && u <= hi) return std::sqrt((ru - gu) * (ru - gu) + (rw - gw) * (rw - gw));
  const double e = u < lo ? lo : hi;
  return std::sqrt((ru - e) * (ru - e) + rw * rw) + std::sqrt((gu - e) * (gu - e) + gw * gw);
}

// The part of [lo, hi] where a + b * u >= 0 (or < 0 when `negative`), as [out_lo, out_hi];
// false when empty.
inline bool clip(double a, double b, bool negative, double& lo, double& hi) {
  if (negative) a = -a, b = -b;
  if (std::fabs(b) < kEps) return negative ? a > kEps : a >= -kEps;
  const double root = -a / b;
  if (b > 0) lo = std::max(lo, root);
  else hi = std::min(hi, root);
  return hi - lo > kMinLength;
}

}  // namespace

RouteSearch searchIntervals(const CorridorIndex& index, NodeId start, NodeId goal, double cost_per_metre,
                            int64_t max_expansions, std::vector<const CorridorEdge*>& chain) {
  const LayeredSearchGraph& view = index.view();
  const double scale = view.graph().grid.cell_size * cost_per_metre;
  // The heuristic's rate: no dearer than walking, nor than any special edge per metre it spans
  // (cheap links lower it), so that it stays admissible.
  const double h_scale = view.graph().grid.cell_size * std::min(cost_per_metre, view.costPerMetre());
  const uint32_t start_rect = index.rectOf(start), goal_rect = index.rectOf(goal);
  const auto sc = view.column(start), gc = view.column(goal);
  const Point start_point{double(sc[0]), double(sc[1])}, goal_point{double(gc[0]), double(gc[1])};
  const CorridorEdge* edges_base = index.edgesOf(0).data();
  Scratch& s = scratch();
  s.begin();
  RouteSearch out;

  auto heuristic = [&](const Node& n) {
    if (n.kind == kFinal) return 0.0;
    if (n.kind == kPoint) return distance(n.root, goal_point) * h_scale;
    return intervalHeuristic(n.root, n.axis, n.c, n.lo, n.hi, goal_point) * h_scale;
  };
  auto push = [&](const Node& n) {
    s.nodes.push_back(n);
    s.push(n.g + heuristic(n), static_cast<uint32_t>(s.nodes.size() - 1));
  };
  auto emitNode = [&](const Node& n) { s.batch.push_back(n); };

  {
    Node n;
    n.kind = kPoint, n.root = start_point, n.rect = start_rect, n.root_rect = start_rect, n.g = 0;
    s.improve(start_rect, start_point, 0, kNone);
    push(n);
  }

  // Expands node `current` into s.batch.
  // (The node array does not grow while a node expands: successors go to s.batch.)
  auto expand = [&](uint32_t current) {
    const Node& n = s.nodes[current];
    const uint32_t here = n.rect;

    // What the node sees of its rectangle: everything from a point root, the cone through the
    // interval from an interval root. A root on the interval's own line (it turned round an end
    // of that line) walks to the interval's nearer end and sees everything from there.
    Point r = n.root;
    double g = n.g;
    uint32_t root_rect = n.root_rect;
    bool cone = n.kind == kInterval;
    Point a, b;
    double sign = 1;
    if (cone) {
      a = at(n.axis, n.c, n.lo), b = at(n.axis, n.c, n.hi);
      const double o = cross(r, a, b);
      if (std::fabs(o) <= kEps) {
        const double ru = along(n.axis, r);
        const Point moved = ru < n.lo ? a : ru > n.hi ? b : r;
        if (moved.x != r.x || moved.z != r.z) {
          g += distance(r, moved) * scale;
          r = moved, root_rect = here;
          if (!s.improve(here, r, g, current)) return;
        }
        cone = false;
      } else {
        sign = o > 0 ? 1 : -1;
      }
    }
    // A point root sees the whole rectangle: expand it once per (rectangle, root) (a root on a
    // corner several rectangles share would otherwise go round and round).
    if (!cone && !s.firstExpansion(here, r, g)) return;
    auto reach = [&](Point x) {
      if (!cone) return g + distance(r, x) * scale;
      const double ca = sign * cross(r, a, x), cb = sign * cross(r, x, b);
      if (ca >= 0 && cb >= 0) return g + distance(r, x) * scale;
      if (ca < 0) return g + (distance(r, a) + distance(a, x)) * scale;
      return g + (distance(r, b) + distance(b, x)) * scale;
    };
    // A successor: part [lo, hi] of portal `through` (its side `seg`) seen from `root` at cost
    // `at_root` (m: the successor's other fields). Its ends are corners where they are the
    // portal's and the portal says so.
    auto emitPart = [&](Node m, const Segment& seg, const CorridorEdge& through, Point root, uint32_t key, double at_root,
                        double lo, double hi) {
      m.axis = seg.axis, m.c = seg.c, m.parent = current;
      m.root = root, m.root_rect = key, m.g = at_root, m.lo = lo, m.hi = hi;
      m.lo_vertex = lo <= seg.lo && through.lo_corner, m.hi_vertex = hi >= seg.hi && through.hi_corner;
      emitNode(m);
    };
    // The same part reached round interval end `side` (0: a, 1: b), a new root, unless that
    // corner was reached cheaper (that root covers this part).
    auto turnRound = [&](int side, Node m, const Segment& seg, const CorridorEdge& through, double lo, double hi) {
      const Point corner = side == 0 ? a : b;
      const double g_corner = g + distance(r, corner) * scale;
      if (s.improve(here, corner, g_corner, current)) emitPart(m, seg, through, corner, here, g_corner, lo, hi);
    };
    // Successors on portal `seg`: the part the cone covers (same root), and the parts beyond its
    // edges round interval ends that are corners.
    auto emit = [&](const Segment& seg, const CorridorEdge& through, const Node& m) {
      if (!cone) {
        emitPart(m, seg, through, r, root_rect, g, seg.lo, seg.hi);
        return;
      }
      // Orientation of the side's points against the cone's two edges, linear in u:
      // ca(u) >= 0 on b's side of the ray r->a, cb(u) >= 0 on a's side of r->b.
      const Point p0 = at(seg.axis, seg.c, 0.0);
      const Point du = seg.axis == 0 ? Point{0, 1} : Point{1, 0};
      const double ca0 = sign * cross(r, a, p0), cb0 = sign * cross(r, p0, b);
      const double ca1 = sign * ((a.x - r.x) * du.z - (a.z - r.z) * du.x);
      const double cb1 = -sign * ((b.x - r.x) * du.z - (b.z - r.z) * du.x);
      double lo = seg.lo, hi = seg.hi;
      if (clip(ca0, ca1, false, lo, hi) && clip(cb0, cb1, false, lo, hi)) emitPart(m, seg, through, r, root_rect, g, lo, hi);
      for (int side = 0; side < 2; ++side) {
        if (!(side == 0 ? n.lo_vertex : n.hi_vertex)) continue;
        lo = seg.lo, hi = seg.hi;
        if (side == 0 ? clip(ca0, ca1, true, lo, hi) : clip(cb0, cb1, true, lo, hi)) turnRound(side, m, seg, through, lo, hi);
      }
    };

    if (here == goal_rect) {
      Node f;
      f.kind = kFinal, f.g = reach(goal_point), f.parent = current, f.rect = here;
      emitNode(f);
    }
    for (const CorridorEdge& e : index.edgesOf(here)) {
      const auto edge_id = static_cast<uint32_t>(&e - edges_base);
      if (!e.portal) {  // a special edge: a new root at its landing
        const Point landing{double(e.line), double(e.to_z)};
        const double cost = reach(Point{double(e.lo), double(e.hi)}) + e.cost;
        if (!s.improve(e.to_rect, landing, cost, current)) continue;
        Node m;
        m.kind = kPoint, m.root = landing, m.g = cost, m.rect = e.to_rect, m.root_rect = e.to_rect;
        m.parent = current, m.edge = edge_id;
        emitNode(m);
        continue;
      }
      // No shortest route enters a dead end that does not hold the goal (CorridorIndex::deadEnd).
      if (index.deadEnd(here, e.to_rect, goal_rect)) continue;
      const Segment seg = portalSegment(e);
      Node m;
      m.kind = kInterval, m.edge = edge_id, m.rect = e.to_rect, m.from_rect = here;
      m.entry_dir = static_cast<uint8_t>((e.direction + 4) % kDirectionCount);
      if (!cone) {
        if (n.kind == kInterval && e.to_rect == n.from_rect && e.direction == n.entry_dir) continue;  // straight back
        emit(seg, e, m);
        continue;
      }
      if (e.direction != n.entry_dir) {
        emit(seg, e, m);
        continue;
      }
      // An open side on the interval's own line: round the interval end towards it, then along
      // the line.
      for (int side = 0; side < 2; ++side) {
        if (!(side == 0 ? n.lo_vertex : n.hi_vertex)) continue;
        double lo = seg.lo, hi = seg.hi;
        if (side == 0) hi = std::min(hi, n.lo);
        else lo = std::max(lo, n.hi);
        if (hi - lo > kMinLength) turnRound(side, m, seg, e, lo, hi);
      }
    }
  };

  // Polyanya's intermediate pruning: a node with a single interval successor is followed at once,
  // without the open list (the successor would be expanded anyway; goals only leave through it).
  uint32_t final_node = kNone;
  while (!s.heap.empty()) {
    const HeapEntry top = s.pop();
    const Node& popped = s.nodes[top.node];
    if (popped.kind == kFinal) {
      final_node = top.node;
      break;
    }
    if (s.stale(popped)) continue;
    if (max_expansions > 0 && out.expansions >= max_expansions) break;
    for (uint32_t current = top.node;;) {
      ++out.expansions;
      s.batch.clear();
      expand(current);
      if (s.batch.size() == 1 && s.batch.front().kind == kInterval && !(max_expansions > 0 && out.expansions >= max_expansions)) {
        s.nodes.push_back(s.batch.front());
        current = static_cast<uint32_t>(s.nodes.size() - 1);
        continue;
      }
      for (const Node& m : s.batch) push(m);
      break;
    }
  }
  if (final_node == kNone) return out;
  chain.clear();
  for (uint32_t i = s.nodes[final_node].parent; i != kNone; i = s.nodes[i].parent)
    if (s.nodes[i].edge != kNone) chain.push_back(edges_base + s.nodes[i].edge);
  std::reverse(chain.begin(), chain.end());
  out.found = true;
  out.cost = s.nodes[final_node].g;
  return out;
}

}  // namespace strata::nav::detail
