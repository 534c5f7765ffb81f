#pragma once
/// \file
/// Small vector and bounds types. Units are metres; Y is up; right-handed.

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace strata::sim {

/// Double-precision 3-vector used by queries and the bake.
struct Vec3 {
  double x = 0, y = 0, z = 0;

  constexpr Vec3() = default;
  constexpr Vec3(double x_, double y_, double z_) : x(x_), y(y_), z(z_) {}

  constexpr Vec3 operator+(const Vec3& o) const { return {x + o.x, y + o.y, z + o.z}; }
  constexpr Vec3 operator-(const Vec3& o) const { return {x - o.x, y - o.y, z - o.z}; }
  constexpr Vec3 operator-() const { return {-x, -y, -z}; }
  constexpr Vec3 operator*(double s) const { return {x * s, y * s, z * s}; }
  constexpr Vec3 operator/(double s) const { return {x / s, y / s, z / s}; }
  constexpr Vec3& operator+=(const Vec3& o) { x += o.x; y += o.y; z += o.z; return *this; }
  constexpr Vec3& operator-=(const Vec3& o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
  constexpr Vec3& operator*=(double s) { x *= s; y *= s; z *= s; return *this; }
  constexpr bool operator==(const Vec3&) const = default;
  constexpr double operator[](int i) const { return i == 0 ? x : (i == 1 ? y : z); }
  constexpr double& operator[](int i) { return i == 0 ? x : (i == 1 ? y : z); }
};

constexpr Vec3 operator*(double s, const Vec3& v) { return v * s; }
constexpr double dot(const Vec3& a, const Vec3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
constexpr Vec3 cross(const Vec3& a, const Vec3& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline double length(const Vec3& v) { return std::sqrt(dot(v, v)); }
constexpr double lengthSquared(const Vec3& v) { return dot(v, v); }
inline Vec3 normalize(const Vec3& v) {
  const double l = length(v);
  return l > 0 ? v / l : Vec3{};
}
constexpr Vec3 min(const Vec3& a, const Vec3& b) { return {std::min(a.x, b.x), std::min(a.y, b.y), std::min(a.z, b.z)}; }
constexpr Vec3 max(const Vec3& a, const Vec3& b) { return {std::max(a.x, b.x), std::max(a.y, b.y), std::max(a.z, b.z)}; }
inline bool isFinite(const Vec3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

/// Single-precision 3-vector: the storage type of mesh vertices (see docs/format.md).
struct Vec3f {
  float x = 0, y = 0, z = 0;
  constexpr bool operator==(const Vec3f&) const = default;
  constexpr Vec3 toDouble() const { return {x, y, z}; }
};

/// Axis-aligned bounding box. A default-constructed box is empty (min > max).
struct Aabb {
  Vec3 min{std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
           std::numeric_limits<double>::infinity()};
  Vec3 max{-std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
           -std::numeric_limits<double>::infinity()};

  constexpr bool empty() const { return min.x > max.x || min.y > max.y || min.z > max.z; }
  constexpr void expand(const Vec3& p) { min = sim::min(min, p); max = sim::max(max, p); }
  constexpr void expand(const Aabb& b) { min = sim::min(min, b.min); max = sim::max(max, b.max); }
  constexpr Vec3 center() const { return (min + max) * 0.5; }
  constexpr Vec3 extent() const { return max - min; }
  constexpr bool overlaps(const Aabb& b) const {
    return min.x <= b.max.x && b.min.x <= max.x && min.y <= b.max.y && b.min.y <= max.y &&
           min.z <= b.max.z && b.min.z <= max.z;
  }
  constexpr bool contains(const Vec3& p) const {
    return p.x >= min.x && p.x <= max.x && p.y >= min.y && p.y <= max.y && p.z >= min.z && p.z <= max.z;
  }
};

/// A coordinate for a message or a text listing: millimetres, trailing zeros dropped ("3.3",
/// "990003.375", "0"); beyond 1e9 in magnitude 9 significant digits. (Six significant digits
/// printed 990003.3 as 990003.)
std::string coordinateText(double value);
/// "(x, y, z)" with coordinateText.
std::string pointText(const Vec3& p);

}  // namespace strata::sim
