// libFuzzer target: the import pre-checks (import_precheck.h) and the sandbox reply decoder
// (import_framing.h) on arbitrary bytes. Both are pure functions over a byte span, so no file
// system is involved. The first byte selects the check: 0-5 a mesh format's pre-check, 6 the
// reply decoder (the bytes a sandboxed child could send). They must return, never crash, hang
// or allocate without bound; a decoded reply must satisfy every TriangleMesh invariant.
// Seed corpus: corpus/fuzz_import_precheck/ (tiny valid and invalid headers, first byte = selector).
//
//   CC=clang CXX=clang++ cmake -S . -B build-fuzz-import -G Ninja -DSTRATA_FUZZ=ON -DSTRATA_BUILD_TESTS=OFF
//   cmake --build build-fuzz-import --target fuzz_import_precheck
//   build-fuzz-import/tests/fuzz/fuzz_import_precheck -max_total_time=30 tests/fuzz/corpus/fuzz_import_precheck

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "import_framing.h"
#include "import_precheck.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace strata::formats;
  if (size == 0) return 0;
  const std::uint8_t selector = data[0] % 7;
  const std::span<const std::uint8_t> bytes(data + 1, size - 1);
  if (selector == 6) {
    const auto reply = decodeSceneReply(bytes);
    if (reply.ok() && !reply->mesh.validate().empty()) std::abort();
    if (!reply.ok() && reply.error().message.empty()) std::abort();
    return 0;
  }
  static constexpr MeshFormat kFormats[] = {MeshFormat::Obj, MeshFormat::Gltf, MeshFormat::Glb,
                                            MeshFormat::Fbx, MeshFormat::Ply,  MeshFormat::Stl};
  const PrecheckResult result = precheckContent(kFormats[selector], bytes);
  // An accepted glTF must not point at buffers with absurd names; a rejected file says why.
  if (!result.ok() && result.problem.empty()) std::abort();
  return 0;
}
