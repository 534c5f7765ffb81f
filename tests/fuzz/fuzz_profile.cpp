// libFuzzer target: the bake profile reader (formats::parseProfile) on arbitrary TOML text.
// A profile that reads must write out (profileToToml, the form a world stores as @profile) as
// text that reads back to the same profile, every setting, rule, volume, link and field equal
// (compared field by field, so a setting the writer left out or rounded is found), and writes out
// as the same text again. Text that does not read must be refused with a message. Seed corpus:
// corpus/fuzz_profile/every_key.toml; CI adds samples/*.toml.
//
//   CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DSTRATA_FUZZ=ON -DSTRATA_BUILD_TESTS=OFF
//   cmake --build build-fuzz --target fuzz_profile
//   mkdir -p /tmp/corpus && cp tests/fuzz/corpus/fuzz_profile/* /tmp/corpus/   # new inputs go there
//   build-fuzz/tests/fuzz/fuzz_profile -max_total_time=60 /tmp/corpus

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "strata/formats/profile.h"

namespace {

using strata::sim::Vec3;

bool same(const Vec3& a, const Vec3& b) { return a.x == b.x && a.y == b.y && a.z == b.z; }

// What differs between two profiles, empty when nothing does (the `source` strings, which say
// where a rule was written, are not stored).
std::string difference(const strata::nav::BakeProfile& a, const strata::nav::BakeProfile& b) {
  if (a.agents.size() != b.agents.size()) return "agent count";
  for (std::size_t i = 0; i < a.agents.size(); ++i) {
    const strata::nav::AgentProfile &x = a.agents[i], &y = b.agents[i];
    const strata::nav::AgentSettings &s = x.settings, &t = y.settings;
    const std::string agent = "agent " + s.name + ": ";
    if (s.name != t.name) return agent + "name";
    if (s.radius != t.radius || s.height != t.height || s.max_slope != t.max_slope || s.step_height != t.step_height)
      return agent + "radius, height, max_slope or step_height";
    if (s.can_jump != t.can_jump || s.jump_height != t.jump_height || s.jump_distance != t.jump_distance ||
        s.max_drop != t.max_drop || s.can_climb != t.can_climb)
      return agent + "jump, drop or climb settings";
    if (s.cell_size != t.cell_size || s.merge_distance != t.merge_distance) return agent + "cell_size or merge_distance";
    if (s.jump_penalty != t.jump_penalty || s.drop_penalty != t.drop_penalty || s.climb_penalty != t.climb_penalty)
      return agent + "penalties";
    if (s.link_snap_distance != t.link_snap_distance || s.link_snap_height != t.link_snap_height) return agent + "link snapping";
    if (x.climbable != y.climbable) return agent + "climbable";
    if (x.areas.size() != y.areas.size()) return agent + "area rule count";
    for (std::size_t k = 0; k < x.areas.size(); ++k)
      if (x.areas[k].label_glob != y.areas[k].label_glob || x.areas[k].tag_glob != y.areas[k].tag_glob ||
          x.areas[k].area != y.areas[k].area || x.areas[k].cost != y.areas[k].cost)
        return agent + "areas[" + std::to_string(k) + "]";
    if (x.modifiers.size() != y.modifiers.size()) return agent + "modifier count";
    for (std::size_t k = 0; k < x.modifiers.size(); ++k)
      if (!same(x.modifiers[k].box.min, y.modifiers[k].box.min) || !same(x.modifiers[k].box.max, y.modifiers[k].box.max) ||
          x.modifiers[k].area != y.modifiers[k].area || x.modifiers[k].cost != y.modifiers[k].cost)
        return agent + "modifiers[" + std::to_string(k) + "]";
    if (x.links.size() != y.links.size()) return agent + "link count";
    for (std::size_t k = 0; k < x.links.size(); ++k)
      if (!same(x.links[k].from, y.links[k].from) || !same(x.links[k].to, y.links[k].to) || x.links[k].label != y.links[k].label ||
          x.links[k].cost != y.links[k].cost || x.links[k].bidirectional != y.links[k].bidirectional)
        return agent + "links[" + std::to_string(k) + "]";
    if (x.fields.size() != y.fields.size()) return agent + "field count";
    for (std::size_t k = 0; k < x.fields.size(); ++k)
      if (x.fields[k].name != y.fields[k].name || !same(x.fields[k].origin, y.fields[k].origin) ||
          x.fields[k].max_distance != y.fields[k].max_distance)
        return agent + "fields[" + std::to_string(k) + "]";
  }
  return {};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto profile = strata::formats::parseProfile(text, "fuzz.toml");
  if (!profile.ok()) {
    if (profile.error().message.empty()) std::abort();
    return 0;
  }
  const std::string stored = strata::formats::profileToToml(*profile);
  const auto again = strata::formats::parseProfile(stored, "stored.toml");
  if (!again.ok()) {
    std::fprintf(stderr, "a profile that read was written out as text that does not: %s\n--- written:\n%s\n",
                 again.error().message.c_str(), stored.c_str());
    std::abort();
  }
  if (const std::string what = difference(*profile, *again); !what.empty()) {
    std::fprintf(stderr, "the profile written out reads back with another %s\n--- written:\n%s\n", what.c_str(), stored.c_str());
    std::abort();
  }
  const std::string restored = strata::formats::profileToToml(*again);
  if (restored != stored) {
    std::fprintf(stderr, "the profile written out reads back as another one\n--- first:\n%s\n--- second:\n%s\n",
                 stored.c_str(), restored.c_str());
    std::abort();
  }
  // A profile of under a megabyte (libFuzzer's inputs are a few kilobytes) is far below the
  // stored limit (16 MiB) written out.
  if (size < (std::size_t(1) << 20) && !strata::formats::checkStoredProfileSize(*profile, "fuzz.toml")) std::abort();
  return 0;
}
