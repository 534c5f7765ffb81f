#pragma once
/// \file
/// The binary framing in which the sandboxed importer child sends its result to the parent.
///
/// Layout (native byte order; parent and child are the same binary on the same machine):
///   "STRIMP01"  8-byte magic
///   u8 status   0 = geometry follows, 1 = bad-input error, 2 = runtime error
///   error:      string message
///   geometry:   u64 meshes, u64 non_triangles_dropped, strings warnings, strings labels,
///               strings tags, u64 vertex count + 3 x f32 each,
///               u64 triangle count + 5 x u32 each (3 indices, label id, tag id)
/// where a string is u32 length + bytes and "strings" is u32 count + that many strings.
/// The decoder treats the bytes as untrusted: every length is checked against the bytes that
/// remain, trailing bytes are an error, and the decoded mesh is validated (indices, ids,
/// finite coordinates within the world bound) before it is returned.

#include <cstdint>
#include <span>
#include <vector>

#include "import_scene.h"
#include "strata/sim/result.h"

namespace strata::formats {

/// Serialises a scene (or the error that replaced it).
std::vector<std::uint8_t> encodeSceneReply(const Result<SceneGeometry>& reply);

/// Parses and re-validates a reply. A malformed reply is a BadInput error whose message starts
/// with "malformed reply from the importer process" (no file name: the caller adds it); an
/// error reply is returned as that error.
Result<SceneGeometry> decodeSceneReply(std::span<const std::uint8_t> bytes);

}  // namespace strata::formats
