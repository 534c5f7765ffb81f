// Result<T>: reading the wrong side says which mistake it is, and an error's message with it.

#include <catch2/catch.hpp>

#include <string>

#include "strata/sim/result.h"

using strata::BadResultAccess;
using strata::Error;
using strata::Result;

TEST_CASE("Result: value() on an error and error() on a value throw BadResultAccess naming the mistake", "[sim][result]") {
  Result<int> failed = Error::badInput("level.glb: mesh 3, triangle 812: vertex is NaN");
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.error().message == "level.glb: mesh 3, triangle 812: vertex is NaN");
  CHECK_THROWS_MATCHES(failed.value(), BadResultAccess,
                       Catch::Message("strata::Result::value() on an error: level.glb: mesh 3, triangle 812: vertex is NaN"));
  CHECK_THROWS_AS(*failed, BadResultAccess);
  const Result<std::string> const_failed = Error::runtime("disk full");
  CHECK_THROWS_AS(const_failed->size(), BadResultAccess);
  CHECK_THROWS_AS(std::move(failed).value(), BadResultAccess);

  Result<std::string> fine = std::string("ok");
  REQUIRE(fine.ok());
  CHECK(*fine == "ok");
  CHECK(fine->size() == 2);
  CHECK_THROWS_MATCHES(fine.error(), BadResultAccess, Catch::Message("strata::Result::error() on a value"));
  CHECK(std::move(fine).value() == "ok");
}
