#include "hdf5_handles.h"

#include <mutex>
#include <string_view>

namespace strata::formats::h5 {

void prepareLibrary() {
  static std::once_flag once;
  std::call_once(once, [] { H5dont_atexit(); });
}

ErrorSilencer::ErrorSilencer() {
  prepareLibrary();
  H5Eget_auto2(H5E_DEFAULT, &previous_function_, &previous_data_);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  H5Eclear2(H5E_DEFAULT);
}

ErrorSilencer::~ErrorSilencer() {
  H5Eclear2(H5E_DEFAULT);
  H5Eset_auto2(H5E_DEFAULT, previous_function_, previous_data_);
}

namespace {

// Walked upward, the first entry is where the error was detected: the most specific message.
herr_t keepInnermost(unsigned n, const H5E_error2_t* error, void* client_data) {
  auto* out = static_cast<std::string*>(client_data);
  if (n == 0 && error != nullptr && error->desc != nullptr) *out = error->desc;
  return 0;
}

}  // namespace

std::string takeErrorDetail() {
  std::string detail;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, keepInnermost, &detail);
  H5Eclear2(H5E_DEFAULT);
  for (char& c : detail)
    if (c == '\n' || c == '\r') c = ' ';
  // HDF5's POSIX driver describes a failed read or write by every argument of the call ("file
  // write failed: time = ..., filename = '...', file descriptor = 3, errno = 27, error message =
  // 'File too large', buf = 0x..., ..."): keep the operation and the system's message.
  constexpr std::string_view kSystemMessage = "error message = '";
  if (const std::size_t at = detail.find(kSystemMessage); at != std::string::npos) {
    const std::size_t begin = at + kSystemMessage.size();
    const std::size_t end = detail.find('\'', begin);
    const std::size_t arguments = detail.find(": time =");
    if (end != std::string::npos && arguments != std::string::npos && arguments < at)
      detail = detail.substr(0, arguments) + ": " + detail.substr(begin, end - begin);
  }
  return detail;
}

std::string errorSuffix() {
  const std::string detail = takeErrorDetail();
  return detail.empty() ? std::string{} : " (HDF5: " + detail + ")";
}

}  // namespace strata::formats::h5
