// The runner.* keys: the host's measurement settings, which every measurable workload accepts (their schema with
// defaults, and the range checks that say what was given and where), and a workload's own configuration without
// the host's keys, which every result row records.
#pragma once

#include <cstdint>
#include <vector>

#include "dgx/core/config/layered_config.hpp"
#include "dgx/core/support/expected.hpp"
#include "dgx/json/json.hpp"

namespace dgx {

struct RunnerSettings {
  static constexpr std::int64_t kMaxBatch = 1'000'000'000;  // request.iterations is 32-bit

  std::uint64_t warmup = 3;  // warm-up samples, discarded
  double warmup_time = 0.0;  // ... and at least this long (s)
  std::uint64_t min_samples = 10;
  std::uint64_t max_samples = 100000;
  double min_time = 0.5;    // seconds of measured time
  double max_time = 30.0;   // wall-clock limit of the timed phase of one case (s)
  double noise = 0.005;     // target relative standard error of the median; 0 disables
  std::uint32_t batch = 1;  // iterations per sample
  bool cold = false;        // ask the workload to flush caches before each sample

  /// The runner.* keys, which every measurable workload accepts.
  static std::vector<ParamSpec> params();
  /// Reads runner.* from `config`; a usage failure for values out of range.
  static Expected<RunnerSettings> from(const ResolvedConfig& config);
};

/// The workload's own configuration, without the runner.* and verdict.* keys: what every result row records.
json::Object workload_config(const ResolvedConfig& config);

}  // namespace dgx
