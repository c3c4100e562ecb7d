#include "dgx/llm/pipeline.hpp"

#include <doctest/doctest.h>

using namespace dgx::llm;

TEST_CASE("the bubble fraction is (p - 1) / (v m)") {
  CHECK(bubble_fraction(4, 1, 16) == doctest::Approx(3.0 / 16));
  CHECK(bubble_fraction(8, 4, 64) == doctest::Approx(7.0 / 256));
  CHECK(bubble_fraction(1, 1, 8) == 0);
}

TEST_CASE("the bubble shrinks with more microbatches") {
  for (int m = 1; m < 64; ++m) {
    CHECK(bubble_fraction(8, 1, m + 1) < bubble_fraction(8, 1, m));
  }
}

TEST_CASE("interleaving shrinks the bubble") {
  for (int v = 1; v < 8; ++v) {
    CHECK(bubble_fraction(4, v + 1, 16) < bubble_fraction(4, v, 16));
  }
}

TEST_CASE("pipeline time of balanced stages is (m + (p - 1)/v) stage times") {
  CHECK(pipeline_seconds(4, 2, 8, 1.0, 1.0) == doctest::Approx(8 + 1.5));
  // The slowest stage paces every microbatch; the bubble is made of average stages.
  CHECK(pipeline_seconds(4, 1, 8, 2.0, 1.0) == doctest::Approx(8 * 2.0 + 3 * 1.0));
}

TEST_CASE("the first stage holds p microbatches under 1F1B and p (1 + (p - 1)/(p v)) interleaved") {
  CHECK(inflight_microbatches(4, 1, 32, 0) == 4);
  CHECK(inflight_microbatches(4, 1, 32, 3) == 1);
  CHECK(inflight_microbatches(4, 1, 2, 0) == 2);  // fewer microbatches than stages
  CHECK(inflight_microbatches(4, 5, 64, 0) == doctest::Approx(4 * (1 + 3.0 / 20)));
  CHECK(inflight_microbatches(8, 4, 64, 0) == doctest::Approx(8 * (1 + 7.0 / 32)));
  CHECK(inflight_microbatches(4, 5, 64, 3) < inflight_microbatches(4, 5, 64, 0));
}
