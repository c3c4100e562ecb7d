#include "dgx/catalog/model_toml.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace dgx::catalog {

namespace {

/// A TOML basic string.
std::string quoted(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned>(c));
      out += escape;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

/// A number as TOML writes it back exactly: an integer when it is one, else the shortest round-trip float.
std::string number(double value) {
  if (value == std::floor(value) && std::abs(value) < 1e15) {
    return std::to_string(static_cast<long long>(value));
  }
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  std::string text(buffer, result.ptr);
  return text.find_first_of(".e") == std::string::npos ? text + ".0" : text;
}

std::string strings(const std::vector<std::string>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    out += (i == 0 ? "" : ", ") + quoted(values[i]);
  }
  return out + "]";
}

class Writer {
public:
  void key(std::string_view name, const std::string& value) { text_ += std::string(name) + " = " + value + "\n"; }
  void integer(std::string_view name, long long value) { key(name, std::to_string(value)); }
  void nonzero(std::string_view name, long long value) {
    if (value != 0) {
      integer(name, value);
    }
  }
  void boolean(std::string_view name, bool value) { key(name, value ? "true" : "false"); }
  void string(std::string_view name, std::string_view value) { key(name, quoted(value)); }
  void header(std::string_view header) { text_ += "\n" + std::string(header) + "\n"; }
  [[nodiscard]] std::string text() && { return std::move(text_); }

private:
  std::string text_;
};

void write_required(Writer& w, const ModelConfig& m) {
  w.string("name", m.name);
  w.string("display", m.display);
  w.string("source", m.source);
  if (!m.aliases.empty()) {
    w.key("aliases", strings(m.aliases));
  }
  if (!m.checkpoints.empty()) {
    w.key("checkpoints", strings(m.checkpoints));
  }
  w.integer("layers", m.layers);
  w.integer("hidden", m.hidden);
  w.integer("ffn", m.ffn);
  w.integer("heads", m.heads);
  w.integer("kv_groups", m.kv_groups);
  w.integer("vocab", m.vocab);
  w.string("activation", to_string(m.activation));
  w.integer("seq_len", m.seq_len);
  w.integer("context", m.context);
  w.integer("experts", m.experts);
  w.integer("top_k", m.top_k);
  w.boolean("tied_embeddings", m.tied_embeddings);
  w.boolean("linear_bias", m.linear_bias);
  w.boolean("rope", m.rope);
  w.boolean("norm_bias", m.norm_bias);
}

void write_attention(Writer& w, const ModelConfig& m) {
  if (m.mla()) {
    w.string("attention", to_string(m.attention));
    w.nonzero("q_lora_rank", m.q_lora_rank);
    w.integer("kv_lora_rank", m.kv_lora_rank);
    w.integer("qk_nope_head_dim", m.qk_nope_head_dim);
    w.integer("qk_rope_head_dim", m.qk_rope_head_dim);
    w.integer("v_head_dim", m.v_head_dim);
  }
  w.nonzero("head_dim", m.head_dim_override);
  if (m.qk_norm) {
    w.boolean("qk_norm", true);
  }
  if (m.attention_output_gate) {
    w.boolean("attention_output_gate", true);
  }
  w.nonzero("sliding_window", m.sliding_window);
  if (m.sliding_window > 0 && m.sliding_window_layers != 1.0) {
    w.key("sliding_window_layers", number(m.sliding_window_layers));
  }
  w.nonzero("attention_chunk", m.attention_chunk);
  w.nonzero("sparse_topk", m.sparse_topk);
  w.nonzero("indexer_heads", m.indexer_heads);
  w.nonzero("indexer_head_dim", m.indexer_head_dim);
}

void write_layers(Writer& w, const ModelConfig& m) {
  w.nonzero("shared_experts", m.shared_experts);
  w.nonzero("dense_layers", m.dense_layers);
  w.nonzero("dense_ffn", m.dense_ffn);
  w.nonzero("mtp_layers", m.mtp_layers);
  if (m.glu_clamp > 0) {
    w.key("glu_clamp", number(m.glu_clamp));
  }
  if (m.mixer != Mixer::attention) {
    w.string("mixer", to_string(m.mixer));
  }
  if (m.mlp_free) {
    w.boolean("mlp_free", true);
  }
  if (m.extra_params > 0) {
    w.key("extra_params", number(m.extra_params));
  }
}

void write_tables(Writer& w, const ModelConfig& m) {
  if (m.linear_attention.value_heads > 0) {
    const LinearAttentionSizes& la = m.linear_attention;
    w.header("[linear_attention]");
    w.integer("key_heads", la.key_heads);
    w.integer("value_heads", la.value_heads);
    w.integer("key_head_dim", la.key_head_dim);
    w.integer("value_head_dim", la.value_head_dim);
    w.integer("conv_kernel", la.conv_kernel);
  }
  if (m.mamba.heads > 0) {
    w.header("[mamba2]");
    w.integer("heads", m.mamba.heads);
    w.integer("head_dim", m.mamba.head_dim);
    w.integer("state", m.mamba.state);
    w.integer("groups", m.mamba.groups);
    w.integer("conv_kernel", m.mamba.conv_kernel);
    w.integer("chunk", m.mamba.chunk);
  }
  if (m.checkpoint.weights != WeightFormat::bf16) {
    w.header("[checkpoint]");
    w.string("weights", to_string(m.checkpoint.weights));
    w.string("quantized", to_string(m.checkpoint.quantized));
  }
  for (const LayerGroup& g : m.layer_groups) {
    w.header("[[layer_group]]");
    w.integer("count", g.count);
    w.string("mixer", to_string(g.mixer));
    w.nonzero("window", g.window);
    w.nonzero("chunk", g.chunk);
    w.nonzero("kv_groups", g.kv_groups);
    w.string("mlp", to_string(g.mlp));
    w.nonzero("ffn", g.ffn);
  }
}

}  // namespace

std::string model_toml(const ModelConfig& model) {
  Writer w;
  write_required(w, model);
  write_attention(w, model);
  write_layers(w, model);
  write_tables(w, model);
  return std::move(w).text();
}

}  // namespace dgx::catalog
