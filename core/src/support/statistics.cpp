#include "dgx/core/support/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace dgx {

double Stats::median_noise() const {
  if (samples < 2 || median <= 0) {
    return INFINITY;
  }
  // sqrt(pi/2) relates the median's standard error to sigma; 1.4826 x MAD estimates sigma for normal data.
  return 1.2533 * 1.4826 * mad / median / std::sqrt(static_cast<double>(samples));
}

Stats compute_stats(const std::vector<double>& samples) {
  Stats s;
  s.samples = samples.size();
  if (samples.empty()) {
    return s;
  }
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  s.median = n % 2 == 1 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  s.min = sorted.front();
  s.max = sorted.back();
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(n);
  if (n > 1) {
    double sum_sq = 0;
    for (const double x : sorted) {
      sum_sq += (x - s.mean) * (x - s.mean);  // two-pass: no cancellation
    }
    s.stdev = std::sqrt(sum_sq / static_cast<double>(n - 1));
  }
  s.cv = s.mean > 0 ? s.stdev / s.mean : 0;
  std::vector<double> deviations(n);
  for (std::size_t i = 0; i < n; ++i) {
    deviations[i] = std::abs(sorted[i] - s.median);
  }
  std::nth_element(deviations.begin(), deviations.begin() + n / 2, deviations.end());
  s.mad = deviations[n / 2];
  return s;
}

}  // namespace dgx
