#include "dgx/core/measure/stopping_criterion.hpp"

#include <algorithm>

#include "dgx/core/config/runner_settings.hpp"
#include "dgx/core/support/text.hpp"

namespace dgx {

namespace {

std::string percent(double fraction) { return text::format_number(fraction * 100.0, 3) + "%"; }

}  // namespace

bool StoppingCriterion::add(double seconds_per_iteration, double wall_time, bool cancelled) {
  const RunnerSettings& s = *settings_;
  samples_.push_back(seconds_per_iteration);
  measured_ += seconds_per_iteration * s.batch;
  const bool limit = wall_time >= s.max_time || samples_.size() >= s.max_samples || cancelled;
  if (samples_.size() < next_check_ && !limit) {
    return false;
  }
  next_check_ = std::max(samples_.size() + 1, samples_.size() * 21 / 20);
  stats_ = compute_stats(samples_);
  decision_ = evaluate(stats_, measured_, wall_time, cancelled);
  return decision_.stop;
}

void StoppingCriterion::stop_at_cut(double wall_time, bool cancelled) {
  stats_ = compute_stats(samples_);
  decision_ = evaluate(stats_, measured_, cancelled ? wall_time : std::max(wall_time, settings_->max_time), cancelled);
  decision_.stop = true;
  decision_.reason += " (the sample in flight was cut short and not counted)";
}

StopDecision StoppingCriterion::evaluate(const Stats& stats, double measured_time, double wall_time,
                                         bool cancelled) const {
  const RunnerSettings& s = *settings_;
  const double noise = stats.median_noise();
  std::vector<std::string> unmet;
  if (stats.samples < s.min_samples) {
    unmet.push_back("min_samples (" + std::to_string(stats.samples) + " of " + std::to_string(s.min_samples) + ")");
  }
  if (measured_time < s.min_time) {
    unmet.push_back("min_time (" + text::format_number(measured_time, 3) + " of " + text::format_number(s.min_time, 3) +
                    " s)");
  }
  if (s.noise > 0 && !(noise <= s.noise)) {
    unmet.push_back("noise (" + percent(noise) + " > " + percent(s.noise) + ")");
  }

  if (unmet.empty()) {
    std::string reason = "criteria met: " + std::to_string(stats.samples) + " samples, " +
                         text::format_number(measured_time, 3) + " s measured";
    if (s.noise > 0) {
      reason += ", noise " + percent(noise) + " <= " + percent(s.noise);
    }
    return {true, true, reason};
  }
  const std::string missing = "; unmet: " + text::join(unmet, ", ");
  if (cancelled) {
    return {true, false, "cancelled by the user" + missing};
  }
  if (stats.samples >= s.max_samples) {
    return {true, false, "max_samples " + std::to_string(s.max_samples) + " reached" + missing};
  }
  if (wall_time >= s.max_time) {
    return {true, false, "max_time " + text::format_number(s.max_time, 3) + " s reached" + missing};
  }
  return {false, false, {}};
}

}  // namespace dgx
