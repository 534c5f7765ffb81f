#pragma once
/// \file
/// The movement assumptions of one agent type: its size and what it can step, jump, drop and
/// climb. Spec: character-movement-and-navigation.md ("Surface columns", "Search edges") and
/// grid-pathfinding-library.md ("Heights, cliffs and step limits"). Every field, its default and
/// the spec's value (studs converted at 1 stud = 0.28 m where that suits a human) are listed in
/// docs/parameters.md, section "Bake".

#include <string>

namespace strata::nav {

/// One agent type's settings. Units: metres, seconds; the slope is in degrees (user-facing).
struct AgentSettings {
  std::string name = "default";     ///< agent name ([agent.NAME] in the profile); [A-Za-z0-9_-]+
  double radius = 0.3;              ///< horizontal half-width of the standing box, m. [Limit: 0.01 .. 10]
  double height = 1.8;              ///< standing height, m. [Limit: > step_height + 1 mm, <= 20]
  double max_slope = 45.0;          ///< steepest walkable floor, degrees. [Limit: 0 .. 89]
  double step_height = 0.4;         ///< largest walkable rise/fall between adjacent columns, m. [Limit: 0 .. height - 1 mm)
  bool can_jump = true;             ///< jump edges (up ledges, across gaps) are allowed
  double jump_height = 1.0;         ///< largest rise of a jump edge, m. [Limit: 0 .. 20]
  double jump_distance = 2.5;       ///< longest horizontal jump (gap crossing), m. [Limit: 0 .. 20]
  double max_drop = 2.0;            ///< largest fall of a drop edge or a jump's landing, m. [Limit: 0 .. 100]
  bool can_climb = false;           ///< climb edges along surfaces labelled climbable
  double cell_size = 0;             ///< column width, m; 0 = derived: radius clamped to 0.14 .. 1.12 (0.5 .. 4 studs). [Limit: 0 or 0.02 .. 10]
  double merge_distance = 0.056;    ///< surfaces closer than this in one column merge into one floor, m (spec 0.2 studs). [Limit: 0 .. 1]
  double jump_penalty = 1.0;        ///< added to the cost of every jump edge (metres-equivalent). [Limit: >= 0]
  double drop_penalty = 0.5;        ///< added to the cost of every drop edge. [Limit: >= 0]
  double climb_penalty = 1.0;       ///< added to the cost of every climb edge. [Limit: >= 0]
  double link_snap_distance = 2.0;  ///< furthest horizontal snap of a link/field endpoint to a floor node, m. [Limit: > 0]
  double link_snap_height = 2.0;    ///< furthest vertical snap of a link/field endpoint to a floor node (above or below), m. [Limit: >= 0]

  /// The cell size actually used: `cell_size` when set, else the radius clamped to
  /// [kMinDerivedCell, kMaxDerivedCell].
  double effectiveCellSize() const;
  /// Empty string when valid, else "<field>: <problem>" (e.g. "radius: must be within 0.01 .. 10").
  /// Each field's own range is checked before the rule between height and step_height
  /// (kStepBelowHeightRule), so a height out of range is named as such.
  std::string validate() const;
  /// validate()'s message when height and step_height are each in range but too close.
  static constexpr const char* kStepBelowHeightRule = "step_height: must be more than 1 mm below height";

  static constexpr double kMinDerivedCell = 0.14;  ///< 0.5 studs
  static constexpr double kMaxDerivedCell = 1.12;  ///< 4 studs
};

}  // namespace strata::nav
