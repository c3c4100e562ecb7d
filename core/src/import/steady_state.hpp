// Private to import/: the steady state of a logged series of steps (steady_state.cpp says the rule).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "dgx/core/support/expected.hpp"

namespace dgx::detail {

struct SteadyState {
  std::vector<double> steady;  // the steps kept, in order
  std::size_t dropped = 0;     // warm-up steps dropped from the front
  double median = 0;

  /// "median of 90 steps, 10 warm-up steps dropped".
  [[nodiscard]] std::string describe() const;
};

inline constexpr std::size_t kMinSteadySteps = 3;

/// The steady state of `steps`, or a usage failure naming `origin` when too few steps remain.
Expected<SteadyState> steady_state(const std::vector<double>& steps, const std::string& origin);

}  // namespace dgx::detail
