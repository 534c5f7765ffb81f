// libFuzzer target: the world-file reader on arbitrary bytes, read from memory through HDF5's
// core driver (formats::detail::readWorldImage), so no temporary files are involved.
// The reader must return a result (BadInput for anything but a valid world) and never crash,
// hang or allocate without bound. Seed corpus: corpus/fuzz_world_reader/ (a small valid world,
// a truncated one, an empty one). Known findings inside libhdf5 are listed in docs/format.md.
//
//   CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DSTRATA_FUZZ=ON -DSTRATA_BUILD_TESTS=OFF
//   cmake --build build-fuzz --target fuzz_world_reader
//   build-fuzz/tests/fuzz/fuzz_world_reader -max_total_time=30 tests/fuzz/corpus/fuzz_world_reader

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "world_file_internal.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto image = std::as_bytes(std::span(data, size));
  const auto world = strata::formats::detail::readWorldImage(image, "fuzz-input.h5");
  if (world.ok()) {
    // A world that reads must satisfy every TriangleMesh invariant.
    if (!world->geometry.validate().empty()) std::abort();
  } else if (world.error().message.empty()) {
    std::abort();
  }
  return 0;
}
