// The ops of one serving iteration on one GPU, at their exact per-rank shapes: one forward pass over a batch that
// mixes prompt chunks (prefill) with one token of every decoding sequence, as in-flight batching runs it
// (TensorRT-LLM, vLLM). Structure of TensorRT-LLM's Llama / Mixtral: pre-norm decoder with residual-add fused into
// the norm (which also casts to the GEMM's input format), column-parallel QKV, rotary embedding fused with the KV
// cache append, fused (flash) attention over the prompt chunk, a paged decode attention reading each sequence's KV
// cache, row-parallel output projection, one TP all-reduce after attention and one after the MLP (no sequence
// parallelism), a SwiGLU / GELU MLP or a routed MoE, and per iteration the embedding, final norm, LM head (BF16),
// logits gather and sampling.
#pragma once

#include "dgx/llm/model_config.hpp"
#include "dgx/llm/ops.hpp"
#include "dgx/llm/serve_config.hpp"
#include "dgx/llm/system_profile.hpp"

#include <vector>

namespace dgx::llm {

/// What one iteration processes on the replica (all stages); fractional values are averages over iterations.
struct StepLoad {
  double decode_seqs = 0;       ///< sequences generating one token each
  double decode_kv_tokens = 0;  ///< Σ over them of the tokens in their KV cache (what decode attention reads)
  double prefill_tokens = 0;    ///< prompt tokens of the chunks in this iteration
  double prefill_pairs = 0;     ///< Σ over those tokens of the keys each attends to (causal, the cached prefix too)
  double logit_rows = 0;        ///< tokens that sample: the decoding sequences and the prompts completing

  [[nodiscard]] double tokens() const { return decode_seqs + prefill_tokens; }
  /// This load split into `parts` equal micro-batches (pipeline parallelism).
  [[nodiscard]] StepLoad split(int parts) const;
};

/// Everything the per-rank shapes depend on besides the load.
struct ServeShape {
  ServeLayout layout;
  Precision precision = Precision::bf16;
  Precision kv_precision = Precision::bf16;
};

/// Per-rank sizes of a model under a layout: heads, KV heads (replicated when TP exceeds them), stage layers.
struct RankShape {
  double heads = 0, kv_heads = 0, head_dim = 0;
  int stage_layers = 0;  ///< layers of the fullest pipeline stage: ceil(layers / pp)
};
[[nodiscard]] RankShape rank_shape(const ModelConfig& model, const ServeLayout& layout);

/// KV cache bytes one token occupies on one GPU of the fullest stage: 2 (K, V) · layers · KV heads · head_dim ·
/// bytes of the KV format.
[[nodiscard]] double kv_bytes_per_token(const ModelConfig& model, const ServeShape& shape);

/// The ops of one decoder layer on one GPU for `load` (an op whose size is zero is left out).
[[nodiscard]] std::vector<Op> serve_layer_ops(const ModelConfig& model, const SystemProfile& system,
                                              const ServeShape& shape, const StepLoad& load);
/// First-stage extras: the token embedding lookup.
[[nodiscard]] std::vector<Op> serve_first_stage_ops(const ModelConfig& model, const SystemProfile& system,
                                                    const ServeShape& shape, const StepLoad& load);
/// Last-stage extras: final norm, LM head (vocabulary-parallel, BF16), logits all-gather over TP, sampling.
[[nodiscard]] std::vector<Op> serve_last_stage_ops(const ModelConfig& model, const SystemProfile& system,
                                                   const ServeShape& shape, const StepLoad& load);
/// The activations one stage hands to the next (send/recv; none with one stage).
[[nodiscard]] std::vector<Op> serve_handoff_ops(const ModelConfig& model, const SystemProfile& system,
                                                const ServeShape& shape, const StepLoad& load);

}  // namespace dgx::llm
