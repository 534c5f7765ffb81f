// Builder of the 4-wide BVH (see bvh4.h for layout and sources).

#include "bvh4.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>

namespace strata::sim::detail {
namespace {

constexpr float kInfF = std::numeric_limits<float>::infinity();
constexpr int kBins = 16;
constexpr int kMaxSahDepth = 32;

float roundDown(double v) {
  float f = static_cast<float>(v);
  if (static_cast<double>(f) > v) f = std::nextafter(f, -kInfF);
  return f;
}
float roundUp(double v) {
  float f = static_cast<float>(v);
  if (static_cast<double>(f) < v) f = std::nextafter(f, kInfF);
  return f;
}

float halfArea(const BoxF& b) {
  const float dx = b.max[0] - b.min[0], dy = b.max[1] - b.min[1], dz = b.max[2] - b.min[2];
  if (dx < 0 || dy < 0 || dz < 0) return 0;
  return dx * dy + dy * dz + dz * dx;
}

BoxF emptyBox() { return BoxF{{kInfF, kInfF, kInfF}, {-kInfF, -kInfF, -kInfF}}; }

void grow(BoxF& a, const BoxF& b) {
  for (int k = 0; k < 3; ++k) {
    a.min[k] = std::min(a.min[k], b.min[k]);
    a.max[k] = std::max(a.max[k], b.max[k]);
  }
}

struct Builder {
  std::span<const BoxF> boxes;
  std::vector<std::array<float, 3>> centroids;
  std::vector<uint32_t>& order;
  std::vector<Bvh4Node>& nodes;
  uint32_t leaf_size;

  uint32_t split(uint32_t begin, uint32_t end, int depth) {
    float cmin[3] = {kInfF, kInfF, kInfF}, cmax[3] = {-kInfF, -kInfF, -kInfF};
    for (uint32_t i = begin; i < end; ++i)
      for (int k = 0; k < 3; ++k) {
        cmin[k] = std::min(cmin[k], centroids[order[i]][k]);
        cmax[k] = std::max(cmax[k], centroids[order[i]][k]);
      }
    int axis = 0;
    for (int k = 1; k < 3; ++k)
      if (cmax[k] - cmin[k] > cmax[axis] - cmin[axis]) axis = k;
    const float extent = cmax[axis] - cmin[axis];
    const uint32_t median = begin + (end - begin) / 2;
    auto medianSplit = [&] {
      std::nth_element(order.begin() + begin, order.begin() + median, order.begin() + end,
                       [&](uint32_t a, uint32_t b) { return centroids[a][axis] < centroids[b][axis]; });
      return median;
    };
    if (!(extent > 0)) return median;  // all centroids coincide: any split is as good
    if (depth > kMaxSahDepth) return medianSplit();
    BoxF bin_box[kBins];
    uint32_t bin_count[kBins] = {};
    for (auto& b : bin_box) b = emptyBox();
    const float scale = kBins / extent;
    auto binOf = [&](uint32_t item) {
      const int b = static_cast<int>((centroids[item][axis] - cmin[axis]) * scale);
      return std::clamp(b, 0, kBins - 1);
    };
    for (uint32_t i = begin; i < end; ++i) {
      const int b = binOf(order[i]);
      ++bin_count[b];
      grow(bin_box[b], boxes[order[i]]);
    }
    float right_area[kBins];
    uint32_t right_count[kBins];
    BoxF acc = emptyBox();
    uint32_t count = 0;
    for (int b = kBins - 1; b > 0; --b) {
      grow(acc, bin_box[b]);
      count += bin_count[b];
      right_area[b] = halfArea(acc);
      right_count[b] = count;
    }
    acc = emptyBox();
    count = 0;
    float best_cost = kInfF;
    int best_bin = -1;
    for (int b = 1; b < kBins; ++b) {
      grow(acc, bin_box[b - 1]);
      count += bin_count[b - 1];
      if (count == 0 || right_count[b] == 0) continue;
      const float cost = halfArea(acc) * count + right_area[b] * right_count[b];
      if (cost < best_cost) {
        best_cost = cost;
        best_bin = b;
      }
    }
    if (best_bin < 0) return medianSplit();
    const auto mid = std::partition(order.begin() + begin, order.begin() + end,
                                    [&](uint32_t item) { return binOf(item) < best_bin; });
    const uint32_t m = static_cast<uint32_t>(mid - order.begin());
    if (m == begin || m == end) return medianSplit();
    return m;
  }

  uint32_t buildNode(uint32_t begin, uint32_t end, int depth) {
    const uint32_t index = static_cast<uint32_t>(nodes.size());
    nodes.emplace_back();
    std::array<std::pair<uint32_t, uint32_t>, 4> ranges{};
    int count = 1;
    ranges[0] = {begin, end};
    while (count < 4) {
      int widest = -1;
      for (int i = 0; i < count; ++i)
        if (ranges[i].second - ranges[i].first > leaf_size &&
            (widest < 0 || ranges[i].second - ranges[i].first > ranges[widest].second - ranges[widest].first))
          widest = i;
      if (widest < 0) break;
      const auto [b, e] = ranges[widest];
      const uint32_t m = split(b, e, depth);
      ranges[widest] = {b, m};
      ranges[count++] = {m, e};
    }
    std::array<uint32_t, 4> child;
    std::array<BoxF, 4> child_box;
    child.fill(kEmptyChild);
    for (int i = 0; i < count; ++i) {
      const auto [b, e] = ranges[i];
      BoxF box = emptyBox();
      for (uint32_t k = b; k < e; ++k) grow(box, boxes[order[k]]);
      child_box[i] = box;
      child[i] = e - b <= leaf_size ? (kLeafBit | (b << 4) | (e - b)) : buildNode(b, e, depth + 1);
    }
    Bvh4Node& node = nodes[index];
    node.valid_mask = 0;
    for (int i = 0; i < 4; ++i) {
      const bool valid = i < count;
      const BoxF box = valid ? child_box[i] : emptyBox();
      node.min_x[i] = box.min[0];
      node.min_y[i] = box.min[1];
      node.min_z[i] = box.min[2];
      node.max_x[i] = box.max[0];
      node.max_y[i] = box.max[1];
      node.max_z[i] = box.max[2];
      node.child[i] = child[i];
      if (valid) node.valid_mask |= 1 << i;
    }
    return index;
  }
};

}  // namespace

BoxF toBoxF(const Aabb& box) {
  BoxF out;
  for (int k = 0; k < 3; ++k) {
    const double lo = box.min[k], hi = box.max[k];
    if (std::isnan(lo) || std::isnan(hi)) {
      out.min[k] = -kInfF;
      out.max[k] = kInfF;
      continue;
    }
    // outward rounding plus a relative margin that covers float error in the node tests
    const double margin = std::max(std::fabs(lo), std::fabs(hi)) * 0x1p-20 + 1e-30;
    out.min[k] = roundDown(lo - margin);
    out.max[k] = roundUp(hi + margin);
  }
  return out;
}

void Bvh4::build(std::span<const BoxF> boxes, uint32_t leaf_size) {
  nodes.clear();
  order.resize(boxes.size());
  std::iota(order.begin(), order.end(), 0u);
  if (boxes.empty()) return;
  leaf_size = std::clamp<uint32_t>(leaf_size, 1, 15);
  Builder builder{boxes, {}, order, nodes, leaf_size};
  builder.centroids.resize(boxes.size());
  for (std::size_t i = 0; i < boxes.size(); ++i)
    for (int k = 0; k < 3; ++k) {
      const float c = 0.5f * boxes[i].min[k] + 0.5f * boxes[i].max[k];
      builder.centroids[i][k] = std::isfinite(c) ? c : 0.0f;
    }
  nodes.reserve(boxes.size() / 2 + 1);
  builder.buildNode(0, static_cast<uint32_t>(boxes.size()), 0);
}

NodeRay prepareNodeRay(const Vec3& origin, const Vec3& direction, const Vec3& half_extents) {
  NodeRay ray;
  for (int k = 0; k < 3; ++k) {
    const float o = static_cast<float>(origin[k]);
    // origin rounding error is absorbed into the half extents so the test stays conservative
    const double err = std::fabs(static_cast<double>(o) - origin[k]) + std::fabs(origin[k]) * 0x1p-21;
    double inv = direction[k] != 0 ? 1.0 / direction[k] : 1e30;
    inv = std::clamp(inv, -1e30, 1e30);
    ray.origin[k] = _mm_set1_ps(o);
    ray.inverse[k] = _mm_set1_ps(static_cast<float>(inv));
    ray.half[k] = _mm_set1_ps(roundUp(half_extents[k] + err));
  }
  return ray;
}

}  // namespace strata::sim::detail
