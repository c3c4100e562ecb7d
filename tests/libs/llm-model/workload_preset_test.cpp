#include "dgx/llm/workload_preset.hpp"

#include "dgx/llm/step_model.hpp"

#include <doctest/doctest.h>

using namespace dgx::llm;

TEST_CASE("all eleven pretraining presets are embedded and their default layouts project on their system") {
  const std::vector<std::string> expected = {"deepseek-v3", "gpt-oss-120b", "gpt3-175b",    "llama405b",
                                             "llama70b",    "llama8b",      "mixtral8x22b", "mixtral8x7b",
                                             "nemotron15b", "nemotron340b", "qwen3-235b"};
  std::vector<std::string> pretraining;
  for (const std::string& name : workload_preset_names()) {
    const auto header = find_preset_header(name);  // the folder also holds llm-inference's *-serve presets
    REQUIRE_MESSAGE(header.has_value(), (header ? "" : header.error().message));
    if (header->workload == "llm-pretrain") {
      pretraining.push_back(name);
    }
  }
  CHECK(pretraining == expected);
  for (const std::string& name : expected) {
    CAPTURE(name);
    const auto preset = find_workload_preset(name);
    REQUIRE_MESSAGE(preset.has_value(), (preset ? "" : preset.error().message));
    CHECK(preset->workload == "llm-pretrain");
    CHECK(preset->train.tokens == 1e12);
    CHECK(preset->explore_gpus_min <= preset->gpus);
    CHECK(preset->gpus <= preset->explore_gpus_max);
    for (const Precision precision : preset->precisions) {
      TrainConfig t = preset->train;
      t.precision = precision;
      const auto p = project(
          ProjectionRequest{.model = preset->model, .system = preset->system, .gpus = preset->gpus, .train = t});
      CHECK_MESSAGE(p.has_value(), (p ? "" : p.error().message));
    }
  }
}

TEST_CASE("the llama70b preset reads as documented") {
  const auto p = find_workload_preset("llama70b");
  REQUIRE(p.has_value());
  CHECK(p->model == "llama3.1-70b");
  CHECK(p->system == "h100-sxm");
  CHECK(p->precisions == std::vector<Precision>{Precision::bf16, Precision::fp8});
  CHECK(p->gpus == 512);
  CHECK(p->train.gbs == 1024);
  CHECK(p->train.layout.vp == 5);
  CHECK(p->explore_batch.kind == BatchRule::Kind::fixed);
  CHECK(find_workload_preset("llama8b")->explore_batch.gbs_for(64) == 1024);
}

TEST_CASE("a preset may put its configuration keys at the top level instead of inside [preset]") {
  const auto p = parse_workload_preset(R"(model = "llama3.1-8b"
system = "h100-sxm"
precision = ["fp8"]
gpus = 8
train.tokens = 1e12
train.seq_len = 8192
train.mbs = 1
train.gbs = 128
train.recompute = "none"
parallel.tp = 1
parallel.pp = 1
parallel.cp = 2
parallel.vp = 1
parallel.ep = 1
explore.gpus_min = 8
explore.gpus_max = 64

[preset]
workload = "llm-pretrain"
summary = "top level"
)",
                                       "top.toml");
  REQUIRE_MESSAGE(p.has_value(), (p ? "" : p.error().message));
  CHECK(p->train.precision == Precision::fp8);
}

TEST_CASE("a malformed preset names the file and the key") {
  const auto p = parse_workload_preset("[preset]\nworkload = \"llm-pretrain\"\nsummary = \"x\"\nmodel = \"m\"\n"
                                       "system = \"s\"\nprecision = [\"fp16\"]\n",
                                       "bad.toml");
  REQUIRE_FALSE(p.has_value());
  CHECK(p.error().message == "bad.toml:6:13: key 'preset.precision' has \"fp16\", expected bf16, fp8, mxfp8 or nvfp4");
}

TEST_CASE("the five fine-tuning presets parse without train.tokens: their job is sized by finetune.*") {
  const std::vector<std::string> expected = {"llama405b-lora", "llama70b-lora", "llama70b-sft", "llama8b-lora",
                                             "llama8b-sft"};
  std::vector<std::string> finetuning;
  for (const std::string& name : workload_preset_names()) {
    const auto header = find_preset_header(name);
    REQUIRE(header.has_value());
    if (header->workload == "llm-finetune") {
      const auto preset = find_workload_preset(name);
      REQUIRE(preset.has_value());
      finetuning.push_back(name);
      CHECK(preset->train.seq_len == 4096);
      CHECK(preset->train.gbs == 32);
    }
  }
  CHECK(finetuning == expected);
}

TEST_CASE("any preset's header names its workload and summary") {
  const auto serve = find_preset_header("llama70b-serve");
  REQUIRE(serve.has_value());
  CHECK(serve->workload == "llm-inference");
  CHECK(serve->summary.find("Llama 3.1 70B serving") == 0);
  CHECK(find_preset_header("llama70b")->workload == "llm-pretrain");
  CHECK_FALSE(find_preset_header("nope").has_value());
}
