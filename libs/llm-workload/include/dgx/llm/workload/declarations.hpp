// What the LLM workloads' rows mean (ABI 1.1 declarations): which way each metric is better, which config keys
// identify a run for comparisons and history, and the HTML report's charts. One home for llm-pretrain and
// llm-finetune (the training rows, training_rows.hpp) and llm-inference (the serving rows), so that dgxhost, which
// knows no workload, judges and charts them from what the plugins declare.
#pragma once

#include <string>
#include <vector>

#include <dgx/sdk/declarations.hpp>

#include "dgx/llm/workload/training_rows.hpp"

namespace dgx::llm::workload {

/// A workload's declarations, as a WorkloadSpec takes them.
struct RowDeclarations {
  std::vector<dgx::sdk::MetricSpec> metrics;
  std::vector<std::string> identity_keys;
  std::vector<dgx::sdk::ChartSpec> charts;
};

/// A training job's rows (training_rows.hpp; measure mode's layer.* metrics too). Identity: model, system, GPUs,
/// precision, the parallel layout and the training keys (parallel.*, train.*); the framework release, the price and
/// the explorer's settings are context. Charts of an explore: time to train and cost against the GPU count, a line
/// per series (field "series": the precision, and the release and provider when compared), and the Pareto front of
/// time against cost with the recommendation. `run_time` names the time: days to train or hours to fine-tune.
[[nodiscard]] RowDeclarations training_declarations(RunTime run_time);

/// The serving rows of llm-inference: latencies (TTFT, TPOT, ITL, end to end, and their percentiles), throughput
/// per GPU and per user, utilisation, $ per million output tokens, the breakdowns. Identity: model, system, GPUs,
/// precision, layout (parallel.*, disaggregation), lengths, load (concurrency, request rate, arrival), speculation and
/// the engine's settings; prices, SLOs and the explorer's settings are context. Chart: throughput per GPU against
/// the per-user speed, a line per table and precision.
[[nodiscard]] RowDeclarations serving_declarations();

}  // namespace dgx::llm::workload
