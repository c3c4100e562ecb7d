#include "dgx/llm/flops.hpp"

#include <algorithm>

namespace dgx::llm {

std::string_view to_string(AttentionFlops convention) { return convention == AttentionFlops::full ? "full" : "causal"; }

namespace {

/// Linear weights of one attention block, without biases: GQA's QKV and output projections, or MLA's down- and
/// up-projections of the query and key/value latents, the decoupled rotary key and the output projection.
double attention_linear(const ModelConfig& m) {
  const double h = static_cast<double>(m.hidden);
  if (!m.mla()) {
    return h * static_cast<double>(m.qkv_width()) + static_cast<double>(m.attention_out_width()) * h;
  }
  const double heads = m.heads;
  const double q = m.q_lora_rank > 0 ? m.q_lora_rank * (h + heads * m.head_dim()) : h * heads * m.head_dim();
  const double kv = m.kv_lora_rank * (h + heads * (m.qk_nope_head_dim + m.v_head_dim)) + h * m.qk_rope_head_dim;
  return q + kv + static_cast<double>(m.attention_out_width()) * h;
}

/// Norm weights inside an MLA block (the query and key/value latents' norms).
double attention_norms(const ModelConfig& m, double norm) {
  if (!m.mla()) {
    return 0;
  }
  return (m.q_lora_rank > 0 ? m.q_lora_rank : 0) * norm / static_cast<double>(m.hidden) +
         m.kv_lora_rank * norm / static_cast<double>(m.hidden);
}

/// Weights of one expert or dense MLP of inner size `ffn`, with biases when the model has them.
double mlp_weights(const ModelConfig& m, double ffn, bool with_bias) {
  const double h = static_cast<double>(m.hidden);
  const double bias = with_bias && m.linear_bias ? 1.0 : 0.0;
  return m.mlp_matrices() * h * ffn + bias * ((m.mlp_matrices() - 1) * ffn + h);
}

/// Experts (of ffn) a token passes through in an MoE layer: its top-k and the shared ones.
double active_experts(const ModelConfig& m) { return m.top_k + m.shared_experts; }

}  // namespace

double model_flops_per_sequence(const ModelConfig& model, int seq_len, AttentionFlops convention) {
  const double s = seq_len;
  const double h = static_cast<double>(model.hidden);
  const double ffn = static_cast<double>(model.ffn);
  // Attention core: QKᵀ (2·s·a·d_qk) and PV (2·s·a·d_v) per token forward, ×3 for training; sliding-window
  // layers only see their window.
  const double window = model.sliding_window > 0 ? std::min(1.0, model.sliding_window / s) : 1.0;
  const double seen = 1.0 - model.sliding_window_layers * (1.0 - window);
  const double core = (convention == AttentionFlops::full ? 1.0 : 0.5) * 6.0 * s * model.heads *
                      static_cast<double>(model.head_dim() + model.value_dim()) * seen;
  const double attention = 6.0 * attention_linear(model) + core;
  const double moe_mlp = 6.0 * active_experts(model) * mlp_weights(model, ffn, false);
  const double dense_mlp = 6.0 * mlp_weights(model, static_cast<double>(model.dense_mlp_ffn()), false);
  const double moe_layers = model.moe_layers();
  const double dense_layers = model.layers - moe_layers;
  const double layers = model.layers * attention + moe_layers * moe_mlp + dense_layers * dense_mlp;
  // A multi-token-prediction module: one more layer (MoE when the model's last layer is), its projection of the
  // concatenated hidden state and embedding (2h → h) and its own LM head.
  const double mtp = model.mtp_layers * (attention + (model.moe() ? moe_mlp : dense_mlp) + 6.0 * 2.0 * h * h +
                                         6.0 * static_cast<double>(model.vocab) * h);
  const double lm_head = 6.0 * static_cast<double>(model.vocab) * h;
  return s * (layers + lm_head + mtp);
}

ParameterCount count_parameters(const ModelConfig& model) {
  const double h = static_cast<double>(model.hidden);
  const double ffn = static_cast<double>(model.ffn);
  const double vocab = static_cast<double>(model.vocab);
  const double bias = model.linear_bias ? 1.0 : 0.0;
  const double norm = model.norm_bias ? 2.0 * h : h;

  ParameterCount count;
  count.embedding = vocab * h + (model.rope ? 0.0 : model.seq_len * h);
  count.output_layer = model.tied_embeddings ? 0.0 : vocab * h;
  const double attention_bias = model.mla() ? 0.0 : bias * (static_cast<double>(model.qkv_width()) + h);
  count.attention_per_layer = attention_linear(model) + attention_bias + attention_norms(model, norm);
  const double expert = mlp_weights(model, ffn, true);
  const double router = model.moe() ? h * model.experts : 0.0;
  count.mlp_per_layer = (model.experts + model.shared_experts) * expert + router;
  count.active_mlp_per_layer = active_experts(model) * expert + router;
  count.dense_mlp_per_layer = mlp_weights(model, static_cast<double>(model.dense_mlp_ffn()), true);
  count.norms_per_layer = 2.0 * norm;
  count.final_norm = norm;
  // DeepSeek's MTP module: a layer, the projection 2h → h and two input norms; embedding and head are shared.
  count.mtp = model.mtp_layers * (count.attention_per_layer + count.norms_per_layer + 2.0 * h * h + 2.0 * norm +
                                  (model.moe() ? count.mlp_per_layer : count.dense_mlp_per_layer));

  const double shared = count.embedding + count.output_layer + count.final_norm;
  const double per_layer = count.attention_per_layer + count.norms_per_layer;
  const double moe_layers = model.moe_layers();
  const double dense_layers = model.layers - moe_layers;
  const double dense_mlp = model.moe() ? count.dense_mlp_per_layer : count.mlp_per_layer;
  count.total = shared + model.layers * per_layer + moe_layers * count.mlp_per_layer + dense_layers * dense_mlp;
  count.active = shared + model.layers * per_layer + moe_layers * count.active_mlp_per_layer + dense_layers * dense_mlp;
  return count;
}

}  // namespace dgx::llm
