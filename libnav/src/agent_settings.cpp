// Validation and derived values of AgentSettings and the bake profile (agent.h, profile.h).

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <unordered_map>

#include "strata/nav/agent.h"

#include "strata/nav/column_builder.h"
#include "strata/nav/profile.h"

namespace strata::nav {
namespace {

// The shortest form that reads back as the same double: a refused 89.0000001 must not print as
// 89 beside the limit 89.
std::string number(double value) {
  char buffer[32];
  for (int digits = 6; digits <= 17; ++digits) {
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
    if (!std::isfinite(value) || std::strtod(buffer, nullptr) == value) break;
  }
  return buffer;
}

std::string within(const char* field, double value, double lo, double hi) {
  if (!std::isfinite(value) || value < lo || value > hi)
    return std::string(field) + ": must be within " + number(lo) + " .. " + number(hi) + " (got " + number(value) + ")";
  return {};
}

std::string checkCost(const std::string& what, double cost) {
  if (std::isnan(cost) || cost < 1.0) return what + ": cost must be >= 1 or inf (got " + number(cost) + ")";
  return {};
}

}  // namespace

bool validName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; });
}

double AgentSettings::effectiveCellSize() const {
  if (cell_size > 0) return cell_size;
  return std::clamp(radius, kMinDerivedCell, kMaxDerivedCell);
}

std::string AgentSettings::validate() const {
  if (!validName(name)) return std::string("name: ") + kNameRule + " (got '" + name + "')";
  for (const std::string& e :
       {within("radius", radius, 0.01, 10), within("height", height, 0.05, 20), within("max_slope", max_slope, 0, 89),
        within("step_height", step_height, 0, 20), within("jump_height", jump_height, 0, 20),
        within("jump_distance", jump_distance, 0, 20), within("max_drop", max_drop, 0, 100),
        within("merge_distance", merge_distance, 0, 1), within("jump_penalty", jump_penalty, 0, 1e6),
        within("drop_penalty", drop_penalty, 0, 1e6), within("climb_penalty", climb_penalty, 0, 1e6),
        within("link_snap_distance", link_snap_distance, 0.001, 1000), within("link_snap_height", link_snap_height, 0, 1000)})
    if (!e.empty()) return e;
  // The standing box runs from step_height plus the rules' 1 mm tolerance up to height: closer,
  // it had no room and every floor was rejected (an empty graph from a valid profile).
  if (!hasStandingRoom(height, step_height)) return kStepBelowHeightRule;
  if (cell_size != 0) {
    if (std::string e = within("cell_size", cell_size, 0.02, 10); !e.empty()) return e + "; 0 derives it from the radius";
  }
  return {};
}

std::string AgentProfile::validate() const {
  const std::string prefix = "agent " + settings.name + ": ";
  if (std::string e = settings.validate(); !e.empty()) return prefix + e;
  for (std::size_t i = 0; i < areas.size(); ++i) {
    const AreaRule& rule = areas[i];
    const std::string what = "areas[" + std::to_string(i) + "]";
    if (rule.label_glob.empty() == rule.tag_glob.empty()) return prefix + what + ": give exactly one of label or tag";
    if (!validName(rule.area)) return prefix + what + ": area: " + kNameRule + " (got '" + rule.area + "')";
    if (std::string e = checkCost(what, rule.cost); !e.empty()) return prefix + e;
  }
  for (std::size_t i = 0; i < modifiers.size(); ++i) {
    const ModifierVolume& m = modifiers[i];
    const std::string what = "modifiers[" + std::to_string(i) + "]";
    if (!sim::isFinite(m.box.min) || !sim::isFinite(m.box.max) || m.box.empty())
      return prefix + what + ": min must be <= max and finite";
    if (!validName(m.area)) return prefix + what + ": area: " + kNameRule + " (got '" + m.area + "')";
    if (std::string e = checkCost(what, m.cost); !e.empty()) return prefix + e;
  }
  // One cost per area name.
  // (A map: a profile may hold tens of thousands of rules naming a few areas.)
  std::unordered_map<std::string, double> seen;
  auto checkArea = [&](const std::string& area, double cost) -> std::string {
    if (area == "default" && cost != 1.0) return "area 'default' always costs 1";
    if (const auto [it, inserted] = seen.emplace(area, cost); !inserted && it->second != cost)
      return "area '" + area + "' is given two different costs";
    return {};
  };
  for (const AreaRule& rule : areas)
    if (std::string e = checkArea(rule.area, rule.cost); !e.empty()) return prefix + e;
  for (const ModifierVolume& m : modifiers)
    if (std::string e = checkArea(m.area, m.cost); !e.empty()) return prefix + e;
  if (seen.size() > 60000) return prefix + "too many areas (more than 60,000 area names)";
  for (std::size_t i = 0; i < links.size(); ++i) {
    const LinkSpec& link = links[i];
    const std::string what = "links[" + std::to_string(i) + "]";
    if (!sim::isFinite(link.from) || !sim::isFinite(link.to)) return prefix + what + ": from/to must be finite";
    if (link.label.empty()) return prefix + what + ": label must not be empty";
    if (!(link.cost < 0) && !(link.cost > 0 && std::isfinite(link.cost)))
      return prefix + what + ": cost must be positive and finite";
  }
  std::set<std::string> field_names;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const FieldSpec& field = fields[i];
    const std::string what = "fields[" + std::to_string(i) + "]";
    if (!validName(field.name)) return prefix + what + ": name: " + kNameRule + " (got '" + field.name + "')";
    if (!field_names.insert(field.name).second) return prefix + what + ": duplicate field name '" + field.name + "'";
    if (!sim::isFinite(field.origin)) return prefix + what + ": origin must be finite";
    if (!(field.max_distance > 0) || !std::isfinite(field.max_distance))
      return prefix + what + ": max_distance must be positive and finite";
  }
  return {};
}

BakeProfile BakeProfile::defaults() {
  BakeProfile profile;
  profile.agents.emplace_back();
  return profile;
}

std::string BakeProfile::validate() const {
  if (agents.empty()) return "the profile defines no agent";
  std::set<std::string> names;
  for (const AgentProfile& agent : agents) {
    if (std::string e = agent.validate(); !e.empty()) return e;
    if (!names.insert(agent.settings.name).second) return "agent " + agent.settings.name + ": defined twice";
  }
  return {};
}

namespace {

// Bytes in the UTF-8 character starting at text[i]: 1 for ASCII, 2-4 for a well-formed
// multi-byte character, 1 for a byte that starts none (labels are whatever the mesh held).
std::size_t characterLength(const std::string& text, std::size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  const std::size_t length = lead >= 0xF0 && lead <= 0xF7 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
  if (length == 1 || i + length > text.size() || lead > 0xF7) return 1;
  for (std::size_t k = 1; k < length; ++k)
    if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return 1;
  return length;
}

}  // namespace

bool globMatch(const std::string& pattern, const std::string& text) {
  // Iterative wildcard match with backtracking to the last '*'. '?' and the backtracking step
  // advance by whole UTF-8 characters (labels and tags are UTF-8): '?' matched one byte of
  // "gräss", so "gr?ss" missed it and "gr??ss" matched.
  std::size_t p = 0, t = 0, star = std::string::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '?') {
      ++p, t += characterLength(text, t);
    } else if (p < pattern.size() && pattern[p] != '*' && pattern[p] == text[t]) {
      ++p, ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++, mark = t;
    } else if (star != std::string::npos) {
      mark += characterLength(text, mark);
      p = star + 1, t = mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace strata::nav
