// Areas: surface label / tag rules and modifier volumes of the profile map every node to an
// area with a cost multiplier (spec: "Area modifiers and material costs affect route
// preference; an infinite cost removes that candidate").

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>

#include "bake_stages.h"
#include "strata/nav/column_builder.h"

namespace strata::nav {
namespace {

// The area table under construction with a hash index of its names: a profile may name up to
// 60,000 areas, and a linear search per rule made the table (built by the bake and again by
// every reader of the world) quadratic: 19 s for 60,000 names.
class AreaTable {
 public:
  AreaTable(std::vector<std::string>& names, std::vector<float>& costs) : names_(names), costs_(costs) {
    names_ = {"default"};
    costs_ = {1.0f};
    index_.emplace(names_.front(), 0);
  }
  uint16_t intern(const std::string& name, double cost) {
    const auto [it, added] = index_.emplace(name, static_cast<uint16_t>(names_.size()));
    if (added) {
      names_.push_back(name);
      costs_.push_back(static_cast<float>(cost));
    }
    return it->second;
  }

 private:
  std::vector<std::string>& names_;
  std::vector<float>& costs_;
  std::unordered_map<std::string, uint16_t> index_;
};

bool isLiteral(const std::string& glob) { return glob.find_first_of("*?") == std::string::npos; }

// The first rule (in profile order) whose label (or tag) glob matches, per text: literal globs
// (most rules name one material) through a hash index, the others by matching each.
std::vector<int> firstMatchingRules(const AgentProfile& profile, const std::vector<std::string>& texts, bool by_label) {
  std::unordered_map<std::string, int> literal;  // glob -> its first rule
  std::vector<int> wildcard;                      // rules with '*' or '?', in profile order
  for (std::size_t i = 0; i < profile.areas.size(); ++i) {
    const std::string& glob = by_label ? profile.areas[i].label_glob : profile.areas[i].tag_glob;
    if (glob.empty()) continue;
    if (isLiteral(glob)) literal.emplace(glob, static_cast<int>(i));
    else wildcard.push_back(static_cast<int>(i));
  }
  std::vector<int> first(texts.size(), -1);
  for (std::size_t t = 0; t < texts.size(); ++t) {
    const auto found = literal.find(texts[t]);
    int rule = found == literal.end() ? -1 : found->second;
    for (const int i : wildcard) {
      if (rule >= 0 && i > rule) break;
      const AreaRule& r = profile.areas[static_cast<std::size_t>(i)];
      if (globMatch(by_label ? r.label_glob : r.tag_glob, texts[t])) {
        rule = i;
        break;
      }
    }
    first[t] = rule;
  }
  return first;
}

}  // namespace

std::vector<int> linkLabelRules(const AgentProfile& profile) {
  std::vector<std::string> labels;
  labels.reserve(profile.links.size());
  for (const LinkSpec& link : profile.links) labels.push_back(link.label);
  return firstMatchingRules(profile, labels, /*by_label=*/true);
}

void profileAreaTable(const AgentProfile& agent, std::vector<std::string>& names, std::vector<float>& costs) {
  AreaTable table(names, costs);
  for (const AreaRule& rule : agent.areas) table.intern(rule.area, rule.cost);
  for (const ModifierVolume& m : agent.modifiers) table.intern(m.area, m.cost);
}

std::vector<uint16_t> modifierAreas(const AgentProfile& profile, const std::vector<std::string>& area_names) {
  std::unordered_map<std::string, uint16_t> index;
  for (std::size_t i = 0; i < area_names.size(); ++i) index.emplace(area_names[i], static_cast<uint16_t>(i));
  std::vector<uint16_t> areas;
  areas.reserve(profile.modifiers.size());
  for (const ModifierVolume& m : profile.modifiers) areas.push_back(index.at(m.area));
  return areas;
}

std::vector<uint16_t> triangleAreas(const sim::TriangleMesh& mesh, const AgentProfile& profile, LayeredGraph& graph) {
  // Areas in profile order: rules first, then modifier volumes.
  AreaTable table(graph.area_names, graph.area_costs);
  std::vector<uint16_t> rule_area;
  rule_area.reserve(profile.areas.size());
  for (const AreaRule& rule : profile.areas) rule_area.push_back(table.intern(rule.area, rule.cost));
  for (const ModifierVolume& m : profile.modifiers) table.intern(m.area, m.cost);
  // Resolve per label and per tag once, then per triangle.
  const std::vector<int> label_rule = firstMatchingRules(profile, mesh.labels, true);
  const std::vector<int> tag_rule = firstMatchingRules(profile, mesh.tags, false);
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

// A column centre on a box's x or z side is inside it within a micrometre: centres are computed
// from their column index (1.5 * 0.3 = 0.44999999999999996), so a box from 0.45 to 1.05 held the
// centre at 1.05 and not the one at 0.45, the same distance from its other side (an audit).
// Heights: within 1 mm plus float32's spacing at the height, which a floor's stored height may
// be off its surface (an audit: 70 km up, a box authored at a step's top, 70000.3, missed the
// floor stored as 70000.296875).
bool modifierHolds(const sim::Aabb& box, const sim::Vec3& position) {
  constexpr double side = kModifierSideTolerance;
  const double up = kHeightTolerance + float32Spacing(position.y);
  return position.x >= box.min.x - side && position.x <= box.max.x + side && position.z >= box.min.z - side &&
         position.z <= box.max.z + side && position.y >= box.min.y - up && position.y <= box.max.y + up;
}

ColumnRange modifierColumns(const GridFrame& grid, const sim::Aabb& box) {
  constexpr double side = kModifierSideTolerance;
  return {std::max(0, grid.columnX(box.min.x - side)), std::min(grid.width_cells - 1, grid.columnX(box.max.x + side)),
          std::max(0, grid.columnZ(box.min.z - side)), std::min(grid.depth_cells - 1, grid.columnZ(box.max.z + side))};
}

void unmatchedGlobWarnings(const sim::TriangleMesh& mesh, const AgentProfile& profile, const std::string& source,
                           std::vector<std::string>& warnings) {
  // A literal glob matches a text only when equal: a hash set of the texts answers it.
  const std::unordered_set<std::string> label_set(mesh.labels.begin(), mesh.labels.end());
  const std::unordered_set<std::string> tag_set(mesh.tags.begin(), mesh.tags.end());
  const auto matchesAny = [&](const std::string& glob, const std::vector<std::string>& texts) {
    if (isLiteral(glob)) return (&texts == &mesh.labels ? label_set : tag_set).count(glob) > 0;
    return std::any_of(texts.begin(), texts.end(), [&](const std::string& text) { return globMatch(glob, text); });
  };
  const std::string agent = source + ": agent " + profile.settings.name + ": ";
  // An entry is named where it was written when the parser says so; the mesh is named in the text.
  const auto ruleName = [&](std::size_t i, const std::string& what) {
    const std::string written = i < profile.area_sources.size() ? profile.area_sources[i] : std::string();
    return profileEntryName(written, source, profile.settings.name, "area rule " + std::to_string(i) + " (" + what + ")",
                            "(" + what + ")")
        .name;
  };
  const std::string mesh_name = profile.area_sources.empty() && profile.climbable_source.empty() ? "the mesh" : source;
  std::vector<char> prices_link(profile.areas.size(), 0);  // per rule: the first to match a cost-less link's label
  const std::vector<int> link_rules = linkLabelRules(profile);
  for (std::size_t l = 0; l < profile.links.size(); ++l)
    if (profile.links[l].cost < 0 && link_rules[l] >= 0) prices_link[static_cast<std::size_t>(link_rules[l])] = 1;
  for (std::size_t i = 0; i < profile.areas.size(); ++i) {
    const AreaRule& rule = profile.areas[i];
    const bool by_label = !rule.label_glob.empty();
    const std::string& glob = by_label ? rule.label_glob : rule.tag_glob;
    if (glob.empty() || matchesAny(glob, by_label ? mesh.labels : mesh.tags)) continue;
    // A label rule may also price custom links by their label (customLinkCost): the first one
    // whose glob matches a link without a cost.
    if (by_label && prices_link[i]) continue;
    warnings.push_back(ruleName(i, std::string(by_label ? "label" : "tag") + " '" + glob + "'") + " matches no surface " +
                       (by_label ? "label of " + mesh_name + " and no link priced by its label,"
                                 : "tag of " + mesh_name) + " and changes nothing");
  }
  if (profile.climbable.empty()) return;
  const std::string climbable = profile.climbable_source.empty() ? agent + "climbable" : profile.climbable_source;
  // An audit: climbable labels for an agent that cannot climb (can_climb defaults to false)
  // baked without a word and no climb edge.
  if (!profile.settings.can_climb) {
    warnings.push_back(climbable + ": can_climb is false, so the climbable labels change nothing (set can_climb = true to climb them)");
    return;
  }
  for (const std::string& glob : profile.climbable)
    if (!matchesAny(glob, mesh.labels))
      warnings.push_back((profile.climbable_source.empty() ? agent + "climbable '" + glob + "'"
                                                           : profile.climbable_source + ": '" + glob + "'") +
                         " matches no surface label of " + mesh_name + " and changes nothing");
}

void applyModifierVolumes(const AgentProfile& profile, LayeredGraph& graph, const std::string& source,
                          std::vector<std::string>* warnings) {
  if (profile.modifiers.empty()) return;
  const std::vector<uint16_t> volume_area = modifierAreas(profile, graph.area_names);
  const GridFrame& grid = graph.grid;
  std::unordered_map<std::string, std::size_t> entries_per_area;  // area rules and volumes naming each area
  for (std::size_t v = 0; v < profile.modifiers.size(); ++v) {
    const sim::Aabb& box = profile.modifiers[v].box;
    const ColumnRange columns = modifierColumns(grid, box);
    std::size_t held = 0;
    for (int32_t z = columns.z0; z <= columns.z1; ++z)
      for (int32_t x = columns.x0; x <= columns.x1; ++x)
        for (uint32_t n = graph.columnBegin(x, z); n < graph.columnEnd(x, z); ++n)
          if (modifierHolds(box, {grid.centerX(x), graph.height[n], grid.centerZ(z)})) {
            graph.area[n] = volume_area[v];
            graph.flags[n] |= kNodeModified;
            ++held;
          }
    // An audit: a volume thinner than a column that held no column centre (a wall of lava
    // 6 cm thick, cost inf) baked without a word, and routes walked through it.
    if (held == 0 && warnings != nullptr) {
      const std::string area = "(area '" + profile.modifiers[v].area + "')";
      const auto entry = profileEntryName(v < profile.modifier_sources.size() ? profile.modifier_sources[v] : std::string(),
                                          source, profile.settings.name, "modifier " + std::to_string(v) + " " + area, area);
      const std::string name = entry.name + entry.in;
      char spacing[64];
      std::snprintf(spacing, sizeof spacing, "%g", grid.cell_size);
      // Another entry of the same area may take its cost from this one (an entry without `cost`
      // takes the cost an entry before it gave the area): then the volume changes that (a
      // re-audit), and the warning says only what is sure.
      if (entries_per_area.empty()) {  // counted once, when first needed: O(entries) however many volumes warn
        for (const AreaRule& r : profile.areas) ++entries_per_area[r.area];
        for (const ModifierVolume& m : profile.modifiers) ++entries_per_area[m.area];
      }
      const bool shared = entries_per_area[profile.modifiers[v].area] > 1;
      warnings->push_back(name + (shared ? ": holds no floor node, so it marks none with its area" : ": holds no floor node and changes nothing") +
                          " (a floor counts as inside when its column's centre, at the floor's height, lies in the box; "
                          "columns are " + spacing + " m apart)");
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
