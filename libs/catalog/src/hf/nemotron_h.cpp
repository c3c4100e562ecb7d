// Nemotron-H (NemotronHForCausalLM): each layer is one block, a norm and one mixer, as hybrid_override_pattern spells
// it: M a Mamba-2 mixer, * attention, - a dense MLP, E an MoE of non-gated experts with a shared expert
// (transformers' NemotronHBlock and MIXER_TYPES). The MLPs are squared-ReLU (relu2) with up and down projections.
#include "architectures.hpp"

namespace dgx::catalog::hf {

namespace {

Mamba2Sizes read_mamba(const JsonFields& t) {
  Mamba2Sizes s{.heads = t.positive("mamba_num_heads"),
                .head_dim = t.positive("mamba_head_dim"),
                .state = t.positive("ssm_state_size"),
                .groups = t.positive("n_groups"),
                .conv_kernel = t.positive("conv_kernel"),
                .chunk = t.positive("chunk_size")};
  if (s.heads % s.groups != 0) {
    t.fail("n_groups", "is " + std::to_string(s.groups) + ": it must divide the " + std::to_string(s.heads) +
                           " Mamba heads (mamba_num_heads)");
  }
  return s;
}

LayerGroup block(const JsonFields& t, char kind, std::size_t index, int dense_ffn) {
  switch (kind) {
  case 'M': return LayerGroup{.count = 1, .mixer = Mixer::mamba2, .mlp = Mlp::none};
  case '*': return LayerGroup{.count = 1, .mixer = Mixer::attention, .mlp = Mlp::none};
  case '-': return LayerGroup{.count = 1, .mixer = Mixer::none, .mlp = Mlp::dense, .ffn = dense_ffn};
  case 'E': return LayerGroup{.count = 1, .mixer = Mixer::none, .mlp = Mlp::moe};
  default: break;
  }
  t.fail("hybrid_override_pattern", "has '" + std::string(1, kind) + "' at position " + std::to_string(index) +
                                        " (expected M Mamba-2, * attention, - MLP or E MoE)");
}

}  // namespace

void read_nemotron_h(const JsonFields& root, HfModel& out) {
  const JsonFields t = text_config(root);
  read_attention_basics(t, root, out);
  ModelConfig& m = out.model;
  const std::string act = t.string("mlp_hidden_act");
  if (act != "relu2") {
    t.fail("mlp_hidden_act", "is \"" + act + "\" (expected relu2, the squared ReLU)");
  }
  m.activation = Activation::squared_relu;
  m.linear_bias = t.boolean("attention_bias", false) || t.boolean("mlp_bias", false);
  m.mamba = read_mamba(t);
  const std::string pattern = t.string("hybrid_override_pattern");
  if (static_cast<int>(pattern.size()) != m.layers) {
    t.fail("hybrid_override_pattern", "has " + std::to_string(pattern.size()) + " blocks for " +
                                          std::to_string(m.layers) + " layers (num_hidden_layers)");
  }
  const int dense_ffn = t.positive("intermediate_size");
  m.ffn = dense_ffn;
  if (pattern.find('E') != std::string::npos) {
    if (t.has("moe_latent_size")) {
      t.fail("moe_latent_size", "is set: latent MoE projections are not read (expected null)");
    }
    read_experts(t, "n_routed_experts", "num_experts_per_tok", m);
    m.ffn = t.positive("moe_intermediate_size");
    m.shared_experts = t.count("n_shared_experts") > 0
                           ? shared_expert_count(t.positive("moe_shared_expert_intermediate_size"), m.ffn, out.notes)
                           : 0;
  }
  std::vector<LayerGroup> layers;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    layers.push_back(block(t, pattern[i], i, dense_ffn));
  }
  settle_layers(layers, m);
  if (pattern.find('*') != std::string::npos) {
    out.notes.emplace_back("attention layers without position embedding (the Mamba layers carry position), modelled "
                           "with a rotary pass");
  }
}

}  // namespace dgx::catalog::hf
