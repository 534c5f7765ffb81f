#pragma once
// Internal: a fixed-size array whose elements are not initialised on allocation, for the bake's
// large scratch arrays that a parallel loop fills completely right after (std::vector would
// zero them first, serially: a few milliseconds of a bake on a big mesh).

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>

namespace strata::nav {

/// Storage for `size()` elements of T, left uninitialised by resize(); every element must be
/// assigned before it is read. T must be trivially destructible (nothing runs on release).
template <class T>
class RawArray {
  static_assert(std::is_trivially_destructible_v<T>, "RawArray elements are never destroyed");

 public:
  /// Replaces the storage by `n` uninitialised elements.
  void resize(std::size_t n) {
    data_.reset(n == 0 ? nullptr : static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(alignof(T)))));
    size_ = n;
  }
  std::size_t size() const { return size_; }
  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  T& operator[](std::size_t i) { return data_.get()[i]; }
  const T& operator[](std::size_t i) const { return data_.get()[i]; }

 private:
  struct Release {
    void operator()(T* p) const { ::operator delete(p, std::align_val_t(alignof(T))); }
  };
  std::unique_ptr<T, Release> data_;
  std::size_t size_ = 0;
};

}  // namespace strata::nav
