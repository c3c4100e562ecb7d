#include "dgx/llm/serve_ops.hpp"

#include "dgx/llm/communication.hpp"
#include "dgx/llm/serve_constants.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace dgx::llm {

namespace {

constexpr double kBf16 = 2;

std::int64_t whole(double value) { return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(value))); }

/// Appends the ops of one iteration at the per-rank shapes of a layout.
class Builder {
public:
  Builder(const ModelConfig& model, const SystemProfile& system, const ServeShape& shape, const StepLoad& load)
      : model_(model), shape_(shape), load_(load), rank_(rank_shape(model, shape.layout)),
        tp_group_(place_group(1, shape.layout.tp, system.nvlink_domain)),
        pp_group_(place_group(shape.layout.tp, shape.layout.pp, system.nvlink_domain)),
        input_bytes_(gemm_operand_bytes(shape.precision)) {
    ops_.reserve(32);
  }

  std::vector<Op> take() { return std::move(ops_); }

  [[nodiscard]] double tokens() const { return load_.tokens(); }
  [[nodiscard]] double tp() const { return shape_.layout.tp; }
  [[nodiscard]] double hidden() const { return static_cast<double>(model_.hidden); }
  [[nodiscard]] double ffn() const { return static_cast<double>(model_.ffn); }
  [[nodiscard]] const RankShape& rank() const { return rank_; }
  /// What a fused norm or activation writes: the input format of the GEMM it feeds.
  [[nodiscard]] double gemm_input_bytes() const { return input_bytes_; }

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
  void attention(double q_len, double kv_len) {
    if (q_len <= 0 || kv_len <= 0) {
      return;
    }
    ops_.push_back(Op{.name = "attention",
                      .shape = AttentionShape{.batch = 1,
                                              .heads = whole(rank_.heads),
                                              .kv_heads = whole(rank_.kv_heads),
                                              .q_len = whole(q_len),
                                              .kv_len = whole(kv_len),
                                              .head_dim = whole(rank_.head_dim),
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
  const StepLoad& load_;

private:
  RankShape rank_;
  GroupPlacement tp_group_, pp_group_;
  double input_bytes_;
  std::vector<Op> ops_;
};

void attention_block(Builder& b, double kv_bytes) {
  const ModelConfig& m = b.model_;
  const StepLoad& load = b.load_;
  const RankShape& r = b.rank();
  const double t = b.tokens();
  const double q_width = r.heads * r.head_dim;
  const double kv_width = r.kv_heads * r.head_dim;
  b.add_norm("norm_attn", t);
  b.gemm("qkv", t, static_cast<double>(m.qkv_width()) / b.tp(), b.hidden(), b.shape_.precision);
  // Rotary embedding of q and k fused with the KV cache append: read the QKV output, write q, write k and v into
  // the cache in its format.
  b.memory("rope_kv_append", t * ((q_width + 2 * kv_width) * kBf16 + q_width * kBf16 + 2 * kv_width * kv_bytes));
  if (load.prefill_tokens > 0) {
    b.attention(load.prefill_tokens, load.prefill_pairs / load.prefill_tokens);
  }
  // Decode attention streams every decoding sequence's K and V (split over the sequence, then combined).
  b.memory("decode_attention", load.decode_kv_tokens * 2 * kv_width * kv_bytes + load.decode_seqs * q_width * 2 * kBf16,
           2);
  if (b.shape_.precision != Precision::bf16) {
    b.memory("cast_proj_input", t * q_width * (kBf16 + b.gemm_input_bytes()));
  }
  b.gemm("proj", t, b.hidden(), q_width, b.shape_.precision);
  b.collective("tp_all_reduce_attn", CommGroup::tp, Collective::all_reduce, t * b.hidden() * kBf16);
}

void dense_mlp(Builder& b) {
  const double t = b.tokens();
  const double width = b.ffn() / b.tp();
  b.gemm("fc1", t, width * (b.model_.mlp_matrices() - 1), b.hidden(), b.shape_.precision);
  b.activation(t, width);
  b.gemm("fc2", t, b.hidden(), width, b.shape_.precision);
}

/// Routed experts: the router on every token (BF16), the routed copies gathered per local expert, grouped expert
/// GEMMs over the experts that receive tokens (balanced routing: with T tokens an expert is hit with probability
/// 1 − (1 − k/E)^T, so small decode batches read fewer experts' weights), and the weighted sum back.
void moe_mlp(Builder& b) {
  const ModelConfig& m = b.model_;
  const ServeLayout& l = b.shape_.layout;
  const double t = b.tokens();
  const double h = b.hidden();
  const double experts = m.experts;
  const double local_experts = experts / l.ep;
  const double hit = 1.0 - std::pow(1.0 - static_cast<double>(m.top_k) / experts, std::max(1.0, t));
  const double active = std::max(1.0, std::ceil(local_experts * hit - 1e-9));
  const double copies = t * m.top_k / l.ep;  // routed token copies this rank's experts process
  const double width = b.ffn() / l.expert_tp();
  b.gemm("router", t, experts, h, Precision::bf16);
  b.memory("permute", copies * h * 2 * b.gemm_input_bytes());
  b.gemm("expert_fc1", copies / active, width * (m.mlp_matrices() - 1), h, b.shape_.precision, active);
  b.activation(copies, width);
  b.gemm("expert_fc2", copies / active, h, width, b.shape_.precision, active);
  b.memory("unpermute", copies * h * kBf16 + t * h * kBf16);
}

}  // namespace

StepLoad StepLoad::split(int parts) const {
  const double p = std::max(1, parts);
  return StepLoad{.decode_seqs = decode_seqs / p,
                  .decode_kv_tokens = decode_kv_tokens / p,
                  .prefill_tokens = prefill_tokens / p,
                  .prefill_pairs = prefill_pairs / p,
                  .logit_rows = logit_rows / p};
}

RankShape rank_shape(const ModelConfig& model, const ServeLayout& layout) {
  const int tp = std::max(1, layout.tp);
  const int pp = std::max(1, layout.pp);
  return RankShape{.heads = static_cast<double>(model.heads) / tp,
                   .kv_heads = model.kv_groups >= tp ? static_cast<double>(model.kv_groups) / tp : 1.0,
                   .head_dim = static_cast<double>(model.head_dim()),
                   .stage_layers = (model.layers + pp - 1) / pp};
}

double kv_bytes_per_token(const ModelConfig& model, const ServeShape& shape) {
  const RankShape r = rank_shape(model, shape.layout);
  return 2.0 * r.stage_layers * r.kv_heads * r.head_dim * gemm_operand_bytes(shape.kv_precision);
}

std::vector<Op> serve_layer_ops(const ModelConfig& model, const SystemProfile& system, const ServeShape& shape,
                                const StepLoad& load) {
  Builder b(model, system, shape, load);
  attention_block(b, gemm_operand_bytes(shape.kv_precision));
  b.add_norm("norm_mlp", b.tokens());
  if (model.moe()) {
    moe_mlp(b);
  } else {
    dense_mlp(b);
  }
  b.collective("tp_all_reduce_mlp", CommGroup::tp, Collective::all_reduce, b.tokens() * b.hidden() * kBf16);
  return b.take();
}

std::vector<Op> serve_first_stage_ops(const ModelConfig& model, const SystemProfile& system, const ServeShape& shape,
                                      const StepLoad& load) {
  Builder b(model, system, shape, load);
  // TensorRT-LLM splits the embedding table over TP along the hidden dimension and all-gathers the rows.
  b.memory("embedding", b.tokens() * b.hidden() / b.tp() * 2 * kBf16);
  b.collective("tp_all_gather_embedding", CommGroup::tp, Collective::all_gather, b.tokens() * b.hidden() * kBf16);
  return b.take();
}

std::vector<Op> serve_last_stage_ops(const ModelConfig& model, const SystemProfile& system, const ServeShape& shape,
                                     const StepLoad& load) {
  Builder b(model, system, shape, load);
  const double rows = load.logit_rows;
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
  Builder b(model, system, shape, load);
  b.collective("pp_send", CommGroup::pp, Collective::send_recv, b.tokens() * b.hidden() * kBf16);
  return b.take();
}

}  // namespace dgx::llm
