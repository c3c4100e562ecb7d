#include "sampling.hpp"

#include <chrono>
#include <cmath>

#include "dgx/core/text.hpp"

namespace dgx::detail {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

Expected<double> take_sample(WorkloadInstance& instance, HostComm& comm, const dgx_sample_request& request,
                             dgx_sample_result& result) {
  if (comm.ranks().world_size > 1) comm.barrier();
  result = {sizeof(dgx_sample_result), DGX_TIMING_HOST_WALL, -1.0, 0};
  const double start = now();
  if (auto failure = instance.run(request, result)) return *failure;
  double seconds = now() - start;
  if (result.timing != DGX_TIMING_HOST_WALL) {
    if (!(result.seconds > 0) || !std::isfinite(result.seconds))
      return Failure{ExitCode::run_failed, instance.workload().plugin->name + ":" + instance.workload().name +
                                               ": run() reported its own timing but no positive time (seconds = " +
                                               text::format_number(result.seconds) + ")"};
    seconds = result.seconds;
  }
  double per_iteration = seconds / request.iterations;
  if (comm.ranks().world_size > 1) comm.all_reduce(&per_iteration, 1, DGX_REDUCE_MAX);
  return per_iteration;
}

}  // namespace dgx::detail
