#include "plugin.hpp"

#include <doctest/doctest.h>

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/workload/presets.hpp"

using namespace dgx::plugins::llm_pretrain;

TEST_CASE("the eleven workload presets are embedded with their file's text, so no configs/ is needed") {
  const auto presets = dgx::llm::workload::embedded_presets(kWorkloadName);
  std::vector<std::string> names;
  for (const auto& p : presets) {
    names.push_back(p.name);
    CHECK(p.workload == "llm-pretrain");
    CHECK_MESSAGE(!p.summary.empty(), p.name);
    CHECK(p.config_toml == *dgx::llm::embedded_config("workloads/" + p.name + ".toml"));
    CHECK(p.config_toml.find("preset.workload = \"llm-pretrain\"") != std::string::npos);
  }
  CHECK(names == std::vector<std::string>{"deepseek-v3", "gpt-oss-120b", "gpt3-175b", "llama405b", "llama70b",
                                          "llama8b", "mixtral8x22b", "mixtral8x7b", "nemotron15b", "nemotron340b",
                                          "qwen3-235b"});
}
