// Memory of a serving GPU: the weights of its stage at their precision, the activation workspace of one iteration
// at the token budget, a reserve for the runtime, and the KV cache in what is left (a fraction of it, as
// TensorRT-LLM's kv_cache_free_gpu_mem_fraction and vLLM's gpu_memory_utilization set aside). The KV cache decides
// how many requests fit: with TensorRT-LLM's default guaranteed-no-evict scheduling a request reserves its whole
// prompt + output when it is admitted.
#pragma once

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/expected.hpp"
#include "dgx/llm/serve_kv.hpp"
#include "dgx/llm/serve_ops.hpp"

namespace dgx::llm {

struct ServeMemory {
  double weights = 0;             ///< bytes per GPU of the fullest stage
  double activations = 0;         ///< workspace of one iteration of max_batch_tokens tokens, logits included
  double reserve = 0;             ///< CUDA context, library workspaces, communication buffers, CUDA graphs
  double kv_cache = 0;            ///< bytes given to the KV cache
  double capacity = 0;            ///< HBM bytes
  double kv_bytes_per_token = 0;  ///< KV bytes one token takes on one GPU of the fullest stage (layers keeping all)
  KvFootprint kv;                 ///< what a request keeps: per token, in windowed / chunked layers, recurrent state
  int kv_replicas = 1;            ///< attention DP ranks, each holding its own requests' KV cache (else 1)

  /// Tokens the replica's KV cache holds (every GPU holds its layers' share of each token; with attention DP each
  /// rank its own requests' tokens).
  [[nodiscard]] double kv_tokens() const {
    return kv_bytes_per_token > 0 ? kv_replicas * kv_cache / kv_bytes_per_token : 0;
  }
  /// Tokens the replica's KV cache holds in requests of `request_tokens` (prompt + output) each: kv_tokens() when the
  /// footprint grows with the tokens alone; with windows, chunks or recurrent states the requests that fit × their
  /// tokens (fractional).
  [[nodiscard]] double kv_tokens(double request_tokens) const;
  /// Requests of prompt + output `tokens` that fit at once (with attention DP, whole on one rank).
  [[nodiscard]] int max_requests(double tokens) const;
  [[nodiscard]] double total() const { return weights + activations + reserve + kv_cache; }
};

/// Weight bytes one GPU of the fullest stage holds: the decoder layers' linear weights in their serving format
/// (serve_precision.hpp; MoE: its experts/ep experts sliced tp/ep ways), norms and router in BF16, the token
/// embedding on the first stage and the LM head on the last (BF16, split over TP); a model served by group holds its
/// share of each group's layers.
[[nodiscard]] double serve_weight_bytes(const ModelConfig& model, const ServeShape& shape);

/// The memory of one GPU, or why the configuration does not fit: the weights alone exceed the HBM, or nothing is
/// left for the KV cache after weights, activations and the reserve.
[[nodiscard]] Expected<ServeMemory> serve_memory(const ModelConfig& model, const SystemProfile& system,
                                                 const ServeShape& shape, int max_batch_tokens, int max_batch_size,
                                                 double kv_fraction);

}  // namespace dgx::llm
