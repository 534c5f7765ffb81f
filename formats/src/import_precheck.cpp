// Header pre-checks for the allowed mesh formats (see import_precheck.h for why they exist).
//
// Sources for the layouts checked here:
//  * glTF 2.0 specification (Khronos), sections 3.6 (buffers, bufferViews, accessors) and 4.4
//    (GLB: 12-byte header magic/version/length, then 8-byte chunk headers length/type).
//  * PLY: Greg Turk, "The PLY Polygon File Format" (1994): header lines `format`, `element`,
//    `property` (scalar or `list <count type> <item type>`) ending with `end_header`.
//  * STL: binary = 80-byte header, uint32 triangle count, 50 bytes per triangle; ASCII starts
//    with `solid`. Binary files whose header also starts with `solid` exist, so the size
//    equation decides first.
//  * FBX binary files start with "Kaydara FBX Binary  \0"; ASCII FBX is text.
// The checks are deliberately conservative: they reject only what cannot be a valid file.

#include "import_precheck.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <set>

#include "json_nesting.h"

namespace strata::formats {
namespace {

using Bytes = std::span<const std::uint8_t>;

std::uint32_t readU32le(Bytes bytes, std::size_t offset) {
  return std::uint32_t{bytes[offset]} | (std::uint32_t{bytes[offset + 1]} << 8) |
         (std::uint32_t{bytes[offset + 2]} << 16) | (std::uint32_t{bytes[offset + 3]} << 24);
}

std::string_view asText(Bytes bytes) { return {reinterpret_cast<const char*>(bytes.data()), bytes.size()}; }

bool hasNulByte(Bytes bytes) { return std::find(bytes.begin(), bytes.end(), std::uint8_t{0}) != bytes.end(); }

std::string number(std::uint64_t value) { return std::to_string(value); }

// Saturating arithmetic for declared sizes, which are attacker controlled.
constexpr std::uint64_t kSaturated = std::numeric_limits<std::uint64_t>::max();

// Assimp 5.2.5's names hold at most 1023 bytes (aiString); a longer one is lost, not cut, and the
// import named it material<N> or node<N>, which could be another name of the file (an audit).
constexpr std::size_t kMaxImportedName = 1024;
constexpr std::size_t kObjRepeatRoom = 11;  // an OBJ object name's repeat mark and count (objForAssimp)
std::uint64_t addSat(std::uint64_t a, std::uint64_t b) { return a > kSaturated - b ? kSaturated : a + b; }
std::uint64_t mulSat(std::uint64_t a, std::uint64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > kSaturated / b ? kSaturated : a * b;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

std::optional<std::uint64_t> parseUnsigned(std::string_view text) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// --- glTF JSON -------------------------------------------------------------------------------

// No real glTF nests deeper than a few levels (json_nesting.h).
constexpr int kMaxJsonDepth = 128;

bool nestingTooDeep(std::string_view json) { return detail::jsonNestedDeeperThan(json, kMaxJsonDepth); }

std::optional<std::uint64_t> asUnsigned(const nlohmann::json& value) {
  if (value.is_number_unsigned()) return value.get<std::uint64_t>();
  if (value.is_number_integer() && value.get<std::int64_t>() >= 0) return static_cast<std::uint64_t>(value.get<std::int64_t>());
  return std::nullopt;
}

std::optional<std::uint64_t> unsignedMember(const nlohmann::json& object, const char* name) {
  const auto it = object.find(name);
  if (it == object.end()) return std::nullopt;
  return asUnsigned(*it);
}

// An optional offset, stride or count: absent is `fallback`; present, it must be a non-negative
// integer (glTF 2.0's schema), else nullopt. (Read with unsignedMember(...).value_or(0), a
// bufferView's byteOffset of -12, 12.5 or "12" passed as 0 and Assimp read the index bytes as
// positions: an audit.)
std::optional<std::uint64_t> optionalUnsigned(const nlohmann::json& object, const char* name, std::uint64_t fallback) {
  if (!object.contains(name)) return fallback;
  return unsignedMember(object, name);
}

// Bytes a base64 payload decodes to (ignoring any trailing garbage, which Assimp rejects itself).
std::uint64_t base64DecodedLength(std::string_view payload) {
  std::size_t padding = 0;
  while (!payload.empty() && payload.back() == '=') {
    payload.remove_suffix(1);
    ++padding;
  }
  const std::uint64_t chars = payload.size();
  return chars / 4 * 3 + (chars % 4 >= 2 ? chars % 4 - 1 : 0);
}

// What is wrong with a base64 payload (RFC 4648's alphabet, '=' padding only at its end), or
// empty. Assimp 5.2.5 decodes any byte outside the alphabet as some value and imports the
// result: a data uri with '*' in it gave other coordinates, exit 0 (an audit).
std::string base64Problem(std::string_view payload) {
  std::size_t end = payload.size();
  while (end > 0 && payload[end - 1] == '=') --end;
  if (payload.size() - end > 2) return "more than two '=' at its end";
  for (std::size_t i = 0; i < end; ++i) {
    const char c = payload[i];
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/') continue;
    const auto byte = static_cast<unsigned char>(c);
    char shown[8];
    if (byte >= 0x20 && byte < 0x7f) std::snprintf(shown, sizeof shown, "'%c'", c);
    else std::snprintf(shown, sizeof shown, "0x%02X", byte);
    return std::string("a character outside base64 (") + shown + " at payload offset " + number(i) + ")";
  }
  return {};
}

std::uint64_t componentBytes(std::uint64_t component_type) {
  switch (component_type) {
    case 5120: case 5121: return 1;  // BYTE, UNSIGNED_BYTE
    case 5122: case 5123: return 2;  // SHORT, UNSIGNED_SHORT
    case 5125: case 5126: return 4;  // UNSIGNED_INT, FLOAT
    default: return 0;
  }
}

std::uint64_t componentCount(const std::string& type) {
  if (type == "SCALAR") return 1;
  if (type == "VEC2") return 2;
  if (type == "VEC3") return 3;
  if (type == "VEC4") return 4;
  return 0;  // matrices have column padding; left to Assimp
}

}  // namespace

std::vector<std::string_view> splitWords(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    const std::size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

std::string_view formatName(MeshFormat format) {
  switch (format) {
    case MeshFormat::Obj: return "Wavefront OBJ";
    case MeshFormat::Gltf: return "glTF 2.0";
    case MeshFormat::Glb: return "glTF 2.0 binary (GLB)";
    case MeshFormat::Fbx: return "FBX";
    case MeshFormat::Ply: return "PLY";
    case MeshFormat::Stl: return "STL";
  }
  return "unknown";
}

std::optional<MeshFormat> formatFromExtension(std::string_view extension) {
  std::string lower(extension);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == ".obj") return MeshFormat::Obj;
  if (lower == ".gltf") return MeshFormat::Gltf;
  if (lower == ".glb") return MeshFormat::Glb;
  if (lower == ".fbx") return MeshFormat::Fbx;
  if (lower == ".ply") return MeshFormat::Ply;
  if (lower == ".stl") return MeshFormat::Stl;
  return std::nullopt;
}

namespace {
std::optional<std::vector<std::uint32_t>> indexList(const nlohmann::json& object, const char* name);  // below
}  // namespace

std::string precheckGltfJson(std::string_view json, std::optional<std::uint64_t> embedded_binary_length,
                             std::vector<ExternalBuffer>* external_buffers) {
  if (trim(json).empty()) return "the glTF JSON is empty";
  if (nestingTooDeep(json)) return "the glTF JSON nests deeper than " + std::to_string(kMaxJsonDepth) + " levels";
  const nlohmann::json document = nlohmann::json::parse(json.begin(), json.end(), nullptr, false);
  if (document.is_discarded()) return "the glTF JSON is not valid JSON (truncated or corrupt)";
  if (!document.is_object()) return "the glTF JSON is not an object";
  const auto asset = document.find("asset");
  if (asset == document.end() || !asset->is_object()) return "the glTF JSON has no 'asset' object";
  const auto version = asset->find("version");
  if (version == asset->end() || !version->is_string()) return "the glTF 'asset.version' is missing";
  const std::string version_text = version->get<std::string>();
  if (version_text.rfind("2.", 0) != 0) return "glTF version '" + version_text + "' is not supported (only 2.x)";

  // Extensions Assimp 5.2.5 does not read but that change the geometry: a file requiring one
  // (KHR_mesh_quantization came out as positions of 1e-45 m, silently) or using instancing (only
  // the first instance was kept) is refused. Required extensions of materials, textures and
  // lights do not touch the triangles and pass.
  if (const auto required = document.find("extensionsRequired"); required != document.end() && required->is_array())
    for (const nlohmann::json& name : *required) {
      if (!name.is_string()) return "the glTF 'extensionsRequired' holds a non-string";
      const std::string& text = name.get_ref<const std::string&>();
      bool harmless = false;
      for (const char* prefix : {"KHR_materials_", "KHR_texture_", "EXT_texture_", "MSFT_texture_", "KHR_lights_"})
        harmless = harmless || text.rfind(prefix, 0) == 0;
      if (!harmless)
        return "unsupported: the glTF requires extension " + text +
               ", which the importer (Assimp 5.2.5) does not read: the triangles would be wrong or missing";
    }
  std::set<std::uint64_t> scene_meshes;  // the meshes the imported scene's nodes instance
  if (const auto nodes = document.find("nodes"); nodes != document.end() && nodes->is_array()) {
    // The nodes whose transforms reach a mesh: those with a mesh and their ancestors (each
    // node's parent from the children lists; a walk up stops at a node already marked, and
    // after as many steps as there are nodes, in case of a cycle, which is refused elsewhere).
    const std::size_t count = nodes->size();
    // The nodes the import reads: those of the scene it imports (`scene`, else the first), its
    // roots and their descendants; all of them when the file names no scenes. Nodes outside it
    // are not imported, so their names and rotations are not checked (the review).
    std::vector<char> in_scene(count, 0);
    {
      const auto scenes = document.find("scenes");
      std::optional<std::vector<std::uint32_t>> roots;
      if (scenes != document.end() && scenes->is_array() && !scenes->empty()) {
        const std::uint64_t chosen = unsignedMember(document, "scene").value_or(0);
        if (chosen < scenes->size() && (*scenes)[chosen].is_object()) roots = indexList((*scenes)[chosen], "nodes");
      }
      if (!roots) {
        std::fill(in_scene.begin(), in_scene.end(), 1);
      } else {
        std::vector<std::uint32_t> pending = *roots;
        while (!pending.empty()) {
          const std::uint32_t n = pending.back();
          pending.pop_back();
          if (n >= count || in_scene[n]) continue;
          in_scene[n] = 1;
          if ((*nodes)[n].is_object())
            if (const auto children = indexList((*nodes)[n], "children")) pending.insert(pending.end(), children->begin(), children->end());
        }
      }
    }
    // Every parent of each node (a node with two is invalid glTF, but Assimp imports it under
    // both: the re-audit found the second parent's rotation unchecked), walked up from each mesh
    // node of the scene; a node marked once is not walked again, so cycles end.
    std::vector<std::vector<std::uint32_t>> parents(count);
    for (std::size_t i = 0; i < count; ++i)
      if ((*nodes)[i].is_object())
        if (const auto children = indexList((*nodes)[i], "children"))
          for (const std::uint32_t child : *children)
            if (child < count) parents[child].push_back(static_cast<std::uint32_t>(i));
    std::vector<char> moves_mesh(count, 0);
    std::vector<std::uint32_t> up;
    for (std::size_t i = 0; i < count; ++i)
      if (in_scene[i] && (*nodes)[i].is_object() && (*nodes)[i].contains("mesh")) {
        up.push_back(static_cast<std::uint32_t>(i));
        if (const auto mesh = unsignedMember((*nodes)[i], "mesh")) scene_meshes.insert(*mesh);
      }
    while (!up.empty()) {
      const std::uint32_t n = up.back();
      up.pop_back();
      if (moves_mesh[n]) continue;
      moves_mesh[n] = 1;
      up.insert(up.end(), parents[n].begin(), parents[n].end());
    }
    for (std::size_t i = 0; i < count; ++i) {
      const nlohmann::json& node = (*nodes)[i];
      if (!node.is_object()) continue;
      if (const auto name = node.find("name"); in_scene[i] && name != node.end() && name->is_string() &&
                                                name->get_ref<const std::string&>().size() >= kMaxImportedName)
        return "glTF node " + std::to_string(i) + ": its name is " + std::to_string(name->get_ref<const std::string&>().size()) +
               " bytes; the importer keeps names of at most " + std::to_string(kMaxImportedName - 1);
      if (const auto ext = node.find("extensions"); ext != node.end() && ext->is_object() && ext->contains("EXT_mesh_gpu_instancing"))
        return "unsupported: glTF node " + std::to_string(i) +
               " is instanced (EXT_mesh_gpu_instancing), which the importer (Assimp 5.2.5) does not read: only "
               "one instance would be kept";
      // glTF 2.0 requires a unit quaternion; Assimp 5.2.5 applies any as it is, which scales
      // and shears the mesh (an audit: [0, 1.414, 0, 1.414] stretched a triangle five times,
      // exit 0). Rounding in a writer stays far inside the tolerance. All zeros, which some
      // writers use for none, the importer reads as no rotation, as viewers do. Only nodes that
      // move a mesh (a camera's node moves nothing imported: the re-audit).
      if (const auto rotation = node.find("rotation");
          moves_mesh[i] && rotation != node.end() && rotation->is_array() && rotation->size() == 4) {
        double squared = 0;
        bool numbers = true;
        for (const nlohmann::json& q : *rotation) {
          numbers = numbers && q.is_number();
          if (numbers) squared += q.get<double>() * q.get<double>();
        }
        if (numbers && std::isfinite(squared) && squared != 0 && std::fabs(std::sqrt(squared) - 1) > 1e-3) {
          char length[32];
          std::snprintf(length, sizeof length, "%.6g", std::sqrt(squared));
          return "glTF node " + std::to_string(i) + ": rotation is not a unit quaternion (length " + length +
                 "); glTF 2.0 requires unit rotations, and the importer would scale the mesh by it";
        }
      }
    }
  }

  // The names of the materials those meshes use (an unused material's name is never read).
  const auto materials = document.find("materials");
  const auto meshes_json = document.find("meshes");
  if (materials != document.end() && materials->is_array() && meshes_json != document.end() && meshes_json->is_array())
    for (const std::uint64_t m : scene_meshes) {
      if (m >= meshes_json->size() || !(*meshes_json)[m].is_object()) continue;
      const auto primitives = (*meshes_json)[m].find("primitives");
      if (primitives == (*meshes_json)[m].end() || !primitives->is_array()) continue;
      for (const nlohmann::json& primitive : *primitives) {
        const auto i = primitive.is_object() ? unsignedMember(primitive, "material") : std::nullopt;
        if (!i || *i >= materials->size() || !(*materials)[*i].is_object()) continue;
        const nlohmann::json& material = (*materials)[*i];
        if (const auto name = material.find("name"); name != material.end() && name->is_string() &&
                                                     name->get_ref<const std::string&>().size() >= kMaxImportedName)
          return "glTF material " + std::to_string(*i) + ": its name is " +
                 std::to_string(name->get_ref<const std::string&>().size()) + " bytes; the importer keeps names of at most " +
                 std::to_string(kMaxImportedName - 1);
      }
    }
  std::vector<std::uint64_t> buffer_lengths;
  if (const auto buffers = document.find("buffers"); buffers != document.end()) {
    if (!buffers->is_array()) return "the glTF 'buffers' is not an array";
    for (std::size_t i = 0; i < buffers->size(); ++i) {
      const nlohmann::json& buffer = (*buffers)[i];
      const std::string where = "glTF buffer " + std::to_string(i);
      if (!buffer.is_object()) return where + " is not an object";
      const auto byte_length = unsignedMember(buffer, "byteLength");
      if (!byte_length) return where + " has no valid byteLength";
      buffer_lengths.push_back(*byte_length);
      const auto uri = buffer.find("uri");
      if (uri == buffer.end()) {
        if (!embedded_binary_length || i != 0) return where + " has no uri";
        if (*byte_length > *embedded_binary_length)
          return where + ": byteLength " + number(*byte_length) + " exceeds the GLB binary chunk (" +
                 number(*embedded_binary_length) + " bytes)";
        continue;
      }
      if (!uri->is_string()) return where + ": uri is not a string";
      // Assimp 5.2.5 reads a GLB's buffer 0 from the BIN chunk whatever its uri says, and then
      // reports the buffer views as out of range; the glTF spec has a BIN chunk be buffer 0
      // without a uri.
      if (embedded_binary_length && i == 0)
        return where + " has a uri, which Assimp 5.2.5 does not read in a GLB (a GLB's buffer 0 is its BIN chunk): "
                       "embed the buffer, or import the JSON as a .gltf";
      const std::string& text = uri->get_ref<const std::string&>();
      if (text.rfind("data:", 0) == 0) {
        const std::size_t marker = text.find(";base64,");
        if (marker == std::string::npos) return where + ": data uri is not base64";
        if (const std::string problem = base64Problem(std::string_view(text).substr(marker + 8)); !problem.empty())
          return where + ": data uri holds " + problem;
        const std::uint64_t decoded = base64DecodedLength(std::string_view(text).substr(marker + 8));
        if (*byte_length > decoded)
          return where + ": byteLength " + number(*byte_length) + " exceeds its embedded data (" + number(decoded) +
                 " bytes)";
      } else if (external_buffers != nullptr) {
        external_buffers->push_back({percentDecode(text), *byte_length});
      }
    }
  }

  struct View {
    std::uint64_t length = 0;
    std::uint64_t stride = 0;
  };
  std::vector<View> views;
  if (const auto buffer_views = document.find("bufferViews"); buffer_views != document.end()) {
    if (!buffer_views->is_array()) return "the glTF 'bufferViews' is not an array";
    for (std::size_t i = 0; i < buffer_views->size(); ++i) {
      const nlohmann::json& view = (*buffer_views)[i];
      const std::string where = "glTF bufferView " + std::to_string(i);
      if (!view.is_object()) return where + " is not an object";
      const auto buffer = unsignedMember(view, "buffer");
      const auto byte_length = unsignedMember(view, "byteLength");
      if (!buffer || *buffer >= buffer_lengths.size()) return where + " refers to a missing buffer";
      if (!byte_length) return where + " has no valid byteLength";
      const auto view_offset = optionalUnsigned(view, "byteOffset", 0), view_stride = optionalUnsigned(view, "byteStride", 0);
      if (!view_offset) return where + ": byteOffset is not a non-negative integer";
      if (!view_stride) return where + ": byteStride is not a non-negative integer";
      const std::uint64_t offset = *view_offset;
      if (addSat(offset, *byte_length) > buffer_lengths[*buffer])
        return where + ": bytes " + number(offset) + "+" + number(*byte_length) + " lie outside buffer " +
               number(*buffer) + " (" + number(buffer_lengths[*buffer]) + " bytes)";
      views.push_back({*byte_length, *view_stride});
    }
  }

  if (const auto accessors = document.find("accessors"); accessors != document.end()) {
    if (!accessors->is_array()) return "the glTF 'accessors' is not an array";
    for (std::size_t i = 0; i < accessors->size(); ++i) {
      const nlohmann::json& accessor = (*accessors)[i];
      const std::string where = "glTF accessor " + std::to_string(i);
      if (!accessor.is_object()) return where + " is not an object";
      const auto count = unsignedMember(accessor, "count");
      const auto component_type = unsignedMember(accessor, "componentType");
      const auto type = accessor.find("type");
      const std::uint64_t element = count && component_type && type != accessor.end() && type->is_string()
                                        ? componentBytes(*component_type) * componentCount(type->get<std::string>())
                                        : 0;
      // Sparse values: Assimp 5.2.5 reads them without checking their lengths, past a short
      // bufferView into the next one or past the buffer's end (garbage coordinates, no error).
      if (const auto sparse = accessor.find("sparse"); sparse != accessor.end() && sparse->is_object() && element > 0) {
        const auto sparse_count = unsignedMember(*sparse, "count");
        if (!sparse_count || *sparse_count == 0 || *sparse_count > *count)
          return where + ": sparse count is missing, 0 or more than the accessor's " + number(*count) + " elements";
        const auto indices = sparse->find("indices"), values = sparse->find("values");
        if (indices == sparse->end() || !indices->is_object() || values == sparse->end() || !values->is_object())
          return where + ": sparse has no indices or values object";
        const auto index_type = unsignedMember(*indices, "componentType");
        const std::uint64_t index_bytes = index_type ? componentBytes(*index_type) : 0;
        if (index_bytes == 0 || (index_bytes == 4 && *index_type != 5125) || *index_type == 5120 || *index_type == 5122)
          return where + ": sparse indices' componentType is not an unsigned byte, short or int";
        for (const auto& [part, bytes] : {std::pair{&*indices, index_bytes}, std::pair{&*values, element}}) {
          const char* name = part == &*indices ? "indices" : "values";
          const auto part_view = unsignedMember(*part, "bufferView");
          if (!part_view || *part_view >= views.size()) return where + ": sparse " + name + " refer to a missing bufferView";
          const auto part_offset = optionalUnsigned(*part, "byteOffset", 0);
          if (!part_offset) return where + ": sparse " + name + "' byteOffset is not a non-negative integer";
          const std::uint64_t needed = addSat(*part_offset, mulSat(*sparse_count, bytes));
          if (needed > views[*part_view].length)
            return where + ": " + number(*sparse_count) + " sparse " + name + " need " + number(needed) +
                   " bytes but bufferView " + number(*part_view) + " has " + number(views[*part_view].length);
        }
      }
      const auto accessor_offset = optionalUnsigned(accessor, "byteOffset", 0);
      if (!accessor_offset) return where + ": byteOffset is not a non-negative integer";
      if (accessor.contains("bufferView") && !unsignedMember(accessor, "bufferView"))
        return where + ": bufferView is not a non-negative integer";
      const auto view_index = unsignedMember(accessor, "bufferView");
      if (!view_index) continue;  // zero-filled (and sparse, checked above)
      if (*view_index >= views.size()) return where + " refers to a missing bufferView";
      if (element == 0 || *count == 0) continue;
      const View& view = views[*view_index];
      // Elements may not overlap (the glTF spec: byteStride >= the element's size).
      if (view.stride > 0 && view.stride < element)
        return where + ": bufferView " + number(*view_index) + "'s byteStride " + number(view.stride) +
               " is smaller than its " + number(element) + "-byte elements";
      const std::uint64_t stride = view.stride > 0 ? view.stride : element;
      const std::uint64_t offset = *accessor_offset;
      const std::uint64_t needed = addSat(addSat(offset, mulSat(*count - 1, stride)), element);
      if (needed > view.length)
        return where + ": " + number(*count) + " elements need " + number(needed) + " bytes but bufferView " +
               number(*view_index) + " has " + number(view.length);
    }
  }
  // A skin on a node with a mesh must give its inverse bind matrices: optional in glTF 2.0
  // (identity when absent), but Assimp 5.2.5 reads them unchecked and crashed (an audit).
  if (const auto skins = document.find("skins"); skins != document.end() && skins->is_array())
    if (const auto nodes = document.find("nodes"); nodes != document.end() && nodes->is_array())
      for (const nlohmann::json& node : *nodes) {
        if (!node.is_object() || !node.contains("mesh")) continue;
        const auto skin = unsignedMember(node, "skin");
        if (!skin || *skin >= skins->size()) continue;
        const nlohmann::json& joints = (*skins)[*skin];
        if (joints.is_object() && !joints.contains("inverseBindMatrices"))
          return "unsupported: glTF skin " + number(*skin) +
                 " has no inverseBindMatrices (optional in glTF 2.0, identity when absent, but the importer, Assimp "
                 "5.2.5, fails on such a skin): write them, identity matrices for a skeleton posed as bound";
      }
  // Positions must be floats (glTF 2.0 core): Assimp 5.2.5 copies other component types' bytes
  // as floats (a quantized file, even one that does not list KHR_mesh_quantization as required).
  const auto accessors = document.find("accessors");
  if (const auto meshes = document.find("meshes"); meshes != document.end() && meshes->is_array())
    for (std::size_t m = 0; m < meshes->size(); ++m) {
      const nlohmann::json& mesh = (*meshes)[m];
      const auto primitives = mesh.is_object() ? mesh.find("primitives") : mesh.end();
      if (!mesh.is_object() || primitives == mesh.end() || !primitives->is_array()) continue;
      for (std::size_t p = 0; p < primitives->size(); ++p) {
        const nlohmann::json& primitive = (*primitives)[p];
        const auto attributes = primitive.is_object() ? primitive.find("attributes") : primitive.end();
        if (!primitive.is_object() || attributes == primitive.end() || !attributes->is_object()) continue;
        const auto position = unsignedMember(*attributes, "POSITION");
        if (!position || accessors == document.end() || !accessors->is_array() || *position >= accessors->size()) continue;
        const nlohmann::json& accessor = (*accessors)[*position];
        const std::string where = "glTF mesh " + std::to_string(m) + " primitive " + std::to_string(p);
        const auto component_type = accessor.is_object() ? unsignedMember(accessor, "componentType") : std::nullopt;
        if (component_type && *component_type != 5126)
          return "unsupported: " + where + ": POSITION accessor " + number(*position) + " has componentType " +
                 number(*component_type) +
                 ", not float (5126): quantized positions (KHR_mesh_quantization) are not read by the importer "
                 "(Assimp 5.2.5)";
        // And three of them (glTF 2.0: VEC3): Assimp read a VEC2 accessor's pairs as x, y with z = 0,
        // in silence, and a SCALAR one as "degenerate triangles" (an audit).
        if (const auto type = accessor.is_object() ? accessor.find("type") : accessor.end();
            accessor.is_object() && type != accessor.end() && (!type->is_string() || type->get<std::string>() != "VEC3")) {
          // (The file's text only when it is a glTF type name: anything else could be any bytes.)
          const std::string named = type->is_string() ? type->get<std::string>() : std::string();
          const bool known =
              named == "SCALAR" || named == "VEC2" || named == "VEC4" || named == "MAT2" || named == "MAT3" || named == "MAT4";
          return where + ": POSITION accessor " + number(*position) + " has " +
                 (known ? "type '" + named + "'" : std::string("no glTF type")) + ", not VEC3 (glTF 2.0: a position is three floats)";
        }
        // Indices: unsigned byte, short or int scalars (glTF 2.0); others were refused as "Mesh has
        // no faces", or a signed short read as unsigned (an audit).
        if (const auto indices = unsignedMember(primitive, "indices"); indices && *indices < accessors->size()) {
          const nlohmann::json& index_accessor = (*accessors)[*indices];
          if (!index_accessor.is_object()) continue;
          const auto index_type = unsignedMember(index_accessor, "componentType");
          const auto type = index_accessor.find("type");
          if ((type != index_accessor.end() && (!type->is_string() || type->get<std::string>() != "SCALAR")) ||
              (index_type && *index_type != 5121 && *index_type != 5123 && *index_type != 5125))
            return where + ": indices accessor " + number(*indices) +
                   " is not of unsigned byte, short or int scalars (glTF 2.0: componentType 5121, 5123 or 5125, type SCALAR)";
        }
      }
    }
  return {};
}

namespace {
// The JSON document of a glTF or GLB file (discarded, not an object, when unreadable).
nlohmann::json gltfDocument(MeshFormat format, Bytes bytes) {
  std::string_view json;
  if (format == MeshFormat::Gltf) {
    json = asText(bytes);
  } else if (format == MeshFormat::Glb && bytes.size() >= 20) {
    const std::uint64_t length = readU32le(bytes, 12);
    if (length <= bytes.size() - 20) json = asText(bytes.subspan(20, length));
  }
  if (json.empty() || nestingTooDeep(json)) return nlohmann::json();
  return nlohmann::json::parse(json.begin(), json.end(), nullptr, false);
}

// GltfSceneFacts::morph_warnings of a parsed document.
std::vector<std::string> morphWeightWarnings(const nlohmann::json& document) {
  std::vector<std::string> warnings;
  if (!document.is_object()) return warnings;
  const auto meshes = document.find("meshes");
  const auto nodes = document.find("nodes");
  if (meshes == document.end() || !meshes->is_array() || nodes == document.end() || !nodes->is_array()) return warnings;
  const auto nonZero = [](const nlohmann::json& weights) {
    return weights.is_array() && std::any_of(weights.begin(), weights.end(), [](const nlohmann::json& w) {
             return w.is_number() && w.get<double>() != 0.0;
           });
  };
  // The nodes of the scene imported (its `scene`, else scene 0), children included: a node
  // outside it is not imported, nor warned about.
  std::vector<bool> in_scene(nodes->size(), false);
  {
    const auto scenes = document.find("scenes");
    const auto chosen = unsignedMember(document, "scene").value_or(0);
    std::vector<std::uint64_t> pending;
    if (scenes != document.end() && scenes->is_array() && chosen < scenes->size() && (*scenes)[chosen].is_object())
      if (const auto roots = (*scenes)[chosen].find("nodes"); roots != (*scenes)[chosen].end() && roots->is_array())
        for (const nlohmann::json& root : *roots)
          if (root.is_number_unsigned()) pending.push_back(root.get<std::uint64_t>());
    while (!pending.empty()) {
      const std::uint64_t n = pending.back();
      pending.pop_back();
      if (n >= nodes->size() || in_scene[n]) continue;
      in_scene[n] = true;
      const nlohmann::json& node = (*nodes)[n];
      if (!node.is_object()) continue;
      if (const auto children = node.find("children"); children != node.end() && children->is_array())
        for (const nlohmann::json& child : *children)
          if (child.is_number_unsigned()) pending.push_back(child.get<std::uint64_t>());
    }
  }
  std::set<std::uint64_t> warned_meshes;
  for (std::size_t n = 0; n < nodes->size(); ++n) {
    if (!in_scene[n]) continue;
    const nlohmann::json& node = (*nodes)[n];
    const auto mesh_index = node.is_object() ? unsignedMember(node, "mesh") : std::nullopt;
    if (!mesh_index || *mesh_index >= meshes->size() || !(*meshes)[*mesh_index].is_object()) continue;
    const nlohmann::json& mesh = (*meshes)[*mesh_index];
    bool targets = false;
    if (const auto primitives = mesh.find("primitives"); primitives != mesh.end() && primitives->is_array())
      for (const nlohmann::json& primitive : *primitives)
        if (primitive.is_object())
          if (const auto t = primitive.find("targets"); t != primitive.end() && t->is_array() && !t->empty()) targets = true;
    if (!targets) continue;
    if (const auto own = node.find("weights"); own != node.end()) {
      if (!nonZero(*own)) continue;
      const auto name = node.find("name");
      warnings.push_back("node " + std::to_string(n) +
                         (name != node.end() && name->is_string() ? " ('" + name->get<std::string>().substr(0, 64) + "')" : "") +
                         " sets non-zero morph target weights on mesh " + number(*mesh_index) +
                         ": its base shape is imported, without them");
    } else if (const auto weights = mesh.find("weights"); weights != mesh.end() && nonZero(*weights) &&
                                                           warned_meshes.insert(*mesh_index).second) {
      warnings.push_back("mesh " + number(*mesh_index) +
                         " has morph targets with non-zero default weights: its base shape is imported, without them");
    }
  }
  return warnings;
}

// GltfSceneFacts::names_like_indices of a parsed document.
std::set<std::string> nodeNamesLikeIndices(const nlohmann::json& document) {
  std::set<std::string> names;
  const auto nodes = document.is_object() ? document.find("nodes") : document.end();
  if (!document.is_object() || nodes == document.end() || !nodes->is_array()) return names;
  for (const nlohmann::json& node : *nodes) {
    const auto name = node.is_object() ? node.find("name") : node.end();
    if (!node.is_object() || name == node.end() || !name->is_string()) continue;
    const std::string& text = name->get_ref<const std::string&>();
    if (isGltfIndexName(text)) names.insert(text);
  }
  return names;
}

// A list of node indices (children, joints, a scene's nodes); nullopt when it is not one.
std::optional<std::vector<std::uint32_t>> indexList(const nlohmann::json& object, const char* name) {
  std::vector<std::uint32_t> out;
  const auto it = object.find(name);
  if (it == object.end()) return out;
  if (!it->is_array()) return std::nullopt;
  for (const nlohmann::json& value : *it) {
    const auto index = asUnsigned(value);
    if (!index || *index > std::numeric_limits<std::uint32_t>::max()) return std::nullopt;
    out.push_back(static_cast<std::uint32_t>(*index));
  }
  return out;
}

// GltfSceneFacts::nodes, skin_joints and roots of a parsed document (all empty when any is malformed).
void nodeStructure(const nlohmann::json& document, GltfSceneFacts& facts) {
  if (!document.is_object()) return;
  const auto nodes = document.find("nodes");
  if (nodes == document.end() || !nodes->is_array()) return;
  std::vector<GltfSceneFacts::Node> out;
  for (const nlohmann::json& node : *nodes) {
    if (!node.is_object()) return;
    GltfSceneFacts::Node facts_node;
    auto children = indexList(node, "children");
    if (!children) return;
    facts_node.children = std::move(*children);
    if (node.contains("skin")) {
      const auto skin = unsignedMember(node, "skin");
      if (!skin) return;
      facts_node.skin = static_cast<std::int64_t>(*skin);
    }
    if (const auto name = node.find("name"); name != node.end() && name->is_string()) facts_node.name = name->get<std::string>();
    out.push_back(std::move(facts_node));
  }
  std::vector<std::vector<std::uint32_t>> joints;
  if (const auto skins = document.find("skins"); skins != document.end() && skins->is_array())
    for (const nlohmann::json& skin : *skins) {
      auto list = skin.is_object() ? indexList(skin, "joints") : std::nullopt;
      if (!list) return;
      joints.push_back(std::move(*list));
    }
  std::vector<std::uint32_t> roots;
  if (const auto scenes = document.find("scenes"); scenes != document.end() && scenes->is_array() && !scenes->empty()) {
    const std::uint64_t chosen = document.contains("scene") ? unsignedMember(document, "scene").value_or(scenes->size()) : 0;
    if (chosen >= scenes->size() || !(*scenes)[chosen].is_object()) return;
    auto list = indexList((*scenes)[chosen], "nodes");
    if (!list) return;
    roots = std::move(*list);
  }
  facts.nodes = std::move(out);
  facts.skin_joints = std::move(joints);
  facts.roots = std::move(roots);
}
}  // namespace

GltfSceneFacts gltfSceneFacts(MeshFormat format, Bytes bytes) {
  if (format != MeshFormat::Gltf && format != MeshFormat::Glb) return {};
  const nlohmann::json document = gltfDocument(format, bytes);
  GltfSceneFacts facts{nodeNamesLikeIndices(document), morphWeightWarnings(document), {}, {}, {}};
  nodeStructure(document, facts);
  return facts;
}

std::string precheckGlb(Bytes bytes, std::vector<ExternalBuffer>* external_buffers) {
  constexpr std::uint32_t kMagic = 0x46546C67;      // "glTF"
  constexpr std::uint32_t kChunkJson = 0x4E4F534A;  // "JSON"
  constexpr std::uint32_t kChunkBin = 0x004E4942;   // "BIN\0"
  if (bytes.size() < 12) return "truncated GLB header (" + number(bytes.size()) + " bytes, needs 12)";
  if (readU32le(bytes, 0) != kMagic) return "not a GLB file (the magic is not 'glTF')";
  const std::uint32_t version = readU32le(bytes, 4);
  if (version != 2) return "GLB version " + number(version) + " is not supported (only 2)";
  const std::uint64_t length = readU32le(bytes, 8);
  if (length > bytes.size())
    return "the GLB header declares " + number(length) + " bytes but the file has " + number(bytes.size());
  if (length < 20) return "the GLB has no JSON chunk";
  std::uint64_t offset = 12;
  std::string_view json;
  std::optional<std::uint64_t> binary_length;
  for (int chunk = 0; offset < length; ++chunk) {
    if (length - offset < 8) return "GLB chunk " + std::to_string(chunk) + " header is truncated";
    const std::uint64_t chunk_length = readU32le(bytes, offset);
    const std::uint32_t chunk_type = readU32le(bytes, offset + 4);
    if (chunk_length > length - offset - 8)
      return "GLB chunk " + std::to_string(chunk) + " declares " + number(chunk_length) + " bytes but only " +
             number(length - offset - 8) + " remain in the file";
    if (chunk == 0) {
      if (chunk_type != kChunkJson) return "the first GLB chunk is not JSON";
      // The format pads every chunk to 4 bytes; Assimp 5.2.5 did not read a file whose JSON chunk
      // was not padded and said only "No suitable reader found" (an audit).
      if (chunk_length % 4 != 0)
        return "the GLB JSON chunk is " + number(chunk_length) +
               " bytes, not a multiple of 4 (the format pads it with spaces; the importer does not read it unpadded)";
      json = asText(bytes.subspan(offset + 8, chunk_length));
    } else if (chunk == 1 && chunk_type == kChunkBin) {
      binary_length = chunk_length;
    }
    offset += 8 + chunk_length;
  }
  return precheckGltfJson(json, binary_length.value_or(0), external_buffers);
}

bool isBinaryStl(Bytes bytes) {
  return bytes.size() >= 84 && 84 + 50 * std::uint64_t{readU32le(bytes, 80)} == bytes.size();
}

bool isGltfIndexName(std::string_view name) {
  return name.size() >= 8 && name.substr(0, 6) == "nodes[" && name.back() == ']' &&
         std::all_of(name.begin() + 6, name.end() - 1, [](char c) { return c >= '0' && c <= '9'; });
}

// What is wrong with the line ends of a text OBJ or STL, or empty: lines ended by a lone CR
// (classic Mac OS), or a carriage return or form feed inside a line of `text` (the lines its
// LFs end), named as a line of `format`. Assimp 5.2.5's text readers end a line there, so what
// follows is a statement of its own that every check here (which reads lines to LF) would miss
// (in an OBJ, after '#' a comment here, a vertex to Assimp: '#\fv 0x10 0 1' imported x = 0; an
// audit). At a line's start or end, blanks included, they are harmless.
static std::string lineEndProblem(std::string_view text, const char* format) {
  if (text.find_first_of("\r\f") == std::string_view::npos) return {};
  if (text.find('\r') != std::string_view::npos && text.find('\n') == std::string_view::npos)
    return "its lines end in a lone carriage return (CR, classic Mac OS); convert them to LF or CR LF";
  std::size_t number = 0;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++number;
    while (!line.empty() && (line.back() == '\r' || line.back() == '\f' || line.back() == ' ' || line.back() == '\t'))
      line.remove_suffix(1);
    // (Before the line's text too: LF CR line ends read the same either way: a review.)
    while (!line.empty() && (line.front() == '\r' || line.front() == '\f' || line.front() == ' ' || line.front() == '\t'))
      line.remove_prefix(1);
    if (const std::size_t at = line.find_first_of("\r\f"); at != std::string_view::npos)
      return std::string(format) + " line " + std::to_string(number) + ": a " +
             (line[at] == '\r' ? "carriage return" : "form feed") +
             " inside the line, where the importer (Assimp 5.2.5) would end it; end lines with LF or CR LF only";
  }
  return {};
}

std::string precheckStl(Bytes bytes) {
  if (isBinaryStl(bytes)) return {};  // binary, even if the header starts with "solid"
  const std::string_view head = trim(asText(bytes.first(std::min<std::size_t>(bytes.size(), 512))));
  const bool says_solid = head.rfind("solid", 0) == 0;
  if (says_solid && !hasNulByte(bytes)) {
    // (Lines ended by a lone CR: Assimp 5.2.5 read the whole file as the solid's name: an audit,
    // "STL: Node name too long", or a mesh with no vertices.)
    if (std::string ends = lineEndProblem(asText(bytes), "ASCII STL"); !ends.empty()) return ends;
    // ASCII STL; Assimp parses the rest, but keeps the first three vertices of a facet and drops
    // any more in silence (an import audit): a facet must hold exactly three. Counted per facet,
    // from 'facet' to 'endfacet' (or the next 'facet', or the end), as Assimp reads them: a
    // fourth vertex outside the 'outer loop' ... 'endloop' lines was dropped too.
    const std::string_view text = asText(bytes);
    std::uint64_t facet = 0, vertices = 0;
    bool in_facet = false;
    const auto facetDone = [&]() -> std::string {
      in_facet = false;
      if (vertices != 3)
        return "ASCII STL facet " + number(facet) + " has " + number(vertices) + " vertices (a facet is a triangle: 3)";
      ++facet;
      return {};
    };
    for (std::size_t start = 0; start < text.size();) {
      std::size_t end = text.find('\n', start);
      if (end == std::string_view::npos) end = text.size();
      const std::vector<std::string_view> words = splitWords(text.substr(start, end - start));
      start = end + 1;
      if (words.empty()) continue;
      if (words[0] == "facet") {
        if (in_facet)
          if (std::string e = facetDone(); !e.empty()) return e;
        in_facet = true;
        vertices = 0;
      } else if (words[0] == "vertex" && in_facet) {
        ++vertices;
      } else if (words[0] == "endfacet" && in_facet) {
        if (std::string e = facetDone(); !e.empty()) return e;
      }
    }
    if (in_facet)
      if (std::string e = facetDone(); !e.empty()) return e;
    return {};
  }
  if (bytes.size() < 84) return "too short for a binary STL (" + number(bytes.size()) + " bytes) and not ASCII STL";
  const std::uint64_t count = readU32le(bytes, 80);
  // Text that is no ASCII STL the importer reads ('SOLID', 'Solid', no solid line: an audit had
  // only the binary reading's count of 1414677846 triangles to go by).
  if (!hasNulByte(bytes))
    return "not ASCII STL (it does not start with 'solid', in lower case, as the importer needs) and not binary STL (its "
           "header would declare " + number(count) + " triangles, " + number(84 + 50 * count) + " bytes, but the file has " +
           number(bytes.size()) + ")";
  return "binary STL header declares " + number(count) + " triangles (" + number(84 + 50 * count) +
         " bytes) but the file has " + number(bytes.size()) + " bytes";
}

bool objNumber(std::string_view word);  // below, with the OBJ checks

std::string precheckPly(Bytes bytes) {
  const std::string_view text = asText(bytes);
  if (text.rfind("ply\n", 0) != 0 && text.rfind("ply\r\n", 0) != 0) return "not a PLY file (no 'ply' magic line)";
  constexpr std::size_t kMaxHeader = 1 << 20;
  // A scalar type: its binary size, and how its ASCII values are written.
  struct Type {
    std::uint64_t bytes = 0;  // 0: not a type
    bool is_float = false, is_signed = false;
  };
  auto typeOf = [](std::string_view type) -> Type {
    if (type == "char" || type == "int8") return {1, false, true};
    if (type == "uchar" || type == "uint8") return {1, false, false};
    if (type == "short" || type == "int16") return {2, false, true};
    if (type == "ushort" || type == "uint16") return {2, false, false};
    if (type == "int" || type == "int32") return {4, false, true};
    if (type == "uint" || type == "uint32") return {4, false, false};
    if (type == "float" || type == "float32") return {4, true, true};
    if (type == "double" || type == "float64") return {8, true, true};
    return {};
  };
  struct Property {
    std::string name;
    bool list = false;
    Type count;  // a list's count
    Type value;  // the scalar, or a list's items
  };
  struct Element {
    std::string name;
    std::uint64_t count = 0;
    std::uint64_t min_bytes = 0;  // smallest binary size of one element (lists may be empty)
    std::vector<Property> properties;
  };
  std::vector<Element> elements;
  enum class Encoding { None, Ascii, Binary } encoding = Encoding::None;
  bool big_endian = false;
  std::size_t position = text.find('\n') + 1;
  std::size_t line_number = 1;
  std::optional<std::size_t> body_start;
  while (position < text.size() && position < kMaxHeader) {
    std::size_t end = text.find('\n', position);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(position, end - position);
    position = end + 1;
    ++line_number;
    const std::string where = "PLY header line " + std::to_string(line_number);
    if (line.find('\0') != std::string_view::npos) return where + " contains binary data";
    const std::vector<std::string_view> words = splitWords(line);
    if (words.empty()) continue;
    if (words[0] == "end_header") {
      // A header whose last line is end_header with no newline: the body is empty, not one byte
      // past the file's end (read past it: the CI fuzz run).
      body_start = std::min(position, text.size());
      break;
    }
    if (words[0] == "comment" || words[0] == "obj_info") continue;
    if (words[0] == "format") {
      if (encoding != Encoding::None) return where + ": a second 'format' line";
      if (words.size() != 3) return where + ": malformed 'format' line";
      if (words[1] == "ascii") encoding = Encoding::Ascii;
      else if (words[1] == "binary_little_endian" || words[1] == "binary_big_endian") {
        encoding = Encoding::Binary;
        big_endian = words[1] == "binary_big_endian";
      }
      else return where + ": unknown PLY format '" + std::string(words[1]) + "'";
    } else if (words[0] == "element") {
      if (words.size() != 3) return where + ": malformed 'element' line";
      const auto count = parseUnsigned(words[2]);
      if (!count || *count > std::numeric_limits<std::uint32_t>::max())
        return where + ": element count '" + std::string(words[2]) + "' is not a valid count";
      // Assimp 5.2.5 reads a 'tristrips' element wrongly (a 4-triangle strip gave one triangle,
      // facing down), so a file holding strips is refused rather than imported short.
      if (words[1] == "tristrips" && *count > 0)
        return "unsupported: " + where + ": triangle strips ('element tristrips') are not read correctly by the importer "
                       "(Assimp 5.2.5); store the faces as 'element face' lists";
      elements.push_back({std::string(words[1]), *count, 0, {}});
    } else if (words[0] == "property") {
      if (elements.empty()) return where + ": 'property' before any 'element'";
      if (words.size() == 5 && words[1] == "list") {
        const Type count = typeOf(words[2]), value = typeOf(words[3]);
        if (count.bytes == 0 || count.is_float || value.bytes == 0) return where + ": malformed list property";
        elements.back().min_bytes += count.bytes;
        elements.back().properties.push_back({std::string(words[4]), true, count, value});
      } else if (words.size() == 3 && typeOf(words[1]).bytes > 0) {
        elements.back().min_bytes += typeOf(words[1]).bytes;
        elements.back().properties.push_back({std::string(words[2]), false, {}, typeOf(words[1])});
      } else {
        return where + ": malformed 'property' line";
      }
    } else {
      return where + ": unknown keyword '" + std::string(words[0]).substr(0, 32) + "'";
    }
  }
  if (!body_start) return "the PLY header has no 'end_header'";
  if (encoding == Encoding::None) return "the PLY header has no 'format' line";
  // Assimp 5.2.5 reads the vertices and faces as if they came first: an element of another kind
  // before them (a 'camera' some writers put first, one between the vertices and the faces)
  // was read as vertex data, in silence, or aborted the importer on a binary file. After the
  // faces it is skipped correctly.
  std::size_t last_geometry = 0;
  for (std::size_t i = 0; i < elements.size(); ++i)
    if (elements[i].name == "vertex" || elements[i].name == "face") last_geometry = i;
  for (std::size_t i = 0; i < last_geometry; ++i)
    if (elements[i].name != "vertex" && elements[i].name != "face" && elements[i].count > 0)
      return "unsupported: PLY element '" + elements[i].name.substr(0, 64) + "' comes before the " +
             elements[last_geometry].name + " element: the importer (Assimp 5.2.5) misreads such a file; " +
             "put it after the vertices and faces or leave it out";
  const std::uint64_t body_bytes = text.size() - *body_start;
  std::string declared;
  std::uint64_t total_elements = 0;
  std::uint64_t min_body = 0;
  for (const Element& element : elements) {
    if (!declared.empty()) declared += ", ";
    declared += number(element.count) + " " + element.name;
    total_elements = addSat(total_elements, element.count);
    min_body = addSat(min_body, mulSat(element.count, element.min_bytes));
  }
  // A face of no vertex indices aborted the importer (Assimp 5.2.5's triangulation asserts): an
  // import audit.
  auto emptyFace = [&](const Element& e, const Property& p, std::uint64_t count, std::uint64_t index) -> std::string {
    if (count != 0 || e.name != "face" || (p.name != "vertex_indices" && p.name != "vertex_index")) return {};
    return e.name + " " + number(index) + " has no vertex indices";
  };
  if (encoding == Encoding::Binary) {
    if (min_body > body_bytes)
      return "the PLY header declares " + declared + " (at least " + number(min_body) + " bytes) but the body has " +
             number(body_bytes) + " bytes";
    // Walked element by element, reading every list's count: lists make the body longer than
    // min_body, and a body short of them aborted the importer (an audit: 5 vertices declared,
    // 4 written, the faces read from the wrong bytes).
    // A face of no indices is said only if the body holds the elements (read from misaligned
    // bytes, a short body's faces looked empty: the re-audit).
    const Bytes body = bytes.subspan(*body_start);
    std::uint64_t at = 0;
    std::string empty_face;
    const auto walk = [&]() -> std::string {
      for (const Element& e : elements) {
        // An element without lists is a fixed size: stepped over at once (one of 2^31 vertices
        // with no properties each took the walk 2^31 steps: the fuzz run).
        if (std::none_of(e.properties.begin(), e.properties.end(), [](const Property& p) { return p.list; })) {
          at = addSat(at, mulSat(e.count, e.min_bytes));
          if (at > body.size()) return {};
          continue;
        }
        for (std::uint64_t index = 0; index < e.count; ++index)
          for (const Property& p : e.properties) {
            if (!p.list) {
              at = addSat(at, p.value.bytes);
              if (at > body.size()) return {};
              continue;
            }
            if (addSat(at, p.count.bytes) > body.size()) {
              at = kSaturated;
              return {};
            }
            std::uint64_t raw = 0;
            for (std::uint64_t k = 0; k < p.count.bytes; ++k)
              raw |= std::uint64_t{body[at + (big_endian ? p.count.bytes - 1 - k : k)]} << (8 * k);
            at += p.count.bytes;
            const std::uint64_t sign_bit = std::uint64_t{1} << (8 * p.count.bytes - 1);
            if (p.count.is_signed && (raw & sign_bit) != 0)
              return "PLY binary body: " + e.name + " " + number(index) + ": a list count of -" + number((sign_bit << 1) - raw);
            if (std::string empty = emptyFace(e, p, raw, index); !empty.empty() && empty_face.empty())
              empty_face = "PLY binary body: " + empty;
            at = addSat(at, mulSat(raw, p.value.bytes));
            if (at > body.size()) return {};
          }
      }
      return {};
    };
    if (std::string problem = walk(); !problem.empty()) return problem;
    if (at > body.size())
      return "the PLY header declares " + declared + " but the binary body ends before them (" + number(body_bytes) +
             " bytes)";
    return empty_face;
  }
  const std::string_view body = text.substr(*body_start);
  if (body.find('\0') != std::string_view::npos) return "the ASCII PLY body contains binary data";
  std::uint64_t lines = 0;
  for (std::size_t start = 0; start < body.size();) {
    std::size_t end = body.find('\n', start);
    if (end == std::string_view::npos) end = body.size();
    if (!trim(body.substr(start, end - start)).empty()) ++lines;
    start = end + 1;
  }
  if (total_elements > lines)
    return "the PLY header declares " + declared + " but the body has only " + number(lines) + " lines";
  // Every element's line, in the declared order, holds exactly the values of its properties: one
  // per scalar, a count and that many per list. (A face whose list count exceeded its indices
  // imported as one triangle and many degenerate ones dropped in silence: an import audit.) Each
  // value is a number of its type: Assimp 5.2.5 read "0x3" as 0, "2.7" in an integer list as 2
  // and "3abc" as 3, a wrong triangle imported in silence (an audit).
  // (Only the values the import reads: a colour of 255.0 is no uchar, but harmless: the re-audit.)
  const auto read = [](const Element& e, const Property& p) {
    return (e.name == "vertex" && (p.name == "x" || p.name == "y" || p.name == "z")) ||
           (e.name == "face" && (p.name == "vertex_indices" || p.name == "vertex_index"));
  };
  // An integer must also fit its type: Assimp 5.2.5 wrapped an index of 4294967298 to 2, a
  // valid triangle imported in silence (an audit).
  auto plyValue = [](std::string_view word, const Type& type) {
    if (type.is_float) return objNumber(word);
    // (A '+' only before a signed type's value: Assimp 5.2.5's unsigned reader read '+2' as 0,
    // a degenerate triangle dropped in silence: a review.)
    const bool negative = !word.empty() && word[0] == '-';
    if (!word.empty() && (word[0] == '+' || negative) && type.is_signed) word.remove_prefix(1);
    if (word.empty() || !std::all_of(word.begin(), word.end(), [](char c) { return c >= '0' && c <= '9'; })) return false;
    std::uint64_t value = 0;
    if (std::from_chars(word.data(), word.data() + word.size(), value).ec != std::errc()) return false;
    const std::uint64_t bits = 8 * type.bytes;
    const std::uint64_t most = type.is_signed ? (std::uint64_t{1} << (bits - 1)) - (negative ? 0 : 1)
                                              : (bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1);
    return value <= most;
  };
  std::size_t start = 0;
  std::size_t element = 0;
  std::uint64_t index = 0;  // of the element within its block
  std::size_t body_line = line_number;
  while (start < body.size()) {
    std::size_t end = body.find('\n', start);
    if (end == std::string_view::npos) end = body.size();
    const std::string_view line = trim(body.substr(start, end - start));
    start = end + 1;
    ++body_line;
    if (line.empty()) continue;
    while (element < elements.size() && index == elements[element].count) ++element, index = 0;
    if (element == elements.size()) continue;  // past the declared elements: left to the importer
    const Element& e = elements[element];
    const std::vector<std::string_view> values = splitWords(line);
    const std::string here = "PLY line " + std::to_string(body_line) + ": ";
    std::uint64_t needed = 0;
    for (const Property& p : e.properties) {
      if (!p.list) {
        if (needed < values.size() && read(e, p) && !plyValue(values[needed], p.value))
          return here + e.name + " " + number(index) + ": '" + std::string(values[needed]).substr(0, 32) +
                 "' is not a number of its property's type (" + p.name.substr(0, 32) + ")";
        ++needed;
        continue;
      }
      std::optional<std::uint64_t> count;
      if (needed < values.size() && plyValue(values[needed], p.count)) {
        std::string_view word = values[needed];
        const bool negative = word[0] == '-';
        if (word[0] == '+' || negative) word.remove_prefix(1);  // a signed count's sign (a review)
        count = parseUnsigned(word);
        if (negative && count && *count != 0) count.reset();  // -0 is 0; below it no count
      }
      if (!count)
        return here + e.name + " " + number(index) + ": a list's count is missing or not a count of its type";
      if (const std::string empty = emptyFace(e, p, *count, index); !empty.empty()) return here + empty;
      const std::uint64_t first = needed + 1;
      needed = addSat(first, *count);
      for (std::uint64_t k = first; k < needed && k < values.size() && read(e, p); ++k)
        if (!plyValue(values[k], p.value))
          return here + e.name + " " + number(index) + ": '" + std::string(values[k]).substr(0, 32) +
                 "' is not a number of its list's type (" + p.name.substr(0, 32) + ")";
    }
    if (needed != values.size())
      return here + e.name + " " + number(index) + " has " + number(values.size()) +
             " values where its properties need " + number(needed);
    ++index;
  }
  return {};
}

// A number as an OBJ file writes one: decimal, with an optional sign, point and exponent; or
// nan / inf / infinity, which the import refuses later by name ("coordinate is NaN"): what
// std::from_chars reads in its general format (no hexadecimal), a leading '+' allowed. Assimp
// 5.2.5 read "0x10" as 0 and "abc" as 0 or a bad index (exit 0, or a message about indices).
bool objNumber(std::string_view word) {
  if (word.size() > 1 && word[0] == '+' && word[1] != '-') word.remove_prefix(1);
  if (word.find('(') != std::string_view::npos) return false;  // from_chars takes "nan(...)" too
  double value = 0;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
  return end == word.data() + word.size() && (ec == std::errc() || ec == std::errc::result_out_of_range);
}

std::string joinObjContinuations(std::string_view text) {
  if (text.find('\\') == std::string_view::npos) return {};  // most files: no copy made
  std::string out;
  std::size_t pending = 0;  // line breaks of joined lines, given after the statement
  bool joined = false;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    const bool last = end == std::string_view::npos;
    if (last) end = text.size();
    std::string_view line = text.substr(start, end - start);
    // (A form feed ends a line for Assimp as a CR does: a backslash before one continues the
    // line, and in a comment swallowed the next vertex: an audit.)
    while (!line.empty() && (line.back() == '\r' || line.back() == '\f')) line.remove_suffix(1);
    start = end + 1;
    if (!line.empty() && line.back() == '\\') {
      joined = true;
      line.remove_suffix(1);
      if (line.find('#') == std::string_view::npos) {
        out.append(line);  // the backslash and line break removed, nothing put in (as Assimp reads them)
        ++pending;
        continue;
      }
      // In a comment: dropped, as Assimp would continue the comment over the next statement.
    }
    out.append(line);
    if (!last) out.push_back('\n');
    out.append(pending, '\n');
    pending = 0;
  }
  out.append(pending, '\n');
  return joined ? out : std::string();
}

std::string precheckObj(Bytes bytes, std::vector<std::string>* material_libraries) {
  if (hasNulByte(bytes)) return "not a text OBJ file (it contains binary data)";
  // (Lines ended by a carriage return alone: Assimp 5.2.5 reads one line and says "OBJ-file is
  // too small". Before the continued lines are joined, which ends them in LF.)
  if (std::string ends = lineEndProblem(asText(bytes), "OBJ"); !ends.empty()) return ends;
  const std::string joined = joinObjContinuations(asText(bytes));
  const std::string_view text = joined.empty() ? asText(bytes) : std::string_view(joined);
  std::size_t start = 0, line_number = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = trim(text.substr(start, end - start));
    start = end + 1;
    ++line_number;
    // A vertex: three numbers at least (x y z, then w or colours, which the import ignores), up
    // to a comment; a statement continued over backslashes is one line, numbered as its first.
    if (!line.empty() && line[0] == 'v' && (line.size() == 1 || std::isspace(static_cast<unsigned char>(line[1])))) {
      const std::vector<std::string_view> words = splitWords(line.substr(0, line.find('#')));
      for (std::size_t w = 1; w < words.size(); ++w)
        if (!objNumber(words[w]))
          return "OBJ line " + std::to_string(line_number) + ": vertex coordinate '" + std::string(words[w].substr(0, 40)) +
                 "' is not a decimal number";
      if (words.size() < 4)
        return "OBJ line " + std::to_string(line_number) + ": a vertex needs three coordinates (x y z), this one has " +
               std::to_string(words.size() - 1);
    }
    // A face of one or two vertices: Assimp 5.2.5 failed its own validation on it ("aiMesh::mFaces[1]
    // is a LINE but aiMesh::mPrimitiveTypes does not report the LINE flag", no line named: an
    // audit). Lines and points are 'l' and 'p' statements, which the import drops.
    if (!line.empty() && line[0] == 'f' && (line.size() == 1 || std::isspace(static_cast<unsigned char>(line[1])))) {
      // (An 'f' with no vertices Assimp skips: a bad-inputs file has one.)
      if (const std::size_t count = splitWords(line.substr(0, line.find('#'))).size() - 1; count == 1 || count == 2)
        return "OBJ line " + std::to_string(line_number) + ": a face needs three vertices at least, this one has " +
               std::to_string(count) + " (a line or point is an 'l' or 'p' statement)";
    }
    if (material_libraries != nullptr && line.rfind("mtllib", 0) == 0 && line.size() > 6 &&
        std::isspace(static_cast<unsigned char>(line[6])))
      material_libraries->emplace_back(trim(line.substr(6)));
    // A material or object name of 1024 bytes or more: Assimp 5.2.5 keeps none of it, and the
    // import named it material<N> or node<N>, which could be another name of the file (an audit).
    // An object's name may get a mark and a count appended when it is named again (objForAssimp):
    // room is left for them.
    for (const std::string_view keyword : {"usemtl", "o", "g"})
      if (line.size() > keyword.size() && line.substr(0, keyword.size()) == keyword &&
          std::isspace(static_cast<unsigned char>(line[keyword.size()]))) {
        const std::size_t most = keyword == "o" ? kMaxImportedName - 1 - kObjRepeatRoom : kMaxImportedName - 1;
        if (const std::size_t size = trim(line.substr(keyword.size())).size(); size > most)
          return "OBJ line " + std::to_string(line_number) + ": the name after '" + std::string(keyword) + "' is " +
                 std::to_string(size) + " bytes; the importer keeps names of at most " + std::to_string(most);
      }
  }
  return {};
}

std::vector<std::string> objMaterialLibraries(const std::filesystem::path& directory, std::string_view rest) {
  std::error_code ec;
  if (rest.empty() || std::filesystem::exists(directory / std::string(rest), ec)) return {std::string(rest)};
  std::vector<std::string> names;
  for (std::size_t at = 0; at < rest.size();) {
    while (at < rest.size() && std::isspace(static_cast<unsigned char>(rest[at]))) ++at;
    const std::size_t start = at;
    while (at < rest.size() && !std::isspace(static_cast<unsigned char>(rest[at]))) ++at;
    if (at > start) names.emplace_back(rest.substr(start, at - start));
  }
  return names;
}

std::string precheckFbx(Bytes bytes) {
  static constexpr char kBinaryMagic[] = "Kaydara FBX Binary  ";  // followed by a NUL byte
  constexpr std::size_t kMagicLength = sizeof(kBinaryMagic);      // includes that NUL
  if (bytes.size() >= kMagicLength && std::memcmp(bytes.data(), kBinaryMagic, kMagicLength) == 0) {
    if (bytes.size() < 27) return "truncated binary FBX header";
    return {};
  }
  if (hasNulByte(bytes.first(std::min<std::size_t>(bytes.size(), 1 << 16))))
    return "neither binary FBX (no 'Kaydara FBX Binary' magic) nor ASCII FBX text";
  return {};
}

PrecheckResult precheckContent(MeshFormat format, Bytes bytes) {
  PrecheckResult result;
  if (bytes.empty()) {
    result.problem = "the file is empty";
    return result;
  }
  try {
    switch (format) {
      case MeshFormat::Glb: result.problem = precheckGlb(bytes, &result.external_buffers); break;
      case MeshFormat::Gltf:
        result.problem = precheckGltfJson(asText(bytes), std::nullopt, &result.external_buffers);
        break;
      case MeshFormat::Stl: result.problem = precheckStl(bytes); break;
      case MeshFormat::Ply: result.problem = precheckPly(bytes); break;
      case MeshFormat::Obj: result.problem = precheckObj(bytes, &result.material_libraries); break;
      case MeshFormat::Fbx: result.problem = precheckFbx(bytes); break;
    }
  } catch (const std::exception& e) {  // nlohmann accessors, allocation: never let one escape
    result.problem = std::string("pre-check failed: ") + e.what();
  }
  return result;
}

/// A URI's %XX escapes decoded (other characters as they are).
std::string percentDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && std::isxdigit(static_cast<unsigned char>(text[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
      out.push_back(static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

}  // namespace strata::formats
