#include "import_framing.h"

#include <cstring>
#include <optional>
#include <string>

namespace strata::formats {
namespace {

constexpr char kMagic[8] = {'S', 'T', 'R', 'I', 'M', 'P', '0', '1'};

class Writer {
 public:
  template <class T>
  void put(const T& value) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(&value);
    bytes.insert(bytes.end(), p, p + sizeof(T));
  }
  void putString(const std::string& text) {
    put(static_cast<std::uint32_t>(text.size()));
    bytes.insert(bytes.end(), text.begin(), text.end());
  }
  void putStrings(const std::vector<std::string>& list) {
    put(static_cast<std::uint32_t>(list.size()));
    for (const std::string& s : list) putString(s);
  }
  std::vector<std::uint8_t> bytes;
};

class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}
  std::size_t remaining() const { return bytes_.size() - offset_; }
  template <class T>
  std::optional<T> get() {
    if (remaining() < sizeof(T)) return std::nullopt;
    T value;
    std::memcpy(&value, bytes_.data() + offset_, sizeof(T));
    offset_ += sizeof(T);
    return value;
  }
  std::optional<std::string> getString() {
    const auto length = get<std::uint32_t>();
    if (!length || *length > remaining()) return std::nullopt;
    std::string text(reinterpret_cast<const char*>(bytes_.data() + offset_), *length);
    offset_ += *length;
    return text;
  }
  std::optional<std::vector<std::string>> getStrings() {
    const auto count = get<std::uint32_t>();
    // Each string needs at least its 4-byte length: bound the count before reserving.
    if (!count || *count > remaining() / 4) return std::nullopt;
    std::vector<std::string> list;
    list.reserve(*count);
    for (std::uint32_t i = 0; i < *count; ++i) {
      auto text = getString();
      if (!text) return std::nullopt;
      list.push_back(std::move(*text));
    }
    return list;
  }
  bool getBytes(void* out, std::size_t size) {
    if (size > remaining()) return false;
    std::memcpy(out, bytes_.data() + offset_, size);
    offset_ += size;
    return true;
  }

 private:
  std::span<const std::uint8_t> bytes_;
  std::size_t offset_ = 0;
};

Error malformed(const std::string& what) {
  return Error::badInput("malformed reply from the importer process: " + what);
}

}  // namespace

std::vector<std::uint8_t> encodeSceneReply(const Result<SceneGeometry>& reply) {
  Writer w;
  w.bytes.insert(w.bytes.end(), kMagic, kMagic + sizeof kMagic);
  if (!reply.ok()) {
    w.put(static_cast<std::uint8_t>(reply.error().kind == ErrorKind::BadInput ? 1 : 2));
    w.putString(reply.error().message);
    return std::move(w.bytes);
  }
  const SceneGeometry& scene = reply.value();
  const sim::TriangleMesh& mesh = scene.mesh;
  w.put(std::uint8_t{0});
  w.put(static_cast<std::uint64_t>(scene.meshes));
  w.put(static_cast<std::uint64_t>(scene.non_triangles_dropped));
  w.putStrings(scene.warnings);
  w.putStrings(mesh.labels);
  w.putStrings(mesh.tags);
  w.put(static_cast<std::uint64_t>(mesh.vertices.size()));
  w.bytes.reserve(w.bytes.size() + mesh.vertices.size() * 12 + 8 + mesh.triangles.size() * 20);
  for (const sim::Vec3f& v : mesh.vertices) {
    w.put(v.x);
    w.put(v.y);
    w.put(v.z);
  }
  w.put(static_cast<std::uint64_t>(mesh.triangles.size()));
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
    for (std::uint32_t index : mesh.triangles[t]) w.put(index);
    w.put(mesh.triangle_labels[t]);
    w.put(mesh.triangle_tags[t]);
  }
  return std::move(w.bytes);
}

Result<SceneGeometry> decodeSceneReply(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    return malformed(bytes.empty() ? "no data" : "bad magic");
  Reader r(bytes.subspan(sizeof kMagic));
  const auto status = r.get<std::uint8_t>();
  if (!status) return malformed("truncated status");
  if (*status == 1 || *status == 2) {
    auto message = r.getString();
    if (!message || r.remaining() != 0) return malformed("truncated error message");
    // A message-less error would print as "FILE: " with nothing after it; say what happened.
    if (message->empty()) *message = "the importer process reported an error without a message";
    return *status == 1 ? Error::badInput(std::move(*message)) : Error::runtime(std::move(*message));
  }
  if (*status != 0) return malformed("unknown status " + std::to_string(*status));

  SceneGeometry scene;
  sim::TriangleMesh& mesh = scene.mesh;
  const auto meshes = r.get<std::uint64_t>();
  const auto non_triangles = r.get<std::uint64_t>();
  if (!meshes || !non_triangles) return malformed("truncated counts");
  scene.meshes = *meshes;
  scene.non_triangles_dropped = *non_triangles;
  auto warnings = r.getStrings();
  auto labels = r.getStrings();
  auto tags = r.getStrings();
  if (!warnings || !labels || !tags) return malformed("truncated string table");
  scene.warnings = std::move(*warnings);
  mesh.labels = std::move(*labels);
  mesh.tags = std::move(*tags);

  const auto vertex_count = r.get<std::uint64_t>();
  if (!vertex_count || *vertex_count > r.remaining() / 12) return malformed("vertex count exceeds the data");
  mesh.vertices.resize(*vertex_count);
  for (sim::Vec3f& v : mesh.vertices) {
    float xyz[3] = {0, 0, 0};  // getBytes leaves it untouched past the end (checked above)
    r.getBytes(xyz, sizeof xyz);
    v = {xyz[0], xyz[1], xyz[2]};
  }
  const auto triangle_count = r.get<std::uint64_t>();
  if (!triangle_count || *triangle_count > r.remaining() / 20) return malformed("triangle count exceeds the data");
  mesh.triangles.resize(*triangle_count);
  mesh.triangle_labels.resize(*triangle_count);
  mesh.triangle_tags.resize(*triangle_count);
  for (std::size_t t = 0; t < *triangle_count; ++t) {
    std::uint32_t record[5];
    r.getBytes(record, sizeof record);
    mesh.triangles[t] = {record[0], record[1], record[2]};
    mesh.triangle_labels[t] = record[3];
    mesh.triangle_tags[t] = record[4];
  }
  if (r.remaining() != 0) return malformed(std::to_string(r.remaining()) + " trailing bytes");
  if (const std::string problem = mesh.validate(); !problem.empty()) return malformed(problem);
  return scene;
}

}  // namespace strata::formats
