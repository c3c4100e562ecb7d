#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <vector>

#include "dgx/core/support/seeded_random.hpp"

using namespace dgx;

TEST_CASE("seed 0 gives the first outputs of Vigna's reference splitmix64") {
  SeededRandom random(0);
  CHECK(random.next() == 0xE220A8397B1DCDAFULL);
  CHECK(random.next() == 0x6E789E6AA1B965F4ULL);
  CHECK(random.next() == 0x06C45D188009454FULL);
}

TEST_CASE("bounded draws stay below the bound and reach every value about equally often") {
  SeededRandom random(7);
  std::array<int, 6> counts{};
  for (int i = 0; i < 6000; ++i) {
    const std::size_t face = random.below(6);
    REQUIRE(face < 6);
    ++counts.at(face);
  }
  for (const int c : counts) {
    CHECK(c > 850);  // 1000 expected, standard deviation 29
    CHECK(c < 1150);
  }
  CHECK(random.below(0) == 0);
  CHECK(random.below(1) == 0);
}

TEST_CASE("unit draws lie from 0 up to 1 and normal draws have mean 0 and standard deviation 1") {
  SeededRandom random(11);
  double sum = 0, sum_sq = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const double u = random.unit();
    REQUIRE(u >= 0);
    REQUIRE(u < 1);
    const double z = random.normal();
    sum += z;
    sum_sq += z * z;
  }
  CHECK(std::abs(sum / n) < 0.03);  // the standard error of the mean is 0.007
  CHECK(std::sqrt(sum_sq / n) == doctest::Approx(1).epsilon(0.03));
}

TEST_CASE("a shuffle is a permutation, the same for the same seed and another for another seed") {
  std::vector<double> first(20), second(20), other(20);
  std::iota(first.begin(), first.end(), 0.0);
  second = first;
  other = first;
  SeededRandom a(3), b(3), c(4);
  a.shuffle(first);
  b.shuffle(second);
  c.shuffle(other);
  CHECK(first == second);
  CHECK(first != other);
  std::vector<double> sorted = first;
  std::sort(sorted.begin(), sorted.end());
  std::vector<double> expected(20);
  std::iota(expected.begin(), expected.end(), 0.0);
  CHECK(sorted == expected);
}
