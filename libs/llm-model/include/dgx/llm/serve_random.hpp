// The seeded random numbers of the serving simulation: SplitMix64 (Steele, Lea, Flood, OOPSLA 2014), and the few
// distributions it needs, computed here rather than by <random>'s distributions, whose algorithms differ between
// standard libraries: a seed gives the same requests and arrivals on every platform.
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>

namespace dgx::llm {

class SplitMix64 {
public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}

  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in (0, 1): the top 53 bits, never exactly 0 (a logarithm follows).
  double uniform() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }
  /// Exponential with the given rate (the gaps of a Poisson process).
  double exponential(double rate) { return -std::log(uniform()) / rate; }
  /// Normal by Box-Muller (one of the pair; simplicity over speed).
  double normal(double mean, double stdev) {
    const double radius = std::sqrt(-2.0 * std::log(uniform()));
    return mean + stdev * radius * std::cos(2.0 * std::numbers::pi * uniform());
  }

private:
  std::uint64_t state_;
};

}  // namespace dgx::llm
