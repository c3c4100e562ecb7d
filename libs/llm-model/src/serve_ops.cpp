#include "dgx/llm/serve_ops.hpp"

#include "dgx/llm/communication.hpp"
#include "dgx/llm/model_constants.hpp"
#include "dgx/llm/serve_constants.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace dgx::llm {

namespace {

using constants::kBf16;

std::int64_t whole(double value) { return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(value))); }

/// Appends the ops of one iteration at the per-rank shapes of a layout. With attention DP the attention, norms, dense
/// MLPs and LM head see this GPU's share of the load (`local`), the MoE experts every rank's tokens (`load`).
class ServeOpsBuilder {
public:
  ServeOpsBuilder(const ModelConfig& model, const SystemProfile& system, const ServeShape& shape, const StepLoad& load)
      : model_(model), shape_(shape), load_(load), local_(load.split(shape.layout.attention_dp_ranks())),
        system_(system), rank_(rank_shape(model, shape.layout)),
        tp_group_(place_group(1, shape.layout.attention_tp(), system.nvlink_domain)),
        ep_group_(place_group(1, shape.layout.tp, system.nvlink_domain)),
        pp_group_(place_group(shape.layout.tp, shape.layout.pp, system.nvlink_domain)),
        input_bytes_(gemm_operand_bytes(shape.precision)) {
    ops_.reserve(32);
  }

  std::vector<Op> take() { return std::move(ops_); }

  /// Tokens this GPU's attention and dense parts process.
  [[nodiscard]] double tokens() const { return local_.tokens(); }
  /// GPUs the attention heads and dense weights are split over (1 with attention DP).
  [[nodiscard]] double tp() const { return shape_.layout.attention_tp(); }
  [[nodiscard]] double hidden() const { return static_cast<double>(model_.hidden); }
  [[nodiscard]] const RankShape& rank() const { return rank_; }
  /// What a fused norm or activation writes: the input format of the GEMM it feeds.
  [[nodiscard]] double gemm_input_bytes() const { return input_bytes_; }
  [[nodiscard]] const SystemProfile& system() const { return system_; }

  void gemm(std::string_view name, double m, double n, double k, Precision precision, double groups = 1) {
    if (m <= 0 || n <= 0 || k <= 0) {
      return;
    }
    ops_.push_back(Op{.name = name,
                      .precision = precision,
                      .shape = GemmShape{.m = whole(m), .n = whole(n), .k = whole(k), .groups = whole(groups)}});
  }
  void memory(std::string_view name, double bytes, int kernels = 1) {
    if (bytes > 0) {
      ops_.push_back(Op{.name = name, .shape = MemoryShape{.bytes = bytes, .kernels = kernels}});
    }
  }
  void collective(std::string_view name, CommGroup group, Collective kind, double bytes) {
    const GroupPlacement placement = group == CommGroup::pp ? pp_group_ : tp_group_;
    if (placement.ranks > 1 && bytes > 0) {
      ops_.push_back(Op{.name = name,
                        .group = group,
                        .shape = CollectiveShape{.collective = kind, .bytes = bytes, .placement = placement}});
    }
  }
  /// The TP all-reduce: the engines' one-shot kernel for small messages inside the NVLink domain when it is the
  /// faster (latency-bound decode), NCCL's ring otherwise.
  void all_reduce(std::string_view name, double bytes) {
    if (tp_group_.ranks <= 1 || bytes <= 0) {
      return;
    }
    CollectiveShape shape{.collective = Collective::all_reduce, .bytes = bytes, .placement = tp_group_};
    const bool small = bytes <= serve_constants::kOneShotAllReduceMaxBytes && !tp_group_.spans_domains();
    shape.one_sided = small && collective_seconds(system_, Collective::all_reduce, bytes, tp_group_, 1, true) <
                                   collective_seconds(system_, Collective::all_reduce, bytes, tp_group_);
    ops_.push_back(Op{.name = name, .group = CommGroup::tp, .shape = shape});
  }
  /// The MoE dispatch or combine of attention DP: every rank sends its tokens' routed copies to the experts' ranks
  /// (one-sided stores, a token sent once per remote NVLink domain and fanned out there).
  void all_to_all(std::string_view name, double bytes) {
    if (ep_group_.ranks <= 1 || bytes <= 0) {
      return;
    }
    ops_.push_back(Op{.name = name,
                      .group = CommGroup::ep,
                      .shape = CollectiveShape{.collective = Collective::all_to_all,
                                               .bytes = bytes,
                                               .placement = ep_group_,
                                               .offdomain_share = flex_offdomain_share(ep_group_, model_.top_k),
                                               .one_sided = true}});
  }
  void attention(double q_len, double kv_len, double head_dim, double kv_heads) {
    if (q_len <= 0 || kv_len <= 0) {
      return;
    }
    ops_.push_back(Op{.name = "attention",
                      .shape = AttentionShape{.batch = 1,
                                              .heads = whole(rank_.heads),
                                              .kv_heads = whole(kv_heads),
                                              .q_len = whole(q_len),
                                              .kv_len = whole(kv_len),
                                              .head_dim = whole(head_dim),
                                              .mask_fraction = 1}});
  }
  /// Residual add fused with the norm that follows it, which writes the next GEMM's input format: read x and the
  /// residual, write the new residual and the normalized tokens.
  void add_norm(std::string_view name, double rows) {
    memory(name, rows * hidden() * (3 * kBf16 + gemm_input_bytes()));
  }
  /// The MLP activation on `rows` × `width`, writing the second GEMM's input format (SwiGLU reads gate and up).
  void activation(double rows, double width) {
    const double in = rows * width * kBf16;
    const double out = rows * width * gemm_input_bytes();
    switch (model_.activation) {
    case Activation::swiglu: memory("swiglu", 2 * in + out); break;
    case Activation::gelu: memory("gelu", in + out); break;
    case Activation::squared_relu: memory("squared_relu", 2 * in + out + in, 2); break;
    }
  }

  const ModelConfig& model_;
  const ServeShape& shape_;
  const StepLoad& load_;  ///< the whole replica's load
  StepLoad local_;        ///< this GPU's share of it (attention DP), else the same

private:
  const SystemProfile& system_;
  RankShape rank_;
  GroupPlacement tp_group_, ep_group_, pp_group_;
  double input_bytes_;
  std::vector<Op> ops_;
};

/// Decode attention reads each decoding sequence's KV cache once (its verify positions share the read); when its
/// FLOPs outweigh the bytes (MLA's 128 heads over one latent, long drafts) it runs at the attention kernel's
/// compute rate instead.
void decode_attention(ServeOpsBuilder& b, double kv_width, double kv_bytes, double flops_per_key) {
  const StepLoad& load = b.local_;
  const RankShape& r = b.rank();
  const double bytes =
      load.decode_kv_tokens * kv_width * kv_bytes + load.decode_seqs * load.verify * r.heads * r.head_dim * 2 * kBf16;
  const double flops = load.decode_kv_tokens * load.verify * r.heads * flops_per_key;
  const SystemProfile& s = b.system();
  const Efficiency& e = s.efficiency;
  const double memory_s = bytes / (s.hbm_bytes_per_s() * e.memory_bw);
  const double compute_s = flops / (s.dense_peak_flops(Precision::bf16) * e.attention_fwd);
  if (compute_s > memory_s && load.decode_seqs > 0) {
    // As flash attention over the decoding sequences: q = their positions, keys = their mean context.
    const double q = load.decode_seqs * load.verify;
    b.attention(q, load.decode_kv_tokens / load.decode_seqs, flops_per_key / 4, 1);
    return;
  }
  b.memory("decode_attention", bytes, 2);
}

void gqa_attention(ServeOpsBuilder& b, double kv_bytes) {
  const ModelConfig& m = b.model_;
  const StepLoad& load = b.local_;
  const RankShape& r = b.rank();
  const double t = b.tokens();
  const double q_width = r.heads * r.head_dim;
  const double kv_width = r.kv_heads * r.head_dim;
  b.gemm("qkv", t, static_cast<double>(m.qkv_width()) / b.tp(), b.hidden(), b.shape_.precision);
  // Rotary embedding of q and k fused with the KV cache append: read the QKV output, write q, write k and v into
  // the cache in its format.
  b.memory("rope_kv_append", t * ((q_width + 2 * kv_width) * kBf16 + q_width * kBf16 + 2 * kv_width * kv_bytes));
  if (load.prefill_tokens > 0) {
    b.attention(load.prefill_tokens, load.prefill_pairs / load.prefill_tokens, r.head_dim, r.kv_heads);
  }
  // Decode attention streams every decoding sequence's K and V (split over the sequence, then combined).
  decode_attention(b, 2 * kv_width, kv_bytes, 4 * r.head_dim);
  if (b.shape_.precision != Precision::bf16) {
    b.memory("cast_proj_input", t * q_width * (kBf16 + b.gemm_input_bytes()));
  }
  b.gemm("proj", t, b.hidden(), q_width, b.shape_.precision);
}

/// DeepSeek's multi-head latent attention as TensorRT-LLM runs it: the fused down-projection of queries and keys /
/// values to their latents (replicated on every TP rank), their norms, the query up-projection; prompt chunks
/// expand the latent to per-head keys and values for flash attention; decoding absorbs the up-projections into the
/// query and output (attention over the latent of kv_lora_rank + the rotary key: one KV "head" shared by all).
void mla_attention(ServeOpsBuilder& b, double kv_bytes) {
  const ModelConfig& m = b.model_;
  const StepLoad& load = b.local_;
  const RankShape& r = b.rank();
  const double t = b.tokens();
  const double h = b.hidden();
  const double latent = m.kv_lora_rank;
  const double rope = m.qk_rope_head_dim;
  const double nope = m.qk_nope_head_dim;
  const double v = m.v_head_dim;
  const double q_lora = m.q_lora_rank;
  const Precision p = b.shape_.precision;
  b.gemm("mla_fused_a", t, q_lora + latent + rope, h, p);
  b.memory("mla_latent_norms", t * (q_lora + latent) * 2 * kBf16, 2);
  b.gemm("q_b", t, r.heads * (nope + rope), q_lora > 0 ? q_lora : h, p);
  b.memory("rope_kv_append", t * (latent + rope) * (kBf16 + kv_bytes) + t * r.heads * rope * 2 * kBf16);
  if (load.prefill_tokens > 0) {
    b.gemm("kv_b", load.prefill_tokens, r.heads * (nope + v), latent, p);
    b.attention(load.prefill_tokens, load.prefill_pairs / load.prefill_tokens, nope + rope, r.heads);
  }
  const double decode_rows = load.decode_seqs * load.verify;
  b.gemm("mla_absorb_q", decode_rows, latent, nope, Precision::bf16, r.heads);
  // Scores over latent + rope dimensions and values over the latent: 2·(2·latent + rope) FLOPs per key and head.
  decode_attention(b, latent + rope, kv_bytes, 2 * (2 * latent + rope));
  b.gemm("mla_absorb_v", decode_rows, v, latent, Precision::bf16, r.heads);
  b.gemm("proj", t, h, r.heads * v, p);
}

void serve_dense_mlp(ServeOpsBuilder& b, double ffn, double split) {
  const double t = b.tokens();
  const double width = ffn / split;
  b.gemm("fc1", t, width * (b.model_.mlp_matrices() - 1), b.hidden(), b.shape_.precision);
  b.activation(t, width);
  b.gemm("fc2", t, b.hidden(), width, b.shape_.precision);
}

/// Routed experts: the router on every token (BF16), the routed copies gathered per local expert, grouped expert
/// GEMMs over the experts that receive tokens (balanced routing: with T tokens an expert is hit with probability
/// 1 − (1 − k/E)^T, so small decode batches read fewer experts' weights), the weighted sum back, and the shared
/// experts. With attention DP each rank's tokens travel to the experts' ranks and back (dispatch in the GEMMs'
/// input format, combine in BF16).
void serve_moe_mlp(ServeOpsBuilder& b) {
  const ModelConfig& m = b.model_;
  const ServeLayout& l = b.shape_.layout;
  const double local = b.tokens();
  const double all = b.load_.tokens();
  const double h = b.hidden();
  const double experts = m.experts;
  const double local_experts = experts / l.ep;
  const double hit = 1.0 - std::pow(1.0 - static_cast<double>(m.top_k) / experts, std::max(1.0, all));
  const double active = std::max(1.0, std::ceil(local_experts * hit - 1e-9));
  const double copies = all * m.top_k / l.ep;  // routed token copies this rank's experts process
  const double width = static_cast<double>(m.ffn) / l.expert_tp();
  b.gemm("router", local, experts, h, Precision::bf16);
  if (l.attention_dp) {
    b.all_to_all("ep_dispatch", local * m.top_k * h * b.gemm_input_bytes());
  }
  b.memory("permute", copies * h * 2 * b.gemm_input_bytes());
  b.gemm("expert_fc1", copies / active, width * (m.mlp_matrices() - 1), h, b.shape_.precision, active);
  b.activation(copies, width);
  b.gemm("expert_fc2", copies / active, h, width, b.shape_.precision, active);
  b.memory("unpermute", copies * h * kBf16 + local * h * kBf16);
  if (l.attention_dp) {
    b.all_to_all("ep_combine", local * m.top_k * h * kBf16);
  }
  if (m.shared_experts > 0) {
    serve_dense_mlp(b, static_cast<double>(m.ffn) * m.shared_experts, b.tp());
  }
}

}  // namespace

ServeShape serve_shape(const ServeConfig& config) {
  return ServeShape{.layout = config.layout,
                    .precision = config.precision,
                    .kv_precision = config.kv_precision,
                    .speculative = config.speculative};
}

StepLoad StepLoad::split(int parts) const {
  const double p = std::max(1, parts);
  return StepLoad{.decode_seqs = decode_seqs / p,
                  .decode_kv_tokens = decode_kv_tokens / p,
                  .prefill_tokens = prefill_tokens / p,
                  .prefill_pairs = prefill_pairs / p,
                  .logit_rows = logit_rows / p,
                  .verify = verify};
}

RankShape rank_shape(const ModelConfig& model, const ServeLayout& layout) {
  const int tp = std::max(1, layout.attention_tp());
  const int pp = std::max(1, layout.pp);
  RankShape r{.heads = static_cast<double>(model.heads) / tp,
              .kv_heads = model.kv_groups >= tp ? static_cast<double>(model.kv_groups) / tp : 1.0,
              .head_dim = static_cast<double>(model.head_dim()),
              .stage_layers = (model.layers + pp - 1) / pp};
  r.moe_layers = model.layers > 0 ? r.stage_layers * static_cast<double>(model.moe_layers()) / model.layers : 0;
  r.kv_width =
      model.mla() ? static_cast<double>(model.kv_lora_rank + model.qk_rope_head_dim) : 2.0 * r.kv_heads * r.head_dim;
  return r;
}

double kv_bytes_per_token(const ModelConfig& model, const ServeShape& shape) {
  const RankShape r = rank_shape(model, shape.layout);
  const double bytes = gemm_operand_bytes(shape.kv_precision);
  double draft_layers_width = 0;
  const SpeculativeConfig& sp = shape.speculative;
  if (sp.kind == Speculation::mtp || sp.kind == Speculation::eagle) {
    draft_layers_width = r.kv_width;  // one layer of the model's own shape
  } else if (sp.kind == Speculation::draft && sp.draft_model) {
    ServeShape draft_shape{
        .layout = shape.layout, .precision = shape.precision, .kv_precision = shape.kv_precision, .speculative = {}};
    draft_shape.layout.attention_dp = false;
    return r.stage_layers * r.kv_width * bytes + kv_bytes_per_token(*sp.draft_model, draft_shape);
  }
  return (r.stage_layers * r.kv_width + draft_layers_width) * bytes;
}

std::vector<Op> serve_layer_ops(const ModelConfig& model, const SystemProfile& system, const ServeShape& shape,
                                const StepLoad& load) {
  return serve_layer_ops(model, system, shape, load, model.moe() ? LayerKind::moe : LayerKind::dense);
}

std::vector<Op> serve_layer_ops(const ModelConfig& model, const SystemProfile& system, const ServeShape& shape,
                                const StepLoad& load, LayerKind kind) {
  ServeOpsBuilder b(model, system, shape, load);
  const double kv_bytes = gemm_operand_bytes(shape.kv_precision);
  b.add_norm("norm_attn", b.tokens());
  if (model.mla()) {
    mla_attention(b, kv_bytes);
  } else {
    gqa_attention(b, kv_bytes);
  }
  b.all_reduce("tp_all_reduce_attn", b.tokens() * b.hidden() * kBf16);
  b.add_norm("norm_mlp", b.tokens());
  if (kind == LayerKind::moe && model.moe()) {
    serve_moe_mlp(b);
  } else {
    serve_dense_mlp(b, static_cast<double>(model.moe() ? model.dense_mlp_ffn() : model.ffn), b.tp());
  }
  b.all_reduce("tp_all_reduce_mlp", b.tokens() * b.hidden() * kBf16);
  return b.take();
}

std::vector<Op> serve_first_stage_ops(const ModelConfig& model, const SystemProfile& system, const ServeShape& shape,
                                      const StepLoad& load) {
  ServeOpsBuilder b(model, system, shape, load);
  // TensorRT-LLM splits the embedding table over TP along the hidden dimension and all-gathers the rows.
  b.memory("embedding", b.tokens() * b.hidden() / b.tp() * 2 * kBf16);
  b.collective("tp_all_gather_embedding", CommGroup::tp, Collective::all_gather, b.tokens() * b.hidden() * kBf16);
  return b.take();
}

std::vector<Op> serve_last_stage_ops(const ModelConfig& model, const SystemProfile& system, const ServeShape& shape,
                                     const StepLoad& load) {
  ServeOpsBuilder b(model, system, shape, load);
  const double rows = b.local_.logit_rows;
  const double vocab = static_cast<double>(model.vocab);
  b.memory("final_norm", rows * b.hidden() * 2 * kBf16);
  b.gemm("lm_head", rows, vocab / b.tp(), b.hidden(), Precision::bf16);
  b.collective("tp_all_gather_logits", CommGroup::tp, Collective::all_gather,
               rows * vocab * serve_constants::kLogitBytes);
  b.memory("sampling", rows * vocab * serve_constants::kSamplingBytesPerLogit);
  return b.take();
}

std::vector<Op> serve_handoff_ops(const ModelConfig& model, const SystemProfile& system, const ServeShape& shape,
                                  const StepLoad& load) {
  ServeOpsBuilder b(model, system, shape, load);
  b.collective("pp_send", CommGroup::pp, Collective::send_recv, b.tokens() * b.hidden() * kBf16);
  return b.take();
}

}  // namespace dgx::llm
