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

/// A fresh temporary path beside `target` (same directory, so rename(2) is atomic):
/// `<dir>/.<name>.tmp-<pid>-<n>`, n counting up within the process.
std::filesystem::path temporaryPathFor(const std::filesystem::path& target);

/// True when `name` is the file name of a temporary written by writeWorldFile for `target_name`
/// (useful to find stale ones after a killed writer).
bool isTemporaryNameFor(const std::string& name, const std::string& target_name);

}  // namespace strata::formats::detail
