// Private to the runner: the measured row of one case. Before the case runs it holds the workload's configuration
// and the case's own entries; after the timed phase the host adds its timing metrics and their provenance
// (docs/results-schema.md, "Measured timing metrics").
#pragma once

#include <dgx/plugin.h>

#include "dgx/core/config/runner_settings.hpp"
#include "dgx/core/measure/stopping_criterion.hpp"
#include "dgx/core/plugin/plugin_loader.hpp"
#include "dgx/core/results/document.hpp"
#include "dgx/json/json.hpp"

namespace dgx::detail {

/// The row of a case before it has numbers: `row_config` plus the entries of `desc.config` (which the caller has
/// checked to be readable), each read as a TOML value when it is one and as a string otherwise.
ResultRow case_row(const WorkloadInfo& workload, const dgx_case_desc& desc, const json::Object& row_config);

/// Adds the timing statistics of `criterion` (time.median, time.mean, ..., samples) and the provenance fields
/// (timing, cache, iterations_per_sample, warmup, stop, and ranks when `world_size` > 1) to `row`, with the
/// samples themselves. `in_json_only` hides the metrics from the terminal table.
void add_timing(ResultRow& row, const RunnerSettings& settings, int world_size, const StoppingCriterion& criterion,
                const dgx_sample_result& result, bool in_json_only);

}  // namespace dgx::detail
