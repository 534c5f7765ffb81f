// strata query WORLD KIND ...: answers one spatial question about a world's geometry.
//
// Kinds are rows of kQueryKinds below: each adds its own CLI11 subcommand under `query` and
// runs against a QueryContext (the loaded world and its query index). Geometry kinds (ray,
// overlap, cast) live here; navigation kinds (nearest, height, los, ...) add rows the same way.
// Exit codes: 0 hit, 3 nothing hit (a well-formed negative answer), 2 bad input.

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "command.h"
#include "nav_json.h"
#include "query_nav.h"
#include "strata/formats/import.h"
#include "strata/formats/world_file.h"
#include "strata/sim/query_index.h"

namespace strata::cli {
namespace {

using nlohmann::ordered_json;

/// Options shared by every query kind.
struct QueryCommonOptions {
  std::string world;                     ///< world file (.h5) or a mesh file imported in memory
  bool json = false;                     ///< one JSON document instead of text
  std::vector<std::string> include_tags; ///< only hits whose tag is (under) one of these
  std::vector<std::string> exclude_tags; ///< never hits whose tag is (under) one of these
};

/// What every kind runs against.
struct QueryContext {
  std::string world_name;
  sim::TriangleMesh mesh;
  std::unique_ptr<sim::QueryIndex> index;
  sim::QueryFilter filter;
  bool json = false;
};

/// One query kind: `setup` adds the options to its subcommand and returns the runner.
struct QueryKind {
  const char* name;
  const char* description;
  std::function<std::function<int(QueryContext&)>(CLI::App& sub)> setup;
  bool geometry = true;  ///< asks the triangles (QueryContext::mesh / index); navigation kinds load their agent themselves
};

// Degrees to radians, a whole number of turns taken off first (1e308 degrees times pi
// overflows; the remainder of a turn is exact).
double radiansOfYaw(double degrees) { return std::fmod(degrees, 360.0) * M_PI / 180.0; }

std::string vecText(const sim::Vec3& v) { return sim::pointText(v); }

ordered_json featureJson(const QueryContext& ctx, uint32_t triangle, uint32_t label, uint32_t tag) {
  ordered_json j;
  j["triangle"] = triangle == sim::kNoTriangle ? ordered_json(nullptr) : ordered_json(triangle);
  j["label"] = ctx.index->labelName(label);
  j["tag"] = ctx.index->tagName(tag);
  return j;
}

std::string featureText(const QueryContext& ctx, uint32_t triangle, uint32_t label, uint32_t tag) {
  return fmt::format("triangle {}  label \"{}\"  tag \"{}\"", triangle, printable(ctx.index->labelName(label)),
                     printable(ctx.index->tagName(tag)));
}

void printJson(const ordered_json& doc) { fmt::print("{}\n", printedJson(doc, 2)); }

// ---- ray ----

// Coordinates and sizes of the geometry queries are at most 1e15 m in magnitude: the world lies
// within 1e6 m of the origin, the library clamps sizes at 1e30 m, and answers much beyond the
// world are not exact (an audit: a ray from 2e30 m missed the floor under it, a sphere of 1e31 m
// reported a depth of 1e30). Empty when every value is within; else the option's message.
constexpr double kGeometryLimit = 1e15;
std::string beyondLimit(const char* option, std::span<const double> values, const std::string& text) {
  for (const double v : values)
    if (std::fabs(v) > kGeometryLimit)
      return fmt::format("{}: coordinates and sizes beyond 1e15 m are refused (the world lies within 1e6 m of the origin), "
                         "got '{}'",
                         option, text);
  return {};
}

std::function<int(QueryContext&)> setupRay(CLI::App& sub) {
  struct Options {
    std::string from, dir;
    double max = 1e6;
    bool all = false;
    bool front_only = false;
  };
  auto opt = std::make_shared<Options>();
  sub.add_option("--from", opt->from, "ray origin X,Y,Z (metres)")->required();
  sub.add_option("--dir", opt->dir, "ray direction X,Y,Z (normalised here; must not be zero)")->required();
  sub.add_option("--max", opt->max, "longest distance searched (metres, > 0; default 1e6)")->transform(positiveNumber());
  sub.add_flag("--all", opt->all, "every hit along the ray, nearest first, instead of the closest");
  sub.add_flag("--front-only", opt->front_only, "ignore triangles seen from behind");
  return [opt](QueryContext& ctx) -> int {
    const auto from = parseVec3(opt->from);
    if (!from) return badInput("--from: expected X,Y,Z (three finite numbers), got '" + opt->from + "'" + numbersNote(opt->from));
    if (std::string e = beyondLimit("--from", std::array{from->x, from->y, from->z}, opt->from); !e.empty()) return badInput(e);
    const auto dir = parseVec3(opt->dir);
    // Scaled by its largest component before normalising: 1e-170 squared underflows to zero
    // and 1e155 squared overflows, and either is a direction.
    const double largest = dir ? std::max({std::fabs(dir->x), std::fabs(dir->y), std::fabs(dir->z)}) : 0.0;
    if (!dir || largest == 0)
      return badInput("--dir: expected a non-zero X,Y,Z direction, got '" + opt->dir + "'");
    if (!(opt->max > 0)) return badInput("--max: must be a number > 0");
    ctx.filter.back_faces = !opt->front_only;
    const sim::Vec3 unit = sim::normalize(*dir / largest);
    std::vector<sim::RayHit> hits;
    if (opt->all) {
      ctx.index->raycastAll(*from, unit, opt->max, hits, ctx.filter);
    } else if (auto hit = ctx.index->raycast(*from, unit, opt->max, ctx.filter)) {
      hits.push_back(*hit);
    }
    auto hitJson = [&](const sim::RayHit& h) {
      ordered_json j;
      j["distance"] = h.distance + 0.0;  // + 0.0: a ray starting on the surface reads 0, not -0
      j["point"] = jsonPoint(h.point);
      j["normal"] = jsonPoint(h.normal);
      j["front_face"] = h.front_face;
      j.update(featureJson(ctx, h.triangle, h.label, h.tag));
      return j;
    };
    if (ctx.json) {
      ordered_json doc;
      doc["kind"] = "ray";
      doc["hit"] = !hits.empty();
      if (opt->all) {
        doc["hits"] = ordered_json::array();
        for (const auto& h : hits) doc["hits"].push_back(hitJson(h));
      } else if (!hits.empty()) {
        doc.update(hitJson(hits.front()));
      }
      printJson(doc);
    } else if (hits.empty()) {
      fmt::print("no hit within {} m\n", opt->max);
    } else {
      for (const auto& h : hits)
        fmt::print("hit  distance {:.6g}  point {}  normal {}{}  {}\n", h.distance + 0.0, vecText(h.point), vecText(h.normal),
                   h.front_face ? "" : " (back face)", featureText(ctx, h.triangle, h.label, h.tag));
    }
    return hits.empty() ? kExitNegative : kExitOk;
  };
}

// ---- overlap ----

std::function<int(QueryContext&)> setupOverlap(CLI::App& sub) {
  struct Options {
    std::string box, sphere, capsule;
    double yaw = 0;
  };
  auto opt = std::make_shared<Options>();
  auto* box = sub.add_option("--box", opt->box, "box CX,CY,CZ,HX,HY,HZ: centre and half extents (metres)");
  auto* sphere = sub.add_option("--sphere", opt->sphere, "sphere CX,CY,CZ,R (metres)");
  auto* capsule = sub.add_option("--capsule", opt->capsule, "capsule AX,AY,AZ,BX,BY,BZ,R: segment ends and radius (metres)");
  sub.add_option("--yaw", opt->yaw, "rotate the box about Y by this many degrees (counter-clockwise from above; --box only)")
      ->transform(finiteNumber())
      ->needs(box);
  box->excludes(sphere)->excludes(capsule);
  sphere->excludes(capsule);
  return [opt](QueryContext& ctx) -> int {
    std::vector<sim::OverlapHit> hits;
    std::string shape;
    if (!opt->box.empty()) {
      const auto v = parseNumbers(opt->box, 6);
      if (!v || (*v)[3] < 0 || (*v)[4] < 0 || (*v)[5] < 0)
        return badInput("--box: expected CX,CY,CZ,HX,HY,HZ with half extents >= 0, got '" + opt->box + "'" + numbersNote(opt->box));
      if (std::string e = beyondLimit("--box", *v, opt->box); !e.empty()) return badInput(e);
      if (!std::isfinite(opt->yaw)) return badInput("--yaw: must be a finite number of degrees");
      const auto b = sim::OrientedBox::fromYaw({(*v)[0], (*v)[1], (*v)[2]}, {(*v)[3], (*v)[4], (*v)[5]},
                                               radiansOfYaw(opt->yaw));
      ctx.index->overlapOrientedBox(b, hits, ctx.filter);
      shape = "box";
    } else if (!opt->sphere.empty()) {
      const auto v = parseNumbers(opt->sphere, 4);
      if (!v || (*v)[3] < 0) return badInput("--sphere: expected CX,CY,CZ,R with R >= 0, got '" + opt->sphere + "'" + numbersNote(opt->sphere));
      if (std::string e = beyondLimit("--sphere", *v, opt->sphere); !e.empty()) return badInput(e);
      ctx.index->overlapSphere(sim::Sphere{{(*v)[0], (*v)[1], (*v)[2]}, (*v)[3]}, hits, ctx.filter);
      shape = "sphere";
    } else if (!opt->capsule.empty()) {
      const auto v = parseNumbers(opt->capsule, 7);
      if (!v || (*v)[6] < 0)
        return badInput("--capsule: expected AX,AY,AZ,BX,BY,BZ,R with R >= 0, got '" + opt->capsule + "'" + numbersNote(opt->capsule));
      if (std::string e = beyondLimit("--capsule", *v, opt->capsule); !e.empty()) return badInput(e);
      ctx.index->overlapCapsule(sim::Capsule{{(*v)[0], (*v)[1], (*v)[2]}, {(*v)[3], (*v)[4], (*v)[5]}, (*v)[6]}, hits,
                                ctx.filter);
      shape = "capsule";
    } else {
      return badInput("query overlap: give one of --box, --sphere or --capsule");
    }
    if (ctx.json) {
      ordered_json doc;
      doc["kind"] = "overlap";
      doc["shape"] = shape;
      doc["hit"] = !hits.empty();
      doc["hits"] = ordered_json::array();
      for (const auto& h : hits) {
        ordered_json j;
        j["triangle"] = h.triangle;
        j["label"] = ctx.mesh.labels[ctx.mesh.triangle_labels[h.triangle]];
        j["tag"] = ctx.mesh.tags[ctx.mesh.triangle_tags[h.triangle]];
        doc["hits"].push_back(j);
      }
      printJson(doc);
    } else if (hits.empty()) {
      fmt::print("no overlap\n");
    } else {
      fmt::print("{} triangle{} the {}\n", hits.size(), hits.size() == 1 ? " overlaps" : "s overlap", shape);
      for (const auto& h : hits) {
        const uint32_t t = h.triangle;
        fmt::print("  triangle {}  label \"{}\"  tag \"{}\"\n", t, printable(ctx.mesh.labels[ctx.mesh.triangle_labels[t]]),
                   printable(ctx.mesh.tags[ctx.mesh.triangle_tags[t]]));
      }
    }
    return hits.empty() ? kExitNegative : kExitOk;
  };
}

// ---- cast ----

std::function<int(QueryContext&)> setupCast(CLI::App& sub) {
  struct Options {
    std::string box, capsule, from, to;
    double sphere = -1;
    double yaw = 0;
  };
  auto opt = std::make_shared<Options>();
  auto* box = sub.add_option("--box", opt->box, "box of half extents HX,HY,HZ centred on the path (metres)");
  auto* sphere = sub.add_option("--sphere", opt->sphere, "sphere of radius R centred on the path (metres, >= 0)")
                     ->transform(nonNegativeNumber());
  auto* capsule = sub.add_option("--capsule", opt->capsule,
                                 "upright capsule R,H: radius and total height (H >= 2R), centred on the path (metres)");
  box->excludes(sphere)->excludes(capsule);
  sphere->excludes(capsule);
  sub.add_option("--yaw", opt->yaw, "rotate the box about Y by this many degrees (--box only)")
      ->transform(finiteNumber())
      ->needs(box);
  sub.add_option("--from", opt->from, "start centre X,Y,Z (metres)")->required();
  sub.add_option("--to", opt->to, "end centre X,Y,Z (metres); equal to --from checks the start only")->required();
  return [opt](QueryContext& ctx) -> int {
    const auto from = parseVec3(opt->from);
    if (!from) return badInput("--from: expected X,Y,Z (three finite numbers), got '" + opt->from + "'" + numbersNote(opt->from));
    if (std::string e = beyondLimit("--from", std::array{from->x, from->y, from->z}, opt->from); !e.empty()) return badInput(e);
    const auto to = parseVec3(opt->to);
    if (!to) return badInput("--to: expected X,Y,Z (three finite numbers), got '" + opt->to + "'" + numbersNote(opt->to));
    if (std::string e = beyondLimit("--to", std::array{to->x, to->y, to->z}, opt->to); !e.empty()) return badInput(e);
    const sim::Vec3 move = *to - *from;
    std::optional<sim::ShapeHit> hit;
    std::string shape;
    if (!opt->box.empty()) {
      const auto v = parseNumbers(opt->box, 3);
      if (!v || (*v)[0] < 0 || (*v)[1] < 0 || (*v)[2] < 0)
        return badInput("--box: expected HX,HY,HZ (half extents >= 0), got '" + opt->box + "'" + numbersNote(opt->box));
      if (std::string e = beyondLimit("--box", *v, opt->box); !e.empty()) return badInput(e);
      if (!std::isfinite(opt->yaw)) return badInput("--yaw: must be a finite number of degrees");
      hit = ctx.index->castOrientedBox(
          sim::OrientedBox::fromYaw(*from, {(*v)[0], (*v)[1], (*v)[2]}, radiansOfYaw(opt->yaw)), move, ctx.filter);
      shape = "box";
    } else if (opt->sphere >= 0) {  // -1: not given (the option's check refuses negatives)
      if (std::string e = beyondLimit("--sphere", std::span(&opt->sphere, 1), fmt::format("{:g}", opt->sphere)); !e.empty())
        return badInput(e);
      hit = ctx.index->castSphere(*from, opt->sphere, move, ctx.filter);
      shape = "sphere";
    } else if (!opt->capsule.empty()) {
      const auto v = parseNumbers(opt->capsule, 2);
      if (!v || (*v)[0] < 0 || (*v)[1] < 2 * (*v)[0])
        return badInput("--capsule: expected R,H with R >= 0 and H >= 2R, got '" + opt->capsule + "'" + numbersNote(opt->capsule));
      if (std::string e = beyondLimit("--capsule", *v, opt->capsule); !e.empty()) return badInput(e);
      const double half_segment = (*v)[1] / 2 - (*v)[0];
      hit = ctx.index->castCapsule(*from - sim::Vec3{0, half_segment, 0}, *from + sim::Vec3{0, half_segment, 0}, (*v)[0],
                                   move, ctx.filter);
      shape = "capsule";
    } else {
      return badInput("query cast: give one of --box, --sphere or --capsule");
    }
    if (ctx.json) {
      ordered_json doc;
      doc["kind"] = "cast";
      doc["shape"] = shape;
      doc["hit"] = hit.has_value();
      if (hit) {
        doc["time"] = hit->time;
        doc["distance"] = hit->time * sim::length(move);
        doc["center"] = jsonPoint(*from + move * hit->time);
        doc["point"] = jsonPoint(hit->point);
        doc["normal"] = jsonPoint(hit->normal);
        doc["started_penetrating"] = hit->started_penetrating;
        doc["penetration_depth"] = hit->penetration_depth;
        doc["escape"] = jsonPoint(hit->escape);
        doc.update(featureJson(ctx, hit->triangle, hit->label, hit->tag));
      }
      printJson(doc);
    } else if (!hit) {
      fmt::print("no hit: the {} moves freely from {} to {}\n", shape, vecText(*from), vecText(*to));
    } else if (hit->started_penetrating) {
      fmt::print("starts penetrating  depth {:.6g}  escape {}  normal {}  point {}  {}\n", hit->penetration_depth,
                 vecText(hit->escape), vecText(hit->normal), vecText(hit->point),
                 featureText(ctx, hit->triangle, hit->label, hit->tag));
    } else {
      fmt::print("hit  time {:.6g}  distance {:.6g}  centre {}  point {}  normal {}  {}\n", hit->time,
                 hit->time * sim::length(move), vecText(*from + move * hit->time), vecText(hit->point),
                 vecText(hit->normal), featureText(ctx, hit->triangle, hit->label, hit->tag));
    }
    return hit ? kExitOk : kExitNegative;
  };
}

/// The query kinds, in `strata query --help` order. Add a row to add a kind.
const std::vector<QueryKind>& queryKinds() {
  static const std::vector<QueryKind> kinds = [] {
    std::vector<QueryKind> k = {
        {"ray", "closest hit (or --all hits) along a ray", setupRay},
        {"overlap", "triangles overlapping a box, sphere or capsule (exact)", setupOverlap},
        {"cast", "sweep a box, sphere or capsule; first contact", setupCast},
    };
    for (const NavQueryKind& nav : navQueryKinds())  // navigation kinds: tools/query_nav.cpp
      k.push_back({nav.name, nav.description, [setup = nav.setup](CLI::App& sub) -> std::function<int(QueryContext&)> {
                     auto run = setup(sub);
                     return [run](QueryContext& ctx) { return run(ctx.world_name, ctx.json); };
                   },
                   false});
    return k;
  }();
  return kinds;
}

Result<sim::TriangleMesh> loadGeometry(const std::string& path) {
  if (isWorldFile(path)) {
    // Geometry queries: no baked graph is read.
    auto world = formats::readWorldFile(path, {formats::WorldReadOptions::Agents::ProfilesOnly, {}});
    if (!world) return world.error();
    return std::move(world.value().geometry);
  }
  auto imported = formats::importMeshes({path}, formats::ImportOptions{});
  if (!imported) return imported.error();
  return std::move(imported.value().mesh);
}

// A query kind's usage line names the world and the query's own options before the kind
// ("strata query [OPTIONS] WORLD nearest [OPTIONS]"): CLI11 prints the kind's path alone, which
// reads as if the world were not needed (an audit).
class QueryKindFormatter : public CLI::Formatter {
 public:
  std::string make_usage(const CLI::App* app, std::string name) const override {
    const std::string kind = " " + app->get_name();
    if (name.size() > kind.size() && name.compare(name.size() - kind.size(), kind.size(), kind) == 0)
      name.insert(name.size() - kind.size(), " [OPTIONS] WORLD");
    return CLI::Formatter::make_usage(app, name);
  }
};

std::function<int()> setupQuery(CLI::App& app) {
  auto* query = app.add_subcommand("query",
                                    "Ask a world questions: geometry (ray, overlap, cast) and navigation (nearest, height, los, "
                                    "sight, field, component, clearance). Exit codes: 0 a positive answer; 1 runtime failure; 2 bad usage or "
                                    "bad input (one line naming the option or file); 3 the answer is a miss or a no.");
  auto common = std::make_shared<QueryCommonOptions>();
  query->add_option("WORLD", common->world, "world file (.h5), or a mesh file imported in memory")->required()->check(fileName());
  query->add_flag("--json", common->json, "print one JSON document");
  const CLI::Validator non_empty([](std::string& tag) { return tag.empty() ? std::string("a tag cannot be empty") : std::string(); },
                                 "TAG", "tag");
  query->add_option("--tag", common->include_tags, "ray, overlap, cast: only hits whose tag is this tag or under it (repeatable)")
      ->check(non_empty);
  query->add_option("--exclude-tag", common->exclude_tags, "ray, overlap, cast: never hits whose tag is this tag or under it (repeatable)")
      ->check(non_empty);
  query->require_subcommand(1);
  query->fallthrough();
  query->footer("A kind's own options: strata query WORLD KIND --help (WORLD is not read for help). The options above go "
                "before or after the kind.");
  struct Runner {
    CLI::App* sub;
    std::function<int(QueryContext&)> run;
    bool geometry;
  };
  auto runners = std::make_shared<std::vector<Runner>>();
  for (const QueryKind& kind : queryKinds()) {
    auto* sub = query->add_subcommand(kind.name, kind.description);
    sub->formatter(std::make_shared<QueryKindFormatter>());
    sub->footer(kind.geometry ? "Also (strata query --help): --json prints one JSON document; --tag / --exclude-tag TAG keep "
                                "only hits under a tag / drop them (repeatable)."
                              : "Also (strata query --help): --json prints one JSON document.");
    runners->push_back({sub, kind.setup(*sub), kind.geometry});
  }
  return [common, runners]() -> int {
    QueryContext ctx;
    ctx.world_name = common->world;
    ctx.json = common->json;
    // Navigation kinds read the world (or bake the mesh) themselves: reading it here as well
    // would load a large world twice.
    for (const Runner& r : *runners)
      if (r.sub->parsed() && !r.geometry) {
        if (!common->include_tags.empty() || !common->exclude_tags.empty())
          return badInput(common->world + ": --tag and --exclude-tag apply to ray, overlap and cast, not to " +
                          r.sub->get_name());
        return r.run(ctx);
      }
    auto mesh = loadGeometry(common->world);
    if (!mesh) return reportError(mesh.error());
    ctx.mesh = std::move(mesh.value());
    ctx.index = std::make_unique<sim::QueryIndex>(ctx.mesh);
    for (const std::string& tag : common->include_tags) {
      const uint32_t id = ctx.index->findTag(tag);
      // An unknown tag matches nothing; keep it as an impossible id so the filter stays strict,
      // and say so: a misspelt tag would otherwise read as "no hit".
      if (id == sim::kInvalidId) warn(common->world + ": --tag " + tag + ": no such tag (it matches nothing)");
      ctx.filter.include_tags.push_back(id == sim::kInvalidId ? sim::kInvalidId - 1 : id);
    }
    for (const std::string& tag : common->exclude_tags) {
      const uint32_t id = ctx.index->findTag(tag);
      if (id != sim::kInvalidId) ctx.filter.exclude_tags.push_back(id);
      else warn(common->world + ": --exclude-tag " + tag + ": no such tag (it excludes nothing)");
    }
    for (const Runner& r : *runners)
      if (r.sub->parsed()) return r.run(ctx);
    return badInput("query: give a kind (ray, overlap, cast, nearest, height, los, sight, field, component, clearance)");
  };
}

}  // namespace

STRATA_COMMAND(query, 40, setupQuery)

}  // namespace strata::cli
