// The workload presets (llama8b, llama70b-lora, llama70b-serve, ...) embedded in the plugins, so that an installed
// plugin works with no configs/ on disk. They are the texts of configs/workloads/*.toml, compiled into dgx_llm_model; a
// file of the same name in a config directory overrides the embedded copy (the host's rule).
#pragma once

#include <string_view>
#include <vector>

#include <dgx/sdk/plugin.hpp>

namespace dgx::llm::workload {

/// One preset per embedded configs/workloads/<name>.toml whose preset.workload is `workload`, sorted by name.
[[nodiscard]] std::vector<dgx::sdk::PresetSpec> embedded_presets(std::string_view workload);

}  // namespace dgx::llm::workload
