#include "presets.hpp"

#include <string>
#include <string_view>

#include "dgx/llm/embedded_configs.hpp"
#include "dgx/llm/workload_preset.hpp"

namespace dgx::pretrain {

std::vector<dgx::sdk::PresetSpec> embedded_presets() {
  std::vector<dgx::sdk::PresetSpec> presets;
  for (const std::string& name : llm::workload_preset_names()) {
    const auto text = llm::embedded_config("workloads/" + name + ".toml");
    const auto parsed = llm::find_workload_preset(name);
    // A preset the library cannot read is left to the host (as a file it would be the host's error too).
    if (!text || !parsed || parsed->workload != kWorkloadName) {
      continue;
    }
    presets.push_back(
        {.name = name, .workload = kWorkloadName, .summary = parsed->summary, .config_toml = std::string(*text)});
  }
  return presets;
}

}  // namespace dgx::pretrain
