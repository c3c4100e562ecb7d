#include "dgx/llm/finetune_memory.hpp"

#include "dgx/llm/step_model.hpp"

#include "catalog_fixtures.hpp"

#include <doctest/doctest.h>

using namespace dgx::llm;
using dgx::llm::testing::catalog_model;
using dgx::llm::testing::catalog_system;
using dgx::llm::testing::train;

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

FineTune lora_job() {
  FineTune f;
  f.method = FineTuneMethod::lora;
  f.avg_tokens_per_sample = 512;
  return f;
}

MemoryBreakdown peak(const char* model, const TrainConfig& t, int gpus, const FineTune& f) {
  const ModelConfig m = catalog_model(model);
  const SystemProfile s = catalog_system("h100-sxm");
  const auto r = resolve_layout(m, s, gpus, t);
  REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().message));
  return finetune_memory_per_gpu(m, s, t, *r, shape_memory(m, shape_key(t, *r)), f).peak();
}

}  // namespace

TEST_CASE("LoRA keeps only what the backward reads: less activation memory than SFT, the same under full recompute") {
  const ModelConfig m = catalog_model("llama3.1-70b");
  ShapeKey shape{.tp = 8, .cp = 1, .ep = 1, .mbs = 1, .seq_len = 4096};
  const double sft = finetune_activation_bytes(m, shape, FineTune{});
  CHECK(sft == doctest::Approx(layer_activation_bytes(m, shape)));
  const double adapters = finetune_activation_bytes(m, shape, lora_job());
  CHECK(adapters < 0.8 * sft);
  shape.recompute = Recompute::full;
  CHECK(finetune_activation_bytes(m, shape, lora_job()) == doctest::Approx(layer_activation_bytes(m, shape)));
}

TEST_CASE("LoRA memory: frozen BF16 base, adapters' gradients and Adam state only") {
  const TrainConfig t = train({.tp = 8}, 1, 32, 4096);
  const MemoryBreakdown sft = peak("llama3.1-70b", t, 8, FineTune{});
  const MemoryBreakdown adapters = peak("llama3.1-70b", t, 8, lora_job());
  CHECK(adapters.weights == doctest::Approx(sft.weights).epsilon(0.01));
  CHECK(adapters.gradients < 1e-3 * sft.gradients);
  CHECK(adapters.optimizer < 1e-3 * sft.optimizer);
  CHECK(adapters.fp8_weight_cache == 0);
}

TEST_CASE("LoRA in FP8 holds the frozen linear weights as FP8 with their transpose, not BF16 plus a cache") {
  const TrainConfig t = train({.tp = 8}, 1, 32, 4096, Precision::fp8);
  const MemoryBreakdown m = peak("llama3.1-70b", t, 8, lora_job());
  const MemoryBreakdown bf16 = peak("llama3.1-70b", train({.tp = 8}, 1, 32, 4096), 8, lora_job());
  CHECK(m.fp8_weight_cache > 0);
  CHECK(m.weights + m.fp8_weight_cache == doctest::Approx(bf16.weights).epsilon(0.01));
}

TEST_CASE("a 70B LoRA in BF16 fits on one 8-GPU H100 node, 70B SFT does not") {
  const TrainConfig t = train({.tp = 8}, 1, 32, 4096);
  const MemoryBreakdown adapters = peak("llama3.1-70b", t, 8, lora_job());
  CAPTURE(adapters.total() / kGiB);
  CHECK(adapters.fits());
  CHECK_FALSE(peak("llama3.1-70b", t, 8, FineTune{}).fits());
}

TEST_CASE("a frozen FP8 base holds its FP8 copy, and its transpose only where FP8 GEMMs need the TN layout") {
  // MLPerf's Llama 2 70B LoRA at TP 1 CP 8 on GB200: 64 B of linear weights in FP8, no transpose on Blackwell.
  const ModelConfig m = catalog_model("llama2-70b");
  FineTune lora_job;
  lora_job.method = FineTuneMethod::lora;
  lora_job.lora.targets = {LoraTarget::qkv, LoraTarget::proj};
  TrainConfig t = train({.tp = 1, .cp = 8}, 1, 9, 8192, Precision::fp8);
  const auto memory = [&](std::string_view system_name) {
    const SystemProfile s = testing::released_system(system_name);
    const auto r = resolve_layout(m, s, 72, t);
    REQUIRE(r.has_value());
    return finetune_memory_per_gpu(m, s, t, *r, shape_memory(m, shape_key(t, *r)), lora_job).peak();
  };
  const MemoryBreakdown gb200 = memory("gb200-nvl72");
  CHECK(gb200.fp8_weight_cache / kGiB == doctest::Approx(count_parameters(m).total / kGiB).epsilon(0.06));
  CHECK(gb200.fits());
  const MemoryBreakdown h100 = memory("h100-sxm");
  CHECK(h100.fp8_weight_cache == doctest::Approx(2 * gb200.fp8_weight_cache));
}
