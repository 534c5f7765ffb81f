#pragma once
/// \file
/// World-file entry points for tests and the fuzzer that do not need HDF5's headers.

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>

#include "strata/formats/world_file.h"

namespace strata::formats::detail {

/// Reads and validates a world from an in-memory HDF5 file image (HDF5 core driver) with the
/// same checks as readWorldFile; messages name `display_name` as the file.
Result<World> readWorldImage(std::span<const std::byte> image, const std::string& display_name);

}  // namespace strata::formats::detail
