// Areas: surface label / tag rules and modifier volumes of the profile map every node to an
// area with a cost multiplier (spec: "Area modifiers and material costs affect route
// preference; an infinite cost removes that candidate").

#include <algorithm>

#include "bake_stages.h"
#include "strata/nav/column_builder.h"

namespace strata::nav {
namespace {

uint16_t internArea(std::vector<std::string>& names, std::vector<float>& costs, const std::string& name, double cost) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<uint16_t>(i);
  names.push_back(name);
  costs.push_back(static_cast<float>(cost));
  return static_cast<uint16_t>(names.size() - 1);
}

}  // namespace

void profileAreaTable(const AgentProfile& agent, std::vector<std::string>& names, std::vector<float>& costs) {
  names = {"default"};
  costs = {1.0f};
  for (const AreaRule& rule : agent.areas) internArea(names, costs, rule.area, rule.cost);
  for (const ModifierVolume& m : agent.modifiers) internArea(names, costs, m.area, m.cost);
}

std::vector<uint16_t> triangleAreas(const sim::TriangleMesh& mesh, const AgentProfile& profile, LayeredGraph& graph) {
  // Areas in profile order: rules first, then modifier volumes.
  profileAreaTable(profile, graph.area_names, graph.area_costs);
  std::vector<uint16_t> rule_area;
  for (const AreaRule& rule : profile.areas)
    rule_area.push_back(internArea(graph.area_names, graph.area_costs, rule.area, rule.cost));
  // Resolve per label and per tag once, then per triangle.
  auto firstMatch = [&](const std::string& text, bool by_label) -> int {
    for (std::size_t i = 0; i < profile.areas.size(); ++i) {
      const std::string& glob = by_label ? profile.areas[i].label_glob : profile.areas[i].tag_glob;
      if (!glob.empty() && globMatch(glob, text)) return static_cast<int>(i);
    }
    return -1;
  };
  std::vector<int> label_rule(mesh.labels.size()), tag_rule(mesh.tags.size());
  for (std::size_t i = 0; i < mesh.labels.size(); ++i) label_rule[i] = firstMatch(mesh.labels[i], true);
  for (std::size_t i = 0; i < mesh.tags.size(); ++i) tag_rule[i] = firstMatch(mesh.tags[i], false);
  std::vector<uint16_t> areas(mesh.triangleCount(), 0);
  for (std::size_t t = 0; t < mesh.triangleCount(); ++t) {
    int rule = -1;
    if (t < mesh.triangle_labels.size() && mesh.triangle_labels[t] < label_rule.size()) rule = label_rule[mesh.triangle_labels[t]];
    if (t < mesh.triangle_tags.size() && mesh.triangle_tags[t] < tag_rule.size()) {
      const int by_tag = tag_rule[mesh.triangle_tags[t]];
      if (by_tag >= 0 && (rule < 0 || by_tag < rule)) rule = by_tag;  // first rule in profile order wins
    }
    if (rule >= 0) areas[t] = rule_area[static_cast<std::size_t>(rule)];
  }
  return areas;
}

bool modifierHolds(const sim::Aabb& box, const sim::Vec3& position) {
  return position.x >= box.min.x && position.x <= box.max.x && position.z >= box.min.z && position.z <= box.max.z &&
         position.y >= box.min.y - kHeightTolerance && position.y <= box.max.y + kHeightTolerance;
}

void unmatchedGlobWarnings(const sim::TriangleMesh& mesh, const AgentProfile& profile, const std::string& source,
                           std::vector<std::string>& warnings) {
  const auto matchesAny = [](const std::string& glob, const std::vector<std::string>& texts) {
    return std::any_of(texts.begin(), texts.end(), [&](const std::string& text) { return globMatch(glob, text); });
  };
  const std::string agent = source + ": agent " + profile.settings.name + ": ";
  for (std::size_t i = 0; i < profile.areas.size(); ++i) {
    const AreaRule& rule = profile.areas[i];
    const bool by_label = !rule.label_glob.empty();
    const std::string& glob = by_label ? rule.label_glob : rule.tag_glob;
    if (glob.empty() || matchesAny(glob, by_label ? mesh.labels : mesh.tags)) continue;
    warnings.push_back(agent + "area rule " + std::to_string(i) + " (" + (by_label ? "label" : "tag") + " '" + glob +
                       "') matches no surface " + (by_label ? "label" : "tag") + " of the mesh and changes nothing");
  }
  if (!profile.settings.can_climb) return;
  for (const std::string& glob : profile.climbable)
    if (!matchesAny(glob, mesh.labels))
      warnings.push_back(agent + "climbable '" + glob + "' matches no surface label of the mesh and changes nothing");
}

void applyModifierVolumes(const AgentProfile& profile, LayeredGraph& graph) {
  if (profile.modifiers.empty()) return;
  std::vector<uint16_t> volume_area;
  for (const ModifierVolume& m : profile.modifiers) {
    const auto it = std::find(graph.area_names.begin(), graph.area_names.end(), m.area);
    volume_area.push_back(static_cast<uint16_t>(it - graph.area_names.begin()));
  }
  const GridFrame& grid = graph.grid;
  for (std::size_t v = 0; v < profile.modifiers.size(); ++v) {
    const sim::Aabb& box = profile.modifiers[v].box;
    const int32_t x0 = std::max(0, grid.columnX(box.min.x)), x1 = std::min(grid.width_cells - 1, grid.columnX(box.max.x));
    const int32_t z0 = std::max(0, grid.columnZ(box.min.z)), z1 = std::min(grid.depth_cells - 1, grid.columnZ(box.max.z));
    for (int32_t z = z0; z <= z1; ++z)
      for (int32_t x = x0; x <= x1; ++x)
        for (uint32_t n = graph.columnBegin(x, z); n < graph.columnEnd(x, z); ++n)
          if (modifierHolds(box, {grid.centerX(x), graph.height[n], grid.centerZ(z)})) {
            graph.area[n] = volume_area[v];
            graph.flags[n] |= kNodeModified;
          }
  }
}

std::vector<uint8_t> climbableTriangles(const sim::TriangleMesh& mesh, const AgentProfile& profile) {
  std::vector<uint8_t> label_climbable(mesh.labels.size(), 0);
  for (std::size_t i = 0; i < mesh.labels.size(); ++i)
    for (const std::string& glob : profile.climbable)
      if (globMatch(glob, mesh.labels[i])) label_climbable[i] = 1;
  std::vector<uint8_t> result(mesh.triangleCount(), 0);
  for (std::size_t t = 0; t < mesh.triangleCount(); ++t)
    if (t < mesh.triangle_labels.size() && mesh.triangle_labels[t] < label_climbable.size())
      result[t] = label_climbable[mesh.triangle_labels[t]];
  return result;
}

}  // namespace strata::nav
