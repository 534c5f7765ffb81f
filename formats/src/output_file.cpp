// Output paths and temporary files shared by every writer (world files, pictures, debug meshes,
// batch results): see strata/formats/output_file.h.
//
// The signal cleanup keeps a fixed table of live temporaries in static storage. A slot is
// claimed with a compare-and-swap (free -> claimed), filled, then published (claimed -> live);
// the handler reads only live slots and calls only open(2), getdents64(2), unlinkat(2),
// close(2), rmdir(2), unlink(2), signal(2) and raise(3), all async-signal-safe.

#include "strata/formats/output_file.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/syscall.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>
#include <system_error>

namespace strata::formats {

namespace fs = std::filesystem;

namespace {

constexpr int kSlots = 64;
enum SlotState : int { kFree = 0, kClaimed = 1, kLive = 2 };

// Every member starts at zero, so the 64 slots (a page each) stay in zero-filled memory until
// used: an initial fd of -1 made the start-up code write into every slot, 64 page faults in
// every process, those that write no file included.
struct Slot {
  std::atomic<int> state{kFree};
  bool folder = false;  // a folder of files (debug mesh exports), removed with its entries
  int fd = 0;           // a folder's open descriptor (its entries are removed through it); set with the path
  char path[PATH_MAX] = {};  // (initialised, so that the compiler can leave the array to the loader)
};

Slot g_slots[kSlots];
// Every signal that ends a process by default and can be caught, other than those a crash
// raises (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS: after one, the slots may be
// garbage, and a garbage path is not unlinked). Audits: `timeout -s QUIT`, `kill -USR1` and an
// alarm left a partial world's temporary behind, and so did SIGPWR, SIGIO, SIGSTKFLT and the
// real-time signals. The real-time range is known at run time only (glibc keeps its lowest
// signals for itself), so the list is built once, at the first temporary.
constexpr int kFixedSignals[] = {SIGINT,  SIGTERM, SIGHUP,    SIGQUIT, SIGPIPE, SIGALRM, SIGUSR1,
                                 SIGUSR2, SIGVTALRM, SIGPROF, SIGXCPU, SIGPWR,  SIGIO,
#ifdef SIGSTKFLT
                                 SIGSTKFLT,
#endif
};
constexpr int kMaxSignals = 128;

struct SignalList {
  int count = 0;
  int signals[kMaxSignals] = {};
  sigset_t mask{};
  SignalList() {
    sigemptyset(&mask);
    auto add = [&](int sig) {
      if (count < kMaxSignals) signals[count++] = sig, sigaddset(&mask, sig);
    };
    for (const int sig : kFixedSignals) add(sig);
    for (int sig = SIGRTMIN; sig <= SIGRTMAX; ++sig) add(sig);
  }
};

const SignalList& terminatingSignals() {
  static const SignalList list;
  return list;
}

// Removes the entries of a folder (through its open descriptor `folder_fd`, so a name another
// process put in its place is never entered; by its name, not followed, when there is none),
// with system calls only (getdents64 rather than readdir, which may allocate): safe in a signal
// handler, and what the destructor runs too.
void removeFolderEntries(const char* path, int folder_fd) {
  const int fd = folder_fd >= 0 ? ::dup(folder_fd) : ::open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    ::lseek(fd, 0, SEEK_SET);
    alignas(8) char buffer[4096];
    for (;;) {
      const long got = ::syscall(SYS_getdents64, fd, buffer, sizeof buffer);
      if (got <= 0) break;
      for (long at = 0; at < got;) {
        struct Entry {
          uint64_t ino;
          int64_t off;
          unsigned short reclen;
          unsigned char type;
          char name[1];
        };
        const auto* entry = reinterpret_cast<const Entry*>(buffer + at);
        const char* name = buffer + at + offsetof(Entry, name);
        if (!(name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0)))) ::unlinkat(fd, name, 0);
        at += entry->reclen;
      }
    }
    ::close(fd);
  }
}

// SignalsDeferred: while the depth is above 0 the handler only notes its signal (lock-free
// atomics, async-signal-safe).
std::atomic<int> g_defer_depth{0};
std::atomic<int> g_pending_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

extern "C" void removeTemporariesAndDie(int sig) {
  if (g_defer_depth.load(std::memory_order_acquire) > 0) {
    g_pending_signal.store(sig, std::memory_order_release);
    // The deferral may have ended (on another thread) between the test and the store, after its
    // end looked for a pending signal: whichever of the two takes the signal back acts on it.
    if (g_defer_depth.load(std::memory_order_acquire) > 0) return;
    sig = g_pending_signal.exchange(0, std::memory_order_acq_rel);
    if (sig == 0) return;  // taken by the deferral's end, which acts on it
  }
  for (Slot& slot : g_slots) {
    if (slot.state.load(std::memory_order_acquire) != kLive) continue;
    if (slot.folder) {
      removeFolderEntries(slot.path, slot.fd);
      ::rmdir(slot.path);
    } else {
      ::unlink(slot.path);
    }
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);  // delivered with the default action once this handler returns
}

// Installs the handler for each of terminatingSignals() whose action is the default one; a
// signal the program ignores (nohup) or handles itself is left alone. Checked for every
// temporary, so a handler reset by someone else in between is put back.
void installHandlers() {
  const SignalList& list = terminatingSignals();
  for (int k = 0; k < list.count; ++k) {
    const int sig = list.signals[k];
    struct sigaction current {};
    if (::sigaction(sig, nullptr, &current) != 0) continue;
    if ((current.sa_flags & SA_SIGINFO) != 0 || current.sa_handler != SIG_DFL) continue;
    struct sigaction action {};
    action.sa_handler = removeTemporariesAndDie;
    action.sa_mask = list.mask;
    ::sigaction(sig, &action, nullptr);
  }
}

int claimSlot(const fs::path& path, bool folder, int fd) {
  const std::string& text = path.native();
  if (text.size() >= PATH_MAX) return -1;
  installHandlers();
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (!g_slots[i].state.compare_exchange_strong(expected, kClaimed, std::memory_order_acq_rel)) continue;
    std::memcpy(g_slots[i].path, text.c_str(), text.size() + 1);
    g_slots[i].folder = folder;
    g_slots[i].fd = fd;
    g_slots[i].state.store(kLive, std::memory_order_release);
    return i;
  }
  return -1;
}

void releaseSlot(int slot) {
  if (slot >= 0) g_slots[slot].state.store(kFree, std::memory_order_release);
}

Error outputError(const fs::path& path, const std::string& problem) { return Error::badInput(path.string() + ": " + problem); }

constexpr std::size_t kNameMax = 255;  // bytes in one file name (NAME_MAX of Linux file systems)

// "." + the target's name, shortened so that the whole temporary name (with ".tmp-PID-N")
// stays within kNameMax, + ".tmp-".
constexpr std::size_t kSuffix = 48;  // ".tmp-" + pid + "-" + counter [+ "-" + 16 hex digits], with room to spare

std::string temporaryPrefix(const std::string& target_name) {
  const std::string name = target_name.size() + 1 + kSuffix > kNameMax ? target_name.substr(0, kNameMax - 1 - kSuffix) + "~"
                                                                         : target_name;
  return "." + name + ".tmp-";
}

}  // namespace

Result<fs::path> checkOutputPath(const fs::path& path, const std::vector<fs::path>& inputs) {
  if (path.empty() || !path.has_filename())
    return outputError(path.empty() ? fs::path("output") : path, "the output path names no file");
  std::error_code ec;
  // What the kernel reaches through every link first: a link into /proc (`-o /dev/stdout` with
  // standard output a pipe or a terminal) names a pipe, socket or device by a text that is no
  // path ("pipe:[1234]"), so the walk below could not tell.
  if (const fs::file_status reached = fs::status(path, ec);
      fs::exists(reached) && !fs::is_regular_file(reached) && !fs::is_directory(reached))
    return outputError(path, "is not a regular file (a device, FIFO or socket); refusing to replace it");
  // Follow symbolic links to the file they name, so the rename replaces that file and the link
  // stays.
  fs::path target = path;
  for (int hops = 0; fs::is_symlink(fs::symlink_status(target, ec)); ++hops) {
    if (hops == 40) return outputError(path, "too many levels of symbolic links");
    const fs::path next = fs::read_symlink(target, ec);
    if (ec) return outputError(path, "cannot read the symbolic link: " + ec.message());
    target = next.is_absolute() ? next : target.parent_path() / next;
  }
  if (!target.has_filename()) return outputError(path, "the output path names no file");
  if (target.filename().native().size() > kNameMax)
    return outputError(path, "the file name is longer than " + std::to_string(kNameMax) + " bytes");
  // The temporary beside the target must have a path the kernel takes (PATH_MAX bytes with its
  // NUL): found here, not by the write after the work.
  if (const std::size_t longest = PATH_MAX - 2 - kSuffix; target.native().size() > longest)
    return outputError(path, "the path is " + std::to_string(target.native().size()) + " bytes long; at most " +
                                 std::to_string(longest) + " (with the temporary file's name beside it) can be written");
  const fs::path directory = target.has_parent_path() ? target.parent_path() : fs::path(".");
  if (!fs::is_directory(directory, ec))
    return outputError(path, "the output directory '" + directory.string() +
                                 (fs::exists(directory, ec) ? "' is not a directory" : "' does not exist"));
  // The HDF5 library resolves a world file's temporary's real path, from the root and with the
  // links in its directory followed: the directory, the temporary's folder (its prefix and at most
  // kSuffix - 5 bytes of process and counter) and the name again must fit in PATH_MAX with its
  // NUL. (An audit: a short relative path from a deep working directory passed the check above,
  // then the bake failed after its work with "can't retrieve real path for file", exit 1.) Only
  // for HDF5 names, and only when the directory resolves: HDF5 then fails the same way, while
  // other writers need neither (the re-audit: a folder under one the user cannot search refused
  // a picture).
  const std::string extension = lowerExtension(target);
  if (extension == ".h5" || extension == ".hdf5") {
    const fs::path real_directory = fs::canonical(directory, ec);
    const std::size_t name = target.filename().native().size();
    const std::size_t folder = temporaryPrefix(target.filename().string()).size() + kSuffix - 5;
    const std::size_t longest = real_directory.native().size() + 1 + folder + 1 + name;
    if (!ec && longest > PATH_MAX - 1)
      return outputError(path, "its temporary file's path from the root would be up to " + std::to_string(longest) +
                                   " bytes (its directory resolved, " + std::to_string(real_directory.native().size()) +
                                   " bytes, a folder named after the file, the name again); at most " +
                                   std::to_string(PATH_MAX - 1) + " can be written: use a shorter directory or name");
  }
  // The temporary is created in that directory, so it must be writable (and searchable).
  if (::access(directory.c_str(), W_OK | X_OK) != 0)
    return outputError(path, "cannot write in the output directory '" + directory.string() + "': " +
                                 std::error_code(errno, std::generic_category()).message());
  // access() goes by the permission bits: a file system that refuses new entries all the same
  // (sysfs, procfs, an immutable folder, a full disk of inodes) was found only after the work (an
  // audit: `bake -o /sys/t.h5` as root baked for 21 s, then exit 1). So the temporary's own kind
  // of entry, a private folder, is made and removed now.
  // (A signal between the two is held back until the folder is gone: the re-audit left one
  // behind with SIGTERM at the rmdir.)
  {
    installHandlers();
    const SignalsDeferred hold;
    const fs::path probe = directory / (temporaryPrefix(target.filename().string()) + "probe-" + std::to_string(::getpid()));
    if (::mkdir(probe.c_str(), 0700) != 0 && errno != EEXIST)
      return outputError(path, "cannot create files in the output directory '" + directory.string() + "': " +
                                   std::error_code(errno, std::generic_category()).message());
    ::rmdir(probe.c_str());
  }
  const fs::file_status status = fs::status(target, ec);
  if (fs::is_directory(status)) return outputError(path, "is a directory");
  if (fs::exists(status) && !fs::is_regular_file(status))
    return outputError(path, "is not a regular file (a device, FIFO or socket); refusing to replace it");
  // In a sticky directory (/tmp) only the file's owner, the directory's or root may replace a
  // file: the rename after the work would fail.
  struct stat folder_stat {}, file_stat {};
  if (fs::exists(status) && ::stat(directory.c_str(), &folder_stat) == 0 && (folder_stat.st_mode & S_ISVTX) != 0 &&
      ::lstat(target.c_str(), &file_stat) == 0) {
    const uid_t me = ::geteuid();
    if (me != 0 && file_stat.st_uid != me && folder_stat.st_uid != me)
      return outputError(path, "belongs to another user in the sticky directory '" + directory.string() +
                                   "', so it cannot be replaced");
  }
  if (fs::exists(status))
    for (const fs::path& input : inputs)
      if (fs::exists(input, ec) && fs::equivalent(input, target, ec))
        return outputError(path, "the output file is also an input (" + input.string() + ")");
  return target;
}

fs::path temporaryPathFor(const fs::path& target) {
  static std::atomic<unsigned> counter{0};
  const std::string name = temporaryPrefix(target.filename().string()) + std::to_string(::getpid()) + "-" +
                           std::to_string(counter.fetch_add(1));
  return target.parent_path() / name;
}

bool isTemporaryNameFor(const std::string& name, const std::string& target_name) {
  const std::string prefix = temporaryPrefix(target_name);
  return name.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0;
}

void keepModeOf(const fs::path& target, int temporary_fd) {
  struct stat existing {};
  if (temporary_fd < 0 || ::stat(target.c_str(), &existing) != 0 || !S_ISREG(existing.st_mode)) return;
  // Owner and group first (only the owner's group or root may change them; failures leave the
  // new file the writer's), then the mode, which chown may have cleared set-id bits of.
  if (::fchown(temporary_fd, existing.st_uid, existing.st_gid) != 0) {
    [[maybe_unused]] const int group_only = ::fchown(temporary_fd, static_cast<uid_t>(-1), existing.st_gid);
  }
  [[maybe_unused]] const int mode = ::fchmod(temporary_fd, existing.st_mode & 07777);
}

void keepModeOf(const fs::path& target, const fs::path& temporary) {
  // Through a descriptor of the temporary itself (not followed if it is a link).
  const int fd = ::open(temporary.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  keepModeOf(target, fd);
  ::close(fd);
}

Result<std::unique_ptr<TemporaryFile>> TemporaryFile::createFor(const fs::path& target, const std::string& display, Kind kind) {
  constexpr int kTries = 64;
  fs::path path = temporaryPathFor(target);
  for (int attempt = 0;; ++attempt) {
    // Both kinds are a private folder (mode 0700): another user may rename it away, but not touch
    // what is in it. A File is created inside it, written through its descriptor (writePath) and
    // moved into place through the folder's (renameOver: renameat), so its name is never resolved
    // through the shared directory again (an audit: a symbolic link swapped for the temporary
    // between a check of its name and the rename became the output).
    int error = 0;
    if (::mkdir(path.c_str(), 0700) != 0) error = errno;
    if (error == 0) {
      // Opened by the name just created: a folder or link another process put in its place
      // meanwhile is refused (not ours: another owner, or other permissions), and left alone.
      const int folder_fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      struct stat st {};
      if (folder_fd < 0 || ::fstat(folder_fd, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid() ||
          (st.st_mode & 077) != 0) {
        if (folder_fd >= 0) ::close(folder_fd);
        return Error::runtime(display + ": the temporary folder " + path.string() +
                              " was replaced by another process; nothing was written");
      }
      if (kind == Kind::Folder) return std::make_unique<TemporaryFile>(path, kind, folder_fd);
      const std::string name = target.filename().string();
      const int fd = ::openat(folder_fd, name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
      if (fd < 0) {
        const int saved = errno;
        ::close(folder_fd);
        ::rmdir(path.c_str());
        return Error::runtime(display + ": cannot create the temporary file " + (path / name).string() + ": " +
                              std::error_code(saved, std::generic_category()).message());
      }
      return std::make_unique<TemporaryFile>(path / name, kind, fd, path, folder_fd);
    }
    if (error != EEXIST || attempt + 1 == kTries)
      return Error::runtime(display + ": cannot create the temporary " + (kind == Kind::Folder ? "folder " : "file ") +
                            path.string() + ": " + std::error_code(error, std::generic_category()).message());
    // Taken: the same pid and counter in an earlier run or in another pid namespace. A name
    // with a random part next (the counter moves on too).
    static thread_local std::mt19937_64 random{std::random_device{}() ^ static_cast<std::uint64_t>(::getpid())};
    char suffix[24];
    std::snprintf(suffix, sizeof suffix, "-%016llx", static_cast<unsigned long long>(random()));
    path = temporaryPathFor(target);
    path += suffix;
  }
}

TemporaryFile::TemporaryFile(fs::path path, Kind kind, int fd, fs::path folder, int folder_fd)
    : path_(std::move(path)),
      folder_(std::move(folder)),
      fd_(fd),
      folder_fd_(folder_fd),
      kind_(kind),
      // A file in a private folder is removed as that folder is, through its descriptor.
      slot_(folder_.empty() ? claimSlot(path_, kind == Kind::Folder, fd) : claimSlot(folder_, true, folder_fd)) {}

namespace {

// True when `path` (not followed) is the file or folder open as `fd`.
bool namesDescriptor(const fs::path& path, int fd) {
  struct stat open_stat {}, named {};
  return fd >= 0 && ::fstat(fd, &open_stat) == 0 && ::lstat(path.c_str(), &named) == 0 && open_stat.st_dev == named.st_dev &&
         open_stat.st_ino == named.st_ino;
}

}  // namespace

TemporaryFile::~TemporaryFile() {
  if (!committed_) {
    std::error_code ignored;
    if (kind_ == Kind::Folder && fd_ < 0) {
      fs::remove_all(path_, ignored);
    } else if (kind_ == Kind::Folder) {
      // The entries through the descriptor, then the folder when its name still names it.
      removeFolderEntries(path_.c_str(), fd_);
      if (namesDescriptor(path_, fd_)) ::rmdir(path_.c_str());
    } else if (folder_fd_ >= 0) {
      ::unlinkat(folder_fd_, path_.filename().c_str(), 0);
    } else {
      ::unlink(path_.c_str());
    }
  }
  // A file's private folder goes either way (empty once the file is moved into place), when its
  // name still names it.
  if (folder_fd_ >= 0 && namesDescriptor(folder_, folder_fd_)) ::rmdir(folder_.c_str());
  releaseSlot(slot_);
  if (fd_ >= 0) ::close(fd_);
  if (folder_fd_ >= 0) ::close(folder_fd_);
}

fs::path TemporaryFile::writePath() const {
  static const bool proc = ::access("/proc/self/fd", X_OK) == 0;
  if (fd_ < 0 || !proc) return path_;
  return fs::path("/proc/self/fd") / std::to_string(fd_);
}

Status TemporaryFile::renameOver(const fs::path& target, const std::string& display) {
  if (folder_fd_ >= 0) {
    if (::renameat(folder_fd_, path_.filename().c_str(), AT_FDCWD, target.c_str()) != 0)
      return Error::runtime(display + ": cannot rename the temporary file " + path_.string() + " into place: " +
                            std::error_code(errno, std::generic_category()).message());
    commit();
    return Ok{};
  }
  if (::rename(path_.c_str(), target.c_str()) != 0)
    return Error::runtime(display + ": cannot rename the temporary file " + path_.string() + " into place: " +
                          std::error_code(errno, std::generic_category()).message());
  commit();
  return Ok{};
}

void TemporaryFile::commit() {
  releaseSlot(slot_);
  slot_ = -1;
  committed_ = true;
}

std::string lowerExtension(const fs::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

SignalsDeferred::SignalsDeferred() { g_defer_depth.fetch_add(1, std::memory_order_acq_rel); }

SignalsDeferred::~SignalsDeferred() {
  if (g_defer_depth.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  // A signal that came meanwhile is acted on now (one that comes after the decrement runs the
  // handler in full itself).
  if (const int sig = g_pending_signal.exchange(0, std::memory_order_acq_rel); sig != 0) removeTemporariesAndDie(sig);
}

Result<std::unique_ptr<AtomicFileWriter>> AtomicFileWriter::open(const std::filesystem::path& path) {
  auto checked = checkOutputPath(path);
  if (!checked) return checked.error();
  auto created = TemporaryFile::createFor(*checked, path.string());
  if (!created) return created.error();
  std::FILE* file = std::fopen((*created)->writePath().c_str(), "wb");  // the file created (see TemporaryFile)
  if (!file)
    return Error::runtime(path.string() + ": cannot create " + (*created)->path().string() + ": " + std::strerror(errno));
  return std::unique_ptr<AtomicFileWriter>(new AtomicFileWriter(path, *checked, std::move(*created), file));
}

AtomicFileWriter::AtomicFileWriter(std::filesystem::path path, std::filesystem::path target,
                                   std::unique_ptr<TemporaryFile> temporary, std::FILE* file)
    : path_(std::move(path)), target_(std::move(target)), temporary_(std::move(temporary)), file_(file) {}

AtomicFileWriter::~AtomicFileWriter() {
  if (file_ != nullptr) std::fclose(file_);  // then temporary_ removes the file
}

Status AtomicFileWriter::write(const std::string& bytes) {
  if (file_ == nullptr) return Error::runtime(path_.string() + ": write after the file was closed");
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size())
    return Error::runtime(path_.string() + ": write failed: " + std::strerror(errno));
  return Ok{};
}

Status AtomicFileWriter::commit() {
  if (file_ == nullptr) return Error::runtime(path_.string() + ": write after the file was closed");
  const bool flushed = std::fflush(file_) == 0 && ::fsync(::fileno(file_)) == 0;
  const int error = errno;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!flushed || !closed) return Error::runtime(path_.string() + ": write failed: " + std::strerror(closed ? error : errno));
  keepModeOf(target_, temporary_->fd());
  return temporary_->renameOver(target_, path_.string());
}

}  // namespace strata::formats
