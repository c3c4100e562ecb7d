// Qwen3.5 (Qwen3_5ForConditionalGeneration, Qwen3_5MoeForConditionalGeneration; the language model under
// text_config): layer_types mixes Gated DeltaNet linear attention and full attention (every
// full_attention_interval-th layer), the full attention with per-head q/k norms, an output gate (attn_output_gate:
// the query projection twice as wide) and a partial rotary embedding; MTP layers; a vision tower beside it.
// transformers' Qwen3_5GatedDeltaNet: in_proj_qkv, in_proj_z, in_proj_b, in_proj_a, a depthwise convolution over
// q, k and v, and out_proj.
#include "architectures.hpp"

#include <algorithm>

namespace dgx::catalog::hf {

namespace {

LinearAttentionSizes read_linear_attention(const JsonFields& t) {
  LinearAttentionSizes la{.key_heads = t.positive("linear_num_key_heads"),
                          .value_heads = t.positive("linear_num_value_heads"),
                          .key_head_dim = t.positive("linear_key_head_dim"),
                          .value_head_dim = t.positive("linear_value_head_dim"),
                          .conv_kernel = t.positive("linear_conv_kernel_dim")};
  if (la.value_heads % la.key_heads != 0) {
    t.fail("linear_num_value_heads", "is " + std::to_string(la.value_heads) + ": it must be a multiple of the " +
                                         std::to_string(la.key_heads) + " key heads (linear_num_key_heads)");
  }
  return la;
}

/// Each layer's mixer: layer_types, else linear attention with every full_attention_interval-th layer full.
std::vector<Mixer> mixers(const JsonFields& t, int layers) {
  std::vector<Mixer> out;
  if (!t.has("layer_types")) {
    const int interval = t.positive("full_attention_interval");
    for (int i = 0; i < layers; ++i) {
      out.push_back((i + 1) % interval == 0 ? Mixer::attention : Mixer::linear_attention);
    }
    return out;
  }
  for (const std::string& type : t.strings("layer_types")) {
    if (type != "linear_attention" && type != "full_attention") {
      t.fail("layer_types", "has \"" + type + "\" (expected linear_attention or full_attention)");
    }
    out.push_back(type == "full_attention" ? Mixer::attention : Mixer::linear_attention);
  }
  if (static_cast<int>(out.size()) != layers) {
    t.fail("layer_types", "has " + std::to_string(out.size()) + " entries for " + std::to_string(layers) +
                              " layers (num_hidden_layers)");
  }
  return out;
}

}  // namespace

void read_qwen3_5(const JsonFields& root, HfModel& out) {
  const JsonFields t = text_config(root);
  ModelConfig& m = read_gated_decoder(t, root, out);
  m.qk_norm = true;
  m.attention_output_gate = t.boolean("attn_output_gate", false);
  m.linear_bias = t.boolean("attention_bias", false);
  m.linear_attention = read_linear_attention(t);
  m.mtp_layers = t.count("mtp_num_hidden_layers");
  int dense_ffn = 0;
  std::vector<std::int64_t> dense_only;
  if (t.has("num_experts")) {
    read_experts(t, "num_experts", "num_experts_per_tok", m);
    m.ffn = t.positive("moe_intermediate_size");
    m.shared_experts = shared_expert_count(t.count("shared_expert_intermediate_size"), m.ffn, out.notes);
    if (m.shared_experts > 0) {
      out.notes.emplace_back("the shared expert's sigmoid gate (hidden -> 1) is not counted");
    }
    dense_only = t.has("mlp_only_layers") ? t.integers("mlp_only_layers") : dense_only;
    dense_ffn = dense_only.empty() ? 0 : t.positive("intermediate_size");
  } else {
    m.ffn = t.positive("intermediate_size");
  }
  std::vector<LayerGroup> layers;
  const std::vector<Mixer> kinds = mixers(t, m.layers);
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    const bool dense =
        !m.moe() || std::find(dense_only.begin(), dense_only.end(), static_cast<std::int64_t>(i)) != dense_only.end();
    layers.push_back(LayerGroup{
        .count = 1, .mixer = kinds[i], .mlp = dense ? Mlp::dense : Mlp::moe, .ffn = dense && m.moe() ? dense_ffn : 0});
  }
  settle_layers(layers, m);
  m.mixer = Mixer::attention;  // the default layer is the full-attention one, as its MTP layer is
  if (root.has("vision_config")) {
    m.extra_params = vision_parameters(root.object("vision_config"), m.hidden, out.notes);
  }
}

}  // namespace dgx::catalog::hf
