#include "dgx/llm/flops.hpp"

#include "dgx/llm/mixer_work.hpp"

#include <algorithm>

namespace dgx::llm {

std::string_view to_string(AttentionFlops convention) { return convention == AttentionFlops::full ? "full" : "causal"; }

namespace {

using catalog::mixer_linear_weights;

double mlp_weights(const ModelConfig& m, double ffn) { return catalog::mlp_linear_weights(m, ffn); }

/// Experts (of ffn) a token passes through in an MoE layer: its top-k and the shared ones.
double active_experts(const ModelConfig& m) { return m.top_k + m.shared_experts; }

/// Training FLOPs per token of one token mixer of `model`'s default layer (3 × forward): 6 per linear weight, and
/// attention's core (over the keys its window, chunk or top-k leaves, and DSA's indexer over every earlier key), or
/// the chunked scan of a Mamba-2 or Gated DeltaNet layer over a sequence of s tokens.
double mixer_flops(const ModelConfig& model, double s, AttentionFlops convention) {
  const double c = convention == AttentionFlops::full ? 1.0 : 0.5;
  switch (model.mixer) {
  case Mixer::attention: {
    // Attention core: QKᵀ (2·s·a·d_qk) and PV (2·s·a·d_v) per token forward, ×3 for training; sliding-window
    // layers only see their window, chunked layers their chunk, DSA its top-k.
    const double window = model.sliding_window > 0 ? std::min(1.0, model.sliding_window / s) : 1.0;
    const double seen = 1.0 - model.sliding_window_layers * (1.0 - window);
    double limit = 1.0;
    for (const int span : {model.attention_chunk, model.sparse_topk}) {
      limit = span > 0 ? std::min(limit, span / s) : limit;
    }
    const double core =
        c * 6.0 * s * model.heads * static_cast<double>(model.head_dim() + model.value_dim()) * seen * limit;
    const double indexer = model.sparse_topk > 0 ? c * 3.0 * s * indexer_flops_per_pair(model) : 0.0;
    return 6.0 * mixer_linear_weights(model) + core + indexer;
  }
  case Mixer::mamba2: return 6.0 * mixer_linear_weights(model) + 3.0 * ssd_forward(model.mamba, 1, s).flops / s;
  case Mixer::linear_attention:
    return 6.0 * mixer_linear_weights(model) + 3.0 * delta_rule_forward(model.linear_attention, 1, s).flops / s;
  case Mixer::none: break;
  }
  return 0;
}

/// Training FLOPs per token of the MLP of a layer view: its top-k and shared experts, its dense MLP, or none.
double layer_mlp_flops(const ModelConfig& view) {
  if (view.mlp_free) {
    return 0;
  }
  const double ffn = static_cast<double>(view.moe() ? view.ffn : view.dense_mlp_ffn());
  return 6.0 * (view.moe() ? active_experts(view) : 1.0) * mlp_weights(view, ffn);
}

}  // namespace

double model_flops_per_sequence(const ModelConfig& model, int seq_len, AttentionFlops convention) {
  const double s = seq_len;
  const double h = static_cast<double>(model.hidden);
  const double ffn = static_cast<double>(model.ffn);
  const double attention = mixer_flops(model, s, convention);
  const double moe_mlp = model.mlp_free ? 0.0 : 6.0 * active_experts(model) * mlp_weights(model, ffn);
  const double dense_mlp = model.mlp_free ? 0.0 : 6.0 * mlp_weights(model, static_cast<double>(model.dense_mlp_ffn()));
  double layers = 0;
  if (model.grouped()) {
    // Each group of layers as its own kind: its mixer and its MLP.
    for (const LayerGroup& group : model.layer_groups) {
      const ModelConfig view = model.layer_view(group);
      layers += group.count * (mixer_flops(view, s, convention) + layer_mlp_flops(view));
    }
  } else {
    const double moe_layers = model.moe_layers();
    const double dense_layers = model.layers - moe_layers;
    layers = model.layers * attention + moe_layers * moe_mlp + dense_layers * dense_mlp;
  }
  // A multi-token-prediction module: one more layer (MoE when the model's last layer is), its projection of the
  // concatenated hidden state and embedding (2h → h) and its own LM head.
  const double mtp = model.mtp_layers * (attention + (model.moe() ? moe_mlp : dense_mlp) + 6.0 * 2.0 * h * h +
                                         6.0 * static_cast<double>(model.vocab) * h);
  const double lm_head = 6.0 * static_cast<double>(model.vocab) * h;
  return s * (layers + lm_head + mtp);
}

}  // namespace dgx::llm
