// The measurement loop. The host owns it (nvbench's lesson): per case, untimed begin_case and warm-up, then timed
// samples until the stopping criterion (stopping_criterion.hpp) holds or a hard limit ends the case, then one
// measured row with the timing statistics and their provenance. With several ranks every sample starts at a
// barrier and counts the slowest rank's time.
#pragma once

#include <cstdint>

#include "dgx/core/config/runner_settings.hpp"
#include "dgx/core/distributed/comm.hpp"
#include "dgx/core/plugin/host_services.hpp"
#include "dgx/core/plugin/workload_instance.hpp"
#include "dgx/core/results/document.hpp"
#include "dgx/json/json.hpp"

namespace dgx {

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
