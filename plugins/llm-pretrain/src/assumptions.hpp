// What a projection assumes beyond the user's layout (model, framework release, system, price, calibration): shared by
// the LLM plugins (libs/llm-model/plugin, assumptions.hpp); these are llm-pretrain's names for it.
#pragma once

#include "dgx/llm/workload/assumptions.hpp"
#include "settings.hpp"

namespace dgx::plugins::llm_pretrain {
using llm::workload::Assumptions;
using llm::workload::framework_names_of;
using llm::workload::resolve_assumptions;
using llm::workload::with_framework;
}  // namespace dgx::plugins::llm_pretrain
