// Llama-Nemotron NAS models (DeciLMForCausalLM: Llama-3.3-Nemotron-Super-49B, -Ultra-253B): a Llama decoder whose
// layers were searched one by one, block_configs giving each layer's attention (n_heads_in_group query heads per
// key/value head, or no_op: none) and MLP (ffn_mult, or no_op). The MLP's size follows DeciLM's rule
// (modeling_decilm.py, _ffn_mult_to_intermediate_size): int(2 · ffn_mult · hidden / 3) rounded up to a multiple of
// 256.
#include "architectures.hpp"

#include <algorithm>
#include <map>

namespace dgx::catalog::hf {

namespace {

std::int64_t decilm_ffn(double ffn_mult, std::int64_t hidden) {
  const auto size = static_cast<std::int64_t>(2 * ffn_mult * static_cast<double>(hidden) / 3);
  return (size + 255) / 256 * 256;
}

/// The most frequent value of `values` (the smallest of equally frequent ones); 0 when empty.
template <class T> T most_common(const std::vector<T>& values) {
  std::map<T, int> counts;
  for (const T& v : values) {
    ++counts[v];
  }
  const auto best =
      std::max_element(counts.begin(), counts.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  return best == counts.end() ? T{} : best->first;
}

LayerGroup read_block(const JsonFields& block, const ModelConfig& m) {
  LayerGroup layer{.count = 1};
  const JsonFields attention = block.object("attention");
  if (attention.boolean("replace_with_linear", false)) {
    attention.fail("replace_with_linear", "is true: a linear layer in place of attention is not read");
  }
  if (attention.has("num_sink_tokens") || attention.has("window_length")) {
    attention.fail(attention.has("window_length") ? "window_length" : "num_sink_tokens",
                   "is set: windowed or sink attention of a NAS block is not read (expected null)");
  }
  if (attention.boolean("no_op", false)) {
    layer.mixer = Mixer::none;
  } else {
    const int per_group = attention.positive("n_heads_in_group");
    if (m.heads % per_group != 0) {
      attention.fail("n_heads_in_group", "is " + std::to_string(per_group) + ": it must divide the " +
                                             std::to_string(m.heads) + " attention heads");
    }
    layer.kv_groups = m.heads / per_group;
  }
  const JsonFields ffn = block.object("ffn");
  if (ffn.boolean("replace_with_linear", false)) {
    ffn.fail("replace_with_linear", "is true: a linear layer in place of the MLP is not read");
  }
  if (ffn.boolean("no_op", false)) {
    layer.mlp = Mlp::none;
  } else {
    const double mult = ffn.number("ffn_mult");
    if (!(mult > 0)) {
      ffn.fail("ffn_mult", "must be positive");
    }
    layer.ffn = decilm_ffn(mult, m.hidden);
  }
  return layer;
}

}  // namespace

void read_decilm(const JsonFields& root, HfModel& out) {
  const JsonFields t = text_config(root);
  read_sizes(t, root, out);
  ModelConfig& m = out.model;
  if (m.hidden % m.heads != 0) {
    t.fail("num_attention_heads", "must divide hidden_size " + std::to_string(m.hidden));
  }
  m.activation = gated_silu(t);
  m.linear_bias = t.boolean("attention_bias", false) || t.boolean("mlp_bias", false);
  const std::vector<JsonFields> blocks = t.objects("block_configs");
  if (static_cast<int>(blocks.size()) != m.layers) {
    t.fail("block_configs", "has " + std::to_string(blocks.size()) + " blocks for " + std::to_string(m.layers) +
                                " layers (num_hidden_layers)");
  }
  std::vector<LayerGroup> layers;
  std::vector<int> kv;
  std::vector<std::int64_t> ffn;
  for (const JsonFields& block : blocks) {
    layers.push_back(read_block(block, m));
    if (layers.back().mixer == Mixer::attention) {
      kv.push_back(layers.back().kv_groups);
    }
    if (layers.back().mlp == Mlp::dense) {
      ffn.push_back(layers.back().ffn);
    }
  }
  // The model's own key/value heads and MLP size: those of most layers (the groups say where they differ).
  m.kv_groups = kv.empty() ? m.heads : most_common(kv);
  m.ffn = ffn.empty() ? 0 : most_common(ffn);
  if (m.ffn == 0) {
    t.fail("block_configs", "has no layer with an MLP");
  }
  settle_layers(layers, m);
}

}  // namespace dgx::catalog::hf
