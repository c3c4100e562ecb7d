// The Mann-Whitney U test (Wilcoxon rank-sum): are two sets of timed samples from one distribution? What
// google-benchmark's tools/compare.py runs (scipy.stats.mannwhitneyu, two-sided) so that noise does not read as a
// regression; dgxhost compare runs it on the sample_times of two measured rows.
#pragma once

#include <cstddef>
#include <vector>

namespace dgx {

struct UTest {
  double u = 0;        // U statistic of the first sample
  double p_value = 1;  // two-sided
  bool exact = false;  // exact distribution (small samples, no ties) or the normal approximation
  std::size_t n1 = 0, n2 = 0;
};

/// Two-sided Mann-Whitney U test of `a` against `b`. Exact when both have at most 20 values and there are no
/// ties; otherwise the normal approximation with tie and continuity corrections (scipy's "auto" method). A sample
/// with fewer than one value gives p = 1.
UTest mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace dgx
