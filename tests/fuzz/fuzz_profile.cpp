// libFuzzer target: the bake profile reader (formats::parseProfile) on arbitrary TOML text.
// A profile that reads must write out (profileToToml, the form a world stores as @profile) as
// text that reads back to the same profile: parse(write(p)) writes the same text again. Text that
// does not read must be refused with a message. Seed corpus: corpus/fuzz_profile/ (samples/*.toml
// and the documentation's examples).
//
//   CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DSTRATA_FUZZ=ON -DSTRATA_BUILD_TESTS=OFF
//   cmake --build build-fuzz --target fuzz_profile
//   build-fuzz/tests/fuzz/fuzz_profile -max_total_time=60 tests/fuzz/corpus/fuzz_profile

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "strata/formats/profile.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto profile = strata::formats::parseProfile(text, "fuzz.toml");
  if (!profile.ok()) {
    if (profile.error().message.empty()) std::abort();
    return 0;
  }
  const std::string stored = strata::formats::profileToToml(*profile);
  const auto again = strata::formats::parseProfile(stored, "stored.toml");
  if (!again.ok()) {
    std::fprintf(stderr, "a profile that read was written out as text that does not: %s\n--- written:\n%s\n",
                 again.error().message.c_str(), stored.c_str());
    std::abort();
  }
  const std::string restored = strata::formats::profileToToml(*again);
  if (restored != stored) {
    std::fprintf(stderr, "the profile written out reads back as another one\n--- first:\n%s\n--- second:\n%s\n",
                 stored.c_str(), restored.c_str());
    std::abort();
  }
  (void)strata::formats::checkStoredProfileSize(*profile, "fuzz.toml");
  return 0;
}
