#pragma once
/// \file
/// The character collider grid (spec: character-movement-and-navigation.md, "Local collider
/// selection"): the motor's broad phase. Colliders covering at most `max_cells_per_collider`
/// cells are filed into uniform cubic cells; larger ones (and any with nonfinite bounds) go to a
/// separate list. A nearby query covers the body bounds, the body moved by the applied
/// translation, by the velocity step, and by both (so opposing translations never cancel the
/// swept extent), grown by a margin; it returns each collider once.
///
/// The grid mirrors a caller-owned, versioned collider array: `sync` re-files only slots whose
/// version changed, and rebuilds everything when the array length changes.
///
/// Threading: const methods may run concurrently; `sync` needs exclusive access.

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "strata/sim/math.h"

namespace strata::sim {

/// Grid settings; defaults are the spec's studs at 0.28 m (docs/parameters.md).
struct ColliderGridSettings {
  double cell_size = 8.96;               ///< metres (32 studs), > 0; larger cells mean fewer cells per collider, more candidates per query
  uint32_t max_cells_per_collider = 64;  ///< a collider covering more cells goes to the large list; >= 1
  double query_margin = 1.12;            ///< metres (4 studs), >= 0, added around every nearby query
  /// Returns an empty string when valid, else the offending field and why.
  std::string validate() const;
};

/// One slot of the caller's collider array.
struct GridCollider {
  Aabb bounds;           ///< world bounds, metres
  uint64_t version = 0;  ///< bump whenever `bounds` or `active` change
  bool active = true;    ///< inactive slots are never returned
};

/// Counters for tests and diagnostics.
struct ColliderGridStats {
  std::size_t slots = 0;         ///< array length of the last sync
  std::size_t large = 0;         ///< slots in the large list
  std::size_t cells = 0;         ///< non-empty cells
  std::size_t full_rebuilds = 0; ///< syncs that rebuilt everything
  std::size_t slot_updates = 0;  ///< slots re-filed by incremental syncs
};

/// The grid. See the file comment.
class ColliderGrid {
 public:
  explicit ColliderGrid(const ColliderGridSettings& settings = {});

  /// Brings the grid in line with `colliders` (slot i = collider i).
  void sync(std::span<const GridCollider> colliders);

  /// The region a nearby query covers: body, body + applied, body + velocity_step,
  /// body + applied + velocity_step, grown by `margin`.
  static Aabb queryRegion(const Aabb& body, const Vec3& applied_translation, const Vec3& velocity_step, double margin);

  /// Slots whose bounds overlap queryRegion(body, applied, velocity_step, query_margin), each
  /// once, ascending. Clears `out` first.
  void nearby(const Aabb& body, const Vec3& applied_translation, const Vec3& velocity_step,
              std::vector<uint32_t>& out) const;
  /// Slots whose bounds overlap `region` (no margin added), each once, ascending.
  void overlapping(const Aabb& region, std::vector<uint32_t>& out) const;

  ColliderGridStats stats() const;
  const ColliderGridSettings& settings() const { return settings_; }

 private:
  struct CellRange {
    int64_t lo[3] = {0, 0, 0};
    int64_t hi[3] = {-1, -1, -1};
    bool large = false;
    bool filed = false;
  };
  CellRange rangeOf(const Aabb& bounds, double max_cells) const;
  void file(uint32_t slot);
  void unfile(uint32_t slot);
  static uint64_t key(int64_t x, int64_t y, int64_t z);

  ColliderGridSettings settings_;
  std::vector<GridCollider> slots_;
  std::vector<CellRange> ranges_;
  std::unordered_map<uint64_t, std::vector<uint32_t>> cells_;
  std::vector<uint32_t> large_;
  std::size_t full_rebuilds_ = 0;
  std::size_t slot_updates_ = 0;
};

}  // namespace strata::sim
