#include "dgx/llm/flops.hpp"

#include <algorithm>

namespace dgx::llm {

std::string_view to_string(AttentionFlops convention) { return convention == AttentionFlops::full ? "full" : "causal"; }

namespace {

using catalog::mixer_linear_weights;

double mlp_weights(const ModelConfig& m, double ffn) { return catalog::mlp_linear_weights(m, ffn); }

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
  const double attention = 6.0 * mixer_linear_weights(model) + core;
  const double moe_mlp = 6.0 * active_experts(model) * mlp_weights(model, ffn);
  const double dense_mlp = 6.0 * mlp_weights(model, static_cast<double>(model.dense_mlp_ffn()));
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

}  // namespace dgx::llm
