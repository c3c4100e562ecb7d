// What a projection assumes beyond the user's layout (model, framework release, system, price, calibration): shared by
// the LLM plugins (libs/llm-model/plugin, assumptions.hpp); these are llm-pretrain's names for it.
#pragma once

#include "dgx/llm/plugin/assumptions.hpp"
#include "settings.hpp"

namespace dgx::plugins::llm_pretrain {
using llm::plugin::Assumptions;
using llm::plugin::framework_names_of;
using llm::plugin::resolve_assumptions;
using llm::plugin::with_framework;
}  // namespace dgx::plugins::llm_pretrain
