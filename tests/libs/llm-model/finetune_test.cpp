#include "dgx/llm/finetune.hpp"

#include "catalog_fixtures.hpp"

#include <doctest/doctest.h>

using namespace dgx::llm;
using dgx::llm::testing::catalog_model;

namespace {

FineTune lora(std::vector<LoraTarget> targets = {LoraTarget::qkv}, int rank = 16) {
  FineTune f;
  f.method = FineTuneMethod::lora;
  f.lora.rank = rank;
  f.lora.targets = std::move(targets);
  return f;
}

}  // namespace

TEST_CASE("methods and targets print and parse by the names of the configuration keys") {
  CHECK(parse_finetune_method("lora") == FineTuneMethod::lora);
  CHECK(parse_finetune_method("sft") == FineTuneMethod::sft);
  CHECK_FALSE(parse_finetune_method("qlora").has_value());
  for (const LoraTarget t : kAllLoraTargets) {
    CHECK(parse_lora_target(to_string(t)) == t);
  }
  CHECK_FALSE(parse_lora_target("lm_head").has_value());
  CHECK(targets_label(lora({LoraTarget::qkv, LoraTarget::fc2}).lora) == "qkv, fc2");
}

TEST_CASE("NVIDIA's recipe defaults: rank 16, alpha 32, QKV only, scale 2") {
  const FineTune f = lora();
  CHECK(f.lora.rank == 16);
  CHECK(f.lora.alpha == 32);
  CHECK(f.lora.scale() == 2);
  CHECK(f.lora.wraps(LoraTarget::qkv));
  CHECK_FALSE(f.lora.wraps(LoraTarget::fc1));
}

TEST_CASE("trainable parameters: every parameter for SFT, rank x (in + out) per targeted layer for LoRA") {
  const ModelConfig m = catalog_model("llama3.1-70b");
  CHECK(trainable_parameters(m, FineTune{}) == doctest::Approx(count_parameters(m).total));
  // QKV of Llama 3.1 70B: in 8192, out 8192 + 2 x 8 x 128 = 10240; 80 layers.
  CHECK(trainable_parameters(m, lora()) == doctest::Approx(80.0 * 16 * (8192 + 10240)));
  const double all =
      trainable_parameters(m, lora({LoraTarget::qkv, LoraTarget::proj, LoraTarget::fc1, LoraTarget::fc2}));
  CHECK(all == doctest::Approx(80.0 * 16 * ((8192 + 10240) + (8192 + 8192) + (8192 + 2 * 28672) + (28672 + 8192))));
  CHECK(all / count_parameters(m).total < 0.003);
}

TEST_CASE("adapter parameters per GPU shard with TP as Megatron's parallel linear layers do") {
  const ModelConfig m = catalog_model("llama3.1-8b");
  // Column-parallel QKV: A [16/tp, 4096] and B [6144/tp, 16]; row-parallel proj: A [16, 4096/tp], B [4096, 16].
  CHECK(adapter_parameters_per_gpu(m, lora().lora, 1) == doctest::Approx(16.0 * (4096 + 6144)));
  CHECK(adapter_parameters_per_gpu(m, lora().lora, 4) == doctest::Approx(16.0 * (4096 + 6144) / 4));
  CHECK(adapter_parameters_per_gpu(m, lora({LoraTarget::proj}).lora, 4) == doctest::Approx(16.0 * (1024 + 4096)));
}

TEST_CASE("bad LoRA settings name the reason") {
  const ModelConfig m = catalog_model("llama3.1-8b");
  const auto too_high = check_finetune(m, lora({LoraTarget::qkv}, 8192), 4096);
  REQUIRE_FALSE(too_high.has_value());
  CHECK(too_high.error().message.find("LoRA rank 8192 must lie between 1 and the hidden size of llama3.1-8b (4096)") !=
        std::string::npos);
  CHECK_FALSE(check_finetune(m, lora({}), 4096).has_value());
  const auto moe = check_finetune(catalog_model("mixtral-8x7b"), lora({LoraTarget::fc1}), 4096);
  REQUIRE_FALSE(moe.has_value());
  CHECK(moe.error().message.find("has no fc1 module: its MLP is 8 experts") != std::string::npos);
  CHECK(check_finetune(catalog_model("mixtral-8x7b"), lora({LoraTarget::qkv, LoraTarget::proj}), 4096).has_value());
  FineTune long_samples;
  long_samples.avg_tokens_per_sample = 5000;
  const auto truncated = check_finetune(m, long_samples, 4096);
  REQUIRE_FALSE(truncated.has_value());
  CHECK(truncated.error().message.find("do not fit sequences of 4096 tokens") != std::string::npos);
}

TEST_CASE("packing wastes half a sample per sequence, padding the rest of the sequence") {
  FineTune f;
  f.avg_tokens_per_sample = 512;
  CHECK(sample_efficiency(f, 4096) == doctest::Approx(1 - 0.5 * 512 / 4096.0));
  CHECK(attention_span(f, 4096) == 512);
  f.packed = false;
  CHECK(sample_efficiency(f, 4096) == doctest::Approx(0.125));
  CHECK(attention_span(f, 4096) == 4096);
  CHECK(processed_tokens(1e9, f, 4096) == doctest::Approx(8e9));
  CHECK(sample_efficiency(FineTune{}, 4096) == 1);
}

TEST_CASE("model FLOPs as executed: SFT counts attention within samples, LoRA 2/3 of the GEMMs plus adapters") {
  const ModelConfig m = catalog_model("llama3.1-8b");
  FineTune whole;  // samples fill the sequence: the pretraining convention
  CHECK(finetune_flops_per_sequence(m, 4096, whole) == doctest::Approx(model_flops_per_sequence(m, 4096)));
  FineTune packed;
  packed.avg_tokens_per_sample = 256;
  const double sft = finetune_flops_per_sequence(m, 4096, packed);
  const double attention_saved = 4096.0 * 12 * 32 * 4096 * (4096 - 256);
  CHECK(sft == doctest::Approx(model_flops_per_sequence(m, 4096) - attention_saved));

  FineTune adapters = lora();
  adapters.avg_tokens_per_sample = 256;
  const double core = 4096.0 * 12 * 32 * 4096 * 256;
  const double gemms = sft - core;
  const double adapter = 4096.0 * 32 * 6 * 16 * (4096 + 6144);
  CHECK(finetune_flops_per_sequence(m, 4096, adapters) == doctest::Approx(2.0 / 3.0 * gemms + core + adapter));
  CHECK(published_finetune_flops_per_sequence(m, 4096, adapters) == doctest::Approx(2.0 / 3.0 * sft));
  CHECK(published_finetune_flops_per_sequence(m, 4096, packed) == doctest::Approx(sft));
}
