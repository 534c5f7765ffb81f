#pragma once
/// \file
/// Error and Result types shared by every Strata library.
///
/// Libraries never print and never exit: a function that can fail on input data returns a
/// `Result<T>`. The error carries a category that the CLI maps to an exit code and a message
/// that already names its context ("level.glb: mesh 3, triangle 812: vertex is NaN").

#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace strata {

/// What kind of failure an Error is; the CLI maps it to an exit code.
enum class ErrorKind {
  BadInput,  ///< malformed or unusable input data or arguments (exit code 2)
  Runtime,   ///< the environment failed: I/O error, out of memory, child process died (exit code 1)
};

/// A failure with its context. `message` is complete and one line, prefixed with the file or
/// dataset it concerns, so it can be printed as `strata: error: <message>`.
struct Error {
  ErrorKind kind = ErrorKind::BadInput;
  std::string message;

  static Error badInput(std::string message) { return {ErrorKind::BadInput, std::move(message)}; }
  static Error runtime(std::string message) { return {ErrorKind::Runtime, std::move(message)}; }
  /// BadInput "<name>: <why>" for a file that could not be opened for reading, in the words every
  /// command uses: "no such file", "is a directory", else the system's reason (call it right
  /// after the failed open: it reads errno).
  static Error cannotOpen(const std::string& name) { return cannotOpen(name, name); }
  /// The same for the file at `path`, named `name` in the message.
  static Error cannotOpen(const std::string& name, const std::string& path);
  /// BadInput for an input that does not exist: "<name>: no such file" (saying so when a part of
  /// the path is a file, as in "world.h5/"), and for "-" that standard input is not read (it said
  /// "-: no such file").
  static Error noSuchFile(const std::string& name);
};

/// Thrown by Result::value() (and `*`, `->`) on an error, naming that error, and by
/// Result::error() on a value: the caller's mistake (test ok() first), not a failure of input.
class BadResultAccess : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

/// Either a value or an Error. Deliberately small: `ok()`, `value()`, `error()`.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : data_(std::move(value)) {}       // NOLINT: implicit by design
  Result(Error error) : data_(std::move(error)) {}   // NOLINT: implicit by design

  bool ok() const { return data_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & {
    checkValue();
    return *std::get_if<0>(&data_);
  }
  const T& value() const& {
    checkValue();
    return *std::get_if<0>(&data_);
  }
  T&& value() && {
    checkValue();
    return std::move(*std::get_if<0>(&data_));
  }
  const Error& error() const {
    if (ok()) throw BadResultAccess("strata::Result::error() on a value");
    return *std::get_if<1>(&data_);
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  // (An audit: std::get's "wrong index for variant" said nothing of the error.)
  void checkValue() const {
    if (!ok()) throw BadResultAccess("strata::Result::value() on an error: " + std::get_if<1>(&data_)->message);
  }
  std::variant<T, Error> data_;
};

/// Result of an operation that produces no value.
struct Ok {};
using Status = Result<Ok>;

}  // namespace strata
