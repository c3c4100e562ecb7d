#include "presets.hpp"

#include "dgx/llm/workload/presets.hpp"

namespace dgx::plugins::llm_inference {

std::vector<dgx::sdk::PresetSpec> embedded_presets() { return llm::workload::embedded_presets(kWorkloadName); }

}  // namespace dgx::plugins::llm_inference
