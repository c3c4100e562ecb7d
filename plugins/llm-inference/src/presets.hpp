// The workload presets (llama8b-serve, llama70b-serve, llama405b-serve, mixtral8x7b-serve) embedded in the plugin,
// so that an installed plugin works with no configs/ on disk. They are the texts of configs/workloads/*.toml whose
// preset.workload is llm-inference, compiled into dgx_llm_model; a file of the same name in a config directory
// overrides the embedded copy (the host's rule).
#pragma once

#include <vector>

#include <dgx/sdk/plugin.hpp>

namespace dgx::plugins::llm_inference {

/// The name of the workload the presets run.
inline constexpr const char* kWorkloadName = "llm-inference";

/// One preset per embedded configs/workloads/<name>.toml whose preset.workload is llm-inference, sorted by name.
[[nodiscard]] std::vector<dgx::sdk::PresetSpec> embedded_presets();

}  // namespace dgx::plugins::llm_inference
