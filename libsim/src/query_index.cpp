// The query index (spec: physics-stepping-and-queries.md, "Query indexes outside the solver").
//
// Two trees (queryable, non-queryable), each a settled 4-wide BVH over collider bounds plus a
// packed loose list. Moving a collider marks its settled slot dead and appends it to the loose
// list; a tree rebuilds when loose entries plus dead slots exceed
// max(rebuild_min_entries, members / rebuild_divisor). Every query visits the settled tree and
// the loose list, so a change is visible at once. Mesh colliders carry a triangle BVH (bvh4.h)
// in mesh-local coordinates; the exact tests are in narrow_phase.cpp.
//
// Candidate selection is conservative (float boxes rounded outward); filters and exact tests
// run after it. Casts and rays keep a running bound (the best time so far) and prune with it.
// Ties between equally good hits break on (collider, triangle), so the index and the
// enumerate-everything path return identical answers.

#include "strata/sim/query_index.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "bvh4.h"
#include "narrow_phase.h"

namespace strata::sim {

using detail::BoxF;
using detail::Bvh4;
using detail::CastResult;
using detail::Triangle;

namespace {

constexpr uint32_t kColliderLeafSize = 4;

struct MeshData {
  std::vector<Triangle> triangles;  // leaf order, mesh-local coordinates
  std::vector<uint32_t> source;     // original triangle index
  std::vector<uint32_t> labels;     // global label id per leaf-order triangle
  std::vector<uint32_t> tags;       // global tag id per leaf-order triangle
  Bvh4 bvh;
  Aabb bounds;
};

struct ColliderRecord {
  ColliderKind kind = ColliderKind::Box;
  ColliderProperties props;
  uint32_t label = kInvalidId;
  uint32_t tag = kInvalidId;
  bool alive = true;
  std::shared_ptr<const MeshData> mesh;
  Vec3 offset;
  OrientedBox box;   // Box, OrientedBox
  Vec3 p, q;         // Sphere (p == q), Capsule
  double radius = 0;
  Aabb bounds;
  int tree = 0;
  uint32_t settled_slot = kInvalidId;
  uint32_t loose_slot = kInvalidId;
};

struct Tree {
  Bvh4 bvh;
  std::vector<uint32_t> settled;  // leaf position -> collider, kInvalidId when it left
  std::vector<uint32_t> loose;    // packed
  std::vector<BoxF> loose_boxes;  // parallel to loose
  std::size_t removed = 0;
  std::size_t members = 0;
};

// A query shape: an oriented box, or a capsule (p == q: sphere).
struct Shape {
  bool is_box = false;
  OrientedBox box;
  Vec3 p, q;
  double radius = 0;

  Aabb bounds() const {
    if (is_box) return box.bounds();
    const Vec3 r{radius, radius, radius};
    return Aabb{min(p, q) - r, max(p, q) + r};
  }
  Shape translated(const Vec3& by) const {
    Shape s = *this;
    s.box.center += by;
    s.p += by;
    s.q += by;
    return s;
  }
};

struct CastBest {
  bool found = false;
  CastResult r;
  uint32_t collider = kInvalidId;
  uint32_t triangle = kNoTriangle;
  uint32_t label = kInvalidId;
  uint32_t tag = kInvalidId;

  // Strict weak order: penetrating beats touching/sweeping; deeper penetration, earlier time;
  // then the lower (collider, triangle).
  bool better(const CastResult& a, uint32_t ca, uint32_t ta) const {
    if (!found) return true;
    if (a.started_penetrating != r.started_penetrating) return a.started_penetrating;
    if (a.started_penetrating) {
      if (a.depth != r.depth) return a.depth > r.depth;
    } else if (a.time != r.time) {
      return a.time < r.time;
    }
    if (ca != collider) return ca < collider;
    return ta < triangle;
  }
  void offer(const CastResult& a, uint32_t ca, uint32_t ta, uint32_t la, uint32_t tg) {
    if (!better(a, ca, ta)) return;
    found = true;
    r = a;
    collider = ca;
    triangle = ta;
    label = la;
    tag = tg;
  }
};

bool rayHitBetter(const RayHit& a, const RayHit& b) {
  if (a.distance != b.distance) return a.distance < b.distance;
  if (a.collider != b.collider) return a.collider < b.collider;
  return a.triangle < b.triangle;
}

// Double-precision swept slab test against a float box; entry time or nullopt.
std::optional<double> sweptBoxEntry(const BoxF& box, const Vec3& origin, const Vec3& dir, const Vec3& half,
                                    double t_max) {
  double t0 = 0, t1 = t_max;
  for (int k = 0; k < 3; ++k) {
    const double lo = box.min[k] - half[k], hi = box.max[k] + half[k];
    if (dir[k] == 0) {
      if (origin[k] < lo || origin[k] > hi) return std::nullopt;
      continue;
    }
    double a = (lo - origin[k]) / dir[k], b = (hi - origin[k]) / dir[k];
    if (a > b) std::swap(a, b);
    t0 = std::max(t0, a);
    t1 = std::min(t1, b);
    if (t0 > t1) return std::nullopt;
  }
  return t0;
}

bool boxOverlapsF(const BoxF& box, const Aabb& q) {
  for (int k = 0; k < 3; ++k)
    if (box.min[k] > q.max[k] || box.max[k] < q.min[k]) return false;
  return true;
}

bool validRadius(double r) { return std::isfinite(r) && r >= 0; }

}  // namespace

struct QueryIndex::Impl {
  QueryIndexSettings settings;
  std::vector<ColliderRecord> colliders;
  Tree trees[2];
  std::size_t rebuilds = 0;
  std::size_t live = 0;
  bool enumerate_all = false;

  std::vector<std::string> label_names;
  std::unordered_map<std::string, uint32_t> label_ids;
  std::vector<std::string> tag_names;
  std::vector<uint32_t> tag_parent;
  std::unordered_map<std::string, uint32_t> tag_ids;

  // ---- interning ----
  uint32_t internLabel(const std::string& name) {
    auto it = label_ids.find(name);
    if (it != label_ids.end()) return it->second;
    const uint32_t id = static_cast<uint32_t>(label_names.size());
    label_names.push_back(name);
    label_ids.emplace(name, id);
    return id;
  }
  uint32_t internTag(const std::string& name) {
    auto it = tag_ids.find(name);
    if (it != tag_ids.end()) return it->second;
    uint32_t parent = kInvalidId;
    const std::size_t slash = name.find_last_of('/');
    if (slash != std::string::npos && slash > 0) parent = internTag(name.substr(0, slash));
    const uint32_t id = static_cast<uint32_t>(tag_names.size());
    tag_names.push_back(name);
    tag_parent.push_back(parent);
    tag_ids.emplace(name, id);
    return id;
  }
  bool tagIsUnder(uint32_t tag, uint32_t ancestor) const {
    for (uint32_t t = tag; t != kInvalidId && t < tag_parent.size(); t = tag_parent[t])
      if (t == ancestor) return true;
    return false;
  }

  // ---- filtering ----
  static bool hasId(const std::vector<uint32_t>& ids, uint32_t id) {
    return std::find(ids.begin(), ids.end(), id) != ids.end();
  }
  bool acceptCollider(uint32_t index, const QueryFilter& f) const {
    const ColliderRecord& c = colliders[index];
    if (!c.alive) return false;
    if (!f.include_colliders.empty() && !hasId(f.include_colliders, index)) return false;
    if (hasId(f.exclude_colliders, index)) return false;
    if (f.require_can_collide && !c.props.can_collide) return false;
    if (f.group != kInvalidId) {
      if (f.group_matrix ? !f.group_matrix->collides(f.group, c.props.group)
                         : (f.group >= kCollisionGroupCount || c.props.group >= kCollisionGroupCount))
        return false;
    }
    if (c.kind != ColliderKind::Mesh && !acceptTag(c.tag, f)) return false;
    return true;
  }
  bool acceptTag(uint32_t tag, const QueryFilter& f) const {
    if (!f.include_tags.empty()) {
      bool any = false;
      for (uint32_t t : f.include_tags) any = any || tagIsUnder(tag, t);
      if (!any) return false;
    }
    for (uint32_t t : f.exclude_tags)
      if (tagIsUnder(tag, t)) return false;
    return true;
  }
  static bool filtersTags(const QueryFilter& f) { return !f.include_tags.empty() || !f.exclude_tags.empty(); }

  // ---- tree maintenance ----
  void fileLoose(uint32_t index) {
    ColliderRecord& c = colliders[index];
    Tree& tree = trees[c.tree];
    if (c.settled_slot != kInvalidId) {
      tree.settled[c.settled_slot] = kInvalidId;
      c.settled_slot = kInvalidId;
      ++tree.removed;
    }
    if (c.loose_slot == kInvalidId) {
      c.loose_slot = static_cast<uint32_t>(tree.loose.size());
      tree.loose.push_back(index);
      tree.loose_boxes.push_back(detail::toBoxF(c.bounds));
    } else {
      tree.loose_boxes[c.loose_slot] = detail::toBoxF(c.bounds);
    }
  }
  void unfile(uint32_t index) {
    ColliderRecord& c = colliders[index];
    Tree& tree = trees[c.tree];
    if (c.settled_slot != kInvalidId) {
      tree.settled[c.settled_slot] = kInvalidId;
      c.settled_slot = kInvalidId;
      ++tree.removed;
    }
    if (c.loose_slot != kInvalidId) {
      const uint32_t slot = c.loose_slot;
      const uint32_t last = tree.loose.back();
      tree.loose[slot] = last;
      tree.loose_boxes[slot] = tree.loose_boxes.back();
      colliders[last].loose_slot = slot;
      tree.loose.pop_back();
      tree.loose_boxes.pop_back();
      c.loose_slot = kInvalidId;
    }
    --tree.members;
  }
  void maybeRebuild(int t) {
    Tree& tree = trees[t];
    const std::size_t threshold =
        std::max<std::size_t>(settings.rebuild_min_entries, tree.members / std::max<uint32_t>(1, settings.rebuild_divisor));
    if (tree.loose.size() + tree.removed > threshold) rebuildTree(t);
  }
  void rebuildTree(int t) {
    Tree& tree = trees[t];
    std::vector<uint32_t> members;
    for (uint32_t c : tree.settled)
      if (c != kInvalidId) members.push_back(c);
    for (uint32_t c : tree.loose) members.push_back(c);
    std::sort(members.begin(), members.end());
    std::vector<BoxF> boxes;
    boxes.reserve(members.size());
    for (uint32_t c : members) boxes.push_back(detail::toBoxF(colliders[c].bounds));
    tree.bvh.build(boxes, kColliderLeafSize);
    tree.settled.resize(members.size());
    for (std::size_t i = 0; i < members.size(); ++i) {
      const uint32_t c = members[tree.bvh.order[i]];
      tree.settled[i] = c;
      colliders[c].settled_slot = static_cast<uint32_t>(i);
      colliders[c].loose_slot = kInvalidId;
    }
    tree.loose.clear();
    tree.loose_boxes.clear();
    tree.removed = 0;
    ++rebuilds;
  }
  uint32_t addRecord(ColliderRecord record) {
    const uint32_t index = static_cast<uint32_t>(colliders.size());
    record.tree = record.props.queryable ? 0 : 1;
    record.label = internLabel(record.props.label);
    record.tag = internTag(record.props.tag);
    colliders.push_back(std::move(record));
    ++trees[colliders[index].tree].members;
    ++live;
    fileLoose(index);
    maybeRebuild(colliders[index].tree);
    return index;
  }
  void moved(uint32_t index) {
    fileLoose(index);
    maybeRebuild(colliders[index].tree);
  }

  std::shared_ptr<MeshData> buildMesh(const TriangleMesh& mesh) {
    auto data = std::make_shared<MeshData>();
    std::vector<uint32_t> label_map, tag_map;
    for (const std::string& l : mesh.labels) label_map.push_back(internLabel(l));
    for (const std::string& t : mesh.tags) tag_map.push_back(internTag(t));
    std::vector<Triangle> tris;
    std::vector<uint32_t> source;
    std::vector<BoxF> boxes;
    tris.reserve(mesh.triangles.size());
    for (std::size_t i = 0; i < mesh.triangles.size(); ++i) {
      const auto& idx = mesh.triangles[i];
      if (idx[0] >= mesh.vertices.size() || idx[1] >= mesh.vertices.size() || idx[2] >= mesh.vertices.size()) continue;
      const Triangle t{mesh.vertices[idx[0]].toDouble(), mesh.vertices[idx[1]].toDouble(),
                       mesh.vertices[idx[2]].toDouble()};
      if (!isFinite(t.a) || !isFinite(t.b) || !isFinite(t.c)) continue;
      Aabb b;
      b.expand(t.a);
      b.expand(t.b);
      b.expand(t.c);
      data->bounds.expand(b);
      tris.push_back(t);
      source.push_back(static_cast<uint32_t>(i));
      boxes.push_back(detail::toBoxF(b));
    }
    data->bvh.build(boxes, settings.leaf_triangles);
    data->triangles.resize(tris.size());
    data->source.resize(tris.size());
    data->labels.resize(tris.size());
    data->tags.resize(tris.size());
    for (std::size_t i = 0; i < tris.size(); ++i) {
      const uint32_t k = data->bvh.order[i];
      const uint32_t src = source[k];
      data->triangles[i] = tris[k];
      data->source[i] = src;
      data->labels[i] = src < mesh.triangle_labels.size() && mesh.triangle_labels[src] < label_map.size()
                            ? label_map[mesh.triangle_labels[src]]
                            : kInvalidId;
      data->tags[i] = src < mesh.triangle_tags.size() && mesh.triangle_tags[src] < tag_map.size()
                          ? tag_map[mesh.triangle_tags[src]]
                          : kInvalidId;
    }
    return data;
  }

  // ---- candidate enumeration ----
  // Calls fn(collider) for every accepted collider whose bounds overlap `q` (or every accepted
  // collider when enumerating); fn returns false to stop.
  template <class Fn>
  void forCollidersInBox(const Aabb& q, const QueryFilter& f, bool enumerate, Fn&& fn) const {
    for (int t = 0; t < (f.exhaustive ? 2 : 1); ++t) {
      const Tree& tree = trees[t];
      bool go = true;
      if (enumerate) {
        for (uint32_t c : tree.settled)
          if (go && c != kInvalidId && acceptCollider(c, f)) go = fn(c);
      } else {
        detail::traverseBox(tree.bvh, q.min, q.max, [&](uint32_t first, uint32_t count) {
          for (uint32_t i = first; i < first + count && go; ++i) {
            const uint32_t c = tree.settled[i];
            if (c != kInvalidId && acceptCollider(c, f)) go = fn(c);
          }
          return go;
        });
      }
      for (std::size_t i = 0; i < tree.loose.size() && go; ++i)
        if ((enumerate || boxOverlapsF(tree.loose_boxes[i], q)) && acceptCollider(tree.loose[i], f)) go = fn(tree.loose[i]);
      if (!go) return;
    }
  }
  // Calls fn(collider, t_max) for accepted colliders whose bounds the swept box enters before
  // t_max, loose ones first, then the settled tree nearest first; fn may lower t_max.
  template <class Fn>
  void forCollidersAlong(const Vec3& origin, const Vec3& dir, const Vec3& half, double& t_max, const QueryFilter& f,
                         bool enumerate, Fn&& fn) const {
    for (int t = 0; t < (f.exhaustive ? 2 : 1); ++t) {
      const Tree& tree = trees[t];
      for (std::size_t i = 0; i < tree.loose.size(); ++i)
        if ((enumerate || sweptBoxEntry(tree.loose_boxes[i], origin, dir, half, t_max)) &&
            acceptCollider(tree.loose[i], f))
          fn(tree.loose[i], t_max);
      if (enumerate) {
        for (uint32_t c : tree.settled)
          if (c != kInvalidId && acceptCollider(c, f)) fn(c, t_max);
        continue;
      }
      const detail::NodeRay ray = detail::prepareNodeRay(origin, dir, half);
      detail::traverseRay(tree.bvh, ray, t_max, [&](uint32_t first, uint32_t count, double& bound) {
        for (uint32_t i = first; i < first + count; ++i) {
          const uint32_t c = tree.settled[i];
          if (c != kInvalidId && acceptCollider(c, f)) fn(c, bound);
        }
      });
    }
  }
  // Triangles of a mesh collider along a (swept) ray in mesh-local coordinates.
  template <class Fn>
  void forTrianglesAlong(const MeshData& mesh, const Vec3& origin, const Vec3& dir, const Vec3& half, double& t_max,
                         bool enumerate, Fn&& fn) const {
    if (enumerate) {
      for (uint32_t i = 0; i < mesh.triangles.size(); ++i) fn(i, t_max);
      return;
    }
    const detail::NodeRay ray = detail::prepareNodeRay(origin, dir, half);
    detail::traverseRay(mesh.bvh, ray, t_max, [&](uint32_t first, uint32_t count, double& bound) {
      for (uint32_t i = first; i < first + count; ++i) fn(i, bound);
    });
  }
  template <class Fn>
  void forTrianglesInBox(const MeshData& mesh, const Aabb& q, bool enumerate, Fn&& fn) const {
    if (enumerate) {
      for (uint32_t i = 0; i < mesh.triangles.size(); ++i)
        if (!fn(i)) return;
      return;
    }
    detail::traverseBox(mesh.bvh, q.min, q.max, [&](uint32_t first, uint32_t count) {
      for (uint32_t i = first; i < first + count; ++i)
        if (!fn(i)) return false;
      return true;
    });
  }

  // ---- rays ----
  void ray(const Vec3& origin, const Vec3& dir, double max_distance, const QueryFilter& f, bool all,
           std::vector<RayHit>* hits, RayHit& best, bool& found) const {
    const bool enumerate = enumerate_all;
    double t_max = max_distance;
    const bool tag_filter = filtersTags(f);
    auto offer = [&](RayHit h, double& bound) {
      if (all) {
        hits->push_back(h);
        return;
      }
      if (!found || rayHitBetter(h, best)) {
        best = h;
        found = true;
        bound = std::min(bound, h.distance);
        t_max = std::min(t_max, h.distance);
      }
    };
    forCollidersAlong(origin, dir, Vec3{}, t_max, f, enumerate, [&](uint32_t ci, double& bound) {
      const ColliderRecord& c = colliders[ci];
      if (c.kind == ColliderKind::Mesh) {
        const MeshData& mesh = *c.mesh;
        const Vec3 local = origin - c.offset;
        const detail::WatertightRay wray = detail::prepareRay(local, dir);
        double mesh_bound = bound;
        forTrianglesAlong(mesh, local, dir, Vec3{}, mesh_bound, enumerate, [&](uint32_t i, double& tb) {
          if (tag_filter && !acceptTag(mesh.tags[i], f)) return;
          const Triangle& tri = mesh.triangles[i];
          const auto t = detail::rayTriangle(wray, tri, tb);
          if (!t) return;
          const Vec3 n = normalize(cross(tri.b - tri.a, tri.c - tri.a));
          if (lengthSquared(n) == 0) return;
          const bool front = dot(n, dir) < 0;
          if (!f.back_faces && !front) return;
          RayHit h{*t, origin + dir * *t, n, ci, mesh.source[i], mesh.labels[i], mesh.tags[i], front};
          offer(h, tb);
        });
        bound = std::min(bound, mesh_bound);
        return;
      }
      std::optional<detail::RayPrimitiveHit> ph;
      if (c.kind == ColliderKind::Box || c.kind == ColliderKind::OrientedBox)
        ph = detail::rayOrientedBox(origin, dir, c.box, bound);
      else
        ph = detail::rayCapsule(origin, dir, c.p, c.q, c.radius, bound);
      if (!ph || (!f.back_faces && ph->inside)) return;
      offer(RayHit{ph->t, origin + dir * ph->t, ph->normal, ci, kNoTriangle, c.label, c.tag, !ph->inside}, bound);
    });
  }

  // ---- overlaps ----
  bool overlapPrimitive(const ColliderRecord& c, const Shape& s) const {
    const bool prim_box = c.kind == ColliderKind::Box || c.kind == ColliderKind::OrientedBox;
    Vec3 a, b;
    if (s.is_box) {
      if (prim_box) return detail::boxBoxOverlap(c.box, s.box);
      return detail::segmentBoxDistance(c.p, c.q, s.box, a, b) <= c.radius;
    }
    if (prim_box) return detail::segmentBoxDistance(s.p, s.q, c.box, a, b) <= s.radius;
    detail::closestSegmentSegment(s.p, s.q, c.p, c.q, a, b);
    return length(a - b) <= s.radius + c.radius;
  }
  void overlap(const Shape& s, const QueryFilter& f, bool any, std::vector<OverlapHit>* out, bool& hit) const {
    const Aabb q = s.bounds();
    const bool enumerate = enumerate_all || !isFinite(q.min) || !isFinite(q.max);
    const bool tag_filter = filtersTags(f);
    hit = false;
    forCollidersInBox(q, f, enumerate, [&](uint32_t ci) {
      const ColliderRecord& c = colliders[ci];
      if (c.kind != ColliderKind::Mesh) {
        if (overlapPrimitive(c, s)) {
          hit = true;
          if (out) out->push_back({ci, kNoTriangle});
        }
        return !(any && hit);
      }
      const MeshData& mesh = *c.mesh;
      const Shape local = s.translated(-c.offset);
      const Aabb lq{q.min - c.offset, q.max - c.offset};
      forTrianglesInBox(mesh, lq, enumerate, [&](uint32_t i) {
        if (tag_filter && !acceptTag(mesh.tags[i], f)) return true;
        const Triangle& tri = mesh.triangles[i];
        const bool o = local.is_box ? detail::boxTriangleOverlap(local.box, tri)
                                    : detail::capsuleTriangleOverlap(local.p, local.q, local.radius, tri);
        if (!o) return true;
        hit = true;
        if (out) out->push_back({ci, mesh.source[i]});
        return !any;
      });
      return !(any && hit);
    });
    if (out) std::sort(out->begin(), out->end(), [](const OverlapHit& x, const OverlapHit& y) {
      return x.collider != y.collider ? x.collider < y.collider : x.triangle < y.triangle;
    });
  }

  // ---- casts ----
  static std::optional<CastResult> castTriangle(const Shape& s, const Vec3& d, const Triangle& tri) {
    return s.is_box ? detail::castBoxTriangle(s.box, d, tri) : detail::castCapsuleTriangle(s.p, s.q, s.radius, d, tri);
  }
  static std::optional<CastResult> initialContact(double depth, const Vec3& normal, const Vec3& point, const Vec3& d) {
    if (depth <= detail::kTouchTolerance && detail::staysTouching(depth, d, normal)) return std::nullopt;
    CastResult r;
    r.time = 0;
    r.normal = normal;
    r.point = point;
    r.started_penetrating = depth > detail::kTouchTolerance;
    r.depth = r.started_penetrating ? depth : 0;
    r.escape = r.started_penetrating ? normal * depth : Vec3{};
    return r;
  }
  static std::optional<CastResult> earliest(std::optional<CastResult> a, const std::optional<CastResult>& b) {
    if (!a || (b && b->time < a->time)) return b;
    return a;
  }
  std::optional<CastResult> castPrimitive(const ColliderRecord& c, const Shape& s, const Vec3& d) const {
    const bool prim_box = c.kind == ColliderKind::Box || c.kind == ColliderKind::OrientedBox;
    Vec3 on_a, on_b;
    if (!s.is_box && !prim_box) {
      auto r = detail::castCapsuleTriangle(s.p, s.q, s.radius + c.radius, d, Triangle{c.p, c.q, c.q});
      if (r) r->point += r->normal * c.radius;
      return r;
    }
    if (!s.is_box) {  // capsule against a solid box
      const double dist = detail::segmentBoxDistance(s.p, s.q, c.box, on_a, on_b);
      if (dist <= s.radius) {
        if (dist > 1e-12) return initialContact(s.radius - dist, (on_a - on_b) / dist, on_b, d);
        const Vec3 pts[2] = {s.p, s.q};
        const Vec3 edge = s.q - s.p;
        double depth;
        Vec3 dir;
        detail::boxPenetration(c.box, pts, 2, &edge, 1, nullptr, 0, s.radius, depth, dir);
        return initialContact(depth, dir, on_b, d);
      }
      if (lengthSquared(d) == 0) return std::nullopt;
      std::optional<CastResult> best;
      for (const Triangle& tri : detail::boxTriangles(c.box))
        best = earliest(best, detail::castCapsuleTriangle(s.p, s.q, s.radius, d, tri));
      return best;
    }
    if (prim_box) {  // box against a solid box
      Vec3 corners[8];
      for (int i = 0; i < 8; ++i)
        corners[i] = s.box.center + s.box.axes[0] * ((i & 1) ? s.box.half_extents.x : -s.box.half_extents.x) +
                     s.box.axes[1] * ((i & 2) ? s.box.half_extents.y : -s.box.half_extents.y) +
                     s.box.axes[2] * ((i & 4) ? s.box.half_extents.z : -s.box.half_extents.z);
      if (detail::boxBoxOverlap(c.box, s.box)) {
        double depth;
        Vec3 dir;
        detail::boxPenetration(c.box, corners, 8, s.box.axes.data(), 3, s.box.axes.data(), 3, 0.0, depth, dir);
        const Vec3 rel = s.box.center - c.box.center;
        Vec3 point = c.box.center;
        for (int i = 0; i < 3; ++i)
          point += c.box.axes[i] * std::clamp(dot(rel, c.box.axes[i]), -c.box.half_extents[i], c.box.half_extents[i]);
        return initialContact(depth, dir, point, d);
      }
      if (lengthSquared(d) == 0) return std::nullopt;
      std::optional<CastResult> best;
      for (const Triangle& tri : detail::boxTriangles(c.box)) best = earliest(best, detail::castBoxTriangle(s.box, d, tri));
      return best;
    }
    // box against a sphere / capsule: sweep the capsule backwards against the box's faces
    const double dist = detail::segmentBoxDistance(c.p, c.q, s.box, on_a, on_b);
    if (dist <= c.radius) {
      if (dist > 1e-12) return initialContact(c.radius - dist, (on_b - on_a) / dist, on_a + (on_b - on_a) / dist * c.radius, d);
      const Vec3 pts[2] = {c.p, c.q};
      const Vec3 edge = c.q - c.p;
      double depth;
      Vec3 dir;
      detail::boxPenetration(s.box, pts, 2, &edge, 1, nullptr, 0, c.radius, depth, dir);
      return initialContact(depth, -dir, on_a, d);
    }
    if (lengthSquared(d) == 0) return std::nullopt;
    std::optional<CastResult> best;
    for (const Triangle& tri : detail::boxTriangles(s.box)) {
      auto r = detail::castCapsuleTriangle(c.p, c.q, c.radius, -d, tri);
      if (!r) continue;
      r->normal = -r->normal;
      r->point += d * r->time;
      best = earliest(best, r);
    }
    return best;
  }
  void cast(const Shape& s, const Vec3& d, const QueryFilter& f, CastBest& best) const {
    const Aabb sb = s.bounds();
    const bool enumerate = enumerate_all || !isFinite(sb.min) || !isFinite(sb.max) || !isFinite(d);
    if (!isFinite(d)) return;  // a nonfinite translation has no time of impact
    const Vec3 center = sb.center();
    const Vec3 half = sb.extent() * 0.5;
    const bool tag_filter = filtersTags(f);
    double t_max = 1.0;
    auto bound_after = [&]() { return best.found ? best.r.time : 1.0; };
    forCollidersAlong(center, d, half, t_max, f, enumerate, [&](uint32_t ci, double& bound) {
      const ColliderRecord& c = colliders[ci];
      if (c.kind != ColliderKind::Mesh) {
        if (auto r = castPrimitive(c, s, d)) best.offer(*r, ci, kNoTriangle, c.label, c.tag);
        bound = std::min(bound, bound_after());
        return;
      }
      const MeshData& mesh = *c.mesh;
      const Shape local = s.translated(-c.offset);
      double mesh_bound = bound;
      forTrianglesAlong(mesh, center - c.offset, d, half, mesh_bound, enumerate, [&](uint32_t i, double& tb) {
        if (tag_filter && !acceptTag(mesh.tags[i], f)) return;
        auto r = castTriangle(local, d, mesh.triangles[i]);
        if (!r) return;
        r->point += c.offset;
        best.offer(*r, ci, mesh.source[i], mesh.labels[i], mesh.tags[i]);
        tb = std::min(tb, bound_after());
      });
      bound = std::min(bound, bound_after());
    });
  }
};

// ---------------------------------------------------------------------------------------------

QueryIndex::QueryIndex(const QueryIndexSettings& settings) : impl_(std::make_unique<Impl>()) {
  impl_->settings = settings;
  if (!settings.validate().empty()) impl_->settings = QueryIndexSettings{};
}

QueryIndex::QueryIndex(const TriangleMesh& mesh, const QueryIndexSettings& settings) : QueryIndex(settings) {
  ColliderRecord record;
  record.kind = ColliderKind::Mesh;
  auto data = impl_->buildMesh(mesh);
  record.bounds = data->bounds;
  record.mesh = std::move(data);
  impl_->addRecord(std::move(record));
  impl_->rebuildTree(0);
}

QueryIndex::~QueryIndex() = default;
QueryIndex::QueryIndex(QueryIndex&&) noexcept = default;
QueryIndex& QueryIndex::operator=(QueryIndex&&) noexcept = default;

Result<uint32_t> QueryIndex::addMesh(const TriangleMesh& mesh, const ColliderProperties& properties, const Vec3& offset) {
  if (std::string problem = mesh.validate(); !problem.empty()) return Error::badInput("mesh collider: " + problem);
  if (!isFinite(offset)) return Error::badInput("mesh collider: offset is not finite");
  ColliderRecord record;
  record.kind = ColliderKind::Mesh;
  record.props = properties;
  record.offset = offset;
  auto data = impl_->buildMesh(mesh);
  record.bounds = data->bounds.empty() ? data->bounds : Aabb{data->bounds.min + offset, data->bounds.max + offset};
  record.mesh = std::move(data);
  return impl_->addRecord(std::move(record));
}

namespace {
Status checkBox(const OrientedBox& box) {
  if (!isFinite(box.center) || !isFinite(box.half_extents)) return Error::badInput("box collider: not finite");
  if (box.half_extents.x < 0 || box.half_extents.y < 0 || box.half_extents.z < 0)
    return Error::badInput("box collider: negative half extent");
  for (int i = 0; i < 3; ++i)
    if (!isFinite(box.axes[i]) || std::fabs(length(box.axes[i]) - 1) > 1e-6)
      return Error::badInput("box collider: axis " + std::to_string(i) + " is not unit length");
  if (std::fabs(dot(box.axes[0], box.axes[1])) > 1e-6 || std::fabs(dot(box.axes[1], box.axes[2])) > 1e-6 ||
      std::fabs(dot(box.axes[0], box.axes[2])) > 1e-6)
    return Error::badInput("box collider: axes are not orthogonal");
  return Ok{};
}
Status checkCapsule(const Capsule& c) {
  if (!isFinite(c.a) || !isFinite(c.b) || !validRadius(c.radius))
    return Error::badInput("capsule collider: not finite or negative radius");
  return Ok{};
}
}  // namespace

Result<uint32_t> QueryIndex::addBox(const Aabb& box, const ColliderProperties& properties) {
  if (box.empty()) return Error::badInput("box collider: min exceeds max");
  auto r = addOrientedBox(OrientedBox::fromAabb(box), properties);
  if (r) impl_->colliders[*r].kind = ColliderKind::Box;
  return r;
}

Result<uint32_t> QueryIndex::addOrientedBox(const OrientedBox& box, const ColliderProperties& properties) {
  if (Status s = checkBox(box); !s) return s.error();
  ColliderRecord record;
  record.kind = ColliderKind::OrientedBox;
  record.props = properties;
  record.box = box;
  record.bounds = box.bounds();
  return impl_->addRecord(std::move(record));
}

Result<uint32_t> QueryIndex::addSphere(const Sphere& sphere, const ColliderProperties& properties) {
  auto r = addCapsule(Capsule{sphere.center, sphere.center, sphere.radius}, properties);
  if (r) impl_->colliders[*r].kind = ColliderKind::Sphere;
  return r;
}

Result<uint32_t> QueryIndex::addCapsule(const Capsule& capsule, const ColliderProperties& properties) {
  if (Status s = checkCapsule(capsule); !s) return s.error();
  ColliderRecord record;
  record.kind = ColliderKind::Capsule;
  record.props = properties;
  record.p = capsule.a;
  record.q = capsule.b;
  record.radius = capsule.radius;
  const Vec3 r{capsule.radius, capsule.radius, capsule.radius};
  record.bounds = Aabb{min(capsule.a, capsule.b) - r, max(capsule.a, capsule.b) + r};
  return impl_->addRecord(std::move(record));
}

namespace {
Error noCollider(uint32_t c) { return Error::badInput("collider " + std::to_string(c) + ": no such collider"); }
}  // namespace

Status QueryIndex::setBox(uint32_t collider, const Aabb& box) {
  if (!contains(collider) || impl_->colliders[collider].kind != ColliderKind::Box) return noCollider(collider);
  if (box.empty()) return Error::badInput("box collider: min exceeds max");
  const OrientedBox ob = OrientedBox::fromAabb(box);
  if (Status s = checkBox(ob); !s) return s.error();
  impl_->colliders[collider].box = ob;
  impl_->colliders[collider].bounds = ob.bounds();
  impl_->moved(collider);
  return Ok{};
}

Status QueryIndex::setOrientedBox(uint32_t collider, const OrientedBox& box) {
  if (!contains(collider) || impl_->colliders[collider].kind != ColliderKind::OrientedBox) return noCollider(collider);
  if (Status s = checkBox(box); !s) return s.error();
  impl_->colliders[collider].box = box;
  impl_->colliders[collider].bounds = box.bounds();
  impl_->moved(collider);
  return Ok{};
}

Status QueryIndex::setSphere(uint32_t collider, const Sphere& sphere) {
  if (!contains(collider) || impl_->colliders[collider].kind != ColliderKind::Sphere) return noCollider(collider);
  const Capsule c{sphere.center, sphere.center, sphere.radius};
  if (Status s = checkCapsule(c); !s) return s.error();
  ColliderRecord& rec = impl_->colliders[collider];
  rec.p = rec.q = sphere.center;
  rec.radius = sphere.radius;
  const Vec3 r{sphere.radius, sphere.radius, sphere.radius};
  rec.bounds = Aabb{sphere.center - r, sphere.center + r};
  impl_->moved(collider);
  return Ok{};
}

Status QueryIndex::setCapsule(uint32_t collider, const Capsule& capsule) {
  if (!contains(collider) || impl_->colliders[collider].kind != ColliderKind::Capsule) return noCollider(collider);
  if (Status s = checkCapsule(capsule); !s) return s.error();
  ColliderRecord& rec = impl_->colliders[collider];
  rec.p = capsule.a;
  rec.q = capsule.b;
  rec.radius = capsule.radius;
  const Vec3 r{capsule.radius, capsule.radius, capsule.radius};
  rec.bounds = Aabb{min(capsule.a, capsule.b) - r, max(capsule.a, capsule.b) + r};
  impl_->moved(collider);
  return Ok{};
}

Status QueryIndex::setMeshOffset(uint32_t collider, const Vec3& offset) {
  if (!contains(collider) || impl_->colliders[collider].kind != ColliderKind::Mesh) return noCollider(collider);
  if (!isFinite(offset)) return Error::badInput("mesh collider: offset is not finite");
  ColliderRecord& rec = impl_->colliders[collider];
  rec.offset = offset;
  const Aabb& local = rec.mesh->bounds;
  rec.bounds = local.empty() ? local : Aabb{local.min + offset, local.max + offset};
  impl_->moved(collider);
  return Ok{};
}

Status QueryIndex::setProperties(uint32_t collider, const ColliderProperties& properties) {
  if (!contains(collider)) return noCollider(collider);
  ColliderRecord& rec = impl_->colliders[collider];
  const int new_tree = properties.queryable ? 0 : 1;
  if (new_tree != rec.tree) {
    impl_->unfile(collider);
    rec.tree = new_tree;
    ++impl_->trees[new_tree].members;
  }
  rec.props = properties;
  rec.label = impl_->internLabel(properties.label);
  rec.tag = impl_->internTag(properties.tag);
  impl_->moved(collider);
  return Ok{};
}

Status QueryIndex::remove(uint32_t collider) {
  if (!contains(collider)) return noCollider(collider);
  impl_->unfile(collider);
  impl_->colliders[collider].alive = false;
  impl_->colliders[collider].mesh.reset();
  --impl_->live;
  impl_->maybeRebuild(impl_->colliders[collider].tree);
  return Ok{};
}

void QueryIndex::rebuild() {
  impl_->rebuildTree(0);
  impl_->rebuildTree(1);
}

bool QueryIndex::contains(uint32_t collider) const {
  return collider < impl_->colliders.size() && impl_->colliders[collider].alive;
}

ColliderKind QueryIndex::kind(uint32_t collider) const {
  return collider < impl_->colliders.size() ? impl_->colliders[collider].kind : ColliderKind::Box;
}

const ColliderProperties& QueryIndex::properties(uint32_t collider) const {
  static const ColliderProperties kNone;
  return collider < impl_->colliders.size() ? impl_->colliders[collider].props : kNone;
}

Aabb QueryIndex::bounds(uint32_t collider) const {
  return contains(collider) ? impl_->colliders[collider].bounds : Aabb{};
}

uint32_t QueryIndex::findTag(std::string_view tag) const {
  auto it = impl_->tag_ids.find(std::string(tag));
  return it == impl_->tag_ids.end() ? kInvalidId : it->second;
}

const std::string& QueryIndex::tagName(uint32_t tag) const {
  static const std::string kEmpty;
  return tag < impl_->tag_names.size() ? impl_->tag_names[tag] : kEmpty;
}

const std::string& QueryIndex::labelName(uint32_t label) const {
  static const std::string kEmpty;
  return label < impl_->label_names.size() ? impl_->label_names[label] : kEmpty;
}

bool QueryIndex::tagIsUnder(uint32_t tag, uint32_t ancestor) const { return impl_->tagIsUnder(tag, ancestor); }

QueryIndexStats QueryIndex::stats() const {
  QueryIndexStats s;
  s.colliders = impl_->live;
  for (const Tree& t : impl_->trees) {
    for (uint32_t c : t.settled) s.settled += c != kInvalidId;
    s.loose += t.loose.size();
    s.removed += t.removed;
  }
  s.rebuilds = impl_->rebuilds;
  for (const ColliderRecord& c : impl_->colliders)
    if (c.alive && c.mesh) s.triangles += c.mesh->triangles.size();
  return s;
}

const QueryIndexSettings& QueryIndex::settings() const { return impl_->settings; }

void QueryIndex::setEnumerateAll(bool enumerate_all) { impl_->enumerate_all = enumerate_all; }

// ---- queries ----

namespace {
// Keeps an already-unit direction bit for bit, so distances match callers' own arithmetic. A
// direction whose squared length underflows or overflows (1e-170, 1e200) is scaled by its
// largest component first (an audit: a finite, non-zero 1e-170 missed everything).
Vec3 unitDirection(const Vec3& d) {
  const double l2 = lengthSquared(d);
  if (std::fabs(l2 - 1) <= 1e-12) return d;
  if (l2 > 1e-200 && l2 < 1e200) return normalize(d);
  const double m = std::max({std::fabs(d.x), std::fabs(d.y), std::fabs(d.z)});
  if (!(m > 0) || !std::isfinite(m)) return Vec3{0, 0, 0};
  return normalize(Vec3{d.x / m, d.y / m, d.z / m});
}
}  // namespace

std::optional<RayHit> QueryIndex::raycast(const Vec3& origin, const Vec3& direction, double max_distance,
                                          const QueryFilter& filter) const {
  if (!isFinite(origin) || !isFinite(direction) || std::isnan(max_distance) || max_distance < 0) return std::nullopt;
  const Vec3 dir = unitDirection(direction);
  if (lengthSquared(dir) == 0) return std::nullopt;
  RayHit best;
  bool found = false;
  impl_->ray(origin, dir, max_distance, filter, false, nullptr, best, found);
  if (!found) return std::nullopt;
  return best;
}

void QueryIndex::raycastAll(const Vec3& origin, const Vec3& direction, double max_distance, std::vector<RayHit>& hits,
                            const QueryFilter& filter) const {
  hits.clear();
  if (!isFinite(origin) || !isFinite(direction) || std::isnan(max_distance) || max_distance < 0) return;
  const Vec3 dir = unitDirection(direction);
  if (lengthSquared(dir) == 0) return;
  RayHit unused;
  bool found = false;
  impl_->ray(origin, dir, max_distance, filter, true, &hits, unused, found);
  std::sort(hits.begin(), hits.end(), rayHitBetter);
}

namespace {
Shape boxShape(const OrientedBox& b) {
  Shape s;
  s.is_box = true;
  s.box = b;
  return s;
}
Shape capsuleShape(const Vec3& a, const Vec3& b, double r) {
  Shape s;
  s.p = a;
  s.q = b;
  s.radius = r;
  return s;
}
bool hasNaN(const Vec3& v) { return std::isnan(v.x) || std::isnan(v.y) || std::isnan(v.z); }
// Rejects NaN and negative sizes; infinite sizes become 1e30 (far beyond the world bound) so
// the exact tests never multiply infinity by zero.
bool validShape(Shape& s) {
  constexpr double kHuge = 1e30;
  if (s.is_box) {
    if (hasNaN(s.box.center) || hasNaN(s.box.half_extents)) return false;
    for (int i = 0; i < 3; ++i) {
      if (s.box.half_extents[i] < 0 || hasNaN(s.box.axes[i]) || !isFinite(s.box.axes[i])) return false;
      s.box.half_extents[i] = std::min(s.box.half_extents[i], kHuge);
    }
    return true;
  }
  if (hasNaN(s.p) || hasNaN(s.q) || std::isnan(s.radius) || s.radius < 0) return false;
  s.radius = std::min(s.radius, kHuge);
  return true;
}

// A shape thinner than the casts' touch tolerance (1e-7 m) is a point, or a capsule of such a
// radius a segment. The per-triangle tests are exact for solids, but a point or a segment
// crossing the edge two triangles share can pass between them within that tolerance (an audit:
// a point, or a sphere of radius 1e-8, cast straight through the shared edge of two faces of a
// closed surface moved freely, on 6 to 74 of about a hundred such paths per Recast mesh; a
// segment piercing the edge overlapped neither). The watertight ray test cannot, so a point's
// motion and a segment are also walked as rays (their times and points are the centre's or the
// core's, within that tolerance of the shape's).
constexpr double kThin = detail::kTouchTolerance;  // metres
bool isPoint(const Shape& s) {
  if (s.is_box) return s.box.half_extents.x < kThin && s.box.half_extents.y < kThin && s.box.half_extents.z < kThin;
  return s.radius < kThin && s.p.x == s.q.x && s.p.y == s.q.y && s.p.z == s.q.z;
}
bool isSegment(const Shape& s) { return !s.is_box && s.radius < kThin && !isPoint(s); }
}  // namespace

namespace {
// Infinite box faces become 1e30 (far beyond the world bound) so the centre stays finite.
OrientedBox boxFromBounds(const Aabb& box) {
  constexpr double kHuge = 1e30;
  Aabb b = box;
  for (int k = 0; k < 3; ++k) {
    if (!std::isnan(b.min[k])) b.min[k] = std::clamp(b.min[k], -kHuge, kHuge);
    if (!std::isnan(b.max[k])) b.max[k] = std::clamp(b.max[k], -kHuge, kHuge);
  }
  return OrientedBox::fromAabb(b);
}
}  // namespace

bool QueryIndex::overlapsBox(const Aabb& box, const QueryFilter& filter) const {
  return overlapsOrientedBox(boxFromBounds(box), filter);
}
bool QueryIndex::overlapsOrientedBox(const OrientedBox& box, const QueryFilter& filter) const {
  Shape s = boxShape(box);
  bool hit = false;
  if (validShape(s)) impl_->overlap(s, filter, true, nullptr, hit);
  return hit;
}
bool QueryIndex::overlapsSphere(const Sphere& sphere, const QueryFilter& filter) const {
  return overlapsCapsule(Capsule{sphere.center, sphere.center, sphere.radius}, filter);
}
bool QueryIndex::overlapsCapsule(const Capsule& capsule, const QueryFilter& filter) const {
  Shape s = capsuleShape(capsule.a, capsule.b, capsule.radius);
  bool hit = false;
  if (!validShape(s)) return false;
  impl_->overlap(s, filter, true, nullptr, hit);
  if (!hit && isSegment(s)) {  // a segment: also its watertight ray (isPoint above)
    const double length = sim::length(s.q - s.p);
    hit = std::isfinite(length) && raycast(s.p, (s.q - s.p) * (1.0 / length), length, filter).has_value();
  }
  return hit;
}
void QueryIndex::overlapBox(const Aabb& box, std::vector<OverlapHit>& out, const QueryFilter& filter) const {
  overlapOrientedBox(boxFromBounds(box), out, filter);
}
void QueryIndex::overlapOrientedBox(const OrientedBox& box, std::vector<OverlapHit>& out, const QueryFilter& filter) const {
  out.clear();
  // A box reaching far past everything indexed overlaps what the box cut to the world's reach
  // overlaps (along each axis, the farthest corner of the colliders' bounds from the centre, and
  // a metre more): the same triangles, but the exact test's tolerance, which grows with the box's
  // size, stays relative to the world's (a 1e12 m box reported triangles 0.2 m clear of it).
  // Only for boxes longer than any mesh coordinate may be (1e6 m; below that the tolerance is
  // under 1e-7 m), so that a query does not visit every collider.
  OrientedBox cut = box;
  Aabb world;
  if (std::max({box.half_extents.x, box.half_extents.y, box.half_extents.z}) > TriangleMesh::kWorldBound)
    for (const ColliderRecord& c : impl_->colliders)
      if (c.alive) world.expand(c.bounds);
  if (!world.empty())
    for (int i = 0; i < 3; ++i) {
      double reach = 0;
      for (int corner = 0; corner < 8; ++corner) {
        const Vec3 p{corner & 1 ? world.max.x : world.min.x, corner & 2 ? world.max.y : world.min.y,
                     corner & 4 ? world.max.z : world.min.z};
        reach = std::max(reach, std::fabs(dot(p - box.center, box.axes[i])));
      }
      if (std::isfinite(reach) && std::isfinite(box.half_extents[i])) cut.half_extents[i] = std::min(box.half_extents[i], reach + 1.0);
    }
  Shape s = boxShape(cut);
  bool hit = false;
  if (validShape(s)) impl_->overlap(s, filter, false, &out, hit);
}
void QueryIndex::overlapSphere(const Sphere& sphere, std::vector<OverlapHit>& out, const QueryFilter& filter) const {
  overlapCapsule(Capsule{sphere.center, sphere.center, sphere.radius}, out, filter);
}
void QueryIndex::overlapCapsule(const Capsule& capsule, std::vector<OverlapHit>& out, const QueryFilter& filter) const {
  out.clear();
  Shape s = capsuleShape(capsule.a, capsule.b, capsule.radius);
  bool hit = false;
  if (!validShape(s)) return;
  impl_->overlap(s, filter, false, &out, hit);
  if (!isSegment(s)) return;
  // A segment: also every triangle and primitive its watertight ray meets (isPoint above), in
  // the order of the others (collider, then triangle).
  const double length = sim::length(s.q - s.p);
  if (!std::isfinite(length)) return;
  std::vector<RayHit> crossed;
  raycastAll(s.p, (s.q - s.p) * (1.0 / length), length, crossed, filter);
  if (crossed.empty()) return;
  for (const RayHit& r : crossed) out.push_back({r.collider, r.triangle});
  std::sort(out.begin(), out.end(), [](const OverlapHit& x, const OverlapHit& y) {
    return x.collider != y.collider ? x.collider < y.collider : x.triangle < y.triangle;
  });
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

namespace {
std::optional<ShapeHit> toShapeHit(const CastBest& best) {
  if (!best.found) return std::nullopt;
  ShapeHit h;
  h.time = best.r.time;
  h.point = best.r.point;
  h.normal = best.r.normal;
  h.collider = best.collider;
  h.triangle = best.triangle;
  h.label = best.label;
  h.tag = best.tag;
  h.started_penetrating = best.r.started_penetrating;
  h.penetration_depth = best.r.depth;
  h.escape = best.r.escape;
  return h;
}
}  // namespace

namespace {
// The cast of a point: the ray along its motion, where it meets a surface before the per-triangle
// tests found one. As for the casts (docs/queries.md), a motion that would sink the point no
// deeper than 1e-7 m past the surface by its end is no hit, and a contact at the start is
// theirs to judge.
std::optional<ShapeHit> pointRayCast(const QueryIndex& index, const Vec3& origin, const Vec3& translation,
                                     const QueryFilter& filter, std::optional<ShapeHit> cast) {
  constexpr double kTouch = detail::kTouchTolerance;  // metres
  const double length = sim::length(translation);
  if (!(length > 0) || !std::isfinite(length) || (cast && cast->time == 0)) return cast;
  const Vec3 direction = translation * (1.0 / length);
  const auto ray = index.raycast(origin, direction, length, filter);
  if (!ray || !(ray->distance > 0)) return cast;
  if (!((length - ray->distance) * std::fabs(dot(ray->normal, direction)) > kTouch)) return cast;
  const double time = ray->distance / length;
  if (cast && cast->time <= time) return cast;
  ShapeHit h;
  h.time = time;
  h.point = ray->point;
  h.normal = dot(ray->normal, direction) > 0 ? ray->normal * -1.0 : ray->normal;
  h.collider = ray->collider;
  h.triangle = ray->triangle;
  h.label = ray->label;
  h.tag = ray->tag;
  return h;
}
}  // namespace

std::optional<ShapeHit> QueryIndex::castBox(const Aabb& box, const Vec3& translation, const QueryFilter& filter) const {
  return castOrientedBox(boxFromBounds(box), translation, filter);
}
std::optional<ShapeHit> QueryIndex::castOrientedBox(const OrientedBox& box, const Vec3& translation,
                                                    const QueryFilter& filter) const {
  Shape s = boxShape(box);
  CastBest best;
  if (!validShape(s)) return std::nullopt;
  impl_->cast(s, translation, filter, best);
  if (isPoint(s)) return pointRayCast(*this, s.box.center, translation, filter, toShapeHit(best));
  return toShapeHit(best);
}
std::optional<ShapeHit> QueryIndex::castSphere(const Vec3& center, double radius, const Vec3& translation,
                                               const QueryFilter& filter) const {
  return castCapsule(center, center, radius, translation, filter);
}
std::optional<ShapeHit> QueryIndex::castCapsule(const Vec3& a, const Vec3& b, double radius, const Vec3& translation,
                                                const QueryFilter& filter) const {
  Shape s = capsuleShape(a, b, radius);
  CastBest best;
  if (!validShape(s)) return std::nullopt;
  impl_->cast(s, translation, filter, best);
  if (isPoint(s)) return pointRayCast(*this, s.p, translation, filter, toShapeHit(best));
  return toShapeHit(best);
}

}  // namespace strata::sim
