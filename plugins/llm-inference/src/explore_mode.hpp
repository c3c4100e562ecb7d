// --mode explore (the default where nothing can be measured): sweep the replica's layout (TP × PP × EP, at most the
// fleet's GPUs), the precisions and the concurrency with the serving model; emit the throughput–latency Pareto front
// (output tokens/s per GPU against tokens/s per user) and the recommendation — the cheapest configuration per
// million output tokens that meets the SLOs, or why none does and which SLO binds — as rows of table "explore".
#pragma once

#include <dgx/sdk/host.hpp>

#include "assumptions.hpp"
#include "dgx/llm/serve_explorer.hpp"
#include "settings.hpp"

namespace dgx::plugins::llm_inference {

/// The space the settings describe: the precisions, the fleet as the largest replica, explore.concurrency, the
/// lengths and engine limits of serve.*.
[[nodiscard]] llm::ServeSpace explore_space(const InferenceSettings& settings);

/// Emits the rows and notes. Throws dgx::sdk::InvalidArgument when no configuration is feasible, naming why.
void run_explore(const dgx::sdk::Host& host, const InferenceSettings& settings, const Assumptions& assumptions);

}  // namespace dgx::plugins::llm_inference
