// The workload presets a plugin embeds, so that an installed plugin works with no configs/ on disk: the texts of
// configs/workloads/*.toml (compiled into dgx_llm_model) whose preset.workload names the plugin's workload. A file
// of the same name in a config directory overrides the embedded copy (the host's rule).
#pragma once

#include <string_view>
#include <vector>

#include <dgx/sdk/plugin.hpp>

namespace dgx::llm::workload {

/// One preset per embedded preset file of `workload`, sorted by name. A file the library cannot read is left to the
/// host (as a file it would be the host's error too).
[[nodiscard]] std::vector<dgx::sdk::PresetSpec> embedded_presets(std::string_view workload);

}  // namespace dgx::llm::workload
