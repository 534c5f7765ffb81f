// Bake profiles in TOML (profile.h). Every key is checked against the known set of its table so a
// misspelt key is an error, not a silently ignored setting; values are range-checked through the
// settings' validate() and the error is located at the offending key.

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "strata/formats/profile.h"

namespace strata::formats {
namespace {

/// Longest label, glob or name a profile may give (bytes).
constexpr std::size_t kMaxProfileString = 1024;
/// Largest finite area or link cost: costs are stored as float32, and an edge's cost (its length
/// times its area's cost, plus penalties) must stay finite, or the edge would vanish.
constexpr double kMaxCost = 1e9;
/// Smallest link cost (float32 keeps it positive).
constexpr double kMinLinkCost = 1e-6;

/// Thrown inside the parser only; converted to an Error before returning.
struct ProfileError {
  std::string message;
};

/// Most parts of a dotted key or table header ([agent.NAME.areas] has 3). toml++ descends once
/// per part on its own stack, unbounded: 50,000 parts crashed the process.
constexpr std::size_t kMaxKeyParts = 64;

/// The line of the first key (bare or quoted parts joined by dots, outside strings and comments)
/// with more than kMaxKeyParts parts, or 0 when there is none. A float (1.5) is two parts, so
/// values never come near the limit; invalid TOML is left to the parser.
std::size_t lineOfDeepKey(std::string_view text) {
  std::size_t line = 1, parts = 0;
  bool after_dot = false, in_part = false;
  auto bare = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  };
  // A key part begins (a bare character or a string): it continues the key after a dot, or
  // starts a new one.
  auto part = [&] {
    if (in_part) return false;
    in_part = true;
    parts = after_dot ? parts + 1 : 1;
    after_dot = false;
    return parts > kMaxKeyParts;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') ++line;
    if (bare(c)) {
      if (part()) return line;
      continue;
    }
    if (c == '"' || c == '\'') {
      if (part()) return line;
      const bool multi = text.substr(i, 3) == std::string_view(c == '"' ? "\"\"\"" : "'''");
      const std::string_view close = multi ? text.substr(i, 3) : text.substr(i, 1);
      std::size_t j = i + close.size();
      while (j < text.size() && text.substr(j, close.size()) != close) {
        if (text[j] == '\n') ++line;
        if (c == '"' && text[j] == '\\') {  // an escape in a basic string (a line break after it counted: an audit)
          if (j + 1 < text.size() && text[j + 1] == '\n') ++line;
          j += 2;
        } else {
          ++j;
        }
      }
      // A multi-line string may end with one or two quotes of its own before the delimiter.
      for (int extra = 0; multi && extra < 2 && j + 3 < text.size() && text[j + 3] == c; ++extra) ++j;
      i = std::min(text.size(), j + close.size()) - 1;
      continue;
    }
    in_part = false;
    if (c == '.') {
      after_dot = true;
    } else if (c == '#') {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
      after_dot = false;
    } else if (c != ' ' && c != '\t') {
      after_dot = false;  // '=', brackets, commas, line ends: the key is over
    }
  }
  return 0;
}

class Parser {
 public:
  explicit Parser(std::string source) : source_(std::move(source)) {}

  // "P.toml:LINE:COLUMN" of a node, or just "P.toml" when toml++ does not know.
  std::string location(const toml::node* node) const {
    std::string where = source_;
    if (node != nullptr && node->source().begin.line > 0)
      where += ":" + std::to_string(node->source().begin.line) + ":" + std::to_string(node->source().begin.column);
    return where;
  }

  [[noreturn]] void fail(const toml::node* node, const std::string& key, const std::string& problem) const {
    throw ProfileError{location(node) + ": " + key + (key.empty() ? "" : ": ") + problem};
  }

  void checkKeys(const toml::table& table, const std::string& path, const std::set<std::string>& known) const {
    for (const auto& [key, value] : table) {
      const std::string name(key.str());
      if (!known.count(name)) {
        std::string list;
        for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
        // Point at the key itself when toml++ knows where it is, else at its value.
        const auto& begin = key.source().begin;
        if (begin.line > 0)
          throw ProfileError{source_ + ":" + std::to_string(begin.line) + ":" + std::to_string(begin.column) + ": " +
                             (path.empty() ? name : path + "." + name) + ": unknown key (expected one of: " + list + ")"};
        fail(&value, path.empty() ? name : path + "." + name, "unknown key (expected one of: " + list + ")");
      }
    }
  }

  double number(const toml::table& table, const std::string& path, const char* key, double fallback) const {
    const toml::node* node = table.get(key);
    if (node == nullptr) return fallback;
    if (auto v = node->value_exact<double>()) {
      if (*v == 0 && underflows(*node)) fail(node, path + "." + key, "too small for a number (it would read as 0)");
      return *v;
    }
    if (auto v = node->value_exact<int64_t>()) return static_cast<double>(*v);
    fail(node, path + "." + key, "must be a number");
  }
  bool boolean(const toml::table& table, const std::string& path, const char* key, bool fallback) const {
    const toml::node* node = table.get(key);
    if (node == nullptr) return fallback;
    if (auto v = node->value_exact<bool>()) return *v;
    fail(node, path + "." + key, "must be true or false");
  }
  std::string text(const toml::table& table, const std::string& path, const char* key, bool required) const {
    const toml::node* node = table.get(key);
    if (node == nullptr) {
      if (required) fail(&table, path, std::string("missing key '") + key + "'");
      return {};
    }
    if (auto v = node->value_exact<std::string>()) {
      checkString(node, path + "." + key, *v);
      return *v;
    }
    fail(node, path + "." + key, "must be a string");
  }
  // Labels, globs and names are stored in the world file: no NUL byte, at most kMaxProfileString.
  void checkString(const toml::node* node, const std::string& key, const std::string& value) const {
    if (value.find('\0') != std::string::npos) fail(node, key, "must not contain a NUL byte");
    if (value.size() > kMaxProfileString)
      fail(node, key, fmt::format("longer than {} bytes ({} bytes)", kMaxProfileString, value.size()));
  }
  sim::Vec3 vec3(const toml::table& table, const std::string& path, const char* key) const {
    const toml::node* node = table.get(key);
    if (node == nullptr) fail(&table, path, std::string("missing key '") + key + "'");
    const toml::array* array = node->as_array();
    if (array == nullptr || array->size() != 3) fail(node, path + "." + key, "must be an array of 3 numbers [x, y, z]");
    sim::Vec3 v;
    for (int i = 0; i < 3; ++i) {
      const toml::node& element = *array->get(static_cast<std::size_t>(i));
      double value;
      if (auto d = element.value_exact<double>()) {
        value = *d;
        if (value == 0 && underflows(element)) fail(&element, path + "." + key, "too small for a number (it would read as 0)");
      } else if (auto n = element.value_exact<int64_t>()) {
        value = static_cast<double>(*n);
      } else {
        fail(node, path + "." + key, "must be an array of 3 numbers [x, y, z]");
      }
      if (!std::isfinite(value)) fail(node, path + "." + key, "must be finite");
      v[i] = value;
    }
    return v;
  }
  const toml::array* tableArray(const toml::table& table, const std::string& path, const char* key) const {
    const toml::node* node = table.get(key);
    if (node == nullptr) return nullptr;
    const toml::array* array = node->as_array();
    if (array != nullptr && array->empty()) return nullptr;  // `links = []`: none
    if (array == nullptr || !array->is_array_of_tables())
      fail(node, path + "." + key, std::string("must be an array of tables ([[") + path + "." + key + "]])");
    return array;
  }

  nav::AgentProfile agent(const std::string& name, const toml::table& table) const {
    const std::string path = "agent." + name;
    checkKeys(table, path,
              {"radius", "height", "max_slope", "step_height", "can_jump", "jump_height", "jump_distance", "max_drop",
               "can_climb", "cell_size", "merge_distance", "jump_penalty", "drop_penalty", "climb_penalty",
               "link_snap_distance", "link_snap_height", "climbable", "areas", "modifiers", "links", "fields"});
    nav::AgentProfile profile;
    nav::AgentSettings& s = profile.settings;
    s.name = name;
    s.radius = number(table, path, "radius", s.radius);
    s.height = number(table, path, "height", s.height);
    s.max_slope = number(table, path, "max_slope", s.max_slope);
    s.step_height = number(table, path, "step_height", s.step_height);
    s.can_jump = boolean(table, path, "can_jump", s.can_jump);
    s.jump_height = number(table, path, "jump_height", s.jump_height);
    s.jump_distance = number(table, path, "jump_distance", s.jump_distance);
    s.max_drop = number(table, path, "max_drop", s.max_drop);
    s.can_climb = boolean(table, path, "can_climb", s.can_climb);
    s.cell_size = number(table, path, "cell_size", s.cell_size);
    s.merge_distance = number(table, path, "merge_distance", s.merge_distance);
    s.jump_penalty = number(table, path, "jump_penalty", s.jump_penalty);
    s.drop_penalty = number(table, path, "drop_penalty", s.drop_penalty);
    s.climb_penalty = number(table, path, "climb_penalty", s.climb_penalty);
    s.link_snap_distance = number(table, path, "link_snap_distance", s.link_snap_distance);
    s.link_snap_height = number(table, path, "link_snap_height", s.link_snap_height);
    if (const toml::node* node = table.get("climbable")) {
      const toml::array* array = node->as_array();
      if (array == nullptr) fail(node, path + ".climbable", "must be an array of label globs");
      profile.climbable_source = location(node) + ": " + path + ".climbable";
      for (const toml::node& element : *array) {
        auto v = element.value_exact<std::string>();
        if (!v || v->empty()) fail(node, path + ".climbable", "must be an array of non-empty strings");
        checkString(node, path + ".climbable", *v);
        profile.climbable.push_back(*v);
      }
    }
    // The one rule between two keys, at the key written (either may be a default): the standing
    // box runs from step_height plus the edge rules' 1 mm tolerance up to height. Only once each
    // key is within its own range (validate() checks those first): `height = nan` beside
    // `step_height = 0` is height's error, not step_height's (an audit).
    const std::string invalid = s.validate();
    if (invalid == nav::AgentSettings::kStepBelowHeightRule &&
        (table.get("step_height") != nullptr || table.get("height") != nullptr)) {
      const auto metres = [](double v) { return fmt::format("{} m", v); };  // shortest exact form
      if (table.get("step_height") != nullptr)
        fail(table.get("step_height"), path + ".step_height",
             metres(s.step_height) + " must be more than 1 mm below height (" + metres(s.height) +
                 (table.get("height") != nullptr ? ")" : ", the default)"));
      fail(table.get("height"), path + ".height",
           metres(s.height) + " must be more than 1 mm above step_height (" + metres(s.step_height) + ", the default)");
    }
    if (const std::string& e = invalid; !e.empty()) {
      const std::string key = e.substr(0, e.find(':'));
      fail(table.get(key) ? table.get(key) : &table, path + "." + key, e.substr(e.find(':') + 2));
    }
    // One cost per area name, located at the entry that gives a second one.
    std::map<std::string, std::pair<double, const toml::node*>> area_costs;
    const auto checkAreaCost = [&](const toml::table& t, const std::string& p, const std::string& area, double cost) {
      const toml::node* at = t.get("cost") != nullptr ? t.get("cost") : &t;
      if (area == "default" && cost != 1.0) fail(at, p + ".cost", "area 'default' always costs 1");
      const auto [first, inserted] = area_costs.emplace(area, std::pair{cost, at});
      if (!inserted && first->second.first != cost)
        fail(at, p + ".cost",
             fmt::format("area '{}' costs {} here but {} at {}", area, cost, first->second.first,
                         location(first->second.second)));
    };
    // An entry without `cost` takes the cost its area already has from an entry before it in the
    // file (an area rule or a modifier, whichever array it is in), else 1: a modifier re-using an
    // area of the rules need not repeat its cost, nor a rule one of a modifier written above it.
    struct Costed {
      const toml::table* table;
      std::string path, area;
      double* cost;
    };
    std::vector<Costed> costed;
    if (const toml::array* areas = tableArray(table, path, "areas")) {
      profile.areas.reserve(areas->size());
      for (std::size_t i = 0; i < areas->size(); ++i) {
        const toml::table& t = *areas->get(i)->as_table();
        const std::string p = path + ".areas[" + std::to_string(i) + "]";
        checkKeys(t, p, {"label", "tag", "area", "cost"});
        nav::AreaRule rule;
        rule.label_glob = text(t, p, "label", false);
        rule.tag_glob = text(t, p, "tag", false);
        for (const char* key : {"label", "tag"})
          if (t.get(key) != nullptr && (key == std::string("label") ? rule.label_glob : rule.tag_glob).empty())
            fail(t.get(key), p + "." + key, "must not be empty (a glob of at least one character)");
        if (rule.label_glob.empty() == rule.tag_glob.empty()) fail(&t, p, "give exactly one of 'label' or 'tag'");
        rule.area = text(t, p, "area", true);
        checkName(t, p, "area", rule.area);
        profile.areas.push_back(rule);
        profile.area_sources.push_back(location(&t) + ": " + p);
        costed.push_back({&t, p, rule.area, &profile.areas.back().cost});  // reserved: the address stays
      }
    }
    if (const toml::array* modifiers = tableArray(table, path, "modifiers")) {
      profile.modifiers.reserve(modifiers->size());
      for (std::size_t i = 0; i < modifiers->size(); ++i) {
        const toml::table& t = *modifiers->get(i)->as_table();
        const std::string p = path + ".modifiers[" + std::to_string(i) + "]";
        checkKeys(t, p, {"min", "max", "area", "cost"});
        nav::ModifierVolume m;
        m.box.min = vec3(t, p, "min");
        m.box.max = vec3(t, p, "max");
        if (m.box.empty()) fail(t.get("max"), p + ".max", "must be >= min on every axis");
        m.area = text(t, p, "area", true);
        checkName(t, p, "area", m.area);
        profile.modifiers.push_back(m);
        profile.modifier_sources.push_back(location(&t) + ": " + p);
        costed.push_back({&t, p, m.area, &profile.modifiers.back().cost});  // reserved: the address stays
      }
    }
    // File order (toml++ keeps each table's position; the arrays' own order breaks ties).
    std::stable_sort(costed.begin(), costed.end(), [](const Costed& a, const Costed& b) {
      const auto pa = a.table->source().begin, pb = b.table->source().begin;
      return pa.line != pb.line ? pa.line < pb.line : pa.column < pb.column;
    });
    for (const Costed& c : costed) {
      const toml::table& t = *c.table;
      double cost = 1.0;
      if (t.get("cost") == nullptr) {
        if (const auto known = area_costs.find(c.area); known != area_costs.end()) cost = known->second.first;
      } else {
        cost = number(t, c.path, "cost", 1.0);
      }
      checkCost(t, c.path, cost);
      checkAreaCost(t, c.path, c.area, cost);
      *c.cost = cost;
    }
    if (const toml::array* links = tableArray(table, path, "links"))
      for (std::size_t i = 0; i < links->size(); ++i) {
        const toml::table& t = *links->get(i)->as_table();
        const std::string p = path + ".links[" + std::to_string(i) + "]";
        checkKeys(t, p, {"from", "to", "label", "cost", "bidirectional"});
        nav::LinkSpec link;
        link.from = vec3(t, p, "from");
        link.to = vec3(t, p, "to");
        link.label = text(t, p, "label", true);
        if (link.label.empty()) fail(t.get("label"), p + ".label", "must not be empty");
        link.cost = number(t, p, "cost", -1.0);
        if (t.get("cost") && !(link.cost >= kMinLinkCost && link.cost <= kMaxCost))
          fail(t.get("cost"), p + ".cost", fmt::format("must be from {:g} to {:g}", kMinLinkCost, kMaxCost));
        link.bidirectional = boolean(t, p, "bidirectional", false);
        link.source = location(&t) + ": " + p;
        profile.links.push_back(link);
      }
    if (const toml::array* fields = tableArray(table, path, "fields"))
      for (std::size_t i = 0; i < fields->size(); ++i) {
        const toml::table& t = *fields->get(i)->as_table();
        const std::string p = path + ".fields[" + std::to_string(i) + "]";
        checkKeys(t, p, {"name", "origin", "max_distance"});
        nav::FieldSpec field;
        field.name = text(t, p, "name", true);
        checkName(t, p, "name", field.name);
        field.origin = vec3(t, p, "origin");
        field.max_distance = number(t, p, "max_distance", field.max_distance);
        if (!(field.max_distance > 0) || !std::isfinite(field.max_distance))
          fail(t.get("max_distance"), p + ".max_distance", "must be positive and finite");
        field.source = location(&t) + ": " + p;
        profile.fields.push_back(field);
      }
    if (std::string e = profile.validate(); !e.empty()) {
      // "agent A: fields[1]: duplicate ..." -> at that element of the array when there is one.
      e = e.substr(e.find(": ") + 2);
      const std::size_t open = e.find('['), close = e.find("]: ");
      if (open != std::string::npos && close != std::string::npos && open < close && e.find(' ') > close) {
        const std::string array = e.substr(0, open);
        const std::size_t index = std::strtoul(e.c_str() + open + 1, nullptr, 10);
        if (const toml::array* elements = table.get(array) ? table.get(array)->as_array() : nullptr;
            elements != nullptr && index < elements->size())
          fail(elements->get(index), path + "." + e.substr(0, close + 1), e.substr(close + 3));
      }
      fail(&table, path, e);
    }
    return profile;
  }

  // An area or field name, located at its key (profile.validate() could only name the entry).
  void checkName(const toml::table& t, const std::string& p, const char* key, const std::string& name) const {
    if (!nav::validName(name)) fail(t.get(key), p + "." + key, fmt::format("{} (got '{}')", nav::kNameRule, name));
  }

  void checkCost(const toml::table& t, const std::string& p, double cost) const {
    if (std::isnan(cost) || cost < 1.0 || (cost > kMaxCost && !std::isinf(cost)))
      fail(t.get("cost") ? t.get("cost") : &t, p + ".cost", fmt::format("must be from 1 to {:g}, or inf", kMaxCost));
  }

  // "agent.a.fields[1].max_distance: " when a syntax error lies in the value of a `key = value`
  // line (as the profile's other errors name their key: toml++ names none, "p.toml:2:15: Error
  // while parsing floating-point: '1e400' ..."; an audit), the key after the last table header
  // before it (an array of tables' element by its index); else empty. Only where that is
  // certain: a bare or dotted key (no quotes, no inline table), and no multi-line string
  // before the error (whose lines could look like keys or headers; the re-audit).
  static std::string keyOfValueAt(std::string_view text, std::size_t line, std::size_t column) {
    std::vector<std::string_view> lines;
    for (std::size_t start = 0; lines.size() < line && start <= text.size();) {
      const std::size_t end = std::min(text.find('\n', start), text.size());
      lines.push_back(text.substr(start, end - start));
      start = end + 1;
    }
    if (lines.size() < line || line == 0) return {};
    for (std::size_t l = 0; l < line; ++l)
      if (lines[l].find("\"\"\"") != std::string_view::npos || lines[l].find("\'\'\'") != std::string_view::npos) return {};
    // Whitespace dropped ("agent . a" is "agent.a"); empty when anything but a bare or dotted key.
    auto bare = [](std::string_view v) {
      std::string key;
      for (const char c : v) {
        if (c == ' ' || c == '\t' || c == '\r') continue;
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return std::string();
        key += c;
      }
      return key;
    };
    const std::string_view here = lines[line - 1];
    const std::size_t equals = here.find('=');
    if (equals == std::string_view::npos || equals + 1 >= column) return {};
    const std::string key = bare(here.substr(0, equals));
    if (key.empty()) return {};
    // The last header before the line: "[name]" or "[[name]]", a comment after it allowed.
    auto headerOf = [&](std::string_view l, bool& array) -> std::optional<std::string> {
      const std::size_t first = l.find_first_not_of(" \t");
      if (first == std::string_view::npos || l[first] != '[') return std::nullopt;
      l = l.substr(first);
      array = l.rfind("[[", 0) == 0;
      const std::size_t close = l.find(array ? "]]" : "]");
      if (close == std::string_view::npos) return std::string();
      return bare(l.substr(array ? 2 : 1, close - (array ? 2 : 1)));
    };
    std::string header;
    bool array = false;
    std::size_t header_line = 0;
    for (std::size_t l = line - 1; l-- > 0 && header_line == 0;)
      if (auto h = headerOf(lines[l], array)) {
        if (h->empty()) return {};  // a quoted or malformed header
        header = *h;
        header_line = l + 1;
      }
    if (array) {
      std::size_t index = 0;
      for (std::size_t l = 0; l + 1 < header_line; ++l) {
        bool other_array = false;
        const auto h = headerOf(lines[l], other_array);
        if (h && other_array && h->empty()) return {};  // a quoted array header may be this one (an audit)
        index += h && other_array && *h == header;
      }
      header += "[" + std::to_string(index) + "]";
    }
    return (header.empty() ? key : header + "." + key) + ": ";
  }

  // toml++'s message, with the redefined table named by its header as written on that line:
  // toml++ 3.3 garbles a quoted name ([agent."a"] came out as 'agent."a"a"').
  // Likewise a key set twice ('"height" = 3' after 'height = 2' came out as '"heheight" '): named
  // as written before its '=' on that line (an audit).
  static std::string describe(std::string_view description, std::string_view text, std::size_t line) {
    constexpr std::string_view kRedefined = "cannot redefine existing table '";
    constexpr std::string_view kRedefinedValue = "cannot redefine existing ";
    const std::size_t at = description.find(kRedefined);
    const std::size_t value_at = description.find(kRedefinedValue);
    if ((at == std::string_view::npos && value_at == std::string_view::npos) || line == 0) return std::string(description);
    std::size_t start = 0;
    for (std::size_t l = 1; l < line && start != std::string_view::npos; ++l) {
      start = text.find('\n', start);
      if (start != std::string_view::npos) ++start;
    }
    if (start == std::string_view::npos) return std::string(description);
    if (at == std::string_view::npos) {
      // Only toml++'s "cannot redefine existing <type> '<key>'" for a line "key = value" (not an
      // inline table, nor a value turned into a dotted table: the re-audit), its key up to the
      // first '=' outside quotes.
      const std::string_view whole = text.substr(start, text.find('\n', start) - start);
      const std::size_t quote = description.find('\'', value_at);
      if (quote == std::string_view::npos || description.find_last_not_of(" ") != description.rfind('\'') ||
          description.rfind('\'') == quote)
        return std::string(description);
      std::size_t equals = std::string_view::npos;
      char in_quote = 0;
      for (std::size_t i = 0; i < whole.size() && equals == std::string_view::npos; ++i) {
        const char c = whole[i];
        if (in_quote != 0) {
          if (c == in_quote) in_quote = 0;
        } else if (c == '"' || c == '\'') {
          in_quote = c;
        } else if (c == '=') {
          equals = i;
        }
      }
      if (equals == std::string_view::npos) return std::string(description);
      // An inline table as the value: the key set twice is inside it (a '{' in a string or a
      // comment is no table: the re-audit).
      if (const std::size_t value = whole.find_first_not_of(" \t", equals + 1);
          value != std::string_view::npos && whole[value] == '{')
        return std::string(description);
      std::string_view key = whole.substr(0, equals);
      while (!key.empty() && (key.front() == ' ' || key.front() == '\t')) key.remove_prefix(1);
      while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.remove_suffix(1);
      if (key.empty() || key.size() > 200) return std::string(description);
      return std::string(description.substr(0, value_at)) + "cannot redefine existing key " + std::string(key) + " (set twice)";
    }
    std::string_view header = text.substr(start, text.find('\n', start) - start);
    const std::size_t open = header.find('['), close = header.rfind(']');
    // A header line starts with its '[' ("human = [1]" is a value, not a header: the re-audit).
    if (open == std::string_view::npos || close == std::string_view::npos || close < open ||
        header.find_first_not_of(" \t") != open)
      return std::string(description);
    header = header.substr(open, close - open + 1);
    return std::string(description.substr(0, at)) + "cannot redefine existing table " + std::string(header);
  }

  nav::BakeProfile parse(std::string_view text) const {
    text_ = text;
    if (const std::size_t line = lineOfDeepKey(text); line != 0)
      throw ProfileError{source_ + ":" + std::to_string(line) + ": a key or table header of more than " +
                         std::to_string(kMaxKeyParts) + " dotted parts"};
    toml::table root;
    try {
      root = toml::parse(text, source_);
    } catch (const toml::parse_error& e) {
      const auto& begin = e.source().begin;
      std::string key = keyOfValueAt(text, begin.line, begin.column);
      // A dotted key adding to a table that has its own header is reported at the key itself,
      // before its value, where keyOfValueAt names nothing (an audit: "...:4:1: Error while
      // parsing key-value pair: cannot redefine existing table as dotted key-value pair", no key):
      // the key of that line, as for an error in its value.
      if (key.empty() && e.description().find("as dotted key-value pair") != std::string_view::npos)
        key = keyOfValueAt(text, begin.line, std::numeric_limits<std::size_t>::max());
      throw ProfileError{source_ + ":" + std::to_string(begin.line) + ":" + std::to_string(begin.column) + ": " + key +
                         describe(e.description(), text, begin.line)};
    }
    checkKeys(root, "", {"agent"});
    const toml::node* agents_node = root.get("agent");
    if (agents_node == nullptr) fail(nullptr, "", "no [agent.NAME] table (a profile defines at least one agent)");
    const toml::table* agents = agents_node->as_table();
    if (agents == nullptr) fail(agents_node, "agent", "must be a table of agents ([agent.NAME])");
    nav::BakeProfile profile;
    // Agents in the order the profile writes them (toml++ keeps a table's keys sorted by name): the
    // first one is every command's default agent.
    // An agent's place is where the profile first writes anything of it: toml++ moves a table
    // made by a sub-table's header ([[agent.c.links]]) to its own later [agent.c] header, and
    // an agent written that way became the default after one written between (an audit).
    std::vector<std::pair<const toml::key*, const toml::node*>> ordered;
    for (const auto& [key, value] : *agents) ordered.emplace_back(&key, &value);
    using Place = std::pair<toml::source_index, toml::source_index>;
    const auto earliest = [](const toml::key& name, const toml::node& top) {
      Place best{std::numeric_limits<toml::source_index>::max(), std::numeric_limits<toml::source_index>::max()};
      const auto take = [&](const toml::source_region& r) {
        if (r.begin.line > 0) best = std::min(best, Place{r.begin.line, r.begin.column});
      };
      take(name.source());
      std::vector<const toml::node*> pending{&top};
      while (!pending.empty()) {
        const toml::node* node = pending.back();
        pending.pop_back();
        take(node->source());
        if (const toml::table* t = node->as_table())
          for (const auto& [key, child] : *t) {
            take(key.source());
            pending.push_back(&child);
          }
        else if (const toml::array* a = node->as_array())
          for (const toml::node& element : *a) pending.push_back(&element);
      }
      return best;
    };
    std::vector<std::pair<Place, std::size_t>> places;
    for (std::size_t i = 0; i < ordered.size(); ++i) places.emplace_back(earliest(*ordered[i].first, *ordered[i].second), i);
    std::stable_sort(places.begin(), places.end());
    std::vector<std::pair<const toml::key*, const toml::node*>> sorted;
    for (const auto& [place, i] : places) sorted.push_back(ordered[i]);
    ordered = std::move(sorted);
    for (const auto& [key_pointer, value_pointer] : ordered) {
      const toml::key& key = *key_pointer;
      const toml::node& value = *value_pointer;
      const std::string name(key.str());
      const toml::table* table = value.as_table();
      if (table == nullptr) fail(&value, "agent." + name, "must be a table ([agent." + name + "])");
      profile.agents.push_back(agent(name, *table));
    }
    if (profile.agents.empty()) fail(agents_node, "agent", "defines no agent");
    if (std::string e = profile.validate(); !e.empty()) fail(agents_node, "agent", e);
    return profile;
  }

 private:
  // Whether a number that reads as 0 was written as a nonzero one too small for a double
  // (1e-400): refused as 1e400 is (an audit: 'cell_size = 1e-400' baked at the default cell
  // size, 0 meaning "from the radius"; the batch requests refuse it too).
  bool underflows(const toml::node& node) const {
    const auto& begin = node.source().begin;
    if (begin.line == 0 || begin.column == 0) return false;
    if (line_starts_.empty()) {
      line_starts_.push_back(0);
      for (std::size_t i = 0; i < text_.size(); ++i)
        if (text_[i] == '\n') line_starts_.push_back(i + 1);
    }
    if (begin.line > line_starts_.size()) return false;
    // toml++ counts a column in characters, and a byte-order mark not at all (a review: a label
    // of 'Brücke' before the value read a digit of the one before it).
    std::size_t at = line_starts_[begin.line - 1];
    if (begin.line == 1 && text_.rfind("\xEF\xBB\xBF", 0) == 0) at += 3;
    for (std::size_t characters = 1; characters < begin.column && at < text_.size() && text_[at] != '\n'; ++characters)
      do ++at;
      while (at < text_.size() && (static_cast<unsigned char>(text_[at]) & 0xC0) == 0x80);
    if (at >= text_.size()) return false;
    const std::size_t end = text_.find_first_not_of("0123456789+-._eE", at);
    const std::string_view literal = text_.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
    const std::string_view mantissa = literal.substr(0, literal.find_first_of("eE"));
    return mantissa.find_first_of("123456789") != std::string_view::npos;
  }

  std::string source_;
  mutable std::string_view text_;                 // the text parse() reads
  mutable std::vector<std::size_t> line_starts_;  // of text_, made when first needed
};

// The shortest form that reads back as `v` (0.3, not 0.29999999999999999).
std::string number(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

// A TOML basic string ("..."), every character TOML forbids there escaped. (The library's writer
// (toml++) chose a multi-line literal string for text holding a line break, which cannot hold three
// apostrophes: a link label holding both gave a world file whose @profile no reader could parse.)
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\f': out += "\\f"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char escape[8];
          std::snprintf(escape, sizeof escape, "\\u%04X", static_cast<unsigned>(c));
          out += escape;
        } else {
          out += ch;  // UTF-8 passes as it is (profiles are checked to be UTF-8)
        }
    }
  }
  return out + "\"";
}

std::string vec(const sim::Vec3& v) { return "[" + number(v.x) + ", " + number(v.y) + ", " + number(v.z) + "]"; }

}  // namespace

Result<nav::BakeProfile> parseProfile(std::string_view text, const std::string& source_name) {
  try {
    return Parser(source_name).parse(text);
  } catch (const ProfileError& e) {
    return Error::badInput(e.message);
  }
}

Result<nav::BakeProfile> loadProfile(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return Error::badInput(path.string() + ": is a directory, not a profile");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::cannotOpen(path.string());
  // Read at most one byte past the limit: /dev/zero or a huge file is refused, not read whole.
  // In pieces, so that a profile of a few hundred bytes does not fill and fault in a buffer of
  // the limit's size first (that took 40 ms of every `strata bake --profile`).
  constexpr std::size_t kLimit = kMaxProfileFileBytes;
  constexpr std::size_t kPiece = 64 * 1024;
  std::string text;
  // A regular file's size is known: one allocation (growing by doubling took a 16 MiB profile's
  // peak from 32.8 to 48.7 MB, a re-audit); a pipe or device grows piece by piece.
  if (std::filesystem::is_regular_file(path, ec)) {
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    if (!ec) text.reserve(static_cast<std::size_t>(std::min<std::uintmax_t>(size, kLimit) + 1));
  }
  while (text.size() <= kLimit && in) {
    const std::size_t had = text.size();
    text.resize(had + std::min(kPiece, kLimit + 1 - had));
    in.read(text.data() + had, static_cast<std::streamsize>(text.size() - had));
    text.resize(had + static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) return Error::badInput(path.string() + ": cannot read profile");
  if (text.size() > kLimit) return Error::badInput(path.string() + ": profile larger than 16 MiB");
  return parseProfile(text, path.string());
}

std::string profileToToml(const nav::BakeProfile& profile) {
  std::ostringstream out;
  for (const nav::AgentProfile& agent : profile.agents) {
    const nav::AgentSettings& s = agent.settings;
    out << "[agent." << s.name << "]\n";
    out << "radius = " << number(s.radius) << "\nheight = " << number(s.height) << "\nmax_slope = " << number(s.max_slope)
        << "\nstep_height = " << number(s.step_height) << "\ncan_jump = " << (s.can_jump ? "true" : "false")
        << "\njump_height = " << number(s.jump_height) << "\njump_distance = " << number(s.jump_distance)
        << "\nmax_drop = " << number(s.max_drop) << "\ncan_climb = " << (s.can_climb ? "true" : "false")
        << "\ncell_size = " << number(s.cell_size) << "\nmerge_distance = " << number(s.merge_distance)
        << "\njump_penalty = " << number(s.jump_penalty) << "\ndrop_penalty = " << number(s.drop_penalty)
        << "\nclimb_penalty = " << number(s.climb_penalty) << "\nlink_snap_distance = " << number(s.link_snap_distance)
        << "\nlink_snap_height = " << number(s.link_snap_height) << "\n";
    out << "climbable = [";
    for (std::size_t i = 0; i < agent.climbable.size(); ++i) out << (i ? ", " : "") << quoted(agent.climbable[i]);
    out << "]\n";
    for (const nav::AreaRule& rule : agent.areas) {
      out << "\n[[agent." << s.name << ".areas]]\n";
      if (!rule.label_glob.empty()) out << "label = " << quoted(rule.label_glob) << "\n";
      if (!rule.tag_glob.empty()) out << "tag = " << quoted(rule.tag_glob) << "\n";
      out << "area = " << quoted(rule.area) << "\ncost = " << number(rule.cost) << "\n";
    }
    for (const nav::ModifierVolume& m : agent.modifiers)
      out << "\n[[agent." << s.name << ".modifiers]]\nmin = " << vec(m.box.min) << "\nmax = " << vec(m.box.max)
          << "\narea = " << quoted(m.area) << "\ncost = " << number(m.cost) << "\n";
    for (const nav::LinkSpec& link : agent.links) {
      out << "\n[[agent." << s.name << ".links]]\nfrom = " << vec(link.from) << "\nto = " << vec(link.to)
          << "\nlabel = " << quoted(link.label) << "\n";
      if (link.cost >= 0) out << "cost = " << number(link.cost) << "\n";
      out << "bidirectional = " << (link.bidirectional ? "true" : "false") << "\n";
    }
    for (const nav::FieldSpec& field : agent.fields)
      out << "\n[[agent." << s.name << ".fields]]\nname = " << quoted(field.name) << "\norigin = " << vec(field.origin)
          << "\nmax_distance = " << number(field.max_distance) << "\n";
    out << "\n";
  }
  return out.str();
}

Status checkStoredProfileSize(const nav::BakeProfile& profile, const std::string& source) {
  for (const nav::AgentProfile& agent : profile.agents) {
    nav::BakeProfile single;
    single.agents.push_back(agent);
    const std::size_t bytes = profileToToml(single).size();
    if (bytes > kMaxProfileFileBytes)
      return Error::badInput(fmt::format("{}: agent {}: its settings written out as TOML (the world's @profile) take {} bytes, "
                                         "more than the 16 MiB a profile may have",
                                         source, agent.settings.name, bytes));
  }
  return Ok{};
}

}  // namespace strata::formats
