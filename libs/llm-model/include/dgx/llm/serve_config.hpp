// One serving configuration: the replica's parallel layout, the precisions, the request lengths and the load, and
// the rules that make it valid for a model on a system (errors as values naming the reason).
#pragma once

#include "dgx/llm/expected.hpp"
#include "dgx/llm/model_config.hpp"
#include "dgx/llm/precision.hpp"
#include "dgx/llm/system_profile.hpp"

#include <optional>
#include <string>

namespace dgx::llm {

/// The GPUs of one replica (one serving engine): tensor parallel inside the NVLink domain, pipeline stages, and
/// expert parallel inside the TP group (TensorRT-LLM's moe_ep_size × moe_tp_size = tp_size): with ep > 1 each
/// rank holds experts/ep whole experts sliced tp/ep ways.
struct ServeLayout {
  int tp = 1, pp = 1, ep = 1;
  [[nodiscard]] int gpus() const { return tp * pp; }
  [[nodiscard]] int expert_tp() const { return tp / ep; }
};

/// What a serving benchmark fixes: the layout, the precisions, the request lengths (trtllm-bench's token-norm-dist:
/// a mean and a standard deviation per length) and the load.
struct ServeConfig {
  ServeLayout layout;
  Precision precision = Precision::bf16;     ///< weights and activations of the linear layers
  Precision kv_precision = Precision::bf16;  ///< the KV cache: bf16, fp8 or nvfp4
  int isl = 0;                               ///< input (prompt) tokens per request, mean
  int osl = 0;                               ///< output tokens per request, mean
  double isl_stdev = 0;                      ///< 0: every request has exactly isl
  double osl_stdev = 0;
  int concurrency = 0;           ///< requests in flight per replica (closed loop); 0: offline, as many as fit
  int max_batch_tokens = 0;      ///< token budget of one iteration; 0: serve_constants::kDefaultMaxBatchTokens
  int max_batch_size = 0;        ///< requests the engine schedules at once at most; 0: kDefaultMaxBatchSize
  double kv_cache_fraction = 0;  ///< of the memory left for the KV cache; 0: serve_constants::kDefaultKvCacheFraction
  int requests = 0;  ///< requests the simulation serves (lengths with a spread); 0: enough for a steady state

  [[nodiscard]] bool has_spread() const { return isl_stdev > 0 || osl_stdev > 0; }
  [[nodiscard]] int batch_tokens() const;
  [[nodiscard]] int batch_size() const;
  [[nodiscard]] double kv_fraction() const;
};

/// The KV cache format that goes with a weight precision when none is chosen (serve.kv_precision = auto): FP8 for FP8
/// and FP4 weights (the FP8 recipes quantize the KV cache too; configs/baselines/inference.md), else BF16.
[[nodiscard]] Precision auto_kv_precision(Precision weights);

/// "TP2 PP1", "TP8 PP2 EP4" (EP only for MoE models or when set).
[[nodiscard]] std::string layout_label(const ServeLayout& layout, bool moe);

/// Checks the layout against the model and the system (TP within the NVLink domain and dividing the heads, KV heads
/// dividing or divided by TP, PP at most the layers, EP dividing TP and the experts), the precisions against the
/// system's formats (nvfp4 and mxfp8 need Blackwell's block-scaled tensor cores), and the lengths against the
/// model's context. nullopt when valid; memory is serve_memory()'s question.
[[nodiscard]] std::optional<Error> serve_config_error(const ModelConfig& model, const SystemProfile& system,
                                                      const ServeConfig& config);
/// The part of serve_config_error that does not depend on the layout or the precision: the request lengths against
/// the context, the load and the engine's limits.
[[nodiscard]] std::optional<Error> serve_request_error(const ModelConfig& model, const ServeConfig& config);

}  // namespace dgx::llm
