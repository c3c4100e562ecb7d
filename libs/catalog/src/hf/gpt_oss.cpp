// gpt-oss (GptOssForCausalLM): an MoE decoder whose layers alternate sliding-window and full attention (layer_types),
// with biases on every projection and expert, a learned sink per attention head, and a clamped GLU (swiglu_limit).
#include "architectures.hpp"

namespace dgx::catalog::hf {

void read_gpt_oss(const JsonFields& root, HfModel& out) {
  const JsonFields t = text_config(root);
  ModelConfig& m = read_gated_decoder(t, root, out);
  read_experts(t, "num_local_experts", "num_experts_per_tok", m);
  m.ffn = t.positive("intermediate_size");
  m.linear_bias = t.boolean("attention_bias", false);  // the experts carry biases whatever this says
  m.glu_clamp = t.optional_number("swiglu_limit").value_or(0.0);
  if (m.glu_clamp < 0) {
    t.fail("swiglu_limit", "must be at least 0");
  }
  if (t.has("initial_context_length")) {
    out.native_context = t.positive("initial_context_length");
  }
  const int window = t.count("sliding_window");
  std::vector<LayerGroup> layers;
  for (const std::string& type : t.strings("layer_types")) {
    if (type != "sliding_attention" && type != "full_attention") {
      t.fail("layer_types", "has \"" + type + "\" (expected sliding_attention or full_attention)");
    }
    if (type == "sliding_attention" && window == 0) {
      t.fail("sliding_window", "is missing: layer_types has sliding_attention layers");
    }
    layers.push_back(LayerGroup{.count = 1, .window = type == "sliding_attention" ? window : 0, .mlp = Mlp::moe});
  }
  if (static_cast<int>(layers.size()) != m.layers) {
    t.fail("layer_types", "has " + std::to_string(layers.size()) + " entries for " + std::to_string(m.layers) +
                              " layers (num_hidden_layers)");
  }
  settle_layers(layers, m);
  out.notes.emplace_back("attention sinks (a learned logit per head) are modelled as plain attention and not counted");
  if (m.glu_clamp > 0) {
    out.notes.emplace_back("the GLU's inputs are clamped at " + plain_number(m.glu_clamp) +
                           " (swiglu_limit), with a +1 offset on the linear half");
  }
}

}  // namespace dgx::catalog::hf
