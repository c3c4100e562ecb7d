// Regressions in a series of runs (dgxhost history --detect): change points by E-Divisive with means, as Apache
// Otava (formerly Hunter, MongoDB's signal processing) uses, made deterministic with a fixed permutation seed; and
// a simple window test, the newest runs against the window before them with the Mann-Whitney U test (as `dgxhost
// compare` judges two runs). Both say "not enough history" as an outcome of its own, never as a pass.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace dgx {

struct ChangePointOptions {
  double alpha = 0.05;            // a change point counts when its permutation p-value is at most this
  int permutations = 199;         // permutations per significance test
  std::uint64_t seed = 20260101;  // the permutations' seed: the same series gives the same answer
  std::size_t min_segment = 3;    // points on each side of a change point, at least
};

struct ChangePoint {
  std::size_t index = 0;   // the first point of the new segment
  double mean_before = 0;  // of the segment that ends at index - 1
  double mean_after = 0;   // of the segment that starts at index
  double relative = 0;     // mean_after / mean_before - 1
  double p_value = 1;      // of the permutation test that accepted it
};

/// The change points of `series` (in time order), earliest first; empty when none is significant. A series with
/// fewer than 2 * min_segment points has none by definition: callers say "not enough history" for it
/// (enough_history).
std::vector<ChangePoint> e_divisive_means(const std::vector<double>& series, const ChangePointOptions& options = {});

/// Whether a series is long enough for e_divisive_means to find a change point at all.
bool enough_history(std::size_t points, const ChangePointOptions& options = {});

struct WindowOptions {
  std::size_t recent = 3;   // the newest runs tested
  std::size_t window = 10;  // the runs before them they are held against (fewer when the series is shorter, but
                            // at least `recent`)
  double threshold = 0.05;  // a change counts beyond this fraction of the window's median ...
  double alpha = 0.05;      // ... and when the U test's two-sided p-value is below this
};

struct WindowChange {
  double median_before = 0;
  double median_recent = 0;
  double relative = 0;  // median_recent / median_before - 1
  double p_value = 1;
  bool significant = false;  // beyond the threshold and below alpha
};

/// The newest `recent` points against the `window` before them; nullopt when the series has fewer than
/// 2 * recent points (not enough history).
std::optional<WindowChange> window_change(const std::vector<double>& series, const WindowOptions& options = {});

}  // namespace dgx
