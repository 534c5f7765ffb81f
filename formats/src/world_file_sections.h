#pragma once
/// \file
/// The sections of a world file, each written and read (with validation) by its own file:
/// world_file_metadata.cpp (/metadata), world_file_geometry.cpp (/geometry). A new section
/// (e.g. per-agent navigation data) adds a pair here and one call in writeWorldContents /
/// readWorldContents (world_file_writer.cpp / world_file_reader.cpp). Layout in docs/format.md.

#include "hdf5_io.h"
#include "strata/formats/world_file.h"

namespace strata::formats::detail {

/// Writes the root attribute and every section into an open, empty file.
Status writeWorldContents(const h5::Location& root, const World& world, bool check_agents = true);
/// writeWorldFile without the agents' checks: for tests of the reader, which must refuse a file
/// edited by hand (a value no bake writes, its checksums recomputed).
Status writeWorldFileUnchecked(const std::filesystem::path& path, const World& world);
/// Checks the root attribute and reads every section of an open file (the agents `options` asks for).
Result<World> readWorldContents(const h5::Location& root, const WorldReadOptions& options = {});

/// /metadata: tool version, inputs (paths, SHA-256, sizes), import options JSON.
Status writeMetadata(const h5::Location& root, const Provenance& provenance);
Result<Provenance> readMetadata(const h5::Location& root);

/// /geometry: vertices, triangles, per-triangle label/tag ids and their string tables. Without
/// `triangles`, only the vertices are read (WorldReadOptions::geometry).
Status writeGeometry(const h5::Location& root, const sim::TriangleMesh& mesh);
Result<sim::TriangleMesh> readGeometry(const h5::Location& root, bool triangles = true);

/// /navigation: per agent the baked layered graph (world_file_agents.cpp). Nothing is written for
/// an empty list; a file without /navigation reads as no agents. Reads the agents `options`
/// asks for (WorldReadOptions). `schema_version` is the file's: version 1 has no link_kinds
/// (every link a custom link), from version 2 it is required. With `geometry_bounds`, an agent's
/// column grid must be the one a bake lays over them (makeGridFrame), checked before any
/// per-column array is read (a grid of 4e8 columns edited in cost seconds and gigabytes first).
/// `check`: refuse (BadInput) an agent whose graph or settings readNavigation would refuse, before
/// writing it (writeWorldFile always checks; tests write damaged files without).
/// With `check`, each agent's column grid must also be the one a bake lays over `geometry_bounds`.
Status writeNavigation(const h5::Location& root, const std::vector<nav::BakedAgent>& agents, bool check = true,
                       const sim::Aabb* geometry_bounds = nullptr);
Result<std::vector<nav::BakedAgent>> readNavigation(const h5::Location& root, const WorldReadOptions& options = {},
                                                    std::int32_t schema_version = kWorldSchemaVersion,
                                                    const sim::Aabb* geometry_bounds = nullptr);

/// Empty when `provenance` can be stored (SHA-256 values are 64 hex digits), else the problem.
std::string validateProvenance(const Provenance& provenance);

}  // namespace strata::formats::detail
