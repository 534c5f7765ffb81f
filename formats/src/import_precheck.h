#pragma once
/// \file
/// Content pre-checks run on a mesh file's bytes before Assimp sees them.
///
/// Assimp 5.2.5 trusts header fields: a 1 KB GLB with a lying chunk length makes it allocate
/// gigabytes, a PLY whose header overstates its counts loads phantom triangles, random bytes
/// named `.obj` "load" as an empty scene (see docs/import.md). These functions compare each
/// format's header against the bytes actually present. They are pure: they take a byte span and
/// never touch the file system (what they need from other files, such as glTF buffers, they
/// return for the caller to check), so the fuzzer can call them directly.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace strata::formats {

/// The mesh formats `strata import` accepts (the allow-list; everything else is "unsupported format").
enum class MeshFormat { Obj, Gltf, Glb, Fbx, Ply, Stl };

/// Human name of a format ("glTF 2.0 (JSON)", "Wavefront OBJ" ...).
std::string_view formatName(MeshFormat format);

/// The format for a file extension (lower or upper case, with the dot), or nullopt when the
/// extension is not on the allow-list.
std::optional<MeshFormat> formatFromExtension(std::string_view extension);

/// A glTF buffer stored in another file, which the caller must check exists and is long enough.
struct ExternalBuffer {
  std::string uri;              ///< the buffer's uri, percent-decoded, relative to the glTF file
  std::uint64_t byte_length = 0;  ///< the buffer's declared byteLength
};

/// What a pre-check found.
struct PrecheckResult {
  std::string problem;                         ///< empty when the bytes look like the format; "unsupported: ..." for a well-formed file the importer would read wrong
  std::vector<ExternalBuffer> external_buffers;  ///< glTF: buffers in other files
  std::vector<std::string> material_libraries;   ///< OBJ: each `mtllib` line's rest, relative to the OBJ (objMaterialLibraries reads it)

  bool ok() const { return problem.empty(); }
};

/// Checks that `bytes` are plausibly a file of `format`: header well formed and every length or
/// count it declares consistent with the bytes present. Never throws.
PrecheckResult precheckContent(MeshFormat format, std::span<const std::uint8_t> bytes);

/// Individual checks (precheckContent dispatches to these); each returns an empty string when
/// the bytes pass, else the problem in a few words.
std::string precheckGlb(std::span<const std::uint8_t> bytes, std::vector<ExternalBuffer>* external_buffers);
/// `embedded_binary_length` is the GLB BIN chunk length (nullopt for a .gltf file).
std::string precheckGltfJson(std::string_view json, std::optional<std::uint64_t> embedded_binary_length,
                             std::vector<ExternalBuffer>* external_buffers);
std::string precheckStl(std::span<const std::uint8_t> bytes);
std::string precheckPly(std::span<const std::uint8_t> bytes);
std::string precheckObj(std::span<const std::uint8_t> bytes, std::vector<std::string>* material_libraries);
/// An OBJ text with each statement continued over backslash-ended lines joined into one line
/// (the backslash and line break removed, nothing put in, as Assimp 5.2.5 joins them: "v 0.\\"
/// then "5 0 0" is 0.5; a backslash ending a comment is dropped: the
/// comment ends with its line), the joined line breaks given after the statement so that every
/// line keeps its number; empty when the text has no line ending in a backslash. Both the checks and the text Assimp reads
/// work on it (an audit: continued lines escaped every rule of both: "v 1 \\" then "0 0 0.25"
/// was divided by w, a comment after a continued face failed the file).
std::string joinObjContinuations(std::string_view text);
/// The files an OBJ `mtllib` line names, given the rest of the line (blanks around it trimmed)
/// and the OBJ's directory: the whole rest as one name when a file of that name exists there (a
/// name with spaces), else each of its blank-separated words (the format's list of libraries,
/// "mtllib a.mtl b.mtl"; Assimp 5.2.5 took the line for one name and loaded neither).
std::vector<std::string> objMaterialLibraries(const std::filesystem::path& directory, std::string_view rest);
std::string precheckFbx(std::span<const std::uint8_t> bytes);

/// The words of `line`, split at whitespace (as the pre-checks read a header or statement).
std::vector<std::string_view> splitWords(std::string_view line);

/// Whether `bytes` are a binary STL: 84 bytes of header and triangle count, then 50 per triangle
/// (even when the header starts with "solid").
bool isBinaryStl(std::span<const std::uint8_t> bytes);

/// Whether `name` has the form "nodes[N]" (N decimal digits), Assimp's name for a glTF node
/// without one.
bool isGltfIndexName(std::string_view name);

/// What the import reads from a glTF / GLB file's JSON itself (parsed once; empty for other
/// formats or unreadable JSON).
struct GltfSceneFacts {
  /// The node names the file itself gives in the form "nodes[N]", the form Assimp gives a node
  /// without one (which an import then names node<K>).
  std::set<std::string> names_like_indices;
  /// One warning per mesh instance whose rest pose is not its base shape, which is what is
  /// imported: a node of the imported scene instancing a mesh with morph targets whose weights
  /// (the node's own `weights`, which override the mesh's, else the mesh's) are not all zero.
  std::vector<std::string> morph_warnings;
  /// The file's nodes, in order, as far as the import matches them with Assimp's (empty when the
  /// JSON is unreadable): children, skin (-1: none), name ("" when the file gives none).
  struct Node {
    std::vector<std::uint32_t> children;
    std::int64_t skin = -1;
    std::string name;
  };
  std::vector<Node> nodes;
  /// Per skin: its joints (node indices) in order, which is the order of Assimp's bones.
  std::vector<std::vector<std::uint32_t>> skin_joints;
  /// The root nodes of the scene Assimp imports (`scene`, else the first scene).
  std::vector<std::uint32_t> roots;
};
GltfSceneFacts gltfSceneFacts(MeshFormat format, std::span<const std::uint8_t> bytes);

/// A URI's %XX escapes decoded; other characters are kept as they are.
std::string percentDecode(std::string_view text);

}  // namespace strata::formats
