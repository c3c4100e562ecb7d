#include "dgx/core/measure/iteration_check.hpp"

#include <algorithm>
#include <limits>

#include "dgx/core/support/text.hpp"

namespace dgx {

namespace {

std::string duration(double seconds) { return text::duration(seconds, text::Rounding::significant); }

// The fastest of kProbeSamples samples of `iterations` iterations.
Expected<double> fastest(const IterationCheck::Timer& time, std::uint32_t iterations) {
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i < IterationCheck::kProbeSamples; ++i) {
    auto seconds = time(iterations);
    if (!seconds) {
      return seconds.error();
    }
    best = std::min(best, seconds.value());
  }
  return best;
}

bool honoured(std::uint32_t iterations, double many, double one) {
  const double expected = std::min(2.0, (1.0 + iterations) / 2.0);
  return many >= expected * one;
}

}  // namespace

std::string IgnoredIterations::evidence() const {
  return "a sample of " + std::to_string(iterations) + " iterations took " + duration(many_seconds) +
         ", one of 1 iteration " + duration(one_seconds) + " (expected about " + std::to_string(iterations) +
         " times as long)";
}

Expected<std::optional<IgnoredIterations>> IterationCheck::run(std::uint32_t batch, const Timer& time) {
  auto one = fastest(time, 1);
  if (!one) {
    return one.error();
  }
  std::uint32_t iterations = batch;
  for (int growth = 0;; ++growth) {
    auto many = fastest(time, iterations);
    if (!many) {
      return many.error();
    }
    if (honoured(iterations, many.value(), one.value())) {
      return std::optional<IgnoredIterations>{};
    }
    const bool can_grow = growth < kMaxGrowths && iterations <= 1'000'000'000u / kGrowth;
    if (can_grow) {
      iterations *= kGrowth;
      continue;
    }
    if (many.value() < kFloor) {
      return std::optional<IgnoredIterations>{};  // too short to tell
    }
    return std::optional<IgnoredIterations>{IgnoredIterations{iterations, many.value(), one.value()}};
  }
}

}  // namespace dgx
