// SHA-256 against the FIPS 180-4 example vectors (NIST "SHA256.pdf" / FIPS 180-2 appendix B).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sha256.h"
#include "test_support.h"

using strata::formats::Sha256;
using strata::formats::sha256Hex;

TEST_CASE("SHA-256 of the standard test vectors", "[formats][import][sha256]") {
  // One-block message "abc".
  CHECK(sha256Hex(std::string_view("abc")) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // The empty message: padding only.
  CHECK(sha256Hex(std::string_view("")) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  // The 448-bit message: its padding spills into a second block.
  CHECK(sha256Hex(std::string_view("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")) ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  // The 896-bit two-block message.
  CHECK(sha256Hex(std::string_view("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu")) ==
        "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

TEST_CASE("SHA-256 incremental updates in uneven pieces match one update", "[formats][import][sha256]") {
  // One million 'a' fed in pieces of 1, 63, 64, 65 ... bytes, so every buffering path runs.
  const std::string million(1000000, 'a');
  Sha256 hash;
  std::size_t offset = 0;
  const std::size_t pieces[] = {1, 63, 64, 65, 127, 1000, 3};
  for (int i = 0; offset < million.size(); ++i) {
    const std::size_t n = std::min(pieces[i % 7], million.size() - offset);
    hash.update(std::string_view(million).substr(offset, n));
    offset += n;
  }
  CHECK(hash.hexDigest() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // Messages of 55, 56 and 64 bytes sit on the padding boundaries.
  for (std::size_t length : {55u, 56u, 63u, 64u, 119u, 120u}) {
    const std::string message(length, 'x');
    Sha256 split;
    split.update(std::string_view(message).substr(0, length / 2));
    split.update(std::string_view(message).substr(length / 2));
    CHECK(split.hexDigest() == sha256Hex(std::string_view(message)));
  }
  CHECK(sha256Hex(std::string_view(std::string(55, 'x'))) != sha256Hex(std::string_view(std::string(56, 'x'))));
}
