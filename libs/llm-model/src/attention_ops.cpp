// The attention blocks of a training layer (layer_ops.hpp): GQA's QKV projection, rotary, the flash-attention core
// with the context-parallel ring and the output projection; MLA's latent projections.
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

/// Executed fraction of the q×k square: causal (diagonal tiles whole), and for the share of sliding-window
/// layers only the window (plus a tile) of keys each query sees.
double mask_fraction(const ModelConfig& model, const ShapeKey& shape, double q_len) {
  const double causal = 0.5 * (1.0 + kCausalTile / q_len);
  if (model.sliding_window <= 0) {
    return causal;
  }
  const double window = std::min(causal, (model.sliding_window + kCausalTile) / static_cast<double>(shape.seq_len));
  return (1.0 - model.sliding_window_layers) * causal + model.sliding_window_layers * window;
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
      [&](bool f) { b.column(f, kQkv, t, h, static_cast<double>(model.qkv_width())); },
      [&](bool f) {
        if (model.qk_norm) {
          // Per-head RMSNorm of the queries and keys (two kernels): read and write them; backward reads the input
          // and the gradient and writes the input gradient.
          const double qk = t * static_cast<double>(model.q_width() + model.head_dim() * model.kv_groups) / b.tp();
          b.memory(f, "qk_norm", qk * kBf16 * (f ? 2 : 3), 2);
        }
      },
      [&](bool f) { b.rope(f); },
      [&](bool f) { b.in_part(OpPart::attention_core, [&] { attention_core(b, f); }); },
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
      [&](bool f) { b.in_part(OpPart::attention_core, [&] { attention_core(b, f); }); },
      [&](bool f) { b.row(f, kProj, t, static_cast<double>(model.attention_out_width()), h); },
  };
  Builder::run(forward, steps);
}

}  // namespace dgx::llm::detail
