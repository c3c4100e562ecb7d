#include <doctest/doctest.h>

#include "dgx/core/support/quantity.hpp"

using namespace dgx;

TEST_CASE("units convert within one quantity and refuse across quantities") {
  CHECK(convert(1.5, "GB/s", "B/s").value() == doctest::Approx(1.5e9));
  CHECK(convert(2, "ms", "us").value() == doctest::Approx(2000));
  CHECK(convert(1, "GiB", "B").value() == doctest::Approx(1073741824.0));
  CHECK(convert(0.4059, "1", "%").value() == doctest::Approx(40.59));
  CHECK(convert(794.5, "TFLOP/s", "GFLOP/s").value() == doctest::Approx(794500));
  CHECK_FALSE(convert(1, "s", "B").has_value());
  CHECK_FALSE(convert(1, "furlongs", "s").has_value());
}

TEST_CASE("the better direction follows the quantity: time and cost lower, rates and peak fractions higher") {
  CHECK(better_direction("time.median", "s") == Better::lower);
  CHECK(better_direction("cost_usd", "USD") == Better::lower);
  CHECK(better_direction("hours_to_finetune", "h") == Better::lower);  // a fine-tuning run's time
  CHECK(better_direction("days_to_train", "days") == Better::lower);
  CHECK(better_direction("busbw", "GB/s") == Better::higher);
  CHECK(better_direction("tokens_per_s_per_gpu", "tokens/s") == Better::higher);
  CHECK(better_direction("mfu", "%") == Better::higher);
  CHECK(better_direction("layer.mfu", "%") == Better::higher);
  CHECK(better_direction("time.cv", "%") == Better::lower);
  CHECK(better_direction("size", "B") == Better::none);
  CHECK(better_direction("samples", "count") == Better::none);
}

TEST_CASE("the goodness ratio reads above 1 as better whichever way the metric improves") {
  CHECK(goodness_ratio(Better::lower, 1.1, 1.0).value() == doctest::Approx(1 / 1.1));
  CHECK(goodness_ratio(Better::higher, 450, 480).value() == doctest::Approx(0.9375));
  CHECK_FALSE(goodness_ratio(Better::none, 1, 1).has_value());
  CHECK_FALSE(goodness_ratio(Better::higher, 1, 0).has_value());
}

TEST_CASE("quantities print with a readable prefix") {
  CHECK(format_quantity(0.0011, "s") == "1.100 ms");
  CHECK(format_quantity(4300, "GB/s") == "4.300 TB/s");
  CHECK(format_quantity(1564, "tokens/s") == "1564 tokens/s");
  CHECK(format_quantity(38.05, "%") == "38.05%");
}
