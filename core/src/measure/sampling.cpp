#include "sampling.hpp"

#include <chrono>
#include <cmath>

#include "dgx/core/plugin/cancellation.hpp"
#include "dgx/core/support/text.hpp"

namespace dgx::detail {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

Expected<std::optional<double>> take_sample(WorkloadInstance& instance, HostComm& comm,
                                            const dgx_sample_request& request, dgx_sample_result& result) {
  if (comm.ranks().world_size > 1) {
    comm.barrier();
  }
  result = {sizeof(dgx_sample_result), DGX_TIMING_HOST_WALL, -1.0, 0};
  double seconds = 0;
  const CallResult failure = instance.run(request, result, seconds);
  // Stopped early at the user's Ctrl-C or at the deadline, here or on another rank (a plugin's ranks agree when to
  // stop between blocking collectives, so a rank whose own time is not up stops with the others): the sample is cut
  // short, so its time means nothing.
  const bool cut = failure && failure->code == ExitCode::interrupted;
  if (failure && !cut) {
    return *failure;
  }
  if (cut) {
    if (comm.ranks().world_size > 1) {  // the other ranks learn it from the reduction below
      double values[3] = {0.0, cancel_requested() ? 1.0 : 0.0, 1.0};
      comm.all_reduce(values, 3, DGX_REDUCE_MAX);
      if (values[1] > 0) {
        request_cancel();
      }
    }
    return std::optional<double>();
  }
  if (result.timing != DGX_TIMING_HOST_WALL) {
    if (!(result.seconds > 0) || !std::isfinite(result.seconds)) {
      return Failure{ExitCode::run_failed, instance.workload().plugin->name + ":" + instance.workload().name +
                                               ": run() reported its own timing but no positive time (seconds = " +
                                               text::format_number(result.seconds) + ")"};
    }
    seconds = result.seconds;
  }
  double per_iteration = seconds / request.iterations;
  if (comm.ranks().world_size > 1) {
    // The slowest rank's time, whether any rank was interrupted (then every rank stops after this sample), and
    // whether any rank's sample was cut at the deadline (then no rank counts it).
    double values[3] = {per_iteration, cancel_requested() ? 1.0 : 0.0, 0.0};
    comm.all_reduce(values, 3, DGX_REDUCE_MAX);
    per_iteration = values[0];
    if (values[1] > 0) {
      request_cancel();
    }
    if (values[2] > 0) {
      return std::optional<double>();
    }
  }
  return std::optional<double>(per_iteration);
}

bool agreed(HostComm& comm, bool local) {
  if (comm.ranks().world_size < 2) {
    return local;
  }
  double value = local ? 1.0 : 0.0;
  comm.all_reduce(&value, 1, DGX_REDUCE_MAX);
  return value > 0;
}

}  // namespace dgx::detail
