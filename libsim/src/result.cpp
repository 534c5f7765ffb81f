// Error::cannotOpen: one wording for a file a command cannot read.

#include "strata/sim/result.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace strata {

Error Error::cannotOpen(const std::string& name, const std::string& path) {
  const int saved = errno;
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (status.type() == std::filesystem::file_type::not_found) return noSuchFile(name);
  if (status.type() == std::filesystem::file_type::directory) return badInput(name + ": is a directory, not a file");
  return badInput(name + ": cannot open: " + (saved != 0 ? std::strerror(saved) : "unknown reason"));
}

Error Error::noSuchFile(const std::string& name) {
  return badInput(name + (name == "-" ? ": standard input is not read; give the input as a file" : ": no such file"));
}

}  // namespace strata
