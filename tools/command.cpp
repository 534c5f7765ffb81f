#include "command.h"

#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace strata::cli {

std::vector<Command>& commandRegistry() {
  static std::vector<Command> registry;
  return registry;
}

int reportError(const Error& error) {
  std::string line = error.message;
  for (char& c : line)
    if (c == '\n' || c == '\r') c = ' ';
  fmt::print(stderr, "strata: error: {}\n", line);
  return error.kind == ErrorKind::BadInput ? kExitBadInput : kExitRuntime;
}

int badInput(const std::string& message) { return reportError(Error::badInput(message)); }

void warn(const std::string& message) { fmt::print(stderr, "strata: warning: {}\n", message); }

std::optional<std::vector<double>> parseNumbers(const std::string& text, std::size_t count) {
  std::vector<double> values;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string token = text.substr(start, end - start);
    // trim spaces
    while (!token.empty() && token.front() == ' ') token.erase(token.begin());
    while (!token.empty() && token.back() == ' ') token.pop_back();
    if (token.empty()) return std::nullopt;
    char* parse_end = nullptr;
    const double v = std::strtod(token.c_str(), &parse_end);
    if (parse_end != token.c_str() + token.size() || !std::isfinite(v)) return std::nullopt;
    values.push_back(v);
    start = end + 1;
    if (end == text.size()) break;
  }
  if (values.size() != count) return std::nullopt;
  return values;
}

std::optional<sim::Vec3> parseVec3(const std::string& text) {
  auto values = parseNumbers(text, 3);
  if (!values) return std::nullopt;
  return sim::Vec3{(*values)[0], (*values)[1], (*values)[2]};
}

bool stderrIsTerminal() { return isatty(STDERR_FILENO) == 1; }

}  // namespace strata::cli
