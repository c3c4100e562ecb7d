#include "presets.hpp"

#include "dgx/llm/plugin/presets.hpp"

namespace dgx::plugins::llm_inference {

std::vector<dgx::sdk::PresetSpec> embedded_presets() { return llm::plugin::embedded_presets(kWorkloadName); }

}  // namespace dgx::plugins::llm_inference
