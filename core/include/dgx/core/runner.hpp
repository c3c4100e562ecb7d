// The measurement loop. The host owns it (nvbench's lesson): per case, untimed begin_case and warm-up, then timed
// samples until the stopping criterion (stopping_criterion.hpp) holds or a hard limit ends the case, then one
// measured row with the timing statistics and their provenance. With several ranks every sample starts at a
// barrier and counts the slowest rank's time.
#pragma once

#include <cstdint>
#include <vector>

#include "dgx/core/comm.hpp"
#include "dgx/core/config.hpp"
#include "dgx/core/host_services.hpp"
#include "dgx/core/results.hpp"
#include "dgx/core/statistics.hpp"
#include "dgx/core/stopping_criterion.hpp"
#include "dgx/core/workload_instance.hpp"

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

/// What measure() does around each case on rank 0: skip the cases a resumed journal holds (their rows are
/// reported as they were) and record each case that finished.
class CaseLog {
public:
  virtual ~CaseLog() = default;
  /// The row of case `index` from an earlier run, or null when the case must run.
  [[nodiscard]] virtual const ResultRow* finished(std::uint32_t index) const = 0;
  /// Case `index` of `count` finished (not cut short by cancellation) with `row`.
  virtual void record(std::uint32_t index, std::uint32_t count, const ResultRow& row) = 0;
};

/// Measures every case of `instance` and appends one measured row per case to `report`. `row_config` is the
/// workload's configuration, recorded in every row (a case's own entries are added to it). `log` (rank 0; may
/// be null) decides which cases to skip, and rank 0 tells the others.
CallResult measure(WorkloadInstance& instance, const RunnerSettings& settings, HostServices& services, HostComm& comm,
                   const json::Object& row_config, Report& report, CaseLog* log = nullptr);

}  // namespace dgx
