#pragma once
/// \file
/// SHA-256 (FIPS 180-4), used for the provenance hash of every imported file.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace strata::formats {

/// Incremental SHA-256: feed bytes with update(), then call hexDigest() or digest() once.
class Sha256 {
 public:
  Sha256();
  /// Appends `bytes` to the message.
  void update(std::span<const std::uint8_t> bytes);
  /// Appends the bytes of `text` to the message.
  void update(std::string_view text);
  /// Pads the message and returns the 32-byte digest. Call once; the object is spent afterwards.
  std::array<std::uint8_t, 32> digest();
  /// digest() as 64 lower-case hex characters.
  std::string hexDigest();

 private:
  void compress(const std::uint8_t* block);

  std::array<std::uint32_t, 8> state_{};
  std::array<std::uint8_t, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t total_bytes_ = 0;
};

/// SHA-256 of `bytes` as lower-case hex.
std::string sha256Hex(std::span<const std::uint8_t> bytes);
/// SHA-256 of `text` as lower-case hex.
std::string sha256Hex(std::string_view text);

}  // namespace strata::formats
