// Private to the runner: one call of a workload's run(), timed, as seconds per iteration. Every rank starts it at
// a barrier and the slowest rank's time counts.
#pragma once

#include <dgx/plugin.h>

#include "dgx/core/comm.hpp"
#include "dgx/core/expected.hpp"
#include "dgx/core/workload_instance.hpp"

namespace dgx::detail {

/// The host's monotonic clock, in seconds.
double now();

/// Calls run() once with `request`; returns seconds per iteration (the slowest rank's), or the failure. `result`
/// holds what run() reported (how it timed, the cache state).
Expected<double> take_sample(WorkloadInstance& instance, HostComm& comm, const dgx_sample_request& request,
                             dgx_sample_result& result);

}  // namespace dgx::detail
