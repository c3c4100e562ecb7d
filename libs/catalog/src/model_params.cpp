#include "dgx/catalog/model_params.hpp"

namespace dgx::catalog {

namespace {

/// Linear weights of one attention block, without biases: GQA's QKV and output projections (the query projection
/// twice as wide with an output gate), or MLA's down- and up-projections of the query and key/value latents, the
/// decoupled rotary key and the output projection; with DeepSeek's sparse attention, the lightning indexer's query
/// up-projection, key projection and head weights.
double attention_linear(const ModelConfig& m) {
  const double h = static_cast<double>(m.hidden);
  const double gate = m.attention_output_gate ? static_cast<double>(m.q_width()) * h : 0.0;
  double indexer = 0;
  if (m.sparse_topk > 0) {
    const double q_in = m.q_lora_rank > 0 ? m.q_lora_rank : h;
    indexer = q_in * m.indexer_heads * m.indexer_head_dim + h * m.indexer_head_dim + h * m.indexer_heads +
              2.0 * m.indexer_head_dim;  // wq_b, wk, weights_proj, the key LayerNorm
  }
  if (!m.mla()) {
    return h * static_cast<double>(m.qkv_width()) + static_cast<double>(m.attention_out_width()) * h + gate + indexer;
  }
  const double heads = m.heads;
  const double q = m.q_lora_rank > 0 ? m.q_lora_rank * (h + heads * m.head_dim()) : h * heads * m.head_dim();
  const double kv = m.kv_lora_rank * (h + heads * (m.qk_nope_head_dim + m.v_head_dim)) + h * m.qk_rope_head_dim;
  return q + kv + static_cast<double>(m.attention_out_width()) * h + indexer;
}

/// Norm weights inside an attention block: MLA's latent norms, the per-head query and key norms.
double attention_norms(const ModelConfig& m, double norm) {
  const double qk = m.qk_norm ? 2.0 * static_cast<double>(m.head_dim()) : 0.0;
  if (!m.mla()) {
    return qk;
  }
  return (m.q_lora_rank > 0 ? m.q_lora_rank : 0) * norm / static_cast<double>(m.hidden) +
         m.kv_lora_rank * norm / static_cast<double>(m.hidden) + qk;
}

/// Gated DeltaNet (Qwen3-Next's Qwen3NextGatedDeltaNet): the q, k, v and output-gate z projections (in_proj_qkvz), the
/// β and α projections (in_proj_ba, one each per value head), the depthwise causal convolution over q, k and v (no
/// bias), dt_bias and A_log per value head, the gated RMSNorm of a value head and the output projection.
double linear_attention_weights(const ModelConfig& m) {
  const LinearAttentionSizes& la = m.linear_attention;
  const double h = static_cast<double>(m.hidden);
  const double key = static_cast<double>(la.key_heads) * la.key_head_dim;
  const double value = static_cast<double>(la.value_heads) * la.value_head_dim;
  const double projections = h * (2 * key + 2 * value) + h * 2.0 * la.value_heads;
  const double conv = (2 * key + value) * la.conv_kernel;
  return projections + conv + 2.0 * la.value_heads + la.value_head_dim + value * h;
}

/// Mamba-2 (Nemotron-H's mixer): in_proj to x and z (2·d_inner), B and C (2·groups·state) and dt (heads); the
/// depthwise convolution over x, B and C with its bias; dt_bias, A_log and D per head; the gated group RMSNorm of
/// d_inner; out_proj.
double mamba_weights(const ModelConfig& m) {
  const Mamba2Sizes& s = m.mamba;
  const double h = static_cast<double>(m.hidden);
  const double inner = static_cast<double>(s.heads) * s.head_dim;
  const double bc = 2.0 * s.groups * s.state;
  const double in_proj = h * (2 * inner + bc + s.heads);
  const double conv = (inner + bc) * (s.conv_kernel + 1);
  return in_proj + conv + 3.0 * s.heads + inner + inner * h;
}

/// Weights of one expert or dense MLP of inner size `ffn`, with biases when the model has them.
double mlp_weights(const ModelConfig& m, double ffn, bool with_bias) {
  const double h = static_cast<double>(m.hidden);
  const double bias = with_bias && m.linear_bias ? 1.0 : 0.0;
  return m.mlp_matrices() * h * ffn + bias * ((m.mlp_matrices() - 1) * ffn + h);
}

/// Experts (of ffn) a token passes through in an MoE layer: its top-k and the shared ones.
double active_experts(const ModelConfig& m) { return m.top_k + m.shared_experts; }

/// The counts of a model whose layers are all of its default kind.
ParameterCount count_uniform(const ModelConfig& model) {
  const double h = static_cast<double>(model.hidden);
  const double ffn = static_cast<double>(model.ffn);
  const double vocab = static_cast<double>(model.vocab);
  const double norm = model.norm_bias ? 2.0 * h : h;

  ParameterCount count;
  count.embedding = vocab * h + (model.rope ? 0.0 : model.seq_len * h);
  count.output_layer = model.tied_embeddings ? 0.0 : vocab * h;
  count.attention_per_layer = mixer_parameters(model);
  const double expert = mlp_weights(model, ffn, true);
  const double router = model.moe() ? h * model.experts : 0.0;
  count.mlp_per_layer = model.mlp_free ? 0.0 : (model.experts + model.shared_experts) * expert + router;
  count.active_mlp_per_layer = model.mlp_free ? 0.0 : active_experts(model) * expert + router;
  count.dense_mlp_per_layer = mlp_weights(model, static_cast<double>(model.dense_mlp_ffn()), true);
  const bool has_mixer = model.mixer != Mixer::none;
  count.norms_per_layer = ((has_mixer ? 1.0 : 0.0) + (model.mlp_free ? 0.0 : 1.0)) * norm;
  count.final_norm = norm;
  // DeepSeek's MTP module: a layer, the projection 2h → h and two input norms; embedding and head are shared.
  count.mtp = model.mtp_layers * (count.attention_per_layer + count.norms_per_layer + 2.0 * h * h + 2.0 * norm +
                                  (model.moe() ? count.mlp_per_layer : count.dense_mlp_per_layer));

  const double per_layer = count.attention_per_layer + count.norms_per_layer;
  const double moe_layers = model.moe_layers();
  const double dense_layers = model.layers - moe_layers;
  const double dense_mlp = model.moe() ? count.dense_mlp_per_layer : count.mlp_per_layer;
  count.total = model.layers * per_layer + moe_layers * count.mlp_per_layer + dense_layers * dense_mlp;
  count.active = model.layers * per_layer + moe_layers * count.active_mlp_per_layer + dense_layers * dense_mlp;
  return count;
}

}  // namespace

double mixer_parameters(const ModelConfig& model) {
  const double h = static_cast<double>(model.hidden);
  const double norm = model.norm_bias ? 2.0 * h : h;
  switch (model.mixer) {
  case Mixer::attention: {
    const double bias = model.linear_bias && !model.mla() ? static_cast<double>(model.qkv_width()) + h : 0.0;
    return attention_linear(model) + bias + attention_norms(model, norm);
  }
  case Mixer::linear_attention: return linear_attention_weights(model);
  case Mixer::mamba2: return mamba_weights(model);
  case Mixer::none: break;
  }
  return 0;
}

double mixer_linear_weights(const ModelConfig& model) {
  const double h = static_cast<double>(model.hidden);
  switch (model.mixer) {
  case Mixer::attention: return attention_linear(model);
  case Mixer::linear_attention: {
    const LinearAttentionSizes& la = model.linear_attention;
    const double key = static_cast<double>(la.key_heads) * la.key_head_dim;
    const double value = static_cast<double>(la.value_heads) * la.value_head_dim;
    return h * (2 * key + 2 * value + 2.0 * la.value_heads) + value * h;
  }
  case Mixer::mamba2: {
    const Mamba2Sizes& s = model.mamba;
    const double inner = static_cast<double>(s.heads) * s.head_dim;
    return h * (2 * inner + 2.0 * s.groups * s.state + s.heads) + inner * h;
  }
  case Mixer::none: break;
  }
  return 0;
}

double mlp_linear_weights(const ModelConfig& model, double ffn) { return mlp_weights(model, ffn, false); }

ParameterCount count_parameters(const ModelConfig& model) {
  ParameterCount count = count_uniform(model);
  if (model.grouped()) {
    count.total = 0;
    count.active = 0;
    for (const LayerGroup& group : model.layer_groups) {
      const ParameterCount layers = count_uniform(model.layer_view(group));
      count.total += layers.total;
      count.active += layers.active;
    }
  }
  const double shared = count.embedding + count.output_layer + count.final_norm;
  count.extra = model.extra_params;
  count.total += shared + count.extra;
  count.active += shared;
  return count;
}

}  // namespace dgx::catalog
