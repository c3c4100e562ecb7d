#include <doctest/doctest.h>

#include "dgx/core/support/mann_whitney.hpp"

using namespace dgx;

// Reference values from scipy.stats.mannwhitneyu(a, b, alternative="two-sided").
TEST_CASE("fully separated small samples: the exact two-sided p-value") {
  const UTest t = mann_whitney_u({1, 2, 3}, {4, 5, 6});
  CHECK(t.exact);
  CHECK(t.u == 0);
  CHECK(t.p_value == doctest::Approx(0.1));  // 2 / C(6, 3)
  CHECK(mann_whitney_u({4, 5, 6}, {1, 2, 3}).p_value == doctest::Approx(0.1));
}

TEST_CASE("interleaved samples are not significant") {
  const UTest t = mann_whitney_u({1, 3, 5, 7, 9}, {2, 4, 6, 8, 10});
  CHECK(t.exact);
  CHECK(t.u == 10);
  CHECK(t.p_value == doctest::Approx(0.6904761904761905));
}

TEST_CASE("nine against nine, shifted: significant, as compare.py's optimal repetitions would show") {
  const std::vector<double> a{1.00, 1.01, 0.99, 1.02, 1.00, 0.98, 1.01, 1.00, 0.99};
  std::vector<double> b;
  for (const double x : a) {
    b.push_back(x * 1.1);
  }
  const UTest t = mann_whitney_u(a, b);
  CHECK(t.p_value < 0.001);
}

TEST_CASE("ties use the normal approximation with tie and continuity corrections") {
  const UTest t = mann_whitney_u({1, 2, 2, 3}, {2, 3, 3, 4});
  CHECK_FALSE(t.exact);
  CHECK(t.u == 3);                                             // ranks of a: 1 + 3 + 3 + 6 = 13, U = 13 - 10
  CHECK(t.p_value == doctest::Approx(0.17203).epsilon(1e-3));  // scipy's asymptotic method
  CHECK(mann_whitney_u({5, 5, 5}, {5, 5, 5}).p_value == 1);
  CHECK(mann_whitney_u({}, {1}).p_value == 1);
}

TEST_CASE("large samples use the normal approximation") {
  std::vector<double> a, b;
  for (int i = 0; i < 30; ++i) {
    a.push_back(i);
    b.push_back(i + 0.5);
  }
  const UTest t = mann_whitney_u(a, b);
  CHECK_FALSE(t.exact);
  CHECK(t.p_value > 0.5);
}
