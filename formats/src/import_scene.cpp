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

#include <assimp/DefaultIOSystem.h>
#include <assimp/DefaultLogger.hpp>
#include <assimp/Importer.hpp>
#include <assimp/LogStream.hpp>
#include <assimp/MemoryIOWrapper.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <limits>
#include <map>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

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

// Each number in the shortest form that reads back as it, as a float when it is one (the file's
// own coordinates: 1000000.1, not 1000000.125; %g's six digits made it "1e+06", beyond the bound
// of 1e6 in the error saying so), else as a double (after transforms).
std::string formatCoordinate(const sim::Vec3& p) {
  // A float32 value as it is; a scaled one to 9 significant digits, float32's own (a Cube map at
  // --scale 0.05 printed 1000003.2000000001), unless that rounds it onto the bound it lies beyond.
  auto shortest = [](double v) {
    const auto f = static_cast<float>(v);
    if (static_cast<double>(f) == v) return fmt::format("{}", f);
    std::string text = fmt::format("{:.9g}", v);
    const bool beyond = std::fabs(v) > sim::TriangleMesh::kWorldBound;
    if (beyond && !(std::fabs(std::strtod(text.c_str(), nullptr)) > sim::TriangleMesh::kWorldBound)) text = fmt::format("{}", v);
    return text;
  };
  return "(" + shortest(p.x) + ", " + shortest(p.y) + ", " + shortest(p.z) + ")";
}

// The OBJ text given to Assimp (objForAssimp) writes a space inside an object name as
// kObjSpaceMark and makes a repeated name unique as "<name>\x1f<n>"; names read back undo both.
constexpr char kObjSpaceMark = '\x1e';
constexpr char kObjRepeatMark = '\x1f';

// A blank inside a line of the OBJ or STL text (the line break aside).
bool blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

// `name` with each blank written as kObjSpaceMark (Assimp takes a name's first word only).
void appendMarked(std::string& out, std::string_view name) {
  for (const char c : name) out += blank(c) ? kObjSpaceMark : c;
}

std::string nodeName(const aiString& name, bool marked) {
  std::string text(name.C_Str(), name.length);
  if (!marked) return text;
  if (const std::size_t mark = text.find(kObjRepeatMark); mark != std::string::npos) text.resize(mark);
  std::replace(text.begin(), text.end(), kObjSpaceMark, ' ');
  return text;
}

std::string sanitizeName(const aiString& name, bool marked, const char* fallback, std::size_t index) {
  std::string text = nodeName(name, marked);
  if (text.empty()) return std::string(fallback) + std::to_string(index);
  for (char& c : text)
    if (c == '/' || c == '\n' || c == '\r' || c == '\0') c = '_';
  return text;
}

// Polygons of five corners and more are cut into triangles here, by ear clipping, before
// Assimp's triangulation (which then handles quads, as it always has): Assimp 5.2.5 clips an ear
// across a reflex corner lying exactly on the ear's far edge, so an L-shaped hexagon of 3 m2 came
// out as 4 m2, one triangle covering the notch and one facing down. The ears here must hold no
// other corner inside them or on their edges (a corner at the same position as one of the ear's
// own, as where a polygon touches itself, does not count, but then the ear's diagonal must run
// inside the polygon). Corners are projected on the plane
// across the largest axis of the polygon's normal (Newell's method); an ear keeps the polygon's
// corner order, so its triangles face as the polygon does. A polygon no ear can be cut from (it
// crosses itself) is fanned from its first corner, as Assimp would.
constexpr unsigned kMaxEarClippedCorners = 1024;  // larger polygons are left to Assimp (ear clipping is O(n^3) at worst)

void clipEars(const aiMesh& mesh, const aiFace& face, std::vector<std::array<unsigned, 3>>& out) {
  const unsigned n = face.mNumIndices;
  std::vector<aiVector3D> p(n);
  for (unsigned i = 0; i < n; ++i) p[i] = mesh.mVertices[face.mIndices[i]];
  double nx = 0, ny = 0, nz = 0;
  for (unsigned i = 0; i < n; ++i) {
    const aiVector3D& a = p[i];
    const aiVector3D& b = p[(i + 1) % n];
    nx += (double(a.y) - b.y) * (double(a.z) + b.z);
    ny += (double(a.z) - b.z) * (double(a.x) + b.x);
    nz += (double(a.x) - b.x) * (double(a.y) + b.y);
  }
  // 2-D coordinates on the plane across the dominant axis, oriented so the polygon turns
  // counter-clockwise (positive area).
  const double ax = std::fabs(nx), ay = std::fabs(ny), az = std::fabs(nz);
  std::vector<double> u(n), v(n);
  double extent = 0;
  for (unsigned i = 0; i < n; ++i) {
    if (ax >= ay && ax >= az) u[i] = p[i].y, v[i] = nx >= 0 ? p[i].z : -double(p[i].z);
    else if (ay >= az) u[i] = p[i].z, v[i] = ny >= 0 ? p[i].x : -double(p[i].x);
    else u[i] = p[i].x, v[i] = nz >= 0 ? p[i].y : -double(p[i].y);
    extent = std::max({extent, std::fabs(u[i]), std::fabs(v[i])});
  }
  auto fan = [&](const std::vector<unsigned>& ring) {
    for (std::size_t k = 1; k + 1 < ring.size(); ++k) out.push_back({ring[0], ring[k], ring[k + 1]});
  };
  if (!(ax + ay + az > 0)) {  // no area: every triangle is degenerate and dropped later
    std::vector<unsigned> ring(n);
    for (unsigned i = 0; i < n; ++i) ring[i] = i;
    fan(ring);
    return;
  }
  // Twice the signed area of (a, b, c); a tolerance relative to the coordinates' size.
  auto cross = [&](unsigned a, unsigned b, unsigned c) {
    return (u[b] - u[a]) * (v[c] - v[a]) - (v[b] - v[a]) * (u[c] - u[a]);
  };
  const double tolerance = 1e-12 * std::max(1.0, extent * extent);
  auto samePoint = [&](unsigned a, unsigned b) { return u[a] == u[b] && v[a] == v[b]; };
  std::vector<unsigned> ring(n);
  for (unsigned i = 0; i < n; ++i) ring[i] = i;
  // A polygon that touches itself (a pinch, a hole joined by a bridge of no width) has corners at
  // the same position; an ear may then not cut across the outside between its lobes, or across
  // the hole: its diagonal's middle must lie inside what is left (a crossing count).
  bool touches = false;
  {
    std::vector<unsigned> order(ring);
    std::sort(order.begin(), order.end(), [&](unsigned a, unsigned b) { return u[a] != u[b] ? u[a] < u[b] : v[a] < v[b]; });
    for (std::size_t k = 1; k < order.size() && !touches; ++k) touches = samePoint(order[k - 1], order[k]);
  }
  auto insideRing = [&](double x, double y) {
    bool inside = false;
    for (std::size_t j = 0, m = ring.size(); j < m; ++j) {
      const unsigned p0 = ring[j], p1 = ring[(j + 1) % m];
      if ((v[p0] > y) != (v[p1] > y) && x < u[p0] + (y - v[p0]) * (u[p1] - u[p0]) / (v[p1] - v[p0])) inside = !inside;
    }
    return inside;
  };
  while (ring.size() > 3) {
    const std::size_t m = ring.size();
    std::size_t cut = m;
    for (std::size_t k = 0; k < m && cut == m; ++k) {
      const unsigned a = ring[(k + m - 1) % m], b = ring[k], c = ring[(k + 1) % m];
      if (cross(a, b, c) <= tolerance) continue;  // reflex or straight: no ear
      bool empty = true;
      for (std::size_t j = 0; j < m && empty; ++j) {
        const unsigned q = ring[j];
        if (q == a || q == b || q == c || samePoint(q, a) || samePoint(q, b) || samePoint(q, c)) continue;
        empty = !(cross(a, b, q) >= -tolerance && cross(b, c, q) >= -tolerance && cross(c, a, q) >= -tolerance);
      }
      if (empty && touches && !insideRing(0.5 * (u[a] + u[c]), 0.5 * (v[a] + v[c]))) empty = false;
      if (empty) cut = k;
    }
    if (cut == m) {
      // No ear: a straight corner is cut as a degenerate triangle (dropped later) so the rest
      // can go on; failing that the polygon crosses itself, and the rest is fanned.
      for (std::size_t k = 0; k < m && cut == m; ++k)
        if (std::fabs(cross(ring[(k + m - 1) % m], ring[k], ring[(k + 1) % m])) <= tolerance) cut = k;
      if (cut == m) {
        fan(ring);
        return;
      }
    }
    out.push_back({ring[(cut + m - 1) % m], ring[cut], ring[(cut + 1) % m]});
    ring.erase(ring.begin() + static_cast<std::ptrdiff_t>(cut));
  }
  out.push_back({ring[0], ring[1], ring[2]});
}

// Replaces every face of 5 to kMaxEarClippedCorners corners by the triangles of clipEars.
void triangulateLargePolygons(aiScene& scene) {
  std::vector<std::array<unsigned, 3>> triangles;
  for (unsigned m = 0; m < scene.mNumMeshes; ++m) {
    aiMesh* mesh = scene.mMeshes[m];
    if (mesh == nullptr || mesh->mFaces == nullptr || mesh->mVertices == nullptr) continue;
    std::size_t count = 0;
    bool any = false;
    for (unsigned f = 0; f < mesh->mNumFaces; ++f) {
      const unsigned k = mesh->mFaces[f].mNumIndices;
      const bool clip = k >= 5 && k <= kMaxEarClippedCorners && mesh->mFaces[f].mIndices != nullptr;
      any = any || clip;
      count += clip ? k - 2 : 1;
    }
    if (!any || count > std::numeric_limits<unsigned>::max()) continue;
    auto* faces = new aiFace[count];
    std::size_t next = 0;
    bool polygons_left = false;
    for (unsigned f = 0; f < mesh->mNumFaces; ++f) {
      aiFace& face = mesh->mFaces[f];
      const unsigned k = face.mNumIndices;
      if (k >= 5 && k <= kMaxEarClippedCorners && face.mIndices != nullptr) {
        triangles.clear();
        clipEars(*mesh, face, triangles);
        for (const auto& t : triangles) {
          aiFace& out = faces[next++];
          out.mNumIndices = 3;
          out.mIndices = new unsigned[3]{face.mIndices[t[0]], face.mIndices[t[1]], face.mIndices[t[2]]};
        }
      } else {
        aiFace& out = faces[next++];
        out.mNumIndices = face.mNumIndices;
        out.mIndices = face.mIndices;  // moved: the old face gives it up below
        face.mIndices = nullptr;
        face.mNumIndices = 0;
        polygons_left = polygons_left || k > 3;
      }
    }
    delete[] mesh->mFaces;
    mesh->mFaces = faces;
    mesh->mNumFaces = static_cast<unsigned>(next);
    mesh->mPrimitiveTypes |= aiPrimitiveType_TRIANGLE;
    if (!polygons_left) mesh->mPrimitiveTypes &= ~static_cast<unsigned>(aiPrimitiveType_POLYGON);
  }
}

// Importers invent a root node when the file has none (OBJ names it after the file, FBX
// "RootNode", glTF "ROOT" when the scene has several roots, STL "<STL_BINARY>", PLY nothing).
// Such a root stands for the file itself, whose stem already starts every tag, so it adds no
// path element; a real root node (a glTF scene with one root) keeps its name, whatever it is.
bool isSynthesizedRoot(const aiString& name, const std::filesystem::path& path) {
  const std::string text(name.C_Str(), name.length);
  return text.empty() || text == "RootNode" || text == "ROOT" || (text.front() == '<' && text.back() == '>') ||
         text == path.filename().string();
}

// Two fixes to the OBJ text Assimp 5.2.5 reads, so that each "o NAME" line starts a node named
// NAME, as "g NAME" does:
//  * on an "o" line naming an object seen before, Assimp makes that object current again but
//    keeps adding faces to the mesh of the object before it, so the faces took that object's
//    tag: the second and later lines of a name become "o NAME\x1f2", "\x1f3", ...;
//  * Assimp takes only the first word of an "o" line ("o Main Hall" named the node "Main"; a
//    "g" line keeps them all): spaces and tabs inside the name become kObjSpaceMark.
// The name is the rest of the line, without the whitespace around it. Empty when nothing
// changes (the bytes are read as they are).
constexpr const char* kObjDefaultMaterial = "DefaultMaterial";  // Assimp's name for a face without a material

std::string objForAssimp(std::span<const std::uint8_t> bytes, const std::filesystem::path& directory) {
  // Statements continued over backslashes first become one line each (joinObjContinuations),
  // so that the rules below apply to them too.
  const std::string_view raw(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  const std::string joined = joinObjContinuations(raw);
  const std::string_view text = joined.empty() ? raw : std::string_view(joined);
  std::map<std::string, int, std::less<>> seen;
  std::string out;
  std::string hoisted;     // the library lines moved to the start
  std::size_t copied = 0;  // text before this offset is in `out`
  // Faces before any "usemtl" of a file with material libraries: Assimp 5.2.5 gave them the
  // last material the libraries define (an audit: a floor labelled 'NeverUsed', a material no
  // face uses, became lava); they are given "usemtl DefaultMaterial", the label documented.
  // A library named after the first face or "usemtl": Assimp 5.2.5 loads it only there, so the
  // materials named before it were "not defined" and the faces took the library's last one. A
  // library serves the whole file: such lines are moved to its start (one line per library).
  // (Statements as Assimp 5.2.5 reads them: a line starting with 'f' is a face, "usemtl" names a
  // material only with a name after it, "mtllib" a library only as its own word.)
  const auto usemtlName = [](std::string_view line) {
    return line.size() > 7 && line.rfind("usemtl", 0) == 0 && blank(line[6]) &&
           line.find_first_not_of(" \t\r\f\v", 6) != std::string_view::npos;
  };
  bool has_library = false, late_library = false, used = false;
  for (std::size_t begin = 0; begin < text.size();) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    std::size_t first = begin;
    while (first < end && blank(text[first])) ++first;
    const std::string_view line = text.substr(first, end - first);
    if ((!line.empty() && line[0] == 'f') || usemtlName(line)) used = true;
    if (line.size() > 7 && line.rfind("mtllib", 0) == 0 && blank(line[6])) {
      has_library = true;
      late_library = late_library || used;
    }
    begin = end + 1;
  }
  bool material_named = !has_library;
  for (std::size_t begin = 0; begin < text.size();) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    // An indented statement: Assimp 5.2.5 skips a line that starts with a blank (" v 4 3 0" was
    // lost in silence, shifting every later vertex index), so it is given without its indent.
    if (begin < end && blank(text[begin])) {
      std::size_t first = begin;
      while (first < end && blank(text[first])) ++first;
      if (first < end && text[first] != '\r') {
        out.append(text.substr(copied, begin - copied));
        copied = begin = first;
      }
    }
    if (!material_named && end > begin) {
      if (usemtlName(text.substr(begin, end - begin))) {
        material_named = true;
      } else if (text[begin] == 'f') {
        out.append(text.substr(copied, begin - copied));
        out.append("usemtl ").append(kObjDefaultMaterial).append("\n");
        copied = begin;
        material_named = true;
      }
    }
    // The line's first '#' (its comment), else `end`: searched in the line only (searched to the
    // end of the file, a file of lines without comments took quadratic time: pandora.obj's 3 MB
    // 13 s instead of 0.4; a docs audit).
    const std::size_t hash = std::min(text.substr(begin, end - begin).find('#'), end - begin) + begin;
    if (end > begin + 1 && text[begin] == 'o' && (text[begin + 1] == ' ' || text[begin + 1] == '\t')) {
      std::size_t first = begin + 1, last = end;
      while (first < last && blank(text[first])) ++first;
      while (last > first && blank(text[last - 1])) --last;
      const std::string_view name = text.substr(first, last - first);
      if (!name.empty() && name.find('\0') == std::string_view::npos) {
        auto it = seen.find(name);
        if (it == seen.end()) it = seen.emplace(std::string(name), 0).first;
        const bool repeated = ++it->second > 1;
        if (repeated || name.find_first_of(" \t\f\v\r") != std::string_view::npos) {
          out.append(text.substr(copied, first - copied));
          appendMarked(out, name);
          if (repeated) out += kObjRepeatMark + std::to_string(it->second);
          copied = last;
        }
      }
    }
    // A "g NAME" line's name keeps the whitespace after it in Assimp 5.2.5 ("g Hall " tagged its
    // faces "Hall ", a tag no glob for "Hall" matches, and "g Hall" twice with and without the
    // space made two tags; a hunt): the line is given as "g" and the name alone.
    if (end > begin + 1 && text[begin] == 'g' && blank(text[begin + 1])) {
      std::size_t first = begin + 1, last = end;
      while (first < last && blank(text[first])) ++first;
      while (last > first && blank(text[last - 1])) --last;
      const std::string_view name = text.substr(first, last - first);
      if (!name.empty() && (first != begin + 2 || last != end)) {
        out.append(text.substr(copied, begin - copied));
        out.append("g ").append(name);
        copied = end;  // the line's newline follows
      }
    }
    // "mtllib a.mtl b.mtl" names two libraries (objMaterialLibraries): Assimp 5.2.5 took the rest
    // of the line for one file name and loaded neither; it is given one line per library (at
    // the file's start when one comes late, above).
    if (end > begin + 7 && text.compare(begin, 6, "mtllib") == 0 && blank(text[begin + 6])) {
      std::size_t first = begin + 6, last = end;
      while (first < last && blank(text[first])) ++first;
      while (last > first && blank(text[last - 1])) --last;
      if (const auto libraries = objMaterialLibraries(directory, text.substr(first, last - first));
          libraries.size() > 1 || late_library) {
        out.append(text.substr(copied, begin - copied));
        std::string lines;
        for (std::size_t i = 0; i < libraries.size(); ++i) lines.append(i == 0 ? "mtllib " : "\nmtllib ").append(libraries[i]);
        if (late_library) hoisted.append(lines).append("\n");
        else out.append(lines);
        copied = end;
      }
    }
    // A vertex of 4, 5 or 7+ numbers: x y z and a weight w (for curves; Assimp 5.2.5 divided the
    // position by it, and a w of 0 failed the file) or colour components; Assimp reads only 3 or 6
    // (x y z r g b) and dropped any other vertex, shifting every index after it (wrong triangles,
    // exit 0). Such a line is given as its first three numbers.
    if (end > begin + 1 && text[begin] == 'v' && blank(text[begin + 1])) {
      std::size_t stop = hash;
      while (stop > begin && blank(text[stop - 1])) --stop;
      std::vector<std::string_view> numbers;
      for (std::size_t at = begin + 1; at < stop;) {
        while (at < stop && blank(text[at])) ++at;
        std::size_t token = at;
        while (at < stop && !blank(text[at])) ++at;
        if (at > token) numbers.push_back(text.substr(token, at - token));
      }
      if (numbers.size() >= 4 && numbers.size() != 6) {
        out.append(text.substr(copied, begin - copied));
        out += "v ";
        out.append(numbers[0]).append(" ").append(numbers[1]).append(" ").append(numbers[2]);
        copied = end;
      } else if (stop < end && hash < end) {
        out.append(text.substr(copied, stop - copied));  // the vertex without its comment
        copied = end;
      }
    }
    // A comment after the numbers of a face, line, point or texture/normal vertex: Assimp 5.2.5
    // read "f 1 3 2 # x" as a bad face index (the file failed) and a number in a comment after a
    // vertex as one of its components. The statement is given without it.
    if (end > begin + 1) {
      std::size_t word = begin;
      while (word < end && !blank(text[word])) ++word;
      const std::string_view keyword = text.substr(begin, word - begin);
      if (hash < end && (keyword == "f" || keyword == "l" || keyword == "p" || keyword == "vt" || keyword == "vn")) {
        std::size_t stop = hash;
        while (stop > begin && blank(text[stop - 1])) --stop;
        out.append(text.substr(copied, stop - copied));
        copied = end;
      }
    }
    begin = end + 1;
  }
  if (copied == 0) return joined;
  out.append(text.substr(copied));
  return hoisted + out;
}

// The ASCII STL text given to Assimp: a space inside a solid's name as kObjSpaceMark (Assimp
// 5.2.5 names a solid by the first word after "solid", so "solid Part A" and "solid Part B" were
// one tag "Part"). Empty when nothing needs changing, or when the file is binary STL (84 bytes of
// header and count, then 50 bytes per triangle).
std::string stlForAssimp(std::span<const std::uint8_t> bytes) {
  if (isBinaryStl(bytes)) return {};
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  std::string out;
  std::size_t copied = 0;  // text before this offset is in `out`
  for (std::size_t begin = 0; begin < text.size();) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    std::size_t first = begin;
    while (first < end && blank(text[first])) ++first;
    if (text.substr(first, 5) == "solid" && first + 5 < end && blank(text[first + 5])) {
      first += 5;
      std::size_t last = end;
      while (first < last && blank(text[first])) ++first;
      while (last > first && blank(text[last - 1])) --last;
      const std::string_view name = text.substr(first, last - first);
      if (name.find_first_of(" \t\f\v\r") != std::string_view::npos) {
        out.append(text.substr(copied, first - copied));
        appendMarked(out, name);
        copied = last;
      }
    }
    begin = end + 1;
  }
  if (copied == 0) return {};
  out.append(text.substr(copied));
  return out;
}

// The binary PLY given to Assimp: when the body's first byte is a line feed (0x0A; one file in
// 256 whose first value's low byte it is) after an 'end_header' line ended by LF alone, that line
// ends in CR LF instead. Assimp 5.2.5 took the body's 0x0A for part of the header's line end,
// read every value a byte late and aborted (an audit); after CR LF it reads the body from its
// first byte. Empty when nothing needs changing (ASCII PLY, any other first byte).
std::string plyForAssimp(std::span<const std::uint8_t> bytes) {
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  bool binary = false;
  for (std::size_t start = 0; start < text.size() && start < (std::size_t(1) << 20);) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) return {};
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    // Words as the header's reader splits them (spaces or tabs before and between: a review).
    const std::vector<std::string_view> words = splitWords(line);
    if (words.size() >= 2 && words[0] == "format" && words[1].rfind("binary_", 0) == 0) binary = true;
    if (words.empty() || words[0] != "end_header") continue;
    if (!binary || start >= text.size() || text[start] != '\n' || (!line.empty() && line.back() == '\r')) return {};
    std::string out;
    out.reserve(text.size() + 1);
    out.append(text.substr(0, end)).append("\r").append(text.substr(end));
    return out;
  }
  return {};
}

// Serves the file itself from memory, under its own path, whatever its format (the bytes already
// hashed and checked; for OBJ, ASCII STL and binary PLY their copy fixed for Assimp,
// objForAssimp, stlForAssimp and plyForAssimp), and every other
// file (.mtl, glTF buffers) from disk.
// A glTF buffer's URI may hold %XX escapes, which Assimp 5.2.5 does not decode ("my%20buf.bin"
// was not found beside the file): a file that does not exist under the name asked for is
// looked for under that name decoded, past the directory of the file itself.
class CheckedFileIO : public Assimp::DefaultIOSystem {
 public:
  CheckedFileIO(std::string path, std::span<const std::uint8_t> bytes, MeshFormat format)
      : path_(std::move(path)),
        rewritten_(format == MeshFormat::Obj   ? objForAssimp(bytes, std::filesystem::path(path_).parent_path())
                   : format == MeshFormat::Stl ? stlForAssimp(bytes)
                   : format == MeshFormat::Ply ? plyForAssimp(bytes)
                                               : std::string()),
        bytes_(bytes) {
    if (!rewritten_.empty()) bytes_ = {reinterpret_cast<const std::uint8_t*>(rewritten_.data()), rewritten_.size()};
    const std::size_t slash = path_.find_last_of('/');
    directory_ = slash == std::string::npos ? std::string() : path_.substr(0, slash + 1);
  }
  bool Exists(const char* file) const override {
    return path_ == file || Assimp::DefaultIOSystem::Exists(file) || Assimp::DefaultIOSystem::Exists(decoded(file).c_str());
  }
  Assimp::IOStream* Open(const char* file, const char* mode) override {
    if (path_ == file) return new Assimp::MemoryIOStream(bytes_.data(), bytes_.size(), false);
    if (!Assimp::DefaultIOSystem::Exists(file)) return Assimp::DefaultIOSystem::Open(decoded(file).c_str(), mode);
    return Assimp::DefaultIOSystem::Open(file, mode);
  }

 private:
  std::string decoded(const std::string& file) const {
    if (file.compare(0, directory_.size(), directory_) != 0) return percentDecode(file);
    return directory_ + percentDecode(std::string_view(file).substr(directory_.size()));
  }
  std::string path_, rewritten_, directory_;
  std::span<const std::uint8_t> bytes_;
};

// Per vertex of `mesh`: the first vertex at exactly its position (-0 and +0 alike), itself when
// it is the first.
void joinIdenticalPositions(const aiMesh& mesh, std::vector<std::uint32_t>& same) {
  const unsigned count = mesh.mNumVertices;
  auto bits = [](float f) {
    if (f == 0.0f) f = 0.0f;
    std::uint32_t b;
    std::memcpy(&b, &f, sizeof b);
    return b;
  };
  using Key = std::array<std::uint32_t, 4>;  // x, y, z bits and the vertex
  std::vector<Key> keys(count);
  for (std::uint32_t v = 0; v < count; ++v)
    keys[v] = {bits(mesh.mVertices[v].x), bits(mesh.mVertices[v].y), bits(mesh.mVertices[v].z), v};
  std::sort(keys.begin(), keys.end());
  same.resize(count);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const bool repeat = i > 0 && keys[i][0] == keys[i - 1][0] && keys[i][1] == keys[i - 1][1] && keys[i][2] == keys[i - 1][2];
    same[keys[i][3]] = repeat ? same[keys[i - 1][3]] : keys[i][3];
  }
}

// Assimp's FBX importer splits a node with pivots, pre- or post-rotations or geometric offsets
// into a chain of helper nodes named "<node>_$AssimpFbx$_<Kind>" above the node itself. They
// carry transforms only; the node keeps its own name, so they add no tag element.
bool isFbxHelperNode(const aiString& name) {
  return std::string_view(name.C_Str(), name.length).find("_$AssimpFbx$_") != std::string_view::npos;
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
  // Names Assimp reads from text Strata rewrote (objForAssimp, stlForAssimp) carry marks.
  const bool marked = format == MeshFormat::Obj || format == MeshFormat::Stl;
  Assimp::Importer importer;
  importer.SetPropertyBool(AI_CONFIG_IMPORT_NO_SKELETON_MESHES, true);
  importer.SetPropertyBool(AI_CONFIG_IMPORT_FBX_READ_ANIMATIONS, false);
  importer.SetPropertyBool(AI_CONFIG_IMPORT_FBX_READ_CAMERAS, false);
  importer.SetPropertyBool(AI_CONFIG_IMPORT_FBX_READ_LIGHTS, false);
  // No JoinIdenticalVertices: Assimp's step merges vertices closer than 1e-5 file units, so a
  // mesh modelled in kilometres lost its centimetres and a small part became "degenerate"
  // triangles before --scale. Vertices at exactly the same position within a mesh are joined
  // below instead, as they are read.
  // Triangulation comes after the read: large polygons first (triangulateLargePolygons), then
  // Assimp's step for quads.
  constexpr unsigned kFlags = aiProcess_ValidateDataStructure;
  // The first vertex of a polygon (a face of 3 or more corners: the faces that become triangles;
  // points and lines are dropped, so a NaN only they use is no error) with a NaN or infinite
  // coordinate.
  std::string non_finite;
  auto findNonFinite = [&](const aiScene& read) {
    for (unsigned m = 0; m < read.mNumMeshes && non_finite.empty(); ++m) {
      const aiMesh* mesh = read.mMeshes[m];
      if (mesh == nullptr || mesh->mVertices == nullptr || mesh->mFaces == nullptr) continue;
      for (unsigned f = 0; f < mesh->mNumFaces && non_finite.empty(); ++f)
        for (unsigned k = 0; mesh->mFaces[f].mNumIndices >= 3 && k < mesh->mFaces[f].mNumIndices && mesh->mFaces[f].mIndices != nullptr; ++k) {
          const unsigned v = mesh->mFaces[f].mIndices[k];
          if (v >= mesh->mNumVertices) continue;  // reported below
          const aiVector3D& p = mesh->mVertices[v];
          if (std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z)) continue;
          non_finite = display_name + ": mesh " + std::to_string(m) +
                       (mesh->mName.length > 0 ? " ('" + nodeName(mesh->mName, marked) + "')" : "") + ", vertex " +
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
      if (!bytes.empty())
        importer.SetIOHandler(new CheckedFileIO(path.string(), bytes, format));  // owned by the importer
      scene = importer.ReadFile(path.string(), kFlags);
      if (scene != nullptr) findNonFinite(*scene);
      if (scene != nullptr) {
        triangulateLargePolygons(*const_cast<aiScene*>(scene));  // the importer's own scene, not yet post-processed
        scene = importer.ApplyPostProcessing(aiProcess_Triangulate);
      }
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
    return Error::badInput(display_name + ": the importer rejected the file: " + message);
  }
  bool dropped_corners = false;
  std::vector<std::string> fbx_unread;  // the FBX reader's errors: objects left out
  bool fbx_error_before = false;        // the line before was one of them
  for (const std::string& line : log_lines) {
    // A glTF primitive whose vertex or index count is not a multiple of 3 (invalid in glTF):
    // Assimp drops the last one or two and says so only in its log.
    if (!dropped_corners && line.find("not compatible with the TRIANGLES mode") != std::string::npos) {
      dropped_corners = true;
      out.warnings.push_back("a triangle primitive's vertex or index count is not a multiple of 3; "
                             "the importer dropped the last one or two");
    }
    if (line.find("out-of-range indices") != std::string::npos)
      return Error::badInput(display_name + ": some faces have out-of-range vertex indices");
    // Assimp's FBX reader logs an object it cannot build (a geometry with an index out of range,
    // a vertex array not a multiple of 3, a blend shape without normals) as an error, leaves it
    // out and imports the rest. A scene node (Model) that lost an object of its own, its
    // geometry or material, is a level short of a wall or floor (an audit: exit 0), so that
    // fails the file, quoting the reader's error, which names the line; another object (a blend
    // shape, which the import drops anyway) is a warning (the re-audit).
    // (The reader builds an object when a Model first asks for it, so the failure's error comes
    // right before the Model's "failed to read source object" warning; that warning alone is an
    // object the reader skips on purpose, a NURBS curve of a rig: the re-audit.)
    if (format == MeshFormat::Fbx) {
      std::string what;
      for (const char* source : {"FBX-DOM", "FBX-Parser"})
        if (const auto at = line.find(source); at != std::string::npos && what.empty()) what = line.substr(at);
      while (!what.empty() && (what.back() == '\n' || what.back() == '\r')) what.pop_back();
      const bool error = line.rfind("Error", 0) == 0 && !what.empty();
      if (error) {
        fbx_unread.push_back(what.substr(0, 200));
      } else if (fbx_error_before && line.find("failed to read source object for incoming Model link") != std::string::npos) {
        return Error::badInput(display_name + ": the importer could not read an object of a scene node and would leave it out: " +
                               fbx_unread.back());
      }
      fbx_error_before = error;
    }
    const std::string kMissingMaterial = "failed to locate material ";
    if (const auto at = line.find(kMissingMaterial); at != std::string::npos) {
      std::string name = line.substr(at + kMissingMaterial.size());
      name = name.substr(0, name.find(','));
      if (format != MeshFormat::Obj || name != kObjDefaultMaterial)  // objForAssimp's own, or the label anyway
        out.warnings.push_back("material '" + name + "' is not defined in any material library");
    }
  }
  for (std::size_t i = 0; i < fbx_unread.size() && i < 3; ++i)
    out.warnings.push_back("the importer could not read an object and left it out (no scene node's geometry or material): " +
                           fbx_unread[i]);
  if ((scene->mFlags & AI_SCENE_FLAGS_INCOMPLETE) != 0 || scene->mRootNode == nullptr)
    return Error::badInput(display_name + ": the file holds no complete scene (no meshes)");

  double unit_scale = 1.0;
  if (format == MeshFormat::Fbx) {
    auto fbx_unit = fbxUnitScale(*scene, display_name);
    if (!fbx_unit) return fbx_unit.error();
    unit_scale = *fbx_unit / 100.0;
    // The file's axis system: Assimp 5.2.5 applies none of it, and Strata reads Y up (--up y)
    // or Z up (--up z) as told, so a file that says another axis is up is named in a warning
    // (a Z-up export imported as Y-up lies on its side and bakes no floors where they should be).
    int32_t up_axis = 1, up_sign = 1;
    if (scene->mMetaData != nullptr) {
      scene->mMetaData->Get("UpAxis", up_axis);
      scene->mMetaData->Get("UpAxisSign", up_sign);
    }
    const int32_t told = options.up == UpAxis::Z ? 2 : 1;
    if (up_axis != told || up_sign < 0) {
      static const char* const kAxis[] = {"X", "Y", "Z"};
      const std::string said = std::string(up_sign < 0 ? "-" : "") + (up_axis >= 0 && up_axis <= 2 ? kAxis[up_axis] : "?");
      out.warnings.push_back("the FBX file says " + said + " is up (UpAxis " + std::to_string(up_axis) +
                             "), but it is read with " + (told == 2 ? "Z up (--up z)" : "Y up (--up y)") +
                             (up_axis == 2 && up_sign > 0 && told == 1 ? ": use --up z if the level lies on its side"
                                                                        : ""));
    }
  }
  // Morph targets: the rest pose of a glTF mesh is its base shape plus each target times its
  // default weight (the instancing node's `weights`, else the mesh's); Strata imports the base
  // shape only, so non-zero weights are named, read from the file's JSON (Assimp keeps only the
  // mesh's: a node's weights of 1 went unnamed, and a node's 0 over a mesh's 1 was warned about).
  // Other formats: the weights Assimp read.
  const bool gltf = format == MeshFormat::Gltf || format == MeshFormat::Glb;
  GltfSceneFacts gltf_facts = gltfSceneFacts(format, bytes);  // one parse of the JSON
  for (std::string& warning : gltf_facts.morph_warnings) out.warnings.push_back(std::move(warning));
  for (unsigned m = 0; m < scene->mNumMeshes && !gltf; ++m) {
    const aiMesh* source = scene->mMeshes[m];
    if (source == nullptr || source->mAnimMeshes == nullptr) continue;
    bool weighted = false;
    for (unsigned k = 0; k < source->mNumAnimMeshes; ++k)
      weighted = weighted || (source->mAnimMeshes[k] != nullptr && source->mAnimMeshes[k]->mWeight != 0.0f);
    if (weighted) {
      out.warnings.push_back("mesh " + std::to_string(m) +
                             " has morph targets with non-zero default weights: its base shape is imported, without them");
      break;
    }
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
  // Assimp names a glTF node without a name after its place in the file's node array, "nodes[5]"
  // (isGltfIndexName): such a node is unnamed (node<K>, as documented); a node the file itself
  // names so keeps its name.
  const std::set<std::string>& named_like_indices = gltf_facts.names_like_indices;
  // Assimp's glTF nodes matched with the file's, by their places in the tree (the scene's roots
  // under a "ROOT" node when there are several, children in the file's order), each checked by
  // its number of children and its name when the file gives one: a skin's joints are node
  // indices, which Assimp turns into names, and a name is not unique (an audit: a floor skinned
  // to the second of two nodes named "Bone" stood on the first, 98 m off, exit 0), nor given
  // ("bone_0" for a joint without one). Empty when the two trees differ anywhere: then by name.
  std::unordered_map<const aiNode*, std::uint32_t> gltf_index;  // Assimp node -> the file's node
  std::vector<const aiNode*> gltf_node;                         // the file's node -> Assimp node
  if (gltf && !gltf_facts.nodes.empty() && !gltf_facts.roots.empty()) {
    gltf_node.assign(gltf_facts.nodes.size(), nullptr);
    std::vector<std::pair<const aiNode*, std::uint32_t>> pairs;
    bool matched = true;
    if (gltf_facts.roots.size() == 1) {
      pairs.emplace_back(scene->mRootNode, gltf_facts.roots[0]);
    } else if (scene->mRootNode->mNumChildren == gltf_facts.roots.size() && scene->mRootNode->mChildren != nullptr) {
      for (unsigned c = 0; c < scene->mRootNode->mNumChildren; ++c) pairs.emplace_back(scene->mRootNode->mChildren[c], gltf_facts.roots[c]);
    } else {
      matched = false;
    }
    while (matched && !pairs.empty()) {
      const auto [node, index] = pairs.back();
      pairs.pop_back();
      if (node == nullptr || index >= gltf_facts.nodes.size() || gltf_node[index] != nullptr ||
          gltf_index.size() >= gltf_facts.nodes.size()) {
        matched = false;
        break;
      }
      const GltfSceneFacts::Node& facts_node = gltf_facts.nodes[index];
      if (node->mNumChildren != facts_node.children.size() || (node->mNumChildren > 0 && node->mChildren == nullptr) ||
          (!facts_node.name.empty() && std::string_view(node->mName.C_Str(), node->mName.length) != facts_node.name)) {
        matched = false;
        break;
      }
      gltf_node[index] = node;
      gltf_index.emplace(node, index);
      for (unsigned c = 0; c < node->mNumChildren; ++c) pairs.emplace_back(node->mChildren[c], facts_node.children[c]);
    }
    if (!matched) gltf_index.clear(), gltf_node.clear();
  }
  // A glTF node the file gives no name (Assimp names it "nodes[N]", which a file may also name a
  // node: an audit found such a node and an unnamed one sharing one tag): by the matched trees,
  // else by that form unless the file names a node so.
  const auto unnamedGltf = [&](const aiNode& node) {
    if (!gltf) return false;
    if (const auto it = gltf_index.find(&node); it != gltf_index.end()) return gltf_facts.nodes[it->second].name.empty();
    const std::string_view name(node.mName.C_Str(), node.mName.length);
    return isGltfIndexName(name) && !named_like_indices.count(std::string(name));
  };
  std::vector<Pending> stack{{scene->mRootNode, root, tag_root, 0}};
  std::size_t visited = 0;
  std::vector<std::uint32_t> remap, same_position;
  std::vector<Affine> skin;  // per vertex of a skinned mesh: its pose (empty: the node's transform)
  // A node's global transform, the root's (--scale, --up) included.
  const auto globalOf = [&](const aiNode* node) {
    Affine chain;
    for (int depth = 0; node != nullptr && depth <= kMaxDepth; node = node->mParent, ++depth)
      chain = Affine::fromAssimp(node->mTransformation) * chain;
    return root * chain;
  };
  const auto skinTransforms = [&](const aiMesh& source, const aiNode& mesh_node, const Affine& node_global,
                                  const std::string& where) -> Result<std::vector<Affine>> {
    std::vector<Affine> posed;
    if (source.mNumBones == 0 || source.mBones == nullptr || source.mNumVertices == 0) return posed;
    Affine zero;
    for (auto& row : zero.m)
      for (double& value : row) value = 0;
    posed.assign(source.mNumVertices, zero);
    std::vector<double> total(source.mNumVertices, 0.0);
    // The skin's joints by node index where the trees matched (Assimp makes bone b of joint b).
    const std::vector<std::uint32_t>* joints = nullptr;
    if (const auto it = gltf_index.find(&mesh_node); it != gltf_index.end()) {
      const std::int64_t skin_index = gltf_facts.nodes[it->second].skin;
      if (skin_index >= 0 && static_cast<std::size_t>(skin_index) < gltf_facts.skin_joints.size() &&
          gltf_facts.skin_joints[static_cast<std::size_t>(skin_index)].size() == source.mNumBones)
        joints = &gltf_facts.skin_joints[static_cast<std::size_t>(skin_index)];
    }
    for (unsigned b = 0; b < source.mNumBones; ++b) {
      const aiBone* bone = source.mBones[b];
      if (bone == nullptr) continue;
      const aiNode* joint = joints != nullptr && (*joints)[b] < gltf_node.size() ? gltf_node[(*joints)[b]] : nullptr;
      if (joint == nullptr) joint = scene->mRootNode->FindNode(bone->mName);
      if (joint == nullptr)
        return Error::badInput(where + ": joint '" + std::string(bone->mName.C_Str(), bone->mName.length) +
                               "' of its skin is no node of the scene");
      const Affine pose = globalOf(joint) * Affine::fromAssimp(bone->mOffsetMatrix);
      for (unsigned k = 0; k < bone->mNumWeights && bone->mWeights != nullptr; ++k) {
        const aiVertexWeight& weight = bone->mWeights[k];
        if (weight.mVertexId >= source.mNumVertices || !(weight.mWeight > 0) || !std::isfinite(weight.mWeight)) continue;
        Affine& target = posed[weight.mVertexId];
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 4; ++c) target.m[r][c] += weight.mWeight * pose.m[r][c];
        total[weight.mVertexId] += weight.mWeight;
      }
    }
    for (unsigned v = 0; v < source.mNumVertices; ++v) {
      if (!(total[v] > 0)) {
        posed[v] = node_global;
        continue;
      }
      for (auto& row : posed[v].m)
        for (double& value : row) value /= total[v];  // weights summing to other than 1
    }
    return posed;
  };
  while (!stack.empty()) {
    Pending item = std::move(stack.back());
    stack.pop_back();
    if (++visited > kMaxNodes || item.depth > kMaxDepth)
      return Error::badInput(display_name + ": the node hierarchy is too deep or cyclic");
    const aiNode& node = *item.node;
    const Affine global = item.parent * Affine::fromAssimp(node.mTransformation);
    // A glTF scene of one root node: Assimp's root is that node, whatever its name ("RootNode"
    // and "ROOT" are names exporters give real nodes: an audit found them dropped from tags).
    const bool adds_nothing = (item.depth == 0 && !(gltf && gltf_facts.roots.size() == 1) && isSynthesizedRoot(node.mName, path)) ||
                              (format == MeshFormat::Fbx && isFbxHelperNode(node.mName));
    const std::string node_path = adds_nothing
                                      ? item.parent_path
                                      : item.parent_path + "/" +
                                            sanitizeName(unnamedGltf(node) ? aiString() : node.mName,
                                                         marked, "node", visited - 1);
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
                                (source.mName.length > 0 ? " ('" + nodeName(source.mName, marked) + "')" : "");
      if (source.mNumVertices > 0 && source.mVertices == nullptr) return Error::badInput(where + ": no vertex data");
      if (source.mNumFaces > 0 && source.mFaces == nullptr) return Error::badInput(where + ": no face data");
      remap.assign(source.mNumVertices, UINT32_MAX);
      joinIdenticalPositions(source, same_position);
      // A skinned mesh stands where its skeleton poses it: each vertex by its joints' global
      // transforms times their inverse bind matrices (Assimp's offset matrices), weighted; the
      // mesh node's own transform is not applied (glTF 2.0: "only the joint transforms are
      // applied to the skinned mesh"; a hunt: a floor skinned to a joint at the origin, on a
      // node moved 5 m up, was imported 5 m up). A vertex no joint weighs keeps the node's.
      if (auto posed = skinTransforms(source, node, global, where); !posed.ok()) return posed.error();
      else skin = std::move(posed.value());
      if (!skin.empty())  // two vertices at one place may have different joints
        for (unsigned v = 0; v < source.mNumVertices; ++v) same_position[v] = v;
      const std::uint32_t label_id = labelFor(source.mMaterialIndex);
      // A world file's strings hold no NUL (docs/format.md): named here, against this file (a
      // hunt: the error came from the world writer, naming the output file).
      if (const std::string& label = mesh.labels[label_id]; label.find('\0') != std::string::npos)
        return Error::badInput(where + ": material " + std::to_string(source.mMaterialIndex) +
                               ": its name contains a NUL byte");
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
          if (remap[v] == UINT32_MAX && same_position[v] != v) remap[v] = remap[same_position[v]];
          if (remap[v] == UINT32_MAX) {
            // Finite here: every face's vertices were checked (findNonFinite). A vertex at the
            // position of an earlier one takes its index (above) once that one is stored; the
            // first of them is stored when a face first uses any of them.
            const aiVector3D& raw = source.mVertices[v];
            const sim::Vec3 p = (skin.empty() ? global : skin[v]).apply(raw.x, raw.y, raw.z);
            // The raw coordinate is finite, so a NaN or infinity here came from the transforms
            // (a node scale of 1e300, say): say so, rather than that it lies beyond the bound.
            if (!sim::isFinite(p))
              return Error::badInput(where + ", vertex " + std::to_string(v) +
                                     ": coordinate is not finite after the node transforms and --scale");
            if (std::fabs(p.x) > sim::TriangleMesh::kWorldBound ||
                std::fabs(p.y) > sim::TriangleMesh::kWorldBound || std::fabs(p.z) > sim::TriangleMesh::kWorldBound)
              return Error::badInput(where + ", vertex " + std::to_string(v) + ": coordinate " + formatCoordinate(p) +
                                     " lies beyond the world bound of 1e6 units (after scaling)");
            remap[v] = remap[same_position[v]] = static_cast<std::uint32_t>(mesh.vertices.size());
            mesh.vertices.push_back({static_cast<float>(p.x), static_cast<float>(p.y), static_cast<float>(p.z)});
          }
          triangle[corner] = remap[v];
        }
        if (skin.empty() ? mirrored : skin[face.mIndices[0]].determinant() < 0) std::swap(triangle[1], triangle[2]);
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
  // An FBX file says its unit (UnitScaleFactor, centimetres per unit), and files written with 1
  // (centimetres) from metre coordinates come out a hundredth of their size: the Recast sample
  // nav_test.fbx is 0.9 m across, and a bake of it silently found 7 floors (an audit). A level
  // smaller than a person read from a file in centimetres is named in a warning.
  if (format == MeshFormat::Fbx && unit_scale < 1.0 && !mesh.vertices.empty()) {
    const sim::Aabb box = mesh.bounds();
    const double across = std::max({box.max.x - box.min.x, box.max.y - box.min.y, box.max.z - box.min.z});
    if (across < 2.0) {
      out.warnings.push_back(fmt::format("the level is only {:.3g} m across: the FBX file gives its unit as {:g} cm "
                                         "(UnitScaleFactor); if its coordinates are metres, import it with --scale {:g}",
                                         across, unit_scale * 100.0, 1.0 / unit_scale));
    }
  }
  return out;
}

}  // namespace strata::formats
