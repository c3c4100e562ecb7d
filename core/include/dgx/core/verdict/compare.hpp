// dgxhost compare A.json B.json: run B against run A, metric by metric, in the manner of google-benchmark's
// tools/compare.py. Rows are paired by workload, table and configuration (the nearest row, named, when no row of
// A has B's configuration); each metric with a direction of "better" gets the ratio B/A and a verdict. When both
// rows carry their timed samples, a Mann-Whitney U test decides whether a change is more than noise.
#pragma once

#include <string>

#include "dgx/core/results/document.hpp"

namespace dgx {

struct CompareOptions {
  double threshold = 0.05;  // a change counts when B is more than 5% better or worse than A
  double alpha = 0.05;      // ... and, with samples on both sides, the U test's p-value is below this
};

/// One table per compared metric ("compare time.median (lower is better)"), a row per pair: A, B, ratio B/A,
/// change in %, p-value (with samples) and a verdict: regression, improvement or no significant difference.
/// A "Comparison" note sums up; exit_code 5 when a metric regressed significantly.
Report compare_runs(const Report& a, const std::string& a_name, const Report& b, const std::string& b_name,
                    const CompareOptions& options);

}  // namespace dgx
