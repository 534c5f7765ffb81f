// strata: the command-line front end. Subcommands live one per file and register themselves
// (command.h); this file only builds the top-level app, dispatches and maps errors to exit codes.

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <iostream>
#include <system_error>
#include <new>

#include "command.h"

namespace {

// "did you mean …?" for a mistyped subcommand or option: the edits (a letter added, dropped or
// changed, or two neighbours swapped: "form" is one from "from") that turn a into b.
std::size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

// The command whose --help shows a subcommand's options: a query kind's own page
// ("query WORLD nearest") when one was given, as its options (--at, --radius) are listed there.
static std::string usageOf(const CLI::App* sub) {
  for (const CLI::App* kind : sub->get_subcommands({}))
    if (kind->parsed() && !kind->get_name().empty()) return sub->get_name() + " WORLD " + kind->get_name();  // not an option group
  return sub->get_name();
}

int main(int argc, char** argv) {
  using namespace strata::cli;
  // A pipe whose reader has gone (`strata path ... --json | head -c 10`) and a file past the
  // file-size limit (ulimit -f) are write errors like any other (exit 1, one line, temporaries
  // removed), not a silent death by SIGPIPE (141) or SIGXFSZ (153) that left temporaries behind.
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGXFSZ, SIG_IGN);
  // Standard output into a pipe or file goes out in 64 KiB writes: an answer that fits a pipe's
  // buffer is then one write, done before a reader like `head -1` goes, as strata(1) says (stdio's
  // 4 KiB writes made `strata path --help | head -1` fail with "Broken pipe" one time in two: an
  // audit). A terminal keeps line buffering.
  static char output_buffer[1 << 16];
  if (::isatty(STDOUT_FILENO) == 0) std::setvbuf(stdout, output_buffer, _IOFBF, sizeof output_buffer);
  CLI::App app{"strata: offline navigation toolchain (import, bake, path, query).\n"
               "Exit codes: 0 success, 1 runtime failure, 2 bad usage or bad input, 3 negative answer.",
               "strata"};
  app.set_version_flag("-V,--version", std::string("strata ") + versionString());
  app.require_subcommand(1);
  app.fallthrough(false);

  auto& registry = commandRegistry();
  std::sort(registry.begin(), registry.end(), [](const Command& a, const Command& b) { return a.order < b.order; });
  std::vector<std::pair<CLI::App*, std::function<int()>>> runners;
  for (const Command& command : registry) {
    // setup() adds the subcommand to `app`; remember which one it was.
    const std::size_t before = app.get_subcommands({}).size();
    auto run = command.setup(app);
    auto subs = app.get_subcommands({});
    if (subs.size() > before) runners.emplace_back(subs.back(), std::move(run));
  }
  // A flag given twice is refused like an option given twice ("--json: given 2 times"): CLI11
  // lets a flag repeat silently, so `--json --json` passed where `--threads 1 --threads 2` did not.
  // --help and --version still answer however often they are given.
  const std::function<void(CLI::App*)> refuseRepeatedFlags = [&](CLI::App* a) {
    for (CLI::Option* option : a->get_options())
      if (option->get_expected_max() == 0 && option->get_multi_option_policy() == CLI::MultiOptionPolicy::TakeLast &&
          option != a->get_help_ptr() && option != a->get_version_ptr())
        option->multi_option_policy(CLI::MultiOptionPolicy::Throw);
    for (CLI::App* sub : a->get_subcommands({})) refuseRepeatedFlags(sub);
  };
  refuseRepeatedFlags(&app);

  // Buffered output that could not be written (a full disk, a closed pipe or descriptor) is a
  // failure, not a success with the answer lost: `code` unless standard output failed.
  // `print` writes the output and returns the exit code; errno is cleared before it, so the
  // error named is the one the writes or the flush set (--version's line ends in std::endl, so
  // its failed write happened before the flush and reported "Input/output error").
  const auto flushed = [](auto&& print) -> int {
    errno = 0;
    const int code = print();
    std::cout.flush();
    if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout)) {
      strata::cli::toStderr(fmt::format("strata: error: standard output: {}\n", std::strerror(errno != 0 ? errno : EIO)));
      return kExitRuntime;
    }
    return code;
  };
  // "--agent=" with nothing after the '=': CLI11 took the next argument for its value (a script's
  // empty variable turned `--exclude-tag= --json` into a tag named --json: an audit).
  for (int i = 1; i < argc; ++i) {
    const std::string_view word(argv[i]);
    if (word == "--") break;
    if (word.size() > 3 && word.rfind("--", 0) == 0 && word.back() == '=' && word.find('=') == word.size() - 1) {
      // Where the usage is, as for every usage error: the subcommand (and query's kind) typed.
      CLI::App* sub = &app;
      std::string usage;
      for (int j = 1; j < argc && std::string_view(argv[j]) != "--"; ++j)
        for (CLI::App* next : sub->get_subcommands({}))
          if (next->get_name() == argv[j]) {
            usage += (usage.empty() ? "" : " ") + next->get_name();
            sub = next;
            break;
          }
      if (!usage.empty()) setUsageCommand(usage);
      return badInput(std::string(word) + ": the value after '=' is empty; give one, or leave the option out");
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return flushed([&] { return app.exit(e); });
  } catch (const CLI::CallForAllHelp& e) {
    return flushed([&] { return app.exit(e); });
  } catch (const CLI::CallForVersion& e) {
    // --version is strata's own, given before the subcommand: query's kinds fall through to
    // query and query to strata, so `strata query W nearest --at 0,0,0 --version` printed the
    // version and ran nothing (exit 0). strata's own options take no values, so its subcommand
    // is the first word that is not an option.
    int first_word = argc;
    for (int i = 1; i < argc && first_word == argc; ++i)
      if (argv[i][0] != '-') first_word = i;
    for (int i = first_word + 1; i < argc; ++i)
      if (std::strcmp(argv[i], "--version") == 0 || std::strcmp(argv[i], "-V") == 0) {
        for (const CLI::App* sub : app.get_subcommands())
          if (sub->parsed())
            return badInput(fmt::format("--version is an option of strata, not of '{}': strata --version (usage: strata {} --help)",
                                        sub->get_name(), sub->get_name()));
      }
    return flushed([&] { return app.exit(e); });
  } catch (const CLI::ParseError& e) {
    std::string message = e.what();
    // The subcommand parsed last (query's kind when one was given), and an option by name as
    // the command line's words reach it: that subcommand's, its parent's, then strata's own.
    const CLI::App* deepest = nullptr;
    for (const CLI::App* sub : app.get_subcommands()) {
      deepest = sub;
      for (const CLI::App* k : sub->get_subcommands({}))
        if (k->parsed()) deepest = k;
    }
    auto optionNamed = [&](const std::string& name) -> const CLI::Option* {
      for (const CLI::App* scope = deepest; scope != nullptr; scope = scope->get_parent())
        if (const CLI::Option* option = scope->get_option_no_throw(name)) return option;
      return app.get_option_no_throw(name);
    };
    // Where an option typed before the name of its command (or query kind) belongs: " (--json is
    // an option of 'info': give it after 'info')", else empty. The command named is the deepest
    // one parsed (past CLI11's unnamed option groups, which `path` parses into) or one above it:
    // `strata --json query W height` names query's --json (a re-audit: it was "did you mean
    // --json?", and `path`'s options got no hint at all). Not after "--", which makes the words
    // after it positional.
    const bool separated_words = std::any_of(argv + 1, argv + argc, [](const char* a) { return std::strcmp(a, "--") == 0; });
    auto misplacedHint = [&](const std::vector<std::string>& words) -> std::string {
      if (separated_words) return {};
      const CLI::App* named = deepest;
      while (named != nullptr && named != &app && named->get_name().empty()) named = named->get_parent();
      for (const std::string& word : words) {
        if (word.size() < 2 || word[0] != '-') continue;
        const std::string name = word.substr(0, word.find('='));
        for (const CLI::App* scope = named; scope != nullptr && scope != &app; scope = scope->get_parent())
          if (scope->get_option_no_throw(name) != nullptr)
            return fmt::format(" ({} is an option of '{}': give it after '{}')", name, scope->get_name(), scope->get_name());
      }
      return {};
    };
    // Suggest a subcommand for an unknown first argument.
    if (argc > 1 && argv[1][0] != '-') {
      const std::string typed = argv[1];
      bool known = false;
      std::string best;
      std::size_t best_distance = 3;
      for (const Command& command : registry) {
        if (command.name == typed) known = true;
        const std::size_t d = editDistance(typed, command.name);
        if (d < best_distance) best_distance = d, best = command.name;
      }
      if (!known) {
        message = fmt::format("unknown subcommand '{}'", typed);
        if (!best.empty()) message += fmt::format(" (did you mean '{}'?)", best);
      }
    }
    // A subcommand that takes its own subcommand (query's kinds) missing it: name what was typed
    // in its place, and the choices, rather than "A subcommand is required".
    if (message.rfind("A subcommand is required", 0) == 0) {
      for (const CLI::App* sub : app.get_subcommands()) {
        if (!sub->parsed() || sub->get_subcommands({}).empty()) continue;
        std::string choices, typed;
        for (const CLI::App* kind : sub->get_subcommands({})) choices += (choices.empty() ? "" : ", ") + kind->get_name();
        // The words after the subcommand's name that are neither options nor its positionals.
        int words = 0;
        std::string first_word;  // the word read as the subcommand's first positional (query's WORLD)
        const auto positionals = sub->get_options([](const CLI::Option* o) { return o->get_positional(); }).size();
        // An option's values are not words ("--tag /level bogus"): one value for an option of a
        // kind (--agent human), all that follow for one that takes several (--tag /a /b).
        int skip = 0;
        for (int i = 2; i < argc; ++i) {
          if (argv[i][0] == '-') {
            const std::string name = argv[i];
            const CLI::Option* option = name.find('=') == std::string::npos ? sub->get_option_no_throw(name) : nullptr;
            if (name.find('=') != std::string::npos) skip = 0;
            else if (option == nullptr) skip = 1;
            else if (option->get_expected_max() > 1) skip = argc;
            else skip = option->get_expected_min();
            continue;
          }
          if (skip > 0) {
            --skip;
            continue;
          }
          if (words == 0) first_word = argv[i];
          if (++words > static_cast<int>(positionals)) {
            typed = argv[i];
            break;
          }
        }
        // A kind typed where the world goes ("strata query nearest --at ..."): say so, rather
        // than asking for a kind that was given.
        // (Unless a file of that name is there: then it is the world.)
        bool kind_first = false;
        for (const CLI::App* kind : sub->get_subcommands({}))
          kind_first = kind_first || (positionals > 0 && kind->get_name() == first_word);
        std::error_code ec;
        kind_first = kind_first && !std::filesystem::exists(first_word, ec);
        if (kind_first)
          message = fmt::format("{}: '{}' stands where the world file goes; the world comes first: strata {} WORLD {} ...",
                                sub->get_name(), first_word, sub->get_name(), first_word);
        else
          message = typed.empty() ? fmt::format("{}: give one of: {}", sub->get_name(), choices)
                                  : fmt::format("{}: unknown kind '{}' (one of: {})", sub->get_name(), typed, choices);
      }
    }
    // A missing positional is reported before arguments nobody takes: `strata info --bogus`
    // said only "FILE is required". Name both.
    // An option of the kind typed before its name (`strata query W --at 0,0 height`) is named as
    // such, as below.
    if (message.size() > 12 && message.compare(message.size() - 12, 12, " is required") == 0) {
      std::string typed;
      const std::vector<std::string> extras = app.remaining(true);
      for (const std::string& word : extras) typed += (typed.empty() ? "" : " ") + word;
      if (!typed.empty()) message += "; unexpected arguments: " + typed + misplacedHint(extras);
    }
    // CLI11's extras message lists the arguments in reverse ("2,0,2 --to 1,0,1 --from"): give them
    // in the order typed, and say where an option of the kind given before it belongs.
    if (message.rfind("The following argument", 0) == 0 && message.find("not expected") != std::string::npos) {
      const std::vector<std::string> extras = app.remaining(true);
      std::string typed;
      for (const std::string& word : extras) typed += (typed.empty() ? "" : " ") + word;
      if (!typed.empty()) message = "unexpected arguments: " + typed + misplacedHint(extras);
    }
    // CLI11's conversion failure ("Could not convert: --threads = abc"): every typed option
    // here is a number.
    const std::string prefix = "Could not convert: ";
    if (message.rfind(prefix, 0) == 0) {
      const std::size_t eq = message.find(" = ", prefix.size());
      if (eq != std::string::npos) {
        const std::string name = message.substr(prefix.size(), eq - prefix.size()), value = message.substr(eq + 3);
        // A flag given a value it does not read ("--flat=maybe"): not a number it wanted.
        const CLI::Option* option = optionNamed(name);
        const bool flag = option != nullptr && option->get_expected_max() == 0;
        message = flag ? fmt::format("{}: '{}' is not a value this flag takes (give {} alone, or {}=true or =false)", name, value, name, name)
                       : fmt::format("{}: '{}' is not a number", name, value);
      }
    }
    // CLI11's count message ("--from: At Most 1 required but received 2"): an option given twice.
    {
      const std::string at_most = ": At Most 1 required but received ";
      if (const std::size_t at = message.find(at_most); at != std::string::npos)
        message = fmt::format("{}: given {} times; give it once", message.substr(0, at), message.substr(at + at_most.size()));
    }
    // An option nobody takes: strata's own --version given after a subcommand, or a misspelt
    // option of the subcommand (or of query's kind) within two edits of a real one (`--profil`,
    // `--thread` said only "unexpected arguments"; an audit).
    // (Not after "--", which ends the options: the words after it are positional.)
    if (message.find("unexpected arguments: ") != std::string::npos && message.find(" is an option of '") == std::string::npos &&
        !separated_words) {
      for (const std::string& word : app.remaining(true)) {
        if (word.rfind("--", 0) != 0 && word != "-V") continue;
        const std::string name = word.substr(0, word.find('='));
        if (name == "--version" || name == "-V") {
          message += "; --version is an option of strata itself: strata --version";
          break;
        }
        if (deepest == nullptr || deepest->get_option_no_throw(name) != nullptr) continue;
        // Only the first unknown option is matched, and not one that a sibling kind takes (query
        // field's `--from 1,0,1 --to 2,0,2` are los's options, not a misspelt --at).
        bool elsewhere = false;
        if (const CLI::App* parent = deepest->get_parent(); parent != nullptr && parent != &app)
          for (const CLI::App* sibling : parent->get_subcommands({}))
            elsewhere = elsewhere || sibling->get_option_no_throw(name) != nullptr;
        if (elsewhere) break;
        // A name of three letters or more, of letters, digits and dashes; within one edit of a
        // name of four letters or fewer, two of a longer one (an edit: a letter added, dropped,
        // changed, or two side by side swapped). Looser matching offered --up for ---x and --to
        // for --h (the re-audit).
        const std::string typed = name.substr(2);
        const bool plain = typed.size() >= 3 && typed.front() != '-' &&
                           std::all_of(typed.begin(), typed.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-'; });
        std::string best;
        std::size_t best_distance = 3;
        for (const CLI::App* scope : {deepest, deepest->get_parent()}) {
          if (!plain || scope == nullptr || scope == &app) continue;
          for (const CLI::Option* option : scope->get_options())
            for (const std::string& candidate : option->get_lnames()) {
              const std::size_t d = editDistance(typed, candidate);
              if (d > 0 && d <= (candidate.size() <= 4 ? 1u : 2u) && d < best_distance) best_distance = d, best = "--" + candidate;
            }
        }
        if (!best.empty()) message += fmt::format(" (did you mean {}?)", best);
        break;
      }
    }
    // An option that takes a value given none, the next word being an option ("--from --to
    // 0,0,-25", "-o --threads 1"): CLI11 took "--to" for the value of --from and reported the
    // value of --to as an unexpected argument (an audit). Say which option lacks its value: one
    // given nothing, or one that took an option needing a value of its own whose value is then
    // the first word nobody took ("--agent --json" is the agent '--json', whose own message
    // follows). A value may start with a single '-' ("--from -1,0,2"); a word is an option when
    // it starts with "--" or names one ("-o").
    if (message.find("unexpected arguments: ") != std::string::npos || message.find(" missing") != std::string::npos) {
      const std::vector<std::string> extras = app.remaining(true);
      auto isOption = [&](const char* word) {
        return std::strncmp(word, "--", 2) == 0 || (word[0] == '-' && optionNamed(word) != nullptr);
      };
      for (int i = 1; i < argc && std::strcmp(argv[i], "--") != 0; ++i) {
        const std::string name = argv[i];
        if (name.size() < 2 || name[0] != '-' || name.find('=') != std::string::npos) continue;
        const CLI::Option* option = optionNamed(name);
        if (option == nullptr || option->get_expected_min() < 1) continue;
        const auto& results = option->results();
        const bool given = std::any_of(results.begin(), results.end(), [](const std::string& r) { return !r.empty(); });
        if (i + 1 == argc) {
          if (given) continue;
          message = fmt::format("{}: a value is required, and nothing follows it", name);
          break;
        }
        if (!isOption(argv[i + 1])) continue;
        const CLI::Option* taken = optionNamed(argv[i + 1]);
        const bool orphaned = taken != nullptr && taken->get_expected_min() >= 1 && i + 2 < argc && !extras.empty() &&
                              extras.front() == argv[i + 2];
        if (!given || orphaned) {
          message = fmt::format("{}: a value is required, and the next word, '{}', is an option", name, argv[i + 1]);
          break;
        }
      }
    }
    // One line, as every other error: the problem, then where the usage is.
    std::string help = "strata --help";
    for (const CLI::App* sub : app.get_subcommands())
      if (sub->parsed()) help = "strata " + usageOf(sub) + " --help";
    for (char& c : message)
      if (c == '\n' || c == '\r') c = ' ';
    strata::cli::toStderr(fmt::format("strata: error: {} (usage: {})\n", message, help));
    return kExitBadInput;
  }

  // The command's first input (its first positional argument), which an out-of-memory error
  // names: the file whose size or content asked for more than the machine or the limit gives.
  const auto firstInput = [&]() -> std::string {
    for (auto& [sub, run] : runners)
      if (sub->parsed())
        for (const CLI::Option* option : sub->get_options())
          if (option->get_positional() && !option->results().empty()) return option->results().front();
    return {};
  };
  // Under an address-space limit (ulimit -v) that leaves next to nothing beyond what the
  // process maps at its start (its libraries: about 25 MiB with HDF5 linked statically, 42 MiB
  // with its shared library), the first allocations of a command can fail where nothing can
  // report them: HDF5's own start-up crashed a bake with SIGSEGV at ulimit -v 45000 and 46000
  // (2-4 MiB of room). Commands that start worker threads check their room for them too
  // (threadRoomShortfall).
  if (const std::string problem = addressSpaceShortfall(8ull << 20, "at start", "to run"); !problem.empty())
    return reportError(strata::Error::runtime(problem));
  try {
    // (Not a structured binding: clang before 16 cannot capture one in the lambda below.)
    for (auto& runner : runners)
      if (runner.first->parsed()) {
        setUsageCommand(usageOf(runner.first));
        // errno after the command is a leftover of its own work: only what the flush sets counts.
        return flushed([&] {
          const int code = runner.second();
          errno = 0;
          return code;
        });
      }
  } catch (const std::bad_alloc&) {
    const std::string input = firstInput();
    toStderr(fmt::format("strata: error: {}out of memory\n", input.empty() ? std::string() : printable(input) + ": "));
    return kExitRuntime;
  } catch (const std::system_error& e) {
    // fmt's print throws when standard output fails ("cannot write to file: ..."): say which.
    if (std::ferror(stdout)) toStderr(fmt::format("strata: error: standard output: {}\n", e.code().message()));
    else toStderr(fmt::format("strata: error: {}\n", e.what()));
    return kExitRuntime;
  } catch (const std::exception& e) {
    // oneTBB's "pthread_create has failed: Resource temporarily unavailable": a worker thread
    // could not start (its stack is address space; or too many processes).
    if (std::strstr(e.what(), "pthread_create") != nullptr) {
      const std::string input = firstInput();
      toStderr(fmt::format("strata: error: {}could not start a worker thread ({}): too little memory or address space "
                           "(ulimit -v), or too many processes (ulimit -u)\n",
                           input.empty() ? std::string() : printable(input) + ": ", e.what()));
      return kExitRuntime;
    }
    toStderr(fmt::format("strata: error: {}\n", e.what()));
    return kExitRuntime;
  }
  return kExitBadInput;
}
