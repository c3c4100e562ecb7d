#include <doctest/doctest.h>

#include <cmath>

#include "dgx/core/support/statistics.hpp"

using namespace dgx;

TEST_CASE("statistics of known samples") {
  const Stats s = compute_stats({4.0, 1.0, 3.0, 2.0, 5.0});
  CHECK(s.samples == 5);
  CHECK(s.median == 3.0);
  CHECK(s.mean == 3.0);
  CHECK(s.min == 1.0);
  CHECK(s.max == 5.0);
  CHECK(s.stdev == doctest::Approx(std::sqrt(2.5)));  // sample standard deviation
  CHECK(s.cv == doctest::Approx(std::sqrt(2.5) / 3.0));
  CHECK(s.mad == 1.0);
  CHECK(s.median_noise() == doctest::Approx(1.2533 * 1.4826 / 3.0 / std::sqrt(5.0)));
}

TEST_CASE("the median of an even count averages the middle pair") {
  CHECK(compute_stats({1.0, 2.0, 10.0, 20.0}).median == 6.0);
}

TEST_CASE("one sample has no spread and an infinite standard error") {
  const Stats s = compute_stats({0.5});
  CHECK(s.stdev == 0);
  CHECK(s.cv == 0);
  CHECK(std::isinf(s.median_noise()));
  CHECK(compute_stats({}).samples == 0);
}

TEST_CASE("the standard deviation does not lose precision on large offsets") {
  const Stats s = compute_stats({1e9 + 1, 1e9 + 2, 1e9 + 3});
  CHECK(s.stdev == doctest::Approx(1.0));
}

TEST_CASE("an outlier barely moves the median noise") {
  std::vector<double> samples(100, 1.0);
  for (std::size_t i = 0; i < samples.size(); ++i) {
    samples[i] += 0.001 * static_cast<double>(i % 10);
  }
  const double quiet = compute_stats(samples).median_noise();
  samples[0] = 50.0;  // one preempted sample
  CHECK(compute_stats(samples).median_noise() == doctest::Approx(quiet).epsilon(0.25));
  CHECK(compute_stats(samples).cv > 1.0);  // while the coefficient of variation explodes
}
