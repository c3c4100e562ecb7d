// Regressions in a series of runs (dgxhost history --detect): change points by E-Divisive with means, as Apache
// Otava (formerly Hunter, MongoDB's signal processing) uses, made deterministic with a fixed permutation seed; and
// a simple window test, the newest runs against the window before them with the Mann-Whitney U test (as `dgxhost
// compare` judges two runs). Both say "not enough history" as an outcome of its own, never as a pass. Which
// direction is a regression is the caller's business (it knows whether higher is better); these only say where a
// series changed, by how much and how surely. docs/history.md has the method and its measured rates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "dgx/core/support/expected.hpp"

namespace dgx {

struct ChangePointOptions {
  double alpha = 0.05;            // a change point counts when its permutation p-value is at most this
  int permutations = 199;         // permutations per significance test; p = (1 + as extreme) / (permutations + 1)
  std::uint64_t seed = 20260101;  // the permutations' seed: the same series gives the same answer
  std::size_t min_segment = 3;    // points on each side of a change point, at least
};

struct ChangePoint {
  std::size_t index = 0;   // the first point of the new segment
  double mean_before = 0;  // of the segment that ends at index - 1
  double mean_after = 0;   // of the segment that starts at index
  double relative = 0;     // mean_after / mean_before - 1; NaN when mean_before is 0 (no relative change exists)
  double p_value = 1;      // of the permutation test that accepted it
};

/// The change points of `series` (in time order, finite values), earliest first; empty when none is significant.
/// The best split of a segment maximizes m (n - m) / n x (mean_left - mean_right)^2; it counts when its permutation
/// p-value (each segment shuffled within itself) is at most alpha, and the search goes on in the segments it makes. A
/// single run far off its neighbours (a spike) is not a change: the statistic sees it replaced by its neighbours' mean
/// (the reported means are of the runs as given). A series shorter than min_history(options) has none by definition:
/// callers say "not enough history" for it (enough_history). Options that checked() refuses find none either.
std::vector<ChangePoint> e_divisive_means(const std::vector<double>& series, const ChangePointOptions& options = {});

/// The fewest points in which e_divisive_means can find a change point at all: 2 * min_segment, and enough that
/// the most separated split's exact permutation p-value, 2 / C(n, n/2), can reach alpha (8 at the defaults: 7
/// points cannot beat 2/35 = 0.057). nullopt for options that checked() refuses.
std::optional<std::size_t> min_history(const ChangePointOptions& options);

/// Whether a series of `points` is long enough for e_divisive_means to find a change point at all.
bool enough_history(std::size_t points, const ChangePointOptions& options = {});

/// The options, or a usage Failure naming the field, its value and why no change point could ever count with it
/// (alpha outside (0, 1), too few permutations to reach alpha, min_segment 0).
Expected<ChangePointOptions> checked(const ChangePointOptions& options);

struct WindowOptions {
  std::size_t recent = 3;   // the newest runs tested
  std::size_t window = 10;  // the runs before them they are held against (fewer when the series is shorter, but
                            // at least `recent` and enough for the U test to reach alpha: min_history)
  double threshold = 0.05;  // a change counts beyond this fraction of the window's median ...
  double alpha = 0.05;      // ... and when the U test's two-sided p-value is below this
};

struct WindowChange {
  double median_before = 0;
  double median_recent = 0;
  double relative = 0;  // median_recent / median_before - 1; NaN when median_before is 0
  double p_value = 1;
  bool significant = false;  // beyond the threshold and below alpha
};

/// The fewest points at which window_change can call a change significant: `recent`, and the smallest window of
/// at least `recent` runs against which `recent` runs, all beyond every run of the window, give a U-test p-value
/// below alpha (3 + 5 at the defaults). nullopt for options that checked() refuses.
std::optional<std::size_t> min_history(const WindowOptions& options);

/// The newest `recent` points against the `window` before them; nullopt when the series is shorter than
/// min_history(options) (not enough history: also where a window past 20 runs, judged by the U test's normal
/// approximation, cannot reach alpha though a shorter exact one can), and always for options that checked()
/// refuses.
std::optional<WindowChange> window_change(const std::vector<double>& series, const WindowOptions& options = {});

/// The options, or a usage Failure naming the field, its value and why (recent 0, a window shorter than recent,
/// alpha outside (0, 1), a negative threshold, or a window too short for the U test ever to reach alpha, with the
/// window that would).
Expected<WindowOptions> checked(const WindowOptions& options);

}  // namespace dgx
