// The ops of one serving iteration on one GPU, at their exact per-rank shapes: one forward pass over a batch that
// mixes prompt chunks (prefill) with the decoding sequences' tokens, as in-flight batching runs it (TensorRT-LLM,
// vLLM). Structure of TensorRT-LLM's Llama / Mixtral / DeepSeek: pre-norm decoder with residual-add fused into the
// norm (which also casts to the GEMM's input format), column-parallel QKV (MLA: the replicated latent
// down-projection, then the per-head up-projections), rotary embedding fused with the KV cache append, fused (flash)
// attention over the prompt chunk, a paged decode attention reading each sequence's KV cache (MLA: in the latent
// space, the up-projections absorbed), row-parallel output projection, one TP all-reduce after attention and one
// after the MLP (no sequence parallelism; the engines' one-shot all-reduce for small messages), a SwiGLU / GELU MLP
// or a routed MoE with its shared experts, and per iteration the embedding, final norm, LM head (BF16), logits
// gather and sampling. With attention data parallelism each GPU runs attention, norms, dense MLPs and the LM head for
// its own requests, and every MoE layer dispatches its tokens to the experts' GPUs and combines them back
// (all-to-all over NVLink, or the scale-out network beyond the NVLink domain).
#pragma once

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/ops.hpp"
#include "dgx/llm/serve_config.hpp"
#include "dgx/llm/serve_constants.hpp"

#include <vector>

namespace dgx::llm {

/// What one iteration processes on the replica (all stages); fractional values are averages over iterations.
struct StepLoad {
  double decode_seqs = 0;       ///< sequences generating (one token each, or verifying drafts)
  double decode_kv_tokens = 0;  ///< Σ over them of the tokens in their KV cache (what decode attention reads)
  double prefill_tokens = 0;    ///< prompt tokens of the chunks in this iteration
  double prefill_pairs = 0;     ///< Σ over those tokens of the keys each attends to (causal, the cached prefix too)
  double logit_rows = 0;        ///< tokens that sample: the decoding positions and the prompts completing
  double verify = 1;            ///< positions each decoding sequence puts through the model: 1 + draft length

  [[nodiscard]] double tokens() const { return decode_seqs * verify + prefill_tokens; }
  /// This load split into `parts` equal micro-batches (pipeline parallelism).
  [[nodiscard]] StepLoad split(int parts) const;
};

/// Everything the per-rank shapes depend on besides the load.
struct ServeShape {
  ServeLayout layout;
  Precision precision = Precision::bf16;
  Precision kv_precision = Precision::bf16;
  SpeculativeConfig speculative{};                            ///< the drafter's ops and its KV cache
  int graph_max_batch = serve_constants::kCudaGraphMaxBatch;  ///< decode-only batches up to this run as CUDA graphs
};

/// The shape of a configuration.
[[nodiscard]] ServeShape serve_shape(const ServeConfig& config);

/// Per-rank sizes of a model under a layout: heads, KV heads (replicated when TP exceeds them), stage layers.
struct RankShape {
  double heads = 0, kv_heads = 0, head_dim = 0;
  int stage_layers = 0;   ///< layers of the fullest pipeline stage: ceil(layers / pp)
  double moe_layers = 0;  ///< of those, layers with a MoE MLP (the model's share, fractional)
  double kv_width = 0;    ///< KV cache elements per token and layer on one GPU (MLA: the latent and rotary key)
};
[[nodiscard]] RankShape rank_shape(const ModelConfig& model, const ServeLayout& layout);

/// KV cache bytes one token occupies on one GPU of the fullest stage in the layers that keep every token: 2 (K, V) ·
/// layers · KV heads · head_dim · bytes of the KV format; MLA: layers · (kv_lora_rank + qk_rope_head_dim) · bytes,
/// the compressed latent, which every TP rank holds whole (it has no heads to split). A drafter adds its own layers'
/// KV (MTP, EAGLE: one layer; a draft model: all of its layers). Windowed and chunked layers and the recurrent states
/// of Mamba-2 and linear attention are the other parts of a request's footprint (serve_kv.hpp).
[[nodiscard]] double kv_bytes_per_token(const ModelConfig& model, const ServeShape& shape);

/// The kinds of layer serving runs: the model's groups; for a model without groups whose sliding-window layers are a
/// share of its layers (gpt-oss: every other one), its full and its windowed layers (the share rounded to whole
/// layers); else one group of all its layers.
[[nodiscard]] std::vector<LayerGroup> serve_layer_groups(const ModelConfig& model);
/// Whether serving runs `model` group by group (serve_layer_groups has more than one group, or the one group's kind
/// differs from a plain attention + MLP layer's treatment), rather than as `layers` identical layers.
[[nodiscard]] bool serves_by_group(const ModelConfig& model);
/// One group's layers as a uniform model: layer_view for a grouped model; for a model without groups the model with
/// the group's window (sliding_window_layers 1 or 0).
[[nodiscard]] ModelConfig serve_view(const ModelConfig& model, const LayerGroup& group);
/// Layers of `group` on the fullest of `pp` stages: its share of ceil(layers / pp) (fractional).
[[nodiscard]] double stage_share(const ModelConfig& model, const LayerGroup& group, int pp);

/// The load a layer's attention sees: each decoding sequence's keys within the layer's window, chunk or top-k
/// (mixer_work.hpp decode_keys at its mean context) and each prompt token's (prefill_keys); `load` itself for a layer
/// that attends to the whole context.
[[nodiscard]] StepLoad attended(const ModelConfig& layer, const StepLoad& load);

/// The kind of decoder layer: the model's MoE layers, or its dense ones (all of a dense model; DeepSeek's first
/// three).
enum class LayerKind : unsigned char { dense, moe };

/// The ops of one decoder layer on one GPU for `load` (an op whose size is zero is left out); `kind` defaults to the
/// model's MoE layer when it has experts. The layer is `model`'s default layer (a serve_view for one group): its mixer
/// (attention over its window, chunk or top-k, Mamba-2, linear attention or none) and its MLP (or none).
[[nodiscard]] std::vector<Op> serve_layer_ops(const ModelConfig& model, const SystemProfile& system,
                                              const ServeShape& shape, const StepLoad& load);
[[nodiscard]] std::vector<Op> serve_layer_ops(const ModelConfig& model, const SystemProfile& system,
                                              const ServeShape& shape, const StepLoad& load, LayerKind kind);
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
