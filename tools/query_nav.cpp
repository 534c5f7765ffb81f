// strata query WORLD nearest|height|los|sight|field|component|clearance: navigation queries on
// the baked layered graph of one agent (libnav/nav_queries.h). Exit codes: 0 a positive answer,
// 3 a negative one (no walkable point, line blocked, unreachable, no floor), 2 bad input.

#include "query_nav.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <tuple>

#include "baked_input.h"
#include "command.h"
#include "nav_json.h"
#include "strata/nav/nav_queries.h"

namespace strata::cli {
namespace {

using Json = nlohmann::ordered_json;

Json number(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }  // JSON has no infinity

/// Options every navigation kind takes.
struct NavCommon {
  std::string agent;    ///< agent name; empty = the first
  std::string profile;  ///< bake profile for a mesh input
};

void addCommon(CLI::App& sub, NavCommon& common) {
  sub.add_option("--agent", common.agent, "agent name (default: the first agent of the world; only its graph is read)")
      ->check(agentName());
  sub.add_option("--profile", common.profile, "bake profile (.toml) when WORLD is a mesh baked in memory")->check(fileName());
}

// Parses a required "x,y,z" option; nullopt after reporting the error.
std::optional<sim::Vec3> vec(QueryIO& io, const std::string& flag, const std::string& text) {
  auto v = parseVec3(text);
  if (!v) io.bad(flag + ": expected X,Y,Z (three finite numbers), got '" + text + "'" + numbersNote(text));
  return v;
}

Json layerJson(const nav::LayeredGraph& g, const nav::FloorLayer& l) {
  return {{"node", l.node},       {"height", l.height},       {"headroom", number(l.headroom)},
          {"clearance", l.clearance}, {"area", areaName(g, l.area)}, {"component", l.component}};
}

auto setupNearest(CLI::App& sub) {
  auto common = std::make_shared<NavCommon>();
  auto at = std::make_shared<std::string>();
  auto radius = std::make_shared<double>(8 * 0.3);
  addCommon(sub, *common);
  sub.add_option("--at", *at, "the point (metres)")->type_name("X,Y,Z")->required();
  sub.add_option("--radius", *radius, "search radius, metres, measured from the point itself (rings of columns out to it)")->default_str("2.4")->transform(nonNegativeNumber());
  return [=](QueryIO& io, const std::string& /*world*/, bool json) -> int {
    const auto p = vec(io, "--at", *at);
    if (!p) return kExitBadInput;
    auto agent = io.agent(common->agent, common->profile, false);
    if (!agent) return io.fail(agent.error());
    const QueryAgent& loaded = **agent;
    nav::SnapSettings snap;
    snap.max_horizontal = *radius;
    const auto hit = nav::nearestWalkable(loaded.graph(), *p, snap);
    if (json) {
      Json doc{{"kind", "nearest"}, {"agent", loaded.settings().name}, {"found", hit.has_value()}};
      if (hit) doc["position"] = jsonPoint(hit->position), doc["node"] = hit->node, doc["distance"] = hit->horizontal_distance;
      io.json(doc, -1);
    } else if (hit) {
      // (Millimetres up to a million kilometres; beyond, six digits: a point 1e300 m away printed
      // a 300-digit distance.)
      const double d = hit->horizontal_distance;
      io.text(fmt::format("nearest: ({:.3f}, {:.3f}, {:.3f})  node {}  {} m away\n", shown(hit->position.x), shown(hit->position.y),
                 shown(hit->position.z), hit->node, d < 1e9 ? fmt::format("{:.3f}", d) : fmt::format("{:.6g}", d)));
    } else {
      io.text(fmt::format("nearest: no walkable floor within {} m\n", *radius));
      // A point takes the floor below it (or up to snap.above over it): where a floor lies higher
      // within the radius, say so (a fresh-user audit took the miss for a hole in the bake: the
      // floor was 5 m over the point).
      nav::SnapSettings upward = snap;
      upward.above = std::numeric_limits<double>::infinity();
      if (const auto up = nav::nearestWalkable(loaded.graph(), *p, upward); up && up->position.y > p->y)
        io.text(fmt::format("(a floor lies {:.3f} m over the point, at ({:.3f}, {:.3f}, {:.3f}): a point takes the floor below it, or one "
                   "at most {:g} m over it)\n",
                   up->position.y - p->y, shown(up->position.x), shown(up->position.y), shown(up->position.z), snap.above));
    }
    return hit ? kExitOk : kExitNegative;
  };
}

auto setupHeight(CLI::App& sub) {
  auto common = std::make_shared<NavCommon>();
  auto at = std::make_shared<std::string>();
  addCommon(sub, *common);
  sub.add_option("--at", *at, "the column (metres; X,Y,Z also accepted, Y ignored)")->type_name("X,Z")->required();
  return [=](QueryIO& io, const std::string& /*world*/, bool json) -> int {
    auto xz = parseNumbers(*at, 2);
    if (!xz) {
      const auto xyz = parseVec3(*at);
      if (!xyz) return io.bad("--at: expected X,Z or X,Y,Z (finite numbers), got '" + *at + "'" + numbersNote(*at));
      xz = std::vector<double>{xyz->x, xyz->z};
    }
    auto agent = io.agent(common->agent, common->profile, false);
    if (!agent) return io.fail(agent.error());
    const QueryAgent& loaded = **agent;
    const auto layers = nav::floorsAt(loaded.graph(), (*xz)[0], (*xz)[1]);
    if (json) {
      Json list = Json::array();
      for (const auto& l : layers) list.push_back(layerJson(loaded.graph(), l));
      io.json(Json{{"kind", "height"}, {"agent", loaded.settings().name}, {"layers", list}}, -1);
    } else {
      io.text(fmt::format("floors at ({}, {}): {}\n", (*xz)[0], (*xz)[1], layers.size()));
      for (const auto& l : layers)
        io.text(fmt::format("  height {:8.3f}  headroom {:>8}  clearance {:.3f}  area {}  component {}\n", shown(l.height),
                   std::isfinite(l.headroom) ? fmt::format("{:.3f}", l.headroom) : std::string("open"), l.clearance,
                   areaName(loaded.graph(), l.area), l.component));
    }
    return layers.empty() ? kExitNegative : kExitOk;
  };
}

const char* stopName(nav::LineStop::Why why) {
  using W = nav::LineStop::Why;
  switch (why) {
    case W::Clear: return "Clear";
    case W::NoStartNode: return "NoStartNode";
    case W::NoGoalNode: return "NoGoalNode";
    case W::NoRoom: return "NoRoom";
    case W::NoFloor: return "NoFloor";
    case W::Step: return "Step";
    case W::OnlyAction: return "OnlyAction";
    case W::NoWalkEdge: return "NoWalkEdge";
    case W::OtherFloor: return "OtherFloor";
    case W::EyesCovered: return "EyesCovered";
    case W::GroundRises: return "GroundRises";
    case W::Ceiling: return "Ceiling";
    case W::Surface: return "Surface";
  }
  return "Unknown";
}

// Why a line is blocked, as a clause after "blocked ...: " (an audit: `los: blocked` alone left a
// user to guess where along 40 m, and at what).
std::string stopWhy(const nav::LineStop& stop, const nav::AgentSettings& agent, const sim::QueryIndex* index, double eye) {
  using W = nav::LineStop::Why;
  const std::string column = fmt::format("({:.3f}, {:.3f})", shown(stop.x), shown(stop.z));
  const auto updown = [](double rise) {
    return std::fabs(rise) < 0.0005 ? std::string("at the same height") : fmt::format("{:.3f} m {}", std::fabs(rise), rise > 0 ? "higher" : "lower");
  };
  switch (stop.why) {
    case W::NoRoom:
      return fmt::format("the line passes off the centre of the column at {} on a side with no room for the agent's radius "
                         "({:g} m; a wall or an edge beside the line)",
                         column, agent.radius);
    case W::NoFloor:
      return fmt::format("nothing to stand on in the next column, at {} (a wall, a hole, or a floor with no room for the agent)", column);
    case W::Step:
      return fmt::format("the next column's nearest floor, at {}, is {} (more than the agent's step height, {:g} m)", column,
                         updown(stop.rise), agent.step_height);
    case W::OnlyAction:
      return fmt::format("only a {} leads on towards {}, to a floor {}: a walking line takes walking steps only",
                         nav::edgeKindName(stop.edge), column, updown(stop.rise));
    case W::NoWalkEdge:
      return fmt::format("no walking step onto the floor at {}, {} (a wall thinner than a column, a corner a diagonal would "
                         "cut, or an area that cannot be entered)",
                         column, updown(stop.rise));
    case W::OtherFloor:
      return fmt::format("the line reaches the column of --to on another floor, {} than the floor --to snapped to", updown(stop.rise));
    case W::EyesCovered:
      return fmt::format("the eyes at {}, {:g} m over the floor, are above its ceiling (headroom {:.3f} m)",
                         stop.at_start ? "--from" : "--to", eye, stop.rise);
    case W::GroundRises:
      return fmt::format("the lowest floor of the column at {} lies {:.3f} m over the line (rising ground, or a block whose top is "
                         "a floor)",
                         column, stop.rise);
    case W::Ceiling: return fmt::format("the line passes over the ceiling of the floor below it at {}", column);
    case W::Surface: {
      std::string label;
      if (index != nullptr && stop.label != sim::kInvalidId) label = fmt::format(" (label \"{}\")", printable(index->labelName(stop.label)));
      return "a surface crosses the line between the eyes" + label;
    }
    case W::Clear:
    case W::NoStartNode:
    case W::NoGoalNode: break;
  }
  return "";
}

// los and sight share their shape: two points, a yes/no answer.
auto setupLine(CLI::App& sub, bool eyes) {
  auto common = std::make_shared<NavCommon>();
  auto from = std::make_shared<std::string>(), to = std::make_shared<std::string>();
  auto eye = std::make_shared<double>(nav::SightSettings{}.eye_height);
  addCommon(sub, *common);
  sub.add_option("--from", *from, "first point (snaps to the floor below it)")->type_name("X,Y,Z")->required();
  sub.add_option("--to", *to, "second point (snaps to the floor below it)")->type_name("X,Y,Z")->required();
  CLI::Option* eye_option = nullptr;
  if (eyes)
    eye_option = sub.add_option("--eye", *eye, "eye height above each floor, metres (default: 1.6, or 0.9 x the agent's height when that is lower)")
                     ->default_str("1.6")
                     ->transform(positiveNumber());
  return [=](QueryIO& io, const std::string& /*world*/, bool json) -> int {
    const auto a = vec(io, "--from", *from);
    if (!a) return kExitBadInput;
    const auto b = vec(io, "--to", *to);
    if (!b) return kExitBadInput;
    nav::SightSettings sight;
    sight.eye_height = *eye;
    if (Status s = sight.validate(); !s) return io.bad("--eye: must be a finite number > 0");
    auto agent = io.agent(common->agent, common->profile, eyes);
    if (!agent) return io.fail(agent.error());
    const QueryAgent& loaded = **agent;
    // Without --eye, the eyes of an agent shorter than 1.78 m sit lower than 1.6 m (an audit: a
    // 1.0 m agent under a 1.2 m slab, whose route is clear, was blocked by its own ceiling: its
    // eyes were 0.4 m over it).
    if (eyes && eye_option->count() == 0) sight.eye_height = std::min(sight.eye_height, 0.9 * loaded.settings().height);
    const nav::SnapSettings snap;
    const char* kind = eyes ? "sight" : "los";
    // An end with no floor to stand on is said as such, not as a blocked line.
    for (const auto& [point, option, reason] : {std::tuple{*a, "--from", "NoStartNode"}, std::tuple{*b, "--to", "NoGoalNode"}}) {
      if (nav::snapToNode(loaded.graph(), point, snap) != nav::kNoNode) continue;
      if (json)
        io.json(Json{{"kind", kind}, {"agent", loaded.settings().name}, {"clear", false}, {"reason", reason}}, -1);
      else
        io.text(fmt::format("{}: no floor below {} ({})\n", kind, option, reason));
      return kExitNegative;
    }
    const sim::QueryIndex* index = nullptr;
    nav::LineStop stop;
    if (eyes) {
      auto walls = io.geometry();  // the real walls between the eyes
      if (!walls) return io.fail(walls.error());
      index = *walls;
      stop = nav::sightStop(loaded.graph(), *a, *b, snap, sight, index);
    } else {
      stop = nav::lineStop(loaded.view(), *a, *b, snap);
    }
    const bool clear = stop.clear();
    const std::string why = clear ? std::string() : stopWhy(stop, loaded.settings(), index, sight.eye_height);
    if (json) {
      Json doc{{"kind", kind}, {"agent", loaded.settings().name}, {"clear", clear}};
      if (!clear) {
        doc["reason"] = stopName(stop.why);
        doc["at"] = jsonPoint(stop.point);
        doc["distance"] = stop.distance;
        doc["why"] = why;
      }
      io.json(doc, -1);
    } else if (clear) {
      io.text(fmt::format("{}: clear\n", kind));
    } else {
      io.text(fmt::format("{}: blocked {:.3f} m along the line, at ({:.3f}, {:.3f}, {:.3f}): {}\n", kind, stop.distance, shown(stop.point.x),
                 shown(stop.point.y), shown(stop.point.z), why));
    }
    return clear ? kExitOk : kExitNegative;
  };
}

auto setupField(CLI::App& sub) {
  auto common = std::make_shared<NavCommon>();
  auto at = std::make_shared<std::string>(), name = std::make_shared<std::string>(), origin = std::make_shared<std::string>();
  auto max = std::make_shared<double>(1000.0);
  addCommon(sub, *common);
  sub.add_option("--at", *at, "the point whose route distance is asked")->type_name("X,Y,Z")->required();
  sub.add_option("--name", *name, "a baked route-distance field of the profile");
  sub.add_option("--origin", *origin, "flood a field on demand from this point instead (Dijkstra)")->type_name("X,Y,Z");
  sub.add_option("--max", *max, "flood limit for --origin (metres-equivalent; only with --origin)")
      ->default_str("1000")
      ->transform(positiveNumber());
  CLI::App* self = &sub;
  return [=](QueryIO& io, const std::string& world, bool json) -> int {
    const auto p = vec(io, "--at", *at);
    if (!p) return kExitBadInput;
    if (self->count("--name") > 0 && name->empty()) return io.bad("--name: a field name cannot be empty");
    if (self->count("--origin") > 0 && origin->empty()) return io.bad("--origin: expected X,Y,Z (three finite numbers), got ''");
    if (name->empty() == origin->empty()) return io.bad("field: give either --name NAME or --origin X,Y,Z");
    if (!name->empty() && self->count("--max") > 0) return io.bad("--max applies to --origin only (a baked field has its own)");
    auto agent = io.agent(common->agent, common->profile, false);
    if (!agent) return io.fail(agent.error());
    const QueryAgent& loaded = **agent;
    const nav::SnapSettings snap;
    double value, limit;
    uint32_t from_node = nav::kNoNode, to_node = nav::kNoNode;  // the field's origin and the point's floor
    if (!name->empty()) {
      auto v = nav::fieldValueAt(loaded.graph(), *name, *p, snap);
      // Name the option at fault: the field's name (no such field) or the point (no floor near it).
      // (Naming the agent, whose fields they are: another agent of the world may have it.)
      if (!v)
        return io.bad(world + (loaded.graph().findField(*name) < 0 ? ": agent " + loaded.settings().name + ": --name: " : ": --at: ") +
                        v.error().message);
      value = *v;
      const nav::RouteField& field = loaded.graph().fields[static_cast<std::size_t>(loaded.graph().findField(*name))];
      from_node = field.origin_node;
      limit = field.max_distance;
      // The point's floor again (fieldValueAt snapped it), only where there is no value.
      if (!std::isfinite(value))
        if (const auto target = nav::nearestWalkable(loaded.graph(), *p, snap)) to_node = target->node;
    } else {
      const auto o = vec(io, "--origin", *origin);
      if (!o) return kExitBadInput;
      const auto start = nav::nearestWalkable(loaded.graph(), *o, snap);
      if (!start) return io.bad(world + ": --origin: no walkable floor near the point");
      const auto target = nav::nearestWalkable(loaded.graph(), *p, snap);
      if (!target) return io.bad(world + ": --at: no walkable floor near the point");
      value = nav::fieldDistanceBetween(loaded.view(), start->node, target->node, *max);
      from_node = start->node;
      to_node = target->node;
      limit = *max;
    }
    const bool within = std::isfinite(value);
    // Beyond the limit is not out of reach (an audit: a point 10.5 away from the origin of a
    // field limited to 10 read "unreachable" where `query component` said reachable): the bake's
    // regions tell the two apart exactly.
    const bool reachable = within || (from_node != nav::kNoNode && to_node != nav::kNoNode &&
                                      loaded.graph().canReach(from_node, to_node));
    if (json)
      io.json(Json{{"kind", "field"}, {"agent", loaded.settings().name}, {"reachable", reachable},
                              {"beyond_limit", reachable && !within}, {"distance", number(value)}}, -1);
    else if (within) io.text(fmt::format("field: {:.3f}\n", value));
    else if (reachable) io.text(fmt::format("field: beyond the limit of {:g} (reachable, farther)\n", limit));
    else io.text(fmt::format("field: unreachable\n"));
    return within ? kExitOk : kExitNegative;
  };
}

auto setupComponent(CLI::App& sub) {
  auto common = std::make_shared<NavCommon>();
  auto at = std::make_shared<std::string>(), to = std::make_shared<std::string>();
  addCommon(sub, *common);
  sub.add_option("--at", *at, "the point")->type_name("X,Y,Z")->required();
  sub.add_option("--to", *to, "a second point: can a route reach it from --at? (exact: the bake's regions)")->type_name("X,Y,Z");
  CLI::App* self = &sub;
  return [=](QueryIO& io, const std::string& /*world*/, bool json) -> int {
    const auto a = vec(io, "--at", *at);
    if (!a) return kExitBadInput;
    std::optional<sim::Vec3> b;
    // Given counts, even empty: `--to ''` is a malformed point, not a missing option.
    if (self->count("--to") > 0 && !(b = vec(io, "--to", *to))) return kExitBadInput;
    auto agent = io.agent(common->agent, common->profile, false);
    if (!agent) return io.fail(agent.error());
    const QueryAgent& loaded = **agent;
    const nav::SnapSettings snap;
    const auto ha = nav::nearestWalkable(loaded.graph(), *a, snap);
    std::optional<nav::FloorHit> hb;
    if (b) hb = nav::nearestWalkable(loaded.graph(), *b, snap);
    bool positive = ha.has_value() && (!b || hb.has_value());
    // A loaded agent is baked (world file or mesh baked here), so its regions are exact.
    if (positive && b) positive = loaded.graph().canReach(ha->node, hb->node);
    if (json) {
      Json doc{{"kind", "component"}, {"agent", loaded.settings().name}};
      doc["component"] = ha ? Json(loaded.graph().component[ha->node]) : Json(nullptr);
      if (b) doc["to_component"] = hb ? Json(loaded.graph().component[hb->node]) : Json(nullptr), doc["reachable"] = positive;
      io.json(doc, -1);
    } else {
      io.text(fmt::format("component: {}\n", ha ? std::to_string(loaded.graph().component[ha->node]) : std::string("no floor")));
      if (b) io.text(fmt::format("reachable: {}\n", positive ? "yes" : "no"));
    }
    return positive ? kExitOk : kExitNegative;
  };
}

auto setupClearance(CLI::App& sub) {
  auto common = std::make_shared<NavCommon>();
  auto at = std::make_shared<std::string>();
  addCommon(sub, *common);
  sub.add_option("--at", *at, "the point (the floor below it)")->type_name("X,Y,Z")->required();
  return [=](QueryIO& io, const std::string& /*world*/, bool json) -> int {
    const auto p = vec(io, "--at", *at);
    if (!p) return kExitBadInput;
    auto agent = io.agent(common->agent, common->profile, false);
    if (!agent) return io.fail(agent.error());
    const QueryAgent& loaded = **agent;
    const auto layer = nav::clearanceAt(loaded.graph(), *p, nav::SnapSettings{});
    if (json) {
      Json doc{{"kind", "clearance"}, {"agent", loaded.settings().name}, {"found", layer.has_value()}};
      if (layer) doc["floor"] = layerJson(loaded.graph(), *layer);
      io.json(doc, -1);
    } else if (layer) {
      io.text(fmt::format("clearance: {:.3f} m  headroom: {}  floor height {:.3f}\n", layer->clearance,
                 std::isfinite(layer->headroom) ? fmt::format("{:.3f} m", layer->headroom) : std::string("open"), shown(layer->height)));
    } else {
      io.text(fmt::format("clearance: no walkable floor near the point\n"));
    }
    return layer ? kExitOk : kExitNegative;
  };
}

}  // namespace

const std::vector<NavQueryKind>& navQueryKinds() {
  static const std::vector<NavQueryKind> kinds = {
      {"nearest", "nearest walkable floor (ring search; the floor below the point)", [](CLI::App& s) { return std::function<int(QueryIO&, const std::string&, bool)>(setupNearest(s)); }},
      {"height", "ground heights of every floor layer at X,Z", [](CLI::App& s) { return std::function<int(QueryIO&, const std::string&, bool)>(setupHeight(s)); }},
      {"los", "can the agent walk straight from --from to --to (feet); if not, where and why", [](CLI::App& s) { return std::function<int(QueryIO&, const std::string&, bool)>(setupLine(s, false)); }},
      {"sight", "can the agent see --to from --from (eyes: pits never block); if not, where and why", [](CLI::App& s) { return std::function<int(QueryIO&, const std::string&, bool)>(setupLine(s, true)); }},
      {"field", "route distance at a point: a baked field (--name) or a flood on demand (--origin)", [](CLI::App& s) { return std::function<int(QueryIO&, const std::string&, bool)>(setupField(s)); }},
      {"component", "connected component at a point; with --to, whether it can be reached", [](CLI::App& s) { return std::function<int(QueryIO&, const std::string&, bool)>(setupComponent(s)); }},
      {"clearance", "clearance and headroom of the floor below a point", [](CLI::App& s) { return std::function<int(QueryIO&, const std::string&, bool)>(setupClearance(s)); }},
  };
  return kinds;
}

}  // namespace strata::cli
