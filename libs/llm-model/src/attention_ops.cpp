// The attention blocks of a training layer (layer_ops.hpp): GQA's QKV projection (twice the query width with an
// output gate), rotary, the flash-attention core with the context-parallel ring (causal, over a sliding window, a
// chunk, or DSA's top-k keys) and the output projection; MLA's latent projections; DSA's lightning indexer.
#include "layer_builder.hpp"
#include "mixer_blocks.hpp"

#include <algorithm>

namespace dgx::llm::detail {

namespace {

using constants::kCausalTile;

constexpr LinearNames kQkv{
    "qkv", "", "cast_qkv_grad", "tp_all_gather_qkv", "tp_all_gather_qkv_wgrad", "tp_reduce_scatter_qkv_grad"};
constexpr LinearNames kProj{"proj", "cast_proj_input",       "cast_proj_grad", "tp_all_gather_proj_grad",
                            "",     "tp_reduce_scatter_proj"};
constexpr LinearNames kQUp{"q_up",
                           "",
                           "cast_q_up_grad",
                           "tp_all_gather_q_latent",
                           "tp_all_gather_q_latent_wgrad",
                           "tp_reduce_scatter_q_latent_grad"};
constexpr LinearNames kKvUp{"kv_up",
                            "",
                            "cast_kv_up_grad",
                            "tp_all_gather_kv_latent",
                            "tp_all_gather_kv_latent_wgrad",
                            "tp_reduce_scatter_kv_latent_grad"};

/// Executed fraction of the s×s square when each query p attends to its min(p, k) best keys (DSA's top-k): the
/// lower triangle up to k, a band of k beyond.
double sparse_fraction(double topk, double s) {
  if (topk >= s) {
    return 0.5 * (1.0 + 1.0 / s);
  }
  return (0.5 * topk * (topk + 1) + (s - topk) * topk) / (s * s);
}

/// Executed fraction of the q×k square: causal (diagonal tiles whole); chunked local attention the causal blocks
/// of its chunks (each plus a tile); DSA's top-k keys per query; and for the share of sliding-window layers only the
/// window (plus a tile) of keys each query sees.
double mask_fraction(const ModelConfig& model, const ShapeKey& shape, double q_len) {
  const double causal = 0.5 * (1.0 + kCausalTile / q_len);
  const double s = static_cast<double>(shape.seq_len);
  double own = causal;
  if (model.attention_chunk > 0) {
    own = std::min(own, 0.5 * (model.attention_chunk + kCausalTile) / s);
  }
  if (model.sparse_topk > 0) {
    own = std::min(own, sparse_fraction(model.sparse_topk, s));
  }
  if (model.sliding_window <= 0) {
    return own;
  }
  const double window = std::min(own, (model.sliding_window + kCausalTile) / s);
  return (1.0 - model.sliding_window_layers) * own + model.sliding_window_layers * window;
}

/// DeepSeek's lightning indexer (DeepSeek-V3.2, arXiv 2512.02556; its reference model.py): every TP rank holds it whole
/// and scores all its queries against every earlier key. Forward: the query up-projection wq_b (from the query
/// latent, or the hidden state without one), the key projection wk and the head weights weights_proj (one GEMM on
/// the gathered tokens), the FP8 scores (indexer_heads × indexer_head_dim per pair, the ReLU and weighted head sum
/// fused; BF16 on GPUs without FP8), the FP32 logits written and read by the top-k selection and the indices written.
/// Backward (its KL loss on detached inputs): the gradients of the scores (q and k, each the forward's FLOPs), the
/// loss over the logits, and the weight gradients of its projections.
void indexer(Builder& b, const ModelConfig& model, bool forward) {
  const ShapeKey& key = b.shape();
  const double t = b.tokens();
  const double heads = model.indexer_heads;
  const double dim = model.indexer_head_dim;
  const double q_in = model.mla() && model.q_lora_rank > 0 ? model.q_lora_rank : b.hidden();
  const double keys = 0.5 * (key.seq_len + 1.0);  // earlier keys of a query, on average
  const Precision scores = b.fp8_tensor_cores() ? Precision::fp8 : Precision::bf16;
  const double logits = t * keys * constants::kFp32;
  if (forward) {
    b.gemm(true, "indexer_q", Pass::forward, t, heads * dim, q_in, Precision::bf16);
    b.gemm(true, "indexer_k", Pass::forward, t, dim + heads, b.hidden(), Precision::bf16);
    // One kernel for all heads (DeepGEMM's fp8_mqa_logits): the heads' products summed into one logit per pair.
    b.gemm(true, "indexer_scores", Pass::forward, t, keys, heads * dim, scores);
    b.memory(true, "indexer_topk", 2 * logits + t * model.sparse_topk * constants::kFp32, 2);
    return;
  }
  b.memory(false, "indexer_loss", 3 * logits, 2);
  b.gemm(false, "indexer_scores", Pass::dgrad, t, heads * dim, keys, scores);  // dq
  b.gemm(false, "indexer_scores", Pass::dgrad, keys, dim, heads * t, scores);  // dk, over every head
  b.gemm(false, "indexer_k", Pass::wgrad, dim + heads, b.hidden(), t, Precision::bf16);
  b.gemm(false, "indexer_q", Pass::wgrad, heads * dim, q_in, t, Precision::bf16);
}

/// The sigmoid output gate (Qwen3.5's attn_output_gate): the attention output times sigmoid of the gate half of the
/// query projection, elementwise. Forward reads both and writes the product; backward reads both and the gradient
/// and writes the gradients of both.
void output_gate(Builder& b, const ModelConfig& model, bool forward) {
  if (model.attention_output_gate) {
    const double width = b.tokens() * static_cast<double>(model.q_width()) / b.tp();
    b.memory(forward, "output_gate", width * kBf16 * (forward ? 3 : 5));
  }
}

/// Flash attention of the local queries against the whole sequence, with the CP ring: each of the cp − 1
/// steps passes a K/V block on (the backward passes K/V and returns dK/dV).
void attention_core(Builder& b, bool forward) {
  const ModelConfig& model = b.model();
  const ShapeKey& key = b.shape();
  const double q_len = static_cast<double>(key.seq_len) / key.cp;
  // QKᵀ runs at the query/key width, PV at the value width: their mean gives the executed FLOPs.
  const AttentionShape shape{.batch = key.mbs,
                             .heads = model.heads / key.tp,
                             .kv_heads = std::max(1, model.kv_heads() / key.tp),
                             .q_len = std::int64_t(q_len),
                             .kv_len = key.seq_len,
                             .head_dim = (model.head_dim() + model.value_dim()) / 2,
                             .mask_fraction = mask_fraction(model, key, q_len),
                             .steps = key.cp};
  b.push(forward, Op{.name = "attention", .pass = forward ? Pass::forward : Pass::backward, .shape = shape});
  const double kv_block =
      b.tokens() * static_cast<double>(model.head_dim() + model.value_dim()) * model.kv_heads() / b.tp() * kBf16;
  b.collective(forward, "cp_kv_exchange", CommGroup::cp, Collective::send_recv,
               (forward ? 1.0 : 2.0) * (key.cp - 1) * kv_block);
}

}  // namespace

void attention_block(Builder& b, const ModelConfig& model, bool forward) {
  const double h = b.hidden();
  const double t = b.tokens();
  const double out_width = static_cast<double>(model.attention_out_width());
  const std::function<void(bool)> steps[] = {
      [&](bool f) {
        const double gate = model.attention_output_gate ? static_cast<double>(model.q_width()) : 0.0;
        b.column(f, kQkv, t, h, static_cast<double>(model.qkv_width()) + gate);
      },
      [&](bool f) {
        if (model.qk_norm) {
          // Per-head RMSNorm of the queries and keys (two kernels): read and write them; backward reads the input
          // and the gradient and writes the input gradient.
          const double qk = t * static_cast<double>(model.q_width() + model.head_dim() * model.kv_groups) / b.tp();
          b.memory(f, "qk_norm", qk * kBf16 * (f ? 2 : 3), 2);
        }
      },
      [&](bool f) { b.rope(f); },
      [&](bool f) {
        if (model.sparse_topk > 0) {
          indexer(b, model, f);
        }
      },
      [&](bool f) { b.in_part(OpPart::attention_core, [&] { attention_core(b, f); }); },
      [&](bool f) { output_gate(b, model, f); },
      [&](bool f) { b.row(f, kProj, t, out_width, h); },
  };
  Builder::run(forward, steps);
}

/// Multi-head latent attention (Megatron-core MLASelfAttention with sequence parallelism): the down-projections
/// to the query latent and to the key/value latent plus the shared rotary key run on the sequence shard with
/// weights replicated over TP, their norms too; the latents are all-gathered and up-projected column-parallel
/// (heads / tp per rank), then rotary, attention and the row-parallel output projection as in GQA.
void mla_block(Builder& b, const ModelConfig& model, bool forward) {
  const double h = b.hidden();
  const double t = b.tokens();
  const double heads = model.heads;
  const double q_lora = model.q_lora_rank;
  const double kv_latent = model.kv_lora_rank + model.qk_rope_head_dim;
  const std::function<void(bool)> steps[] = {
      [&](bool f) {
        if (q_lora > 0) {
          b.replicated(f, "q_down", h, q_lora);
        }
      },
      [&](bool f) { b.replicated(f, "kv_down", h, kv_latent); },
      [&](bool f) {
        if (q_lora > 0) {
          b.narrow_norm(f, "q_norm", q_lora);
        }
      },
      [&](bool f) { b.narrow_norm(f, "kv_norm", model.kv_lora_rank); },
      [&](bool f) {
        // Without a query latent the queries come from the hidden state directly, column-parallel.
        b.in_part(OpPart::mla_up, [&] {
          b.column(f, kQUp, t, q_lora > 0 ? q_lora : h, heads * static_cast<double>(model.head_dim()));
        });
      },
      [&](bool f) {
        b.in_part(OpPart::mla_up, [&] {
          b.column(f, kKvUp, t, model.kv_lora_rank, heads * (model.qk_nope_head_dim + model.v_head_dim));
        });
      },
      [&](bool f) { b.in_part(OpPart::mla_up, [&] { b.rope(f); }); },
      [&](bool f) {
        if (model.sparse_topk > 0) {
          indexer(b, model, f);
        }
      },
      [&](bool f) { b.in_part(OpPart::attention_core, [&] { attention_core(b, f); }); },
      [&](bool f) { b.row(f, kProj, t, static_cast<double>(model.attention_out_width()), h); },
  };
  Builder::run(forward, steps);
}

}  // namespace dgx::llm::detail
