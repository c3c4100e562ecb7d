// E-Divisive with means (Matteson and James 2014, "A nonparametric approach for multiple change point analysis of
// multivariate data", with the exponent 2 that turns its energy distance into a difference of means; what Hunter,
// now Apache Otava, and MongoDB run on performance series) and the window test of dgxhost history --detect.
#include "dgx/core/support/change_points.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>
#include <span>
#include <string>

#include "dgx/core/support/mann_whitney.hpp"
#include "dgx/core/support/seeded_random.hpp"
#include "dgx/core/support/statistics.hpp"
#include "dgx/core/support/text.hpp"

namespace dgx {

namespace {

// [begin, end) of the series: a stretch between change points.
struct Segment {
  std::size_t begin = 0;
  std::size_t end = 0;
};

// The best split of the series: the first point of the new segment and the statistic there (0: no split).
struct Split {
  std::size_t at = 0;
  double q = 0;
};

struct Accepted {
  std::size_t index = 0;
  double p_value = 1;
};

double mean_of(std::span<const double> values) {
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

// Splitting n points after the first m: q = m (n - m) / n x (mean_left - mean_right)^2, the E-Divisive statistic
// with exponent 2 (its divergence becomes twice the squared difference of the means) scaled by the sizes. O(n)
// with a running sum of the left side.
Split best_split(std::span<const double> values, Segment s, std::size_t min_segment) {
  Split best;
  const std::size_t n = s.end - s.begin;
  if (n < 2 * min_segment) {
    return best;
  }
  const std::span<const double> segment = values.subspan(s.begin, n);
  const double total = std::accumulate(segment.begin(), segment.end(), 0.0);
  double left = 0;
  for (std::size_t m = 1; m + min_segment <= n; ++m) {
    left += segment[m - 1];
    if (m < min_segment) {
      continue;
    }
    const double size_left = static_cast<double>(m), size_right = static_cast<double>(n - m);
    const double difference = left / size_left - (total - left) / size_right;
    const double q = size_left * size_right / static_cast<double>(n) * difference * difference;
    if (q > best.q) {
      best = {s.begin + m, q};
    }
  }
  return best;
}

// The best split over every segment: the candidate change point and, on permuted series, one draw of the null.
Split best_split(std::span<const double> values, const std::vector<Segment>& segments, std::size_t min_segment) {
  Split best;
  for (const Segment& s : segments) {
    const Split split = best_split(values, s, min_segment);
    if (split.q > best.q) {
      best = split;
    }
  }
  return best;
}

std::vector<Segment> segments_between(const std::vector<Accepted>& accepted, std::size_t points) {
  std::vector<Segment> segments;
  std::size_t begin = 0;
  for (const Accepted& a : accepted) {
    segments.push_back({begin, a.index});
    begin = a.index;
  }
  segments.push_back({begin, points});
  return segments;
}

// The permutation p-value of `observed`, the best statistic over the segments: each segment shuffled within itself
// (the change points already found stay), the share of shuffles whose best statistic reaches it, the series itself
// counted: (1 + as extreme) / (permutations + 1), a valid p-value (Davison and Hinkley 1997). Shuffling a shuffled
// segment again is as random as shuffling the original, so one copy serves every permutation. Stops as soon as
// the p-value exceeds alpha, whatever the remaining shuffles give, and returns that lower bound.
double permutation_p(std::vector<double> values, const std::vector<Segment>& segments, double observed,
                     const ChangePointOptions& o, SeededRandom& random) {
  const double reach = observed * (1 - 1e-9);  // the same split summed in another order may round a little lower
  const double total = static_cast<double>(o.permutations) + 1;
  std::size_t as_extreme = 0;
  for (int r = 0; r < o.permutations; ++r) {
    for (const Segment& s : segments) {
      if (s.end - s.begin >= 2 * o.min_segment) {
        random.shuffle(std::span(values).subspan(s.begin, s.end - s.begin));
      }
    }
    if (best_split(values, segments, o.min_segment).q >= reach) {
      ++as_extreme;
      if (static_cast<double>(1 + as_extreme) / total > o.alpha) {
        break;
      }
    }
  }
  return static_cast<double>(1 + as_extreme) / total;
}

// The runs on either side of the k-th change point, up to its neighbours (or the ends of the series).
struct Sides {
  std::span<const double> before;
  std::span<const double> after;
};

Sides sides_of(std::span<const double> series, const std::vector<Accepted>& accepted, std::size_t k) {
  const std::size_t begin = k == 0 ? 0 : accepted[k - 1].index;
  const std::size_t at = accepted[k].index;
  const std::size_t end = k + 1 < accepted.size() ? accepted[k + 1].index : series.size();
  return {series.subspan(begin, at - begin), series.subspan(at, end - at)};
}

std::vector<ChangePoint> describe(std::span<const double> series, const std::vector<Accepted>& accepted) {
  std::vector<ChangePoint> points;
  for (std::size_t k = 0; k < accepted.size(); ++k) {
    const Sides s = sides_of(series, accepted, k);
    ChangePoint p;
    p.index = accepted[k].index;
    p.mean_before = mean_of(s.before);
    p.mean_after = mean_of(s.after);
    p.relative = p.mean_before != 0 ? p.mean_after / p.mean_before - 1 : std::numeric_limits<double>::quiet_NaN();
    p.p_value = accepted[k].p_value;
    points.push_back(p);
  }
  return points;
}

// A robust standard deviation of the runs' noise that level shifts and single spikes do not inflate: 1.4826 x the
// MAD of the differences between neighbours, / sqrt(2) (the difference of two runs has twice the variance);
// 1.2533 x their mean absolute value, / sqrt(2), when more than half of them are 0 (quantized timings).
double noise_scale(const std::vector<double>& series) {
  std::vector<double> differences;
  for (std::size_t i = 1; i < series.size(); ++i) {
    differences.push_back(std::abs(series[i] - series[i - 1]));
  }
  const Stats s = compute_stats(differences);
  return (s.median > 0 ? 1.4826 * s.median : 1.2533 * s.mean) / std::numbers::sqrt2;
}

// What the statistic sees: the runs with single spikes taken out, centred on their median (so that the running sums
// stay small next to the differences they resolve). A spike is a run more than 5 noise deviations from the median
// of the 3 runs around it (at an end, the 3 nearest); it becomes the mean of the other two. The statistic compares
// means, so one extreme run within min_segment of an end would otherwise pass for a new level of min_segment runs
// (in about half of the series that end with one); a change that lasts 2 runs or more stays, being its own median.
// Pure noise is rarely touched: the false-positive rate stays at alpha (docs/history.md).
std::vector<double> despiked(const std::vector<double>& series) {
  const double limit = 5 * noise_scale(series);
  const std::size_t n = series.size();
  std::vector<double> values = series;
  for (std::size_t i = 0; i < n && n >= 3; ++i) {
    const std::size_t first = std::min(i == 0 ? 0 : i - 1, n - 3);
    std::array<double, 3> around{series[first], series[first + 1], series[first + 2]};
    const double others = (around[0] + around[1] + around[2] - series[i]) / 2;  // the mean of the other two
    std::sort(around.begin(), around.end());
    values[i] = std::abs(series[i] - around[1]) > limit ? others : series[i];
  }
  const double center = compute_stats(values).median;
  for (double& x : values) {
    x -= center;
  }
  return values;
}

// C(n, n / 2), in floating point: large n overflow to infinity, which only makes 2 / C(n, n / 2) zero.
double central_binomial(std::size_t n) {
  const std::size_t half = n / 2;
  double c = 1;
  for (std::size_t i = 1; i <= half; ++i) {
    c = c * static_cast<double>(n - half + i) / static_cast<double>(i);
  }
  return c;
}

// The U test's two-sided p-value when `recent` runs all lie beyond a window of `window` runs: the smallest it gives.
double smallest_p(std::size_t recent, std::size_t window) {
  std::vector<double> before(window), after(recent);
  std::iota(before.begin(), before.end(), 0.0);
  std::iota(after.begin(), after.end(), static_cast<double>(window));
  return mann_whitney_u(before, after).p_value;
}

std::optional<Failure> alpha_failure(double alpha) {
  if (alpha > 0 && alpha < 1) {
    return std::nullopt;
  }
  return Failure{ExitCode::usage, "alpha " + text::format_number(alpha) + " is not a significance level in (0, 1)"};
}

}  // namespace

std::vector<ChangePoint> e_divisive_means(const std::vector<double>& series, const ChangePointOptions& options) {
  if (!enough_history(series.size(), options)) {
    return {};
  }
  const std::vector<double> values = despiked(series);
  SeededRandom random(options.seed);
  std::vector<Accepted> accepted;
  for (;;) {
    const std::vector<Segment> segments = segments_between(accepted, values.size());
    const Split candidate = best_split(values, segments, options.min_segment);
    if (candidate.q <= 0) {
      break;  // every segment constant, or too short to split
    }
    const double p = permutation_p(values, segments, candidate.q, options, random);
    if (p > options.alpha) {
      break;  // the best remaining split is within the noise: so is every other
    }
    const Accepted a{candidate.at, p};
    accepted.insert(std::upper_bound(accepted.begin(), accepted.end(), a,
                                     [](const Accepted& l, const Accepted& r) { return l.index < r.index; }),
                    a);
  }
  return describe(series, accepted);
}

std::optional<std::size_t> min_history(const ChangePointOptions& options) {
  if (!checked(options)) {
    return std::nullopt;
  }
  std::size_t n = 2 * options.min_segment;
  while (2 / central_binomial(n) > options.alpha) {
    ++n;
  }
  return n;
}

bool enough_history(std::size_t points, const ChangePointOptions& options) {
  const std::optional<std::size_t> least = min_history(options);
  return least && points >= *least;
}

Expected<ChangePointOptions> checked(const ChangePointOptions& options) {
  if (std::optional<Failure> f = alpha_failure(options.alpha)) {
    f->message = "change-point detection: " + f->message;
    return *f;
  }
  const double smallest = 1 / (static_cast<double>(std::max(options.permutations, 0)) + 1);
  if (smallest > options.alpha) {
    const auto enough = static_cast<long>(std::ceil(1 / options.alpha - 1 - 1e-9));
    return Failure{ExitCode::usage,
                   "change-point detection: permutations " + std::to_string(options.permutations) +
                       " cannot give a p-value of at most alpha " + text::format_number(options.alpha) +
                       " (the smallest is 1 / (permutations + 1) = " + text::format_number(smallest, 3) +
                       "): " + std::to_string(enough) + " or more can; 199 is the default"};
  }
  if (options.min_segment == 0) {
    return Failure{ExitCode::usage, "change-point detection: min_segment 0: a segment holds at least one point"};
  }
  return options;
}

std::optional<std::size_t> min_history(const WindowOptions& options) {
  if (!checked(options)) {
    return std::nullopt;
  }
  std::size_t window = options.recent;
  while (smallest_p(options.recent, window) >= options.alpha) {
    ++window;  // ends at options.window at the latest: checked() made sure that one reaches alpha
  }
  return options.recent + window;
}

std::optional<WindowChange> window_change(const std::vector<double>& series, const WindowOptions& options) {
  const std::optional<std::size_t> least = min_history(options);
  if (!least || series.size() < *least) {
    return std::nullopt;
  }
  const std::size_t window = std::min(options.window, series.size() - options.recent);
  if (smallest_p(options.recent, window) >= options.alpha) {
    return std::nullopt;  // only where the U test's normal approximation takes over (a window past 20 runs)
  }
  const auto recent_begin = series.end() - static_cast<std::ptrdiff_t>(options.recent);
  const std::vector<double> before(recent_begin - static_cast<std::ptrdiff_t>(window), recent_begin);
  const std::vector<double> recent(recent_begin, series.end());
  WindowChange c;
  c.median_before = compute_stats(before).median;
  c.median_recent = compute_stats(recent).median;
  c.relative = c.median_before != 0 ? c.median_recent / c.median_before - 1 : std::numeric_limits<double>::quiet_NaN();
  c.p_value = mann_whitney_u(before, recent).p_value;
  // Beyond the threshold as an absolute difference, so that a change from a median of 0 still counts.
  const bool beyond = std::abs(c.median_recent - c.median_before) > options.threshold * std::abs(c.median_before);
  c.significant = beyond && c.p_value < options.alpha;
  return c;
}

Expected<WindowOptions> checked(const WindowOptions& options) {
  const auto failure = [](const std::string& why) { return Failure{ExitCode::usage, "window test: " + why}; };
  if (options.recent == 0) {
    return failure("recent 0: the test needs at least one recent run");
  }
  if (options.window < options.recent) {
    return failure("window " + std::to_string(options.window) + " is shorter than recent " +
                   std::to_string(options.recent) + ": the newest runs are held against at least as many before them");
  }
  if (std::optional<Failure> f = alpha_failure(options.alpha)) {
    return failure(f->message);
  }
  if (!std::isfinite(options.threshold) || options.threshold < 0) {
    return failure("threshold " + text::format_number(options.threshold) +
                   ": the fraction of the window's median a change must exceed is 0 or more");
  }
  const double smallest = smallest_p(options.recent, options.window);
  if (smallest >= options.alpha) {
    return failure("recent " + std::to_string(options.recent) + " against a window of " +
                   std::to_string(options.window) + ": even with every recent run beyond the whole window the U " +
                   "test's two-sided p-value is " + text::format_number(smallest, 3) + ", never below alpha " +
                   text::format_number(options.alpha) + "; test more recent runs");
  }
  return options;
}

}  // namespace dgx
