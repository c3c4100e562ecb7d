// What a fine-tuning projection assumes beyond the user's layout: the shared lookups (libs/llm-model/plugin,
// assumptions.hpp) with the accuracy quoted on the fine-tuning calibration set first, then the pretraining one.
#pragma once

#include "dgx/llm/workload/assumptions.hpp"
#include "settings.hpp"

namespace dgx::plugins::llm_finetune {

/// Throws dgx::sdk::InvalidArgument for an unknown model, system or price provider (close matches named).
[[nodiscard]] llm::workload::Assumptions resolve_finetune_assumptions(const FinetuneSettings& settings);

}  // namespace dgx::plugins::llm_finetune
