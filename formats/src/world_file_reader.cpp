// Validating reader of the world file (docs/format.md, "What a reader checks").
//
// Before HDF5 sees the file we check that it exists, is not empty and carries the HDF5
// signature, so a mesh passed by mistake gets a plain answer instead of an HDF5 error. Then the
// file is opened read-only (from disk, or from memory with the core driver for the fuzzer), the
// root attribute `schema_version` is checked and every section is read and validated. HDF5's
// own error printing is silenced; its innermost message is appended to ours.

#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>
#include <system_error>

#include "world_file_internal.h"
#include "world_file_sections.h"

namespace strata::formats {

namespace {

constexpr std::array<unsigned char, 8> kHdf5Signature{0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};

const std::string kNotAWorld = "not a Strata world file (HDF5 signature missing); to import a mesh use strata import";

// HDF5 looks for its signature at 0, 512, 1024, 2048 … (a user block may precede it).
template <class ReadAt>
bool hasSignature(std::uint64_t size, ReadAt read_at) {
  for (std::uint64_t offset = 0; offset + kHdf5Signature.size() <= size; offset = offset == 0 ? 512 : offset * 2) {
    std::array<unsigned char, 8> bytes{};
    if (!read_at(offset, bytes)) return false;
    if (bytes == kHdf5Signature) return true;
  }
  return false;
}

h5::PropertyList readAccessList() {
  h5::PropertyList fapl(H5Pcreate(H5P_FILE_ACCESS));
  if (fapl && (H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_STRONG) < 0 ||
               H5Pset_file_locking(fapl.get(), false, true) < 0))
    return h5::PropertyList{};
  return fapl;
}

Result<World> readOpenFile(const h5::File& file, const std::string& name, const WorldReadOptions& options = {}) {
  if (!file) return Error::badInput(name + ": not a readable HDF5 file (truncated or corrupt)" + h5::errorSuffix());
  // Bytes past the end of the HDF5 data (its end of allocation, from the superblock) are no part
  // of the world: the file was appended to or damaged. HDF5 itself ignores them, so every check
  // below would pass (an audit). (The core driver of an in-memory image, readWorldImage, does
  // not report its end of allocation: no check there.)
  haddr_t eoa = 0;
  hsize_t size = 0;
  if (H5Fget_eoa(file.get(), &eoa) >= 0 && H5Fget_filesize(file.get(), &size) >= 0 && size > eoa)
    return Error::badInput(name + ": " + std::to_string(size - eoa) + " bytes after the end of the HDF5 data at byte " +
                           std::to_string(eoa) + " (the file was appended to or damaged)");
  return detail::readWorldContents(h5::Location{file.get(), name, "/"}, options);
}

}  // namespace

namespace detail {

Result<World> readWorldContents(const h5::Location& root, const WorldReadOptions& options) {
  auto has_version = h5::hasAttribute(root, "schema_version");
  if (!has_version) return has_version.error();
  if (!*has_version)
    return Error::badInput(root.file + ": not a Strata world file (root attribute schema_version missing)");
  auto version = h5::readIntegerAttribute(root, "schema_version");
  if (!version) return version.error();
  if (*version < kOldestWorldSchemaVersion || *version > kWorldSchemaVersion)
    return Error::badInput(root.file + ": schema_version " + std::to_string(*version) +
                           " is not supported (this strata reads schema_version " +
                           std::to_string(kOldestWorldSchemaVersion) + " to " + std::to_string(kWorldSchemaVersion) + ")");
  World world;
  world.schema_version = static_cast<std::int32_t>(*version);
  auto provenance = readMetadata(root);
  if (!provenance) return provenance.error();
  world.provenance = std::move(*provenance);
  auto geometry = readGeometry(root, options.geometry);
  if (!geometry) return geometry.error();
  world.geometry = std::move(*geometry);
  // Each agent's column grid is checked against the geometry's bounds before its per-column
  // arrays are read.
  const sim::Aabb bounds = world.geometry.bounds();
  auto agents = readNavigation(root, options, world.schema_version, &bounds);
  if (!agents) return agents.error();
  world.agents = std::move(*agents);
  return world;
}

Result<World> readWorldImage(std::span<const std::byte> image, const std::string& display_name) {
  if (image.empty()) return Error::badInput(display_name + ": empty file (0 bytes); " + kNotAWorld);
  const bool signed_image = hasSignature(image.size(), [&](std::uint64_t offset, std::array<unsigned char, 8>& out) {
    std::memcpy(out.data(), image.data() + offset, out.size());
    return true;
  });
  if (!signed_image) return Error::badInput(display_name + ": " + kNotAWorld);

  const h5::ErrorSilencer silence;
  h5::PropertyList fapl = readAccessList();
  // The core driver copies the image; no backing store, so nothing touches the disk.
  if (!fapl || H5Pset_fapl_core(fapl.get(), 1 << 16, false) < 0 ||
      H5Pset_file_image(fapl.get(), const_cast<std::byte*>(image.data()), image.size()) < 0)
    return Error::runtime(display_name + ": cannot set up in-memory HDF5 access" + h5::errorSuffix());
  h5::File file(H5Fopen(display_name.c_str(), H5F_ACC_RDONLY, fapl.get()));
  return readOpenFile(file, display_name);
}

}  // namespace detail

Result<World> readWorldFile(const std::filesystem::path& path, const WorldReadOptions& options) {
  const std::string name = path.string();
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) return Error::noSuchFile(name);
  if (std::filesystem::is_directory(status)) return Error::badInput(name + ": is a directory, not a world file");
  if (!std::filesystem::is_regular_file(status)) return Error::badInput(name + ": not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::cannotOpen(name, path.string());
  in.seekg(0, std::ios::end);
  const std::streamoff end = in.tellg();
  if (end <= 0) return Error::badInput(name + ": empty file (0 bytes); " + kNotAWorld);
  const bool is_hdf5 = hasSignature(static_cast<std::uint64_t>(end), [&](std::uint64_t offset, std::array<unsigned char, 8>& out) {
    in.clear();
    in.seekg(static_cast<std::streamoff>(offset));
    return static_cast<bool>(in.read(reinterpret_cast<char*>(out.data()), out.size()));
  });
  if (!is_hdf5) return Error::badInput(name + ": " + kNotAWorld);
  in.close();

  const h5::ErrorSilencer silence;
  h5::PropertyList fapl = readAccessList();
  if (!fapl) return Error::runtime(name + ": cannot set up HDF5 file access" + h5::errorSuffix());
  h5::File file(H5Fopen(name.c_str(), H5F_ACC_RDONLY, fapl.get()));
  return readOpenFile(file, name, options);
}

}  // namespace strata::formats
