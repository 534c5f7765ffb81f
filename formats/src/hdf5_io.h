#pragma once
/// \file
/// Typed, validating reads and reproducible writes of HDF5 groups, datasets and attributes.
///
/// These are the building blocks of the world file (world_file_writer.cpp, world_file_reader.cpp)
/// and of any later group stored in it (e.g. the per-agent navigation data). Conventions, so that
/// every writer produces byte-identical files from identical inputs (docs/format.md):
///  - groups and datasets are created with object timestamps off;
///  - non-empty arrays are chunked (about kTargetChunkBytes per chunk, whole rows), shuffled,
///    deflated and Fletcher32-checksummed; empty arrays are contiguous with no filters, because
///    HDF5 cannot chunk a fixed dimension of size 0;
///  - strings are fixed-length, null-padded UTF-8 (variable-length strings live in global heap
///    collections whose unused bytes are not reproducible).
/// Readers accept exactly the documented element type (class, size, signedness; either byte
/// order), check rank and shape, and refuse arrays whose claimed size is implausible for the
/// bytes actually stored, so a hostile header cannot make Strata allocate terabytes.
/// Every message names the file and the object: "world.h5: /geometry/vertices: ...".
///
/// Callers create an `ErrorSilencer` (hdf5_handles.h) around their use of these functions.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hdf5_handles.h"
#include "strata/sim/result.h"

namespace strata::formats::h5 {

/// Chunk size aimed at by writeArray (bytes): big enough for good deflate ratios and few B-tree
/// entries on multi-million-element arrays, small enough that a partial read stays cheap.
inline constexpr std::size_t kTargetChunkBytes = 256 * 1024;
/// Deflate level of every chunked dataset (libdeflate's scale; the streams are zlib's format, so
/// any HDF5 reader inflates them). 6, libdeflate's default, compresses a large world's arrays 8 %
/// smaller than zlib at level 4 in half the time (docs/performance.md).
inline constexpr unsigned kDeflateLevel = 6;
/// Longest fixed-length string element or attribute a reader accepts (bytes), unless the
/// attribute's reader gives its own limit; writers refuse longer strings, so a file Strata writes
/// is always one it reads.
inline constexpr std::size_t kMaxStringBytes = 1u << 20;
/// Longest stored bake profile (an agent's `profile` attribute, bytes): a 16 MiB profile of
/// links written as densely as TOML allows stores in well under this.
inline constexpr std::size_t kMaxProfileBytes = 256u << 20;

/// An open file or group (not owned) plus the names used in error messages.
struct Location {
  hid_t id = H5I_INVALID_HID;  ///< file or group identifier; owned elsewhere
  std::string file;            ///< the file as the user named it
  std::string path = "/";      ///< absolute HDF5 path of this object

  /// Absolute path of a child: "/geometry" + "vertices" → "/geometry/vertices".
  std::string childPath(std::string_view name) const;
  /// "<file>: <child path>" for messages about a child object.
  std::string where(std::string_view name) const;
  /// "<file>: <path>" for messages about this object itself.
  std::string self() const;
  /// The location of an opened child group.
  Location child(const Group& group, std::string_view name) const;
};

/// A 1-D ([rows]) or 2-D ([rows, columns]) array as read from a dataset, row-major.
template <class T>
struct Array {
  std::vector<T> values;  ///< rows * max(columns, 1) elements
  std::size_t rows = 0;   ///< first dimension
  std::size_t columns = 0;  ///< second dimension; 0 for a 1-D array
};

// ---- writing -------------------------------------------------------------------------------

/// A group creation property list with object timestamps off (also valid as a file creation
/// list, which governs the root group).
PropertyList groupCreationList();

/// Creates child group `name` with timestamps off.
Result<Group> createGroup(const Location& parent, std::string_view name);

/// Writes `values` as dataset `name`: 1-D when `columns` is 0, else [values.size()/columns,
/// columns]. Supported T: float, double, int8_t, uint8_t, int32_t, uint32_t, int64_t, uint64_t
/// (stored little-endian).
template <class T>
Status writeArray(const Location& parent, std::string_view name, std::span<const T> values, std::size_t columns = 0);

/// Writes a 1-D table of fixed-length, null-padded UTF-8 strings (width = longest, at least 1).
/// Strings must not contain NUL bytes.
Status writeStringTable(const Location& parent, std::string_view name, const std::vector<std::string>& strings);

/// Writes a scalar fixed-length UTF-8 string attribute on `object`; an error when the value is
/// longer than `max_bytes` (what its reader accepts).
Status writeStringAttribute(const Location& object, std::string_view name, std::string_view value,
                            std::size_t max_bytes = kMaxStringBytes);

/// Writes a scalar little-endian int32 attribute on `object`.
Status writeInt32Attribute(const Location& object, std::string_view name, std::int32_t value);

// ---- reading -------------------------------------------------------------------------------

/// Whether `parent` has a link called `name` (of any kind); an error when the group itself
/// cannot be read (corrupt object header).
Result<bool> hasLink(const Location& parent, std::string_view name);
/// The names of the links in group `group` (in HDF5's name order).
Result<std::vector<std::string>> linkNames(const Location& group);

/// Opens child group `name`; errors say whether it is missing or not a group.
Result<Group> openGroup(const Location& parent, std::string_view name);

/// Reads dataset `name`, which must hold exactly element type T (any byte order) with rank 1
/// (`columns` == 0) or rank 2 and second dimension `columns`; `rows`, when given, must match.
template <class T>
Result<Array<T>> readArray(const Location& parent, std::string_view name, std::size_t columns = 0,
                           std::optional<std::size_t> rows = std::nullopt);

/// readArray into the caller's memory: `out` must hold exactly `rows` rows of max(columns, 1)
/// values (e.g. a vector of float triples viewed as floats), saving a second copy of a large
/// array. Errors as readArray's.
template <class T>
Status readArrayInto(const Location& parent, std::string_view name, std::size_t columns, std::size_t rows,
                     std::span<T> out);

/// Checks that dataset `name` exists with the shape readArray(parent, name, columns, rows) asks
/// for, without reading it (errors as readArray's).
Status checkShapeOf(const Location& parent, std::string_view name, std::size_t columns, std::size_t rows);

/// Reads a 1-D table of fixed-length strings (trailing NUL / space padding removed);
/// `rows`, when given, must match.
Result<std::vector<std::string>> readStringTable(const Location& parent, std::string_view name,
                                                 std::optional<std::size_t> rows = std::nullopt);

/// Whether `object` has an attribute `name`; an error when the object's header cannot be read.
Result<bool> hasAttribute(const Location& object, std::string_view name);

/// Reads a scalar fixed-length string attribute of at most `max_bytes`.
Result<std::string> readStringAttribute(const Location& object, std::string_view name,
                                        std::size_t max_bytes = kMaxStringBytes);

/// Reads a scalar integer attribute of any integer type up to 64 bits.
Result<std::int64_t> readIntegerAttribute(const Location& object, std::string_view name);

}  // namespace strata::formats::h5
