// Names, validation and route read-back of the search core (search.h holds the core itself,
// a template, so that each graph provider inlines into it).

#include "strata/nav/search.h"

#include <sys/mman.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <new>
#include <string>

namespace strata::nav {

detail::ZeroedBlock::ZeroedBlock(std::size_t bytes) {
  if (bytes == 0) return;
  if (bytes < kZeroedHugeBytes || bytes >= kZeroedHugeMaxBytes) {
    data_ = std::calloc(1, bytes);
    if (data_ == nullptr) throw std::bad_alloc();
    bytes_ = bytes;
    return;
  }
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  // Advice only: where it is refused (no transparent huge pages), the pages are the usual ones.
  (void)madvise(p, bytes, MADV_HUGEPAGE);
#endif
  data_ = p;
  bytes_ = bytes;
  mapped_ = true;
}

void detail::ZeroedBlock::release() noexcept {
  if (mapped_)
    (void)munmap(data_, bytes_);
  else
    std::free(data_);
  data_ = nullptr;
  bytes_ = 0;
  mapped_ = false;
}

std::string_view failureName(PathFailure failure) {
  switch (failure) {
    case PathFailure::None: return "None";
    case PathFailure::StartOutsideGrid: return "StartOutsideGrid";
    case PathFailure::GoalOutsideGrid: return "GoalOutsideGrid";
    case PathFailure::StartBlocked: return "StartBlocked";
    case PathFailure::GoalBlocked: return "GoalBlocked";
    case PathFailure::NoPath: return "NoPath";
    case PathFailure::BudgetExhausted: return "BudgetExhausted";
    case PathFailure::Blocked: return "Blocked";
    case PathFailure::NoStartNode: return "NoStartNode";
    case PathFailure::NoGoalNode: return "NoGoalNode";
    case PathFailure::ClosestNoPath: return "ClosestNoPath";
  }
  return "Unknown";
}

std::string_view methodName(SearchMethod method) {
  switch (method) {
    case SearchMethod::AStar: return "astar";
    case SearchMethod::Theta: return "theta";
    case SearchMethod::Direct: return "direct";
    case SearchMethod::Corridor: return "corridor";
    case SearchMethod::Interval: return "interval";
  }
  return "unknown";
}

std::string methodNames(std::span<const SearchMethod> methods) {
  std::string out;
  for (std::size_t i = 0; i < methods.size(); ++i) {
    if (i > 0) out += i + 1 == methods.size() ? " or " : ", ";
    out += methodName(methods[i]);
  }
  return out;
}

std::optional<SearchMethod> parseMethod(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (lower == "astar") return SearchMethod::AStar;
  if (lower == "theta" || lower == "thetastar") return SearchMethod::Theta;
  if (lower == "direct") return SearchMethod::Direct;
  if (lower == "corridor") return SearchMethod::Corridor;
  if (lower == "interval") return SearchMethod::Interval;
  return std::nullopt;
}

std::string_view actionName(MoveAction action) {
  switch (action) {
    case MoveAction::Walk: return "walk";
    case MoveAction::Jump: return "jump";
    case MoveAction::Drop: return "drop";
    case MoveAction::Climb: return "climb";
    case MoveAction::Link: return "link";
  }
  return "unknown";
}

double horizontalLength(const std::vector<Waypoint>& waypoints) {
  // sqrt(dx^2 + dz^2), not std::hypot: world coordinates are far from overflow, and hypot's
  // care was 2 % of a corridor query.
  double total = 0;
  for (std::size_t i = 1; i < waypoints.size(); ++i) {
    const double dx = waypoints[i].position.x - waypoints[i - 1].position.x;
    const double dz = waypoints[i].position.z - waypoints[i - 1].position.z;
    total += std::sqrt(dx * dx + dz * dz);
  }
  return total;
}

Status LayeredSearchLimits::validate() const {
  if (!std::isfinite(max_horizontal_distance) || max_horizontal_distance <= 0)
    return Error::badInput("search limits: max_horizontal_distance must be a finite number > 0");
  if (max_expansions < 0) return Error::badInput("search limits: max_expansions must be >= 0 (0 = unlimited)");
  return Ok{};
}

std::vector<NodeId> SearchState::pathTo(NodeId node) const {
  std::vector<NodeId> path;
  if (!reached(node)) return path;
  for (NodeId n = node; n != kNoNode; n = records()[n].parent) path.push_back(n);
  std::reverse(path.begin(), path.end());
  return path;
}

std::vector<MoveAction> SearchState::actionsTo(NodeId node) const {
  std::vector<MoveAction> actions;
  if (!reached(node)) return actions;
  for (NodeId n = node; n != kNoNode; n = records()[n].parent) actions.push_back(arrival(n));
  std::reverse(actions.begin(), actions.end());
  if (!actions.empty()) actions.front() = MoveAction::Walk;
  return actions;
}

}  // namespace strata::nav
