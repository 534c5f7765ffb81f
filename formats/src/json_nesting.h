#pragma once
// Nesting depth of JSON text, checked before nlohmann parses it: its parser is iterative, but a
// deeply nested value still costs recursion when it is built or destroyed (50,000 brackets
// overflowed the stack), and nothing Strata reads nests deeper than a few levels.

#include <cstddef>
#include <string_view>

namespace strata::formats::detail {

/// True when `json` opens more than `max_depth` arrays or objects inside one another (brackets
/// inside strings do not count; the text need not be valid JSON).
inline bool jsonNestedDeeperThan(std::string_view json, std::size_t max_depth) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > max_depth) return true;
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
  }
  return false;
}

}  // namespace strata::formats::detail
