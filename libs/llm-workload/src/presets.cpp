#include "dgx/llm/workload/presets.hpp"

#include <string>

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/workload_preset.hpp"

namespace dgx::llm::workload {

std::vector<dgx::sdk::PresetSpec> embedded_presets(std::string_view workload) {
  std::vector<dgx::sdk::PresetSpec> presets;
  for (const std::string& name : workload_preset_names()) {
    const auto text = embedded_config("workloads/" + name + ".toml");
    // The header alone: a serving preset has no train.* keys. A preset the library cannot read is left to the host
    // (as a file it would be the host's error too).
    const auto parsed = find_preset_header(name);
    if (!text || !parsed || parsed->workload != workload) {
      continue;
    }
    presets.push_back({.name = name,
                       .workload = std::string(workload),
                       .summary = parsed->summary,
                       .config_toml = std::string(*text)});
  }
  return presets;
}

}  // namespace dgx::llm::workload
