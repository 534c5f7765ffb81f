// On-demand layered search (on_demand.h): columns and their edges are built the first time the
// search reaches them, by the bake's ColumnBuilder (an all-hits ray down the column centre) and
// the bake's edge rules (buildNodeEdges) run on a small window graph holding the columns the
// rules read: the node's own column and the eight rays (cardinal and diagonal) out to the
// ledge/jump reach. Floors are stored in float32 exactly as the bake stores them, so the edge
// rules see the same numbers. After the search, the built columns are copied into a LayeredGraph
// snapshot so that the waypoint pass of the baked search runs unchanged.

#include "strata/nav/on_demand.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cmath>
#include <limits>
#include <memory>
#include <numbers>
#include <optional>
#include <string>

#include "bake_stages.h"
#include "edge_builder.h"
#include "search_rates.h"
#include "strata/nav/column_builder.h"

namespace strata::nav {
namespace {

constexpr uint32_t kUnbuilt = std::numeric_limits<uint32_t>::max();

AgentSettings regionSettings(const AgentProfile& agent, const OnDemandRegion& region) {
  AgentSettings settings = agent.settings;
  settings.cell_size = region.grid.cell_size;
  return settings;
}

/// What a request needs of the whole mesh, whatever the region: one request tries up to three
/// regions over the same mesh, so these are computed once per request, not once per region.
struct MeshTables {
  sim::Aabb bounds;                                      ///< mesh.bounds()
  std::shared_ptr<const std::vector<uint32_t>> pieces;  ///< trianglePieces(mesh)
  std::vector<uint16_t> triangle_area;                   ///< per triangle (triangleAreas)
  std::vector<std::string> area_names;
  std::vector<float> area_costs;
  std::vector<uint16_t> volume_area;  ///< per modifier volume: its area's index
  std::vector<uint8_t> climbable;     ///< per triangle (climbableTriangles); empty when the agent does not climb
  /// area_costs with +inf for each area no floor can have (no triangle's, no modifier volume's):
  /// the heuristic's rates come from these, as LayeredSearchGraph's from the areas its nodes have.
  std::vector<float> heuristic_costs;

  MeshTables(const sim::TriangleMesh& mesh, const AgentProfile& agent)
      : bounds(mesh.bounds()), pieces(std::make_shared<const std::vector<uint32_t>>(trianglePieces(mesh))) {
    LayeredGraph areas;
    triangle_area = triangleAreas(mesh, agent, areas);
    area_names = std::move(areas.area_names);
    area_costs = std::move(areas.area_costs);
    volume_area = modifierAreas(agent, area_names);
    std::vector<uint8_t> present(area_costs.size(), 0);
    for (const uint16_t a : triangle_area)
      if (a < present.size()) present[a] = 1;
    for (const uint16_t a : volume_area)
      if (a < present.size()) present[a] = 1;
    heuristic_costs = detail::presentAreaCosts(area_costs, present);
    if (agent.settings.can_climb && !agent.climbable.empty()) climbable = climbableTriangles(mesh, agent);
  }
};

/// The lazily built graph of one region.
class OnDemandGraph {
 public:
  /// `tables` are the mesh's, for `agent` (outlive the graph).
  OnDemandGraph(const sim::TriangleMesh& mesh, const sim::QueryIndex& index, const AgentProfile& agent,
                const OnDemandRegion& region, const MeshTables& tables)
      : agent_(agent), region_(region), settings_(regionSettings(agent, region)),
        builder_(mesh, index, settings_, region.grid, tables.bounds, tables.pieces), tables_(tables) {
    const std::size_t columns = region.grid.columnCount();
    column_first_.assign(columns, kUnbuilt);
    column_count_.assign(columns, 0);
    edges_built_.assign(columns, 0);
    // The reach of the edge rules along the eight rays (a diagonal ray reaches no more columns
    // than a cardinal one).
    for (int d = 0; d < kDirectionCount; ++d) reach_ = std::max(reach_, gapReach(settings_, settings_.cell_size, d));
    rates_ = detail::HeuristicRates(tables_.heuristic_costs);
    bucketModifiers();
  }

  /// Snaps the profile's links whose ends both lie in the region (BadInput naming the link when
  /// an end has no floor within link_snap_distance and link_snap_height, as the bake does).
  Status addLinks(const std::string& source) {
    const double snap = settings_.link_snap_distance, snap_height = linkSnapHeight(settings_);
    const std::vector<int> label_rules = linkLabelRules(agent_);
    for (std::size_t i = 0; i < agent_.links.size(); ++i) {
      const LinkSpec& spec = agent_.links[i];
      // Only links whose snap windows lie wholly in the region: an end whose nearest floor may
      // be outside it (beyond the edge, or above or below the vertical extent) is the region's
      // limit, not an error (an elevator to a floor 40 m up, asked about a route on the ground).
      if (!snapsInside(spec.from, snap, snap_height) || !snapsInside(spec.to, snap, snap_height)) continue;
      const uint32_t from = linkEnd(spec.from), to = linkEnd(spec.to);
      // As the bake words it: where the link was written, when the profile parser says so.
      const std::string quoted = "('" + spec.label + "')";
      const auto [name, in] =
          profileEntryName(spec.source, source, settings_.name, "link " + std::to_string(i) + " " + quoted, quoted);
      // At the agent's own cell size the region's floors are the bake's, so an end without one
      // is the profile's error, as in the bake. A region of coarser cells (a long request, a
      // wide margin) may hold no column on a small platform a link lands on: that link is the
      // region's limit, left out (an audit: a valid world's request failed as bad input).
      if (from == kNoNode || to == kNoNode) {
        if (settings_.cell_size > agent_.settings.effectiveCellSize()) continue;
        return Error::badInput(name + ": " + noFloorWithin(settings_) + " of its " + (from == kNoNode ? "from" : "to") +
                               " point" + in);
      }
      if (from == to) continue;  // a loop no route takes: the bake leaves it out with a warning
      auto label = std::find(link_labels_.begin(), link_labels_.end(), spec.label);
      if (label == link_labels_.end()) label = link_labels_.insert(link_labels_.end(), spec.label);
      const double cost = customLinkCost(agent_, spec, label_rules[i]);
      const auto label_index = static_cast<uint32_t>(label - link_labels_.begin());
      // As the bake: a direction that lands in an area of infinite cost is left out, and a link
      // whose label's area costs inf.
      const bool forward = std::isfinite(cost) && enterable(to), backward = std::isfinite(cost) && spec.bidirectional && enterable(from);
      if (forward) links_.push_back({from, to, static_cast<float>(cost), label_index, static_cast<uint32_t>(i), backward});
      if (backward) links_.push_back({to, from, static_cast<float>(cost), label_index, static_cast<uint32_t>(i), forward});
      // The heuristic below is octile: the rate per octile metre of the link's span. Only a link
      // kept in some direction counts, as in the baked graph (a left-out link lowered the rate:
      // another route of equal cost, and up to 6x the expansions).
      if (forward || backward)
        rates_.addLink(std::abs(node_x_[to] - node_x_[from]) * settings_.cell_size,
                       std::abs(node_z_[to] - node_z_[from]) * settings_.cell_size, cost);
    }
    return Ok{};
  }

  /// Whether a node's area may be entered (its cost is finite).
  bool enterable(uint32_t node) const { return detail::enterableArea(tables_.area_costs, area_[node]); }

  /// The node a point snaps to: the baked search's rule (snapToNode) on the columns around it.
  NodeId snap(const sim::Vec3& point, const SnapSettings& snap) {
    const GridFrame& grid = region_.grid;
    const int32_t cx = grid.columnX(point.x), cz = grid.columnZ(point.z);
    const int r = static_cast<int>(std::ceil(snap.max_horizontal / grid.cell_size)) + 1;
    LayeredGraph window;
    std::vector<uint32_t> to_global;
    makeWindow(cx, cz, r, /*full=*/true, window, to_global);
    const NodeId local = snapToNode(window, point, snap);
    return local == kNoNode ? kNoNode : to_global[local];
  }

  // ---- the SearchGraph interface (through OnDemandView) ----
  std::size_t nodeCount() const { return height_.size(); }
  double heuristic(NodeId node, NodeId goal) const {
    const double dx = std::abs(node_x_[node] - node_x_[goal]), dz = std::abs(node_z_[node] - node_z_[goal]);
    return detail::octile(dx, dz) * settings_.cell_size * rates_.octile;
  }
  template <class Visit>
  void forEachEdge(NodeId node, Visit&& visit) {
    const std::size_t column = region_.grid.columnIndex(node_x_[node], node_z_[node]);
    if (!edges_built_[column]) buildEdges(node_x_[node], node_z_[node]);
    const std::size_t base = static_cast<std::size_t>(node) * kDirectionCount;
    for (int d = 0; d < kDirectionCount; ++d) {
      const uint32_t to = neighbor_[base + d];
      if (to == kNoNode || !(edge_cost_[base + d] < std::numeric_limits<float>::infinity())) continue;
      visit(to, static_cast<double>(edge_cost_[base + d]), moveActionOf(static_cast<EdgeKind>(edge_kind_[base + d])));
    }
    for (uint32_t j = jump_begin_[node], end = j + jump_count_[node]; j < end; ++j)
      visit(jumps_[j].to_node, static_cast<double>(jumps_[j].cost), MoveAction::Jump);
    if (!link_end_[node]) return;
    for (const OffMeshLink& link : links_)
      if (link.from_node == node && link.cost < std::numeric_limits<float>::infinity())
        visit(link.to_node, static_cast<double>(link.cost), MoveAction::Link);
  }

  /// Every built column, its nodes, edges and links as a LayeredGraph over the region's grid;
  /// `to_snapshot` maps this graph's node ids to the snapshot's.
  LayeredGraph snapshot(std::vector<uint32_t>& to_snapshot) const {
    LayeredGraph g;
    g.grid = region_.grid;
    const std::size_t columns = g.grid.columnCount(), nodes = nodeCount();
    g.column_offsets.assign(columns + 1, 0);
    for (std::size_t c = 0; c < columns; ++c) g.column_offsets[c + 1] = g.column_offsets[c] + column_count_[c];
    to_snapshot.assign(nodes, kNoNode);
    for (std::size_t c = 0; c < columns; ++c)
      for (uint32_t k = 0; k < column_count_[c]; ++k) to_snapshot[column_first_[c] + k] = g.column_offsets[c] + k;
    g.height.resize(nodes);
    g.normal.resize(nodes);
    g.headroom.resize(nodes);
    g.area.resize(nodes);
    g.flags.assign(nodes, 0);
    g.clearance.assign(nodes, static_cast<float>(settings_.radius));
    g.neighbor.assign(nodes * kDirectionCount, kNoNode);
    g.edge_kind.assign(nodes * kDirectionCount, 0);
    g.edge_cost.assign(nodes * kDirectionCount, 0.0f);
    for (std::size_t n = 0; n < nodes; ++n) {
      const uint32_t s = to_snapshot[n];
      g.height[s] = height_[n];
      g.normal[s] = normal_[n];
      g.headroom[s] = headroom_[n];
      g.area[s] = area_[n];
      for (int d = 0; d < kDirectionCount; ++d) {
        const std::size_t from = n * kDirectionCount + d, into = static_cast<std::size_t>(s) * kDirectionCount + d;
        if (neighbor_[from] == kNoNode) continue;
        g.neighbor[into] = to_snapshot[neighbor_[from]];
        g.edge_kind[into] = edge_kind_[from];
        g.edge_cost[into] = edge_cost_[from];
      }
    }
    for (OffMeshLink link : links_) {
      link.from_node = to_snapshot[link.from_node];
      link.to_node = to_snapshot[link.to_node];
      g.links.push_back(link);
      g.flags[link.from_node] |= kNodeLinkEnd;
      g.flags[link.to_node] |= kNodeLinkEnd;
    }
    for (OffMeshLink jump : jumps_) {
      jump.from_node = to_snapshot[jump.from_node];
      jump.to_node = to_snapshot[jump.to_node];
      g.links.push_back(jump);
    }
    indexLinks(g);
    g.link_labels = link_labels_;
    g.area_names = tables_.area_names;
    g.area_costs = tables_.area_costs;
    computeComponents(g);
    return g;
  }

  /// Builds the edges of every column of the region within 2.2 columns of the segment between
  /// the centres of nodes a and b (the columns themselves as needed). The waypoint pass's line
  /// test from an exact endpoint off its column's centre (LayeredSearchGraph::walkLineFrom: from
  /// the corners of the endpoint's quarter of its column to the next corner, all within 1.42
  /// columns of a, each crossing columns within 0.71 of its line) reads the edges of that band;
  /// with only the expanded nodes' edges it kept the centre beside the endpoint where the bake
  /// leaves it out (an audit: a 1 m walk on an open road came out 1.57 m).
  void buildEdgesAlong(NodeId a, NodeId b) {
    const int32_t ax = node_x_[a], az = node_z_[a], bx = node_x_[b], bz = node_z_[b];
    const double dx = bx - ax, dz = bz - az, length2 = dx * dx + dz * dz;
    constexpr double kBand = 2.2;
    for (int32_t z = std::min(az, bz) - 3; z <= std::max(az, bz) + 3; ++z)
      for (int32_t x = std::min(ax, bx) - 3; x <= std::max(ax, bx) + 3; ++x) {
        if (!region_.grid.contains(x, z) || edges_built_[region_.grid.columnIndex(x, z)]) continue;
        const double t = length2 > 0 ? std::clamp(((x - ax) * dx + (z - az) * dz) / length2, 0.0, 1.0) : 0.0;
        const double ex = ax + t * dx - x, ez = az + t * dz - z;
        if (ex * ex + ez * ez <= kBand * kBand) buildEdges(x, z);
      }
  }

  std::size_t columnsBuilt() const { return columns_built_; }
  /// A node's column (x, z) in the region's grid.
  std::array<int32_t, 2> nodeColumn(NodeId node) const { return {node_x_[node], node_z_[node]}; }
  /// A node's column centre at its floor height.
  sim::Vec3 nodePoint(NodeId node) const {
    return {region_.grid.centerX(node_x_[node]), static_cast<double>(height_[node]), region_.grid.centerZ(node_z_[node])};
  }
  const std::vector<std::string>& areaNames() const { return tables_.area_names; }
  const std::vector<std::string>& linkLabels() const { return link_labels_; }

 private:
  // Whether every floor within `across` and `up_down` of p would be a floor of the region.
  bool snapsInside(const sim::Vec3& p, double across, double up_down) const {
    const GridFrame& grid = region_.grid;
    return grid.contains(grid.columnX(p.x - across), grid.columnZ(p.z - across)) &&
           grid.contains(grid.columnX(p.x + across), grid.columnZ(p.z + across)) &&
           p.y - up_down >= region_.min_height && p.y + up_down <= region_.max_height;
  }

  /// The modifier volumes per square of kBucket x kBucket region columns (CSR, each square's
  /// volumes in decreasing profile order), so a column built looks only at the volumes over it:
  /// every volume per floor made the search O(floors x volumes) (64,000 volumes: 14 s).
  static constexpr int32_t kBucket = 8;
  std::size_t modifierBucket(int32_t x, int32_t z) const {
    return static_cast<std::size_t>(z / kBucket) * static_cast<std::size_t>(buckets_x_) + static_cast<std::size_t>(x / kBucket);
  }
  void bucketModifiers() {
    const GridFrame& grid = region_.grid;
    buckets_x_ = (grid.width_cells + kBucket - 1) / kBucket;
    const int32_t buckets_z = (grid.depth_cells + kBucket - 1) / kBucket;
    const std::size_t buckets = static_cast<std::size_t>(buckets_x_) * static_cast<std::size_t>(buckets_z);
    bucket_first_.assign(buckets + 1, 0);
    // The squares a volume's columns cover (the bake's column range, clamped to the region).
    const auto covered = [&](const sim::Aabb& box, auto&& visit) {
      const ColumnRange c = modifierColumns(grid, box);
      if (c.x0 > c.x1 || c.z0 > c.z1) return;
      for (int32_t bz = c.z0 / kBucket; bz <= c.z1 / kBucket; ++bz)
        for (int32_t bx = c.x0 / kBucket; bx <= c.x1 / kBucket; ++bx) visit(modifierBucket(bx * kBucket, bz * kBucket));
    };
    for (const ModifierVolume& m : agent_.modifiers) covered(m.box, [&](std::size_t b) { ++bucket_first_[b + 1]; });
    for (std::size_t b = 0; b < buckets; ++b) bucket_first_[b + 1] += bucket_first_[b];
    bucket_volumes_.resize(bucket_first_[buckets]);
    std::vector<uint32_t> fill(bucket_first_.begin(), bucket_first_.end() - 1);
    for (std::size_t v = agent_.modifiers.size(); v-- > 0;)
      covered(agent_.modifiers[v].box, [&](std::size_t b) { bucket_volumes_[fill[b]++] = static_cast<uint32_t>(v); });
  }

  /// Builds column (x, z) of the region once; its nodes get the next ids.
  void ensureColumn(int32_t x, int32_t z) {
    const std::size_t column = region_.grid.columnIndex(x, z);
    if (column_first_[column] != kUnbuilt) return;
    column_first_[column] = static_cast<uint32_t>(height_.size());
    ++columns_built_;
    for (const ColumnFloor& floor : builder_.buildColumn(x, z)) {
      if (floor.height < region_.min_height || floor.height > region_.max_height) continue;
      // Stored exactly as bake.cpp stores a floor, then areas as area_stage.cpp assigns them.
      const float height = static_cast<float>(floor.height);
      uint16_t area = tables_.triangle_area[floor.triangle];
      const sim::Vec3 position{region_.grid.centerX(x), height, region_.grid.centerZ(z)};
      // The last volume holding the floor wins (bake: later volumes overwrite): the bucket's
      // volumes are listed last first.
      const std::size_t bucket = modifierBucket(x, z);
      for (uint32_t i = bucket_first_[bucket]; i < bucket_first_[bucket + 1]; ++i)
        if (const uint32_t v = bucket_volumes_[i]; modifierHolds(agent_.modifiers[v].box, position)) {
          area = tables_.volume_area[v];
          break;
        }
      height_.push_back(height);
      normal_.push_back({static_cast<float>(floor.normal.x), static_cast<float>(floor.normal.y),
                         static_cast<float>(floor.normal.z)});
      headroom_.push_back(static_cast<float>(floor.headroom));
      area_.push_back(area);
      node_x_.push_back(x);
      node_z_.push_back(z);
      link_end_.push_back(0);
      jump_begin_.push_back(0);
      jump_count_.push_back(0);
      neighbor_.insert(neighbor_.end(), kDirectionCount, kNoNode);
      edge_kind_.insert(edge_kind_.end(), kDirectionCount, 0);
      edge_cost_.insert(edge_cost_.end(), kDirectionCount, 0.0f);
      ++column_count_[column];
    }
  }

  /// A window graph of (2r + 1)^2 columns centred on (cx, cz): every column when `full`, else
  /// only those the edge rules read (the eight rays out to r).
  void makeWindow(int32_t cx, int32_t cz, int r, bool full, LayeredGraph& window, std::vector<uint32_t>& to_global) {
    const GridFrame& grid = region_.grid;
    const int32_t side = 2 * r + 1;
    window = LayeredGraph{};
    window.grid = grid;
    window.grid.origin_x = grid.cornerX(cx - r);  // on the region's lattice (GridFrame)
    window.grid.origin_z = grid.cornerZ(cz - r);
    window.grid.width_cells = window.grid.depth_cells = side;
    window.area_names = tables_.area_names;
    window.area_costs = tables_.area_costs;
    auto wanted = [&](int32_t wx, int32_t wz) {
      if (full) return true;
      const int32_t dx = wx - r, dz = wz - r;
      return dx == 0 || dz == 0 || std::abs(dx) == std::abs(dz);  // the column itself and the eight rays
    };
    window.column_offsets.assign(static_cast<std::size_t>(side) * side + 1, 0);
    to_global.clear();
    for (int32_t wz = 0; wz < side; ++wz)
      for (int32_t wx = 0; wx < side; ++wx) {
        const int32_t x = cx - r + wx, z = cz - r + wz;
        const std::size_t wc = window.grid.columnIndex(wx, wz);
        uint32_t count = 0;
        if (grid.contains(x, z) && wanted(wx, wz)) {
          ensureColumn(x, z);
          const std::size_t c = grid.columnIndex(x, z);
          count = column_count_[c];
          for (uint32_t k = 0; k < count; ++k) {
            const uint32_t n = column_first_[c] + k;
            to_global.push_back(n);
            window.height.push_back(height_[n]);
            window.normal.push_back(normal_[n]);
            window.headroom.push_back(headroom_[n]);
            window.area.push_back(area_[n]);
          }
        }
        window.column_offsets[wc + 1] = window.column_offsets[wc] + count;
      }
    const std::size_t nodes = window.height.size();
    window.flags.assign(nodes, 0);
    window.neighbor.assign(nodes * kDirectionCount, kNoNode);
    window.edge_kind.assign(nodes * kDirectionCount, 0);
    window.edge_cost.assign(nodes * kDirectionCount, 0.0f);
  }

  void buildEdges(int32_t x, int32_t z) {
    makeWindow(x, z, reach_, /*full=*/false, window_, window_to_global_);
    const EdgeInputs inputs{&builder_, tables_.climbable.empty() ? nullptr : &tables_.climbable, nullptr, nullptr};
    for (uint32_t wn = window_.columnBegin(reach_, reach_); wn < window_.columnEnd(reach_, reach_); ++wn) {
      window_jumps_.clear();
      buildNodeEdges(window_, inputs, wn, reach_, reach_, &window_jumps_);
      const uint32_t node = window_to_global_[wn];
      jump_begin_[node] = static_cast<uint32_t>(jumps_.size());
      jump_count_[node] = static_cast<uint8_t>(window_jumps_.size());  // at most one per direction
      for (OffMeshLink jump : window_jumps_) {
        jump.from_node = node;
        jump.to_node = window_to_global_[jump.to_node];
        jumps_.push_back(jump);
      }
      const std::size_t into = static_cast<std::size_t>(node) * kDirectionCount;
      for (int d = 0; d < kDirectionCount; ++d) {
        const std::size_t slot = static_cast<std::size_t>(wn) * kDirectionCount + d;
        if (window_.neighbor[slot] == kNoNode) continue;
        neighbor_[into + d] = window_to_global_[window_.neighbor[slot]];
        edge_kind_[into + d] = window_.edge_kind[slot];
        edge_cost_[into + d] = window_.edge_cost[slot];
      }
    }
    edges_built_[region_.grid.columnIndex(x, z)] = 1;
  }

  /// The node a link end snaps to, as the bake snaps it (snapEndpoint), on a window of built
  /// columns around the point.
  uint32_t linkEnd(const sim::Vec3& point) {
    const GridFrame& grid = region_.grid;
    const int r = static_cast<int>(std::ceil(settings_.link_snap_distance / grid.cell_size)) + 1;
    LayeredGraph window;
    std::vector<uint32_t> to_global;
    makeWindow(grid.columnX(point.x), grid.columnZ(point.z), r, /*full=*/true, window, to_global);
    const uint32_t local = snapEndpoint(window, point, settings_);
    if (local == kNoNode) return kNoNode;
    link_end_[to_global[local]] = 1;
    return to_global[local];
  }

  const AgentProfile& agent_;
  OnDemandRegion region_;
  AgentSettings settings_;
  ColumnBuilder builder_;
  const MeshTables& tables_;
  int reach_ = 1;
  detail::HeuristicRates rates_;  ///< of the octile heuristic: the cheapest area, lowered by links
  std::size_t columns_built_ = 0;
  // per region column
  std::vector<uint32_t> column_first_;
  std::vector<uint32_t> column_count_;
  int32_t buckets_x_ = 0;                ///< squares of modifier volumes across the region
  std::vector<uint32_t> bucket_first_;   ///< per square, its first entry in bucket_volumes_
  std::vector<uint32_t> bucket_volumes_; ///< volume indices, each square's in decreasing order
  std::vector<uint8_t> edges_built_;
  // per node
  std::vector<float> height_;
  std::vector<sim::Vec3f> normal_;
  std::vector<float> headroom_;
  std::vector<uint16_t> area_;
  std::vector<int32_t> node_x_, node_z_;
  std::vector<uint8_t> link_end_;
  std::vector<uint32_t> neighbor_;
  std::vector<uint8_t> edge_kind_;
  std::vector<float> edge_cost_;
  std::vector<uint32_t> jump_begin_;  ///< per node: its second jumps are jumps_[begin, begin + count)
  std::vector<uint8_t> jump_count_;
  std::vector<OffMeshLink> jumps_;    ///< second jumps (edge_builder.h), in the order their columns were built
  std::vector<OffMeshLink> links_;
  std::vector<std::string> link_labels_;
  // scratch of buildEdges
  LayeredGraph window_;
  std::vector<uint32_t> window_to_global_;
  std::vector<OffMeshLink> window_jumps_;
};

/// The search core's view of an OnDemandGraph (the core calls const methods; building columns
/// mutates the graph behind the pointer). A* only: lineOfSight is never asked.
class OnDemandView {
 public:
  explicit OnDemandView(OnDemandGraph& graph) : graph_(&graph) {}
  std::size_t nodeCount() const { return graph_->nodeCount(); }
  double heuristic(NodeId node, NodeId goal, bool /*any_angle*/) const { return graph_->heuristic(node, goal); }
  double straightCost(NodeId, NodeId) const { return std::numeric_limits<double>::infinity(); }
  bool lineOfSight(NodeId, NodeId) const { return false; }
  template <class Visit>
  void forEachEdge(NodeId node, NodeId /*from*/, Visit&& visit) const {
    graph_->forEachEdge(node, visit);
  }

 private:
  OnDemandGraph* graph_;
};

}  // namespace

Status OnDemandSettings::validate() const {
  if (!(margin >= 0 && margin <= kMaxMargin))
    return Error::badInput("on-demand search: margin must be a number from 0 to 10000 (metres)");
  if (!(max_columns_per_side >= 8) || !std::isfinite(max_columns_per_side))
    return Error::badInput("on-demand search: max_columns_per_side must be a finite number >= 8");
  if (!std::isfinite(vertical_extent) || vertical_extent <= 0)
    return Error::badInput("on-demand search: vertical_extent must be a finite number > 0");
  return Ok{};
}

OnDemandRegion onDemandRegion(const AgentSettings& agent, const sim::Vec3& from, const sim::Vec3& to, int factor,
                              const OnDemandSettings& settings, double snap_reach) {
  OnDemandRegion region;
  region.factor = factor;
  const double cx = (from.x + to.x) / 2, cz = (from.z + to.z) / 2;
  // Factor f grows every side by (f - 1) times the longer half-side: the longer side is scaled
  // by f about the centre (the cell size follows it, as before), and the shorter side grows by
  // the same distance, so a region as narrow as the endpoints (margin 0, endpoints sharing an x)
  // widens too: scaling it about its centre kept it one column wide, and a route round an
  // obstacle was NoPath at every factor.
  const double reach = std::max(settings.margin, snap_reach);
  const double base_x = std::fabs(to.x - from.x) / 2 + reach;
  const double base_z = std::fabs(to.z - from.z) / 2 + reach;
  const double grow = (factor - 1) * std::max(base_x, base_z);
  const double half_x = base_x + grow, half_z = base_z + grow;
  const double span = 2 * std::max(half_x, half_z);
  const double cell = std::max(span / settings.max_columns_per_side, agent.effectiveCellSize());
  sim::Aabb bounds;
  bounds.min = {cx - half_x, 0, cz - half_z};
  bounds.max = {cx + half_x, 0, cz + half_z};
  region.grid = makeGridFrame(bounds, cell);
  region.min_height = std::min(from.y, to.y) - settings.vertical_extent;
  region.max_height = std::max(from.y, to.y) + settings.vertical_extent + agent.height;
  return region;
}

Result<OnDemandPath> findOnDemandPath(const sim::TriangleMesh& mesh, const sim::QueryIndex& index,
                                      const AgentProfile& agent, const sim::Vec3& from, const sim::Vec3& to,
                                      const LayeredSearchSettings& settings, const OnDemandSettings& region_settings,
                                      SearchState& state) {
  if (std::string e = agent.validate(); !e.empty()) return Error::badInput(e);
  if (Status s = settings.validate(); !s) return s.error();
  if (Status s = region_settings.validate(); !s) return s.error();
  if (settings.method != SearchMethod::AStar)
    return Error::badInput("on-demand search: only the astar method runs without a baked graph (got " +
                           std::string(methodName(settings.method)) + ")");
  OnDemandPath answer;
  // An endpoint that is no point (NaN, inf) snaps to nothing, as in findLayeredPath (it was NoPath).
  const auto finite = [](const sim::Vec3& p) { return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z); };
  if (!finite(from) || !finite(to)) {
    answer.path.failure = finite(from) ? PathFailure::NoGoalNode : PathFailure::NoStartNode;
    return answer;
  }
  if (!(std::hypot(to.x - from.x, to.z - from.z) <= settings.limits.max_horizontal_distance)) {
    answer.path.failure = PathFailure::NoPath;  // no region is built (answer.regions stays 0)
    return answer;
  }
  // One budget for the whole request: each region's search gets what the ones before it left,
  // and `expansions` counts them all (a budget that answered per region let a request expand
  // several times its budget, and reported the last region's count alone; an audit).
  const std::int64_t budget = settings.limits.max_expansions;  // 0 = unlimited
  std::size_t spent = 0;
  const MeshTables tables(mesh, agent);
  // Where a region's cells are coarser than the agent's, an endpoint over something narrower than
  // a cell (a roof, a landing) has no column there and snaps to the floor below it: a route to
  // the road under the roof asked for. So each endpoint also snaps in a small probe region at the
  // agent's own cell size (the baked graph's lattice), and a coarse region whose snapped floor
  // lies farther from that one, in height, than walking could rise over the distance between
  // their column centres (step_height plus that distance times tan(max_slope)) is not searched:
  // the endpoint is NoStartNode / NoGoalNode there when it is the first region, and an enlarged
  // region answers the NoPath of the region before it (as it does when its cells leave an
  // endpoint no floor to snap to at all).
  const double fine_cell = agent.settings.effectiveCellSize();
  std::array<std::optional<sim::Vec3>, 2> fine;  // per endpoint, computed once: its probe's snapped floor (or none)
  std::array<bool, 2> fine_done{false, false};
  auto fineFloor = [&](int which, const OnDemandRegion& region) -> const std::optional<sim::Vec3>& {
    if (!fine_done[which]) {
      fine_done[which] = true;
      const sim::Vec3& p = which == 0 ? from : to;
      OnDemandRegion probe = region;  // its heights: the floors the request keeps
      probe.factor = 1;
      const double reach = settings.snap.max_horizontal + fine_cell;
      sim::Aabb bounds;
      bounds.min = {p.x - reach, 0, p.z - reach};
      bounds.max = {p.x + reach, 0, p.z + reach};
      probe.grid = makeGridFrame(bounds, fine_cell);
      OnDemandGraph graph(mesh, index, agent, probe, tables);
      const NodeId node = graph.snap(p, settings.snap);
      if (node != kNoNode) fine[which] = graph.nodePoint(node);
    }
    return fine[which];
  };
  const double slope_rise = std::tan(agent.settings.max_slope * std::numbers::pi / 180.0);
  auto missesFloor = [&](const OnDemandGraph& graph, NodeId node, int which, const OnDemandRegion& region) {
    if (!(region.grid.cell_size > fine_cell)) return false;  // the baked lattice itself
    const std::optional<sim::Vec3>& f = fineFloor(which, region);
    if (!f) return false;  // nothing to compare with: the region's own snap stands
    const sim::Vec3 c = graph.nodePoint(node);
    const double across = std::hypot(c.x - f->x, c.z - f->z);
    // (Heights are float32: their spacing far up counts as in the edge rules.)
    const double spacing = float32Spacing(std::max(std::fabs(c.y), std::fabs(f->y)));
    return std::fabs(c.y - f->y) > agent.settings.step_height + across * slope_rise + kHeightTolerance + spacing;
  };
  static constexpr std::array<int, 3> kFactors{1, 2, 4};
  for (int factor : kFactors) {
    const OnDemandPath before = answer;  // an enlarged region that misses an endpoint's floor answers this
    answer.region = onDemandRegion(agent.settings, from, to, factor, region_settings, settings.snap.max_horizontal);
    OnDemandGraph graph(mesh, index, agent, answer.region, tables);
    if (Status s = graph.addLinks("on-demand search"); !s) return s.error();
    ++answer.regions;
    PathResult& result = answer.path;
    result = PathResult{};
    result.expansions = spent;
    const NodeId start = graph.snap(from, settings.snap);
    const NodeId goal = start == kNoNode ? kNoNode : graph.snap(to, settings.snap);
    const bool start_missed = start != kNoNode && missesFloor(graph, start, 0, answer.region);
    const bool goal_missed = !start_missed && goal != kNoNode && missesFloor(graph, goal, 1, answer.region);
    const bool unsnapped = start == kNoNode || goal == kNoNode || start_missed || goal_missed;
    // A later region is searched only when both endpoints snapped in the one before; an
    // endpoint its coarser cells miss (no column centre near it on its floor) leaves that answer.
    if (unsnapped && answer.regions > 1) {
      answer = before;
      break;
    }
    if (unsnapped) {
      result.failure = start == kNoNode || start_missed ? PathFailure::NoStartNode : PathFailure::NoGoalNode;
    } else if (budget > 0 && static_cast<std::int64_t>(spent) >= budget) {
      result.failure = PathFailure::BudgetExhausted;  // the regions before spent it all
    } else {
      SearchOptions options;
      // What the regions before left of the budget.
      options.max_expansions = budget == 0 ? 0 : budget - static_cast<std::int64_t>(spent);
      options.track_closest = settings.return_closest;
      const SearchOutcome outcome = search(OnDemandView(graph), state, start, goal, options);
      spent += outcome.expansions;
      result.expansions = spent;
      NodeId end = goal;
      if (outcome.status != SearchStatus::Found) {
        // A region that ran out is enlarged first (--closest must never lose a route a larger
        // region finds); the closest route answers only the last region's NoPath, or a budget.
        const bool enlarge = outcome.status == SearchStatus::NoPath && factor != kFactors.back();
        const bool progressed = !enlarge && settings.return_closest && outcome.closest != kNoNode &&
                                outcome.closest != start && graph.heuristic(outcome.closest, goal) < graph.heuristic(start, goal);
        result.failure = progressed                                         ? PathFailure::ClosestNoPath
                         : outcome.status == SearchStatus::BudgetExhausted ? PathFailure::BudgetExhausted
                                                                           : PathFailure::NoPath;
        if (progressed) end = outcome.closest;
      }
      if (result.failure == PathFailure::None || result.failure == PathFailure::ClosestNoPath) {
        // The waypoint pass of the baked search, on a snapshot of what was built, with the edges
        // its line tests from an exact endpoint off its column's centre read: along the first
        // and the last straight run of the route (OnDemandGraph::buildEdgesAlong).
        std::vector<NodeId> chain = state.pathTo(end);
        const sim::Vec3 end_point = end == goal ? to : graph.nodePoint(end);
        for (const bool at_start : {true, false}) {
          if (chain.size() < 2) break;
          const sim::Vec3& point = at_start ? from : end_point;
          const NodeId node = at_start ? chain.front() : chain.back();
          const sim::Vec3 centre = graph.nodePoint(node);
          if (point.x == centre.x && point.z == centre.z) continue;  // no centre to leave out
          // The run's other end: where the column steps first change direction.
          const auto step = [&](std::size_t i) {
            const std::size_t j = at_start ? i : chain.size() - 1 - i, k = at_start ? i + 1 : chain.size() - 2 - i;
            const auto p = graph.nodeColumn(chain[j]), q = graph.nodeColumn(chain[k]);
            return std::pair{q[0] - p[0], q[1] - p[1]};
          };
          std::size_t run = 1;
          while (run + 1 < chain.size() && step(run) == step(0)) ++run;
          graph.buildEdgesAlong(node, at_start ? chain[run] : chain[chain.size() - 1 - run]);
        }
        std::vector<uint32_t> to_snapshot;
        const LayeredGraph snapshot = graph.snapshot(to_snapshot);
        const LayeredSearchGraph view(snapshot, agent.settings);
        for (NodeId& n : chain) n = to_snapshot[n];
        result.cost = state.record(end).g;
        result.waypoints = layeredWaypoints(view, chain, state.actionsTo(end), from, end_point, settings.waypoint_spacing);
        result.length = horizontalLength(result.waypoints);
        result.nodes = std::move(chain);
      }
    }
    answer.columns_built += graph.columnsBuilt();
    answer.area_names = graph.areaNames();
    answer.link_labels = graph.linkLabels();
    answer.nodes_built += graph.nodeCount();
    // Only a region that ran out (NoPath) is worth enlarging; every other answer is final.
    if (result.failure != PathFailure::NoPath) break;
  }
  return answer;
}

}  // namespace strata::nav
