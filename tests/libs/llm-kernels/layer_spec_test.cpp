#include <doctest/doctest.h>

#include "dgx/llm/kernels/layer_spec.hpp"
#include "layer_fixtures.hpp"

#include <stdexcept>
#include <string>

using namespace dgx::llm::kernels;
using dgx::llm::testing::llama70b;
using dgx::llm::testing::llama8b;
using dgx::llm::testing::make_spec;
using dgx::llm::testing::mixtral;

namespace {

std::string spec_error_of(const LayerSpec& spec) {
  try {
    validate(spec);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("llama3.1-70b at TP1: GEMM rows are the whole sequence, qkv is h(1 + 2g/a) wide") {
  const LayerSpec spec = llama70b();
  CHECK_NOTHROW(validate(spec));
  const RankShapes r = rank_shapes(spec);
  CHECK(r.tokens == 8192);
  CHECK(r.sp_tokens == 8192);
  CHECK(r.head_dim == 128);
  CHECK(r.qkv_width == 10240);
  CHECK(r.ffn == 28672);
  CHECK(r.fc1_width == 57344);
  CHECK(r.q_len == 8192);
  CHECK(r.attention_steps == 1);
}

TEST_CASE("TP splits heads and the MLP, CP the sequence, sequence parallelism shards the norms") {
  LayerSpec spec = llama70b();
  spec.layout = Layout{8, 2, 1};
  const RankShapes r = rank_shapes(spec);
  CHECK(r.q_heads == 8);
  CHECK(r.kv_heads == 1);
  CHECK(r.ffn == 3584);
  CHECK(r.tokens == 4096);
  CHECK(r.sp_tokens == 512);
  CHECK(r.q_len == 4096);
  CHECK(r.attention_steps == 2);
}

TEST_CASE("kv heads are replicated when TP exceeds the number of kv groups") {
  LayerSpec spec = llama70b();
  spec.layout.tp = 16;
  CHECK_NOTHROW(validate(spec));
  CHECK(rank_shapes(spec).kv_heads == 1);
  CHECK(rank_shapes(spec).q_heads == 4);
}

TEST_CASE("MoE with balanced routing: EP divides the experts, rows per expert grow with EP") {
  LayerSpec spec = mixtral();
  CHECK_NOTHROW(validate(spec));
  CHECK(rank_shapes(spec).local_experts == 8);
  CHECK(rank_shapes(spec).rows_per_expert == 1024);  // 4096 tokens · top-2 / 8 experts
  spec.layout.ep = 8;
  CHECK(rank_shapes(spec).local_experts == 1);
  CHECK(rank_shapes(spec).rows_per_expert == 8192);  // every rank's tokens for this rank's one expert
}

TEST_CASE("invalid layouts are rejected with the offending value named") {
  LayerSpec spec = llama70b();
  spec.layout.tp = 3;
  CHECK(spec_error_of(spec).find("heads (64) must be a multiple of tp (3)") != std::string::npos);
  spec = llama70b();
  spec.layout.cp = 3;
  CHECK(spec_error_of(spec).find("seq_len (8192) must be a multiple of 6") != std::string::npos);
  spec = llama70b();
  spec.layout.ep = 2;
  CHECK(spec_error_of(spec).find("ep > 1 needs a MoE layer") != std::string::npos);
  spec = llama70b();
  spec.arch.kv_groups = 7;
  CHECK(spec_error_of(spec).find("multiple of kv_groups") != std::string::npos);
  spec = llama70b();
  spec.seq_len = 8200;
  spec.precision = Precision::fp8;
  CHECK(spec_error_of(spec).find("fp8: GEMM rows") != std::string::npos);
  spec = llama70b();
  spec.arch.head_dim = 100;
  CHECK(spec_error_of(spec).find("head_dim (100)") != std::string::npos);
}

TEST_CASE("model FLOPs follow NVIDIA's formula: 12h²(1 + g/a + s/h)s + 18·ffn·h·s per layer and sequence") {
  const LayerSpec spec = llama8b();
  const double h = 4096, s = 8192, ffn = 14336, g = 8, a = 32;
  const double expected = 12 * h * h * (1 + g / a + s / h) * s + 18 * ffn * h * s;
  CHECK(model_flops(spec) == doctest::Approx(expected).epsilon(1e-12));
  LayerSpec split = spec;
  split.layout = Layout{2, 2, 1};
  CHECK(model_flops(split) == doctest::Approx(expected / 4).epsilon(1e-12));
}

TEST_CASE("names parse back to their values and unknown names are rejected") {
  for (const auto p : {Precision::bf16, Precision::fp8}) {
    CHECK(parse_precision(to_string(p)) == p);
  }
  for (const auto r : {Recompute::none, Recompute::selective, Recompute::full}) {
    CHECK(parse_recompute(to_string(r)) == r);
  }
  for (const auto a : {Activation::swiglu, Activation::gelu, Activation::squared_relu}) {
    CHECK(parse_activation(to_string(a)) == a);
  }
  CHECK(parse_norm("layernorm") == Norm::layernorm);
  CHECK(parse_fp8_scaling("current") == Fp8Scaling::current);
  CHECK_FALSE(parse_precision("fp16").has_value());
  CHECK(describe(llama70b()).find("h=8192 ffn=28672 heads=64 kv=8 d=128 swiglu") == 0);
}

TEST_CASE("LoRA: the rank fits the hidden size and TP, fc1/fc2 adapters need a dense MLP, and describe names it") {
  LayerSpec spec = llama8b();
  spec.lora = Lora{.rank = 16, .alpha = 32, .qkv = true};
  CHECK_NOTHROW(validate(spec));
  CHECK(describe(spec).find("lora=r16(qkv)") != std::string::npos);
  spec.lora.rank = 5000;
  CHECK(spec_error_of(spec).find("lora: rank (5000) must not exceed the hidden size (4096)") != std::string::npos);
  spec.lora.rank = 12;
  spec.layout.tp = 8;
  CHECK(spec_error_of(spec).find("must be a multiple of tp (8)") != std::string::npos);
  LayerSpec moe = mixtral();
  moe.lora = Lora{.rank = 16, .alpha = 32, .fc1 = true};
  CHECK(spec_error_of(moe).find("fc1 and fc2 adapters need a dense MLP") != std::string::npos);
  moe.lora = Lora{.rank = 16, .alpha = 32};  // a frozen layer without adapters: the baseline of their cost
  CHECK_NOTHROW(validate(moe));
}

TEST_CASE("packed samples: the attention runs per sample, positions restart, the sample divides the sequence") {
  LayerSpec spec = llama8b();
  spec.seq_len = 4096;
  spec.sample_len = 512;
  const RankShapes r = rank_shapes(spec);
  CHECK(r.q_len == 512);
  CHECK(r.attention_batch == 8);
  CHECK(r.tokens == 4096);
  spec.sample_len = 500;
  CHECK(spec_error_of(spec).find("must divide seq_len") != std::string::npos);
  spec.sample_len = 512;
  spec.layout.cp = 2;
  CHECK(spec_error_of(spec).find("cp = 1") != std::string::npos);
}

TEST_CASE("LoRA model FLOPs as executed: GEMMs twice their forward, attention three times, adapters 6 r (in + out)") {
  LayerSpec spec = make_spec(4096, 14336, 32, 8, 4096);
  const double h = 4096, q = 4096, kv = 1024, s = 4096, ffn = 14336;
  const double projections = 2 * h * (q + 2 * kv) + 2 * q * h, core = 4 * s * q, mlp = 3 * 2 * h * ffn;
  CHECK(model_flops(spec) == doctest::Approx(3 * (projections + core + mlp) * s));
  spec.lora = Lora{.rank = 16, .alpha = 32, .qkv = true};
  const double adapter = 6.0 * 16 * (h + q + 2 * kv);
  CHECK(model_flops(spec) == doctest::Approx((2 * (projections + mlp) + 3 * core + adapter) * s));
}
