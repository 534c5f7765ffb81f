// Property tests: the query index against a brute-force oracle that visits every triangle of
// the mesh (a per-triangle bounds check, then the same exact narrow phase), on every real mesh
// of the shared data and on the samples. Random queries plus edge cases: rays through vertices
// and along edges, casts starting touching, starting inside, grazing, and zero-length.

#include <catch2/catch.hpp>

#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <random>
#include <vector>

#include "narrow_phase.h"
#include "obj_mesh.h"
#include "strata/sim/query_index.h"
#include "test_support.h"

using namespace strata::sim;
using strata::sim::detail::Triangle;

namespace {

// Queries per kind per mesh. The oracle visits every triangle, so its work grows with the mesh:
// 10,000 queries per kind up to 15,000 triangles, fewer above (150 M oracle triangle visits per
// kind, at least 2,500 queries), which keeps this, the slowest test of the suite, near a minute.
constexpr int kQueriesPerKind = 10000;
constexpr int kMinQueriesPerKind = 2500;
constexpr double kOracleVisitsPerKind = 1.5e8;

int queriesFor(std::size_t triangles) {
  const double budget = kOracleVisitsPerKind / static_cast<double>(std::max<std::size_t>(triangles, 1));
  return static_cast<int>(std::clamp(budget, double(kMinQueriesPerKind), double(kQueriesPerKind)));
}

// Runs body(i, rng) for i in [0, n) on all cores, each query with its own deterministic rng.
template <class Body>
void forQueries(int n, uint64_t seed, Body&& body) {
  tbb::parallel_for(0, n, [&](int i) {
    std::mt19937_64 rng(seed * 1000003u + static_cast<uint64_t>(i));
    body(i, rng);
  });
}

struct Oracle {
  std::vector<Triangle> tris;
  std::vector<Aabb> boxes;
  Aabb bounds;
  double scale = 1;

  explicit Oracle(const TriangleMesh& mesh) {
    for (const auto& t : mesh.triangles) {
      Triangle tri{mesh.vertices[t[0]].toDouble(), mesh.vertices[t[1]].toDouble(), mesh.vertices[t[2]].toDouble()};
      Aabb b;
      b.expand(tri.a);
      b.expand(tri.b);
      b.expand(tri.c);
      tris.push_back(tri);
      boxes.push_back(b);
      bounds.expand(b);
    }
    const Vec3 e = bounds.extent();
    scale = std::max({e.x, e.y, e.z, 1e-3});
  }

  // every triangle the ray hits within max_t: (distance, triangle)
  std::vector<std::pair<double, uint32_t>> rayAll(const Vec3& o, const Vec3& d, double max_t) const {
    std::vector<std::pair<double, uint32_t>> out;
    const auto wray = detail::prepareRay(o, d);
    for (uint32_t i = 0; i < tris.size(); ++i) {
      if (!slab(boxes[i], o, d, Vec3{}, max_t)) continue;
      if (auto t = detail::rayTriangle(wray, tris[i], max_t)) {
        const Vec3 n = cross(tris[i].b - tris[i].a, tris[i].c - tris[i].a);
        if (lengthSquared(n) > 0) out.push_back({*t, i});
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  static bool slab(const Aabb& b, const Vec3& o, const Vec3& d, const Vec3& half, double max_t) {
    double t0 = 0, t1 = max_t;
    for (int k = 0; k < 3; ++k) {
      const double lo = b.min[k] - half[k] - 1e-9, hi = b.max[k] + half[k] + 1e-9;
      if (d[k] == 0) {
        if (o[k] < lo || o[k] > hi) return false;
        continue;
      }
      double a = (lo - o[k]) / d[k], c = (hi - o[k]) / d[k];
      if (a > c) std::swap(a, c);
      t0 = std::max(t0, a);
      t1 = std::min(t1, c);
      if (t0 > t1) return false;
    }
    return true;
  }
};

struct QueryShape {
  bool is_box = false;
  bool axis_aligned = false;  // castBox / overlapBox: `aabb` is the source of truth
  Aabb aabb;
  OrientedBox box;
  Vec3 p, q;
  double r = 0;
  Aabb bounds() const {
    if (is_box) return box.bounds();
    return Aabb{min(p, q) - Vec3{r, r, r}, max(p, q) + Vec3{r, r, r}};
  }
  QueryShape moved(const Vec3& by) const {
    QueryShape s = *this;
    if (axis_aligned) {
      s.aabb = Aabb{aabb.min + by, aabb.max + by};
      s.box = OrientedBox::fromAabb(s.aabb);
      return s;
    }
    s.box.center += by;
    s.p += by;
    s.q += by;
    return s;
  }
  bool overlaps(const Triangle& t) const {
    return is_box ? detail::boxTriangleOverlap(box, t) : detail::capsuleTriangleOverlap(p, q, r, t);
  }
  std::optional<detail::CastResult> cast(const Vec3& d, const Triangle& t) const {
    return is_box ? detail::castBoxTriangle(box, d, t) : detail::castCapsuleTriangle(p, q, r, d, t);
  }
};

std::vector<uint32_t> oracleOverlap(const Oracle& o, const QueryShape& s) {
  std::vector<uint32_t> out;
  const Aabb b = s.bounds();
  for (uint32_t i = 0; i < o.tris.size(); ++i)
    if (o.boxes[i].overlaps(b) && s.overlaps(o.tris[i])) out.push_back(i);
  return out;
}

struct OracleCast {
  bool found = false;
  detail::CastResult r;
  uint32_t tri = 0;
};

OracleCast oracleCast(const Oracle& o, const QueryShape& s, const Vec3& d) {
  OracleCast best;
  const Aabb b = s.bounds();
  const Vec3 c = b.center(), half = b.extent() * 0.5;
  for (uint32_t i = 0; i < o.tris.size(); ++i) {
    if (!Oracle::slab(o.boxes[i], c, d, half, 1.0)) continue;
    auto r = s.cast(d, o.tris[i]);
    if (!r) continue;
    bool better = !best.found;
    if (!better) {
      if (r->started_penetrating != best.r.started_penetrating) better = r->started_penetrating;
      else if (r->started_penetrating) better = r->depth > best.r.depth || (r->depth == best.r.depth && i < best.tri);
      else better = r->time < best.r.time || (r->time == best.r.time && i < best.tri);
    }
    if (better) {
      best.found = true;
      best.r = *r;
      best.tri = i;
    }
  }
  return best;
}

Vec3 randomUnit(std::mt19937_64& rng) {
  std::normal_distribution<double> n(0, 1);
  for (;;) {
    Vec3 v{n(rng), n(rng), n(rng)};
    if (lengthSquared(v) > 1e-6) return normalize(v);
  }
}

OrientedBox randomOrientedBox(std::mt19937_64& rng, const Vec3& c, const Vec3& h) {
  // random rotation from a random unit quaternion
  std::normal_distribution<double> n(0, 1);
  double w = n(rng), x = n(rng), y = n(rng), z = n(rng);
  const double l = std::sqrt(w * w + x * x + y * y + z * z);
  w /= l, x /= l, y /= l, z /= l;
  OrientedBox b;
  b.center = c;
  b.half_extents = h;
  b.axes[0] = {1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y)};
  b.axes[1] = {2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x)};
  b.axes[2] = {2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)};
  return b;
}

}  // namespace

TEST_CASE("query index agrees with brute force on every real mesh and sample", "[sim][query][property]") {
  const auto meshes = strata::test::propertyMeshes();
  REQUIRE(meshes.size() >= 11);
  for (const auto& path : meshes) {
    const TriangleMesh mesh = strata::test::loadMesh(path);
    REQUIRE(mesh.validate().empty());
    const QueryIndex index(mesh);
    const Oracle oracle(mesh);
    const double scale = oracle.scale;
    const double tol = 1e-5 * scale;
    const uint64_t seed = 0x5eed ^ mesh.triangles.size();
    const int queries = queriesFor(mesh.triangles.size());
    auto randomPoint = [&](std::mt19937_64& rng) {
      std::uniform_real_distribution<double> u01(0, 1);
      const Vec3 lo = oracle.bounds.min - oracle.bounds.extent() * 0.05;
      const Vec3 e = oracle.bounds.extent() * 1.1;
      return Vec3{lo.x + e.x * u01(rng), lo.y + e.y * u01(rng), lo.z + e.z * u01(rng)};
    };
    auto randomVertex = [&](std::mt19937_64& rng) {
      const auto& t = mesh.triangles[rng() % mesh.triangles.size()];
      return mesh.vertices[t[rng() % 3]].toDouble();
    };
    INFO(path.filename().string() << ": " << mesh.triangles.size() << " triangles, " << queries << " queries per kind");

    // ---- rays: closest and all hits, random and through vertices / along edges ----
    std::atomic<int> ray_disagreements = 0, all_disagreements = 0, ray_hits = 0;
    forQueries(queries, seed, [&](int i, std::mt19937_64& rng) {
      std::uniform_real_distribution<double> u01(0, 1);
      std::vector<RayHit> all;
      Vec3 o = randomPoint(rng), d;
      const int mode = i % 4;
      if (mode == 0) {
        d = randomUnit(rng);
      } else if (mode == 1) {  // through a vertex
        d = normalize(randomVertex(rng) - o);
      } else if (mode == 2) {  // along an edge, starting before it
        const auto& t = mesh.triangles[rng() % mesh.triangles.size()];
        const Vec3 a = mesh.vertices[t[0]].toDouble(), b = mesh.vertices[t[1]].toDouble();
        if (lengthSquared(b - a) == 0) return;
        d = normalize(b - a);
        o = a - d * (0.1 * scale * u01(rng));
      } else {  // straight down, like the column builder
        d = Vec3{0, -1, 0};
        o.y = oracle.bounds.max.y + 1;
      }
      if (lengthSquared(d) == 0) return;
      const double max_t = 2 * scale;
      const auto expected = oracle.rayAll(o, d, max_t);
      const auto hit = index.raycast(o, d, max_t);
      if (expected.empty() != !hit) {
        ++ray_disagreements;
      } else if (hit) {
        ++ray_hits;
        const double best = expected.front().first;
        bool tri_ok = false;
        for (const auto& [t, tri] : expected)
          if (t == best && tri == hit->triangle) tri_ok = true;
        if (std::fabs(hit->distance - best) > tol || !tri_ok) ++ray_disagreements;
      }
      index.raycastAll(o, d, max_t, all);
      std::vector<std::pair<double, uint32_t>> got;
      for (const RayHit& h : all) got.push_back({h.distance, h.triangle});
      std::sort(got.begin(), got.end());
      if (got != expected) ++all_disagreements;
    });
    CHECK(ray_disagreements == 0);
    CHECK(all_disagreements == 0);
    CHECK(ray_hits > queries / 10);

    // ---- overlaps: box, oriented box, sphere, capsule ----
    for (int kind = 0; kind < 4; ++kind) {
      std::atomic<int> disagreements = 0, hits = 0;
      forQueries(queries, seed + 1 + kind, [&](int i, std::mt19937_64& rng) {
        std::uniform_real_distribution<double> u01(0, 1);
        std::vector<OverlapHit> out;
        QueryShape s;
        const Vec3 c = (i % 3 == 0) ? randomVertex(rng) + randomUnit(rng) * (0.01 * scale * u01(rng)) : randomPoint(rng);
        const double size = 0.03 * scale;
        const Vec3 h{size * u01(rng), size * u01(rng), size * u01(rng)};
        switch (kind) {
          case 0: s.is_box = s.axis_aligned = true; s.aabb = Aabb{c - h, c + h}; s.box = OrientedBox::fromAabb(s.aabb); break;
          case 1: s.is_box = true; s.box = randomOrientedBox(rng, c, h); break;
          case 2: s.p = s.q = c; s.r = h.x; break;
          default: s.p = c; s.q = c + randomUnit(rng) * h.y * 2; s.r = h.z * 0.5; break;
        }
        const auto expected = oracleOverlap(oracle, s);
        bool any = false;
        switch (kind) {
          case 0: index.overlapBox(s.aabb, out); any = index.overlapsBox(s.aabb); break;
          case 1: index.overlapOrientedBox(s.box, out); any = index.overlapsOrientedBox(s.box); break;
          case 2: index.overlapSphere(Sphere{s.p, s.r}, out); any = index.overlapsSphere(Sphere{s.p, s.r}); break;
          default:
            index.overlapCapsule(Capsule{s.p, s.q, s.r}, out);
            any = index.overlapsCapsule(Capsule{s.p, s.q, s.r});
            break;
        }
        std::vector<uint32_t> got;
        for (const auto& o : out) got.push_back(o.triangle);
        std::sort(got.begin(), got.end());
        if (got != expected || any != !expected.empty()) ++disagreements;
        hits += !expected.empty();
      });
      INFO("overlap kind " << kind);
      CHECK(disagreements == 0);
      CHECK(hits > queries / 20);
    }

    // ---- casts: box, oriented box, sphere, capsule ----
    for (int kind = 0; kind < 4; ++kind) {
      std::atomic<int> disagreements = 0, hits = 0, penetrating = 0, bad_normals = 0;
      forQueries(queries, seed + 10 + kind, [&](int i, std::mt19937_64& rng) {
        std::uniform_real_distribution<double> u01(0, 1);
        QueryShape s;
        const double size = 0.02 * scale;
        const Vec3 h{size * (0.1 + u01(rng)), size * (0.1 + u01(rng)), size * (0.1 + u01(rng))};
        Vec3 c = randomPoint(rng);
        Vec3 d = randomUnit(rng) * (0.1 * scale * u01(rng));
        const int mode = i % 5;
        if (mode == 1) c = randomVertex(rng) + randomUnit(rng) * (0.5 * size);  // often starts inside
        if (mode == 4) d = Vec3{};                                           // zero-length
        switch (kind) {
          case 0: s.is_box = s.axis_aligned = true; s.aabb = Aabb{c - h, c + h}; s.box = OrientedBox::fromAabb(s.aabb); break;
          case 1: s.is_box = true; s.box = randomOrientedBox(rng, c, h); break;
          case 2: s.p = s.q = c; s.r = h.x; break;
          default: s.p = c; s.q = c + randomUnit(rng) * h.y * 2; s.r = h.z * 0.5; break;
        }
        if (mode == 2 || mode == 3) {
          // start touching (mode 2: moving in, mode 3: grazing along the surface): cast once to
          // find the contact, then start there
          const auto first = oracleCast(oracle, s, d);
          if (first.found && !first.r.started_penetrating) {
            s = s.moved(d * first.r.time);
            if (mode == 3) {
              const Vec3 n = first.r.normal;
              d = d - n * dot(d, n);  // slide along the contact plane
            }
          }
        }
        const auto expected = oracleCast(oracle, s, d);
        std::optional<ShapeHit> hit;
        switch (kind) {
          case 0: hit = index.castBox(s.aabb, d); break;
          case 1: hit = index.castOrientedBox(s.box, d); break;
          case 2: hit = index.castSphere(s.p, s.r, d); break;
          default: hit = index.castCapsule(s.p, s.q, s.r, d); break;
        }
        if (expected.found != hit.has_value()) {
          ++disagreements;
          return;
        }
        if (!hit) return;
        ++hits;
        penetrating += hit->started_penetrating;
        if (hit->started_penetrating != expected.r.started_penetrating ||
            std::fabs(hit->time - expected.r.time) > 1e-9 ||
            (hit->started_penetrating && std::fabs(hit->penetration_depth - expected.r.depth) > tol)) {
          ++disagreements;
          return;
        }
        // the normal separates: nudged along it from the contact, the shape clears the triangle
        const Triangle& tri = oracle.tris[hit->triangle];
        if (!hit->started_penetrating && lengthSquared(d) > 0) {
          if (dot(hit->normal, d) > 1e-9 * length(d)) ++bad_normals;
          const QueryShape at = s.moved(d * hit->time + hit->normal * (1e-6 * scale));
          if (at.overlaps(tri)) ++bad_normals;
        } else if (hit->started_penetrating) {
          const QueryShape out = s.moved(hit->escape + hit->normal * (1e-6 * scale));
          if (out.overlaps(tri)) ++bad_normals;
        }
      });
      INFO("cast kind " << kind);
      CHECK(disagreements == 0);
      CHECK(bad_normals == 0);
      CHECK(hits > queries / 20);
      CHECK(penetrating > 0);
    }
  }
}
