// Test helper: drives a workload through measure mode the way the host's runner calls it, without the runner's
// sampling loop, so that a plugin's test can check what each case reports from one measured sample.
#pragma once

#include <cstdint>
#include <vector>

#include <dgx/sdk/workload.hpp>

namespace dgx::testing {

/// Sets `workload` up, then for every case: begin_case, one sample of two iterations, and end_case with statistics of
/// five samples at that sample's time. Returns each case's measured seconds per iteration, in case order.
inline std::vector<double> measure_every_case(dgx::sdk::Workload& workload) {
  workload.setup();
  std::vector<double> seconds_per_iteration;
  for (std::size_t i = 0; i < workload.case_count(); ++i) {
    (void)workload.begin_case(i);
    dgx::sdk::SampleResult result;
    workload.run({static_cast<std::uint32_t>(i), 0, 2, false, false}, result);
    const double seconds = result.seconds / 2;
    seconds_per_iteration.push_back(seconds);
    workload.end_case(i, {5, seconds, seconds, 0, 0, 0, 0});
  }
  return seconds_per_iteration;
}

}  // namespace dgx::testing
