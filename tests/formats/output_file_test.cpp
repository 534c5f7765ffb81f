// Output paths (checkOutputPath) and the temporary files every writer uses: symbolic links are
// written through, devices, FIFOs, directories and inputs are refused, and a writer ended by
// SIGINT, SIGTERM or SIGHUP leaves no temporary behind.

#include <catch2/catch.hpp>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>
#include <vector>

#include "strata/formats/output_file.h"
#include "strata/formats/render.h"
#include "test_support.h"
#include "world_file_fixtures.h"

using namespace strata;
using strata::test::TempDir;
namespace fs = std::filesystem;

namespace {

std::vector<fs::path> temporaries(const fs::path& dir, const std::string& target_name) {
  std::vector<fs::path> found;
  for (const auto& entry : fs::directory_iterator(dir))
    if (formats::isTemporaryNameFor(entry.path().filename().string(), target_name)) found.push_back(entry.path());
  return found;
}

void writeText(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

}  // namespace

TEST_CASE("output path: a plain file, new or existing, is its own target", "[formats][output]") {
  TempDir dir;
  auto fresh = formats::checkOutputPath(dir / "new.h5");
  REQUIRE(fresh.ok());
  CHECK(*fresh == dir / "new.h5");
  writeText(dir / "old.h5", "x");
  auto existing = formats::checkOutputPath(dir / "old.h5", {dir / "input.obj"});  // a missing input is skipped
  REQUIRE(existing.ok());
  CHECK(*existing == dir / "old.h5");
}

TEST_CASE("output path: refused cases are bad input naming the path", "[formats][output]") {
  TempDir dir;
  const auto refused = [](const fs::path& path, const std::vector<fs::path>& inputs, const std::string& problem) {
    auto r = formats::checkOutputPath(path, inputs);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == ErrorKind::BadInput);
    CHECK(r.error().message.rfind(path.string() + ": ", 0) == 0);
    CHECK_THAT(r.error().message, Catch::Contains(problem));
    CHECK(r.error().message.find('\n') == std::string::npos);
  };
  refused(dir / "missing" / "w.h5", {}, "the output directory '" + (dir / "missing").string() + "' does not exist");
  // A file where the directory should be is named as such (an audit: 'um.h5/..' said missing).
  { std::ofstream(dir / "file.h5") << "x"; }
  refused(dir / "file.h5" / "w.h5", {}, "the output directory '" + (dir / "file.h5").string() + "' is not a directory");
  refused(dir / "file.h5" / "..", {}, "the output directory '" + (dir / "file.h5").string() + "' is not a directory");
  fs::remove(dir / "file.h5");
  refused(dir.path(), {}, "is a directory");
  fs::create_directory(dir / "sub");
  refused(dir / "sub", {}, "is a directory");
  refused("/dev/null", {}, "is not a regular file");
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
  refused(dir / "fifo", {}, "is not a regular file");
  writeText(dir / "in.obj", "v 0 0 0\n");
  refused(dir / "in.obj", {dir / "other.obj", dir / "in.obj"}, "the output file is also an input");
  // The same file under another name: a hard link, and a symbolic link to the input.
  fs::create_hard_link(dir / "in.obj", dir / "hard.obj");
  refused(dir / "hard.obj", {dir / "in.obj"}, "also an input");
  fs::create_symlink("in.obj", dir / "soft.obj");
  refused(dir / "soft.obj", {dir / "in.obj"}, "also an input");
  // A symbolic link to a device, and a loop of links.
  fs::create_symlink("/dev/null", dir / "null.h5");
  refused(dir / "null.h5", {}, "is not a regular file");
  // Standard output as a pipe, named through /proc (`-o /dev/stdout | cat`): the link's text
  // ("pipe:[N]") is no path, and the pipe is refused like a FIFO.
  int pipe_ends[2];
  REQUIRE(::pipe(pipe_ends) == 0);
  refused("/proc/self/fd/" + std::to_string(pipe_ends[1]), {}, "is not a regular file");
  ::close(pipe_ends[0]);
  ::close(pipe_ends[1]);
  fs::create_symlink("loop-b", dir / "loop-a");
  fs::create_symlink("loop-a", dir / "loop-b");
  refused(dir / "loop-a", {}, "too many levels of symbolic links");
  // A directory whose permission bits allow writing but whose file system refuses new entries
  // (sysfs, even to root; an audit's bake found it after 21 s of work). Not as root, the bits
  // refuse it first.
  if (fs::is_directory("/sys/kernel"))
    refused("/sys/kernel/strata-test.h5", {}, ::geteuid() == 0 ? "cannot create files in the output directory '/sys/kernel'"
                                                                : "cannot write in the output directory '/sys/kernel'");
  // The probe leaves nothing behind where it may create.
  REQUIRE(formats::checkOutputPath(dir / "fine.h5").ok());
  for (const auto& entry : fs::directory_iterator(dir.path())) CHECK(entry.path().filename().string().find("probe") == std::string::npos);
  auto empty = formats::checkOutputPath("");
  REQUIRE_FALSE(empty.ok());
  CHECK_THAT(empty.error().message, Catch::Contains("names no file"));
}

TEST_CASE("output path: a symbolic link is written through and stays a link", "[formats][output]") {
  TempDir dir;
  fs::create_directory(dir / "builds");
  writeText(dir / "builds" / "v1.txt", "old");
  fs::create_symlink("builds/v1.txt", dir / "current.txt");  // relative to the link's folder
  auto target = formats::checkOutputPath(dir / "current.txt");
  REQUIRE(target.ok());
  CHECK(fs::equivalent(*target, dir / "builds" / "v1.txt"));
  REQUIRE(formats::writeFileAtomically(dir / "current.txt", "new").ok());
  CHECK(fs::is_symlink(dir / "current.txt"));
  CHECK(test::readFile(dir / "builds" / "v1.txt") == "new");
  CHECK(temporaries(dir / "builds", "v1.txt").empty());
  // A link whose target does not exist yet: the target is created.
  fs::create_symlink("builds/v2.txt", dir / "next.txt");
  REQUIRE(formats::writeFileAtomically(dir / "next.txt", "two").ok());
  CHECK(fs::is_symlink(dir / "next.txt"));
  CHECK(test::readFile(dir / "builds" / "v2.txt") == "two");
  // A world file through a link.
  fs::create_symlink("builds/w.h5", dir / "w.h5");
  REQUIRE(formats::writeWorldFile(dir / "w.h5", test::cubeWorld()).ok());
  CHECK(fs::is_symlink(dir / "w.h5"));
  CHECK(formats::readWorldFile(dir / "builds" / "w.h5").ok());
}

TEST_CASE("output path: writers refuse a device and leave it alone", "[formats][output]") {
  struct stat before {};
  REQUIRE(::stat("/dev/null", &before) == 0);
  const Status world = formats::writeWorldFile("/dev/null", test::cubeWorld());
  REQUIRE_FALSE(world.ok());
  CHECK(world.error().kind == ErrorKind::BadInput);
  const Status text = formats::writeFileAtomically("/dev/null", "x");
  REQUIRE_FALSE(text.ok());
  CHECK(text.error().kind == ErrorKind::BadInput);
  struct stat after {};
  REQUIRE(::stat("/dev/null", &after) == 0);
  CHECK(S_ISCHR(after.st_mode));
  CHECK(after.st_ino == before.st_ino);
}

TEST_CASE("temporary file: removed unless committed", "[formats][output]") {
  TempDir dir;
  const fs::path path = formats::temporaryPathFor(dir / "a.txt");
  {
    formats::TemporaryFile temporary(path);
    writeText(temporary.path(), "x");
  }
  CHECK_FALSE(fs::exists(path));
  const fs::path kept = formats::temporaryPathFor(dir / "a.txt");
  {
    formats::TemporaryFile temporary(kept);
    writeText(temporary.path(), "x");
    temporary.commit();
  }
  CHECK(fs::exists(kept));
}

TEST_CASE("temporary file: a name already taken is neither written nor removed", "[formats][output][atomic]") {
  // A stale temporary (a writer killed by SIGKILL), another process's with the same pid (another
  // container) or a planted symbolic link at the next names: each writer takes another name,
  // succeeds, and leaves those files as they were.
  TempDir dir;
  writeText(dir / "victim", "precious");
  for (const std::string name : {"w.h5", "p.png"}) {
    INFO(name);
    const fs::path now = formats::temporaryPathFor(dir / name);  // the counter's value now
    const std::string prefix = now.filename().string().substr(0, now.filename().string().rfind('-') + 1);
    const unsigned next = static_cast<unsigned>(std::stoul(now.filename().string().substr(prefix.size())));
    for (unsigned n = next + 1; n <= next + 8; ++n) {
      const fs::path taken = dir / (prefix + std::to_string(n));
      if (n % 2 == 0) fs::create_symlink(dir / "victim", taken);
      else writeText(taken, "stale");
    }
    const Status written = name == "w.h5" ? formats::writeWorldFile(dir / name, test::cubeWorld())
                                          : formats::writeFileAtomically(dir / name, "picture");
    REQUIRE(written.ok());
    CHECK(fs::is_regular_file(fs::symlink_status(dir / name)));
    for (unsigned n = next + 1; n <= next + 8; ++n) {
      const fs::path taken = dir / (prefix + std::to_string(n));
      CHECK((n % 2 == 0 ? fs::is_symlink(fs::symlink_status(taken)) : test::readFile(taken) == "stale"));
    }
  }
  CHECK(test::readFile(dir / "victim") == "precious");
}

TEST_CASE("temporary file: one swapped for a symbolic link after its creation is never written through nor moved into place",
          "[formats][output][atomic]") {
  // Another user who can write in the output directory renames the temporary away and puts a
  // link to something of the writer's in its place, between the temporary's creation and its use
  // (audits: HDF5 and fopen reopened the temporary by name, so a root bake wrote its world into
  // the linked file; then a link swapped in between the check of the name and the rename became
  // the output). The file lies in a private 0700 folder, written through its descriptor and
  // renamed out of the folder through the folder's descriptor: swapping the folder changes nothing.
  TempDir dir;
  writeText(dir / "victim", "precious");
  fs::create_directory(dir / "victim-folder");
  writeText(dir / "victim-folder" / "out.png", "precious too");
  writeText(dir / "out.png", "old picture");
  {
    auto created = formats::TemporaryFile::createFor(dir / "out.png", "out.png");
    REQUIRE(created);
    formats::TemporaryFile& temporary = **created;
    const fs::path folder = temporary.path().parent_path();
    CHECK(formats::isTemporaryNameFor(folder.filename().string(), "out.png"));
    CHECK((fs::status(folder).permissions() & fs::perms::all) == fs::perms::owner_all);
    fs::rename(folder, dir / "moved-away");
    fs::create_symlink(dir / "victim-folder", folder);
    {
      std::FILE* file = std::fopen(temporary.writePath().c_str(), "wb");
      REQUIRE(file != nullptr);
      CHECK(std::fwrite("new", 1, 3, file) == 3);
      CHECK(std::fclose(file) == 0);
    }
    formats::keepModeOf(dir / "out.png", temporary.fd());
    REQUIRE(temporary.renameOver(dir / "out.png", "out.png").ok());
  }
  CHECK(test::readFile(dir / "victim") == "precious");
  CHECK(test::readFile(dir / "victim-folder" / "out.png") == "precious too");
  CHECK(fs::is_regular_file(fs::symlink_status(dir / "out.png")));
  CHECK(test::readFile(dir / "out.png") == "new");
  CHECK(fs::is_empty(dir / "moved-away"));  // the file left its folder, whatever the folder's name
  {
    // A folder (strata export's) swapped for a link to another folder: its files still go into
    // the folder created.
    auto created = formats::TemporaryFile::createFor(dir / "mesh.gltf", "mesh.gltf", formats::TemporaryFile::Kind::Folder);
    REQUIRE(created);
    formats::TemporaryFile& temporary = **created;
    fs::rename(temporary.path(), dir / "folder-moved-away");
    fs::create_symlink(dir / "victim-folder", temporary.path());
    writeText(temporary.writePath() / "mesh.gltf", "{}");
    CHECK(test::readFile(dir / "folder-moved-away" / "mesh.gltf") == "{}");
  }
  CHECK(test::readFile(dir / "victim-folder" / "out.png") == "precious too");
  CHECK(std::distance(fs::directory_iterator(dir / "victim-folder"), fs::directory_iterator{}) == 1);
}

TEST_CASE("output path: a path too long for its temporary is refused before any work", "[formats][output]") {
  TempDir dir;
  // Directories of 200-byte names until the path is over PATH_MAX less the temporary's suffix.
  fs::path deep = dir.path();
  while (deep.native().size() < 4000) {
    deep /= std::string(200, 'd');
    REQUIRE(fs::create_directory(deep));
  }
  auto checked = formats::checkOutputPath(deep / (std::string(90, 'n') + ".h5"));
  REQUIRE_FALSE(checked.ok());
  CHECK(checked.error().kind == ErrorKind::BadInput);
  CHECK_THAT(checked.error().message, Catch::Contains("bytes long; at most"));
  CHECK(formats::checkOutputPath(deep.parent_path().parent_path() / "ok.h5").ok());
  // A short path through a link into a deep directory: the HDF5 library resolves the temporary's
  // real path from the root, the directory and the name twice (an audit: the bake failed after
  // its work, exit 1). At the limit a world is written; a byte over, refused before.
  fs::path link = dir.path() / "short";
  fs::create_directory_symlink(deep.parent_path().parent_path(), link);
  const std::size_t real = fs::canonical(link).native().size();
  const std::size_t fit = (PATH_MAX - 1 - real - 1 - 1 - 1 - 48) / 2;  // kSuffix 48 (output_file.cpp)
  REQUIRE(fit > 10);
  REQUIRE(fit < 255);
  const fs::path exact = link / (std::string(fit - 3, 'w') + ".h5"), over = link / (std::string(fit - 2, 'w') + ".h5");
  REQUIRE(formats::checkOutputPath(exact).ok());
  CHECK(formats::writeWorldFile(exact, test::cubeWorld()).ok());
  CHECK(fs::is_regular_file(exact));
  auto refused = formats::checkOutputPath(over);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().kind == ErrorKind::BadInput);
  // Only for world files, which HDF5 writes: a picture there is written (the review).
  CHECK(formats::checkOutputPath(link / (std::string(fit - 2, 'w') + ".png")).ok());
  CHECK_THAT(refused.error().message, Catch::Contains("its temporary file's path from the root would be up to " +
                                                      std::to_string(real + 51 + 2 * (fit + 1)) + " bytes (its directory resolved, " +
                                                      std::to_string(real) + " bytes,") &&
                                          Catch::Contains("at most 4095 can be written"));
  // A long name's temporary folder takes a shortened name: counted as it is, a 250-byte world
  // name whose folder fits is written (the review: refused for 80 bytes it did not need).
  fs::path deeper = dir.path() / "b";
  fs::create_directory(deeper);
  while (fs::canonical(deeper).native().size() + 201 < 3560) {
    deeper /= std::string(200, 'e');
    REQUIRE(fs::create_directory(deeper));
  }
  const std::size_t have = fs::canonical(deeper).native().size();
  deeper /= std::string(3560 - have - 1, 'f');
  REQUIRE(fs::create_directory(deeper));
  REQUIRE(fs::canonical(deeper).native().size() == 3560);
  const fs::path long_world = deeper / (std::string(247, 'n') + ".h5");
  REQUIRE(formats::checkOutputPath(long_world).ok());
  CHECK(formats::writeWorldFile(long_world, test::cubeWorld()).ok());
  CHECK(fs::is_regular_file(long_world));
}

TEST_CASE("temporary file: a writer ended by a signal leaves no temporary", "[formats][output][atomic]") {
  const formats::World big = test::terrainWorld(1500);  // several seconds of deflate
  // SIGQUIT, SIGALRM and SIGUSR1 left the temporary behind (an audit), and so did SIGPWR, SIGIO
  // and the real-time signals (another); SIGQUIT's default action dumps core, which the child
  // does not.
  const std::vector<int> signals = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM, SIGUSR1, SIGPWR, SIGIO, SIGRTMIN, SIGRTMAX};
  for (const int sig : signals) {
    INFO("signal " << sig);
    TempDir dir;
    const auto target = dir / "w.h5";
    REQUIRE(formats::writeWorldFile(target, test::cubeWorld()).ok());
    const std::string before = test::readFile(target);
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      // The test runner handles some of these signals itself; a command-line process does not.
      for (const int s : signals) ::signal(s, SIG_DFL);
      const struct rlimit no_core {0, 0};
      ::setrlimit(RLIMIT_CORE, &no_core);
      _exit(formats::writeWorldFile(target, big).ok() ? 0 : 1);
    }
    bool seen_temporary = false;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!seen_temporary && std::chrono::steady_clock::now() < deadline) {
      seen_temporary = !temporaries(dir.path(), "w.h5").empty();
      if (!seen_temporary) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ::kill(child, sig);
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    REQUIRE(seen_temporary);
    REQUIRE(WIFSIGNALED(status));  // ended by the signal itself, with its default action
    CHECK(WTERMSIG(status) == sig);
    CHECK(temporaries(dir.path(), "w.h5").empty());
    CHECK(test::readFile(target) == before);
  }
}

TEST_CASE("temporary file: the signal handler removes live files and folders, not committed ones", "[formats][output]") {
  TempDir dir;
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::signal(SIGTERM, SIG_DFL);
    formats::TemporaryFile file(dir / "f.tmp");
    writeText(file.path(), "x");
    formats::TemporaryFile folder(dir / "d.tmp", formats::TemporaryFile::Kind::Folder);
    fs::create_directory(folder.path());
    for (int i = 0; i < 300; ++i) writeText(folder.path() / ("part-" + std::to_string(i) + ".bin"), "y");  // > one getdents buffer
    formats::TemporaryFile kept(dir / "kept.txt");
    writeText(kept.path(), "z");
    kept.commit();
    ::raise(SIGTERM);
    _exit(0);  // not reached
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);
  CHECK_FALSE(fs::exists(dir / "f.tmp"));
  CHECK_FALSE(fs::exists(dir / "d.tmp"));
  CHECK(fs::exists(dir / "kept.txt"));
}

TEST_CASE("temporary file: a signal while SignalsDeferred lives waits for its end", "[formats][output][atomic]") {
  // A glTF export moves its .bin and then its .gltf into place: a SIGTERM between the two left
  // the new .bin beside the old .gltf (a hunt, with a slowed rename).
  TempDir dir;
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::signal(SIGTERM, SIG_DFL);
    formats::TemporaryFile file(dir / "f.tmp");
    writeText(file.path(), "x");
    {
      const formats::SignalsDeferred outer;
      {
        const formats::SignalsDeferred inner;  // nests
        ::raise(SIGTERM);
        writeText(dir / "after-raise", "1");
      }
      writeText(dir / "after-inner", "1");
    }  // the process ends here, by SIGTERM, its temporaries removed
    writeText(dir / "after-outer", "1");
    _exit(0);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);
  CHECK(fs::exists(dir / "after-raise"));
  CHECK(fs::exists(dir / "after-inner"));
  CHECK_FALSE(fs::exists(dir / "after-outer"));
  CHECK_FALSE(fs::exists(dir / "f.tmp"));
}

TEST_CASE("temporary file: an ignored signal stays ignored", "[formats][output]") {
  TempDir dir;
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::signal(SIGHUP, SIG_IGN);  // as under nohup
    formats::TemporaryFile file(dir / "f.tmp");
    writeText(file.path(), "x");
    ::raise(SIGHUP);
    _exit(fs::exists(dir / "f.tmp") ? 7 : 8);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 7);
  CHECK(fs::exists(dir / "f.tmp"));  // the child survived the signal and _exit ran no destructor
}

TEST_CASE("output path: long names, and a replaced file keeps its permission bits", "[formats][output]") {
  TempDir dir;
  // 244 bytes is a legal name; its temporary is shortened to stay within 255 bytes.
  const std::string long_name = std::string(240, 'c') + ".png";
  REQUIRE(formats::writeFileAtomically(dir / long_name, "x").ok());
  CHECK(test::readFile(dir / long_name) == "x");
  CHECK(formats::temporaryPathFor(dir / long_name).filename().native().size() <= 255);
  CHECK(formats::isTemporaryNameFor(formats::temporaryPathFor(dir / long_name).filename().string(), long_name));
  auto too_long = formats::checkOutputPath(dir / (std::string(300, 'c') + ".png"));
  REQUIRE_FALSE(too_long.ok());
  CHECK(too_long.error().kind == ErrorKind::BadInput);
  CHECK_THAT(too_long.error().message, Catch::Contains("the file name is longer than 255 bytes"));
  // A private file stays private when replaced, by either writer.
  writeText(dir / "private.txt", "old");
  fs::permissions(dir / "private.txt", fs::perms::owner_read | fs::perms::owner_write);
  REQUIRE(formats::writeFileAtomically(dir / "private.txt", "new").ok());
  CHECK(fs::status(dir / "private.txt").permissions() == (fs::perms::owner_read | fs::perms::owner_write));
  REQUIRE(formats::writeWorldFile(dir / "w.h5", test::cubeWorld()).ok());
  fs::permissions(dir / "w.h5", fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  REQUIRE(formats::writeWorldFile(dir / "w.h5", test::cubeWorld()).ok());
  CHECK(fs::status(dir / "w.h5").permissions() == (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));
}
