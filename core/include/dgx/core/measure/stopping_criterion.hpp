// When the timed phase of a case stops, as an object of its own (nvbench's stopping_criterion): the runner hands
// it every sample and asks whether to go on. It is satisfied by at least min_samples samples, at least min_time
// seconds of measured time, and a relative standard error of the median under the noise target; a hard limit
// (max_time, max_samples, cancellation) stops it unsatisfied, and the decision names the unmet criterion.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "dgx/core/support/statistics.hpp"

namespace dgx {

struct RunnerSettings;

/// Why the timed phase of a case stopped, and which criterion was unmet, if any.
struct StopDecision {
  bool stop = false;
  bool criteria_met = false;
  std::string reason;
};

class StoppingCriterion {
public:
  /// `settings` must outlive the criterion.
  explicit StoppingCriterion(const RunnerSettings& settings) : settings_(&settings) {}

  /// Records one timed sample (seconds per iteration) taken `wall_time` seconds into the timed phase; true when
  /// sampling should stop. The statistics cost O(n log n), so the criteria are evaluated at geometrically
  /// spaced sample counts, and at once when a hard limit is reached.
  bool add(double seconds_per_iteration, double wall_time, bool cancelled);

  /// Ends sampling because the sample in flight was cut short (not counted) `wall_time` seconds into the timed
  /// phase, by Ctrl-C (`cancelled`) or else by runner.max_time: the decision says so. At least one sample must
  /// have been added.
  void stop_at_cut(double wall_time, bool cancelled);

  /// The rule alone, for statistics of `measured_time` seconds of samples taken over `wall_time` seconds.
  [[nodiscard]] StopDecision evaluate(const Stats& stats, double measured_time, double wall_time, bool cancelled) const;

  [[nodiscard]] const StopDecision& decision() const { return decision_; }
  [[nodiscard]] const Stats& stats() const { return stats_; }
  [[nodiscard]] const std::vector<double>& samples() const { return samples_; }
  /// Seconds of measured time so far: the samples times the iterations in each.
  [[nodiscard]] double measured_time() const { return measured_; }

private:
  const RunnerSettings* settings_;
  std::vector<double> samples_;
  Stats stats_;
  StopDecision decision_;
  double measured_ = 0;
  std::size_t next_check_ = 1;
};

}  // namespace dgx
