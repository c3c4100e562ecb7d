// The rule, the same for every tool. A log that starts at the run's start (its first step is 1, or it does not
// number steps) drops the first 10% of its steps, and at least the first one; a mid-run excerpt (its first step is
// later) or a tool that warms up before it times (MLPerf) drops nothing for that reason. Then any step at the front
// still more than 10% off the median of the rest is ramp-up and dropped too (at most half the steps), and the result is
// the median of what is left; at least 3 steps must remain. Why: the first steps of every framework pay one-time costs
// (torchtitan's torch.compile, NeMo's and Megatron's CUDA-graph capture, allocator warm-up, the first data prefetch),
// some for more than one step (Megatron MoE runs' second iteration is still twice the steady one), and their users drop
// them the same way (DGX Cloud Benchmarking's recipes read iterations 11-44 of 50 and take their mean); the median
// keeps a slow step (a checkpoint, a preempted node) from moving the result. `import.warmup=N` replaces the rule with
// the user's N (0 allowed) and then one step is enough: the user vouches that they are steady.
#include "steady_state.hpp"

#include <algorithm>
#include <cmath>

#include "parsed_run.hpp"

namespace dgx::logs {

double median(std::vector<double> values) {
  if (values.empty()) {
    return 0;
  }
  const std::size_t n = values.size();
  std::sort(values.begin(), values.end());
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

namespace {

constexpr double kRampTolerance = 0.10;  // a front step further than this from the steady median is ramp-up

std::size_t automatic_warmup(const std::vector<double>& steps, bool mid_run) {
  const std::size_t n = steps.size();
  std::size_t dropped = mid_run ? 0 : std::max<std::size_t>(1, (n + 9) / 10);
  if (dropped >= n) {
    return dropped;
  }
  const double middle = median(std::vector<double>(steps.begin() + static_cast<std::ptrdiff_t>(dropped), steps.end()));
  while (dropped + 1 < n && dropped < n / 2 && std::abs(steps[dropped] - middle) > kRampTolerance * middle) {
    ++dropped;
  }
  return dropped;
}

}  // namespace

std::string SteadyState::describe() const {
  std::string why;
  if (user_warmup) {
    why = " (import.warmup)";
  } else if (warm_at_start && dropped == 0) {
    why = " (the tool warms up before it times)";
  } else if (mid_run && dropped == 0) {
    why = " (a mid-run excerpt)";
  }
  return "median of " + std::to_string(steady.size()) + " step" + (steady.size() == 1 ? "" : "s") + ", " +
         std::to_string(dropped) + " warm-up step" + (dropped == 1 ? "" : "s") + " dropped" + why;
}

Expected<SteadyState> steady_state(const std::vector<double>& steps, const std::string& origin,
                                   const WarmupRule& rule) {
  const std::size_t n = steps.size();
  SteadyState s;
  s.mid_run = rule.first_step > 1;
  s.warm_at_start = rule.warm_at_start;
  s.user_warmup = rule.warmup.has_value();
  s.dropped = rule.warmup ? *rule.warmup : automatic_warmup(steps, s.mid_run || s.warm_at_start);
  const std::size_t min_steps = s.user_warmup ? 1 : rule.min_steps;
  if (n < s.dropped + min_steps) {
    const std::string logged = "the run logged only " + std::to_string(n) + " step" + (n == 1 ? "" : "s");
    if (s.user_warmup) {
      return bad_input(origin, 0,
                       "no steady state: " + logged + " and import.warmup=" + std::to_string(s.dropped) + " drops " +
                           (s.dropped >= n ? "them all" : "all but " + std::to_string(n - s.dropped)));
    }
    return bad_input(origin, 0,
                     "no steady state: " + logged + " (a crashed or truncated run?); at least " +
                         std::to_string(s.dropped + min_steps) + " are needed, the first " + std::to_string(s.dropped) +
                         " being warm-up. If the logged steps are steady, say how many to drop: --set "
                         "import.warmup=N (0 allowed)");
  }
  s.steady.assign(steps.begin() + static_cast<std::ptrdiff_t>(s.dropped), steps.end());
  s.median = median(s.steady);
  return s;
}

}  // namespace dgx::logs
