#include "dgx/llm/flops.hpp"
#include "dgx/llm/mixer_work.hpp"

#include "catalog_fixtures.hpp"

#include <doctest/doctest.h>

using namespace dgx::llm;
using dgx::llm::testing::catalog_model;

TEST_CASE("model FLOPs per sequence reproduce NVIDIA's published values for Llama 3.1 at seq 8192") {
  CHECK(model_flops_per_sequence(catalog_model("llama3.1-8b"), 8192) == doctest::Approx(4.74e14).epsilon(0.002));
  CHECK(model_flops_per_sequence(catalog_model("llama3.1-70b"), 8192) == doctest::Approx(3.94e15).epsilon(0.002));
  CHECK(model_flops_per_sequence(catalog_model("llama3.1-405b"), 8192) == doctest::Approx(2.15e16).epsilon(0.002));
}

TEST_CASE("405B with 16 KV groups gives the 2.17e16 of the published table that used 16 groups") {
  ModelConfig m = catalog_model("llama3.1-405b");
  m.kv_groups = 16;
  CHECK(model_flops_per_sequence(m, 8192) == doctest::Approx(2.17e16).epsilon(0.002));
}

TEST_CASE("the causal convention halves only the attention-core term") {
  const ModelConfig m = catalog_model("llama3.1-8b");
  const double s = 8192;
  const double attention_core_full = s * 12.0 * m.layers * static_cast<double>(m.hidden) * s;  // 12·L·h²·s/h · s
  const double full = model_flops_per_sequence(m, 8192, AttentionFlops::full);
  const double causal = model_flops_per_sequence(m, 8192, AttentionFlops::causal);
  CHECK(full - causal == doctest::Approx(attention_core_full / 2));
}

TEST_CASE("non-gated MLPs count two matrices: the tok/s and TFLOP/s columns of calibration section B agree") {
  // (model, tokens/s per GPU, TFLOP/s per GPU, seq): TFLOP/s = tokens/s × FLOPs per token (full attention).
  struct Row {
    const char* name;
    double tokens_per_s, tflops;
    int seq;
  };
  for (const Row& r : {Row{"gpt3-5b", 23406, 765, 2048}, Row{"gpt3-20b", 5851, 750, 2048},
                       Row{"llama2-7b", 16934, 780, 4096}, Row{"llama2-13b", 8715, 760, 4096},
                       Row{"nemotron-8b", 12507, 643, 4096}, Row{"nemotron-22b", 4312, 562, 4096}}) {
    CAPTURE(r.name);
    const double per_token = model_flops_per_sequence(catalog_model(r.name), r.seq) / r.seq;
    CHECK(r.tokens_per_s * per_token / 1e12 == doctest::Approx(r.tflops).epsilon(0.01));
  }
}

TEST_CASE("mixture-of-experts FLOPs count the top-k experts a token uses") {
  const ModelConfig moe = catalog_model("mixtral-8x7b");
  ModelConfig dense = moe;
  dense.experts = 1;
  dense.top_k = 1;
  dense.ffn = moe.ffn * moe.top_k;  // two experts of ffn = one MLP of 2·ffn
  CHECK(model_flops_per_sequence(moe, 4096) == doctest::Approx(model_flops_per_sequence(dense, 4096)));
}

TEST_CASE("MoE FLOPs count the shared experts and the leading dense layers, MTP adds its layer and head") {
  ModelConfig ds = catalog_model("deepseek-v3");
  const double with_mtp = model_flops_per_sequence(ds, 4096);
  ds.mtp_layers = 0;
  const double without = model_flops_per_sequence(ds, 4096);
  CHECK(with_mtp > without);
  ModelConfig all_moe = ds;
  all_moe.dense_layers = 0;
  // DeepSeek sized its dense MLP (18432) as the 8 routed + 1 shared experts of 2048 a token passes through.
  CHECK(model_flops_per_sequence(all_moe, 4096) == doctest::Approx(without));
  all_moe.dense_ffn = std::int64_t{4} * 18432;
  CHECK(model_flops_per_sequence(all_moe, 4096) == doctest::Approx(without));  // dense_ffn unused without dense layers
  ModelConfig no_shared = ds;
  no_shared.shared_experts = 0;
  const double h = 7168, ffn = 2048;
  CHECK(without - model_flops_per_sequence(no_shared, 4096) == doctest::Approx(4096 * 6 * 3 * h * ffn * 58));
}

TEST_CASE("a hybrid model's FLOPs sum its groups: each mixer's linear weights and scan or core, each MLP") {
  const ModelConfig m = dgx::llm::testing::fixture_model("nemotron-h-8b-like");
  const double s = 8192;
  double expected = 6.0 * static_cast<double>(m.vocab) * static_cast<double>(m.hidden);  // the LM head
  for (const LayerGroup& group : m.layer_groups) {
    const ModelConfig v = m.layer_view(group);
    double layer = 6.0 * dgx::catalog::mixer_linear_weights(v);
    if (v.mixer == Mixer::mamba2) {
      layer += 3.0 * ssd_forward(v.mamba, 1, s).flops / s;
    } else if (v.mixer == Mixer::attention) {
      layer += 6.0 * s * v.heads * 2.0 * static_cast<double>(v.head_dim());  // QKᵀ and PV, full convention
    }
    if (!v.mlp_free) {
      layer += 6.0 * dgx::catalog::mlp_linear_weights(v, static_cast<double>(v.ffn));
    }
    expected += group.count * layer;
  }
  CHECK(model_flops_per_sequence(m, 8192) == doctest::Approx(s * expected));
  // The scans count the same under both conventions; only attention's core halves.
  const double attention_core = 4 * 6.0 * s * m.heads * 2.0 * static_cast<double>(m.head_dim());
  CHECK(model_flops_per_sequence(m, 8192) - model_flops_per_sequence(m, 8192, AttentionFlops::causal) ==
        doctest::Approx(s * 0.5 * attention_core));
}

TEST_CASE("a Qwen3.5-like hybrid counts its gated query projection and its Gated DeltaNet scans") {
  const ModelConfig m = dgx::llm::testing::fixture_model("qwen3.5-27b-like");
  // Active parameters are what the linear layers of a token pass through: 6 FLOPs each, plus the cores and scans.
  const double linear = 6.0 * 4096 * (dgx::catalog::count_parameters(m).active);
  const double flops = model_flops_per_sequence(m, 4096);
  CHECK(flops > linear * 0.99);
  CHECK(flops < linear * 1.6);
}
