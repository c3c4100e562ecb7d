// The workload presets (llama8b, llama70b, ...) embedded in the plugin (libs/llm-model/plugin, presets.hpp).
#pragma once

#include <vector>

#include <dgx/sdk/plugin.hpp>

#include "dgx/llm/workload/presets.hpp"

namespace dgx::plugins::llm_pretrain {

/// The name of the workload the presets run.
inline constexpr const char* kWorkloadName = "llm-pretrain";

/// One preset per embedded configs/workloads/<name>.toml whose preset.workload is llm-pretrain, sorted by name.
[[nodiscard]] inline std::vector<dgx::sdk::PresetSpec> embedded_presets() {
  return llm::workload::embedded_presets(kWorkloadName);
}

}  // namespace dgx::plugins::llm_pretrain
