// Importing the shared real and Recast meshes: triangle counts and bounds recorded from this
// importer (Assimp 5.2.5, degenerates dropped) and cross-checked against the SOURCE.md tables
// (kept + degenerate = SOURCE.md's triangle count; bounds equal at the table's precision).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <iterator>

#include "strata/formats/import.h"
#include "test_support.h"

using namespace strata::formats;
using strata::sim::Vec3;

namespace {

struct MeshCase {
  const char* path;     // under meshes/
  double scale;         // --scale (Cube units -> metres for the game maps)
  std::size_t source_triangles;  // SOURCE.md "tris" / "triangles"
  std::size_t triangles;         // kept after dropping degenerates (measured)
  std::size_t degenerate;        // dropped (measured)
  Vec3 min, max;                 // bounds in metres (measured; SOURCE.md rounded)
};

// Bounds check with a tolerance relative to the extent (float32 storage).
void checkBounds(const strata::sim::Aabb& bounds, const Vec3& min, const Vec3& max) {
  const double tolerance = 1e-4 * std::max(1.0, strata::sim::length(max - min));
  for (int axis = 0; axis < 3; ++axis) {
    CHECK(std::fabs(bounds.min[axis] - min[axis]) <= tolerance);
    CHECK(std::fabs(bounds.max[axis] - max[axis]) <= tolerance);
  }
}

}  // namespace

TEST_CASE("every shared mesh imports with the recorded counts and bounds", "[formats][import][meshes]") {
  const MeshCase cases[] = {
      {"recast/dungeon.obj", 1, 10133, 10133, 0, {-25.0152168, -0.00270586112, -90.041275}, {49.3051453, 40.1765862, 8.89120007}},
      {"recast/nav_test.obj", 1, 1612, 1612, 0, {-28.8893166, -4.86951685, -46.3001518}, {62.4948082, 17.0107536, 31.0531406}},
      {"recast/undulating.obj", 1, 5202, 5202, 0, {4999.10596, -4.05478001, 4999.55176}, {5098, 6.81377602, 5098.79688}},
      {"real/converted/dungeon.ply", 1, 10133, 10133, 0, {-25.0152168, -0.00270586112, -90.041275}, {49.3051453, 40.1765862, 8.89120007}},
      // UnitScaleFactor=1: centimetres, so 1/100 of nav_test.obj.
      {"real/converted/nav_test.fbx", 1, 1612, 1612, 0, {-0.288893166, -0.0486951685, -0.463001518}, {0.624948082, 0.170107536, 0.310531406}},
      // UnitScaleFactor=100: 1 unit = 1 m, the bounds of nav_test.obj.
      {"real/converted/nav_test_unitscale100.fbx", 1, 1612, 1612, 0, {-28.8893166, -4.86951685, -46.3001518}, {62.4948082, 17.0107536, 31.0531406}},
      {"real/godot-demo-projects/level_mesh.obj", 1, 138, 138, 0, {-3.37891006, 0, -2.70703006}, {6.375, 4.00781012, 5.69141102}},
      {"real/godot-demo-projects/town_model.gltf", 1, 30477, 30341, 136, {-1024, -4.64000082, -1024}, {1024, 17.7563725, 1024}},
      // SOURCE.md counts 870-1134 degenerates by its probe's criterion; ours (height < 1e-10 of length) finds 827.
      {"real/godot-demo-projects/zdm2.glb", 1, 58772, 57945, 827, {-33.8794899, -11.968339, -29.2902775}, {43.3205223, 23.9837856, 30.3097248}},
      // Cube units at 0.05 m per unit (the upstream README's suggestion).
      {"real/game-maps-obj/pandora.obj", 0.05, 60810, 60694, 116, {-36.8, 0, -20.8}, {36.8, 22.4, 20.8}},
      {"real/game-maps-obj/fdm6.obj", 0.05, 9779, 9771, 8, {-12.8, 0, -14.4}, {12.8, 10.4, 14.4}},
      {"real/game-maps-obj/dutility.obj", 0.05, 8115, 8103, 12, {-10.8, 0, -24.8}, {10.8, 6.3375, 24.8}},
  };
  for (const MeshCase& c : cases) {
    INFO(c.path);
    ImportOptions options;
    options.scale = c.scale;
    options.timeout_seconds = 900;  // a loaded machine (pandora took over 60 s at a load of 16)
    auto imported = importMeshes({strata::test::sharedData() / "meshes" / c.path}, options);
    REQUIRE(imported.ok());
    const auto& mesh = imported->mesh;
    CHECK(mesh.validate().empty());
    CHECK(mesh.triangleCount() == c.triangles);
    CHECK(imported->stats.degenerate_dropped == c.degenerate);
    CHECK(imported->stats.triangles == c.triangles);
    CHECK(c.triangles + c.degenerate == c.source_triangles);
    checkBounds(mesh.bounds(), c.min, c.max);
    REQUIRE(imported->inputs.size() == 1);
    CHECK(imported->inputs[0].sha256.size() == 64);
    // None of these levels is inside out or far from the origin (the import's geometry warnings).
    for (const std::string& warning : imported->stats.warnings) {
      INFO(warning);
      CHECK(warning.find("inside out") == std::string::npos);
      CHECK(warning.find("from the origin") == std::string::npos);
    }
  }
}

namespace {
// dungeon.obj rewritten with every vertex moved through `change` ("v x y z" lines only).
std::filesystem::path rewrittenDungeon(const strata::test::TempDir& dir, const char* name,
                                       const std::function<Vec3(Vec3)>& change) {
  std::ifstream in(strata::test::sharedData() / "meshes" / "recast" / "dungeon.obj");
  const auto path = dir / name;
  std::ofstream out(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("v ", 0) == 0) {
      std::istringstream fields(line.substr(2));
      Vec3 v;
      fields >> v.x >> v.y >> v.z;
      v = change(v);
      char text[128];
      std::snprintf(text, sizeof text, "v %.9g %.9g %.9g", v.x, v.y, v.z);
      line = text;
    }
    out << line << '\n';
  }
  return path;
}

bool warnedOf(const ImportedMesh& imported, const std::string& text) {
  for (const std::string& warning : imported.stats.warnings)
    if (warning.find(text) != std::string::npos) return true;
  return false;
}
}  // namespace

TEST_CASE("a mirrored level is warned of as inside out, and one far from the origin as such", "[formats][import][meshes]") {
  // An audit: dungeon mirrored in x baked more nodes than the original, none where the original's
  // were, without a word; moved 100 km it baked 62 more nodes and one more component.
  strata::test::TempDir dir;
  const auto mirrored = rewrittenDungeon(dir, "mirrored.obj", [](Vec3 v) { return Vec3{-v.x, v.y, v.z}; });
  auto m = importMeshes({mirrored}, {});
  REQUIRE(m.ok());
  CHECK(warnedOf(*m, "mirrored.obj: 2 of its 2 closed pieces are inside out"));
  CHECK_FALSE(warnedOf(*m, "from the origin"));
  // Turned about the vertical axis (a rotation, not a mirror): no warning.
  const auto turned = rewrittenDungeon(dir, "turned.obj", [](Vec3 v) { return Vec3{-v.x, v.y, -v.z}; });
  auto t = importMeshes({turned}, {});
  REQUIRE(t.ok());
  CHECK_FALSE(warnedOf(*t, "inside out"));
  // 8,000 m out float32 still keeps steps under a millimetre; 10,000 m out it does not.
  const auto near = rewrittenDungeon(dir, "near.obj", [](Vec3 v) { return Vec3{v.x + 8000, v.y, v.z}; });
  auto n = importMeshes({near}, {});
  REQUIRE(n.ok());
  CHECK_FALSE(warnedOf(*n, "from the origin"));
  const auto far = rewrittenDungeon(dir, "far.obj", [](Vec3 v) { return Vec3{v.x + 10000, v.y, v.z - 10000}; });
  auto f = importMeshes({far}, {});
  REQUIRE(f.ok());
  CHECK(warnedOf(*f, "far.obj: coordinates reach 10090 m from the origin, where float32"));
  CHECK(warnedOf(*f, "keeps steps of 0.98 mm"));
  CHECK_FALSE(warnedOf(*f, "inside out"));
}

TEST_CASE("provenance records size and SHA-256 matching the Recast SOURCE.md", "[formats][import][meshes]") {
  const auto dir = strata::test::sharedData() / "meshes" / "recast";
  auto imported = importMeshes({dir / "dungeon.obj", dir / "nav_test.obj", dir / "undulating.obj"}, {});
  REQUIRE(imported.ok());
  REQUIRE(imported->inputs.size() == 3);
  CHECK(imported->inputs[0].bytes == 390446);
  CHECK(imported->inputs[0].sha256 == "6b157db01f8eaa4b0290d18bd8d6515e969f674213de6f3a3e014f82ae1facc4");
  CHECK(imported->inputs[1].sha256 == "ed27fc1a85ef73faa4d0621d640b67842e9081606e732267c662327c35fabc0f");
  CHECK(imported->inputs[2].bytes == 149833);
  CHECK(imported->inputs[2].sha256 == "3207fee6720faa45f9a677e2a64e1be516318efee94cb0c7ef15a55c288fa2ff");
  CHECK(imported->inputs[0].path == (dir / "dungeon.obj").string());
  // Merged: the triangle counts add up and every file's tags start with its stem.
  CHECK(imported->mesh.triangleCount() == 10133 + 1612 + 5202);
  for (const std::string& tag : imported->mesh.tags)
    CHECK((tag.rfind("dungeon", 0) == 0 || tag.rfind("nav_test", 0) == 0 || tag.rfind("undulating", 0) == 0));
  // nav_test.obj names a material library that is not there: a warning, not a failure.
  bool warned = false;
  for (const std::string& warning : imported->stats.warnings)
    warned = warned || warning.find("material library 'nav_test.mtl' not found") != std::string::npos;
  CHECK(warned);
}

TEST_CASE("FBX UnitScaleFactor 100 gives 100 times the bounds of UnitScaleFactor 1", "[formats][import][meshes][fbx]") {
  const auto dir = strata::test::sharedData() / "meshes" / "real" / "converted";
  auto centimetres = importMeshes({dir / "nav_test.fbx"}, {});
  auto metres = importMeshes({dir / "nav_test_unitscale100.fbx"}, {});
  REQUIRE(centimetres.ok());
  REQUIRE(metres.ok());
  const auto a = centimetres->mesh.bounds(), b = metres->mesh.bounds();
  for (int axis = 0; axis < 3; ++axis) {
    CHECK(b.min[axis] == Approx(100 * a.min[axis]).margin(1e-4));
    CHECK(b.max[axis] == Approx(100 * a.max[axis]).margin(1e-4));
  }
}

TEST_CASE("an FBX in centimetres that makes a level smaller than a person says so in a warning", "[formats][import][meshes][fbx]") {
  // nav_test.fbx gives its unit as 1 cm (UnitScaleFactor 1) for metre coordinates: 0.9 m across,
  // and a bake of it found 7 floors without a word (an audit).
  const auto source = strata::test::sharedData() / "meshes" / "real" / "converted" / "nav_test.fbx";
  auto small = importMeshes({source}, {});
  REQUIRE(small.ok());
  REQUIRE(small->stats.warnings.size() == 1);
  CHECK_THAT(small->stats.warnings[0],
             Catch::Contains("the level is only 0.914 m across: the FBX file gives its unit as 1 cm (UnitScaleFactor); if its "
                             "coordinates are metres, import it with --scale 100"));
  ImportOptions scaled;
  scaled.scale = 100;
  auto metres = importMeshes({source}, scaled);
  REQUIRE(metres.ok());
  CHECK(metres->stats.warnings.empty());
  // The same geometry in a file that says metres: no warning.
  auto told = importMeshes({strata::test::sharedData() / "meshes" / "real" / "converted" / "nav_test_unitscale100.fbx"}, {});
  REQUIRE(told.ok());
  CHECK(told->stats.warnings.empty());
}

TEST_CASE("an FBX whose axis system is not the one read says so in a warning", "[formats][import][meshes][fbx]") {
  // Assimp 5.2.5 applies no FBX axis system: a Z-up export read as Y-up lies on its side. (The
  // file in metres: nav_test.fbx's centimetres make a level 0.9 m across, warned about below.)
  const auto source = strata::test::sharedData() / "meshes" / "real" / "converted" / "nav_test_unitscale100.fbx";
  auto plain = importMeshes({source}, {});
  REQUIRE(plain.ok());
  CHECK(plain->stats.warnings.empty());
  std::ifstream in(source, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string y_up = "\"UpAxis\", \"int\", \"Integer\", \"\", 1";
  const auto at = text.find(y_up);
  REQUIRE(at != std::string::npos);
  text[at + y_up.size() - 1] = '2';
  strata::test::TempDir dir;
  std::ofstream(dir / "zup.fbx", std::ios::binary) << text;
  auto z_up = importMeshes({dir / "zup.fbx"}, {});
  REQUIRE(z_up.ok());
  REQUIRE(z_up->stats.warnings.size() == 1);
  CHECK_THAT(z_up->stats.warnings[0], Catch::Contains("the FBX file says Z is up (UpAxis 2), but it is read with Y up (--up y): use --up z"));
  ImportOptions options;
  options.up = UpAxis::Z;
  auto told = importMeshes({dir / "zup.fbx"}, options);
  REQUIRE(told.ok());
  CHECK(told->stats.warnings.empty());
}

// An ASCII FBX 7.4 file's header and settings (Y up, metres), up to its objects.
const std::string kFbxHeader = R"(; FBX 7.4.0 project file
FBXHeaderExtension:  {
	FBXHeaderVersion: 1003
	FBXVersion: 7400
}
GlobalSettings:  {
	Version: 1000
	Properties70:  {
		P: "UpAxis", "int", "Integer", "", 1
		P: "UpAxisSign", "int", "Integer", "", 1
		P: "UnitScaleFactor", "double", "Number", "", 100
	}
}
Objects:  {
)";

// Geometry 1000, a 1 m floor quad in the x-z plane, named NAME.
std::string fbxFloorGeometry(const std::string& name) {
  return "\tGeometry: 1000, \"Geometry::" + name + R"(", "Mesh" {
		Vertices: *12 {
			a: 0.0,0.0,0.0,0.0,0.0,1.0,1.0,0.0,1.0,1.0,0.0,0.0
		}
		PolygonVertexIndex: *6 {
			a: 0,1,-3,0,2,-4
		}
		GeometryVersion: 124
	}
)";
}

TEST_CASE("FBX helper nodes for pivots and pre-rotations add no tag element", "[formats][import][meshes][fbx]") {
  // An audit: Assimp splits a model with a PreRotation (or pivots, geometric offsets) into
  // "A_$AssimpFbx$_PreRotation" -> "A"; the helper's name reached the tag.
  const std::string fbx = kFbxHeader + fbxFloorGeometry("g0") + R"(	Model: 2000, "Model::A", "Mesh" {
		Version: 232
		Properties70:  {
			P: "PreRotation", "Vector3D", "Vector", "", -90.0, 0.0, 0.0
			P: "RotationPivot", "Vector3D", "Vector", "", 1.0, 0.0, 1.0
		}
		Shading: T
		Culling: "CullingOff"
	}
}
Connections:  {
	C: "OO",1000,2000
	C: "OO",2000,0
}
)";
  strata::test::TempDir dir;
  std::ofstream(dir / "prerot.fbx", std::ios::binary) << fbx;
  auto imported = importMeshes({dir / "prerot.fbx"}, {});
  REQUIRE(imported.ok());
  REQUIRE(imported->mesh.tags.size() == 1);
  CHECK(imported->mesh.tags[0] == "prerot/A");
  // The helpers' transforms still apply: the quad in the x-z plane is turned upright (-90 about x).
  const auto bounds = imported->mesh.bounds();
  CHECK(bounds.max.y - bounds.min.y == Approx(1.0).margin(1e-5));
  CHECK(bounds.max.z - bounds.min.z == Approx(0.0).margin(1e-5));
}

TEST_CASE("an FBX object the importer cannot build is refused - it left the geometry out in silence", "[formats][import][meshes][fbx]") {
  // An audit: a Floor and a Wall; Assimp's FBX reader logged the Wall's bad index (or vertex
  // array) as an error and imported the Floor alone, exit 0.
  auto fbx = [](const std::string& wall_vertices, const std::string& wall_indices, const std::string& objects = "",
                const std::string& connections = "") {
    return kFbxHeader + fbxFloorGeometry("floor") + R"(	Geometry: 1001, "Geometry::wall", "Mesh" {
		Vertices: *12 {
			a: )" + wall_vertices + R"(
		}
		PolygonVertexIndex: *4 {
			a: )" + wall_indices + R"(
		}
		GeometryVersion: 124
	}
	Model: 2000, "Model::Floor", "Mesh" {
		Version: 232
	}
	Model: 2001, "Model::Wall", "Mesh" {
		Version: 232
	}
)" + objects + R"(
}
Connections:  {
	C: "OO",1000,2000
	C: "OO",2000,0
	C: "OO",1001,2001
	C: "OO",2001,0
)" + connections + R"(
}
)";
  };
  const std::string wall = "0.0,0.0,0.0,0.0,1.0,0.0,1.0,1.0,0.0,1.0,0.0,0.0";
  strata::test::TempDir dir;
  std::ofstream(dir / "good.fbx", std::ios::binary) << fbx(wall, "0,1,2,-4");
  auto good = importMeshes({dir / "good.fbx"}, {});
  REQUIRE(good.ok());
  CHECK(good->mesh.triangleCount() == 4);
  std::ofstream(dir / "index.fbx", std::ios::binary) << fbx(wall, "0,1,9,-4");
  auto index = importMeshes({dir / "index.fbx"}, {});
  REQUIRE_FALSE(index.ok());
  CHECK(index.error().kind == strata::ErrorKind::BadInput);
  CHECK_THAT(index.error().message, Catch::Contains("index.fbx: the importer could not read an object of a scene node and would "
                                                    "leave it out: FBX-DOM (TOK_KEY, line ") &&
                                        Catch::Contains("polygon vertex index out of range"));
  std::ofstream(dir / "floats.fbx", std::ios::binary) << fbx(wall.substr(0, wall.size() - 4), "0,1,2,-4");
  auto floats = importMeshes({dir / "floats.fbx"}, {});
  REQUIRE_FALSE(floats.ok());
  CHECK_THAT(floats.error().message, Catch::Contains("floats.fbx: the importer could not read an object of a scene node") &&
                                         Catch::Contains("number of floats is not a multiple of three"));
  // An object no scene node owns, a blend shape without normals (the import drops morph targets
  // anyway), is a warning: refusing it refused a good level (the re-audit).
  std::ofstream(dir / "shape.fbx", std::ios::binary)
      << fbx(wall, "0,1,2,-4",
             "\tDeformer: 3001, \"Deformer::BS\", \"BlendShape\" {\n\t\tVersion: 100\n\t}\n"
             "\tDeformer: 3002, \"SubDeformer::Key1\", \"BlendShapeChannel\" {\n\t\tVersion: 100\n\t\tDeformPercent: 0\n"
             "\t\tFullWeights: *1 {\n\t\t\ta: 100\n\t\t}\n\t}\n"
             "\tGeometry: 3003, \"Geometry::Key1\", \"Shape\" {\n\t\tVersion: 100\n\t\tIndexes: *1 {\n\t\t\ta: 0\n\t\t}\n"
             "\t\tVertices: *3 {\n\t\t\ta: 0,0.1,0\n\t\t}\n\t}\n",
             "\tC: \"OO\",3001,1000\n\tC: \"OO\",3002,3001\n\tC: \"OO\",3003,3002\n");
  // A NURBS curve of a rig is a node's object the reader skips on purpose, with a warning and no
  // error: the level imports (the review: the file was refused).
  std::ofstream(dir / "curve.fbx", std::ios::binary)
      << fbx(wall, "0,1,2,-4",
             "\tGeometry: 3000, \"Geometry::Curve\", \"NurbsCurve\" {\n\t\tType: \"NurbsCurve\"\n\t\tNurbsCurveVersion: 100\n"
             "\t\tOrder: 4\n\t\tDimension: 1\n\t\tForm: \"Open\"\n\t\tRational: 0\n"
             "\t\tPoints: *16 {\n\t\t\ta: 0,0,0,1,1,0,0,1,2,0,0,1,3,0,0,1\n\t\t}\n"
             "\t\tKnotVector: *8 {\n\t\t\ta: 0,0,0,0,1,1,1,1\n\t\t}\n\t}\n"
             "\tModel: 4000, \"Model::CurveNode\", \"NurbsCurve\" {\n\t\tVersion: 232\n\t}\n",
             "\tC: \"OO\",3000,4000\n\tC: \"OO\",4000,0\n");
  auto curve = importMeshes({dir / "curve.fbx"}, {});
  REQUIRE(curve.ok());
  CHECK(curve->mesh.triangleCount() == 4);
  auto shape = importMeshes({dir / "shape.fbx"}, {});
  REQUIRE(shape.ok());
  CHECK(shape->mesh.triangleCount() == 4);
  bool warned = false;
  for (const std::string& w : shape->stats.warnings)
    warned = warned || (w.find("the importer could not read an object and left it out (no scene node's geometry or material)") !=
                            std::string::npos &&
                        w.find("did not find required element \"Normals\"") != std::string::npos);
  CHECK(warned);
}

TEST_CASE("sandboxed and in-process imports give identical geometry", "[formats][import][meshes][sandbox]") {
  const auto path = strata::test::sharedData() / "meshes" / "real" / "godot-demo-projects" / "town_model.gltf";
  ImportOptions in_process;
  in_process.in_process = true;
  ImportOptions sandbox;
  sandbox.timeout_seconds = 900;  // the comparison is under test, not the time a loaded machine takes
  auto sandboxed = importMeshes({path}, sandbox);
  auto direct = importMeshes({path}, in_process);
  REQUIRE(sandboxed.ok());
  REQUIRE(direct.ok());
  CHECK(sandboxed->mesh.vertices == direct->mesh.vertices);
  CHECK(sandboxed->mesh.triangles == direct->mesh.triangles);
  CHECK(sandboxed->mesh.labels == direct->mesh.labels);
  CHECK(sandboxed->mesh.tags == direct->mesh.tags);
  CHECK(sandboxed->mesh.triangle_tags == direct->mesh.triangle_tags);
  CHECK(sandboxed->stats.degenerate_dropped == direct->stats.degenerate_dropped);
  // Truck Town's node hierarchy survives as tags (no PreTransformVertices).
  CHECK(std::find(direct->mesh.tags.begin(), direct->mesh.tags.end(), "town_model/Racetrack/RacetrackMain/RacetrackMesh") !=
        direct->mesh.tags.end());
}

#if !defined(STRATA_SHADOW_SANITIZER)  // the sandbox sets no address-space limit under the sanitizers
TEST_CASE("a mesh over the sandbox's memory limit names the limit, never an exception", "[formats][import][meshes][sandbox]") {
  // An audit: Assimp catches its own std::bad_alloc and reports "std::bad_alloc" as its error,
  // which reached the user as "the importer rejected the file: std::bad_alloc". (zdm2.glb was
  // the example until Assimp's JoinIdenticalVertices left the import, then pandora.obj until the
  // limit counted only what the parse adds to the process: both fit in 64 MiB.) A 1,000 x 1,000 grid
  // of quads (42 MB of OBJ) needs about 280 MiB more than the process has, past the limits
  // tested here plus what the process may hold unused (docs/import.md, "The sandbox").
  strata::test::TempDir dir;
  const auto path = dir / "grid.obj";
  {
    std::ofstream out(path);
    constexpr int n = 1000;
    for (int i = 0; i <= n; ++i)
      for (int j = 0; j <= n; ++j) out << "v " << i << " 0 " << j << "\n";
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        const int a = i * (n + 1) + j + 1;
        out << "f " << a << ' ' << a + 1 << ' ' << a + n + 2 << ' ' << a + n + 1 << "\n";
      }
  }
  for (std::uint64_t limit : {64, 80}) {
    ImportOptions options;
    options.memory_limit_mib = limit;
    options.timeout_seconds = 900;  // the limit under test is memory, not time
    auto imported = importMeshes({path}, options);
    REQUIRE_FALSE(imported.ok());
    INFO(imported.error().message);
    CHECK(imported.error().kind == strata::ErrorKind::BadInput);
    CHECK_THAT(imported.error().message, Catch::Contains("grid.obj: the importer ") && Catch::Contains("memory"));
    CHECK_THAT(imported.error().message, !Catch::Contains("std::") && !Catch::Contains("bad_alloc"));
  }
}
#endif
