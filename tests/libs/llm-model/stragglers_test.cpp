#include "dgx/llm/stragglers.hpp"

#include <doctest/doctest.h>

using namespace dgx::llm;

TEST_CASE("the expected slowest of n standard normals matches the order-statistics values") {
  CHECK(expected_max_standard_normal(1) == 0);
  CHECK(expected_max_standard_normal(2) == doctest::Approx(0.5642).epsilon(0.03));
  CHECK(expected_max_standard_normal(8) == doctest::Approx(1.4236).epsilon(0.01));
  CHECK(expected_max_standard_normal(128) == doctest::Approx(2.6063).epsilon(0.01));
  CHECK(expected_max_standard_normal(16384) == doctest::Approx(3.9).epsilon(0.03));
}

TEST_CASE("straggler fraction grows with the GPU count and with the spread") {
  CHECK(straggler_fraction(0.02, 128) > straggler_fraction(0.02, 8));
  CHECK(straggler_fraction(0.03, 64) > straggler_fraction(0.02, 64));
  CHECK(straggler_fraction(0, 1024) == 0);
}
