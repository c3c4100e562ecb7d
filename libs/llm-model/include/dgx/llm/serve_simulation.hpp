// A step-level simulation of an in-flight-batching engine, for request lengths with a spread (trtllm-bench's
// token-norm-dist with a standard deviation): requests drawn from normal distributions of ISL and OSL (rounded,
// at least one token, prompt + output within the model's context; a fixed seed, so runs repeat), admitted first
// come first served while their prompt + output fit the KV cache (guaranteed no eviction) and the concurrency
// allows, each iteration carrying one token of every decoding request and prompt chunks up to the token budget,
// timed by the step model. A closed loop keeps `in_flight` requests sent, replacing each finished one at once (for
// offline, `in_flight` is the most that fit: the latencies are those inside the engine, without the queue an
// all-at-once benchmark adds, which only grows with its request count). The first burst of `in_flight` requests
// warms the engine up and is not counted (AIPerf's warm-up requests). Reported as the benchmarks do: TTFT,
// TPOT = (E2E − TTFT)/(output − 1) and E2E per request; throughput = output tokens / (last response − first send).
#pragma once

#include "dgx/llm/serve_config.hpp"
#include "dgx/llm/serve_model.hpp"
#include "dgx/llm/serve_step.hpp"

#include <cstdint>
#include <vector>

namespace dgx::llm {

struct SimulationResult {
  int requests = 0;
  int iterations = 0;
  LatencyStats ttft, tpot, e2e;
  double duration = 0;
  double output_tokens = 0;
  double mean_decode_batch = 0;    ///< over iterations
  double mean_decode_context = 0;  ///< KV tokens per decoding request, over decode slots
  double mean_prefill_tokens = 0;  ///< per iteration
  double mean_iteration = 0;       ///< seconds
};

/// Serves `requests` requests (0: enough for a steady state within an iteration budget), `in_flight` of them sent at
/// a time, on a replica whose KV cache holds `kv_tokens` tokens.
[[nodiscard]] SimulationResult simulate_serving(const ServeStepModel& steps, const ServeShape& shape,
                                                const ServeConfig& config, double kv_tokens, int in_flight,
                                                int requests, std::uint64_t seed = 1);

/// The p-quantile (0 ≤ p ≤ 1) of `values` by linear interpolation between closest ranks (numpy's default).
[[nodiscard]] double quantile(std::vector<double> values, double p);

}  // namespace dgx::llm
