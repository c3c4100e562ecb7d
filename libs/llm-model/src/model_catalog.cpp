#include "dgx/llm/model_catalog.hpp"

#include "catalog_files.hpp"
#include "toml_reader.hpp"

namespace dgx::llm {

namespace {

using detail::ConfigError;
using detail::TomlTable;

void require(bool condition, const TomlTable& table, std::string_view key, const std::string& expectation) {
  if (!condition) {
    throw ConfigError(table.where(key) + " " + expectation);
  }
}

ModelConfig read_model(const TomlTable& t) {
  ModelConfig m;
  m.name = t.string("name");
  m.display = t.string("display");
  m.source = t.string("source");
  m.layers = t.positive_int("layers");
  m.hidden = t.positive_int("hidden");
  m.ffn = t.positive_int("ffn");
  m.heads = t.positive_int("heads");
  m.kv_groups = t.positive_int("kv_groups");
  m.vocab = t.positive_int("vocab");
  m.activation = detail::parse_enum(t, "activation", parse_activation, "swiglu, gelu, squared-relu");
  m.seq_len = t.positive_int("seq_len");
  m.context = t.contains("context") ? t.positive_int("context") : m.seq_len;
  m.experts = t.contains("experts") ? t.positive_int("experts") : 1;
  m.top_k = t.contains("top_k") ? t.positive_int("top_k") : 1;
  m.tied_embeddings = t.boolean("tied_embeddings", false);
  m.linear_bias = t.boolean("linear_bias", false);
  m.rope = t.boolean("rope", true);
  m.norm_bias = t.boolean("norm_bias", false);

  require(m.hidden % m.heads == 0, t, "heads", "must divide hidden " + std::to_string(m.hidden));
  require(m.heads % m.kv_groups == 0, t, "kv_groups", "must divide heads " + std::to_string(m.heads));
  require(m.top_k <= m.experts, t, "top_k", "must not exceed experts " + std::to_string(m.experts));
  return m;
}

} // namespace

Expected<ModelConfig> parse_model(std::string_view toml_text, std::string_view file) {
  return detail::read_toml(toml_text, file, read_model);
}

Expected<ModelConfig> find_model(std::string_view name) {
  return detail::load_catalog_entry("models", "model", name, parse_model);
}

std::vector<std::string> model_names() { return detail::catalog_names("models"); }

} // namespace dgx::llm
