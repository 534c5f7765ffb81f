// The character collider grid (see collider_grid.h; spec "Local collider selection").

#include "strata/sim/collider_grid.h"

#include <algorithm>
#include <cmath>

namespace strata::sim {
namespace {
// Cell coordinates are packed 21 bits per axis; a collider reaching beyond that range (more
// than ~9,400 km from the origin at the default cell size) goes to the large list.
constexpr int64_t kCellLimit = int64_t{1} << 20;
}  // namespace

std::string ColliderGridSettings::validate() const {
  if (!(cell_size > 0) || !std::isfinite(cell_size)) return "cell_size must be a finite number > 0";
  if (max_cells_per_collider < 1) return "max_cells_per_collider must be >= 1";
  if (!(query_margin >= 0) || !std::isfinite(query_margin)) return "query_margin must be a finite number >= 0";
  return {};
}

ColliderGrid::ColliderGrid(const ColliderGridSettings& settings) : settings_(settings) {
  if (!settings_.validate().empty()) settings_ = ColliderGridSettings{};
}

uint64_t ColliderGrid::key(int64_t x, int64_t y, int64_t z) {
  const auto pack = [](int64_t v) { return static_cast<uint64_t>(v + kCellLimit) & ((uint64_t{1} << 21) - 1); };
  return pack(x) | (pack(y) << 21) | (pack(z) << 42);
}

ColliderGrid::CellRange ColliderGrid::rangeOf(const Aabb& bounds, double max_cells) const {
  CellRange r;
  r.filed = true;
  if (!isFinite(bounds.min) || !isFinite(bounds.max) || bounds.empty()) {
    r.large = true;
    return r;
  }
  double cells = 1;
  for (int k = 0; k < 3; ++k) {
    const double lo = std::floor(bounds.min[k] / settings_.cell_size);
    const double hi = std::floor(bounds.max[k] / settings_.cell_size);
    if (lo < -kCellLimit || hi >= kCellLimit) {
      r.large = true;
      return r;
    }
    r.lo[k] = static_cast<int64_t>(lo);
    r.hi[k] = static_cast<int64_t>(hi);
    cells *= hi - lo + 1;
  }
  r.large = cells > max_cells;
  return r;
}

void ColliderGrid::file(uint32_t slot) {
  CellRange r = rangeOf(slots_[slot].bounds, settings_.max_cells_per_collider);
  if (!slots_[slot].active) r = CellRange{};  // inactive: filed nowhere
  ranges_[slot] = r;
  if (!r.filed) return;
  if (r.large) {
    large_.push_back(slot);
    return;
  }
  for (int64_t x = r.lo[0]; x <= r.hi[0]; ++x)
    for (int64_t y = r.lo[1]; y <= r.hi[1]; ++y)
      for (int64_t z = r.lo[2]; z <= r.hi[2]; ++z) cells_[key(x, y, z)].push_back(slot);
}

void ColliderGrid::unfile(uint32_t slot) {
  const CellRange r = ranges_[slot];
  ranges_[slot] = CellRange{};
  if (!r.filed) return;
  auto drop = [slot](std::vector<uint32_t>& list) {
    auto it = std::find(list.begin(), list.end(), slot);
    if (it != list.end()) {
      *it = list.back();
      list.pop_back();
    }
  };
  if (r.large) {
    drop(large_);
    return;
  }
  for (int64_t x = r.lo[0]; x <= r.hi[0]; ++x)
    for (int64_t y = r.lo[1]; y <= r.hi[1]; ++y)
      for (int64_t z = r.lo[2]; z <= r.hi[2]; ++z) {
        auto it = cells_.find(key(x, y, z));
        if (it == cells_.end()) continue;
        drop(it->second);
        if (it->second.empty()) cells_.erase(it);
      }
}

void ColliderGrid::sync(std::span<const GridCollider> colliders) {
  if (colliders.size() != slots_.size()) {
    // a changed array length invalidates slot identity: rebuild everything
    slots_.assign(colliders.begin(), colliders.end());
    ranges_.assign(slots_.size(), CellRange{});
    cells_.clear();
    large_.clear();
    for (uint32_t i = 0; i < slots_.size(); ++i) file(i);
    ++full_rebuilds_;
    return;
  }
  for (uint32_t i = 0; i < slots_.size(); ++i) {
    if (colliders[i].version == slots_[i].version) continue;
    unfile(i);
    slots_[i] = colliders[i];
    file(i);
    ++slot_updates_;
  }
}

Aabb ColliderGrid::queryRegion(const Aabb& body, const Vec3& applied, const Vec3& velocity_step, double margin) {
  Aabb region = body;
  for (const Vec3& shift : {applied, velocity_step, applied + velocity_step}) {
    region.expand(body.min + shift);
    region.expand(body.max + shift);
  }
  const Vec3 m{margin, margin, margin};
  return Aabb{region.min - m, region.max + m};
}

void ColliderGrid::nearby(const Aabb& body, const Vec3& applied, const Vec3& velocity_step,
                          std::vector<uint32_t>& out) const {
  overlapping(queryRegion(body, applied, velocity_step, settings_.query_margin), out);
}

void ColliderGrid::overlapping(const Aabb& region, std::vector<uint32_t>& out) const {
  out.clear();
  auto consider = [&](uint32_t slot) {
    if (slots_[slot].active && slots_[slot].bounds.overlaps(region)) out.push_back(slot);
  };
  for (uint32_t slot : large_) consider(slot);
  // a query spanning more cells than there are slots (or with nonfinite bounds) enumerates the
  // slots instead of walking cells
  const CellRange r = rangeOf(region, std::max<double>(64.0, static_cast<double>(slots_.size())));
  if (r.large) {
    for (uint32_t i = 0; i < slots_.size(); ++i)
      if (ranges_[i].filed && !ranges_[i].large) consider(i);
  } else {
    for (int64_t x = r.lo[0]; x <= r.hi[0]; ++x)
      for (int64_t y = r.lo[1]; y <= r.hi[1]; ++y)
        for (int64_t z = r.lo[2]; z <= r.hi[2]; ++z) {
          auto it = cells_.find(key(x, y, z));
          if (it == cells_.end()) continue;
          for (uint32_t slot : it->second) consider(slot);
        }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

ColliderGridStats ColliderGrid::stats() const {
  return ColliderGridStats{slots_.size(), large_.size(), cells_.size(), full_rebuilds_, slot_updates_};
}

}  // namespace strata::sim
