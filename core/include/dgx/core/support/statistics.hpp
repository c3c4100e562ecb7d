// Summary statistics of timed samples (seconds per iteration).
#pragma once

#include <cstdint>
#include <vector>

namespace dgx {

struct Stats {
  std::uint64_t samples = 0;
  double median = 0;
  double mean = 0;
  double min = 0;
  double max = 0;
  double stdev = 0;  // sample standard deviation (n - 1); 0 for one sample
  double cv = 0;     // stdev / mean
  double mad = 0;    // median absolute deviation from the median
  /// Relative standard error of the median, 1.2533 x 1.4826 x MAD / sqrt(n) / median: the runner's noise
  /// criterion. Robust to the outliers a busy machine produces (a preempted sample), like the median itself.
  [[nodiscard]] double median_noise() const;
};

Stats compute_stats(const std::vector<double>& samples);

}  // namespace dgx
