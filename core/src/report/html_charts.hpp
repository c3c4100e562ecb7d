// The charts of the HTML report. The workloads' own come from what they declare (ABI 1.1, dgx_chart_desc, kept in
// the report's "workloads"): lines or bars of any metric against a config key or metric, by series, with a Pareto
// front or a peak line, the host knowing no workload. The host's own: baseline and compare runs (ratios with the
// threshold line), verdicts of real runs (each run against its projection band and its reference), history (each
// metric over time, change points marked), the platform check's plan; and, when nothing else draws, one bar chart
// per table of its first judged metric. Each chart is a JSON description that core/src/html/report.js draws with
// Chart.js.
#pragma once

#include <vector>

#include "dgx/core/results/document.hpp"
#include "dgx/json/json.hpp"

namespace dgx::html {

/// The chart descriptions of `report`, each with an "id" (its canvas) and a "caption" (what it shows).
std::vector<json::Object> charts_for(const Report& report);

}  // namespace dgx::html
