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
  if (name == "-") return badInput(name + ": standard input is not read; give the input as a file");
  // "world.h5/" names no file because world.h5 is one, not a folder: say so (an audit: "no such
  // file" for a file that is there).
  std::error_code ec;
  (void)std::filesystem::status(name, ec);
  if (ec == std::errc::not_a_directory) return badInput(name + ": no such file (a part of the path is a file, not a folder)");
  // A file behind a folder the user cannot search, or a name past the system's limits, is not
  // known to be missing (an audit: "no such file" for both).
  if (ec == std::errc::permission_denied)
    return badInput(name + ": cannot open: Permission denied (a folder on its path cannot be searched)");
  if (ec == std::errc::filename_too_long) return badInput(name + ": cannot open: File name too long");
  return badInput(name + ": no such file");
}

}  // namespace strata
