// The workload presets (llama8b-sft, llama70b-lora, ...) embedded in the plugin (libs/llm-model/plugin,
// presets.hpp): the texts of configs/workloads/*.toml whose preset.workload is llm-finetune.
#pragma once

#include <vector>

#include <dgx/sdk/plugin.hpp>

#include "dgx/llm/workload/presets.hpp"

namespace dgx::plugins::llm_finetune {

/// The name of the workload the presets run.
inline constexpr const char* kWorkloadName = "llm-finetune";

/// One preset per embedded configs/workloads/<name>.toml whose preset.workload is llm-finetune, sorted by name.
[[nodiscard]] inline std::vector<dgx::sdk::PresetSpec> embedded_presets() {
  return llm::workload::embedded_presets(kWorkloadName);
}

}  // namespace dgx::plugins::llm_finetune
