// Route-distance fields on the layered graph: lookup of a baked field, and the spec's
// distanceField on demand (spec/grid-pathfinding-library.md, "Distance fields"): Dijkstra from
// one node over every edge the search uses (walk, jump, drop, climb, links), bounded by a
// maximum cost. Dijkstra (1959); binary heap with lazy deletion.

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <unordered_map>

#include "strata/nav/nav_queries.h"

namespace strata::nav {

Result<double> fieldValueAt(const LayeredGraph& graph, const std::string& name, const sim::Vec3& point,
                            const SnapSettings& snap) {
  const int index = graph.findField(name);
  if (index < 0) {
    std::string known;
    for (const RouteField& f : graph.fields) known += (known.empty() ? "" : ", ") + f.name;
    return Error::badInput("no route-distance field '" + name + "' (baked fields: " + (known.empty() ? "none" : known) + ")");
  }
  const auto hit = nearestWalkable(graph, point, snap);
  if (!hit) return Error::badInput("no walkable floor near the point");
  const RouteField& field = graph.fields[static_cast<std::size_t>(index)];
  if (hit->node >= field.distance.size()) return Error::badInput("field '" + name + "' has no value for node " + std::to_string(hit->node));
  return static_cast<double>(field.distance[hit->node]);
}

namespace {

// The best cost found so far per node: an array over the whole graph for a whole field; for one
// value (fieldDistanceBetween, whose flood stops at its target) a hash map of the nodes reached,
// which becomes that array once it holds a 64th of the nodes. So a value 5 m away on a world of
// 4 million nodes no longer fills a 32 MB array first (534 -> 502 MB peak), and one across the
// world costs what it did (a map of every node took 2.4x the time and 136 MB more). Either way
// the same costs in the same order.
class DenseBest {
 public:
  explicit DenseBest(std::size_t nodes) : best_(nodes, std::numeric_limits<double>::infinity()) {}
  double get(NodeId node) const { return best_[node]; }
  void set(NodeId node, double cost) { best_[node] = cost; }

 private:
  std::vector<double> best_;
};
class SparseBest {
 public:
  explicit SparseBest(std::size_t nodes) : nodes_(nodes), limit_(std::max<std::size_t>(4096, nodes / 64)) {}
  double get(NodeId node) const {
    if (!dense_.empty()) return dense_[node];
    const auto it = sparse_.find(node);
    return it == sparse_.end() ? std::numeric_limits<double>::infinity() : it->second;
  }
  void set(NodeId node, double cost) {
    if (!dense_.empty()) {
      dense_[node] = cost;
      return;
    }
    sparse_[node] = cost;
    if (sparse_.size() > limit_) {
      dense_.assign(nodes_, std::numeric_limits<double>::infinity());
      for (const auto& [n, c] : sparse_) dense_[n] = c;
      sparse_ = {};
    }
  }

 private:
  std::size_t nodes_, limit_;
  std::unordered_map<NodeId, double> sparse_;
  std::vector<double> dense_;  // empty until the map grows past limit_
};

// Dijkstra from `origin` up to `max_cost`, writing each settled node's distance into `distance`
// (float) when given; stops as soon as `stop` is settled (kNoNode: never) and returns its
// distance, then final (+inf when it is not reached).
template <class Best>
float flood(const LayeredSearchGraph& graph, NodeId origin, double max_cost, NodeId stop, std::vector<float>* distance) {
  constexpr float kUnreached = std::numeric_limits<float>::infinity();
  if (origin >= graph.nodeCount() || std::isnan(max_cost)) return kUnreached;  // a NaN limit reaches nothing
  Best best(graph.nodeCount());
  const double reach = fieldReach(max_cost);
  using Entry = std::pair<double, NodeId>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> open;
  best.set(origin, 0);
  open.push({0.0, origin});
  while (!open.empty()) {
    // Plain names, not a structured binding: the lambda below captures `d` (clang 14 refuses
    // to capture structured bindings).
    const double d = open.top().first;
    const NodeId node = open.top().second;
    open.pop();
    if (d > best.get(node)) continue;
    if (distance != nullptr) (*distance)[node] = static_cast<float>(d);
    if (node == stop) return static_cast<float>(d);
    graph.forEachEdge(node, kNoNode, [&](NodeId to, double cost, MoveAction) {
      const double nd = d + cost;
      if (nd <= reach && nd < best.get(to)) {
        best.set(to, nd);
        open.push({nd, to});
      }
    });
  }
  return kUnreached;
}

}  // namespace

std::vector<float> floodDistanceField(const LayeredSearchGraph& graph, NodeId origin, double max_cost) {
  std::vector<float> distance(graph.nodeCount(), std::numeric_limits<float>::infinity());
  flood<DenseBest>(graph, origin, max_cost, kNoNode, &distance);
  return distance;
}

double fieldDistanceBetween(const LayeredSearchGraph& graph, NodeId origin, NodeId target, double max_cost) {
  if (target >= graph.nodeCount()) return std::numeric_limits<double>::infinity();
  return static_cast<double>(flood<SparseBest>(graph, origin, max_cost, target, nullptr));
}

}  // namespace strata::nav
