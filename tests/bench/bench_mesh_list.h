#pragma once
// STRATA_BENCH_MESHES for the benchmarks that bake meshes: comma-separated PATH[@SCALE] entries
// (a relative PATH is taken from the working directory; SCALE > 0, 1 when left out).

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace strata::bench {

struct ListedMesh {
  std::string path;
  double scale = 1;
  std::string suffix;  ///< "@SCALE" as written ("" without), for benchmark names
};

/// The entries of STRATA_BENCH_MESHES (none when unset or empty). A malformed scale ends the
/// program with a message naming `program`, exit code 2.
inline std::vector<ListedMesh> listedMeshes(const char* program) {
  std::vector<ListedMesh> meshes;
  const char* text = std::getenv("STRATA_BENCH_MESHES");
  if (text == nullptr) return meshes;
  const std::string list = text;
  for (std::size_t begin = 0; begin <= list.size();) {
    const std::size_t comma = std::min(list.find(',', begin), list.size());
    std::string entry = list.substr(begin, comma - begin);
    begin = comma + 1;
    if (entry.empty()) continue;
    ListedMesh mesh;
    if (const std::size_t at = entry.rfind('@'); at != std::string::npos) {
      char* end = nullptr;
      mesh.scale = std::strtod(entry.c_str() + at + 1, &end);
      if (end == entry.c_str() + at + 1 || *end != '\0' || !(mesh.scale > 0)) {
        std::fprintf(stderr, "%s: STRATA_BENCH_MESHES: bad scale in '%s' (PATH[@SCALE], SCALE > 0)\n", program, entry.c_str());
        std::exit(2);
      }
      mesh.suffix = entry.substr(at);
      entry.resize(at);
    }
    mesh.path = entry;
    meshes.push_back(mesh);
  }
  return meshes;
}

}  // namespace strata::bench
