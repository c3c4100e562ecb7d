// What the architectures share (the sizes of a decoder, its context and rotary embedding, its experts) and the
// plain grouped-query decoders: Llama 3 and Mixtral, Qwen3 dense and MoE, MiniMax-M2.
#include "architectures.hpp"

#include <dgx/sdk/text.hpp>

#include <algorithm>
#include <cmath>
#include <optional>

namespace dgx::catalog::hf {

namespace {

namespace text = dgx::sdk::text;

/// rope_scaling (transformers 4) or rope_parameters (transformers 5): how the rotary embedding is extended.
std::optional<JsonFields> rope_extension(const JsonFields& t) {
  for (const std::string_view key : {"rope_scaling", "rope_parameters"}) {
    if (t.has(key)) {
      return t.object(key);
    }
  }
  return std::nullopt;
}

/// The context: max_position_embeddings, the longest sequence the checkpoint is configured for. Where the rotary
/// embedding is extended (YaRN, Llama 3's scaling) the native context is smaller: said in a note, and kept for the
/// default training sequence.
void read_context(const JsonFields& t, HfModel& out) {
  out.model.context = t.positive("max_position_embeddings");
  const auto rope = rope_extension(t);
  if (!rope || !rope->has("original_max_position_embeddings")) {
    return;
  }
  out.native_context = rope->positive("original_max_position_embeddings");
  if (out.native_context == out.model.context) {
    return;
  }
  const std::string type = rope->optional_string("rope_type").value_or(rope->optional_string("type").value_or("?"));
  const auto factor = rope->optional_number("factor");
  out.notes.emplace_back("context " + std::to_string(out.model.context) +
                         " is max_position_embeddings (taken); the native context is " +
                         std::to_string(out.native_context) + ", extended by " + type + " rope scaling" +
                         (factor ? " x" + plain_number(*factor) : std::string()));
}

/// A rotary embedding on part of each head (Qwen3.5's partial_rotary_factor, MiniMax's rotary_dim): a note, the
/// rotary kernel's traffic is modelled on the whole head.
void read_partial_rotary(const JsonFields& t, HfModel& out) {
  std::optional<double> fraction = t.optional_number("partial_rotary_factor");
  if (const auto rope = rope_extension(t); !fraction && rope) {
    fraction = rope->optional_number("partial_rotary_factor");
  }
  if (fraction && *fraction > 0 && *fraction < 1) {
    out.notes.emplace_back("rotary embedding on " + plain_number(*fraction * 100) +
                           "% of each head (partial_rotary_factor)");
  }
}

}  // namespace

std::string plain_number(double value) {
  return value == std::floor(value) && std::abs(value) < 1e15 ? std::to_string(static_cast<long long>(value))
                                                              : text::format_number(value, 3);
}

JsonFields text_config(const JsonFields& root) { return root.has("text_config") ? root.object("text_config") : root; }

void read_sizes(const JsonFields& t, const JsonFields& root, HfModel& out) {
  ModelConfig& m = out.model;
  m.layers = t.positive("num_hidden_layers");
  m.hidden = t.positive("hidden_size");
  m.heads = t.positive("num_attention_heads");
  m.vocab = t.positive("vocab_size");
  m.tied_embeddings = (t.has("tie_word_embeddings") ? t : root).boolean("tie_word_embeddings", false);
  read_context(t, out);
  read_partial_rotary(t, out);
}

void read_attention_basics(const JsonFields& t, const JsonFields& root, HfModel& out) {
  read_sizes(t, root, out);
  ModelConfig& m = out.model;
  m.kv_groups = t.has("num_key_value_heads") ? t.positive("num_key_value_heads") : m.heads;
  if (m.kv_groups > m.heads || m.heads % m.kv_groups != 0) {
    t.fail("num_key_value_heads", "is " + std::to_string(m.kv_groups) + ": key/value heads must divide the " +
                                      std::to_string(m.heads) + " attention heads (num_attention_heads)");
  }
  const std::string_view head_key = t.has("head_dim") ? "head_dim" : "attention_head_dim";  // older Nemotron-H
  if (t.has(head_key)) {
    const int head_dim = t.positive(head_key);
    m.head_dim_override = static_cast<std::int64_t>(head_dim) * m.heads == m.hidden ? 0 : head_dim;
  } else if (m.hidden % m.heads != 0) {
    t.fail("num_attention_heads", "is " + std::to_string(m.heads) + ", which does not divide hidden_size " +
                                      std::to_string(m.hidden) + " (and no head_dim is given)");
  }
}

ModelConfig& read_gated_decoder(const JsonFields& t, const JsonFields& root, HfModel& out) {
  read_attention_basics(t, root, out);
  out.model.activation = gated_silu(t);
  return out.model;
}

Activation gated_silu(const JsonFields& t, std::string_view key) {
  const std::string act = t.string(key);
  if (act != "silu" && act != "swish") {
    t.fail(key, "is \"" + act + "\": this architecture's MLP is gated, modelled as SwiGLU (expected \"silu\")");
  }
  return Activation::swiglu;
}

void read_experts(const JsonFields& t, std::string_view experts_key, std::string_view top_k_key, ModelConfig& m) {
  m.experts = t.positive(experts_key);
  m.top_k = t.positive(top_k_key);
  if (m.top_k > m.experts) {
    t.fail(top_k_key, "is " + std::to_string(m.top_k) + ", more than the " + std::to_string(m.experts) + " experts (" +
                          std::string(experts_key) + ")");
  }
}

int shared_expert_count(std::int64_t shared_ffn, std::int64_t expert_ffn, std::vector<std::string>& notes) {
  if (shared_ffn <= 0) {
    return 0;
  }
  if (shared_ffn % expert_ffn == 0) {
    return static_cast<int>(shared_ffn / expert_ffn);
  }
  const int nearest = std::max(1, static_cast<int>(std::lround(static_cast<double>(shared_ffn) / expert_ffn)));
  notes.emplace_back("shared expert of " + std::to_string(shared_ffn) + " modelled as " + std::to_string(nearest) +
                     " expert(s) of " + std::to_string(expert_ffn));
  return nearest;
}

// Llama 3 (LlamaForCausalLM) and Mixtral (MixtralForCausalLM): one reader, Mixtral adding its experts.
void read_llama(const JsonFields& root, HfModel& out) {
  const JsonFields t = text_config(root);
  ModelConfig& m = read_gated_decoder(t, root, out);
  m.ffn = t.positive("intermediate_size");  // Mixtral: each expert's
  const bool attention_bias = t.boolean("attention_bias", false);
  const bool mlp_bias = t.boolean("mlp_bias", false);
  m.linear_bias = attention_bias || mlp_bias;
  if (attention_bias != mlp_bias) {
    out.notes.push_back(std::string("biases on the ") + (attention_bias ? "attention" : "MLP") +
                        " projections only, modelled on every GEMM");
  }
  if (t.has("num_local_experts")) {
    read_experts(t, "num_local_experts", "num_experts_per_tok", m);
  }
  if (t.has("sliding_window")) {
    m.sliding_window = t.positive("sliding_window");
    m.sliding_window_layers = 1.0;
  }
}

// Qwen3 (Qwen3ForCausalLM) and Qwen3 MoE (Qwen3MoeForCausalLM): explicit head_dim, per-head q/k norms; the MoE
// model's dense layers are its mlp_only_layers (and those off decoder_sparse_step).
void read_qwen3(const JsonFields& root, HfModel& out) {
  const JsonFields t = text_config(root);
  ModelConfig& m = read_gated_decoder(t, root, out);
  m.qk_norm = true;
  m.linear_bias = t.boolean("attention_bias", false);
  if (m.linear_bias) {
    out.notes.emplace_back("biases on the attention projections only, modelled on every GEMM");
  }
  if (t.boolean("use_sliding_window", false)) {
    t.fail("use_sliding_window", "is true: sliding windows above max_window_layers are not read (expected false)");
  }
  const int dense_ffn = t.positive("intermediate_size");
  if (!t.has("num_experts")) {
    m.ffn = dense_ffn;
    return;
  }
  read_experts(t, "num_experts", "num_experts_per_tok", m);
  m.ffn = t.positive("moe_intermediate_size");
  const int step = t.has("decoder_sparse_step") ? t.positive("decoder_sparse_step") : 1;
  const std::vector<std::int64_t> dense_only =
      t.has("mlp_only_layers") ? t.integers("mlp_only_layers") : std::vector<std::int64_t>{};
  std::vector<LayerGroup> layers;
  for (int i = 0; i < m.layers; ++i) {
    const bool dense = std::find(dense_only.begin(), dense_only.end(), i) != dense_only.end() || (i + 1) % step != 0;
    layers.push_back(LayerGroup{.count = 1, .mlp = dense ? Mlp::dense : Mlp::moe, .ffn = dense ? dense_ffn : 0});
  }
  settle_layers(layers, m);
}

// MiniMax-M2 (MiniMaxM2ForCausalLM): an MoE decoder with q/k norms over all heads, a partial rotary embedding and
// MTP modules.
void read_minimax_m2(const JsonFields& root, HfModel& out) {
  const JsonFields t = text_config(root);
  ModelConfig& m = read_gated_decoder(t, root, out);
  read_experts(t, "num_local_experts", "num_experts_per_tok", m);
  m.ffn = t.positive("intermediate_size");
  m.shared_experts = shared_expert_count(t.count("shared_intermediate_size"), m.ffn, out.notes);
  m.qk_norm = t.boolean("use_qk_norm", false);
  if (m.qk_norm && t.optional_string("qk_norm_type").value_or("") == "per_layer") {
    out.notes.emplace_back("q/k norms over all heads at once (qk_norm_type per_layer), modelled per head");
  }
  if (t.has("rotary_dim") && t.positive("rotary_dim") < m.head_dim()) {
    out.notes.emplace_back("rotary embedding on " + std::to_string(t.positive("rotary_dim")) + " of the " +
                           std::to_string(m.head_dim()) + " channels of each head (rotary_dim)");
  }
  if (t.boolean("use_mtp", false)) {
    m.mtp_layers = t.count("num_mtp_modules");
    if (t.count("mtp_transformer_layers", 1) != 1) {
      out.notes.emplace_back("each MTP module has " + std::to_string(t.count("mtp_transformer_layers")) +
                             " layers, modelled as one");
    }
  }
}

}  // namespace dgx::catalog::hf
