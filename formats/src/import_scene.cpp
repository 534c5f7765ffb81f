// Converting an Assimp scene into Strata geometry.
//
// Node transforms are applied here by walking the node tree rather than with Assimp's
// PreTransformVertices, which would merge meshes and lose the node names that become tags. A
// mesh referenced by several nodes is instanced once per node. Units: FBX stores
// `UnitScaleFactor` in centimetres per file unit and Assimp 5.2.5 reports it without applying
// it, so metres = value * UnitScaleFactor / 100. Z-up sources are rotated by -90 degrees about X
// ((x, y, z) -> (x, z, -y)), a proper rotation, so handedness and winding are kept. A node
// transform with a negative determinant (a mirror) flips the winding back to counter-clockwise.

#include "import_scene.h"

#include <assimp/DefaultLogger.hpp>
#include <assimp/Importer.hpp>
#include <assimp/LogStream.hpp>
#include <assimp/MemoryIOWrapper.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <cctype>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <map>
#include <mutex>
#include <new>
#include <unordered_map>

namespace strata::formats {
namespace {

// Affine 3x4 transform in double precision (row-major, column vectors like aiMatrix4x4).
struct Affine {
  double m[3][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}};

  static Affine fromAssimp(const aiMatrix4x4& a) {
    Affine t;
    const float* rows[3] = {&a.a1, &a.b1, &a.c1};
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) t.m[r][c] = rows[r][c];
    return t;
  }
  Affine operator*(const Affine& b) const {
    Affine out;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c)
        out.m[r][c] = m[r][0] * b.m[0][c] + m[r][1] * b.m[1][c] + m[r][2] * b.m[2][c] + (c == 3 ? m[r][3] : 0.0);
    return out;
  }
  sim::Vec3 apply(double x, double y, double z) const {
    return {m[0][0] * x + m[0][1] * y + m[0][2] * z + m[0][3], m[1][0] * x + m[1][1] * y + m[1][2] * z + m[1][3],
            m[2][0] * x + m[2][1] * y + m[2][2] * z + m[2][3]};
  }
  double determinant() const {
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  }
};

// Assimp reports some problems only through its logger (e.g. glTF faces with out-of-range
// indices are dropped with a warning). The capture collects warnings and errors of one import.
class LogCapture : public Assimp::LogStream {
 public:
  explicit LogCapture(std::vector<std::string>* lines) : lines_(lines) {}
  void write(const char* message) override {
    if (lines_->size() < 1000) lines_->emplace_back(message);
  }

 private:
  std::vector<std::string>* lines_;
};

std::mutex& loggerMutex() {
  static std::mutex mutex;
  return mutex;
}

std::string formatCoordinate(const sim::Vec3& p) {
  char text[128];
  std::snprintf(text, sizeof text, "(%g, %g, %g)", p.x, p.y, p.z);
  return text;
}

std::string sanitizeName(const aiString& name, const char* fallback, std::size_t index) {
  std::string text(name.C_Str(), name.length);
  if (text.empty()) return std::string(fallback) + std::to_string(index);
  for (char& c : text)
    if (c == '/' || c == '\n' || c == '\r' || c == '\0') c = '_';
  return text;
}

// Importers invent a root node when the file has none (OBJ names it after the file, FBX
// "RootNode", glTF "ROOT" when the scene has several roots, STL "<STL_BINARY>", PLY nothing).
// Such a root stands for the file itself, whose stem already starts every tag, so it adds no
// path element; a real root node (a glTF scene with one root) keeps its name.
bool isSynthesizedRoot(const aiString& name, const std::filesystem::path& path) {
  const std::string text(name.C_Str(), name.length);
  return text.empty() || text == "RootNode" || text == "ROOT" || (text.front() == '<' && text.back() == '>') ||
         text == path.filename().string() || text.rfind(AI_MEMORYIO_MAGIC_FILENAME, 0) == 0;
}

// The extension hint for ReadFileFromMemory.
std::string memoryHint(MeshFormat format) {
  switch (format) {
    case MeshFormat::Glb: return "glb";
    case MeshFormat::Fbx: return "fbx";
    case MeshFormat::Ply: return "ply";
    case MeshFormat::Stl: return "stl";
    case MeshFormat::Gltf: return "gltf";
    case MeshFormat::Obj: return "obj";
  }
  return {};
}

// FBX unit: centimetres per file unit (1 when absent).
Result<double> fbxUnitScale(const aiScene& scene, const std::string& display_name) {
  if (scene.mMetaData == nullptr) return 1.0;
  double value = 1.0;
  float as_float = 0;
  double as_double = 0;
  int32_t as_int = 0;
  if (scene.mMetaData->Get("UnitScaleFactor", as_float)) value = as_float;
  else if (scene.mMetaData->Get("UnitScaleFactor", as_double)) value = as_double;
  else if (scene.mMetaData->Get("UnitScaleFactor", as_int)) value = as_int;
  if (!std::isfinite(value) || value <= 0)
    return Error::badInput(display_name + ": FBX UnitScaleFactor " + std::to_string(value) + " is not a positive number");
  return value;
}

}  // namespace

Result<SceneGeometry> readSceneGeometry(const std::filesystem::path& path, MeshFormat format,
                                        const std::string& display_name, const std::string& tag_root,
                                        const ImportOptions& options, std::span<const std::uint8_t> bytes) {
  SceneGeometry out;
  Assimp::Importer importer;
  importer.SetPropertyBool(AI_CONFIG_IMPORT_NO_SKELETON_MESHES, true);
  importer.SetPropertyBool(AI_CONFIG_IMPORT_FBX_READ_ANIMATIONS, false);
  importer.SetPropertyBool(AI_CONFIG_IMPORT_FBX_READ_CAMERAS, false);
  importer.SetPropertyBool(AI_CONFIG_IMPORT_FBX_READ_LIGHTS, false);
  // Joining identical vertices comes after the check for non-finite coordinates below: the join
  // compares positions, and a NaN vertex of a lone triangle was merged into another vertex and
  // reported as a degenerate triangle instead of a NaN.
  constexpr unsigned kFlags = aiProcess_ValidateDataStructure | aiProcess_Triangulate;
  std::string non_finite;  // the first vertex of a face with a NaN or infinite coordinate
  auto findNonFinite = [&](const aiScene& read) {
    for (unsigned m = 0; m < read.mNumMeshes && non_finite.empty(); ++m) {
      const aiMesh* mesh = read.mMeshes[m];
      if (mesh == nullptr || mesh->mVertices == nullptr || mesh->mFaces == nullptr) continue;
      for (unsigned f = 0; f < mesh->mNumFaces && non_finite.empty(); ++f)
        for (unsigned k = 0; k < mesh->mFaces[f].mNumIndices && mesh->mFaces[f].mIndices != nullptr; ++k) {
          const unsigned v = mesh->mFaces[f].mIndices[k];
          if (v >= mesh->mNumVertices) continue;  // reported below
          const aiVector3D& p = mesh->mVertices[v];
          if (std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z)) continue;
          non_finite = display_name + ": mesh " + std::to_string(m) +
                       (mesh->mName.length > 0 ? " ('" + std::string(mesh->mName.C_Str()) + "')" : "") + ", vertex " +
                       std::to_string(v) + ": coordinate is " +
                       (std::isnan(p.x) || std::isnan(p.y) || std::isnan(p.z) ? "NaN" : "infinite");
          break;
        }
    }
  };

  std::vector<std::string> log_lines;
  const aiScene* scene = nullptr;
  {
    std::lock_guard<std::mutex> lock(loggerMutex());
    Assimp::DefaultLogger::create("", Assimp::Logger::NORMAL, 0);
    Assimp::DefaultLogger::get()->attachStream(new LogCapture(&log_lines), Assimp::Logger::Warn | Assimp::Logger::Err);
    try {
      if (bytes.empty()) {
        scene = importer.ReadFile(path.string(), kFlags);
      } else {
        const std::string hint = memoryHint(format);
        scene = importer.ReadFileFromMemory(bytes.data(), bytes.size(), kFlags, hint.c_str());
      }
      if (scene != nullptr) findNonFinite(*scene);
      if (scene != nullptr && non_finite.empty()) scene = importer.ApplyPostProcessing(aiProcess_JoinIdenticalVertices);
    } catch (const std::bad_alloc&) {
      Assimp::DefaultLogger::kill();
      return Error::badInput(display_name + ": the importer ran out of memory");
    } catch (const std::exception& e) {
      Assimp::DefaultLogger::kill();
      return Error::badInput(display_name + ": the importer failed: " + e.what());
    }
    Assimp::DefaultLogger::kill();
  }
  if (!non_finite.empty()) return Error::badInput(non_finite);
  if (scene == nullptr) {
    std::string message = importer.GetErrorString();
    if (message.empty()) message = "unknown error";
    // Assimp catches its own allocation failures and reports them as "std::bad_alloc". In the
    // sandbox that is its memory limit: rethrown, it becomes the sandbox's message naming it.
    if (message.find("bad_alloc") != std::string::npos) {
      if (!options.in_process) throw std::bad_alloc();
      return Error::badInput(display_name + ": the importer ran out of memory");
    }
    // Parsing from memory, Assimp names the file after AI_MEMORYIO_MAGIC_FILENAME.
    for (std::size_t at; (at = message.find(AI_MEMORYIO_MAGIC_FILENAME)) != std::string::npos;) {
      std::size_t end = at + std::strlen(AI_MEMORYIO_MAGIC_FILENAME);
      while (end < message.size() && (std::isalnum(static_cast<unsigned char>(message[end])) || message[end] == '.')) ++end;
      message.replace(at, end - at, path.filename().string());
    }
    return Error::badInput(display_name + ": the importer rejected the file: " + message);
  }
  for (const std::string& line : log_lines) {
    if (line.find("out-of-range indices") != std::string::npos)
      return Error::badInput(display_name + ": some faces have out-of-range vertex indices");
    const std::string kMissingMaterial = "failed to locate material ";
    if (const auto at = line.find(kMissingMaterial); at != std::string::npos) {
      std::string name = line.substr(at + kMissingMaterial.size());
      name = name.substr(0, name.find(','));
      out.warnings.push_back("material '" + name + "' is not defined in any material library");
    }
  }
  if ((scene->mFlags & AI_SCENE_FLAGS_INCOMPLETE) != 0 || scene->mRootNode == nullptr)
    return Error::badInput(display_name + ": the file holds no complete scene (no meshes)");

  double unit_scale = 1.0;
  if (format == MeshFormat::Fbx) {
    auto fbx_unit = fbxUnitScale(*scene, display_name);
    if (!fbx_unit) return fbx_unit.error();
    unit_scale = *fbx_unit / 100.0;
  }
  // Root transform: metres, extra scale, then the up-axis rotation.
  Affine root;
  const double s = unit_scale * options.scale;
  if (options.up == UpAxis::Z) {
    root.m[0][0] = s; root.m[0][1] = 0; root.m[0][2] = 0;
    root.m[1][0] = 0; root.m[1][1] = 0; root.m[1][2] = s;
    root.m[2][0] = 0; root.m[2][1] = -s; root.m[2][2] = 0;
  } else {
    root.m[0][0] = s; root.m[1][1] = s; root.m[2][2] = s;
  }

  sim::TriangleMesh& mesh = out.mesh;
  std::map<std::string, std::uint32_t> label_ids;
  std::unordered_map<unsigned, std::uint32_t> material_label;  // Assimp material -> label id
  auto labelFor = [&](unsigned material_index) -> std::uint32_t {
    if (auto it = material_label.find(material_index); it != material_label.end()) return it->second;
    std::string name = "material" + std::to_string(material_index);
    if (material_index < scene->mNumMaterials && scene->mMaterials[material_index] != nullptr) {
      aiString ai_name;
      if (scene->mMaterials[material_index]->Get(AI_MATKEY_NAME, ai_name) == AI_SUCCESS && ai_name.length > 0)
        name.assign(ai_name.C_Str(), ai_name.length);
    }
    auto [it, inserted] = label_ids.emplace(name, static_cast<std::uint32_t>(mesh.labels.size()));
    if (inserted) mesh.labels.push_back(name);
    material_label[material_index] = it->second;
    return it->second;
  };

  struct Pending {
    const aiNode* node;
    Affine parent;
    std::string parent_path;
    int depth;
  };
  constexpr int kMaxDepth = 1024;
  constexpr std::size_t kMaxNodes = 1u << 22;
  std::vector<Pending> stack{{scene->mRootNode, root, tag_root, 0}};
  std::size_t visited = 0;
  std::vector<std::uint32_t> remap;
  while (!stack.empty()) {
    Pending item = std::move(stack.back());
    stack.pop_back();
    if (++visited > kMaxNodes || item.depth > kMaxDepth)
      return Error::badInput(display_name + ": the node hierarchy is too deep or cyclic");
    const aiNode& node = *item.node;
    const Affine global = item.parent * Affine::fromAssimp(node.mTransformation);
    const std::string node_path = item.depth == 0 && isSynthesizedRoot(node.mName, path)
                                      ? item.parent_path
                                      : item.parent_path + "/" + sanitizeName(node.mName, "node", visited - 1);
    for (unsigned c = node.mNumChildren; c-- > 0;) {
      if (node.mChildren == nullptr || node.mChildren[c] == nullptr)
        return Error::badInput(display_name + ": node '" + node_path + "' has a missing child");
      stack.push_back({node.mChildren[c], global, node_path, item.depth + 1});
    }
    if (node.mNumMeshes == 0) continue;
    const bool mirrored = global.determinant() < 0;
    std::uint32_t tag_id = static_cast<std::uint32_t>(mesh.tags.size());
    bool tag_added = false;
    for (unsigned k = 0; k < node.mNumMeshes; ++k) {
      const unsigned mesh_index = node.mMeshes[k];
      if (mesh_index >= scene->mNumMeshes || scene->mMeshes[mesh_index] == nullptr)
        return Error::badInput(display_name + ": node '" + node_path + "' refers to missing mesh " +
                               std::to_string(mesh_index));
      const aiMesh& source = *scene->mMeshes[mesh_index];
      ++out.meshes;
      const std::string where = display_name + ": mesh " + std::to_string(mesh_index) +
                                (source.mName.length > 0 ? " ('" + std::string(source.mName.C_Str()) + "')" : "");
      if (source.mNumVertices > 0 && source.mVertices == nullptr) return Error::badInput(where + ": no vertex data");
      if (source.mNumFaces > 0 && source.mFaces == nullptr) return Error::badInput(where + ": no face data");
      remap.assign(source.mNumVertices, UINT32_MAX);
      const std::uint32_t label_id = labelFor(source.mMaterialIndex);
      for (unsigned f = 0; f < source.mNumFaces; ++f) {
        const aiFace& face = source.mFaces[f];
        if (face.mNumIndices != 3 || face.mIndices == nullptr) {
          ++out.non_triangles_dropped;
          continue;
        }
        std::array<std::uint32_t, 3> triangle{};
        for (int corner = 0; corner < 3; ++corner) {
          const unsigned v = face.mIndices[corner];
          if (v >= source.mNumVertices)
            return Error::badInput(where + ", face " + std::to_string(f) + ": vertex index " + std::to_string(v) +
                                   " out of range (" + std::to_string(source.mNumVertices) + " vertices)");
          if (remap[v] == UINT32_MAX) {
            // Finite here: every face's vertices were checked before the join (findNonFinite).
            const aiVector3D& raw = source.mVertices[v];
            const sim::Vec3 p = global.apply(raw.x, raw.y, raw.z);
            // The raw coordinate is finite, so a NaN or infinity here came from the transforms
            // (a node scale of 1e300, say): say so, rather than that it lies beyond the bound.
            if (!sim::isFinite(p))
              return Error::badInput(where + ", vertex " + std::to_string(v) +
                                     ": coordinate is not finite after the node transforms and --scale");
            if (std::fabs(p.x) > sim::TriangleMesh::kWorldBound ||
                std::fabs(p.y) > sim::TriangleMesh::kWorldBound || std::fabs(p.z) > sim::TriangleMesh::kWorldBound)
              return Error::badInput(where + ", vertex " + std::to_string(v) + ": coordinate " + formatCoordinate(p) +
                                     " lies beyond the world bound of 1e6 units (after scaling)");
            remap[v] = static_cast<std::uint32_t>(mesh.vertices.size());
            mesh.vertices.push_back({static_cast<float>(p.x), static_cast<float>(p.y), static_cast<float>(p.z)});
          }
          triangle[corner] = remap[v];
        }
        if (mirrored) std::swap(triangle[1], triangle[2]);
        if (!tag_added) {
          mesh.tags.push_back(node_path);
          tag_added = true;
        }
        mesh.triangles.push_back(triangle);
        mesh.triangle_labels.push_back(label_id);
        mesh.triangle_tags.push_back(tag_id);
      }
    }
  }
  return out;
}

}  // namespace strata::formats
