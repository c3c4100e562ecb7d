#include "dgx/catalog/model_catalog.hpp"

#include <algorithm>
#include <cctype>

#include "dgx/catalog/catalog_files.hpp"
#include "dgx/catalog/hf_config.hpp"
#include "dgx/catalog/toml_table.hpp"

namespace dgx::catalog {

namespace {

void require(bool condition, const TomlTable& table, std::string_view key, const std::string& expectation) {
  if (!condition) {
    throw ConfigError(table.where(key) + " " + expectation);
  }
}

/// A non-negative integer that defaults to 0 when absent.
int optional_count(const TomlTable& t, std::string_view key) {
  if (!t.contains(key)) {
    return 0;
  }
  const std::int64_t value = t.integer(key);
  require(value >= 0 && value <= 1'000'000'000, t, key, "must be a count of at least 0");
  return static_cast<int>(value);
}

void read_layer_kinds(const TomlTable& t, ModelConfig& m);

/// The keys newer architectures add (MLA, shared experts, leading dense layers, MTP, sliding windows, explicit
/// head sizes); absent keys keep the plain decoder's meaning.
void read_extensions(const TomlTable& t, ModelConfig& m) {
  if (t.contains("attention")) {
    m.attention = parse_enum(t, "attention", parse_attention_kind, "gqa, mla");
  }
  m.head_dim_override = optional_count(t, "head_dim");
  m.q_lora_rank = optional_count(t, "q_lora_rank");
  m.kv_lora_rank = optional_count(t, "kv_lora_rank");
  m.qk_nope_head_dim = optional_count(t, "qk_nope_head_dim");
  m.qk_rope_head_dim = optional_count(t, "qk_rope_head_dim");
  m.v_head_dim = optional_count(t, "v_head_dim");
  m.shared_experts = optional_count(t, "shared_experts");
  m.dense_layers = optional_count(t, "dense_layers");
  m.dense_ffn = optional_count(t, "dense_ffn");
  m.mtp_layers = optional_count(t, "mtp_layers");
  m.sliding_window = optional_count(t, "sliding_window");
  m.sliding_window_layers = t.optional_number("sliding_window_layers").value_or(m.sliding_window > 0 ? 1.0 : 0.0);
  m.qk_norm = t.boolean("qk_norm", false);
  m.glu_clamp = t.optional_number("glu_clamp").value_or(0.0);
  require(m.glu_clamp >= 0, t, "glu_clamp", "must be positive (0: no clamp)");
  if (m.mla()) {
    require(m.kv_lora_rank > 0 && m.qk_nope_head_dim > 0 && m.qk_rope_head_dim > 0 && m.v_head_dim > 0, t, "attention",
            "mla needs kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim and v_head_dim");
  }
  require(m.dense_layers < m.layers, t, "dense_layers", "must leave at least one MoE layer");
  read_layer_kinds(t, m);
  require(m.sliding_window_layers >= 0 && m.sliding_window_layers <= 1, t, "sliding_window_layers",
          "must be a fraction in [0, 1]");
}

/// What the kinds of layers need: their sizes, layers that add up, and what a grouped model cannot also have.
void check_layer_kinds(const TomlTable& t, const ModelConfig& m) {
  bool linear = m.mixer == Mixer::linear_attention;
  bool mamba = m.mixer == Mixer::mamba2;
  bool moe_group = false;
  int total = 0;
  for (const LayerGroup& g : m.layer_groups) {
    linear = linear || g.mixer == Mixer::linear_attention;
    mamba = mamba || g.mixer == Mixer::mamba2;
    moe_group = moe_group || g.mlp == Mlp::moe;
    total += g.count;
  }
  require(!linear || m.linear_attention.value_heads > 0, t, "linear_attention",
          "is needed by linear-attention layers (key_heads, value_heads, key_head_dim, value_head_dim, conv_kernel)");
  require(!mamba || m.mamba.heads > 0, t, "mamba2",
          "is needed by mamba2 layers (heads, head_dim, state, groups, conv_kernel, chunk)");
  if (m.grouped()) {
    require(total == m.layers, t, "layer_group",
            "counts add up to " + std::to_string(total) + ", the model has " + std::to_string(m.layers) + " layers");
    require(m.dense_layers == 0, t, "dense_layers", "cannot be given with layer groups (make them a group)");
    require(!moe_group || m.moe(), t, "layer_group", "has a moe group, but the model has no experts");
  }
}

LinearAttentionSizes read_linear_attention(const TomlTable& t) {
  return LinearAttentionSizes{.key_heads = t.positive_int("key_heads"),
                              .value_heads = t.positive_int("value_heads"),
                              .key_head_dim = t.positive_int("key_head_dim"),
                              .value_head_dim = t.positive_int("value_head_dim"),
                              .conv_kernel = t.positive_int("conv_kernel")};
}

Mamba2Sizes read_mamba(const TomlTable& t) {
  Mamba2Sizes m{.heads = t.positive_int("heads"),
                .head_dim = t.positive_int("head_dim"),
                .state = t.positive_int("state"),
                .groups = t.positive_int("groups"),
                .conv_kernel = t.positive_int("conv_kernel"),
                .chunk = t.positive_int("chunk")};
  require(m.heads % m.groups == 0, t, "groups", "must divide heads " + std::to_string(m.heads));
  return m;
}

LayerGroup read_group(const TomlTable& t) {
  LayerGroup g;
  g.count = t.positive_int("count");
  if (t.contains("mixer")) {
    g.mixer = parse_enum(t, "mixer", parse_mixer, "attention, linear-attention, mamba2, none");
  }
  g.window = optional_count(t, "window");
  g.chunk = optional_count(t, "chunk");
  g.kv_groups = optional_count(t, "kv_groups");
  if (t.contains("mlp")) {
    g.mlp = parse_enum(t, "mlp", parse_mlp, "dense, moe, none");
  }
  g.ffn = optional_count(t, "ffn");
  require(g.mixer == Mixer::attention || (g.window == 0 && g.chunk == 0 && g.kv_groups == 0), t, "mixer",
          "takes window, chunk and kv_groups only as attention");
  require(g.mlp == Mlp::dense || g.ffn == 0, t, "ffn", "is the size of a dense MLP");
  return g;
}

/// The keys of hybrid and heterogeneous models (mixers other than attention, layer groups, sparse attention) and of
/// the checkpoint's format; absent keys keep the plain decoder's meaning.
void read_layer_kinds(const TomlTable& t, ModelConfig& m) {
  if (t.contains("mixer")) {
    m.mixer = parse_enum(t, "mixer", parse_mixer, "attention, linear-attention, mamba2, none");
  }
  m.mlp_free = t.boolean("mlp_free", false);
  m.attention_chunk = optional_count(t, "attention_chunk");
  m.sparse_topk = optional_count(t, "sparse_topk");
  m.indexer_heads = optional_count(t, "indexer_heads");
  m.indexer_head_dim = optional_count(t, "indexer_head_dim");
  require(m.sparse_topk == 0 || (m.indexer_heads > 0 && m.indexer_head_dim > 0), t, "sparse_topk",
          "needs indexer_heads and indexer_head_dim");
  m.attention_output_gate = t.boolean("attention_output_gate", false);
  if (t.contains("linear_attention")) {
    m.linear_attention = read_linear_attention(t.table("linear_attention"));
  }
  if (t.contains("mamba2")) {
    m.mamba = read_mamba(t.table("mamba2"));
  }
  for (const TomlTable& group : t.tables("layer_group")) {
    m.layer_groups.push_back(read_group(group));
  }
  m.extra_params = t.optional_number("extra_params").value_or(0.0);
  require(m.extra_params >= 0, t, "extra_params", "must be a count of at least 0");
  if (t.contains("checkpoint")) {
    const TomlTable checkpoint = t.table("checkpoint");
    m.checkpoint.weights =
        parse_enum(checkpoint, "weights", parse_weight_format, "bf16, fp8, fp8-block, mxfp4, nvfp4, int4");
    if (checkpoint.contains("quantized")) {
      m.checkpoint.quantized = parse_enum(checkpoint, "quantized", parse_quantized_part, "all, mlp, experts");
    }
  }
  check_layer_kinds(t, m);
}

ModelConfig read_model(const TomlTable& t) {
  ModelConfig m;
  m.name = t.string("name");
  m.display = t.string("display");
  m.source = t.string("source");
  if (t.contains("aliases")) {
    m.aliases = t.strings("aliases");
  }
  if (t.contains("checkpoints")) {
    m.checkpoints = t.strings("checkpoints");
  }
  m.layers = t.positive_int("layers");
  m.hidden = t.positive_int("hidden");
  m.ffn = t.positive_int("ffn");
  m.heads = t.positive_int("heads");
  m.kv_groups = t.positive_int("kv_groups");
  m.vocab = t.positive_int("vocab");
  m.activation = parse_enum(t, "activation", parse_activation, "swiglu, gelu, squared-relu");
  m.seq_len = t.positive_int("seq_len");
  m.context = t.contains("context") ? t.positive_int("context") : m.seq_len;
  m.experts = t.contains("experts") ? t.positive_int("experts") : 1;
  m.top_k = t.contains("top_k") ? t.positive_int("top_k") : 1;
  m.tied_embeddings = t.boolean("tied_embeddings", false);
  m.linear_bias = t.boolean("linear_bias", false);
  m.rope = t.boolean("rope", true);
  m.norm_bias = t.boolean("norm_bias", false);

  read_extensions(t, m);
  require(m.head_dim_override > 0 || m.mla() || m.hidden % m.heads == 0, t, "heads",
          "must divide hidden " + std::to_string(m.hidden) + " (or give head_dim)");
  require(m.heads % m.kv_groups == 0, t, "kv_groups", "must divide heads " + std::to_string(m.heads));
  require(m.top_k <= m.experts, t, "top_k", "must not exceed experts " + std::to_string(m.experts));
  return m;
}

}  // namespace

Expected<ModelConfig> parse_model(std::string_view toml_text, std::string_view file) {
  return read_toml(toml_text, file, read_model);
}

Expected<ModelConfig> find_model(std::string_view name) {
  if (names_hf_config(name)) {  // a Hugging Face config.json, or a folder holding one
    return read_hf_config(std::filesystem::path(std::string(name)));
  }
  auto model = load_catalog_entry("models", "model", name, parse_model);
  if (model) {
    return model;
  }
  for (const std::string& other : model_names()) {  // an alias: the model whose file lists the name
    auto candidate = load_catalog_entry("models", "model", other, parse_model);
    if (candidate &&
        std::find(candidate->aliases.begin(), candidate->aliases.end(), name) != candidate->aliases.end()) {
      return candidate;
    }
  }
  return model;
}

std::vector<std::string> model_aliases() {
  std::vector<std::string> out;
  for (const std::string& name : model_names()) {
    if (auto model = find_model(name)) {
      out.insert(out.end(), model->aliases.begin(), model->aliases.end());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> model_names() { return catalog_names("models"); }

namespace {

/// Lower case, letters and digits only, without an organisation prefix or an instruct / chat suffix: tools spell one
/// model many ways ("Meta-Llama-3.1-70B-Instruct", "llama31_70b").
std::string normalized(std::string_view printed) {
  if (const std::size_t slash = printed.rfind('/'); slash != std::string_view::npos) {
    printed.remove_prefix(slash + 1);
  }
  std::string key;
  for (const char c : printed) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
      key.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
  }
  for (const std::string_view suffix : {"instruct", "chat", "hf", "base"}) {
    if (key.size() > suffix.size() && key.ends_with(suffix)) {
      key.erase(key.size() - suffix.size());
    }
  }
  return key;
}

}  // namespace

std::optional<std::string> model_for_printed_name(std::string_view printed) {
  const std::string key = normalized(printed);
  if (key.empty()) {
    return std::nullopt;
  }
  for (const std::string& name : model_names()) {
    if (normalized(name) == key) {
      return name;
    }
  }
  for (const std::string& name : model_names()) {
    auto model = find_model(name);
    const auto same = [&](const std::string& other) { return normalized(other) == key; };
    if (model && (std::any_of(model->aliases.begin(), model->aliases.end(), same) ||
                  std::any_of(model->checkpoints.begin(), model->checkpoints.end(), same))) {
      return name;
    }
  }
  return std::nullopt;
}

std::vector<std::string> models_with_architecture(const PrintedArchitecture& printed) {
  std::vector<std::string> matches;
  if (printed.layers == 0 || printed.hidden == 0) {
    return matches;
  }
  const auto agrees = [](long printed_value, long value) { return printed_value == 0 || printed_value == value; };
  for (const std::string& name : model_names()) {
    auto m = find_model(name);
    if (m && agrees(printed.layers, m->layers) && agrees(printed.hidden, static_cast<long>(m->hidden)) &&
        agrees(printed.ffn, static_cast<long>(m->ffn)) && agrees(printed.heads, m->heads) &&
        agrees(printed.kv_groups, m->kv_groups) && agrees(printed.experts, m->experts)) {
      matches.push_back(name);
    }
  }
  return matches;
}

}  // namespace dgx::catalog
