// The projection of one serving configuration: latency (TTFT, TPOT, end-to-end), throughput (output tokens/s of
// the replica, per GPU, per user; requests/s), bandwidth and compute utilisation (MBU of decode, MFU of prefill),
// KV cache capacity, the concurrency that fits, and cost per million output tokens.
//
// Continuous batching in steady state. B requests are in flight on the replica (closed loop: a finished request is
// replaced at once; offline: B is the most that fit). Every iteration carries one token of each of the D decoding
// requests and, in some iterations, prompt chunks of at most the token budget minus D tokens (a prompt longer than
// that is split into k chunks). With fixed lengths the steady state is solved as a fluid:
//   fraction of iterations carrying a chunk  φ = k·D / (osl − 1)   (when φ > 1 every iteration carries φ/k prompts)
//   mean iteration (= TPOT)                   t̄ = φ·t(D, chunk) + (1 − φ)·t(D)
//   requests/s                                R = D / ((osl − 1)·t̄)
//   TTFT                                      wait for the running iteration (t̄/2 when B > 1) + k·t(D, chunk)
//   Little's law                              B = R · (TTFT + (osl − 1)·t̄), solved for D by fixed-point iteration,
// with D at most budget·(osl − 1)/(isl + osl − 1) (the prompts then queue for the budget and TTFT grows). With
// speculative decoding each decoding request puts 1 + draft_tokens positions through the model per iteration and
// emits 1 + accepted tokens, so osl − 1 becomes (osl − 1)/(1 + accepted) iterations and TPOT = t̄/(1 + accepted).
// With a spread of lengths or an open-loop load (a request rate) a step-level simulation serves requests one by one
// (serve_simulation.hpp) and reports mean, median, p90 and p99; the steady state at the most that fit is then the
// saturation rate. Metric definitions follow trtllm-bench / AIPerf / vLLM bench serve (docs, reference notes):
//   TPOT = (E2E − TTFT) / (output tokens − 1) (trtllm-bench TPOT, AIPerf ITL; not vLLM's chunk-gap "ITL");
//   per-user speed = 1 / TPOT; output tokens/s = output tokens / duration; requests/s = requests / duration;
//   MBU = (weight bytes + KV bytes read per decode iteration) / TPOT / HBM peak, per GPU (Databricks' definition);
//   MFU = model FLOPs of one prompt's prefill / its time on the idle replica / GPUs / dense peak of the precision.
#pragma once

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/expected.hpp"
#include "dgx/llm/op_time.hpp"
#include "dgx/llm/serve_config.hpp"
#include "dgx/llm/serve_engine.hpp"
#include "dgx/llm/serve_memory.hpp"
#include "dgx/llm/serve_step.hpp"
#include "dgx/llm/step_model.hpp"

#include <optional>
#include <string>

namespace dgx::llm {

/// A latency, seconds: fixed lengths give one steady-state value (median = p99 = mean); a simulation gives the
/// distribution over its requests (percentiles by linear interpolation, numpy's default, as vLLM bench serve).
struct LatencyStats {
  double median = 0, p99 = 0, mean = 0, p90 = 0;
  [[nodiscard]] static LatencyStats constant(double value) { return {value, value, value, value}; }
  /// Every statistic shifted by `seconds` (a wait every request sees).
  void shift(double seconds) {
    median += seconds;
    p99 += seconds;
    mean += seconds;
    p90 += seconds;
  }
};

/// What fits on the replica: its memory and the requests it holds at once.
struct ServeCapacity {
  ServeMemory memory;
  double kv_tokens = 0;     ///< KV cache capacity of the replica, tokens
  int max_concurrency = 0;  ///< requests whose prompt + output fit together
};

/// A disaggregated deployment (serve_disaggregated.hpp): prefill workers and decode workers, rate matched.
struct ServeDisaggregation {
  ServeLayout prefill_layout;  ///< one prefill worker (the decode worker's is ServeProjection::config.layout)
  int prefill_workers = 0, decode_workers = 0;
  double prefill_requests_per_s = 0;  ///< one prefill worker's prompts/s at its batch
  double decode_requests_per_s = 0;   ///< one decode worker's requests/s at its concurrency
  double prefill_utilisation = 0;     ///< offered prompts / what the prefill workers serve
  double prefill_iteration = 0;       ///< one prefill iteration, s
  int prompts_per_iteration = 0;      ///< prompts one prefill iteration carries
  double kv_bytes_per_request = 0;    ///< the prompt's KV cache, moved to the decode worker
  double kv_transfer = 0;             ///< its time, s (in TTFT)
  bool kv_over_network = false;       ///< across NVLink domains: over the scale-out NICs
  [[nodiscard]] int gpus(const ServeLayout& decode) const {
    return prefill_workers * prefill_layout.gpus() + decode_workers * decode.gpus();
  }
};

struct ServeProjection {
  ServeConfig config;
  ServeCapacity capacity;
  bool offline = false;    ///< concurrency 0: as many requests as fit
  int in_flight = 0;       ///< requests the engine holds: min(concurrency, max_concurrency), or max_concurrency
  bool simulated = false;  ///< a spread of lengths or an open loop: the latencies are distributions of a simulation
  int simulated_requests = 0;
  LatencyStats ttft, tpot, e2e;
  LatencyStats itl;        ///< gaps between a request's streamed chunks, pooled over all gaps (vLLM bench serve's ITL)
  bool open_loop = false;  ///< requests arrive at config.request_rate (or all at once: burst)
  bool saturated = false;  ///< the offered rate exceeds what the replica serves: the queue, and TTFT, grow
  double saturation_rate = 0;  ///< requests/s the replica serves at most (its offline throughput)
  double queue_wait = 0;       ///< of TTFT: waiting for a slot when concurrency exceeds max_concurrency
  double output_tokens_per_s = 0;
  double output_tokens_per_s_per_gpu = 0;
  double output_tokens_per_s_per_user = 0;  ///< 1 / TPOT (median)
  double requests_per_s = 0;
  double mbu = 0;
  double mfu = 0;
  double decode_batch = 0;             ///< requests decoding per iteration, mean
  double prefill_tokens_per_iter = 0;  ///< prompt tokens per iteration, mean
  double chunk_tokens = 0;             ///< prompt tokens of one chunk (a prompt longer than the budget is split)
  StepCost decode_step;                ///< an iteration of the D decoding requests alone
  StepCost chunk_step;                 ///< the same with a prompt chunk
  std::optional<ServeDisaggregation> disaggregation;  ///< set: prefill and decode on separate workers
  /// W: prefilling every in-flight prompt once at the token budget (disaggregated: over the prefill workers), s.
  double prefill_wave = 0;
  /// The physical model's mean TTFT and TPOT and W, before the engine's calibration.
  double model_ttft = 0, model_tpot = 0;
  /// Set when the engine's calibration was applied (closed or open loop): the correction and its cross-validation.
  std::optional<EngineCalibration> calibration;
  std::string engine;  ///< "TensorRT-LLM 1.3.0rc5": the engine and release the latencies are for
  std::optional<double> usd_per_million_output_tokens;
  std::string price_label;
  std::string provenance;  ///< model version, system, where the op times come from

  /// GPUs the metrics per GPU divide by: the replica's, or every prefill and decode worker's.
  [[nodiscard]] int gpus() const { return disaggregation ? disaggregation->gpus(config.layout) : config.layout.gpus(); }
};

struct SimulationResult;

/// Applies the engine's calibration of config.engine in the projection's mode to TTFT, TPOT, ITL and E2E (every
/// statistic; closed loop: TTFT with the prefill wave, and requests/s from Little's law over the new E2E; open loop:
/// TPOT only, TTFT stays the simulation's queueing; disaggregated: the same correction with the prefill workers' W
/// (the decode workers run the engine's decode loop, the requests its request path); offline: nothing (the offline
/// throughput is checked on configs/baselines/inference.toml as the physical model gives it). Records the physical
/// values first.
void apply_engine_calibration(ServeProjection& projection);

/// Projects serving configurations of one model on one system.
class ServeModel {
public:
  /// `provider` (optional) must outlive the model; by default the split-K roofline of `system`.
  ServeModel(ModelConfig model, SystemProfile system, const OpTimeProvider* provider = nullptr);

  /// Validity (serve_config_error) and memory: the reason when the configuration cannot run.
  [[nodiscard]] Expected<ServeCapacity> capacity(const ServeConfig& config) const;
  /// The full projection, or why the configuration is invalid or does not fit.
  [[nodiscard]] Expected<ServeProjection> project(const ServeConfig& config,
                                                  const std::optional<Price>& price = std::nullopt) const;
  /// The projection of a configuration whose capacity is known (the explorer's path; no validity check).
  [[nodiscard]] ServeProjection project(const ServeConfig& config, const ServeCapacity& capacity,
                                        const std::optional<Price>& price) const;

  [[nodiscard]] const ServeStepModel& steps() const { return steps_; }
  [[nodiscard]] const ModelConfig& model() const { return steps_.model(); }
  [[nodiscard]] const SystemProfile& system() const { return steps_.system(); }

private:
  void apply_simulation(ServeProjection& p, const SimulationResult& sim, const ServeShape& shape) const;

  ServeStepModel steps_;
};

}  // namespace dgx::llm
