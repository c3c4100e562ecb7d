#include "dgx/llm/memory_model.hpp"

#include "catalog_fixtures.hpp"

#include <doctest/doctest.h>

using namespace dgx::llm;
using dgx::llm::testing::catalog_model;
using dgx::llm::testing::catalog_system;
using dgx::llm::testing::train;

namespace {
constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;

MemoryBreakdown peak_memory(std::string_view model_name, int gpus, const TrainConfig& t) {
  const ModelConfig m = catalog_model(model_name);
  const SystemProfile s = catalog_system("h100-sxm");
  const auto r = resolve_layout(m, s, gpus, t);
  REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().message));
  return memory_per_gpu(m, s, t, *r).peak();
}
}  // namespace

TEST_CASE("70B with TP8 PP1 and no distributed optimizer does not fit 80 GB") {
  TrainConfig t = train({.tp = 8}, 1, 64, 8192);
  t.distributed_optimizer = false;
  const MemoryBreakdown m = peak_memory("llama3.1-70b", 64, t);
  CHECK_FALSE(m.fits());
  // 70.6e9 / 8 parameters × (2 weights + 2 grads + 12 optimizer) bytes.
  CHECK(m.weights + m.gradients + m.optimizer == doctest::Approx(70.6e9 / 8 * 16).epsilon(0.01));
}

TEST_CASE("70B with TP4 PP4 CP2 VP5 and the distributed optimizer fits 80 GB on 64 GPUs") {
  const MemoryBreakdown m = peak_memory("llama3.1-70b", 64, train({.tp = 4, .pp = 4, .cp = 2, .vp = 5}, 1, 128, 8192));
  CHECK(m.fits());
  CHECK(m.total() < 80 * kBytesPerGiB);
}

TEST_CASE("the distributed optimizer shards the optimizer state over the data-parallel ranks") {
  const Layout l{.tp = 8, .pp = 4};
  TrainConfig t = train(l, 1, 256, 4096);
  const MemoryBreakdown sharded = peak_memory("llama2-70b", 256, t);
  t.distributed_optimizer = false;
  const MemoryBreakdown replicated = peak_memory("llama2-70b", 256, t);
  CHECK(sharded.optimizer == doctest::Approx(replicated.optimizer / 8));  // dp = 256 / 32
  CHECK(sharded.weights == replicated.weights);
}

TEST_CASE("full recompute keeps only layer inputs, selective saves a little, FP8 adds weight caches") {
  TrainConfig t = train({.tp = 4, .pp = 4, .cp = 2, .vp = 5}, 1, 128, 8192);
  const MemoryBreakdown none = peak_memory("llama3.1-70b", 64, t);
  t.recompute = Recompute::selective;
  const MemoryBreakdown selective = peak_memory("llama3.1-70b", 64, t);
  t.recompute = Recompute::full;
  const MemoryBreakdown full = peak_memory("llama3.1-70b", 64, t);
  CHECK(full.activations < selective.activations / 5);
  CHECK(selective.activations < none.activations);
  CHECK(full.total() < none.total());
  t.recompute = Recompute::none;
  t.precision = Precision::fp8;
  const MemoryBreakdown fp8 = peak_memory("llama3.1-70b", 64, t);
  CHECK(fp8.fp8_weight_cache > 0);
  CHECK(none.fp8_weight_cache == 0);
  CHECK(fp8.activations < none.activations);
}

TEST_CASE("activation bytes per layer follow the saved tensors (Llama 3.1 8B, BF16, one GPU)") {
  const ModelConfig m = catalog_model("llama3.1-8b");
  const double tokens = 8192;
  // Residual inputs of two norms, two norm outputs, q/k/v, attention output, MLP input, SwiGLU input, fc2 input.
  const double h = 4096, kv = 1024, ffn = 14336;
  const double expected = tokens * (2 * h * 2 + 2 * h * 2 + (h + 2 * kv) * 2 + h * 2 + 32 * 4 + 2 * ffn * 2 + ffn * 2);
  CHECK(layer_activation_bytes(m, ShapeKey{.mbs = 1, .seq_len = 8192}) == doctest::Approx(expected));
}

TEST_CASE("the first stage holds the most activations under interleaving") {
  const ModelConfig m = catalog_model("llama3.1-70b");
  const SystemProfile s = catalog_system("h100-sxm");
  const TrainConfig t = train({.tp = 4, .pp = 4, .cp = 2, .vp = 5}, 1, 128, 8192);
  const auto r = resolve_layout(m, s, 64, t);
  REQUIRE(r.has_value());
  const StageMemory stages = memory_per_gpu(m, s, t, *r);
  CHECK(stages.first.activations > stages.middle.activations);
  CHECK(stages.middle.activations > stages.last.activations);
  CHECK(stages.last.transient > 0);  // logits of the loss
}

TEST_CASE("low-precision parameters replace the BF16 weights instead of adding a cache beside them") {
  // Megatron fp8_param_gather: the GEMM weights live in FP8 with their transposes, 1 + 1 bytes, instead of BF16
  // weights (2) plus an FP8 copy and its transpose (1 + 1).
  CHECK(parameter_bytes(Precision::fp8, true).linear + parameter_bytes(Precision::fp8, true).cache == 2);
  CHECK(parameter_bytes(Precision::fp8, false).linear + parameter_bytes(Precision::fp8, false).cache == 4);
  CHECK(parameter_bytes(Precision::mxfp8, true).cache == doctest::Approx(1 + 1.0 / 32));
  CHECK(parameter_bytes(Precision::nvfp4, true).linear == doctest::Approx(0.5 + 1.0 / 16));
  CHECK(parameter_bytes(Precision::bf16, true).cache == 0);
  // Blackwell's FP8 GEMMs take any layout: per-tensor FP8 keeps no transpose; block-scaled formats still need
  // their column-wise copy (the scales run along K).
  CHECK(parameter_bytes(Precision::fp8, true, true).cache == 0);
  CHECK(parameter_bytes(Precision::fp8, false, true).cache == 1);
  CHECK(parameter_bytes(Precision::mxfp8, true, true).cache == doctest::Approx(1 + 1.0 / 32));
  SystemProfile bf16_weights = catalog_system("h100-sxm");
  bf16_weights.software.low_precision_params = false;
  const ModelConfig m = catalog_model("llama3.1-70b");
  const TrainConfig t = train({.tp = 4, .pp = 8, .vp = 5}, 1, 128, 8192, Precision::fp8);
  const auto r = resolve_layout(m, bf16_weights, 64, t);
  REQUIRE(r.has_value());
  const MemoryBreakdown cached = memory_per_gpu(m, bf16_weights, t, *r).peak();
  const MemoryBreakdown native = memory_per_gpu(m, catalog_system("h100-sxm"), t, *r).peak();
  const double linear = r->stages.first * layer_params_per_gpu(m, 4, 1).linear;
  CHECK((cached.weights + cached.fp8_weight_cache) - (native.weights + native.fp8_weight_cache) ==
        doctest::Approx(2 * linear));
}

namespace {
/// Llama 3.1 70B FP8 with Megatron FSDP on 64 GB200 GPUs, TP1 MBS2: the published recipe's layout.
struct FsdpRun {
  ModelConfig m = catalog_model("llama3.1-70b");
  SystemProfile s = testing::released_system("gb200-nvl72");
  TrainConfig t = [] {
    TrainConfig fsdp = train({.tp = 1}, 2, 128, 8192, Precision::fp8);
    fsdp.fsdp = true;
    return fsdp;
  }();
  ResolvedLayout r = resolve_layout(m, s, 64, t).value();
  [[nodiscard]] MemoryBreakdown peak() const { return memory_per_gpu(m, s, t, r).peak(); }
};
}  // namespace

TEST_CASE("FSDP shards parameters, gradients and optimizer state over the data-parallel ranks") {
  FsdpRun run;
  const ModelConfig& m = run.m;
  const MemoryBreakdown fsdp = run.peak();
  // 70.6B parameters over 64 ranks, plus two layers gathered (Megatron FSDP's double buffer).
  const double per_rank = 70.6e9 / 64;
  const double buffered = 2 * layer_params_per_gpu(m, 1, 1).dense;
  CHECK(fsdp.gradients == doctest::Approx((per_rank + buffered) * 2).epsilon(0.02));
  CHECK(fsdp.optimizer == doctest::Approx(per_rank * 12).epsilon(0.02));
  run.t.fsdp = false;
  CHECK(run.peak().weights > 20 * fsdp.weights);
}

TEST_CASE("offloaded layers leave the GPU but one layer's activations in flight") {
  FsdpRun run;
  const MemoryBreakdown all = run.peak();
  run.t.offload_layers = 40;  // the public GB200 FP8 recipe's cpu_offloading_num_layers
  const MemoryBreakdown offloaded = run.peak();
  CHECK(offloaded.activations == doctest::Approx(all.activations * 41 / 80));
  CHECK_FALSE(all.fits());
  CHECK(offloaded.fits());
  run.t.offload_layers = 80;
  CHECK(resolve_layout(run.m, run.s, 64, run.t).error().message.find("offload_layers 80 must be") == 0);
}

TEST_CASE("automatic offloading takes the fewest layers that fit, only over a host link that hides them") {
  FsdpRun run;  // on GB200 this layout needs about 330 GiB without offloading
  run.t.offload_layers = kAutoOffload;
  const ShapeKey shape{.tp = 1, .mbs = 2, .seq_len = 8192, .precision = Precision::fp8};
  const ShapeMemory per_layer = shape_memory(run.m, shape);
  const auto layers = fitting_offload(run.m, run.s, run.t, run.r, per_layer);
  REQUIRE(layers.has_value());
  TrainConfig fewer = run.t;
  fewer.offload_layers = *layers - 1;
  CHECK_FALSE(memory_per_gpu(run.m, run.s, fewer, run.r, per_layer).peak().fits());
  fewer.offload_layers = *layers;
  CHECK(memory_per_gpu(run.m, run.s, fewer, run.r, per_layer).peak().fits());
  SystemProfile pcie = run.s;
  pcie.host_link_gb_s = 64;
  CHECK_FALSE(fitting_offload(run.m, pcie, run.t, run.r, per_layer).has_value());
  run.t.offload_layers = 0;  // never
  CHECK_FALSE(fitting_offload(run.m, run.s, run.t, run.r, per_layer).has_value());
}

TEST_CASE("expert TP splits expert parameters over its own ranks, and their optimizer over the expert replicas") {
  const ModelConfig m = catalog_model("qwen3-235b-a22b");
  const LayerParams tp2 = layer_params_per_gpu(m, 2, 32);
  const LayerParams etp1 = layer_params_per_gpu(m, 2, 32, false, 1);
  CHECK(etp1.expert == doctest::Approx(2 * tp2.expert));
  CHECK(etp1.dense == doctest::Approx(tp2.dense));
}

TEST_CASE("selective recompute keeps less with more modules, torchtitan's per-op policy keeps its own set") {
  const ModelConfig ds = catalog_model("deepseek-v3");
  ShapeKey shape{.tp = 1,
                 .ep = 32,
                 .mbs = 1,
                 .seq_len = 4096,
                 .precision = Precision::mxfp8,
                 .recompute = Recompute::selective,
                 .etp = 1};
  const double core = layer_activation_bytes(ds, shape);
  shape.recompute_modules |= module_bit(RecomputeModule::mla_up_proj);
  const double up = layer_activation_bytes(ds, shape);
  shape.recompute_modules |= module_bit(RecomputeModule::moe_act);
  const double act = layer_activation_bytes(ds, shape);
  shape.recompute_modules = module_bit(RecomputeModule::mla_up_proj) | module_bit(RecomputeModule::moe);
  const double moe = layer_activation_bytes(ds, shape);
  CHECK(up < core);
  CHECK(act < up);
  CHECK(moe < act);
  // MLA q, k, v of 128 heads (192 + 192 + 128 wide, BF16) on 4096 tokens: what mla_up_proj drops.
  CHECK(core - up == doctest::Approx(4096.0 * 128 * (192 + 192 + 128) * 2));

  // Llama 3.1 8B at 2 × 8192 tokens: torchtitan keeps the layer input, wq, wv, attention output (+ LSE), w1 and w2
  // outputs in BF16 (63.5 KiB per token), in FP8 as well (torchao's float8 GEMMs are aten.mm to the policy).
  const ModelConfig llama = catalog_model("llama3.1-8b");
  const ShapeKey bf16{.tp = 1, .mbs = 2, .seq_len = 8192, .recompute = Recompute::selective};
  const double tokens = 16384;
  CHECK(layer_activation_bytes(llama, bf16, false, SelectivePolicy::every_other_matmul) ==
        doctest::Approx(tokens * (2.0 * (4096 + 4096 + 1024 + 4096 + 14336 + 4096) + 4 * 32)));
  ShapeKey fp8 = bf16;
  fp8.precision = Precision::fp8;
  CHECK(layer_activation_bytes(llama, fp8, false, SelectivePolicy::every_other_matmul) ==
        doctest::Approx(tokens * (2.0 * (4096 + 4096 + 1024 + 4096 + 14336 + 4096) + 4 * 32)));
}

TEST_CASE("FSDP2 under PP keeps the stage's parameters gathered for the step, FP32 shards beside them") {
  const ModelConfig m = catalog_model("llama3.1-405b");
  SystemProfile titan =
      apply_framework(testing::catalog_system("h100-sxm-96gb-hbm2e-500w"), find_framework("torchtitan").value());
  TrainConfig t = train({.tp = 8, .pp = 8}, 4, 256, 8192, Precision::fp8);
  t.fsdp = true;
  const auto r = resolve_layout(m, titan, 512, t);
  REQUIRE(r.has_value());
  const StageMemory fsdp2 = memory_per_gpu(m, titan, t, *r);
  titan.software.fsdp = FsdpKind::megatron;
  const StageMemory megatron = memory_per_gpu(m, titan, t, *r);
  // 405B / (tp 8 · pp 8) ≈ 6.3B parameters a GPU gathers: BF16, 12 GiB and more, beside 16 B per parameter / dp 8.
  CHECK(fsdp2.middle.weights > megatron.middle.weights + 9.0 * kBytesPerGiB);
  CHECK(fsdp2.middle.optimizer == doctest::Approx(8.0 / 12.0 * megatron.middle.optimizer).epsilon(0.01));
}
