// The rule, the same for every tool: drop the first 10% of the logged steps, and at least the first one, then take
// the median of the rest; at least 3 steps must remain. Why: the first steps of every framework pay one-time
// costs (torchtitan's torch.compile, NeMo's and Megatron's CUDA-graph capture, allocator warm-up, the first data
// prefetch), and their users drop them the same way (DGX Cloud Benchmarking's recipes read iterations 11-44 of 50
// and take their mean); the median keeps a slow step (a checkpoint, a preempted node) from moving the result.
#include "steady_state.hpp"

#include <algorithm>

#include "dgx/core/support/statistics.hpp"
#include "parsed_run.hpp"

namespace dgx::detail {

std::string SteadyState::describe() const {
  return "median of " + std::to_string(steady.size()) + " steps, " + std::to_string(dropped) + " warm-up step" +
         (dropped == 1 ? "" : "s") + " dropped";
}

Expected<SteadyState> steady_state(const std::vector<double>& steps, const std::string& origin) {
  const std::size_t n = steps.size();
  const std::size_t dropped = std::max<std::size_t>(1, (n + 9) / 10);
  if (n < dropped + kMinSteadySteps) {
    return bad_input(origin, 0,
                     "no steady state: the run logged only " + std::to_string(n) + " step" + (n == 1 ? "" : "s") +
                         " (a crashed or truncated run?); at least " + std::to_string(dropped + kMinSteadySteps) +
                         " are needed, the first " + std::to_string(dropped) + " being warm-up");
  }
  SteadyState s;
  s.dropped = dropped;
  s.steady.assign(steps.begin() + static_cast<std::ptrdiff_t>(dropped), steps.end());
  s.median = compute_stats(s.steady).median;
  return s;
}

}  // namespace dgx::detail
