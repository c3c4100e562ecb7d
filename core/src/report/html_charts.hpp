// The charts of the HTML report, chosen from what the rows are: explore runs (days and cost against GPU count per
// precision, the Pareto front with the recommendation), measured layer ops (time per op, TFLOP/s against the
// peak), collectives (bus bandwidth against message size with the link's peak), inference (throughput against
// per-user speed), baseline and compare runs (ratios with the threshold line), verdicts of real runs (each run
// against its projection band and its reference); one bar chart per table for
// anything else. Each chart is a JSON description that core/src/html/report.js draws with Chart.js.
#pragma once

#include <vector>

#include "dgx/core/results/document.hpp"
#include "dgx/core/support/json.hpp"

namespace dgx::html {

/// The chart descriptions of `report`, each with an "id" (its canvas) and a "caption" (what it shows).
std::vector<json::Object> charts_for(const Report& report);

}  // namespace dgx::html
