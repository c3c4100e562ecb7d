// Llama 4 (Llama4ForConditionalGeneration; the language model under text_config): MoE layers every
// interleave_moe_layer_step layers (Scout: all, Maverick: every other) with one shared expert of the experts' size,
// dense layers of intermediate_size_mlp, and iRoPE attention: the RoPE layers attend within chunks of
// attention_chunk_size tokens, every no_rope_layer_interval-th layer (no_rope_layers) attends globally without
// position embedding (transformers' Llama4TextConfig: layer_types "chunked_attention" where no_rope_layers is 1).
#include "architectures.hpp"

#include <algorithm>

namespace dgx::catalog::hf {

namespace {

/// Whether each layer uses RoPE (and so chunked attention): no_rope_layers, else every interval-th layer not.
std::vector<bool> rope_layers(const JsonFields& t, int layers) {
  std::vector<bool> rope(static_cast<std::size_t>(layers));
  const std::vector<std::int64_t> given =
      t.has("no_rope_layers") ? t.integers("no_rope_layers") : std::vector<std::int64_t>{};
  if (!given.empty() && given.size() != rope.size()) {
    t.fail("no_rope_layers", "has " + std::to_string(given.size()) + " entries for " + std::to_string(layers) +
                                 " layers (num_hidden_layers)");
  }
  const int interval = t.has("no_rope_layer_interval") ? t.positive("no_rope_layer_interval") : 4;
  for (int i = 0; i < layers; ++i) {
    rope[static_cast<std::size_t>(i)] =
        given.empty() ? (i + 1) % interval != 0 : given[static_cast<std::size_t>(i)] != 0;
  }
  return rope;
}

/// Whether each layer's MLP is MoE: moe_layers, else every interleave_moe_layer_step-th layer.
std::vector<bool> moe_layers(const JsonFields& t, int layers) {
  std::vector<bool> moe(static_cast<std::size_t>(layers));
  if (t.has("moe_layers")) {
    for (const std::int64_t i : t.integers("moe_layers")) {
      if (i < 0 || i >= layers) {
        t.fail("moe_layers", "names layer " + std::to_string(i) + " of " + std::to_string(layers));
      }
      moe[static_cast<std::size_t>(i)] = true;
    }
    return moe;
  }
  const int step = t.has("interleave_moe_layer_step") ? t.positive("interleave_moe_layer_step") : 1;
  for (int i = 0; i < layers; ++i) {
    moe[static_cast<std::size_t>(i)] = (i + 1) % step == 0;
  }
  return moe;
}

}  // namespace

void read_llama4(const JsonFields& root, HfModel& out) {
  const JsonFields t = text_config(root);
  ModelConfig& m = read_gated_decoder(t, root, out);
  m.linear_bias = t.boolean("attention_bias", false);
  read_experts(t, "num_local_experts", "num_experts_per_tok", m);
  m.ffn = t.positive("intermediate_size");  // each expert's and the shared expert's
  m.shared_experts = 1;
  const int dense_ffn = t.positive("intermediate_size_mlp");
  m.qk_norm = t.boolean("use_qk_norm", false);
  if (m.qk_norm) {
    out.notes.emplace_back("q/k norms are L2 norms without weights, on the RoPE layers only");
  }
  const int chunk = t.count("attention_chunk_size");
  const std::vector<bool> rope = rope_layers(t, m.layers);
  const std::vector<bool> moe = moe_layers(t, m.layers);
  std::vector<LayerGroup> layers;
  for (std::size_t i = 0; i < rope.size(); ++i) {
    layers.push_back(LayerGroup{.count = 1,
                                .chunk = rope[i] ? chunk : 0,
                                .mlp = moe[i] ? Mlp::moe : Mlp::dense,
                                .ffn = moe[i] ? 0 : dense_ffn});
  }
  settle_layers(layers, m);
  const auto global = std::count(rope.begin(), rope.end(), false);
  if (chunk > 0 && global > 0) {
    out.notes.push_back(std::to_string(global) + " layers attend globally without position embedding (NoPE), the " +
                        std::to_string(m.layers - global) + " others within chunks of " + std::to_string(chunk) +
                        " tokens with RoPE");
  }
  if (root.has("vision_config")) {
    out.notes.emplace_back("the vision encoder (vision_config) is not counted");
  }
}

}  // namespace dgx::catalog::hf
