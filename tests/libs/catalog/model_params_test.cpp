#include "dgx/catalog/model_params.hpp"

#include "dgx/catalog/model_catalog.hpp"

#include <doctest/doctest.h>

#include <string_view>

using namespace dgx::catalog;

namespace {

ModelConfig catalog_model(std::string_view name) {
  auto found = find_model(name);
  REQUIRE_MESSAGE(found.has_value(), (found ? "" : found.error().message));
  return *found;
}

/// One layer of `model` viewed as a uniform model of `mixer` (the per-layer counts describe such a view).
ModelConfig one_layer(ModelConfig model, Mixer mixer) {
  model.layer_groups.clear();
  model.mixer = mixer;
  return model;
}

}  // namespace

TEST_CASE("parameter counts of known models match their model cards") {
  CHECK(count_parameters(catalog_model("llama3.1-8b")).total == doctest::Approx(8.03e9).epsilon(0.002));
  CHECK(count_parameters(catalog_model("llama3.1-70b")).total == doctest::Approx(70.6e9).epsilon(0.002));
  CHECK(count_parameters(catalog_model("llama3.1-405b")).total == doctest::Approx(405.9e9).epsilon(0.002));
  CHECK(count_parameters(catalog_model("llama2-7b")).total == doctest::Approx(6.74e9).epsilon(0.002));
  CHECK(count_parameters(catalog_model("gpt3-175b")).total == doctest::Approx(174.6e9).epsilon(0.005));
  const ParameterCount mixtral = count_parameters(catalog_model("mixtral-8x7b"));
  CHECK(mixtral.total == doctest::Approx(46.7e9).epsilon(0.005));
  CHECK(mixtral.active == doctest::Approx(12.9e9).epsilon(0.005));
}

TEST_CASE("parameter counts of the newer MoE models match their model cards") {
  const ParameterCount ds = count_parameters(catalog_model("deepseek-v3"));
  CHECK(ds.total == doctest::Approx(671e9).epsilon(0.005));  // 671B, 37B active; the MTP module apart
  CHECK(ds.active == doctest::Approx(37.5e9).epsilon(0.01));
  CHECK(ds.mtp > 10e9);
  CHECK(count_parameters(catalog_model("qwen3-30b-a3b")).total == doctest::Approx(30.5e9).epsilon(0.005));
  CHECK(count_parameters(catalog_model("qwen3-30b-a3b")).active == doctest::Approx(3.3e9).epsilon(0.02));
  CHECK(count_parameters(catalog_model("qwen3-235b-a22b")).total == doctest::Approx(235e9).epsilon(0.005));
  CHECK(count_parameters(catalog_model("qwen3-235b-a22b")).active == doctest::Approx(22e9).epsilon(0.02));
  // gpt-oss: 116.8B; its card's 5.1B active leaves the input embedding (0.58B) out.
  const ParameterCount oss = count_parameters(catalog_model("gpt-oss-120b"));
  CHECK(oss.total == doctest::Approx(116.8e9).epsilon(0.005));
  CHECK(oss.active - oss.embedding == doctest::Approx(5.13e9).epsilon(0.01));
}

// The mixers' counts, term by term as transformers builds the modules (the modelling files named), on the sizes of
// the catalog's models or of Qwen3.5-27B, Nemotron-H-56B and DeepSeek-V3.2.

TEST_CASE("MLA counts DeepSeek-V3's q_a, q_b, kv_a_proj_with_mqa, kv_b and o projections and the two latent norms") {
  const ModelConfig ds = catalog_model("deepseek-v3");
  const double h = 7168, heads = 128;
  const double q = h * 1536 + 1536 + 1536 * heads * (128 + 64);               // q_a_proj, q_a_layernorm, q_b_proj
  const double kv = h * (512 + 64) + 512 + 512 * heads * (128 + 128);         // kv_a_proj_with_mqa, norm, kv_b_proj
  const double o = heads * 128 * h;                                           // o_proj
  CHECK(mixer_parameters(ds) == doctest::Approx(q + kv + o).epsilon(1e-12));  // modeling_deepseek_v3.py
}

TEST_CASE("DeepSeek sparse attention adds the indexer's wq_b, wk, its key LayerNorm and weights_proj") {
  ModelConfig ds = catalog_model("deepseek-v3");
  const double dense = mixer_parameters(ds);
  ds.sparse_topk = 2048;
  ds.indexer_heads = 64;
  ds.indexer_head_dim = 128;
  const double indexer = 1536.0 * 64 * 128 + 7168.0 * 128 + 2 * 128 + 7168.0 * 64;  // DeepSeek-V3.2's Indexer
  CHECK(mixer_parameters(ds) - dense == doctest::Approx(indexer).epsilon(1e-12));
}

TEST_CASE("an attention output gate doubles the query projection, q and k norms add a head's width each") {
  ModelConfig m = catalog_model("qwen3-30b-a3b");  // 32 heads of 128, 4 KV heads, hidden 2048, q/k norms
  const double h = 2048, q = 32 * 128.0, kv = 4 * 128.0;
  CHECK(mixer_parameters(m) == doctest::Approx(h * (q + 2 * kv) + q * h + 2 * 128).epsilon(1e-12));
  m.attention_output_gate = true;  // Qwen3-Next / Qwen3.5: q_proj of 2 · heads · head_dim
  CHECK(mixer_parameters(m) == doctest::Approx(h * (2 * q + 2 * kv) + q * h + 2 * 128).epsilon(1e-12));
}

TEST_CASE("Gated DeltaNet counts Qwen3.5's in_proj_qkv, in_proj_z, in_proj_b, in_proj_a, conv1d, dt_bias, A_log, "
          "its gated norm and out_proj") {
  ModelConfig m = catalog_model("qwen3-30b-a3b");
  m.hidden = 5120;  // Qwen3.5-27B's linear_attention layers
  m.linear_attention = LinearAttentionSizes{
      .key_heads = 16, .value_heads = 48, .key_head_dim = 128, .value_head_dim = 128, .conv_kernel = 4};
  const double h = 5120, key = 16 * 128.0, value = 48 * 128.0;
  const double expected = h * (2 * key + value)    // in_proj_qkv
                          + h * value              // in_proj_z
                          + 2 * h * 48             // in_proj_b, in_proj_a
                          + (2 * key + value) * 4  // conv1d, depthwise, no bias
                          + 2 * 48                 // dt_bias, A_log
                          + 128                    // the gated RMSNorm of a value head
                          + value * h;             // out_proj
  const ModelConfig view = one_layer(m, Mixer::linear_attention);
  CHECK(mixer_parameters(view) == doctest::Approx(expected).epsilon(1e-12));
  CHECK(mixer_linear_weights(view) == doctest::Approx(h * (2 * key + 2 * value + 2 * 48) + value * h).epsilon(1e-12));
}

TEST_CASE("Mamba-2 counts Nemotron-H's in_proj, the biased conv1d, dt_bias, A_log, D, the gated norm and out_proj") {
  ModelConfig m = catalog_model("llama3.1-70b");  // hidden 8192, as Nemotron-H-56B
  m.mamba = Mamba2Sizes{.heads = 256, .head_dim = 64, .state = 256, .groups = 8, .conv_kernel = 4, .chunk = 128};
  const double h = 8192, inner = 256 * 64.0, bc = 2 * 8 * 256.0;
  const double expected = h * (2 * inner + bc + 256)  // in_proj: gate, x, B and C, dt
                          + (inner + bc) * (4 + 1)    // conv1d weight and bias (use_conv_bias)
                          + 3 * 256                   // dt_bias, A_log, D
                          + inner                     // Zamba2RMSNormGated
                          + inner * h;                // out_proj
  const ModelConfig view = one_layer(m, Mixer::mamba2);
  CHECK(mixer_parameters(view) == doctest::Approx(expected).epsilon(1e-12));
  CHECK(mixer_linear_weights(view) == doctest::Approx(h * (2 * inner + bc + 256) + inner * h).epsilon(1e-12));
}

TEST_CASE("a layer with no mixer or no MLP counts one norm, and a grouped model sums its groups") {
  ModelConfig m = catalog_model("llama3.1-8b");
  const ParameterCount plain = count_parameters(m);
  // The same 32 layers as two groups of 16: the same count.
  m.layer_groups = {LayerGroup{.count = 16}, LayerGroup{.count = 16}};
  CHECK(count_parameters(m).total == doctest::Approx(plain.total).epsilon(1e-12));
  // Half the layers without attention (Nemotron Super's no-op blocks): their attention and its norm are gone.
  m.layer_groups = {LayerGroup{.count = 16}, LayerGroup{.count = 16, .mixer = Mixer::none}};
  const double attention = mixer_parameters(catalog_model("llama3.1-8b")) + 4096;
  CHECK(plain.total - count_parameters(m).total == doctest::Approx(16 * attention).epsilon(1e-12));
}
