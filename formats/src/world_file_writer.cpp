// Atomic, reproducible writing of the world file (docs/format.md, "Determinism" and
// "Atomicity").
//
// The file is built in a private temporary folder beside the target (same directory, hence same
// file system), through its descriptor, flushed and closed by HDF5, fsync'ed, renamed over the
// target out of that folder (renameat through the folder's descriptor) and the directory
// fsync'ed. A failure at any step removes the temporary, and so does SIGINT, SIGTERM or SIGHUP
// (TemporaryFile); a writer killed otherwise leaves at most a stale `.NAME.tmp-PID-N` folder,
// never a partial file at the target, and an existing target stays
// untouched until the rename replaces it whole. A symbolic link at the target is followed. The
// temporary is created exclusively (TemporaryFile::createFor): a stale one of the same name is
// left alone and another name taken.
//
// Reproducibility: object timestamps are off on every group and dataset (and on the root group
// through the file creation list), the library-version bounds are pinned to the 1.8 format so
// the on-disk structures do not change with the HDF5 release writing them, strings are
// fixed-length (no global heap), and every object is written in one fixed order, so identical
// worlds give byte-identical files.

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "strata/formats/output_file.h"
#include "world_file_internal.h"
#include "world_file_sections.h"

namespace strata::formats {

namespace detail {

Status writeWorldContents(const h5::Location& root, const World& world, bool check_agents) {
  if (auto s = h5::writeInt32Attribute(root, "schema_version", kWorldSchemaVersion); !s) return s;
  if (auto s = writeMetadata(root, world.provenance); !s) return s;
  if (auto s = writeGeometry(root, world.geometry); !s) return s;
  const sim::Aabb bounds = world.geometry.bounds();
  return writeNavigation(root, world.agents, check_agents, &bounds);
}

}  // namespace detail

namespace {

std::string errnoText(int error) { return std::error_code(error, std::generic_category()).message(); }

// fsync of a file or directory by path; returns 0 or the errno.
int syncPath(const std::filesystem::path& path, bool directory) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | (directory ? O_DIRECTORY : 0));
  // A directory this user may write in but not read (mode 0333, a drop box) cannot be opened to
  // be synced; the rename into it is done and atomic, so the write stands (it exited 1, "written,
  // but cannot sync directory", with the new file in place, where the docs promise a failure
  // leaves the old one: an audit).
  if (fd < 0 && directory && (errno == EACCES || errno == EPERM)) return 0;
  if (fd < 0) return errno;
  int error = 0;
  if (::fsync(fd) != 0) error = errno;
  ::close(fd);
  // Some file systems refuse fsync on directories; the rename is still atomic there.
  if (directory && (error == EINVAL || error == EROFS)) error = 0;
  return error;
}

}  // namespace

namespace {

Status writeWorld(const std::filesystem::path& path, const World& world, bool check_agents) {
  const std::string name = path.string();
  if (path.empty() || !path.has_filename())
    return Error::badInput((name.empty() ? std::string("world file") : name) + ": output path names no file");
  if (const std::string problem = world.geometry.validate(); !problem.empty())
    return Error::badInput(name + ": cannot write world: " + problem);
  if (const std::string problem = detail::validateProvenance(world.provenance); !problem.empty())
    return Error::badInput(name + ": cannot write world: " + problem);

  // Symbolic links are followed (the link stays); devices, FIFOs and directories are refused.
  auto checked = checkOutputPath(path);
  if (!checked) return checked.error();
  const std::filesystem::path target = *checked;
  const std::filesystem::path directory = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");

  const h5::ErrorSilencer silence;
  h5::PropertyList fcpl(H5Pcreate(H5P_FILE_CREATE));
  h5::PropertyList fapl(H5Pcreate(H5P_FILE_ACCESS));
  if (!fcpl || !fapl || H5Pset_obj_track_times(fcpl.get(), false) < 0 ||
      H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V110, H5F_LIBVER_V110) < 0 ||
      H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_STRONG) < 0 || H5Pset_file_locking(fapl.get(), false, true) < 0)
    return Error::runtime(name + ": cannot set up HDF5 file properties" + h5::errorSuffix());

  auto created = TemporaryFile::createFor(target, name);
  if (!created) return created.error();
  TemporaryFile& temporary = **created;
  const std::string temporary_name = temporary.path().string();
  {
    // The temporary is this process's own (created exclusively above), so truncating it is safe;
    // it is opened through its descriptor's link, never by its name (output_file.h).
    h5::File file(H5Fcreate(temporary.writePath().c_str(), H5F_ACC_TRUNC, fcpl.get(), fapl.get()));
    if (!file) return Error::runtime(name + ": cannot create temporary file " + temporary_name + h5::errorSuffix());
    const h5::Location root{file.get(), name, "/"};
    if (auto s = detail::writeWorldContents(root, world, check_agents); !s) return s;
    if (H5Fflush(file.get(), H5F_SCOPE_GLOBAL) < 0 || !file.close())
      return Error::runtime(name + ": cannot flush " + temporary_name + h5::errorSuffix());
  }
  if (::fsync(temporary.fd()) != 0)
    return Error::runtime(name + ": cannot sync " + temporary_name + ": " + errnoText(errno));
  keepModeOf(target, temporary.fd());
  if (auto moved = temporary.renameOver(target, name); !moved) return moved;
  if (const int error = syncPath(directory, true); error != 0)
    return Error::runtime(name + ": written, but cannot sync directory '" + directory.string() + "': " + errnoText(error));
  return Ok{};
}

}  // namespace

Status writeWorldFile(const std::filesystem::path& path, const World& world) { return writeWorld(path, world, true); }

Status detail::writeWorldFileUnchecked(const std::filesystem::path& path, const World& world) {
  return writeWorld(path, world, false);
}

}  // namespace strata::formats
