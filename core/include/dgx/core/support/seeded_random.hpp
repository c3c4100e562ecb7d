// A small seeded random source whose output is the same on every platform and standard library: splitmix64
// (Steele, Lea and Flood; Vigna's reference constants), with bounded integers by rejection, a Fisher-Yates shuffle
// and Box-Muller normals built on it. std:: distributions are not used because their output differs between
// standard libraries: the change-point detector's permutations (change_points) and the synthetic series of its
// tests and benchmark must be reproducible anywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace dgx {

class SeededRandom {
public:
  explicit SeededRandom(std::uint64_t seed) : state_(seed) {}

  /// The next 64 random bits (splitmix64).
  std::uint64_t next();
  /// Uniform in [0, bound); 0 when bound is 0. Unbiased: draws that fall in the incomplete last block are redrawn.
  std::size_t below(std::size_t bound);
  /// Uniform in [0, 1), 53 random bits.
  double unit();
  /// Standard normal (mean 0, stdev 1), by Box-Muller; one draw per call.
  double normal();
  /// A uniformly random order of `values` (Fisher-Yates).
  void shuffle(std::span<double> values);

private:
  std::uint64_t state_;
};

}  // namespace dgx
