// One serving configuration: the replica's parallel layout, the precisions, the request lengths and the load (closed
// loop, offline or a request rate), speculative decoding, and the rules that make it valid for a model on a system
// (errors as values naming the reason).
#pragma once

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/expected.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dgx::llm {

/// The GPUs of one replica (one serving engine): tensor parallel inside the NVLink domain, pipeline stages, and
/// expert parallel inside the TP group (TensorRT-LLM's moe_ep_size × moe_tp_size = tp_size): with ep > 1 each
/// rank holds experts/ep whole experts sliced tp/ep ways. attention_dp (TensorRT-LLM's enable_attention_dp, vLLM's
/// data-parallel attention): the tp GPUs run attention as data parallel ranks, each for its own requests with all
/// heads and its own KV cache, and only the MoE layers are split over them (wide EP: ep = tp, "DEP8"), joined by an
/// all-to-all dispatch and combine per MoE layer that may cross the NVLink domain.
struct ServeLayout {
  int tp = 1, pp = 1, ep = 1;
  bool attention_dp = false;
  [[nodiscard]] int gpus() const { return tp * pp; }
  [[nodiscard]] int expert_tp() const { return tp / ep; }
  /// GPUs one attention head group is split over: 1 with attention DP, else TP.
  [[nodiscard]] int attention_tp() const { return attention_dp ? 1 : tp; }
  /// Data-parallel attention ranks (each holds its own requests' KV cache): TP with attention DP, else 1.
  [[nodiscard]] int attention_dp_ranks() const { return attention_dp ? tp : 1; }
};

/// Speculative decoding: a cheap drafter proposes draft_tokens tokens per request and step, the model verifies them
/// in one pass over 1 + draft_tokens positions and keeps the accepted prefix plus its own next token. mtp: the
/// model's multi-token-prediction module (DeepSeek-V3/R1); eagle: an EAGLE-3 head, one decoder layer of the
/// model's width; draft: a separate small model of the catalog run draft_tokens times. How many drafts are accepted
/// depends on the data and the drafter's quality, which this model does not predict: `accepted` is given.
enum class Speculation : std::uint8_t { none, mtp, eagle, draft };
[[nodiscard]] std::string_view to_string(Speculation speculation);
[[nodiscard]] std::optional<Speculation> parse_speculation(std::string_view text);

struct SpeculativeConfig {
  Speculation kind = Speculation::none;
  int draft_tokens =
      0;  ///< tokens drafted per request and step (TensorRT-LLM max_draft_len, vLLM num_speculative_tokens)
  double accepted = 0;  ///< mean draft tokens accepted per step, 0..draft_tokens (acceptance length − 1); user-given
  std::shared_ptr<const ModelConfig> draft_model;  ///< kind draft: the drafter

  [[nodiscard]] bool active() const { return kind != Speculation::none; }
  /// Output tokens one decode step of a request emits on average: 1 + accepted.
  [[nodiscard]] double tokens_per_step() const { return active() ? 1 + accepted : 1; }
  /// Positions one decoding request puts through the model per step: 1 + draft_tokens.
  [[nodiscard]] int verify_tokens() const { return active() ? 1 + draft_tokens : 1; }
};

/// The serving engine: its profile (configs/engines/, serve_engine.hpp) sets the scheduler's defaults, the features it
/// has, and the calibration of the model's latencies; the launch files are its commands.
enum class ServeEngine : std::uint8_t { trtllm, vllm, sglang };
[[nodiscard]] std::string_view to_string(ServeEngine engine);
[[nodiscard]] std::optional<ServeEngine> parse_serve_engine(std::string_view text);

/// When open-loop requests arrive (vllm bench serve --request-rate, AIPerf --request-rate): poisson (exponential
/// gaps, the benchmarks' default), constant (evenly spaced), burst (all at t = 0: --request-rate inf).
enum class Arrival : std::uint8_t { poisson, constant, burst };
[[nodiscard]] std::string_view to_string(Arrival arrival);
[[nodiscard]] std::optional<Arrival> parse_arrival(std::string_view text);

/// One request's lengths.
struct RequestLengths {
  int isl = 0, osl = 0;
  double weight = 1;  ///< a histogram row's count; 1 per request of a trace
};

/// Lengths drawn from data (serve.lengths): a trace or a histogram, with where it came from.
struct LengthTable {
  std::string source;  ///< the file
  std::vector<RequestLengths> rows;
  [[nodiscard]] double mean_isl() const;
  [[nodiscard]] double mean_osl() const;
  [[nodiscard]] int max_total() const;  ///< the longest ISL + OSL
};

/// What a serving benchmark fixes: the layout, the precisions, the request lengths (trtllm-bench's token-norm-dist:
/// a mean and a standard deviation per length, or a table from data) and the load.
struct ServeConfig {
  ServeLayout layout;
  Precision precision = Precision::bf16;     ///< the linear layers' format (kServePrecisions: serve_precision.hpp)
  Precision kv_precision = Precision::bf16;  ///< the KV cache: bf16, fp8 or nvfp4
  Arrival arrival = Arrival::poisson;
  ServeEngine engine = ServeEngine::trtllm;
  /// Apply the engine's calibration (serve_engine.hpp) to closed- and open-loop latencies; false gives the physical
  /// model alone (what the calibration is fitted to).
  bool engine_calibration = true;
  int isl = 0;           ///< input (prompt) tokens per request, mean
  int osl = 0;           ///< output tokens per request, mean
  double isl_stdev = 0;  ///< 0: every request has exactly isl
  double osl_stdev = 0;
  std::shared_ptr<const LengthTable> lengths;  ///< set: lengths drawn from it (isl, osl are its means)
  int concurrency = 0;           ///< requests in flight per replica (closed loop); 0: offline, as many as fit
  int max_batch_tokens = 0;      ///< token budget of one iteration; 0: the engine profile's
  double request_rate = 0;       ///< open loop: requests/s arriving at the replica; 0: closed loop or offline
  int max_batch_size = 0;        ///< requests the engine schedules at once at most; 0: the engine profile's
  int requests = 0;              ///< requests the simulation serves (--num-prompts); 0: enough for a steady state
  double kv_cache_fraction = 0;  ///< of the memory left for the KV cache; 0: serve_constants::kDefaultKvCacheFraction
  SpeculativeConfig speculative;
  std::string engine_version;  ///< a release of the engine's profile; empty: its newest

  [[nodiscard]] bool has_spread() const { return isl_stdev > 0 || osl_stdev > 0 || lengths != nullptr; }
  [[nodiscard]] bool open_loop() const { return request_rate > 0 || arrival == Arrival::burst; }
  [[nodiscard]] int batch_tokens() const;
  [[nodiscard]] int batch_size() const;
  /// Decode-only batches up to this size (per attention-DP rank) run as CUDA graphs: the engine profile's.
  [[nodiscard]] int cuda_graph_max_batch() const;
  /// The replica's limits: with attention DP every rank schedules its own batch within its own limits.
  [[nodiscard]] int replica_batch_tokens() const { return batch_tokens() * layout.attention_dp_ranks(); }
  [[nodiscard]] int replica_batch_size() const { return batch_size() * layout.attention_dp_ranks(); }
  [[nodiscard]] double kv_fraction() const;
  /// Tokens one request reserves in the KV cache: prompt + output (+ the draft's lookahead), the longest in a table.
  [[nodiscard]] int reserved_tokens() const;
};

/// The KV cache format that goes with a weight precision when none is chosen (serve.kv_precision = auto): FP8 for FP8
/// and FP4 weights (the FP8 recipes quantize the KV cache too; configs/baselines/inference.md) and for fp8-block, BF16
/// for bf16, mxfp4 and int4 (gpt-oss's and Kimi K2.5's checkpoints keep attention in BF16).
[[nodiscard]] Precision auto_kv_precision(Precision weights);

/// "TP2 PP1", "TP8 PP2 EP4" (EP only for MoE models or when set), "DEP8 PP1" (attention DP over 8 GPUs, EP 8).
[[nodiscard]] std::string layout_label(const ServeLayout& layout, bool moe);

/// Checks the layout against the model and the system (TP within the NVLink domain and dividing the heads, KV heads
/// dividing or divided by TP, PP at most the layers, EP dividing TP and the experts, attention DP only for MoE
/// models, TP dividing every layer kind's heads), the precisions against the system's formats (nvfp4 and mxfp8 need
/// Blackwell's block-scaled tensor cores; fp8-block FP8 ones; mxfp4 and int4 run everywhere, serve_precision.hpp), the
/// lengths against the model's context, the load, and speculative decoding against the model and the engine. nullopt
/// when valid; memory is serve_memory()'s question.
[[nodiscard]] std::optional<Error> serve_config_error(const ModelConfig& model, const SystemProfile& system,
                                                      const ServeConfig& config);
/// The part of serve_config_error that does not depend on the layout or the precision: the request lengths against
/// the context, the load, the engine's limits and speculative decoding.
[[nodiscard]] std::optional<Error> serve_request_error(const ModelConfig& model, const ServeConfig& config);

}  // namespace dgx::llm
