// strata query WORLD KIND ...: answers one question about a world (its geometry, or an agent's
// baked graph); strata query WORLD --batch REQUESTS.jsonl answers many, of any kinds.
//
// Kinds are rows of queryKinds() below: each adds its own CLI11 subcommand under `query` and
// runs against a QueryContext (the loaded world and its query index), answering through its
// QueryIO (query_nav.h). Geometry kinds (ray, overlap, cast) live here; navigation kinds
// (nearest, height, los, ...) add rows the same way. A batch request is parsed by its kind's own
// subcommand, built afresh for it, and answered through a QueryIO that keeps its answer.
// Exit codes: 0 hit, 3 nothing hit (a well-formed negative answer), 2 bad input.

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>


#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "baked_input.h"
#include "batch_input.h"
#include "command.h"
#include "nav_json.h"
#include "query_nav.h"
#include "strata/formats/import.h"
#include "strata/formats/output_file.h"
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
  std::string agent;                     ///< navigation kinds: the agent when the kind (or request) names none
  std::string profile;                   ///< navigation kinds: the bake profile of a mesh when the kind (or request) gives none
};

/// A world's triangles, indexed, and the tag filter of --tag / --exclude-tag.
struct QueryGeometry {
  std::shared_ptr<const sim::TriangleMesh> mesh;
  std::shared_ptr<const sim::QueryIndex> index;
  sim::QueryFilter filter;
};

/// What every kind runs against.
struct QueryContext {
  std::string world_name;
  QueryGeometry geometry;  ///< geometry kinds: the triangles, their index and the tag filter
  bool json = false;
  QueryIO* io = nullptr;  ///< where the answer goes; the world's agents
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
  j["label"] = ctx.geometry.index->labelName(label);
  j["tag"] = ctx.geometry.index->tagName(tag);
  return j;
}

std::string featureText(const QueryContext& ctx, uint32_t triangle, uint32_t label, uint32_t tag) {
  return fmt::format("triangle {}  label \"{}\"  tag \"{}\"", triangle, printable(ctx.geometry.index->labelName(label)),
                     printable(ctx.geometry.index->tagName(tag)));
}

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
  sub.add_option("--from", opt->from, "ray origin (metres)")->type_name("X,Y,Z")->required();
  sub.add_option("--dir", opt->dir, "ray direction (normalised here; must not be zero)")->type_name("X,Y,Z")->required();
  sub.add_option("--max", opt->max, "longest distance searched (metres, > 0; default 1e6)")->transform(positiveNumber());
  sub.add_flag("--all", opt->all, "every hit along the ray, nearest first, instead of the closest");
  sub.add_flag("--front-only", opt->front_only, "ignore triangles seen from behind");
  return [opt](QueryContext& ctx) -> int {
    const auto from = parseVec3(opt->from);
    if (!from) return ctx.io->bad("--from: expected X,Y,Z (three finite numbers), got '" + opt->from + "'" + numbersNote(opt->from));
    if (std::string e = beyondLimit("--from", std::array{from->x, from->y, from->z}, opt->from); !e.empty()) return ctx.io->bad(e);
    const auto dir = parseVec3(opt->dir);
    // Scaled by its largest component before normalising: 1e-170 squared underflows to zero
    // and 1e155 squared overflows, and either is a direction.
    const double largest = dir ? std::max({std::fabs(dir->x), std::fabs(dir->y), std::fabs(dir->z)}) : 0.0;
    if (!dir || largest == 0)
      return ctx.io->bad("--dir: expected a non-zero X,Y,Z direction, got '" + opt->dir + "'");
    if (!(opt->max > 0)) return ctx.io->bad("--max: must be a number > 0");
    ctx.geometry.filter.back_faces = !opt->front_only;
    const sim::Vec3 unit = sim::normalize(*dir / largest);
    std::vector<sim::RayHit> hits;
    if (opt->all) {
      ctx.geometry.index->raycastAll(*from, unit, opt->max, hits, ctx.geometry.filter);
    } else if (auto hit = ctx.geometry.index->raycast(*from, unit, opt->max, ctx.geometry.filter)) {
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
      ctx.io->json(doc, 2);
    } else if (hits.empty()) {
      ctx.io->text(fmt::format("no hit within {} m\n", opt->max));
    } else {
      for (const auto& h : hits)
        ctx.io->text(fmt::format("hit  distance {:.6g}  point {}  normal {}{}  {}\n", h.distance + 0.0, vecText(h.point), vecText(h.normal),
                   h.front_face ? "" : " (back face)", featureText(ctx, h.triangle, h.label, h.tag)));
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
  auto* box = sub.add_option("--box", opt->box, "box: centre and half extents (metres)")->type_name("CX,CY,CZ,HX,HY,HZ");
  auto* sphere = sub.add_option("--sphere", opt->sphere, "sphere: centre and radius (metres)")->type_name("CX,CY,CZ,R");
  auto* capsule = sub.add_option("--capsule", opt->capsule, "capsule: segment ends and radius (metres)")->type_name("AX,AY,AZ,BX,BY,BZ,R");
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
        return ctx.io->bad("--box: expected CX,CY,CZ,HX,HY,HZ with half extents >= 0, got '" + opt->box + "'" + numbersNote(opt->box));
      if (std::string e = beyondLimit("--box", *v, opt->box); !e.empty()) return ctx.io->bad(e);
      if (!std::isfinite(opt->yaw)) return ctx.io->bad("--yaw: must be a finite number of degrees");
      const auto b = sim::OrientedBox::fromYaw({(*v)[0], (*v)[1], (*v)[2]}, {(*v)[3], (*v)[4], (*v)[5]},
                                               radiansOfYaw(opt->yaw));
      ctx.geometry.index->overlapOrientedBox(b, hits, ctx.geometry.filter);
      shape = "box";
    } else if (!opt->sphere.empty()) {
      const auto v = parseNumbers(opt->sphere, 4);
      if (!v || (*v)[3] < 0) return ctx.io->bad("--sphere: expected CX,CY,CZ,R with R >= 0, got '" + opt->sphere + "'" + numbersNote(opt->sphere));
      if (std::string e = beyondLimit("--sphere", *v, opt->sphere); !e.empty()) return ctx.io->bad(e);
      ctx.geometry.index->overlapSphere(sim::Sphere{{(*v)[0], (*v)[1], (*v)[2]}, (*v)[3]}, hits, ctx.geometry.filter);
      shape = "sphere";
    } else if (!opt->capsule.empty()) {
      const auto v = parseNumbers(opt->capsule, 7);
      if (!v || (*v)[6] < 0)
        return ctx.io->bad("--capsule: expected AX,AY,AZ,BX,BY,BZ,R with R >= 0, got '" + opt->capsule + "'" + numbersNote(opt->capsule));
      if (std::string e = beyondLimit("--capsule", *v, opt->capsule); !e.empty()) return ctx.io->bad(e);
      ctx.geometry.index->overlapCapsule(sim::Capsule{{(*v)[0], (*v)[1], (*v)[2]}, {(*v)[3], (*v)[4], (*v)[5]}, (*v)[6]}, hits,
                                ctx.geometry.filter);
      shape = "capsule";
    } else {
      return ctx.io->bad("query overlap: give one of --box, --sphere or --capsule");
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
        j["label"] = ctx.geometry.mesh->labels[ctx.geometry.mesh->triangle_labels[h.triangle]];
        j["tag"] = ctx.geometry.mesh->tags[ctx.geometry.mesh->triangle_tags[h.triangle]];
        doc["hits"].push_back(j);
      }
      ctx.io->json(doc, 2);
    } else if (hits.empty()) {
      ctx.io->text(fmt::format("no overlap\n"));
    } else {
      ctx.io->text(fmt::format("{} triangle{} the {}\n", hits.size(), hits.size() == 1 ? " overlaps" : "s overlap", shape));
      for (const auto& h : hits) {
        const uint32_t t = h.triangle;
        ctx.io->text(fmt::format("  triangle {}  label \"{}\"  tag \"{}\"\n", t, printable(ctx.geometry.mesh->labels[ctx.geometry.mesh->triangle_labels[t]]),
                   printable(ctx.geometry.mesh->tags[ctx.geometry.mesh->triangle_tags[t]])));
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
  auto* box = sub.add_option("--box", opt->box, "box of these half extents centred on the path (metres)")->type_name("HX,HY,HZ");
  auto* sphere = sub.add_option("--sphere", opt->sphere, "sphere of radius R centred on the path (metres, >= 0)")
                     ->transform(nonNegativeNumber());
  auto* capsule = sub.add_option("--capsule", opt->capsule,
                                 "upright capsule: radius and total height (H >= 2R), centred on the path (metres)")
                     ->type_name("R,H");
  box->excludes(sphere)->excludes(capsule);
  sphere->excludes(capsule);
  sub.add_option("--yaw", opt->yaw, "rotate the box about Y by this many degrees (--box only)")
      ->transform(finiteNumber())
      ->needs(box);
  sub.add_option("--from", opt->from, "start centre (metres)")->type_name("X,Y,Z")->required();
  sub.add_option("--to", opt->to, "end centre (metres); equal to --from checks the start only")->type_name("X,Y,Z")->required();
  return [opt](QueryContext& ctx) -> int {
    const auto from = parseVec3(opt->from);
    if (!from) return ctx.io->bad("--from: expected X,Y,Z (three finite numbers), got '" + opt->from + "'" + numbersNote(opt->from));
    if (std::string e = beyondLimit("--from", std::array{from->x, from->y, from->z}, opt->from); !e.empty()) return ctx.io->bad(e);
    const auto to = parseVec3(opt->to);
    if (!to) return ctx.io->bad("--to: expected X,Y,Z (three finite numbers), got '" + opt->to + "'" + numbersNote(opt->to));
    if (std::string e = beyondLimit("--to", std::array{to->x, to->y, to->z}, opt->to); !e.empty()) return ctx.io->bad(e);
    const sim::Vec3 move = *to - *from;
    std::optional<sim::ShapeHit> hit;
    std::string shape;
    if (!opt->box.empty()) {
      const auto v = parseNumbers(opt->box, 3);
      if (!v || (*v)[0] < 0 || (*v)[1] < 0 || (*v)[2] < 0)
        return ctx.io->bad("--box: expected HX,HY,HZ (half extents >= 0), got '" + opt->box + "'" + numbersNote(opt->box));
      if (std::string e = beyondLimit("--box", *v, opt->box); !e.empty()) return ctx.io->bad(e);
      if (!std::isfinite(opt->yaw)) return ctx.io->bad("--yaw: must be a finite number of degrees");
      hit = ctx.geometry.index->castOrientedBox(
          sim::OrientedBox::fromYaw(*from, {(*v)[0], (*v)[1], (*v)[2]}, radiansOfYaw(opt->yaw)), move, ctx.geometry.filter);
      shape = "box";
    } else if (opt->sphere >= 0) {  // -1: not given (the option's check refuses negatives)
      if (std::string e = beyondLimit("--sphere", std::span(&opt->sphere, 1), fmt::format("{:g}", opt->sphere)); !e.empty())
        return ctx.io->bad(e);
      hit = ctx.geometry.index->castSphere(*from, opt->sphere, move, ctx.geometry.filter);
      shape = "sphere";
    } else if (!opt->capsule.empty()) {
      const auto v = parseNumbers(opt->capsule, 2);
      if (!v || (*v)[0] < 0 || (*v)[1] < 2 * (*v)[0])
        return ctx.io->bad("--capsule: expected R,H with R >= 0 and H >= 2R, got '" + opt->capsule + "'" + numbersNote(opt->capsule));
      if (std::string e = beyondLimit("--capsule", *v, opt->capsule); !e.empty()) return ctx.io->bad(e);
      const double half_segment = (*v)[1] / 2 - (*v)[0];
      hit = ctx.geometry.index->castCapsule(*from - sim::Vec3{0, half_segment, 0}, *from + sim::Vec3{0, half_segment, 0}, (*v)[0],
                                   move, ctx.geometry.filter);
      shape = "capsule";
    } else {
      return ctx.io->bad("query cast: give one of --box, --sphere or --capsule");
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
      ctx.io->json(doc, 2);
    } else if (!hit) {
      ctx.io->text(fmt::format("no hit: the {} moves freely from {} to {}\n", shape, vecText(*from), vecText(*to)));
    } else if (hit->started_penetrating) {
      ctx.io->text(fmt::format("starts penetrating  depth {:.6g}  escape {}  normal {}  point {}  {}\n", hit->penetration_depth,
                 vecText(hit->escape), vecText(hit->normal), vecText(hit->point),
                 featureText(ctx, hit->triangle, hit->label, hit->tag)));
    } else {
      ctx.io->text(fmt::format("hit  time {:.6g}  distance {:.6g}  centre {}  point {}  normal {}  {}\n", hit->time,
                 hit->time * sim::length(move), vecText(*from + move * hit->time), vecText(hit->point),
                 vecText(hit->normal), featureText(ctx, hit->triangle, hit->label, hit->tag)));
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
                     return [run](QueryContext& ctx) { return run(*ctx.io, ctx.world_name, ctx.json); };
                   },
                   false});
    return k;
  }();
  return kinds;
}

// The kinds' names, in --help order, for messages ("ray, overlap, ..., clearance").
std::string kindList() {
  std::string list;
  for (const QueryKind& k : queryKinds()) list += (list.empty() ? "" : ", ") + std::string(k.name);
  return list;
}

Result<sim::TriangleMesh> loadGeometry(const std::string& path) {
  if (isWorldFile(path)) {
    // Geometry queries: no baked graph is read.
    auto world = formats::readWorldFile(path, {formats::WorldReadOptions::Agents::ProfilesOnly, {}});
    if (!world) return world.error();
    return std::move(world.value().geometry);
  }
  auto imported = importMeshInput(path);
  if (!imported) return imported.error();
  return std::move(imported.value().mesh);
}

// Why --tag / --exclude-tag (or a batch request's "tag" / "exclude_tag") is refused with a
// navigation kind: one message for the command line and a batch.
std::string tagsNotFor(const std::string& kind) {
  return "--tag and --exclude-tag apply to ray, overlap and cast, not to " + kind;
}

// The tag ids of --tag (`include`) or --exclude-tag names, each unknown name said through `warn_`
// ("<where>--tag NAME: no such tag ..."). An unknown tag matches nothing: it is kept as an
// impossible id so that an include filter stays strict, and said, since a misspelt tag would
// otherwise read as "no hit".
std::vector<uint32_t> tagIds(const sim::QueryIndex& index, const std::vector<std::string>& names, bool include,
                             const std::string& where, const std::function<void(const std::string&)>& warn_) {
  std::vector<uint32_t> ids;
  for (const std::string& tag : names) {
    const uint32_t id = index.findTag(tag);
    if (id == sim::kInvalidId)
      warn_(where + (include ? "--tag " : "--exclude-tag ") + tag + (include ? ": no such tag (it matches nothing)" : ": no such tag (it excludes nothing)"));
    if (id != sim::kInvalidId) ids.push_back(id);
    else if (include) ids.push_back(sim::kInvalidId - 1);
  }
  return ids;
}

// The triangles of `world`, indexed, with the filter of --tag and --exclude-tag (an unknown tag
// is warned about once).
Result<QueryGeometry> loadQueryGeometry(const std::string& world, const std::vector<std::string>& include_tags,
                                        const std::vector<std::string>& exclude_tags) {
  auto mesh = loadGeometry(world);
  if (!mesh) return mesh.error();
  QueryGeometry g;
  auto owned = std::make_shared<sim::TriangleMesh>(std::move(mesh.value()));
  g.index = std::make_shared<sim::QueryIndex>(*owned);
  g.mesh = std::move(owned);
  const auto say = [](const std::string& message) { warn(message); };
  g.filter.include_tags = tagIds(*g.index, include_tags, true, world + ": ", say);
  g.filter.exclude_tags = tagIds(*g.index, exclude_tags, false, world + ": ", say);
  return g;
}

// One query from the command line: answers on stdout, errors on stderr, the agent read for it.
class TerminalIO final : public QueryIO {
 public:
  explicit TerminalIO(const QueryCommonOptions& common) : world_(common.world), agent_name_(common.agent), profile_(common.profile) {}
  void json(const ordered_json& doc, int indent) override { fmt::print("{}\n", printedJson(doc, indent)); }
  void text(const std::string& text) override { fmt::print("{}", text); }
  int bad(const std::string& message) override { return badInput(message); }
  int fail(const Error& error) override { return reportError(error); }
  Result<const QueryAgent*> agent(const std::string& name, const std::string& profile, bool geometry) override {
    // With the triangles, in the same read of the world file (sight).
    auto baked = loadBakedAgent(BakedInputOptions{world_, name.empty() ? agent_name_ : name, profile.empty() ? profile_ : profile},
                                geometry ? &mesh_ : nullptr);
    if (!baked) return baked.error();
    agent_ = std::make_unique<QueryAgent>(std::move(*baked));
    return agent_.get();
  }
  Result<const sim::QueryIndex*> geometry() override {
    if (!index_) index_ = std::make_unique<sim::QueryIndex>(mesh_);
    return index_.get();
  }

 private:
  std::string world_, agent_name_, profile_;
  std::unique_ptr<QueryAgent> agent_;
  sim::TriangleMesh mesh_;
  std::unique_ptr<sim::QueryIndex> index_;
};

// ---- --batch ----

/// The options of `strata query WORLD --batch`.
struct QueryBatchOptions {
  std::string batch;   ///< JSON-lines requests ("-": standard input)
  std::string output;  ///< results file (written atomically); empty = stdout
  int threads = 0;     ///< worker threads; 0 = every CPU the process may run on
  bool stream = false; ///< answer each line as it arrives, flushing stdout (a co-process)
};

// The world of a batch, read once for all its requests: each agent (and profile, for a mesh)
// when a request first names it, the triangles when a request first needs them. Safe to ask from
// every worker; a failure is kept, so that it is not read again for every line that asks.
class BatchWorld {
 public:
  explicit BatchWorld(const QueryCommonOptions& common)
      : world_(common.world), agent_(common.agent), profile_(common.profile), include_(common.include_tags), exclude_(common.exclude_tags),
        mesh_input_(!isWorldFile(common.world)) {}

  Result<const QueryAgent*> agent(const std::string& asked, const std::string& asked_profile) {
    const std::string& name = asked.empty() ? agent_ : asked;
    const std::string& profile = asked_profile.empty() ? profile_ : asked_profile;
    const std::lock_guard lock(mutex_);
    const std::string key = name + '\0' + profile;
    auto it = agents_.find(key);
    if (it == agents_.end()) {
      // A mesh is imported once, for its triangles (runQueryBatch asks them first), and each
      // agent is baked from those.
      const sim::TriangleMesh* imported = nullptr;
      if (mesh_input_) {
        loadGeometry();
        if (*geometry_) imported = geometry_->value().mesh.get();
      }
      // Isolated, as the reads below are: reading or baking runs in parallel, and a worker that
      // waits for that part must not take up another request meanwhile, which would wait for
      // this lock on the thread that holds it.
      Result<nav::BakedAgent> baked = Error::runtime("");
      tbb::this_task_arena::isolate([&] { baked = loadBakedAgent(BakedInputOptions{world_, name, profile, imported}); });
      Result<std::unique_ptr<QueryAgent>> loaded = baked ? Result<std::unique_ptr<QueryAgent>>(std::make_unique<QueryAgent>(std::move(*baked)))
                                                         : Result<std::unique_ptr<QueryAgent>>(baked.error());
      it = agents_.emplace(key, std::move(loaded)).first;
    }
    if (!it->second) return it->second.error();
    return it->second->get();
  }

  Result<const QueryGeometry*> geometry() {
    const std::lock_guard lock(mutex_);
    loadGeometry();
    if (!*geometry_) return geometry_->error();
    return &geometry_->value();
  }

 private:
  // (With mutex_ held.)
  void loadGeometry() {
    if (!geometry_) tbb::this_task_arena::isolate([&] { geometry_.emplace(loadQueryGeometry(world_, include_, exclude_)); });
  }

  std::string world_, agent_, profile_;
  std::vector<std::string> include_, exclude_;
  bool mesh_input_;  ///< a mesh imported in memory, not a world file
  std::mutex mutex_;
  std::map<std::string, Result<std::unique_ptr<QueryAgent>>> agents_;
  std::optional<Result<QueryGeometry>> geometry_;
};

// One request of a batch: its JSON answer or its error is kept for its result line.
class BatchLineIO final : public QueryIO {
 public:
  explicit BatchLineIO(BatchWorld& world) : world_(world) {}
  void json(const ordered_json& doc, int) override { answer = doc; }
  void text(const std::string&) override {}  // a batch answers in JSON only
  int bad(const std::string& message) override {
    error = message;
    return kExitBadInput;
  }
  int fail(const Error& e) override {
    error = e.message;
    runtime = e.kind != ErrorKind::BadInput;
    return runtime ? kExitRuntime : kExitBadInput;
  }
  Result<const QueryAgent*> agent(const std::string& name, const std::string& profile, bool) override {
    return world_.agent(name, profile);
  }
  Result<const sim::QueryIndex*> geometry() override {
    auto g = world_.geometry();
    if (!g) return g.error();
    return (*g)->index.get();
  }

  ordered_json answer;
  std::string error;
  bool runtime = false;

 private:
  BatchWorld& world_;
};

// A request member's value as the text of the option it stands for ("at": [1, 2, 3] -> "1,2,3"),
// or why it cannot be one. What a member must be follows from its option's type name: a list
// ("X,Y,Z", "R,H") an array of numbers, a number (FLOAT, INT) a number, a name or a file (TEXT)
// a string; as in a path batch, where "agent": 5 is refused (an audit: it was taken as the
// agent "5", and "max": [13] as 13).
std::optional<std::string> optionText(const CLI::Option& option, const ordered_json& value, std::string& problem) {
  const auto number = [](const ordered_json& v) -> std::optional<std::string> {
    if (v.is_number_integer()) return v.is_number_unsigned() ? std::to_string(v.get<std::uint64_t>()) : std::to_string(v.get<std::int64_t>());
    if (v.is_number_float()) return fmt::format("{}", v.get<double>());  // the shortest text that reads back the same
    return std::nullopt;
  };
  const std::string type = option.get_type_name();
  const std::string base = type.substr(0, type.find(':'));
  if (base.find(',') != std::string::npos) {
    const auto joined = [&]() -> std::optional<std::string> {
      if (!value.is_array() || value.empty()) return std::nullopt;
      std::string list;
      for (const ordered_json& v : value) {
        const auto text = number(v);
        if (!text) return std::nullopt;
        list += (list.empty() ? "" : ",") + *text;
      }
      return list;
    }();
    if (!joined) problem = "must be an array of numbers (" + base + ")";
    return joined;
  }
  if (base == "FLOAT" || base == "INT" || base == "UINT") {
    if (const auto text = number(value)) return text;
    problem = "must be a number";
    return std::nullopt;
  }
  if (value.is_string()) return value.get<std::string>();
  problem = "must be a string";
  return std::nullopt;
}

// The members a request of `kind` may have, for messages: its options without the dashes.
std::string memberList(const CLI::App& sub) {
  std::string list;
  for (const CLI::Option* option : sub.get_options()) {
    const std::string name = option->get_single_name();
    if (name == "help" || name.empty()) continue;
    list += (list.empty() ? "" : ", ") + name;
  }
  return list;
}

struct BatchAnswer {
  std::string line;  ///< the result line, with its newline
  int code = kExitOk;
  std::string error;  ///< non-empty: the request was refused (also in `line`)
  std::vector<std::string> warnings;  ///< said on stderr, in input order (a request's unknown tag)
};

// A request's "tag" or "exclude_tag": a tag name or an array of them, as --tag and --exclude-tag
// (repeatable) take them; nullopt when it is neither or a name is empty (as on the command line).
std::optional<std::vector<std::string>> tagNames(const ordered_json& value) {
  if (value.is_string()) return value.get<std::string>().empty() ? std::nullopt : std::optional(std::vector{value.get<std::string>()});
  if (!value.is_array() || value.empty()) return std::nullopt;
  std::vector<std::string> names;
  for (const ordered_json& v : value) {
    if (!v.is_string() || v.get<std::string>().empty()) return std::nullopt;
    names.push_back(v.get<std::string>());
  }
  return names;
}

// Answers one parsed request of a batch: its members become the kind's own options, parsed by
// the kind's own subcommand (so a request is checked exactly as the same query on the command
// line is), and the kind runs against the batch's world.
BatchAnswer answerRequest(const RequestObject& parsed, std::size_t number, const std::string& file, const std::string& world,
                          BatchWorld& shared) {
  BatchAnswer out;
  const ordered_json& request = parsed.request;
  ordered_json id;
  BatchLineIO io(shared);
  const std::string where = fmt::format("{}:{}: ", file, number);
  const auto refuse = [&](std::string message, bool runtime = false) {
    out.error = where + message;
    out.code = runtime ? kExitRuntime : kExitBadInput;
  };
  std::string kind_name;
  const QueryKind* kind = nullptr;
  if (request.contains("id")) {
    id = request["id"];
    if (std::string problem = idProblem(id); !problem.empty()) refuse(problem), id = ordered_json();
  }
  if (out.error.empty()) {
    if (!request.contains("kind") || !request["kind"].is_string()) {
      refuse("a request needs \"kind\": one of " + kindList());
    } else {
      kind_name = request["kind"].get<std::string>();
      for (const QueryKind& k : queryKinds())
        if (kind_name == k.name) kind = &k;
      if (kind == nullptr)
        refuse("unknown kind \"" + printable(kind_name) + "\" (" + kindList() + ")");
    }
  }
  if (out.error.empty()) {
    CLI::App sub("", kind_name);
    auto run = kind->setup(sub);
    std::vector<std::string> args;
    std::map<std::string, std::string> spelt;  // option name -> the member that gave it
    // A geometry request's own --tag / --exclude-tag, which replace the batch's (an audit: a
    // batch could not filter its requests' tags differently).
    std::optional<std::vector<std::string>> tags[2];
    for (const auto& [key, value] : request.items()) {
      if (key == "kind" || key == "id") continue;
      std::string name = key;
      std::replace(name.begin(), name.end(), '_', '-');
      const bool tag_member = name == "tag" || name == "exclude-tag";
      const CLI::Option* option = name == "help" || name.empty() || tag_member ? nullptr : sub.get_option_no_throw("--" + name);
      if (option == nullptr && !tag_member) {
        refuse(fmt::format("unknown member \"{}\" (a {} request has kind, id, {}{})", printable(key), kind_name, memberList(sub),
                           kind->geometry ? ", tag, exclude-tag" : ""));
        break;
      }
      // "front_only" and "front-only" are one member (an audit: given both, the flag's true won
      // whatever the order).
      if (const auto [it, fresh] = spelt.emplace(name, key); !fresh) {
        refuse(fmt::format("member \"{}\" given twice (as \"{}\" and \"{}\")", name, printable(it->second), printable(key)));
        break;
      }
      if (tag_member) {
        // As on the command line, where --tag with a navigation kind is an error.
        if (!kind->geometry) {
          refuse(kind_name + ": " + tagsNotFor(kind_name));
          break;
        }
        auto& slot = tags[name == "tag" ? 0 : 1];
        slot = tagNames(value);
        if (!slot) {
          refuse(fmt::format("\"{}\" must be a tag name or an array of tag names (not empty)", key));
          break;
        }
        continue;
      }
      if (option->get_expected_min() == 0) {  // a flag: true or false
        if (!value.is_boolean()) {
          refuse(fmt::format("\"{}\" must be true or false", key));
          break;
        }
        if (value.get<bool>()) args.push_back("--" + name);
        continue;
      }
      std::string problem;
      const auto text = optionText(*option, value, problem);
      if (!text) {
        refuse(fmt::format("\"{}\" {}", key, problem));
        break;
      }
      // "--at=-1,0,2" in one word, so that a value starting with a minus is not read as an
      // option; an empty value as a word of its own, which CLI11 takes as a value given empty
      // (and the kind's check names it), where "--agent=" read as a missing value (an audit).
      if (text->empty()) args.insert(args.end(), {"--" + name, std::string()});
      else args.push_back("--" + name + "=" + *text);
    }
    if (out.error.empty()) {
      std::reverse(args.begin(), args.end());  // CLI11 takes the arguments last first
      try {
        sub.parse(args);
      } catch (const CLI::ParseError& e) {
        refuse(fmt::format("{}: {}", kind_name, e.what()));
      }
    }
    if (out.error.empty()) {
      QueryContext ctx;
      ctx.world_name = world;
      ctx.json = true;
      ctx.io = &io;
      if (kind->geometry) {
        auto g = shared.geometry();
        if (!g) {
          refuse(g.error().message, g.error().kind != ErrorKind::BadInput);
        } else {
          ctx.geometry = **g;
          const auto say = [&](const std::string& message) { out.warnings.push_back(message); };
          for (int k = 0; k < 2; ++k)
            if (tags[k]) (k == 0 ? ctx.geometry.filter.include_tags : ctx.geometry.filter.exclude_tags) = tagIds(*ctx.geometry.index, *tags[k], k == 0, where, say);
        }
      }
      if (out.error.empty()) {
        out.code = run(ctx);
        if (!io.error.empty()) {
          // Named by the kind once ("field: give either ...", not "field: field: ..."; "overlap:
          // give one of ...", not "overlap: query overlap: ...": an audit).
          std::string message = io.error;
          if (message.rfind("query ", 0) == 0) message.erase(0, 6);
          if (message.rfind(kind_name + ": ", 0) != 0) message = kind_name + ": " + message;
          refuse(message, io.runtime);
        }
      }
    }
  }
  if (!out.error.empty()) {
    out.line = errorLine(number, id, out.error);
    return out;
  }
  ordered_json doc;
  doc["line"] = number;
  if (!id.is_null()) doc["id"] = id;
  for (auto& [key, value] : io.answer.items()) doc[key] = value;
  out.line = printedJson(std::move(doc)) + "\n";
  return out;
}

int runQueryBatch(const std::string& world, const QueryCommonOptions& common, const QueryBatchOptions& options) {
  // Room for the workers first: one that cannot start ends the process (threadRoomShortfall).
  if (const std::string problem = threadRoomShortfall(options.threads); !problem.empty())
    return reportError(Error::runtime(problem));
  std::optional<tbb::global_control> limit;
  if (options.threads > 0)
    limit.emplace(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(options.threads));
  BatchSource source;
  if (const int code = source.open(options.batch, options.output, {world, common.profile}); code != kExitOk) return code;
  const std::string& name = source.name();
  const bool from_stdin = source.fromStdin();
  const int fd = source.fd();
  // The input first, whatever the requests hold: a world file's header and profiles (each
  // agent's graph is read when a request names it), or a mesh's triangles.
  BatchWorld shared(common);
  if (isWorldFile(world)) {
    auto read = formats::readWorldFile(world, {formats::WorldReadOptions::Agents::ProfilesOnly, {}});
    if (!read) return reportError(read.error());
    // A --profile is for meshes: a usage error, said once. An agent the world lacks (or a world
    // without agents) refuses only the requests that need it, as for a mesh (an audit: a
    // missing --agent refused the geometry requests too, on a world file only).
    if (!common.profile.empty())
      if (auto named = shared.agent({}, {}); !named) return reportError(named.error());
  } else if (auto g = shared.geometry(); !g) {
    return reportError(g.error());
  }
  std::unique_ptr<formats::AtomicFileWriter> writer;
  if (!options.output.empty()) {
    auto opened = formats::AtomicFileWriter::open(options.output);
    if (!opened) return reportError(opened.error());
    writer = std::move(*opened);
  }
  tbb::task_arena arena(options.threads > 0 ? options.threads : tbb::task_arena::automatic);
  constexpr std::size_t kBlock = 4096, kBlockBytes = std::size_t(16) << 20;
  DescriptorLines reader(fd);
  std::vector<std::string> texts;
  std::vector<std::size_t> numbers;
  std::vector<BatchAnswer> answers;
  std::size_t number = 0, requests = 0;
  bool negative = false, refused = false, runtime = false, seen_request = false;
  for (bool more = true; more;) {
    // (--stream: one line, waiting for it, then those already there.)
    const LineRead stopped = readBlock(reader, number, kBlock, kBlockBytes, options.stream, texts, numbers);
    more = stopped == LineRead::Line;
    // A file that is no text at all (a world or a program given by mistake) is said once, not
    // as an error line for each of its "lines" (an audit: 294,248 of them for the binary).
    for (std::size_t k = 0; !seen_request && k < texts.size(); ++k) {
      if (texts[k].find_first_not_of(" \t\r") == std::string::npos) continue;
      seen_request = true;
      if (const auto where = binaryByte(texts[k], numbers[k] == 1))
        return badInput(fmt::format("{}: not a JSON-lines text file (line {}, byte {}: 0x{:02x}, a byte no JSON text holds)",
                                    printable(name), numbers[k], *where + 1, static_cast<unsigned char>(texts[k][*where])));
    }
    answers.assign(texts.size(), BatchAnswer{});
    arena.execute([&] {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, texts.size(), 16), [&](const tbb::blocked_range<std::size_t>& range) {
        for (std::size_t k = range.begin(); k != range.end(); ++k) {
          RequestObject parsed = parseRequestObject(texts[k], numbers[k], name);
          if (parsed.blank) continue;
          if (!parsed.error.empty()) {
            answers[k] = BatchAnswer{errorLine(numbers[k], refusedId(texts[k]), parsed.error), kExitBadInput, parsed.error, {}};
            continue;
          }
          answers[k] = answerRequest(parsed, numbers[k], name, world, shared);
        }
      });
    });
    std::string text;
    for (const BatchAnswer& a : answers) {
      if (a.line.empty()) continue;  // a blank line
      ++requests;
      text += a.line;
      for (const std::string& w : a.warnings) warn(w);
      if (!a.error.empty()) {
        reportError(Error::badInput(a.error));
        refused = true;
        runtime = runtime || a.code == kExitRuntime;
      }
      negative = negative || a.code == kExitNegative;
    }
    if (writer) {
      if (Status written = writer->write(text); !written) return reportError(written.error());
    } else {
      // A failed write or flush throws, and main.cpp says "standard output: <why>" once.
      fmt::print("{}", text);
      errno = 0;
      if (options.stream && std::fflush(stdout) != 0)
        throw std::system_error(errno != 0 ? errno : EIO, std::generic_category(), "standard output");
    }
    if (const int code = reportStop(stopped, name, number); code != kExitOk) return code;
  }
  if (requests == 0)
    warn(fmt::format("{}: no requests ({}): {}", printable(name),
                     number == 0 ? (from_stdin ? "standard input is empty" : "the file is empty") : "blank lines only",
                     options.output.empty() ? "no results" : "an empty results file is written"));
  if (writer)
    if (Status committed = writer->commit(); !committed) return reportError(committed.error());
  return runtime ? kExitRuntime : refused ? kExitBadInput : negative ? kExitNegative : kExitOk;
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
                                    "sight, field, component, clearance), one on the command line or many with --batch. Exit codes: "
                                    "0 a positive answer (batch: every answer); 1 runtime failure; 2 bad usage or bad input (one line "
                                    "naming the option or file; batch: at least one request refused); 3 the answer is a miss or a no "
                                    "(batch: at least one).");
  auto common = std::make_shared<QueryCommonOptions>();
  auto batch = std::make_shared<QueryBatchOptions>();
  query->add_option("WORLD", common->world, "world file (.h5), or a mesh file imported in memory")->required()->check(fileName());
  query->add_flag("--json", common->json, "print one JSON document");
  const CLI::Validator non_empty([](std::string& tag) { return tag.empty() ? std::string("a tag cannot be empty") : std::string(); },
                                 "TAG", "tag");
  query->add_option("--tag", common->include_tags, "ray, overlap, cast (and such batch requests that name no \"tag\"): only hits whose tag is this tag or under it (repeatable)")
      ->check(non_empty);
  query->add_option("--exclude-tag", common->exclude_tags, "ray, overlap, cast (and such batch requests that name no \"exclude_tag\"): never hits whose tag is this tag or under it (repeatable)")
      ->check(non_empty);
  query->add_option("--agent", common->agent,
                    "navigation kinds and batch requests: the agent when the kind or request names none (default: the first "
                    "agent of the world; only its graph is read)")
      ->check(agentName());
  query->add_option("--profile", common->profile,
                    "navigation kinds and batch requests: the bake profile (.toml) of a mesh WORLD, baked in memory, when the kind "
                    "or request gives none")
      ->check(fileName());
  CLI::Option* batch_option = query->add_option("--batch", batch->batch,
                    "JSON-lines requests (- for standard input) instead of a KIND: one per line, {\"kind\": KIND, ...} with the\n"
                    "kind's options as members, without the dashes ({\"kind\": \"height\", \"at\": [4, 2]}; points as arrays of\n"
                    "numbers, flags true or false) and an optional \"id\" (a string or integer echoed in its result). One result line\n"
                    "per request, in order: {\"line\", \"id\", then the kind's --json document}, or {\"line\", \"id\", \"error\"} for a\n"
                    "request that is refused (also said on stderr; the others are answered). The world and each agent are read once")
      ->check(fileName());
  query->add_option("-o,--output", batch->output,
                    "Batch results file: a .jsonl (or .ndjson, .json) name (written atomically; a symbolic link is written "
                    "through; never an input, a directory or a device); default stdout");
  query->add_flag("--stream", batch->stream,
                  "Answer each --batch line as it arrives and flush its result at once (on standard output, in order): a "
                  "co-process reads a result before writing the next request");
  query->add_option("--threads", batch->threads, "Batch worker threads (0 = every CPU the process may run on); with --batch only")
      ->default_str("0")
      ->transform(integerRange(0, 1024));
  // A kind is required, but for a batch, whose requests name theirs: --batch lifts the
  // requirement as it is parsed (an option's callback runs before CLI11 checks requirements),
  // so a missing or misspelt kind keeps its own message (main.cpp).
  query->require_subcommand(1);
  batch_option->each([query](const std::string&) { query->require_subcommand(0, 1); });
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
                                "only hits under a tag / drop them (repeatable); --batch answers many queries."
                              : "Also (strata query --help): --json prints one JSON document; --batch answers many queries.");
    runners->push_back({sub, kind.setup(*sub), kind.geometry});
  }
  return [common, batch, runners, query]() -> int {
    const Runner* chosen = nullptr;
    for (const Runner& r : *runners)
      if (r.sub->parsed()) chosen = &r;
    if (query->count("--batch") > 0) {
      if (chosen != nullptr)
        return badInput("--batch: give either a KIND or --batch (each request names its kind), not both");
      if (batch->batch.empty()) return badInput("--batch: the request file names no file");
      if (query->count("--output") > 0 && batch->output.empty()) return badInput("-o/--output: the output path names no file");
      if (batch->stream && query->count("--output") > 0)
        return badInput("--stream: the results go to standard output as they are answered; not with -o");
      if (common->json) warn("--json: a batch's results are JSON lines anyway");
      return runQueryBatch(common->world, *common, *batch);
    }
    if (query->count("--output") > 0) return badInput("-o/--output applies to --batch only");
    if (query->count("--threads") > 0) return badInput("--threads applies to --batch only");
    if (batch->stream) return badInput("--stream applies to --batch only");
    if (chosen == nullptr)
      return badInput("query: give a kind (" + kindList() + ") or --batch");
    TerminalIO io(*common);
    QueryContext ctx;
    ctx.world_name = common->world;
    ctx.json = common->json;
    ctx.io = &io;
    // Navigation kinds read the world (or bake the mesh) themselves: reading it here as well
    // would load a large world twice.
    if (!chosen->geometry) {
      if (!common->include_tags.empty() || !common->exclude_tags.empty())
        return badInput(common->world + ": " + tagsNotFor(chosen->sub->get_name()));
      return chosen->run(ctx);
    }
    auto g = loadQueryGeometry(common->world, common->include_tags, common->exclude_tags);
    if (!g) return reportError(g.error());
    ctx.geometry = std::move(*g);
    return chosen->run(ctx);
  };
}

}  // namespace

STRATA_COMMAND(query, 40, setupQuery)

}  // namespace strata::cli
