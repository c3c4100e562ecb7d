#include "dgx/llm/memory_model.hpp"

#include "catalog_fixtures.hpp"

#include <doctest/doctest.h>

using namespace dgx::llm;
using dgx::llm::testing::catalog_model;
using dgx::llm::testing::catalog_system;
using dgx::llm::testing::train;

namespace {
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

MemoryBreakdown peak(std::string_view model_name, int gpus, const TrainConfig& t) {
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
  const MemoryBreakdown m = peak("llama3.1-70b", 64, t);
  CHECK_FALSE(m.fits());
  // 70.6e9 / 8 parameters × (2 weights + 2 grads + 12 optimizer) bytes.
  CHECK(m.weights + m.gradients + m.optimizer == doctest::Approx(70.6e9 / 8 * 16).epsilon(0.01));
}

TEST_CASE("70B with TP4 PP4 CP2 VP5 and the distributed optimizer fits 80 GB on 64 GPUs") {
  const MemoryBreakdown m = peak("llama3.1-70b", 64, train({.tp = 4, .pp = 4, .cp = 2, .vp = 5}, 1, 128, 8192));
  CHECK(m.fits());
  CHECK(m.total() < 80 * kGiB);
}

TEST_CASE("the distributed optimizer shards the optimizer state over the data-parallel ranks") {
  const Layout l{.tp = 8, .pp = 4};
  TrainConfig t = train(l, 1, 256, 4096);
  const MemoryBreakdown sharded = peak("llama2-70b", 256, t);
  t.distributed_optimizer = false;
  const MemoryBreakdown replicated = peak("llama2-70b", 256, t);
  CHECK(sharded.optimizer == doctest::Approx(replicated.optimizer / 8));  // dp = 256 / 32
  CHECK(sharded.weights == replicated.weights);
}

TEST_CASE("full recompute keeps only layer inputs; selective saves a little; FP8 adds weight caches") {
  TrainConfig t = train({.tp = 4, .pp = 4, .cp = 2, .vp = 5}, 1, 128, 8192);
  const MemoryBreakdown none = peak("llama3.1-70b", 64, t);
  t.recompute = Recompute::selective;
  const MemoryBreakdown selective = peak("llama3.1-70b", 64, t);
  t.recompute = Recompute::full;
  const MemoryBreakdown full = peak("llama3.1-70b", 64, t);
  CHECK(full.activations < selective.activations / 5);
  CHECK(selective.activations < none.activations);
  CHECK(full.total() < none.total());
  t.recompute = Recompute::none;
  t.precision = Precision::fp8;
  const MemoryBreakdown fp8 = peak("llama3.1-70b", 64, t);
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
