// The pure header pre-checks, on tiny byte strings written here (one edge case each).
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "import_precheck.h"
#include "test_support.h"

using namespace strata::formats;

namespace {

std::vector<std::uint8_t> bytesOf(const std::string& text) { return {text.begin(), text.end()}; }

void putU32(std::vector<std::uint8_t>& out, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
}

// A GLB with the given JSON and an optional BIN chunk; `declared_length` 0 means correct.
std::vector<std::uint8_t> makeGlb(std::string json, std::size_t bin_bytes, std::uint32_t declared_length = 0) {
  while (json.size() % 4 != 0) json.push_back(' ');
  std::vector<std::uint8_t> out;
  const std::uint32_t total = 12 + 8 + static_cast<std::uint32_t>(json.size()) + (bin_bytes ? 8 + bin_bytes : 0);
  putU32(out, 0x46546C67);
  putU32(out, 2);
  putU32(out, declared_length ? declared_length : total);
  putU32(out, static_cast<std::uint32_t>(json.size()));
  putU32(out, 0x4E4F534A);
  out.insert(out.end(), json.begin(), json.end());
  if (bin_bytes) {
    putU32(out, static_cast<std::uint32_t>(bin_bytes));
    putU32(out, 0x004E4942);
    out.resize(out.size() + bin_bytes, 0);
  }
  return out;
}

const std::string kMinimalGltf = R"({"asset":{"version":"2.0"},"buffers":[{"byteLength":48}],
  "bufferViews":[{"buffer":0,"byteLength":48}],
  "accessors":[{"bufferView":0,"componentType":5126,"count":4,"type":"VEC3"}]})";

}  // namespace

TEST_CASE("format allow-list by extension", "[formats][import][precheck]") {
  CHECK(formatFromExtension(".obj") == MeshFormat::Obj);
  CHECK(formatFromExtension(".GLB") == MeshFormat::Glb);
  CHECK(formatFromExtension(".gltf") == MeshFormat::Gltf);
  CHECK(formatFromExtension(".Fbx") == MeshFormat::Fbx);
  CHECK(formatFromExtension(".ply") == MeshFormat::Ply);
  CHECK(formatFromExtension(".stl") == MeshFormat::Stl);
  CHECK_FALSE(formatFromExtension(".md5mesh"));
  CHECK_FALSE(formatFromExtension(".h5"));
  CHECK_FALSE(formatFromExtension(""));
}

TEST_CASE("every format rejects an empty file", "[formats][import][precheck]") {
  for (MeshFormat format : {MeshFormat::Obj, MeshFormat::Gltf, MeshFormat::Glb, MeshFormat::Fbx, MeshFormat::Ply, MeshFormat::Stl})
    CHECK(precheckContent(format, {}).problem == "the file is empty");
}

TEST_CASE("GLB header checks", "[formats][import][precheck]") {
  // A well-formed GLB whose buffer lives in the BIN chunk.
  CHECK(precheckContent(MeshFormat::Glb, makeGlb(kMinimalGltf, 48)).ok());
  // The BIN chunk is shorter than the buffer's byteLength.
  CHECK_THAT(precheckContent(MeshFormat::Glb, makeGlb(kMinimalGltf, 16)).problem, Catch::Contains("exceeds the GLB binary chunk"));
  // Header shorter than 12 bytes.
  CHECK_THAT(precheckGlb(std::vector<std::uint8_t>{'g', 'l', 'T', 'F'}, nullptr), Catch::Contains("truncated GLB header"));
  // Wrong magic.
  auto bad_magic = makeGlb(kMinimalGltf, 48);
  bad_magic[3] = 'X';
  CHECK_THAT(precheckGlb(bad_magic, nullptr), Catch::Contains("magic"));
  // Version 1.
  auto version_one = makeGlb(kMinimalGltf, 48);
  version_one[4] = 1;
  CHECK_THAT(precheckGlb(version_one, nullptr), Catch::Contains("version 1"));
  // Total length larger than the file (the 1 KB file that claims 2 GB).
  CHECK_THAT(precheckGlb(makeGlb(kMinimalGltf, 48, 0x7FFFFFF0), nullptr), Catch::Contains("declares 2147483632 bytes"));
  // JSON chunk length beyond the file (Assimp's memory bomb).
  auto chunk_overflow = makeGlb(kMinimalGltf, 48);
  chunk_overflow[12] = 0xF0, chunk_overflow[13] = 0xFF, chunk_overflow[14] = 0xFF, chunk_overflow[15] = 0xFF;
  CHECK_THAT(precheckGlb(chunk_overflow, nullptr), Catch::Contains("GLB chunk 0 declares 4294967280 bytes"));
  // A JSON chunk not padded to 4 bytes: the importer said only "No suitable reader found" (an
  // audit).
  {
    std::string json = kMinimalGltf;
    while (json.size() % 4 != 3) json.push_back(' ');
    std::vector<std::uint8_t> unpadded;
    putU32(unpadded, 0x46546C67);
    putU32(unpadded, 2);
    putU32(unpadded, static_cast<std::uint32_t>(12 + 8 + json.size() + 8 + 48));
    putU32(unpadded, static_cast<std::uint32_t>(json.size()));
    putU32(unpadded, 0x4E4F534A);
    unpadded.insert(unpadded.end(), json.begin(), json.end());
    putU32(unpadded, 48);
    putU32(unpadded, 0x004E4942);
    unpadded.resize(unpadded.size() + 48, 0);
    CHECK_THAT(precheckGlb(unpadded, nullptr),
               Catch::Equals("the GLB JSON chunk is " + std::to_string(json.size()) +
                             " bytes, not a multiple of 4 (the format pads it with spaces; the importer does not read it unpadded)"));
  }
  // First chunk is not JSON.
  auto not_json = makeGlb(kMinimalGltf, 48);
  not_json[16] = 'X';
  CHECK_THAT(precheckGlb(not_json, nullptr), Catch::Contains("not JSON"));
  // Buffer 0 with a uri: Assimp 5.2.5 reads it from the BIN chunk anyway and then calls the
  // buffer views out of range; refused with the reason (an audit's GLB without a BIN chunk).
  const std::string external_zero = R"({"asset":{"version":"2.0"},"buffers":[{"byteLength":48,"uri":"scene.bin"}],
  "bufferViews":[{"buffer":0,"byteLength":48}],
  "accessors":[{"bufferView":0,"componentType":5126,"count":4,"type":"VEC3"}]})";
  CHECK_THAT(precheckGlb(makeGlb(external_zero, 0), nullptr),
             Catch::Contains("glTF buffer 0 has a uri, which Assimp 5.2.5 does not read in a GLB"));
  // Truncated in the middle of the chunks (header length then exceeds the file).
  auto truncated = makeGlb(kMinimalGltf, 48);
  truncated.resize(truncated.size() / 2);
  CHECK_FALSE(precheckContent(MeshFormat::Glb, truncated).ok());
}

TEST_CASE("glTF JSON checks", "[formats][import][precheck]") {
  std::vector<ExternalBuffer> external;
  // Buffers without uri are only legal inside a GLB.
  CHECK_THAT(precheckGltfJson(kMinimalGltf, std::nullopt, &external), Catch::Contains("buffer 0 has no uri"));
  // External buffer: returned for the caller, percent-decoded.
  const std::string with_uri = R"({"asset":{"version":"2.0"},"buffers":[{"uri":"my%20level.bin","byteLength":48}]})";
  CHECK(precheckGltfJson(with_uri, std::nullopt, &external).empty());
  REQUIRE(external.size() == 1);
  CHECK(external[0].uri == "my level.bin");
  CHECK(external[0].byte_length == 48);
  // Embedded base64 data shorter than byteLength (4 base64 chars = 3 bytes).
  CHECK_THAT(precheckGltfJson(R"({"asset":{"version":"2.0"},"buffers":[{"uri":"data:application/octet-stream;base64,AAAA","byteLength":4}]})",
                              std::nullopt, nullptr),
             Catch::Contains("exceeds its embedded data (3 bytes)"));
  CHECK(precheckGltfJson(R"({"asset":{"version":"2.0"},"buffers":[{"uri":"data:application/octet-stream;base64,AAAA","byteLength":3}]})",
                         std::nullopt, nullptr)
            .empty());
  // A payload outside base64's alphabet, or '=' other than at its end, is refused: Assimp 5.2.5
  // decoded it as other bytes and imported other coordinates, exit 0 (an audit).
  auto withPayload = [](const std::string& payload) {
    return R"({"asset":{"version":"2.0"},"buffers":[{"uri":"data:application/octet-stream;base64,)" + payload +
           R"(","byteLength":3}]})";
  };
  CHECK_THAT(precheckGltfJson(withPayload("AA*A"), std::nullopt, nullptr),
             Catch::Contains("buffer 0: data uri holds a character outside base64 ('*' at payload offset 2)"));
  CHECK_THAT(precheckGltfJson(withPayload("AA=AAAAA"), std::nullopt, nullptr),
             Catch::Contains("a character outside base64 ('=' at payload offset 2)"));
  CHECK_THAT(precheckGltfJson(withPayload("AAAA-_AA"), std::nullopt, nullptr), Catch::Contains("('-' at payload offset 4)"));
  CHECK_THAT(precheckGltfJson(withPayload("AAAA==="), std::nullopt, nullptr), Catch::Contains("more than two '=' at its end"));
  CHECK(precheckGltfJson(withPayload("Ab+/"), std::nullopt, nullptr).empty());
  CHECK(precheckGltfJson(withPayload("AAAAAA=="), std::nullopt, nullptr).empty());
  // A node's rotation must be a unit quaternion: Assimp 5.2.5 applied [0, 1.414, 0, 1.414] as it
  // is and stretched the mesh five times, exit 0 (an audit). Writers' rounding and all zeros
  // (read as no rotation) pass.
  auto withRotation = [](const std::string& rotation) {
    return R"({"asset":{"version":"2.0"},"nodes":[{"name":"a"},{"rotation":)" + rotation + R"(,"children":[2]},{"mesh":0}]})";
  };
  CHECK_THAT(precheckGltfJson(withRotation("[0, 1.414, 0, 1.414]"), std::nullopt, nullptr),
             Catch::Contains("glTF node 1: rotation is not a unit quaternion (length 1.9997)"));
  CHECK_THAT(precheckGltfJson(withRotation("[0, 0, 0, 0.5]"), std::nullopt, nullptr), Catch::Contains("(length 0.5)"));
  CHECK(precheckGltfJson(withRotation("[0, 0.7071068, 0, 0.7071068]"), std::nullopt, nullptr).empty());
  CHECK(precheckGltfJson(withRotation("[0, 0, 0, 1.0004]"), std::nullopt, nullptr).empty());
  CHECK(precheckGltfJson(withRotation("[0, 0, 0, 0]"), std::nullopt, nullptr).empty());
  // On the mesh's own node too; on a node that moves no mesh (a camera's), it changes nothing
  // imported (the re-audit).
  CHECK_THAT(precheckGltfJson(R"({"asset":{"version":"2.0"},"nodes":[{"mesh":0,"rotation":[0,0,0,2]}]})", std::nullopt, nullptr),
             Catch::Contains("glTF node 0: rotation is not a unit quaternion (length 2)"));
  CHECK(precheckGltfJson(R"({"asset":{"version":"2.0"},"nodes":[{"mesh":0},{"name":"camera","rotation":[0,0,0,2],"children":[2]},{}]})",
                         std::nullopt, nullptr)
            .empty());
  // A node outside the scene imported is not read: its rotation and name are not checked (the
  // review); the same node in the scene is.
  const std::string outside = R"({"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],)"
                              R"("nodes":[{"mesh":0},{"mesh":0,"rotation":[0,1.414,0,1.414],"name":")" +
                              std::string(1100, 'n') + R"("}]})";
  CHECK(precheckGltfJson(outside, std::nullopt, nullptr).empty());
  std::string inside = outside;
  inside.replace(inside.find("\"nodes\":[0]"), 11, "\"nodes\":[0,1]");
  CHECK_THAT(precheckGltfJson(inside, std::nullopt, nullptr), Catch::Contains("glTF node 1:"));
  // A node under two parents (invalid, imported by Assimp under both): the second parent's
  // rotation moves the mesh too (the re-audit).
  CHECK_THAT(precheckGltfJson(R"({"asset":{"version":"2.0"},"nodes":[{"children":[2]},{"rotation":[0,0,0,2],"children":[2]},{"mesh":0}]})",
                              std::nullopt, nullptr),
             Catch::Contains("glTF node 1: rotation is not a unit quaternion"));
  // A material's name is checked when a mesh of the scene uses it (an unused one is never read).
  const std::string long_material = R"({"name":")" + std::string(1024, 'm') + R"("})";
  const std::string used = R"({"asset":{"version":"2.0"},"nodes":[{"mesh":0}],"meshes":[{"primitives":[{"attributes":{},"material":1}]}],)"
                           R"("materials":[)" + long_material + "," + long_material + "]}";
  CHECK_THAT(precheckGltfJson(used, std::nullopt, nullptr), Catch::Contains("glTF material 1: its name is 1024 bytes"));
  std::string unused = used;
  unused.replace(unused.find("\"material\":1"), 12, "\"material\":9");
  CHECK(precheckGltfJson(unused, std::nullopt, nullptr).empty());
  // glTF 1.0 and a missing asset.
  CHECK_THAT(precheckGltfJson(R"({"asset":{"version":"1.0"}})", std::nullopt, nullptr), Catch::Contains("'1.0' is not supported"));
  CHECK_THAT(precheckGltfJson(R"({"scenes":[]})", std::nullopt, nullptr), Catch::Contains("no 'asset'"));
  // Truncated JSON, a non-object, deep nesting.
  CHECK_THAT(precheckGltfJson(R"({"asset":{"vers)", std::nullopt, nullptr), Catch::Contains("not valid JSON"));
  CHECK_THAT(precheckGltfJson("[1,2]", std::nullopt, nullptr), Catch::Contains("not an object"));
  CHECK_THAT(precheckGltfJson(std::string(10000, '[') + std::string(10000, ']'), std::nullopt, nullptr), Catch::Contains("nests deeper"));
  // bufferView beyond its buffer; accessor beyond its bufferView (count 1,000,000 on 48 bytes).
  CHECK_THAT(precheckGltfJson(R"({"asset":{"version":"2.0"},"buffers":[{"byteLength":48}],"bufferViews":[{"buffer":0,"byteOffset":40,"byteLength":48}]})",
                              std::uint64_t{48}, nullptr),
             Catch::Contains("lie outside buffer 0"));
  CHECK_THAT(precheckGltfJson(R"({"asset":{"version":"2.0"},"buffers":[{"byteLength":48}],"bufferViews":[{"buffer":0,"byteLength":48}],
      "accessors":[{"bufferView":0,"componentType":5126,"count":1000000,"type":"VEC3"}]})",
                              std::uint64_t{48}, nullptr),
             Catch::Contains("1000000 elements need 12000000 bytes"));
  // Interleaved (strided) accessor that fits exactly: offset 12, stride 24, 2 elements of 12 bytes.
  CHECK(precheckGltfJson(R"({"asset":{"version":"2.0"},"buffers":[{"byteLength":48}],"bufferViews":[{"buffer":0,"byteLength":48,"byteStride":24}],
      "accessors":[{"bufferView":0,"byteOffset":12,"componentType":5126,"count":2,"type":"VEC3"}]})",
                         std::uint64_t{48}, nullptr)
            .empty());
  // Elements that overlap (byteStride below the element's size) are refused (an audit: garbage
  // vertices, no error).
  CHECK_THAT(precheckGltfJson(R"({"asset":{"version":"2.0"},"buffers":[{"byteLength":48}],"bufferViews":[{"buffer":0,"byteLength":48,"byteStride":4}],
      "accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3"}]})",
                              std::uint64_t{48}, nullptr),
             Catch::Contains("byteStride 4 is smaller than its 12-byte elements"));
  // Sparse accessors: their indices and values must lie inside their bufferViews (an audit: 2
  // values read from a view of one took the next view's bytes; 8 from the buffer's last 12 bytes
  // read past its end). With a base bufferView and without, the lengths that fit pass.
  const std::string sparse_head = R"({"asset":{"version":"2.0"},"buffers":[{"byteLength":96}],"bufferViews":[
      {"buffer":0,"byteLength":48},{"buffer":0,"byteOffset":48,"byteLength":4},{"buffer":0,"byteOffset":52,"byteLength":12}],
      "accessors":[{)";
  auto sparse = [&](const std::string& base, int count, int index_type) {
    return sparse_head + base + R"("componentType":5126,"count":4,"type":"VEC3","sparse":{"count":)" + std::to_string(count) +
           R"(,"indices":{"bufferView":1,"componentType":)" + std::to_string(index_type) + R"(},"values":{"bufferView":2}}}]})";
  };
  CHECK(precheckGltfJson(sparse(R"("bufferView":0,)", 1, 5121), std::uint64_t{96}, nullptr).empty());
  CHECK(precheckGltfJson(sparse("", 1, 5123), std::uint64_t{96}, nullptr).empty());
  CHECK_THAT(precheckGltfJson(sparse(R"("bufferView":0,)", 2, 5121), std::uint64_t{96}, nullptr),
             Catch::Contains("2 sparse values need 24 bytes but bufferView 2 has 12"));
  CHECK_THAT(precheckGltfJson(sparse("", 2, 5125), std::uint64_t{96}, nullptr),
             Catch::Contains("2 sparse indices need 8 bytes but bufferView 1 has 4"));
  CHECK_THAT(precheckGltfJson(sparse("", 5, 5121), std::uint64_t{96}, nullptr), Catch::Contains("more than the accessor's 4"));
  CHECK_THAT(precheckGltfJson(sparse("", 1, 5126), std::uint64_t{96}, nullptr), Catch::Contains("sparse indices' componentType"));
  // Offsets and strides that are not non-negative integers are refused, not read as 0 (an audit:
  // a bufferView's byteOffset of -12 made Assimp read the index bytes as positions, exit 0).
  const std::string two_views = R"({"asset":{"version":"2.0"},"buffers":[{"byteLength":48}],"bufferViews":[{"buffer":0,"byteLength":36},)";
  for (const char* offset : {"-12", "12.5", "\"12\"", "null", "-4"}) {
    CAPTURE(offset);
    CHECK_THAT(precheckGltfJson(two_views + R"({"buffer":0,"byteLength":12,"byteOffset":)" + offset + "}]}", std::uint64_t{48}, nullptr),
               Catch::Contains("glTF bufferView 1: byteOffset is not a non-negative integer"));
    CHECK_THAT(precheckGltfJson(two_views + R"({"buffer":0,"byteLength":12,"byteOffset":36}],"accessors":[{"bufferView":0,"byteOffset":)" +
                                    offset + R"(,"componentType":5126,"count":1,"type":"VEC3"}]})",
                                std::uint64_t{48}, nullptr),
               Catch::Contains("glTF accessor 0: byteOffset is not a non-negative integer"));
  }
  CHECK_THAT(precheckGltfJson(two_views + R"({"buffer":0,"byteLength":12,"byteOffset":36,"byteStride":-12}]})", std::uint64_t{48}, nullptr),
             Catch::Contains("byteStride is not a non-negative integer"));
  CHECK_THAT(precheckGltfJson(two_views + R"({"buffer":0,"byteLength":12,"byteOffset":36}],"accessors":[{"bufferView":-1,"componentType":5126,"count":1,"type":"VEC3"}]})",
                              std::uint64_t{48}, nullptr),
             Catch::Contains("glTF accessor 0: bufferView is not a non-negative integer"));
  // The same with valid integers passes.
  CHECK(precheckGltfJson(two_views + R"({"buffer":0,"byteLength":12,"byteOffset":36}],"accessors":[{"bufferView":1,"byteOffset":0,"componentType":5126,"count":1,"type":"VEC3"}]})",
                         std::uint64_t{48}, nullptr)
            .empty());
  // bufferView referring to a missing buffer.
  CHECK_THAT(precheckGltfJson(R"({"asset":{"version":"2.0"},"bufferViews":[{"buffer":3,"byteLength":4}]})", std::nullopt, nullptr),
             Catch::Contains("missing buffer"));
}

TEST_CASE("STL binary size equation and ASCII detection", "[formats][import][precheck]") {
  std::vector<std::uint8_t> binary(84 + 50, 0);
  binary[80] = 1;  // one triangle
  CHECK(precheckStl(binary).empty());
  // A binary header that starts with "solid" is still binary when the size equation holds.
  std::memcpy(binary.data(), "solid trap", 10);
  CHECK(precheckStl(binary).empty());
  // Count larger than the file.
  binary[80] = 0x40, binary[81] = 0x42, binary[82] = 0x0F;  // 1,000,000
  CHECK_THAT(precheckStl(binary), Catch::Contains("declares 1000000 triangles"));
  // ASCII STL.
  CHECK(precheckStl(bytesOf("solid x\nfacet normal 0 1 0\nouter loop\nvertex 0 0 0\nvertex 0 0 1\nvertex 1 0 0\n")).empty());
  CHECK_THAT(precheckStl(bytesOf("solid x\nfacet normal 0 1 0\nouter loop\nvertex 0 0 0\n")),
             Catch::Contains("ASCII STL facet 0 has 1 vertices"));  // cut short
  // A facet's loop holds three vertices: a fourth was dropped in silence (an audit), and two.
  const std::string facet3 = "facet normal 0 1 0\n outer loop\n  vertex 0 0 0\n  vertex 0 0 1\n  vertex 1 0 0\n endloop\nendfacet\n";
  CHECK(precheckStl(bytesOf("solid x\n" + facet3 + facet3 + "endsolid x\n")).empty());
  CHECK_THAT(precheckStl(bytesOf("solid x\n" + facet3 +
                                 "facet normal 0 1 0\nouter loop\nvertex 0 0 0\nvertex 0 0 1\nvertex 1 0 0\nvertex 1 0 1\nendloop\n")),
             Catch::Contains("ASCII STL facet 1 has 4 vertices (a facet is a triangle: 3)"));
  CHECK_THAT(precheckStl(bytesOf("solid x\nfacet normal 0 1 0\nouter loop\nvertex 0 0 0\nvertex 0 0 1\nendloop\n")),
             Catch::Contains("facet 0 has 2 vertices"));
  // Counted per facet, as the importer reads them: four vertices with no loop, or a fourth after
  // the loop, lost the fourth in silence too (an audit: a quad floor imported as one triangle).
  CHECK_THAT(precheckStl(bytesOf("solid x\nfacet normal 0 1 0\nvertex 0 0 0\nvertex 0 0 4\nvertex 4 0 4\nvertex 4 0 0\nendfacet\nendsolid x\n")),
             Catch::Contains("ASCII STL facet 0 has 4 vertices"));
  CHECK_THAT(precheckStl(bytesOf("solid x\n" + facet3 + "facet normal 0 1 0\nouter loop\nvertex 0 0 0\nvertex 0 0 4\nvertex 4 0 4\nendloop\nvertex 4 0 0\nendfacet\n")),
             Catch::Contains("ASCII STL facet 1 has 4 vertices"));
  // Too short for binary and not ASCII.
  CHECK_THAT(precheckStl(bytesOf("hello")), Catch::Contains("too short"));
  // Lines ended by a lone CR (an audit: the whole file read as the solid's name).
  CHECK_THAT(precheckStl(bytesOf("solid x\rfacet normal 0 1 0\router loop\rvertex 0 0 0\rvertex 0 0 1\rvertex 1 0 0\r"
                                 "endloop\rendfacet\rendsolid x\r")),
             Catch::Equals("its lines end in a lone carriage return (CR, classic Mac OS); convert them to LF or CR LF"));
  CHECK(precheckStl(bytesOf("solid x\n\rfacet normal 0 1 0\n\router loop\n\rvertex 0 0 0\n\rvertex 0 0 1\n\rvertex 1 0 0\n\r"
                            "endloop\n\rendfacet\n\rendsolid x\n\r"))
            .empty());  // LF CR line ends: harmless (a review)
  // CR-ended lines and one LF at the end (a review): the CR inside the first line is named.
  CHECK_THAT(precheckStl(bytesOf("solid x\rfacet normal 0 1 0\rendsolid x\r\n")),
             Catch::Equals("ASCII STL line 1: a carriage return inside the line, where the importer (Assimp 5.2.5) would end it; "
                           "end lines with LF or CR LF only"));
  // Text the importer does not read as ASCII STL says so, not only that its binary count is wrong.
  const std::string upper = "SOLID X\nFACET NORMAL 0 1 0\nOUTER LOOP\nVERTEX 0 0 0\nVERTEX 0 0 1\nVERTEX 1 0 0\nENDLOOP\nENDFACET\nENDSOLID X\n";
  CHECK_THAT(precheckStl(bytesOf(upper)),
             Catch::StartsWith("not ASCII STL (it does not start with 'solid', in lower case, as the importer needs) "
                               "and not binary STL (its header would declare "));
}

TEST_CASE("PLY header checks", "[formats][import][precheck]") {
  const std::string header =
      "ply\nformat ascii 1.0\ncomment made by hand\nelement vertex 3\nproperty float x\nproperty float y\n"
      "property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n";
  CHECK(precheckPly(bytesOf(header + "0 0 0\n1 0 0\n0 0 1\n3 0 1 2\n")).empty());
  // Header overstates its counts (phantom triangles in Assimp).
  CHECK_THAT(precheckPly(bytesOf(header + "0 0 0\n1 0 0\n3 0 1 2\n")), Catch::Contains("body has only 3 lines"));
  // Each line holds its element's values: a list count beyond its indices (an audit: 198
  // degenerate triangles dropped in silence), a vertex short of a coordinate, a count that is no
  // count are refused, naming the line; extra lines after the elements, blank lines and a further
  // scalar after the list pass.
  CHECK_THAT(precheckPly(bytesOf(header + "0 0 0\n1 0 0\n0 0 1\n200 0 1 2\n")),
             Catch::Contains("PLY line 14: face 0 has 4 values where its properties need 201"));
  CHECK_THAT(precheckPly(bytesOf(header + "0 0 0\n1 0\n0 0 1\n3 0 1 2\n")),
             Catch::Contains("PLY line 12: vertex 1 has 2 values where its properties need 3"));
  CHECK_THAT(precheckPly(bytesOf(header + "0 0 0\n1 0 0\n0 0 1\n-3 0 1 2\n")), Catch::Contains("a list's count is missing or not a count"));
  const std::string flagged =
      "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
      "element face 2\nproperty list uchar int vertex_indices\nproperty uchar flags\nend_header\n";
  CHECK(precheckPly(bytesOf(flagged + "0 0 0\n\n1 0 0\n0 0 1\n3 0 1 2 7\n3 0 2 1 9\nextra\n")).empty());
  // A face of no vertex indices aborted the importer (an audit); a list of 0 of another kind passes.
  CHECK_THAT(precheckPly(bytesOf(flagged + "0 0 0\n1 0 0\n0 0 1\n3 0 1 2 7\n0 9\n")),
             Catch::Contains("PLY line 15: face 1 has no vertex indices"));
  const std::string with_uv =
      "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
      "element face 1\nproperty list uchar int vertex_indices\nproperty list uchar float texcoord\nend_header\n";
  CHECK(precheckPly(bytesOf(with_uv + "0 0 0\n1 0 0\n0 0 1\n3 0 1 2 0\n")).empty());
  // Every value is a number of its property's type: Assimp 5.2.5 read "0x3" as 0, "2.7" in an
  // index list as 2 and "3abc" as 3, a wrong triangle imported in silence (an audit).
  for (const char* face : {"3 0 1 0x2", "3 0 1 2.7", "3 0 1 2abc", "3 0 1 -2e0", "3 0 1 two"})
    CHECK_THAT(precheckPly(bytesOf(header + "0 0 0\n1 0 0\n0 0 1\n" + face + "\n")),
               Catch::Contains("PLY line 14: face 0: '") && Catch::Contains("is not a number of its list's type (vertex_indices)"));
  CHECK_THAT(precheckPly(bytesOf(header + "0 0 0\n1 0x1 0\n0 0 1\n3 0 1 2\n")),
             Catch::Contains("PLY line 12: vertex 1: '0x1' is not a number of its property's type (y)"));
  CHECK_THAT(precheckPly(bytesOf(header + "0 0 0\n1 0 0\n0 0 1,5\n3 0 1 2\n")),
             Catch::Contains("vertex 2: '1,5' is not a number of its property's type (z)"));
  // An integer must fit its type: Assimp 5.2.5 wrapped 4294967298 to 2, a valid triangle
  // imported in silence (an audit); a list count must fit its (here uchar) type too.
  for (const char* face : {"3 0 1 4294967298", "3 0 1 2147483648", "3 0 1 -2147483649", "3 0 1 18446744073709551618"})
    CHECK_THAT(precheckPly(bytesOf(header + "0 0 0\n1 0 0\n0 0 1\n" + face + "\n")),
               Catch::Contains("is not a number of its list's type (vertex_indices)"));
  CHECK_THAT(precheckPly(bytesOf(header + "0 0 0\n1 0 0\n0 0 1\n259 0 1 2\n")), Catch::Contains("not a count of its type"));
  CHECK(precheckPly(bytesOf(header + "0 0 0\n1 0 0\n0 0 1\n3 0 1 2147483647\n")).empty());  // out of range later, by name
  CHECK(precheckPly(bytesOf(header + "0 0 0\n1 0 0\n0 0 1\n3 0 1 -2147483648\n")).empty());
  // A '+' only before a signed type's value (Assimp read '+2' as an unsigned 0: a review); a
  // signed list count may carry one.
  const std::string unsigned_header =
      "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
      "element face 1\nproperty list uchar uint vertex_indices\nend_header\n";
  CHECK_THAT(precheckPly(bytesOf(unsigned_header + "0 0 0\n1 0 0\n0 0 1\n3 0 +1 2\n")),
             Catch::Contains("face 0: '+1' is not a number of its list's type"));
  CHECK(precheckPly(bytesOf(header + "0 0 0\n1 0 0\n0 0 1\n3 0 +1 2\n")).empty());
  const std::string signed_count =
      "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
      "element face 1\nproperty list int int vertex_indices\nend_header\n";
  CHECK(precheckPly(bytesOf(signed_count + "0 0 0\n1 0 0\n0 0 1\n+3 0 1 2\n")).empty());
  CHECK_THAT(precheckPly(bytesOf(signed_count + "0 0 0\n1 0 0\n0 0 1\n-0\n")), Catch::Contains("face 0 has no vertex indices"));
  CHECK_THAT(precheckPly(bytesOf(header + "0 0 0\n1 0 0\n0 0 1\n+3 0 1 2\n")), Catch::Contains("not a count of its type"));
  CHECK(precheckPly(bytesOf(header + "-1.5e-3 +2 .5\n1. 0 0\n0 0 1E2\n3 0 +1 2\n")).empty());
  CHECK(precheckPly(bytesOf(header + "nan 0 0\n1 0 0\n0 0 1\n3 0 1 2\n")).empty());  // refused by name later
  // Only the values the import reads are typed: a colour written 255.0 is harmless (the re-audit).
  const std::string coloured =
      "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
      "property uchar red\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n";
  CHECK(precheckPly(bytesOf(coloured + "0 0 0 255.0\n1 0 0 -1\n0 0 1 2.55e2\n3 0 1 2\n")).empty());
  CHECK_THAT(precheckPly(bytesOf(coloured + "0 0 0 255\n1 0 0 1\n0 0 0x1 2\n3 0 1 2\n")), Catch::Contains("(z)"));
  // Binary: 2^31 vertices of 12 bytes against a tiny body.
  const std::string binary_header =
      "ply\nformat binary_little_endian 1.0\nelement vertex 2147483647\nproperty float x\nproperty float y\n"
      "property float z\nend_header\n";
  CHECK_THAT(precheckPly(bytesOf(binary_header + std::string(36, '\0'))), Catch::Contains("at least 25769803764 bytes"));
  // A file ending on its end_header line, no newline after it: an empty body, not one read a byte
  // past the file's end (the CI fuzz run: a heap overflow, and an exception for ASCII).
  CHECK_THAT(precheckPly(bytesOf("ply\nformat binary_little_endian 1.0\nelement face 1\n"
                                 "property list uchar int vertex_indices\nend_header int indices")),
             Catch::Contains("(at least 1 bytes) but the body has 0 bytes"));
  CHECK_THAT(precheckPly(bytesOf(header.substr(0, header.size() - 1))), Catch::Contains("the body has only 0 lines"));
  // Binary body exactly the declared size passes; the lists' counts are read (in the file's byte
  // order), so a body short of the list items, a negative count and a face of no indices are
  // refused (each aborted the importer: an audit).
  const std::string small_binary =
      "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
      "element face 1\nproperty list uchar int vertex_indices\nend_header\n";
  const std::string face012("\x03\0\0\0\0\x01\0\0\0\x02\0\0\0", 13);
  CHECK(precheckPly(bytesOf(small_binary + std::string(36, '\0') + face012)).empty());
  CHECK_THAT(precheckPly(bytesOf(small_binary + std::string(36, '\0') + std::string(13, '\0'))),
             Catch::Contains("PLY binary body: face 0 has no vertex indices"));
  CHECK_THAT(precheckPly(bytesOf(small_binary + std::string(36, '\0') + "\x04" + face012.substr(1))),
             Catch::Contains("the binary body ends before them"));
  const std::string two_faces =
      "ply\nformat binary_big_endian 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
      "element face 2\nproperty list short int vertex_indices\nend_header\n";
  const std::string face_be("\0\x03\0\0\0\0\0\0\0\x01\0\0\0\x02", 14);
  CHECK(precheckPly(bytesOf(two_faces + std::string(36, '\0') + face_be + face_be)).empty());
  CHECK_THAT(precheckPly(bytesOf(two_faces + std::string(36, '\0') + face_be + "\xff\xff" + face_be.substr(2))),
             Catch::Contains("PLY binary body: face 1: a list count of -1"));
  // The header's minimum fits (5 vertices of 12 bytes and 2 counts in 74 bytes) but the faces do not.
  const std::string five =
      "ply\nformat binary_little_endian 1.0\nelement vertex 5\nproperty float x\nproperty float y\nproperty float z\n"
      "element face 2\nproperty list uchar int vertex_indices\nend_header\n";
  CHECK_THAT(precheckPly(bytesOf(five + std::string(48, '\0') + face012 + face012)), Catch::Contains("PLY binary body"));
  // A count past the body ends the walk (the re-audit: the offset wrapped and the walk went on
  // from the body's start, and a count of 2^32 - 1 reached the importer).
  const std::string huge =
      "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
      "element face 3\nproperty list uint int vertex_indices\nend_header\n";
  const std::string face_u32("\x03\0\0\0\0\0\0\0\x01\0\0\0\x02\0\0\0", 16);
  CHECK_THAT(precheckPly(bytesOf(huge + std::string(36, '\0') + std::string("\xff\xff\xff\xff", 4) + face_u32.substr(4) +
                                 face_u32 + face_u32)),
             Catch::Contains("the binary body ends before them"));
  CHECK(precheckPly(bytesOf(huge + std::string(36, '\0') + face_u32 + face_u32 + face_u32)).empty());
  // An element of no properties, 2^31 of them, is stepped over at once (the fuzz run timed out).
  const std::string empty_vertices =
      "ply\nformat binary_little_endian 1.0\nelement vertex 2147483647\nelement face 1\n"
      "property list uchar int vertex_indices\nend_header\n";
  CHECK_THAT(precheckPly(bytesOf(empty_vertices + std::string(12, '\0'))), Catch::Contains("face 0 has no vertex indices"));
  // Malformed headers.
  CHECK_THAT(precheckPly(bytesOf("ply\nformat ascii 1.0\nelement vertex 3\n")), Catch::Contains("no 'end_header'"));
  CHECK_THAT(precheckPly(bytesOf("ply\nelement vertex 3\nend_header\n")), Catch::Contains("no 'format'"));
  CHECK_THAT(precheckPly(bytesOf("ply\nformat ascii 1.0\nproperty float x\nend_header\n")), Catch::Contains("before any 'element'"));
  CHECK_THAT(precheckPly(bytesOf("ply\nformat ascii 1.0\nelement vertex -3\nend_header\n")), Catch::Contains("not a valid count"));
  CHECK_THAT(precheckPly(bytesOf("ply\nformat ascii 1.0\nelement vertex 3\nproperty quux x\nend_header\n")),
             Catch::Contains("malformed 'property'"));
  CHECK_THAT(precheckPly(bytesOf(std::string("ply\nformat ascii 1.0\nproperty \0\0", 32))), Catch::Contains("binary data"));
  CHECK_THAT(precheckPly(bytesOf("PLY\n")), Catch::Contains("no 'ply' magic"));
}

TEST_CASE("OBJ and FBX content checks", "[formats][import][precheck]") {
  std::vector<std::string> libraries;
  CHECK(precheckObj(bytesOf("mtllib level.mtl\nv 0 0 0\n  mtllib  other lib.mtl \nf 1 1 1\n"), &libraries).empty());
  CHECK(libraries == std::vector<std::string>{"level.mtl", "other lib.mtl"});
  // Vertex coordinates must be decimal numbers, three at least (an audit: "v 0x10 0 -10" was
  // read as x = 0, exit 0; "v abc 0 -10" failed as "vertex index out of range"). nan and inf
  // pass here (refused by name after the import), as do signs, points, exponents, a fourth
  // number, a comment and an indent.
  CHECK(precheckObj(bytesOf("v 1 2 3\n  v -1.5 +.5 2.e3 1\nv 1E-5 -0. 3e+2 # x\nv nan -INF Infinity\nv 1 2 3 0.5 0.5 0.5\n"), nullptr)
            .empty());
  CHECK_THAT(precheckObj(bytesOf("v 0 0 0\nv 0x10 0 -10\n"), nullptr),
             Catch::Equals("OBJ line 2: vertex coordinate '0x10' is not a decimal number"));
  CHECK_THAT(precheckObj(bytesOf("v abc 0 -10\n"), nullptr), Catch::Equals("OBJ line 1: vertex coordinate 'abc' is not a decimal number"));
  for (const char* bad : {"v 1,5 0 0", "v 1e 0 0", "v . 0 0", "v 1.2.3 0 0", "v - 0 0", "v 1e+ 0 0", "v nanx 0 0"}) {
    CAPTURE(bad);
    CHECK_THAT(precheckObj(bytesOf(bad), nullptr), Catch::Contains("is not a decimal number"));
  }
  CHECK_THAT(precheckObj(bytesOf("v 1 2\n"), nullptr), Catch::Equals("OBJ line 1: a vertex needs three coordinates (x y z), this one has 2"));
  CHECK_THAT(precheckObj(bytesOf("v\n"), nullptr), Catch::Contains("this one has 0"));
  // A face of one or two vertices failed Assimp's own validation, naming no line (an audit).
  CHECK_THAT(precheckObj(bytesOf("v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3\nf 1 2"), nullptr),
             Catch::Equals("OBJ line 5: a face needs three vertices at least, this one has 2 (a line or point is an 'l' or 'p' "
                           "statement)"));
  CHECK_THAT(precheckObj(bytesOf("v 0 0 0\nf 1 # 2 3\n"), nullptr), Catch::Contains("OBJ line 2: a face needs three vertices at least, this one has 1"));
  CHECK(precheckObj(bytesOf("v 0 0 0\nf\n"), nullptr).empty());  // skipped by the importer
  CHECK(precheckObj(bytesOf("v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1/1 2/2 3/3\nl 1 2\np 3\n"), nullptr).empty());
  // A statement continued over a backslash is Assimp's to read; its second line is not a vertex.
  CHECK(precheckObj(bytesOf("v 1 2 \\\n 3\nf 1 1 1\n"), nullptr).empty());
  // Lines ended by a lone CR (an audit: "OBJ-file is too small"); CR LF is fine.
  CHECK_THAT(precheckObj(bytesOf("v 0 0 0\rv 1 0 0\rv 0 0 1\rf 1 2 3\r"), nullptr), Catch::Contains("lone carriage return"));
  CHECK(precheckObj(bytesOf("v 0 0 0\r\nv 1 0 0\r\nv 0 0 1\r\nf 1 2 3\r\n"), nullptr).empty());
  // A CR or form feed inside a line ends it for Assimp, so what follows is a statement every check
  // here would miss (an audit: '#\fv 0x10 0 1' imported x = 0, '#\rmtllib' named a library
  // the companion check never saw); at a line's end they are harmless.
  CHECK_THAT(precheckObj(bytesOf("v 0 0 0\nv 1 0 0\n#\fv 0x10 0 1\nf 1 2 3\n"), nullptr),
             Catch::Equals("OBJ line 3: a form feed inside the line, where the importer (Assimp 5.2.5) would end it; end "
                           "lines with LF or CR LF only"));
  CHECK_THAT(precheckObj(bytesOf("v 0 0 0\r\n#\rmtllib a.mtl\r\n"), nullptr), Catch::StartsWith("OBJ line 2: a carriage return inside"));
  CHECK(precheckObj(bytesOf("v 0 0 0\r\r\nv 1 0 0\f\nv 0 0 1\r \nf 1 2 3\r"), nullptr).empty());  // blanks after: harmless
  // A backslash before a trailing form feed continues the line as one before CR LF does.
  CHECK(joinObjContinuations("v 0 0 \\\f\n1\n# note \\\f\nv 0 0 1\n") == "v 0 0 1\n\n# note \nv 0 0 1\n");
  // PNG bytes named .obj.
  CHECK_THAT(precheckObj(std::vector<std::uint8_t>{0x89, 'P', 'N', 'G', 0, 0}, nullptr), Catch::Contains("binary data"));
  std::vector<std::uint8_t> binary_fbx = bytesOf("Kaydara FBX Binary  ");
  binary_fbx.push_back(0);
  binary_fbx.resize(40, 0);
  CHECK(precheckFbx(binary_fbx).empty());
  CHECK(precheckFbx(bytesOf("; FBX 7.5.0 project file\nFBXHeaderExtension:  {\n")).empty());
  CHECK_THAT(precheckFbx(std::vector<std::uint8_t>{1, 0, 2, 0}), Catch::Contains("neither binary FBX"));
}
