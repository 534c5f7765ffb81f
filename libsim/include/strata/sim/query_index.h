#pragma once
/// \file
/// The spatial query index outside the solver (spec: physics-stepping-and-queries.md, "Query
/// indexes outside the solver"): rays (closest and all hits), exact overlaps and exact shape
/// casts against static triangle meshes and primitive colliders.
///
/// Structure: two trees (queryable / non-queryable colliders), each a settled 4-wide bounding
/// volume hierarchy plus a packed loose list of colliders whose bounds changed since the last
/// build. A moved collider leaves the hierarchy and joins the loose list; the tree rebuilds when
/// loose entries plus removed leaves exceed max(rebuild_min_entries, count / rebuild_divisor).
/// Queries test both sets, so a change is visible immediately. A triangle mesh collider carries
/// its own triangle-level 4-wide BVH.
///
/// Threading: every const method may be called concurrently from any number of threads (no
/// mutable caches). Non-const methods (adding, moving, removing colliders) need exclusive access.
///
/// Units are metres, Y up. Results are exact to within 1e-5 of the world's scale (see
/// docs/queries.md for the tolerance model).

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "strata/sim/math.h"
#include "strata/sim/mesh.h"
#include "strata/sim/result.h"

namespace strata::sim {

/// "No triangle": the `triangle` of a hit on a primitive collider.
inline constexpr uint32_t kNoTriangle = UINT32_MAX;
/// "No such collider / tag / label".
inline constexpr uint32_t kInvalidId = UINT32_MAX;
/// Number of collision groups (ids 0 .. kCollisionGroupCount-1).
inline constexpr uint32_t kCollisionGroupCount = 32;

/// A box with arbitrary orientation: centre, half extents along its own axes, and those axes
/// (orthonormal, right-handed; `axes[i]` is the world direction of local axis i).
struct OrientedBox {
  Vec3 center;                                            ///< metres
  Vec3 half_extents;                                      ///< metres, each >= 0
  std::array<Vec3, 3> axes{Vec3{1, 0, 0}, Vec3{0, 1, 0}, Vec3{0, 0, 1}};  ///< unit, orthonormal

  /// The oriented box equal to an axis-aligned one.
  static OrientedBox fromAabb(const Aabb& box);
  /// Rotated about the Y axis by `yaw_radians` (counter-clockwise seen from above).
  static OrientedBox fromYaw(const Vec3& center, const Vec3& half_extents, double yaw_radians);
  /// Tight axis-aligned bounds.
  Aabb bounds() const;
};

/// A sphere.
struct Sphere {
  Vec3 center;        ///< metres
  double radius = 0;  ///< metres, >= 0
};

/// A capsule: every point within `radius` of the segment a-b.
struct Capsule {
  Vec3 a;             ///< segment end, metres
  Vec3 b;             ///< segment end, metres (may equal a: then a sphere)
  double radius = 0;  ///< metres, >= 0
};

/// The exact per-triangle test of QueryIndex::overlapsBox / overlapsOrientedBox: true when the
/// solid box and the triangle a, b, c (counter-clockwise front; may be degenerate) share a point,
/// touching included. For callers that keep their own candidate triangles (the column bake):
/// over a superset of the triangles near the box it answers exactly as the index does.
bool boxOverlapsTriangle(const OrientedBox& box, const Vec3& a, const Vec3& b, const Vec3& c);

/// What a collider is.
enum class ColliderKind : uint8_t { Mesh, Box, OrientedBox, Sphere, Capsule };

/// Per-collider properties other than its shape. Tags are "/"-separated paths; a filter on tag
/// "a/b" also matches "a/b/c" (ancestry).
struct ColliderProperties {
  std::string tag;             ///< for primitives; a mesh's triangles keep their own tags
  std::string label;           ///< surface label for primitives (a mesh's triangles keep theirs)
  uint32_t group = 0;          ///< collision group, 0 .. kCollisionGroupCount-1
  bool queryable = true;       ///< false: only exhaustive queries see it
  bool can_collide = true;     ///< false: skipped by queries whose filter sets `require_can_collide`
  uint64_t user_id = 0;        ///< caller's own id, returned untouched by `properties()`
};

/// Which colliders are allowed to collide with which, by group (symmetric; all true by default).
class CollisionGroupMatrix {
 public:
  CollisionGroupMatrix();
  /// Sets whether groups `a` and `b` collide (both orders). Ids >= kCollisionGroupCount ignored.
  void set(uint32_t a, uint32_t b, bool collide);
  /// True when groups `a` and `b` collide. Out-of-range ids never collide.
  bool collides(uint32_t a, uint32_t b) const;

 private:
  std::array<uint32_t, kCollisionGroupCount> rows_;
};

/// Per-query filter, applied exactly after spatial candidate selection. The default accepts
/// every queryable collider and every triangle.
struct QueryFilter {
  std::vector<uint32_t> include_colliders;  ///< when non-empty, only these collider handles
  std::vector<uint32_t> exclude_colliders;  ///< never these collider handles
  std::vector<uint32_t> include_tags;       ///< when non-empty, only hits whose tag is (under) one of these tag ids
  std::vector<uint32_t> exclude_tags;       ///< never hits whose tag is (under) one of these tag ids
  uint32_t group = kInvalidId;              ///< querying shape's group; kInvalidId: no group test
  const CollisionGroupMatrix* group_matrix = nullptr;  ///< used with `group`; null: all groups collide
  bool require_can_collide = false;         ///< skip colliders whose can_collide is false
  bool exhaustive = false;                  ///< also search non-queryable colliders
  bool back_faces = true;                   ///< rays: false skips triangles seen from behind
};

/// A ray hit.
struct RayHit {
  double distance = 0;          ///< along the (unit) direction, metres
  Vec3 point;                   ///< origin + direction * distance
  Vec3 normal;                  ///< unit: the triangle's geometric normal (counter-clockwise front), NOT flipped
                                ///< toward the ray; for primitives the outward surface normal
  uint32_t collider = kInvalidId;  ///< collider handle
  uint32_t triangle = kNoTriangle; ///< triangle index within the collider's mesh, kNoTriangle for primitives
  uint32_t label = kInvalidId;  ///< surface label id (QueryIndex::labelName)
  uint32_t tag = kInvalidId;    ///< tag id (QueryIndex::tagName)
  bool front_face = true;       ///< the ray arrived on the side the normal points to
};

/// A shape-cast hit (the first contact along the translation).
struct ShapeHit {
  double time = 0;              ///< fraction of the translation in [0, 1]; 0 when started_penetrating
  Vec3 point;                   ///< contact point, metres
  Vec3 normal;                  ///< unit, points from the hit surface toward the moving shape
  uint32_t collider = kInvalidId;
  uint32_t triangle = kNoTriangle;
  uint32_t label = kInvalidId;
  uint32_t tag = kInvalidId;
  bool started_penetrating = false;  ///< the shape overlapped the surface at time 0
  double penetration_depth = 0;      ///< metres, when started_penetrating (0 for touching)
  Vec3 escape;                       ///< shortest translation out of the hit feature, when started_penetrating
};

/// One overlapping collider feature.
struct OverlapHit {
  uint32_t collider = kInvalidId;
  uint32_t triangle = kNoTriangle;  ///< kNoTriangle for primitives
  bool operator==(const OverlapHit&) const = default;
};

/// Index settings. Defaults follow the spec; see docs/parameters.md.
struct QueryIndexSettings {
  uint32_t rebuild_min_entries = 128;  ///< rebuild once loose+removed exceed max(this, count / rebuild_divisor); >= 1
  uint32_t rebuild_divisor = 16;       ///< see rebuild_min_entries; >= 1
  uint32_t leaf_triangles = 4;         ///< max triangles per mesh-BVH leaf, 1..15; smaller = deeper tree
  /// Returns an empty string when valid, else the offending field and why.
  std::string validate() const;
};

/// Counters describing the index state (tests and `strata query --stats`).
struct QueryIndexStats {
  std::size_t colliders = 0;      ///< live colliders
  std::size_t settled = 0;        ///< leaves in the settled hierarchies
  std::size_t loose = 0;          ///< entries in the loose lists
  std::size_t removed = 0;        ///< hierarchy leaves removed since the last build
  std::size_t rebuilds = 0;       ///< tree rebuilds since construction
  std::size_t triangles = 0;      ///< triangles in all mesh colliders
};

/// The query index. See the file comment for structure and threading.
class QueryIndex {
 public:
  /// An empty index.
  explicit QueryIndex(const QueryIndexSettings& settings = {});
  /// Builds the index over one static triangle mesh (collider 0). Triangles whose indices are
  /// out of range or whose vertices are not finite are skipped (never trusted); use addMesh for
  /// an error instead.
  explicit QueryIndex(const TriangleMesh& mesh, const QueryIndexSettings& settings = {});
  ~QueryIndex();
  QueryIndex(QueryIndex&&) noexcept;
  QueryIndex& operator=(QueryIndex&&) noexcept;
  QueryIndex(const QueryIndex&) = delete;
  QueryIndex& operator=(const QueryIndex&) = delete;

  // ---- collider management (not thread-safe against queries) ----

  /// Adds a triangle mesh collider (copied). Fails on an invalid mesh (mesh.validate()).
  /// `offset` translates the whole mesh. Returns the collider handle.
  Result<uint32_t> addMesh(const TriangleMesh& mesh, const ColliderProperties& properties = {},
                           const Vec3& offset = {});
  /// Adds a primitive; fails on nonfinite or negative sizes. Returns the collider handle.
  Result<uint32_t> addBox(const Aabb& box, const ColliderProperties& properties = {});
  Result<uint32_t> addOrientedBox(const OrientedBox& box, const ColliderProperties& properties = {});
  Result<uint32_t> addSphere(const Sphere& sphere, const ColliderProperties& properties = {});
  Result<uint32_t> addCapsule(const Capsule& capsule, const ColliderProperties& properties = {});

  /// Moves a primitive to a new shape of the same kind (or, for a mesh, a new offset via
  /// setMeshOffset). The collider leaves the settled hierarchy and joins the loose list.
  Status setBox(uint32_t collider, const Aabb& box);
  Status setOrientedBox(uint32_t collider, const OrientedBox& box);
  Status setSphere(uint32_t collider, const Sphere& sphere);
  Status setCapsule(uint32_t collider, const Capsule& capsule);
  Status setMeshOffset(uint32_t collider, const Vec3& offset);
  /// Changes flags / group / tag / label; moving between queryable trees re-files the collider.
  Status setProperties(uint32_t collider, const ColliderProperties& properties);
  /// Removes a collider; its handle is not reused.
  Status remove(uint32_t collider);
  /// Rebuilds both trees now (normally automatic, see QueryIndexSettings).
  void rebuild();

  // ---- inspection ----

  /// True when `collider` is a live handle.
  bool contains(uint32_t collider) const;
  ColliderKind kind(uint32_t collider) const;
  const ColliderProperties& properties(uint32_t collider) const;
  /// Current world-space bounds of a collider.
  Aabb bounds(uint32_t collider) const;
  /// Tag id of a tag path, or kInvalidId when no collider or triangle uses it (or an ancestor path).
  uint32_t findTag(std::string_view tag) const;
  /// Tag path of a tag id ("" for kInvalidId).
  const std::string& tagName(uint32_t tag) const;
  /// Surface label of a label id ("" for kInvalidId).
  const std::string& labelName(uint32_t label) const;
  /// True when tag `tag` equals `ancestor` or lies under it ("a/b/c" is under "a/b").
  bool tagIsUnder(uint32_t tag, uint32_t ancestor) const;
  QueryIndexStats stats() const;
  const QueryIndexSettings& settings() const;
  /// When on, every query enumerates all colliders and triangles instead of using the trees
  /// (the path nonfinite query bounds always take; the property tests' brute-force oracle).
  void setEnumerateAll(bool enumerate_all);

  // ---- queries (thread-safe) ----

  /// Closest hit along the ray within max_distance. `direction` must be unit length (it is
  /// normalised if not; a zero or nonfinite direction or origin hits nothing).
  std::optional<RayHit> raycast(const Vec3& origin, const Vec3& direction, double max_distance,
                                const QueryFilter& filter = {}) const;
  /// All hits along the ray, sorted by distance then collider then triangle (the column
  /// builder's primitive). Clears `hits` first.
  void raycastAll(const Vec3& origin, const Vec3& direction, double max_distance, std::vector<RayHit>& hits,
                  const QueryFilter& filter = {}) const;

  /// True when the shape overlaps any accepted triangle or primitive exactly (touching counts;
  /// bounds overlap alone is never a hit).
  bool overlapsBox(const Aabb& box, const QueryFilter& filter = {}) const;
  bool overlapsOrientedBox(const OrientedBox& box, const QueryFilter& filter = {}) const;
  bool overlapsSphere(const Sphere& sphere, const QueryFilter& filter = {}) const;
  bool overlapsCapsule(const Capsule& capsule, const QueryFilter& filter = {}) const;
  /// Every overlapping triangle / primitive, sorted by collider then triangle. Clears `out` first.
  void overlapBox(const Aabb& box, std::vector<OverlapHit>& out, const QueryFilter& filter = {}) const;
  void overlapOrientedBox(const OrientedBox& box, std::vector<OverlapHit>& out, const QueryFilter& filter = {}) const;
  void overlapSphere(const Sphere& sphere, std::vector<OverlapHit>& out, const QueryFilter& filter = {}) const;
  void overlapCapsule(const Capsule& capsule, std::vector<OverlapHit>& out, const QueryFilter& filter = {}) const;

  /// Sweeps the shape by `translation`; the first contact. A shape that overlaps something at
  /// its start reports started_penetrating with the depth and shortest escape of the deepest
  /// overlap, time 0. A zero translation reports only such an initial overlap.
  std::optional<ShapeHit> castBox(const Aabb& box, const Vec3& translation, const QueryFilter& filter = {}) const;
  std::optional<ShapeHit> castOrientedBox(const OrientedBox& box, const Vec3& translation,
                                          const QueryFilter& filter = {}) const;
  std::optional<ShapeHit> castSphere(const Vec3& center, double radius, const Vec3& translation,
                                     const QueryFilter& filter = {}) const;
  std::optional<ShapeHit> castCapsule(const Vec3& a, const Vec3& b, double radius, const Vec3& translation,
                                      const QueryFilter& filter = {}) const;

  /// Internal state (defined in query_index.cpp).
  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace strata::sim
