// Private to log-import/: the steady state of a logged series of steps (steady_state.cpp says the rule).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "dgx/log_import/log_text.hpp"

namespace dgx::logs {

inline constexpr std::size_t kMinSteadySteps = 3;

/// What decides the warm-up besides the values: where the log starts, and the user's own count.
struct WarmupRule {
  long first_step = 0;                      // the step number of the first value; 0 when the log does not number them
  bool warm_at_start = false;               // the tool warms up before it starts timing (MLPerf's run_start)
  std::optional<std::size_t> warmup;        // import.warmup=N: the steps to drop, replacing the automatic rule
  std::size_t min_steps = kMinSteadySteps;  // steps that must remain; 1 when the user named the warm-up
};

struct SteadyState {
  std::vector<double> steady;  // the steps kept, in order
  std::size_t dropped = 0;     // warm-up steps dropped from the front
  double median = 0;
  bool mid_run = false;        // the log starts after step 1: its first steps are no warm-up
  bool warm_at_start = false;  // the tool warmed up before it timed
  bool user_warmup = false;    // import.warmup chose `dropped`

  /// "median of 90 steps, 10 warm-up steps dropped".
  [[nodiscard]] std::string describe() const;
};

/// The median of `values` (the mean of the middle two for an even count); 0 for none.
double median(std::vector<double> values);

/// The steady state of `steps`, or a usage failure naming `origin` when fewer than rule.min_steps remain.
Expected<SteadyState> steady_state(const std::vector<double>& steps, const std::string& origin,
                                   const WarmupRule& rule = {});

}  // namespace dgx::logs
