#include "dgx/llm/flops.hpp"

namespace dgx::llm {

std::string_view to_string(AttentionFlops convention) { return convention == AttentionFlops::full ? "full" : "causal"; }

double model_flops_per_sequence(const ModelConfig& model, int seq_len, AttentionFlops convention) {
  const double s = seq_len;
  const double layers = model.layers;
  const double h = static_cast<double>(model.hidden);
  const double g_over_a = static_cast<double>(model.kv_groups) / model.heads;
  const double attention_core = (convention == AttentionFlops::full ? 1.0 : 0.5) * s / h;
  const double projections = 12.0 * layers * h * h * (1.0 + g_over_a + attention_core);
  const double mlp = 6.0 * model.mlp_matrices() * layers * static_cast<double>(model.ffn) * h * model.top_k;
  const double lm_head = 6.0 * static_cast<double>(model.vocab) * h;
  return s * (projections + mlp + lm_head);
}

ParameterCount count_parameters(const ModelConfig& model) {
  const double h = static_cast<double>(model.hidden);
  const double ffn = static_cast<double>(model.ffn);
  const double vocab = static_cast<double>(model.vocab);
  const double qkv = static_cast<double>(model.qkv_width());
  const double bias = model.linear_bias ? 1.0 : 0.0;

  ParameterCount count;
  count.embedding = vocab * h + (model.rope ? 0.0 : model.seq_len * h);
  count.output_layer = model.tied_embeddings ? 0.0 : vocab * h;
  count.attention_per_layer = h * qkv + h * h + bias * (qkv + h);
  // A gated MLP has two input matrices (gate, up) and one output; biases on every output.
  const double expert = model.mlp_matrices() * h * ffn + bias * ((model.mlp_matrices() - 1) * ffn + h);
  const double router = model.moe() ? h * model.experts : 0.0;
  count.mlp_per_layer = model.experts * expert + router;
  count.active_mlp_per_layer = model.top_k * expert + router;
  const double norm = model.norm_bias ? 2.0 * h : h;
  count.norms_per_layer = 2.0 * norm;
  count.final_norm = norm;

  const double shared = count.embedding + count.output_layer + count.final_norm;
  const double per_layer = count.attention_per_layer + count.norms_per_layer;
  count.total = shared + model.layers * (per_layer + count.mlp_per_layer);
  count.active = shared + model.layers * (per_layer + count.active_mlp_per_layer);
  return count;
}

}  // namespace dgx::llm
