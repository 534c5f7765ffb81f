#pragma once
/// \file
/// What every command that writes a file shares: the checks on an output path before any work,
/// and the temporary file that becomes the output by rename(2) when it is complete.

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "strata/sim/result.h"

namespace strata::formats {

/// Checks the output path `path` and returns the file the write will replace.
///
/// - A symbolic link is followed (also a chain of them, and one whose target does not exist
///   yet): the file it names is replaced and the link stays a link.
/// - Bad input (each a one-line message naming `path`): no file name, or one longer than 255
///   bytes; the directory does not exist or cannot be written in; `path` is a directory; `path` exists and is not a regular file (a device such as
///   /dev/null, a FIFO, a socket: renaming over it would replace it, so it is refused); `path`
///   is the same file as one of `inputs` (those that do not exist are skipped).
Result<std::filesystem::path> checkOutputPath(const std::filesystem::path& path,
                                              const std::vector<std::filesystem::path>& inputs = {});

/// A fresh temporary path beside `target` (same directory, so rename(2) is atomic):
/// `<dir>/.<name>.tmp-<pid>-<n>`, n counting up within the process (a long name is shortened
/// so the temporary's stays within 255 bytes).
std::filesystem::path temporaryPathFor(const std::filesystem::path& target);

/// True when `name` is the file name of a temporary for `target_name` (temporaryPathFor).
bool isTemporaryNameFor(const std::string& name, const std::string& target_name);

/// Before a temporary replaces `target`: when `target` is an existing regular file, gives the
/// temporary its permission bits and, where allowed, its owner and group, so a replaced file
/// keeps them (a private 0600 file stays private). Nothing when `target` does not exist.
void keepModeOf(const std::filesystem::path& target, const std::filesystem::path& temporary);
/// The same through the temporary's open descriptor (fchown, fchmod: no name is followed).
void keepModeOf(const std::filesystem::path& target, int temporary_fd);

/// A temporary file that is removed when this object is destroyed unless commit() was called,
/// and also when the process is ended by SIGINT, SIGTERM or SIGHUP before then: a TemporaryFile
/// installs, for each of those signals whose action is still the default one, a handler that
/// removes every live temporary and then ends the process by the same signal (its default
/// action), so an interrupted write leaves nothing behind. Signals the program ignores or
/// handles itself are left alone. At most 64 temporaries are covered at once (more are still removed on
/// destruction). A Folder's entries are files (no subfolders).
class TemporaryFile {
 public:
  /// File: one file at `path`. Folder: a folder at `path` and the files in it (removed whole).
  enum class Kind { File, Folder };
  /// Creates a fresh temporary beside `target` and owns it: a file named as the target inside a
  /// private folder (mkdir mode 0700, then open with O_CREAT | O_EXCL | O_NOFOLLOW, mode 0666
  /// less the umask, empty) or an empty folder (mode 0700), the folder named as temporaryPathFor
  /// says, and kept open. A name already taken (a temporary a killed writer
  /// left, one of another process with the same pid in another container, a planted symbolic
  /// link) is never opened, written or removed: the next name is tried, with a random part, up
  /// to 64 times. The error (a runtime Error naming `display` and the temporary) when none can be
  /// created, or when the folder opened is not the one created (another user's in its place).
  ///
  /// Another user who can write in the target's directory could rename the temporary away and
  /// put a symbolic link in its place between its creation and its use: writers therefore open
  /// it again only through writePath(), the descriptor's /proc/self/fd link (the file created,
  /// whatever its name now names), set its mode through fd(), and move it into place with
  /// renameOver(), which renames it out of its private folder through the folder's descriptor
  /// (nobody else can change that folder's entries).
  static Result<std::unique_ptr<TemporaryFile>> createFor(const std::filesystem::path& target, const std::string& display,
                                                          Kind kind = Kind::File);
  /// Takes `path`, which the caller has created (or is about to) and owns, for removal; `fd` its
  /// open descriptor, which the object closes (-1: none).
  /// (createFor: a File lies in a private folder `folder`, open as `folder_fd`, removed with it.)
  explicit TemporaryFile(std::filesystem::path path, Kind kind = Kind::File, int fd = -1, std::filesystem::path folder = {},
                         int folder_fd = -1);
  ~TemporaryFile();
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;

  /// The temporary's name (for messages, and for the files of a Folder: writePath() / name).
  const std::filesystem::path& path() const { return path_; }
  /// The path to open the temporary (a File) or the files in it (a Folder) by: /proc/self/fd/N
  /// for its open descriptor N, or path() where /proc is not mounted.
  std::filesystem::path writePath() const;
  /// The open descriptor of the file or folder (-1 for one taken by the constructor).
  int fd() const { return fd_; }
  /// A File: renames it over `target` (out of its private folder through the folder's
  /// descriptor, for one createFor made; by path() for one the constructor took), then commit().
  /// A runtime Error naming `display` when the rename fails.
  Status renameOver(const std::filesystem::path& target, const std::string& display);
  /// The file has been renamed into place: do not remove it.
  void commit();

 private:
  std::filesystem::path path_;
  std::filesystem::path folder_;  ///< a File's private folder (createFor), empty otherwise
  int fd_ = -1;
  int folder_fd_ = -1;
  Kind kind_ = Kind::File;
  int slot_ = -1;  ///< index in the signal handlers' table, or -1
  bool committed_ = false;
};

/// A file written in pieces and moved into place only when complete: checkOutputPath(path), a
/// TemporaryFile beside the file it names, written through, then flushed, synced, given the
/// replaced file's mode and renamed over it by commit(). Destroyed without commit() (an error, a
/// signal), it leaves nothing behind and the old file untouched. Errors name `path`.
class AtomicFileWriter {
 public:
  static Result<std::unique_ptr<AtomicFileWriter>> open(const std::filesystem::path& path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
  /// Appends `bytes` (buffered).
  Status write(const std::string& bytes);
  /// Flushes, syncs and closes the file, then renames it over the target.
  Status commit();

 private:
  AtomicFileWriter(std::filesystem::path path, std::filesystem::path target, std::unique_ptr<TemporaryFile> temporary, std::FILE* file);
  std::filesystem::path path_, target_;
  std::unique_ptr<TemporaryFile> temporary_;
  std::FILE* file_ = nullptr;
};

/// The path's extension in lower case, with its dot (".png"; "" when it has none): the writers
/// pick formats by it and the tools check output names with it.
std::string lowerExtension(const std::filesystem::path& path);

/// While one lives, SIGINT, SIGTERM and SIGHUP wait: the TemporaryFile handler (whichever
/// thread the kernel picks to run it) notes the signal and returns, and the last
/// SignalsDeferred to go acts on it then (removes the live temporaries and ends the process by
/// that signal). For a writer that moves several files into place, so that a signal between
/// two renames cannot leave one new file beside an old one (a glTF's new .bin beside its old
/// .gltf). Nests; no effect on a signal the program ignores or handles itself.
class SignalsDeferred {
 public:
  SignalsDeferred();
  ~SignalsDeferred();
  SignalsDeferred(const SignalsDeferred&) = delete;
  SignalsDeferred& operator=(const SignalsDeferred&) = delete;
};

}  // namespace strata::formats
