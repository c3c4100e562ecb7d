// splitmix64 and what is built on it; the constants are those of Vigna's reference implementation
// (https://prng.di.unimi.it/splitmix64.c), so the stream for a seed matches every other splitmix64.
#include "dgx/core/support/seeded_random.hpp"

#include <cmath>
#include <numbers>
#include <utility>

namespace dgx {

std::uint64_t SeededRandom::next() {
  std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31U);
}

std::size_t SeededRandom::below(std::size_t bound) {
  if (bound == 0) {
    return 0;
  }
  const std::uint64_t n = bound;
  const std::uint64_t rejected = (0 - n) % n;  // 2^64 mod n: the draws below it would favour small results
  std::uint64_t draw = next();
  while (draw < rejected) {
    draw = next();
  }
  return static_cast<std::size_t>(draw % n);
}

double SeededRandom::unit() { return static_cast<double>(next() >> 11U) * 0x1.0p-53; }

double SeededRandom::normal() {
  const double u1 = 1 - unit();  // (0, 1]: the logarithm stays finite
  const double u2 = unit();
  return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
}

void SeededRandom::shuffle(std::span<double> values) {
  for (std::size_t i = values.size(); i > 1; --i) {
    std::swap(values[i - 1], values[below(i)]);
  }
}

}  // namespace dgx
