#include "plugin.hpp"

#include <doctest/doctest.h>

#include <set>

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/workload/presets.hpp"
#include "llm_host.hpp"
#include "params.hpp"

using namespace dgx::plugins::llm_finetune;
using FinetuneHost = dgx::testing::LlmHost<FinetuneWorkload, finetune_params>;

TEST_CASE("the five fine-tuning presets are embedded with their file's text and only set schema keys") {
  const auto presets = dgx::llm::workload::embedded_presets(kWorkloadName);
  std::vector<std::string> names;
  for (const auto& p : presets) {
    names.push_back(p.name);
    CHECK(p.workload == "llm-finetune");
    CHECK(p.config_toml == *dgx::llm::embedded_config("workloads/" + p.name + ".toml"));
    FinetuneHost h;
    CHECK_NOTHROW(h.use_preset(p.name));  // a key outside the schema throws
  }
  CHECK(names ==
        std::vector<std::string>{"llama405b-lora", "llama70b-lora", "llama70b-sft", "llama8b-lora", "llama8b-sft"});
}

TEST_CASE("every preset projects its own configuration and explores") {
  for (const char* name : {"llama8b-sft", "llama70b-sft", "llama8b-lora", "llama70b-lora", "llama405b-lora"}) {
    CAPTURE(name);
    FinetuneHost project;
    project.use_preset(name);
    CHECK(project.run("project") == "");
    FinetuneHost explore;
    explore.use_preset(name);
    CHECK(explore.run("explore") == "");
  }
}

TEST_CASE("the schema states the FLOP convention of LoRA and the job's keys") {
  bool convention = false;
  for (const dgx::sdk::Param& p : finetune_params()) {
    if (p.key == key::flops_convention) {
      convention = p.help.find("LoRA 2/3 of the GEMM terms") != std::string::npos &&
                   p.help.find("no wgrad") != std::string::npos;
    }
  }
  CHECK(convention);
  std::set<std::string> keys;
  for (const dgx::sdk::Param& p : finetune_params()) {
    keys.insert(p.key);
  }
  for (const char* k : {"model",
                        "system",
                        "gpus",
                        "precision",
                        "parallel.tp",
                        "parallel.pp",
                        "train.mbs",
                        "train.gbs",
                        "train.seq_len",
                        "train.recompute",
                        "cost.provider",
                        "finetune.method",
                        "finetune.lora.rank",
                        "finetune.lora.alpha",
                        "finetune.lora.targets",
                        "finetune.packed",
                        "finetune.tokens",
                        "finetune.samples",
                        "finetune.avg_tokens_per_sample",
                        "finetune.epochs"}) {
    CHECK_MESSAGE(keys.count(k) == 1, k);
  }
}
