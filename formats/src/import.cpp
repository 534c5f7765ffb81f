// importMeshes: the pipeline for each input file, then the merge.
//
//   1. the path must be a regular file with an allowed extension ("unsupported format" otherwise)
//   2. read the bytes once: size and SHA-256 for provenance, then the content pre-check
//      (import_precheck.cpp) and the files it refers to (glTF buffers, OBJ material libraries)
//   3. the Assimp parse and conversion (import_scene.cpp), in a sandboxed child process
//      (import_sandbox.cpp, reply framing in import_framing.cpp) unless options.in_process
//   4. drop zero-area triangles and compact the vertices; a file left without triangles is an error
//   5. merge into one mesh, deduplicating label and tag tables

#include "strata/formats/import.h"
#include "strata/nav/column_builder.h"
#include "strata/nav/layered_graph.h"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <new>
#include <system_error>
#include <unordered_map>

#include "import_framing.h"
#include "import_precheck.h"
#include "import_sandbox.h"
#include "import_scene.h"
#include "sha256.h"

namespace strata::formats {
namespace {

namespace fs = std::filesystem;

std::string extensionList() {
  std::string list;
  for (const std::string& extension : supportedExtensions()) list += (list.empty() ? "" : " ") + extension;
  return list;
}

Result<std::vector<std::uint8_t>> readBytes(const fs::path& path, const std::string& display_name) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::cannotOpen(display_name, path.string());
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0) return Error::runtime(display_name + ": cannot determine the file size");
  in.seekg(0, std::ios::beg);
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size));
  if (size > 0 && !in.read(reinterpret_cast<char*>(bytes.data()), size))
    return Error::runtime(display_name + ": read error");
  return bytes;
}

// A triangle is dropped as degenerate when twice its area is at most kDegenerateRatio times the
// square of its longest edge, i.e. its height is below 1e-10 of its length: exactly collinear or
// repeated float32 corners, allowing for rounding in the double-precision cross product.
constexpr double kDegenerateRatio = 1e-10;

bool isDegenerate(const sim::TriangleMesh& mesh, std::size_t t) {
  const auto& tri = mesh.triangles[t];
  if (tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2]) return true;
  const sim::Vec3 a = mesh.vertices[tri[0]].toDouble();
  const sim::Vec3 b = mesh.vertices[tri[1]].toDouble();
  const sim::Vec3 c = mesh.vertices[tri[2]].toDouble();
  const double twice_area = sim::length(sim::cross(b - a, c - a));
  const double longest_sq = std::max({sim::lengthSquared(b - a), sim::lengthSquared(c - b), sim::lengthSquared(a - c)});
  return twice_area <= kDegenerateRatio * longest_sq;
}

Result<SceneGeometry> parseFile(const fs::path& path, MeshFormat format, const std::string& display_name,
                                const std::string& tag_root, const ImportOptions& options,
                                std::span<const std::uint8_t> bytes) {
  if (options.in_process) return readSceneGeometry(path, format, display_name, tag_root, options, bytes);
  SandboxLimits limits;
  limits.timeout_seconds = options.timeout_seconds;
  limits.memory_limit_mib = options.memory_limit_mib;
  auto reply = runSandboxed(
      [&] { return encodeSceneReply(readSceneGeometry(path, format, display_name, tag_root, options, bytes)); },
      limits);
  if (!reply) return Error{reply.error().kind, display_name + ": " + reply.error().message};
  auto scene = decodeSceneReply(reply.value());
  if (!scene && scene.error().message.rfind("malformed reply", 0) == 0)
    return Error{scene.error().kind, display_name + ": " + scene.error().message};
  return scene;
}

}  // namespace

std::string ImportOptions::validate() const {
  if (!std::isfinite(scale) || scale <= 0) return "scale must be a finite number > 0";
  if (!std::isfinite(timeout_seconds) || timeout_seconds <= 0 || timeout_seconds > 86400)
    return "timeout_seconds must be > 0 and at most 86400";
  if (memory_limit_mib < 64 || memory_limit_mib > (std::uint64_t{1} << 30))
    return "memory_limit_mib must be within 64 .. 1073741824 (2^30 MiB), got " + std::to_string(memory_limit_mib);
  return {};
}

std::vector<fs::path> meshCompanionFiles(const fs::path& path) {
  std::vector<fs::path> files;
  const auto format = formatFromExtension(path.extension().string());
  std::error_code ec;
  if (!format || !fs::is_regular_file(path, ec)) return files;
  auto bytes = readBytes(path, path.string());
  if (!bytes) return files;
  const PrecheckResult precheck = precheckContent(*format, bytes.value());
  if (!precheck.ok()) return files;
  const fs::path directory = path.parent_path();
  for (const ExternalBuffer& buffer : precheck.external_buffers) files.push_back(directory / buffer.uri);
  for (const std::string& line : precheck.material_libraries)
    for (const std::string& library : objMaterialLibraries(directory, line)) files.push_back(directory / library);
  return files;
}

const std::vector<std::string>& supportedExtensions() {
  static const std::vector<std::string> extensions = {".gltf", ".glb", ".obj", ".fbx", ".ply", ".stl"};
  return extensions;
}

namespace {

constexpr const char* kNotFound = "not found";

// Why a file a mesh refers to (a glTF buffer, an OBJ material library) cannot be read: kNotFound,
// another problem ("is a directory", "is not a regular file (a FIFO, ...)"), or "" when it is a
// regular file.
std::string companionProblem(const fs::path& path) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (status.type() == fs::file_type::not_found) return kNotFound;
  if (ec) return "cannot be read: " + ec.message();
  switch (status.type()) {
    case fs::file_type::regular: {
      // A file there that cannot be opened (mode 000 for this user): the importer skipped it
      // and each material's warning said it was defined nowhere (an audit).
      const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) return std::string("cannot be read: ") + std::strerror(errno);
      ::close(fd);
      return {};
    }
    case fs::file_type::directory: return "is a directory";
    default: return "is not a regular file (a FIFO, device or socket)";
  }
}

// Warnings about a file's geometry as imported (after --scale and --up):
//  - most of its closed pieces inside out: a mesh exported mirrored or with its winding reversed
//    bakes floors from the undersides of its slabs and boxes (an audit's dungeon mirrored in x
//    baked 21,442 nodes, more than the 20,889 of the original, none of them where the original's
//    were, and the bake said nothing: it asks about the winding only when no floor is left);
//  - coordinates far enough from the origin that float32, as the world stores them, keeps steps
//    of a millimetre or more (the same level moved 100 km baked 62 more nodes and one more
//    component, an audit; docs/format.md says to re-centre such a level).
std::vector<std::string> meshWarnings(const sim::TriangleMesh& mesh) {
  std::vector<std::string> warnings;
  const nav::ClosedPieceWinding winding = nav::closedPieceWinding(mesh);
  if (winding.inside_out > 0 && winding.inside_out > winding.closed - winding.inside_out)
    warnings.push_back(fmt::format(
        "{} of its {} closed pieces are inside out (wound clockwise seen from outside; they enclose {:.4g} of the {:.4g} "
        "cubic metres the closed pieces do): is the mesh mirrored or its winding reversed? A floor must be "
        "counter-clockwise seen from above, so such a mesh bakes floors on the undersides of its slabs (docs/import.md)",
        winding.inside_out, winding.closed, winding.inside_out_volume, winding.inside_out_volume + winding.volume));
  const sim::Aabb bounds = mesh.bounds();
  const double reach = bounds.empty() ? 0.0
                                      : std::max({-bounds.min.x, -bounds.min.y, -bounds.min.z, bounds.max.x, bounds.max.y, bounds.max.z});
  constexpr double kFarCoordinate = 8192;  // where float32's spacing reaches 2^-10 m (0.98 mm)
  if (reach >= kFarCoordinate)
    warnings.push_back(fmt::format(
        "coordinates reach {:.0f} m from the origin, where float32 (the precision of the world file's vertices and "
        "floor heights) keeps steps of {:.2g} mm: heights and edges there can differ from the same level near the "
        "origin; re-centre the level before import (docs/format.md)",
        reach, 1000.0 * nav::float32Spacing(reach)));
  return warnings;
}

Result<ImportedMesh> importAll(const std::vector<fs::path>& paths, const ImportOptions& options) {
  if (const std::string problem = options.validate(); !problem.empty()) return Error::badInput("import options: " + problem);
  if (paths.empty()) return Error::badInput("no input mesh files");
  ImportedMesh result;
  sim::TriangleMesh& merged = result.mesh;
  std::map<std::string, std::uint32_t> label_ids;
  std::map<std::string, std::uint32_t> tag_ids;
  std::map<std::string, int> stems_used;  // tag roots: a file's stem, made unique in the order given

  for (std::size_t index = 0; index < paths.size(); ++index) {
    const fs::path& path = paths[index];
    const std::string display_name = path.string();
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (status.type() == fs::file_type::not_found) return Error::noSuchFile(display_name);
    if (ec) return Error::badInput(display_name + ": " + ec.message());  // a symlink loop, a permission
    // The same file twice (under any name) would double every triangle of it.
    for (std::size_t earlier = 0; earlier < index; ++earlier) {
      std::error_code same_error;
      if (fs::equivalent(paths[earlier], path, same_error))
        return Error::badInput(display_name + ": given twice (also as " + paths[earlier].string() + ")");
    }
    if (status.type() == fs::file_type::directory)
      return Error::badInput(display_name + ": unsupported format (a directory, not a mesh file)");
    if (status.type() != fs::file_type::regular)
      return Error::badInput(display_name + ": unsupported format (not a regular file)");
    const auto format = formatFromExtension(path.extension().string());
    if (!format) {
      const std::string extension = path.extension().string();
      return Error::badInput(display_name + ": unsupported format (" +
                             (extension.empty() ? std::string("no extension") : "extension '" + extension + "'") +
                             "; supported: " + extensionList() + ")");
    }

    auto bytes = readBytes(path, display_name);
    if (!bytes) return bytes.error();
    result.inputs.push_back({display_name, sha256Hex(bytes.value()), bytes->size()});

    const PrecheckResult precheck = precheckContent(*format, bytes.value());
    if (!precheck.ok()) {
      // A well-formed file whose content the importer cannot read right says so, not "not valid".
      constexpr std::string_view kUnsupported = "unsupported: ";
      if (precheck.problem.rfind(kUnsupported, 0) == 0)
        return Error::badInput(display_name + ": " + std::string(formatName(*format)) + " content the importer cannot read: " +
                               precheck.problem.substr(kUnsupported.size()));
      return Error::badInput(display_name + ": not a valid " + std::string(formatName(*format)) + " file: " + precheck.problem);
    }
    const fs::path directory = path.parent_path();
    for (const ExternalBuffer& buffer : precheck.external_buffers) {
      const fs::path buffer_path = directory / buffer.uri;
      if (const std::string problem = companionProblem(buffer_path); !problem.empty())
        return Error::badInput(display_name + ": glTF buffer file '" + buffer.uri + "' " + problem);
      std::error_code size_error;
      const std::uintmax_t size = fs::file_size(buffer_path, size_error);
      if (size_error)
        return Error::badInput(display_name + ": glTF buffer file '" + buffer.uri + "': " + size_error.message());
      if (size < buffer.byte_length)
        return Error::badInput(display_name + ": glTF buffer file '" + buffer.uri + "' has " + std::to_string(size) +
                               " bytes but its byteLength is " + std::to_string(buffer.byte_length));
    }
    bool library_missing = false;
    std::vector<std::string> libraries;
    for (const std::string& line : precheck.material_libraries)
      for (std::string& library : objMaterialLibraries(directory, line)) libraries.push_back(std::move(library));
    for (const std::string& library : libraries) {
      const std::string problem = companionProblem(directory / library);
      if (problem == kNotFound) {
        library_missing = true;
        result.stats.warnings.push_back(display_name + ": material library '" + library +
                                        "' not found (surface labels keep the material names used in the file)");
      } else if (!problem.empty()) {
        // Assimp would block on a FIFO or a device (an in-process import never returned).
        return Error::badInput(display_name + ": material library '" + library + "' " + problem);
      }
    }

    // Every file is parsed from the bytes already hashed and pre-checked, so it cannot change in
    // between; OBJ and glTF read their neighbours (.mtl, .bin) from disk.
    // Tags start with the file's stem; a second file of the same stem (level/a.obj and
    // level2/a.obj) takes "a~2", a third "a~3", so every file's tags stay its own.
    std::string tag_root = path.stem().string();
    if (const int uses = ++stems_used[tag_root]; uses > 1) {
      int n = uses;
      while (stems_used.count(tag_root + "~" + std::to_string(n)) > 0) ++n;
      tag_root += "~" + std::to_string(n);
      ++stems_used[tag_root];
    }
    auto scene = parseFile(path, *format, display_name, tag_root, options, std::span<const std::uint8_t>(bytes.value()));
    if (!scene) return scene.error();
    SceneGeometry& geometry = scene.value();
    if (const std::string problem = geometry.mesh.validate(); !problem.empty())
      return Error::badInput(display_name + ": " + problem);
    // With its library missing, every material of the file is undefined: one warning says so.
    if (!library_missing)
      for (const std::string& warning : geometry.warnings) result.stats.warnings.push_back(display_name + ": " + warning);
    for (std::string& warning : meshWarnings(geometry.mesh)) result.stats.warnings.push_back(display_name + ": " + warning);
    result.stats.meshes += geometry.meshes;
    result.stats.non_triangles_dropped += geometry.non_triangles_dropped;

    // Drop degenerates, keep only referenced vertices, remap label and tag ids into the merge.
    const sim::TriangleMesh& mesh = geometry.mesh;
    std::vector<std::uint32_t> label_map(mesh.labels.size()), tag_map(mesh.tags.size());
    for (std::size_t i = 0; i < mesh.labels.size(); ++i) {
      auto [it, inserted] = label_ids.emplace(mesh.labels[i], static_cast<std::uint32_t>(merged.labels.size()));
      if (inserted) merged.labels.push_back(mesh.labels[i]);
      label_map[i] = it->second;
    }
    for (std::size_t i = 0; i < mesh.tags.size(); ++i) {
      auto [it, inserted] = tag_ids.emplace(mesh.tags[i], static_cast<std::uint32_t>(merged.tags.size()));
      if (inserted) merged.tags.push_back(mesh.tags[i]);
      tag_map[i] = it->second;
    }
    std::vector<std::uint32_t> vertex_map(mesh.vertices.size(), UINT32_MAX);
    std::size_t kept = 0;
    std::size_t degenerate = 0;
    for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
      if (isDegenerate(mesh, t)) {
        ++degenerate;
        continue;
      }
      std::array<std::uint32_t, 3> triangle{};
      for (int corner = 0; corner < 3; ++corner) {
        std::uint32_t& mapped = vertex_map[mesh.triangles[t][corner]];
        if (mapped == UINT32_MAX) {
          mapped = static_cast<std::uint32_t>(merged.vertices.size());
          merged.vertices.push_back(mesh.vertices[mesh.triangles[t][corner]]);
        }
        triangle[corner] = mapped;
      }
      merged.triangles.push_back(triangle);
      merged.triangle_labels.push_back(label_map[mesh.triangle_labels[t]]);
      merged.triangle_tags.push_back(tag_map[mesh.triangle_tags[t]]);
      ++kept;
    }
    result.stats.degenerate_dropped += degenerate;
    if (kept == 0) {
      if (mesh.triangles.empty() && geometry.non_triangles_dropped == 0)
        return Error::badInput(display_name + ": the file holds no triangles");
      const auto count = [](std::size_t n, const char* one, const char* many) { return std::to_string(n) + (n == 1 ? one : many); };
      return Error::badInput(display_name + ": no triangles left after dropping " +
                             count(degenerate, " degenerate triangle", " degenerate triangles") + " and " +
                             count(geometry.non_triangles_dropped, " point/line", " points/lines"));
    }
  }
  if (merged.vertices.size() > UINT32_MAX) return Error::badInput("the merged mesh has more than 2^32 vertices");
  result.stats.triangles = merged.triangles.size();
  return result;
}

}  // namespace

Result<ImportedMesh> importMeshes(const std::vector<fs::path>& paths, const ImportOptions& options) {
  // No exception leaves the library: allocation failures while converting or merging (in
  // process) and filesystem errors become Runtime errors.
  try {
    return importAll(paths, options);
  } catch (const std::bad_alloc&) {
    return Error::runtime("import: out of memory");
  } catch (const std::exception& e) {
    return Error::runtime(std::string("import: ") + e.what());
  }
}

}  // namespace strata::formats
