// Links against an installed Strata and uses the public headers of each library.
#include <cstdio>
#include <string>

#include "strata/formats/world_file.h"
#include "strata/nav/search.h"
#include "strata/sim/mesh.h"

int main() {
  strata::sim::TriangleMesh mesh;
  mesh.vertices = {{0, 0, 0}, {1, 0, 0}, {0, 0, 1}};
  mesh.triangles = {{0, 2, 1}};
  mesh.triangle_labels = {0};
  mesh.triangle_tags = {0};
  mesh.labels = {"floor"};
  mesh.tags = {"root"};
  if (!mesh.validate().empty()) return 1;
  const auto method = strata::nav::parseMethod("theta");
  if (!method || strata::nav::methodName(*method) != "theta") return 1;
  std::printf("strata_consumer: ok (schema %d, %zu triangle, method %s)\n", strata::formats::kWorldSchemaVersion,
              mesh.triangleCount(), std::string(strata::nav::methodName(*method)).c_str());
  return 0;
}
