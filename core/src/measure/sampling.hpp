// Private to the runner: one call of a workload's run(), timed, as seconds per iteration. Every rank starts it at
// a barrier and the slowest rank's time counts.
#pragma once

#include <dgx/plugin.h>

#include <optional>

#include "dgx/core/distributed/comm.hpp"
#include "dgx/core/plugin/workload_instance.hpp"
#include "dgx/core/support/expected.hpp"

namespace dgx::detail {

/// The host's monotonic clock, in seconds.
double now();

/// Calls run() once with `request`; returns seconds per iteration (the slowest rank's), or the failure. `result`
/// holds what run() reported (how it timed, the cache state). nullopt, on every rank, when run() on some rank
/// stopped early (DGX_ERR_CANCELLED) at Ctrl-C or because the call deadline passed (cancellation.hpp): the
/// sample was cut short and must not be counted.
/// With several ranks it also spreads an interruption: when any rank was interrupted, every rank's
/// cancel_requested() is true on return.
Expected<std::optional<double>> take_sample(WorkloadInstance& instance, HostComm& comm,
                                            const dgx_sample_request& request, dgx_sample_result& result);

/// True on every rank when `local` is true on any (collective): a decision that ranks taking it from their own
/// clocks or signals could otherwise take differently, leaving one rank waiting in a collective.
bool agreed(HostComm& comm, bool local);

}  // namespace dgx::detail
