#include "plugin.hpp"

#include <doctest/doctest.h>

#include "llm_host.hpp"
#include "params.hpp"

using namespace dgx::plugins::llm_finetune;
using FinetuneHost = dgx::testing::LlmHost<FinetuneWorkload, finetune_params>;

TEST_CASE("a 70B LoRA in BF16 fits on one 8-GPU node and projects one row with hours, cost and trainable params") {
  FinetuneHost h;
  h.use_preset("llama70b-lora");
  REQUIRE(h.run("project") == "");
  REQUIRE(h.rows.size() == 1);
  const auto& row = h.rows.front();
  CHECK(row.mode == DGX_RESULT_PROJECTED);
  CHECK(row.config.at("finetune.method") == "\"lora\"");
  CHECK(row.config.at("gpus") == "8");
  const double hours = h.metric(0, "hours_to_finetune");
  CHECK(hours > 0.5);
  CHECK(hours < 20);
  CHECK(h.metric(0, "gpu_hours") == doctest::Approx(8 * hours));
  CHECK(h.metric(0, "cost_usd") > 0);
  CHECK(h.metric(0, "trainable_parameters") == doctest::Approx(80.0 * 16 * (8192 + 10240)));
  CHECK(h.metric(0, "memory_per_gpu") < 80.0 * (1ull << 30));
  CHECK(h.metric(0, "memory.gradients") < 1e8);
  CHECK(h.metric(0, "mfu_published") < h.metric(0, "mfu"));  // SFT x 2/3 drops the adapters and 1/3 of attention
  CHECK(h.metric(0, "tokens_per_s") == doctest::Approx(4096.0 * 32 / h.metric(0, "step_time")));
  CHECK(row.fields.at("finetune_flops").find("frozen weights' forward and dgrad GEMMs") != std::string::npos);
  for (const char* title : {"Assumptions", "Configuration", "Throughput", "Step time",
                            "Memory per GPU (the fullest GPU)", "FLOPs", "Projection"}) {
    CHECK_MESSAGE(!h.note(title).empty(), title);
  }
  CHECK(h.note("Assumptions").find("Job: 154M sample tokens (100,000 samples x 512 tokens x 3 epochs)") !=
        std::string::npos);
  CHECK(h.note("Assumptions").find("configs/baselines/finetune.md and calibration-3.md's LoRA rows: mean ") !=
        std::string::npos);
}

TEST_CASE("the same job in SFT: slower, every parameter trains, and it needs more GPUs to fit") {
  FinetuneHost lora;  // the llama70b-sft preset's layout: 32 GPUs, TP4 PP4 VP5
  lora.use_preset("llama70b-sft");
  lora.set(key::method, std::vector<std::string>{"lora"});
  REQUIRE(lora.run("project") == "");
  FinetuneHost sft;
  sft.use_preset("llama70b-sft");
  REQUIRE(sft.run("project") == "");
  CHECK(sft.metric(0, "step_time") > 1.25 * lora.metric(0, "step_time"));
  CHECK(sft.metric(0, "trainable_parameters") > 7e10);

  FinetuneHost node;
  node.use_preset("llama70b-lora");
  node.set(key::method, std::vector<std::string>{"sft"});
  const std::string error = node.run("project");
  CHECK(error.find("SFT on 8 x h100-sxm") != std::string::npos);
  CHECK(error.find("needs ") != std::string::npos);
  CHECK(error.find("the fewest GPUs it fits on are 16") != std::string::npos);
}
