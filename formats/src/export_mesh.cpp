// strata export: a debug mesh of a layered graph through Assimp's exporter (export.h). The
// aiScene is built by hand: mesh 0 holds one quad (two triangles) per node, mesh 1 the edge lines.
// Assimp writes some formats as several files (.gltf + .bin, .obj + .mtl) named after the target,
// so the export goes to a temporary folder beside the target under the target's own file name,
// and each file is then renamed into place (companions first, the main file last).

#include <assimp/Exporter.hpp>
#include <assimp/IOStream.hpp>
#include <assimp/IOSystem.hpp>
#include <assimp/material.h>
#include <assimp/mesh.h>
#include <assimp/scene.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "render_canvas.h"
#include "sha256.h"
#include "strata/formats/export.h"
#include "strata/formats/output_file.h"

namespace strata::formats {
namespace {

using render_detail::Rgb;

aiColor4D toColour(Rgb c) { return aiColor4D(c.r / 255.0f, c.g / 255.0f, c.b / 255.0f, 1.0f); }

// Assimp's OBJ and PLY exporters neither check their writes nor report a failed close, so a full
// disk left truncated files behind a success. Files are written through this IO system instead,
// which remembers the first failure (a short write, a failed flush or close) and its errno.
struct WriteFailure {
  bool failed = false;
  int error = 0;
  void note() {
    if (!failed) failed = true, error = errno;
  }
};

class CheckedStream : public Assimp::IOStream {
 public:
  CheckedStream(std::FILE* file, WriteFailure& failure) : file_(file), failure_(failure) {}
  ~CheckedStream() override {
    if (std::fclose(file_) != 0) failure_.note();
  }
  size_t Read(void* buffer, size_t size, size_t count) override { return std::fread(buffer, size, count, file_); }
  size_t Write(const void* buffer, size_t size, size_t count) override {
    const size_t written = std::fwrite(buffer, size, count, file_);
    if (written != count) failure_.note();
    return written;
  }
  aiReturn Seek(size_t offset, aiOrigin origin) override {
    const int whence = origin == aiOrigin_SET ? SEEK_SET : origin == aiOrigin_CUR ? SEEK_CUR : SEEK_END;
    return std::fseek(file_, static_cast<long>(offset), whence) == 0 ? aiReturn_SUCCESS : aiReturn_FAILURE;
  }
  size_t Tell() const override { return static_cast<size_t>(std::ftell(file_)); }
  size_t FileSize() const override {
    struct stat st {};
    return ::fstat(fileno(file_), &st) == 0 ? static_cast<size_t>(st.st_size) : 0;
  }
  void Flush() override {
    if (std::fflush(file_) != 0) failure_.note();
  }

 private:
  std::FILE* file_;
  WriteFailure& failure_;
};

class CheckedIOSystem : public Assimp::IOSystem {
 public:
  explicit CheckedIOSystem(WriteFailure& failure) : failure_(failure) {}
  bool Exists(const char* file) const override {
    struct stat st {};
    return ::stat(file, &st) == 0;
  }
  char getOsSeparator() const override { return '/'; }
  Assimp::IOStream* Open(const char* file, const char* mode) override {
    std::FILE* f = std::fopen(file, mode);
    if (f == nullptr) {
      if (std::strpbrk(mode, "wa+") != nullptr) failure_.note();
      return nullptr;
    }
    return new CheckedStream(f, failure_);
  }
  void Close(Assimp::IOStream* stream) override { delete stream; }

 private:
  WriteFailure& failure_;
};

aiMaterial* makeMaterial(const char* name) {
  auto* material = new aiMaterial();
  const aiString material_name(name);
  material->AddProperty(&material_name, AI_MATKEY_NAME);
  const aiColor4D white(1, 1, 1, 1);
  material->AddProperty(&white, 1, AI_MATKEY_COLOR_DIFFUSE);
  return material;
}

// The quads of `quad_nodes` (node ids) as one mesh.
aiMesh* makeSurfaceMesh(const nav::LayeredGraph& graph, const ExportSettings& settings, const std::vector<uint32_t>& quad_nodes) {
  const std::size_t nodes = quad_nodes.size();
  auto* mesh = new aiMesh();
  mesh->mName = aiString("walkable");
  mesh->mPrimitiveTypes = aiPrimitiveType_TRIANGLE;
  mesh->mMaterialIndex = 0;
  mesh->mNumVertices = static_cast<unsigned>(nodes * 4);
  mesh->mVertices = new aiVector3D[mesh->mNumVertices];
  mesh->mNormals = new aiVector3D[mesh->mNumVertices];
  mesh->mColors[0] = new aiColor4D[mesh->mNumVertices];
  mesh->mNumFaces = static_cast<unsigned>(nodes * 2);
  mesh->mFaces = new aiFace[mesh->mNumFaces];
  const double half = graph.grid.cell_size / 2;
  // Corners counter-clockwise seen from above (+Y), so the front face points up.
  constexpr double kCornerX[4] = {-1, -1, 1, 1};
  constexpr double kCornerZ[4] = {-1, 1, 1, -1};
  for (uint32_t q = 0; q < nodes; ++q) {
    const uint32_t node = quad_nodes[q];
    const sim::Vec3 centre = graph.nodePosition(node);
    sim::Vec3f normal = graph.normal[node];
    if (settings.flat || !(normal.y > 0.1f)) normal = {0, 1, 0};
    const aiColor4D colour = toColour(render_detail::kCategoryPalette[graph.area[node] % std::size(render_detail::kCategoryPalette)]);
    for (int corner = 0; corner < 4; ++corner) {
      const double dx = kCornerX[corner] * half, dz = kCornerZ[corner] * half;
      // On the plane through the node with its normal: n . (p - centre) = 0.
      const double y = centre.y - (normal.x * dx + normal.z * dz) / normal.y;
      const std::size_t v = static_cast<std::size_t>(q) * 4 + static_cast<std::size_t>(corner);
      mesh->mVertices[v] = aiVector3D(static_cast<float>(centre.x + dx), static_cast<float>(y), static_cast<float>(centre.z + dz));
      mesh->mNormals[v] = aiVector3D(normal.x, normal.y, normal.z);
      mesh->mColors[0][v] = colour;
    }
    const unsigned base = q * 4;
    for (int t = 0; t < 2; ++t) {
      aiFace& face = mesh->mFaces[q * 2 + static_cast<unsigned>(t)];
      face.mNumIndices = 3;
      face.mIndices = new unsigned[3]{base, base + 1 + static_cast<unsigned>(t), base + 2 + static_cast<unsigned>(t)};
    }
  }
  return mesh;
}

struct Segment {
  sim::Vec3 from, to;
  Rgb colour;
};

std::vector<Segment> edgeSegments(const nav::LayeredGraph& graph, float lift) {
  std::vector<Segment> segments;
  const sim::Vec3 up{0, lift, 0};
  for (uint32_t node = 0; node < graph.nodeCount(); ++node) {
    for (int d = 0; d < nav::kDirectionCount; ++d) {
      const nav::EdgeKind kind = graph.edgeKind(node, d);
      Rgb colour;
      if (kind == nav::EdgeKind::Jump) colour = render_detail::kJumpColour;
      else if (kind == nav::EdgeKind::Drop) colour = render_detail::kDropColour;
      else if (kind == nav::EdgeKind::Climb) colour = render_detail::kClimbColour;
      else continue;
      segments.push_back({graph.nodePosition(node) + up, graph.nodePosition(graph.neighborOf(node, d)) + up, colour});
    }
  }
  for (const nav::OffMeshLink& link : graph.links)  // custom links, and second jumps coloured as jumps
    segments.push_back({graph.nodePosition(link.from_node) + up, graph.nodePosition(link.to_node) + up,
                        link.kind == nav::EdgeKind::Jump ? render_detail::kJumpColour : render_detail::kLinkColour});
  return segments;
}

aiMesh* makeLineMesh(const std::vector<Segment>& segments) {
  auto* mesh = new aiMesh();
  mesh->mName = aiString("edges");
  mesh->mPrimitiveTypes = aiPrimitiveType_LINE;
  mesh->mMaterialIndex = 1;
  mesh->mNumVertices = static_cast<unsigned>(segments.size() * 2);
  mesh->mVertices = new aiVector3D[mesh->mNumVertices];
  mesh->mColors[0] = new aiColor4D[mesh->mNumVertices];
  mesh->mNumFaces = static_cast<unsigned>(segments.size());
  mesh->mFaces = new aiFace[mesh->mNumFaces];
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const Segment& s = segments[i];
    mesh->mVertices[i * 2] = aiVector3D(static_cast<float>(s.from.x), static_cast<float>(s.from.y), static_cast<float>(s.from.z));
    mesh->mVertices[i * 2 + 1] = aiVector3D(static_cast<float>(s.to.x), static_cast<float>(s.to.y), static_cast<float>(s.to.z));
    mesh->mColors[0][i * 2] = mesh->mColors[0][i * 2 + 1] = toColour(s.colour);
    mesh->mFaces[i].mNumIndices = 2;
    mesh->mFaces[i].mIndices = new unsigned[2]{static_cast<unsigned>(i * 2), static_cast<unsigned>(i * 2 + 1)};
  }
  return mesh;
}

}  // namespace

std::string ExportSettings::validate() const {
  if (!(edge_lift >= 0) || !std::isfinite(edge_lift)) return fmt::format("edge_lift: {} must be >= 0 metres", edge_lift);
  return {};
}

const std::vector<std::string>& exportExtensions() {
  static const std::vector<std::string> kExtensions{".gltf", ".glb", ".obj", ".ply"};
  return kExtensions;
}

std::vector<std::filesystem::path> exportCompanionFiles(const std::filesystem::path& path) {
  const std::string ext = lowerExtension(path);
  std::filesystem::path companion = path;
  // Assimp's glTF exporter names the buffer after the file with ".gltf" cut off only when it is
  // spelt in lower case: UP.GLTF writes UP.GLTF.bin (an audit: the export ran, then refused the
  // buffer it had not expected, exit 1).
  if (ext == ".gltf") {
    if (path.extension() == ".gltf") return {companion.replace_extension(".bin")};
    return {std::filesystem::path(path.string() + ".bin")};
  }
  if (ext == ".obj") return {companion.replace_extension(".mtl")};
  return {};
}

Result<std::vector<std::pair<std::filesystem::path, std::filesystem::path>>> checkExportOutputs(
    const std::filesystem::path& path, const std::vector<std::filesystem::path>& inputs) {
  // Symbolic links are followed (the link stays); devices, FIFOs and directories are refused.
  auto checked = checkOutputPath(path, inputs);
  if (!checked) return checked.error();
  const std::filesystem::path target = *checked;
  // The companions follow from the extension, so the link's and the target's must agree.
  if (lowerExtension(target) != lowerExtension(path))
    return Error::badInput(fmt::format("{}: is a symbolic link to '{}', not a {} file: the export's companion file "
                                       "would be named after it; link to a {} name",
                                       path.string(), target.string(), lowerExtension(path), lowerExtension(path)));
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> destinations;  // (file name, target)
  for (const std::filesystem::path& companion : exportCompanionFiles(target)) {
    auto companion_target = checkOutputPath(companion, inputs);
    if (!companion_target) return Error{companion_target.error().kind, path.string() + ": companion file " + companion_target.error().message};
    // Through a symbolic link, as the main file: only to a file of its own extension (an audit:
    // OUT.bin linked to notes.txt, a profile or a mesh, which the export replaced, exit 0).
    if (lowerExtension(*companion_target) != lowerExtension(companion))
      return Error::badInput(fmt::format("{}: companion file {} is a symbolic link to '{}', not a {} file: refusing to "
                                         "replace it",
                                         path.string(), companion.string(), companion_target->string(),
                                         lowerExtension(companion)));
    destinations.emplace_back(companion.filename(), *companion_target);
  }
  destinations.emplace_back(target.filename(), target);
  return destinations;
}

Status refuseRecordedMeshes(const std::vector<std::pair<std::filesystem::path, std::filesystem::path>>& outputs,
                            const std::vector<InputRecord>& recorded) {
  for (const auto& [name, target] : outputs) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(target, ec)) continue;
    const std::uintmax_t size = std::filesystem::file_size(target, ec);
    if (ec) continue;
    const InputRecord* same_size = nullptr;
    for (const InputRecord& r : recorded)
      if (r.bytes == size) same_size = &r;
    if (same_size == nullptr) continue;  // no hash read unless some recorded mesh has its size
    std::ifstream in(target, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in && !in.eof()) continue;
    const std::string hash = sha256Hex(std::string_view(bytes));
    for (const InputRecord& r : recorded)
      if (r.bytes == size && r.sha256 == hash)
        return Error::badInput(fmt::format("{}: the output file is the mesh the world was imported from (recorded as {}: "
                                           "the same size and SHA-256); refusing to replace it",
                                           target.string(), r.path));
  }
  return Ok{};
}

Result<ExportStats> exportDebugMesh(const std::filesystem::path& path, const nav::LayeredGraph& graph,
                                    const ExportSettings& settings) {
  if (std::string problem = settings.validate(); !problem.empty()) return Error::badInput(path.string() + ": " + problem);
  const std::string ext = lowerExtension(path);
  std::string format_id;
  bool lines_allowed = true;
  if (ext == ".gltf") format_id = "gltf2";
  else if (ext == ".glb") format_id = "glb2";
  else if (ext == ".obj") format_id = "obj";
  else if (ext == ".ply") format_id = "ply", lines_allowed = false;
  else return Error::badInput(fmt::format("{}: unknown mesh type '{}' (use .gltf, .glb, .obj or .ply)", path.string(), ext));
  if (std::string problem = render_detail::checkDrawableGraph(graph); !problem.empty())
    return Error::badInput(path.string() + ": the layered graph is inconsistent: " + problem);
  if (graph.nodeCount() == 0) return Error::badInput(path.string() + ": the graph has no nodes to export");
  if (graph.nodeCount() * 4 > std::numeric_limits<unsigned>::max() / 2)
    return Error::badInput(path.string() + ": the graph has too many nodes for one mesh");

  auto outputs = checkExportOutputs(path, settings.inputs);
  if (!outputs) return outputs.error();
  const std::vector<std::pair<std::filesystem::path, std::filesystem::path>>& destinations = *outputs;  // (file name, target)
  const std::filesystem::path target = destinations.back().second;
  // A .gltf names its buffer file in a URI: '#' would start a fragment, '?' a query and '%' an
  // escape, and readers disagree on decoding escapes (Assimp does not, Blender does), so such a
  // name cannot be written so that every reader finds the buffer. Nor can a space or another
  // character a URI (or IRI) never holds unescaped (Assimp wrote "my level.bin" as it is, which
  // a strict reader refuses; an audit). Letters beyond ASCII are IRI characters.
  const std::string name = target.filename().string();
  auto notInUri = [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u <= 0x20 || u == 0x7f || std::strchr("#?%\"<>\\^`{|}", c) != nullptr;
  };
  if (ext == ".gltf" && std::any_of(name.begin(), name.end(), notInUri))
    return Error::badInput(fmt::format("{}: a .gltf file names its .bin buffer in a URI, where spaces, control characters and "
                                       "# ? % \" < > \\ ^ ` {{ | }} are not plain characters; rename it, or write .glb (one file)",
                                       path.string()));
  // An OBJ names its material library on an "mtllib" line, a list of names separated by blanks:
  // "mtllib my level.mtl" names two files, neither of them written (an audit).
  if (ext == ".obj" && name.find_first_of(" \t") != std::string::npos)
    return Error::badInput(fmt::format("{}: an .obj file names its .mtl on an mtllib line, whose names are separated by blanks, "
                                       "so its name may not hold a space or tab; rename it",
                                       path.string()));
  std::error_code ec;

  ExportStats stats;
  auto scene = std::make_unique<aiScene>();
  const std::vector<Segment> segments =
      (settings.edges && lines_allowed) ? edgeSegments(graph, settings.edge_lift) : std::vector<Segment>{};
  // Assimp's glTF exporters join vertices at equal positions (and normals) whatever their
  // colours, so a quad beside another area, or a jump's end on a drop's, took the other's colour
  // (70 of tower's 284 edge ends). For glTF and GLB each colour is a mesh of its own, all of one
  // node's meshes written as the primitives of one glTF mesh; OBJ and PLY keep one mesh each.
  const bool split_colours = ext == ".gltf" || ext == ".glb";
  // Assimp's exporters hold several copies of every vertex (the scene, the exporter's copy of it,
  // its buffers): measured at the peak, about 480 bytes a vertex for glTF and GLB and 345 for OBJ
  // and PLY (a 2.65-million-node world: 5.1 and 3.7 GB; four vertices a node, two a line). A
  // world too large for the machine is refused here, not killed by the kernel half-way with
  // nothing said (an audit: a 46-million-node world was SIGKILLed after 100 s).
  if (settings.memory_limit_bytes > 0) {
    const double per_vertex = split_colours ? 500.0 : 360.0;  // glTF and GLB, or OBJ and PLY
    const double vertices = 4.0 * static_cast<double>(graph.nodeCount()) + 2.0 * static_cast<double>(segments.size());
    const double needed = per_vertex * vertices;
    if (needed > static_cast<double>(settings.memory_limit_bytes))
      return Error::badInput(fmt::format("{}: exporting {} nodes{} would need about {:.3g} GB, more than the {:.3g} GB of "
                                         "memory; export a bake with a larger cell_size",
                                         path.string(), graph.nodeCount(),
                                         segments.empty() ? std::string() : fmt::format(" and {} edge lines", segments.size()),
                                         needed / 1e9, static_cast<double>(settings.memory_limit_bytes) / 1e9));
  }
  std::vector<std::vector<uint32_t>> quad_groups;  // nodes, per palette colour (ascending)
  {
    const std::size_t palette = std::size(render_detail::kCategoryPalette);
    std::vector<std::vector<uint32_t>> by_colour(split_colours ? palette : 1);
    for (uint32_t node = 0; node < graph.nodeCount(); ++node)
      by_colour[split_colours ? graph.area[node] % palette : 0].push_back(node);
    for (auto& group : by_colour)
      if (!group.empty()) quad_groups.push_back(std::move(group));
  }
  std::vector<std::vector<Segment>> line_groups;  // segments, per colour (first seen first)
  for (const Segment& segment : segments) {
    auto same = [&](const std::vector<Segment>& g) {
      return !split_colours || (g.front().colour.r == segment.colour.r && g.front().colour.g == segment.colour.g &&
                                g.front().colour.b == segment.colour.b);
    };
    auto group = std::find_if(line_groups.begin(), line_groups.end(), same);
    if (group == line_groups.end()) line_groups.emplace_back(std::vector<Segment>{segment});
    else group->push_back(segment);
  }
  const auto quad_meshes = static_cast<unsigned>(quad_groups.size());
  const auto line_meshes = static_cast<unsigned>(line_groups.size());
  const unsigned mesh_count = quad_meshes + line_meshes;
  const unsigned object_count = line_meshes == 0 ? 1 : 2;
  scene->mNumMaterials = object_count;
  // Pointer tables zeroed first: the scene's destructor deletes every entry up to its count,
  // and memory running out while the meshes are made left the rest as garbage (a crash in
  // ~aiScene instead of the out-of-memory message; an audit).
  scene->mMaterials = new aiMaterial*[object_count]();
  scene->mMaterials[0] = makeMaterial("walkable");
  if (object_count == 2) scene->mMaterials[1] = makeMaterial("edges");
  scene->mNumMeshes = mesh_count;
  scene->mMeshes = new aiMesh*[mesh_count]();
  for (unsigned i = 0; i < quad_meshes; ++i) scene->mMeshes[i] = makeSurfaceMesh(graph, settings, quad_groups[i]);
  for (unsigned i = 0; i < line_meshes; ++i) scene->mMeshes[quad_meshes + i] = makeLineMesh(line_groups[i]);
  // One child node per object, named as it: glTF writes a node's meshes as primitives of one
  // mesh, and a viewer shows or hides the edges only when they are an object of their own.
  scene->mRootNode = new aiNode("strata_layered_graph");
  scene->mRootNode->mNumChildren = object_count;
  scene->mRootNode->mChildren = new aiNode*[object_count]();
  for (unsigned i = 0; i < object_count; ++i) {
    aiNode* child = new aiNode(i == 0 ? "walkable" : "edges");
    child->mParent = scene->mRootNode;
    const unsigned first = i == 0 ? 0 : quad_meshes, count = i == 0 ? quad_meshes : line_meshes;
    child->mNumMeshes = count;
    child->mMeshes = new unsigned[count];
    for (unsigned k = 0; k < count; ++k) child->mMeshes[k] = first + k;
    scene->mRootNode->mChildren[i] = child;
  }
  stats.quads = graph.nodeCount();
  stats.lines = segments.size();

  auto created = TemporaryFile::createFor(target, path.string(), TemporaryFile::Kind::Folder);
  if (!created) return created.error();
  TemporaryFile& temporary = **created;
  WriteFailure failure;
  // Written into the folder created, through its descriptor's link, never by its name (output_file.h).
  const std::filesystem::path staged = temporary.writePath() / target.filename();
  {
    Assimp::Exporter exporter;
    exporter.SetIOHandler(new CheckedIOSystem(failure));  // the exporter owns and deletes it
    if (exporter.Export(scene.get(), format_id, staged.string()) != AI_SUCCESS) {
      // A write that failed is said by its errno (a full disk, the file-size limit), not by the
      // exporter's words ("Failed to write body data!", or a path through /proc/self/fd; an
      // audit). Assimp swallows every exception but its own export errors and then says
      // nothing: memory ran out (std::bad_alloc), said as by every command (strata(1)).
      if (failure.failed)
        return Error::runtime(fmt::format("{}: write failed: {}", path.string(), std::strerror(failure.error)));
      const std::string reason = exporter.GetErrorString();
      if (reason.empty()) throw std::bad_alloc();
      return Error::runtime(fmt::format("{}: Assimp export failed: {}", path.string(), reason));
    }
  }  // every stream is closed here
  if (failure.failed)
    return Error::runtime(fmt::format("{}: write failed: {}", path.string(), std::strerror(failure.error)));

  // Companion files first, the main file last, so the main file never refers to a missing one.
  // Only the files checked before the work are moved: one of another name (a companion Assimp
  // named otherwise) fails the export before anything is replaced.
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> produced;  // (staged, target)
  for (const auto& entry : std::filesystem::directory_iterator(temporary.writePath())) {
    const auto known = std::find_if(destinations.begin(), destinations.end(),
                                    [&](const auto& d) { return d.first == entry.path().filename(); });
    if (known == destinations.end())
      return Error::runtime(fmt::format("{}: Assimp wrote an unexpected file '{}'; nothing was replaced", path.string(),
                                        entry.path().filename().string()));
    produced.emplace_back(entry.path(), known->second);
  }
  std::sort(produced.begin(), produced.end());
  std::stable_partition(produced.begin(), produced.end(), [&](const auto& p) { return p.first != staged; });
  // A signal between two renames would leave a new companion beside the old main file: the
  // renames run with the cleanup signals held back (delivered after the last one). Another
  // export to the same name at once would do the same: the renames run under an exclusive lock
  // of the target's directory (flock, advisory: Strata's writers take it, others need not).
  const SignalsDeferred deferred;
  struct DirectoryLock {
    int fd = -1;
    ~DirectoryLock() {
      if (fd >= 0) ::close(fd);  // releases the lock
    }
  } lock;
  if (produced.size() > 1) {
    const std::filesystem::path folder = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
    lock.fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (lock.fd >= 0)
      while (::flock(lock.fd, LOCK_EX) != 0 && errno == EINTR) {
      }
  }
  for (const auto& [file, target] : produced) {
    keepModeOf(target, file);
    std::filesystem::rename(file, target, ec);
    if (ec)
      return Error::runtime(fmt::format("{}: cannot move {} into place: {}", path.string(), target.string(), ec.message()));
    stats.files.push_back(target);
  }
  return stats;
}

}  // namespace strata::formats
