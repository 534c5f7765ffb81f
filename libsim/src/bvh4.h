#pragma once
// A 4-wide bounding volume hierarchy over float boxes, shared by the triangle BVH inside each
// mesh collider and the settled collider hierarchy of the query index.
//
// Layout: each node stores its four child boxes structure-of-arrays (min_x[4] ... max_z[4]) so
// one SSE instruction tests all four against a ray or a box. Built top-down with binned
// surface-area-heuristic splits (Wald, "On fast Construction of SAH-based Bounding Volume
// Hierarchies", 2007); each node splits its range twice to get up to four children.
// Boxes are rounded outward to float and grown by a small relative margin, so a float test
// never rejects what an exact double test would accept.

#include <immintrin.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <span>
#include <vector>

#include "strata/sim/math.h"

namespace strata::sim::detail {

/// An axis-aligned box in float (conservative bounds of a double box).
struct BoxF {
  float min[3];
  float max[3];
};

/// Conservative float box of a double box (rounded outward).
BoxF toBoxF(const Aabb& box);

struct alignas(64) Bvh4Node {
  float min_x[4], min_y[4], min_z[4], max_x[4], max_y[4], max_z[4];
  uint32_t child[4];  ///< kEmptyChild, an inner node index, or kLeafBit | first << 4 | count
  int32_t valid_mask; ///< bit i set when child i exists
};

inline constexpr uint32_t kEmptyChild = 0xFFFFFFFFu;
inline constexpr uint32_t kLeafBit = 0x80000000u;
inline constexpr bool isLeaf(uint32_t child) { return (child & kLeafBit) != 0; }
inline constexpr uint32_t leafFirst(uint32_t child) { return (child & ~kLeafBit) >> 4; }
inline constexpr uint32_t leafCount(uint32_t child) { return child & 15u; }

/// A 4-wide BVH. `order[i]` is the input item stored at leaf position i; leaves address
/// contiguous ranges of leaf positions.
struct Bvh4 {
  std::vector<Bvh4Node> nodes;  ///< root is nodes[0] when non-empty
  std::vector<uint32_t> order;

  /// Builds over `boxes` (item i has box i); `leaf_size` in 1..15. Items with nonfinite boxes
  /// are still placed (their boxes are widened to everything) so nothing is lost.
  void build(std::span<const BoxF> boxes, uint32_t leaf_size);
  bool empty() const { return nodes.empty(); }
};

/// A ray (or a box swept along a ray) prepared for SSE node tests.
struct NodeRay {
  __m128 origin[3];
  __m128 inverse[3];
  __m128 half[3];  ///< query box half extents added to every node box (0 for rays)
};

NodeRay prepareNodeRay(const Vec3& origin, const Vec3& direction, const Vec3& half_extents);

/// Tests the four children against the ray on [0, t_max]; returns a bit mask of hits and
/// writes entry distances.
inline int intersectNode(const Bvh4Node& node, const NodeRay& ray, float t_max, float* t_near_out) {
  const __m128 min_x = _mm_sub_ps(_mm_load_ps(node.min_x), ray.half[0]);
  const __m128 min_y = _mm_sub_ps(_mm_load_ps(node.min_y), ray.half[1]);
  const __m128 min_z = _mm_sub_ps(_mm_load_ps(node.min_z), ray.half[2]);
  const __m128 max_x = _mm_add_ps(_mm_load_ps(node.max_x), ray.half[0]);
  const __m128 max_y = _mm_add_ps(_mm_load_ps(node.max_y), ray.half[1]);
  const __m128 max_z = _mm_add_ps(_mm_load_ps(node.max_z), ray.half[2]);
  const __m128 t1x = _mm_mul_ps(_mm_sub_ps(min_x, ray.origin[0]), ray.inverse[0]);
  const __m128 t2x = _mm_mul_ps(_mm_sub_ps(max_x, ray.origin[0]), ray.inverse[0]);
  const __m128 t1y = _mm_mul_ps(_mm_sub_ps(min_y, ray.origin[1]), ray.inverse[1]);
  const __m128 t2y = _mm_mul_ps(_mm_sub_ps(max_y, ray.origin[1]), ray.inverse[1]);
  const __m128 t1z = _mm_mul_ps(_mm_sub_ps(min_z, ray.origin[2]), ray.inverse[2]);
  const __m128 t2z = _mm_mul_ps(_mm_sub_ps(max_z, ray.origin[2]), ray.inverse[2]);
  const __m128 near = _mm_max_ps(_mm_max_ps(_mm_min_ps(t1x, t2x), _mm_min_ps(t1y, t2y)),
                                 _mm_max_ps(_mm_min_ps(t1z, t2z), _mm_setzero_ps()));
  const __m128 far = _mm_min_ps(_mm_min_ps(_mm_max_ps(t1x, t2x), _mm_max_ps(t1y, t2y)),
                                _mm_min_ps(_mm_max_ps(t1z, t2z), _mm_set1_ps(t_max)));
  _mm_storeu_ps(t_near_out, near);
  return _mm_movemask_ps(_mm_cmple_ps(near, far)) & node.valid_mask;
}

/// Tests the four children against a box; returns a bit mask of overlapping children.
inline int overlapNode(const Bvh4Node& node, const __m128* query_min, const __m128* query_max) {
  __m128 ok = _mm_and_ps(_mm_cmple_ps(_mm_load_ps(node.min_x), query_max[0]),
                         _mm_cmpge_ps(_mm_load_ps(node.max_x), query_min[0]));
  ok = _mm_and_ps(ok, _mm_and_ps(_mm_cmple_ps(_mm_load_ps(node.min_y), query_max[1]),
                                 _mm_cmpge_ps(_mm_load_ps(node.max_y), query_min[1])));
  ok = _mm_and_ps(ok, _mm_and_ps(_mm_cmple_ps(_mm_load_ps(node.min_z), query_max[2]),
                                 _mm_cmpge_ps(_mm_load_ps(node.max_z), query_min[2])));
  return _mm_movemask_ps(ok) & node.valid_mask;
}

/// Ordered traversal: calls `leaf(first, count, t_max)` for every leaf whose box the (swept)
/// ray enters before t_max, nearest first; the callback may lower t_max to prune the rest.
template <class LeafFn>
void traverseRay(const Bvh4& bvh, const NodeRay& ray, double& t_max, LeafFn&& leaf) {
  if (bvh.nodes.empty()) return;
  struct Entry {
    uint32_t child;
    float t;
  };
  Entry stack[256];
  int top = 0;
  stack[top++] = {0, 0.0f};
  auto floatBound = [](double t) {
    const float f = static_cast<float>(t);
    return f < t ? std::nextafter(f, std::numeric_limits<float>::infinity()) : f;
  };
  float bound = floatBound(t_max);
  while (top > 0) {
    const Entry entry = stack[--top];
    if (entry.t > bound) continue;
    if (isLeaf(entry.child)) {
      leaf(leafFirst(entry.child), leafCount(entry.child), t_max);
      bound = floatBound(t_max);
      continue;
    }
    const Bvh4Node& node = bvh.nodes[entry.child];
    alignas(16) float t_near[4];
    int mask = intersectNode(node, ray, bound, t_near);
    if (!mask) continue;
    // push far-to-near so the nearest child is popped first
    Entry hits[4];
    int n = 0;
    while (mask) {
      const int i = __builtin_ctz(mask);
      mask &= mask - 1;
      hits[n++] = {node.child[i], t_near[i]};
    }
    for (int i = 1; i < n; ++i)
      for (int j = i; j > 0 && hits[j - 1].t < hits[j].t; --j) std::swap(hits[j - 1], hits[j]);
    // the builder bounds the depth (median splits below depth 32), so 256 entries suffice
    for (int i = 0; i < n; ++i) stack[top++] = hits[i];
  }
}

/// Calls `leaf(first, count)` for every leaf whose box overlaps [query_min, query_max]; the
/// callback returns false to stop the traversal.
template <class LeafFn>
void traverseBox(const Bvh4& bvh, const Vec3& query_min, const Vec3& query_max, LeafFn&& leaf) {
  if (bvh.nodes.empty()) return;
  const BoxF q = toBoxF(Aabb{query_min, query_max});
  const __m128 qmin[3] = {_mm_set1_ps(q.min[0]), _mm_set1_ps(q.min[1]), _mm_set1_ps(q.min[2])};
  const __m128 qmax[3] = {_mm_set1_ps(q.max[0]), _mm_set1_ps(q.max[1]), _mm_set1_ps(q.max[2])};
  uint32_t stack[256];
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const uint32_t child = stack[--top];
    if (isLeaf(child)) {
      if (!leaf(leafFirst(child), leafCount(child))) return;
      continue;
    }
    const Bvh4Node& node = bvh.nodes[child];
    int mask = overlapNode(node, qmin, qmax);
    while (mask) {
      const int i = __builtin_ctz(mask);
      mask &= mask - 1;
      if (top < 256) stack[top++] = node.child[i];
    }
  }
}

}  // namespace strata::sim::detail
