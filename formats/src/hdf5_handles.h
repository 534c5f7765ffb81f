#pragma once
/// \file
/// Thin RAII wrappers over HDF5 C identifiers, and a scoped error-stack silencer.
///
/// Every HDF5 identifier Strata opens is owned by one of the `Handle` aliases below, so an early
/// return on any error path closes everything in reverse order of opening. HDF5 prints its error
/// stack to stderr by default; `ErrorSilencer` turns that off for its scope (libraries never
/// print) and `takeErrorDetail()` recovers the innermost HDF5 message so it can be appended to a
/// strata::Error that names the file and dataset. Higher-level typed reads and writes live in
/// hdf5_io.h.

#include <hdf5.h>

#include <string>
#include <utility>

namespace strata::formats::h5 {

/// Owns one HDF5 identifier and closes it with `Close` on destruction. Move-only.
/// Never wrap a predefined identifier (H5T_NATIVE_FLOAT, H5P_DEFAULT …): those must not be closed.
template <herr_t (*Close)(hid_t)>
class Handle {
 public:
  /// An empty handle (holds H5I_INVALID_HID).
  Handle() = default;
  /// Takes ownership of `id`; a negative id (an HDF5 failure) leaves the handle empty.
  explicit Handle(hid_t id) : id_(id < 0 ? H5I_INVALID_HID : id) {}
  ~Handle() { reset(); }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& other) noexcept : id_(std::exchange(other.id_, H5I_INVALID_HID)) {}
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, H5I_INVALID_HID);
    }
    return *this;
  }

  /// True when the handle holds an open identifier.
  bool valid() const { return id_ >= 0; }
  explicit operator bool() const { return valid(); }
  /// The raw identifier for HDF5 calls (still owned by the handle).
  hid_t get() const { return id_; }
  /// Closes now and reports whether HDF5 accepted the close (file closes flush and can fail).
  bool close() {
    if (!valid()) return true;
    const herr_t status = Close(std::exchange(id_, H5I_INVALID_HID));
    return status >= 0;
  }
  /// Closes, ignoring failure (destructor semantics).
  void reset() { (void)close(); }

 private:
  hid_t id_ = H5I_INVALID_HID;
};

using File = Handle<H5Fclose>;          ///< H5Fcreate / H5Fopen
using Group = Handle<H5Gclose>;         ///< H5Gcreate2 / H5Gopen2
using Dataset = Handle<H5Dclose>;       ///< H5Dcreate2 / H5Dopen2
using Dataspace = Handle<H5Sclose>;     ///< H5Screate* / H5Dget_space / H5Aget_space
using Datatype = Handle<H5Tclose>;      ///< H5Tcopy / H5Dget_type / H5Aget_type
using PropertyList = Handle<H5Pclose>;  ///< H5Pcreate / H5Dget_create_plist
using Attribute = Handle<H5Aclose>;     ///< H5Acreate2 / H5Aopen

/// Called before Strata's first HDF5 call (ErrorSilencer does it): turns off HDF5's own atexit
/// shutdown. HDF5 1.10.8 leaks internal state on some corrupt files and its shutdown then prints
/// "HDF5: infinite loop closing library" on stderr, breaking the one-line error contract. Strata
/// closes every object it opens (the handles below), so nothing is left to flush at exit.
void prepareLibrary();

/// Turns off HDF5's automatic error printing for the current thread while alive and restores
/// the previous handler afterwards. Nestable. Also clears the stack on entry and exit so a
/// message taken with takeErrorDetail() belongs to this scope.
class ErrorSilencer {
 public:
  ErrorSilencer();
  ~ErrorSilencer();
  ErrorSilencer(const ErrorSilencer&) = delete;
  ErrorSilencer& operator=(const ErrorSilencer&) = delete;

 private:
  H5E_auto2_t previous_function_ = nullptr;
  void* previous_data_ = nullptr;
};

/// The innermost message on this thread's HDF5 error stack (e.g. "unable to open file: name =
/// ..., errno = 2" or "data error detected by Fletcher32 checksum"), then clears the stack.
/// Empty when the stack is empty.
std::string takeErrorDetail();

/// " (HDF5: <detail>)" when takeErrorDetail() has something, else "". For appending to messages.
std::string errorSuffix();

}  // namespace strata::formats::h5
