// A step-level simulation of an in-flight-batching engine, for what a steady state cannot say: request lengths with
// a spread (trtllm-bench's token-norm-dist, or a table of lengths from data) and open-loop arrivals. Requests are
// admitted first come first served while their prompt + output fit the KV cache (guaranteed no eviction) and the
// engine's limit allows, each iteration carrying the decoding requests (one token each, or 1 + draft length
// positions with speculative decoding) and prompt chunks up to the token budget, timed by the step model.
//
// Two loads, as the benchmarks apply them:
// - closed loop (AIPerf / vLLM --max-concurrency, trtllm-bench --concurrency): `in_flight` requests are kept sent,
//   each finished one replaced at once; offline is the most that fit. The first burst of `in_flight` requests warms
//   the engine up and is not counted (AIPerf's warm-up requests).
// - open loop (vllm bench serve --request-rate, AIPerf --request-rate): requests arrive at config.request_rate,
//   Poisson (exponential gaps), constant, or all at t = 0 (burst: --request-rate inf); TTFT includes the wait for
//   admission. Every request counts, as the benchmarks count them.
// Reported as the benchmarks do: per request TTFT, TPOT = (E2E − TTFT)/(output − 1) and E2E; ITL = the gaps between
// a request's streamed chunks, pooled over all requests (vLLM bench serve's ITL; with speculative decoding a chunk
// carries the step's accepted tokens); throughput = output tokens / (last response − first send). Seeded
// (SplitMix64, serve_random.hpp): a run repeats exactly on every platform.
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
  LatencyStats ttft, tpot, itl, e2e;
  double duration = 0;
  double output_tokens = 0;
  double mean_decode_batch = 0;    ///< over iterations
  double mean_decode_context = 0;  ///< KV tokens per decoding request, over decode slots
  double mean_prefill_tokens = 0;  ///< per iteration
  double mean_iteration = 0;       ///< seconds
  double offered_rate = 0;         ///< open loop: requests / (last arrival − first), requests/s (0: closed or burst)
  int queued_at_last_arrival = 0;  ///< open loop: requests waiting for admission when the last one arrived
};

/// Closed loop: serves `requests` requests (0: enough for a steady state within an iteration budget), `in_flight`
/// of them sent at a time, on a replica whose KV cache holds `kv_tokens` tokens.
[[nodiscard]] SimulationResult simulate_serving(const ServeStepModel& steps, const ServeShape& shape,
                                                const ServeConfig& config, double kv_tokens, int in_flight,
                                                int requests, std::uint64_t seed = 1);

/// Open loop: `requests` requests (0: kDefaultOpenLoopRequests) arrive by config.arrival at config.request_rate; the
/// engine holds at most `engine_limit` at once (the batch size, and what its KV cache holds).
[[nodiscard]] SimulationResult simulate_open_loop(const ServeStepModel& steps, const ServeShape& shape,
                                                  const ServeConfig& config, double kv_tokens, int engine_limit,
                                                  int requests, std::uint64_t seed = 1);

/// Requests an open-loop run serves when none is given: vllm bench serve's --num-prompts default.
inline constexpr int kDefaultOpenLoopRequests = 1000;

/// The lengths of `count` requests: drawn from config.lengths by weight, else from normal distributions of ISL and
/// OSL (rounded, at least one token, prompt + output within `context`), seeded.
[[nodiscard]] std::vector<RequestLengths> draw_lengths(const ServeConfig& config, int count, int context,
                                                       std::uint64_t seed);

/// When `count` open-loop requests arrive, from 0 (burst: all at 0).
[[nodiscard]] std::vector<double> arrival_times(const ServeConfig& config, int count, std::uint64_t seed);

/// The p-quantile (0 ≤ p ≤ 1) of `values` by linear interpolation between closest ranks (numpy's default).
[[nodiscard]] double quantile(std::vector<double> values, double p);

}  // namespace dgx::llm
