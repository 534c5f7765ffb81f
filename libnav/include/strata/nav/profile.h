#pragma once
/// \file
/// A bake profile: the agent types to bake and, per agent, its areas, modifier volumes, custom
/// links and route-distance fields. Parsed from TOML by strata::formats::loadProfile
/// (strata/formats/profile.h); documented in docs/parameters.md.

#include <string>
#include <vector>

#include "strata/nav/agent.h"
#include "strata/sim/math.h"

namespace strata::nav {

/// Agent, area and field names: 1-64 characters of [A-Za-z0-9_-] (kNameRule says so in messages).
bool validName(const std::string& name);
inline constexpr const char* kNameRule = "must be 1-64 characters of [A-Za-z0-9_-]";

/// Maps surfaces to an area by label or tag glob ('*' any run, '?' one character).
struct AreaRule {
  std::string label_glob;   ///< matches the triangle's surface label; empty = not used
  std::string tag_glob;     ///< matches the triangle's tag; empty = not used
  std::string area;         ///< area name
  double cost = 1.0;        ///< cost multiplier of the area; +inf removes every edge into it. [Limit: >= 1 or inf]
};

/// A box that overrides the area of every node whose position lies inside it.
struct ModifierVolume {
  sim::Aabb box;            ///< world box, metres
  std::string area;         ///< area name
  double cost = 1.0;        ///< cost multiplier ([Limit: >= 1 or inf])
};

/// A custom off-mesh link; endpoints snap to the nearest floor nodes (within the agent's
/// link_snap_distance across and link_snap_height up or down; the floor under the point first).
struct LinkSpec {
  sim::Vec3 from;           ///< start point, metres
  sim::Vec3 to;             ///< end point, metres
  std::string label;        ///< label kept on the edge (e.g. "ladder", "teleport")
  double cost = -1;         ///< traversal cost; < 0 = the straight-line distance
  bool bidirectional = false; ///< also from `to` to `from`
  std::string source;       ///< where it was written ("P.toml:12:1: agent.a.links[0]"), for messages; empty = unknown. Not stored.
};

/// A named route-distance field (the spec's distanceField).
struct FieldSpec {
  std::string name;         ///< field name, unique per agent
  sim::Vec3 origin;         ///< flood origin, metres (snaps to the nearest node)
  double max_distance = 100;///< flood limit (metres-equivalent). [Limit: > 0]
  std::string source;       ///< where it was written ("P.toml:12:1: agent.a.fields[0]"), for messages; empty = unknown. Not stored.
};

/// Everything baked for one agent type.
struct AgentProfile {
  AgentSettings settings;                 ///< size and movement limits
  std::vector<AreaRule> areas;            ///< first matching rule wins (label rules and tag rules alike)
  std::vector<std::string> climbable;     ///< label globs of climbable surfaces
  std::vector<ModifierVolume> modifiers;  ///< later volumes win where they overlap
  std::vector<LinkSpec> links;            ///< custom links
  std::vector<FieldSpec> fields;          ///< route-distance fields
  /// Where each area rule, each modifier volume and `climbable` were written ("P.toml:12:1:
  /// agent.a.areas[0]"), for the bake's warnings; set by the profile parser, empty (or shorter
  /// than the rules) when unknown. Not stored.
  std::vector<std::string> area_sources, modifier_sources;
  std::string climbable_source;

  /// Empty string when valid, else "agent NAME: <field>: <problem>".
  std::string validate() const;
};

/// A whole profile: one or more agents, baked in this order.
struct BakeProfile {
  std::vector<AgentProfile> agents;       ///< unique names

  /// The profile used without --profile: one agent "default" with AgentSettings' defaults.
  static BakeProfile defaults();
  /// Empty string when valid (each agent valid, names unique), else the problem.
  std::string validate() const;
};

/// Glob match: '*' matches any run (including empty), '?' one character (a whole UTF-8 character:
/// labels and tags are UTF-8; a byte that starts none counts as one); case-sensitive, byte for byte.
bool globMatch(const std::string& pattern, const std::string& text);

}  // namespace strata::nav
