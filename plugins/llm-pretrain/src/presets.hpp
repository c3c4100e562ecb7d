// The workload presets (llama8b, llama70b, ...) embedded in the plugin, so that an installed plugin works with
// no configs/ on disk. They are the texts of configs/workloads/*.toml, compiled into dgx_llm_model; a file of
// the same name in a config directory overrides the embedded copy (the host's rule).
#pragma once

#include <vector>

#include <dgx/sdk/plugin.hpp>

namespace dgx::pretrain {

/// The name of the workload the presets run.
inline constexpr const char* kWorkloadName = "llm-pretrain";

/// One preset per embedded configs/workloads/<name>.toml whose preset.workload is llm-pretrain, sorted by name.
[[nodiscard]] std::vector<dgx::sdk::PresetSpec> embedded_presets();

}  // namespace dgx::pretrain
