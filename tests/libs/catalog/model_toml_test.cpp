#include "dgx/catalog/model_toml.hpp"

#include "dgx/catalog/hf_config.hpp"
#include "dgx/catalog/model_catalog.hpp"
#include "dgx/catalog/model_params.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "text_checks.hpp"

using namespace dgx::catalog;
using dgx::testing::has;

namespace {

/// What a model file pins down: the counts and the architecture's sizes, group by group.
void check_same(const ModelConfig& a, const ModelConfig& b) {
  CHECK(b.name == a.name);
  CHECK(b.source == a.source);
  CHECK(count_parameters(b).total == count_parameters(a).total);
  CHECK(count_parameters(b).active == count_parameters(a).active);
  CHECK(count_parameters(b).mtp == count_parameters(a).mtp);
  CHECK(b.seq_len == a.seq_len);
  CHECK(b.context == a.context);
  CHECK(b.head_dim() == a.head_dim());
  CHECK(b.sliding_window_layers == a.sliding_window_layers);
  CHECK(b.checkpoint.weights == a.checkpoint.weights);
  CHECK(b.checkpoint.quantized == a.checkpoint.quantized);
  REQUIRE(b.layer_groups.size() == a.layer_groups.size());
  for (std::size_t i = 0; i < a.layer_groups.size(); ++i) {
    CHECK(b.layer_groups[i].count == a.layer_groups[i].count);
    CHECK(b.layer_groups[i].mixer == a.layer_groups[i].mixer);
    CHECK(b.layer_groups[i].chunk == a.layer_groups[i].chunk);
    CHECK(b.layer_groups[i].mlp == a.layer_groups[i].mlp);
    CHECK(b.layer_groups[i].ffn == a.layer_groups[i].ffn);
  }
}

}  // namespace

TEST_CASE("every config.json written as a model file reads back as the same model") {
  const std::filesystem::path folder = std::filesystem::path(DGX_SOURCE_DIR) / "tests/libs/catalog/data/hf-configs";
  int read = 0;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    const std::string file = entry.path().filename().string();
    if (!file.ends_with("_config.json") || file.ends_with("_hf_quant_config.json")) {
      continue;
    }
    CAPTURE(file);
    const auto model = read_hf_config(entry.path());
    REQUIRE(model.has_value());
    const auto back = parse_model(model_toml(*model), model->name + ".toml");
    REQUIRE_MESSAGE(back.has_value(), (back ? "" : back.error().message));
    check_same(*model, *back);
    ++read;
  }
  CHECK(read == 28);
}

TEST_CASE("every catalog model written as a model file reads back as the same model") {
  for (const std::string& name : model_names()) {
    CAPTURE(name);
    const auto model = find_model(name);
    REQUIRE(model.has_value());
    const auto back = parse_model(model_toml(*model), name + ".toml");
    REQUIRE_MESSAGE(back.has_value(), (back ? "" : back.error().message));
    check_same(*model, *back);
    CHECK(back->aliases == model->aliases);
    CHECK(back->checkpoints == model->checkpoints);
  }
}

TEST_CASE("a model file writes the required keys first, the tables last, and escapes its strings") {
  auto model = find_model("deepseek-v3");
  REQUIRE(model.has_value());
  model->source = "a \"quoted\" source\\path";
  const std::string text = model_toml(*model);
  CHECK(text.starts_with("name = \"deepseek-v3\"\n"));
  CHECK(has(text, "source = \"a \\\"quoted\\\" source\\\\path\"\n"));
  CHECK(has(text, "attention = \"mla\"\n"));
  CHECK(has(text, "dense_layers = 3\n"));
  CHECK_FALSE(has(text, "[checkpoint]"));  // BF16, the default
  const auto back = parse_model(text, "deepseek-v3.toml");
  REQUIRE(back.has_value());
  CHECK(back->source == model->source);
}
