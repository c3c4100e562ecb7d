// Number formatting for the notes and labels: shared by the LLM plugins (libs/llm-model/plugin, format.hpp);
// these are llm-pretrain's names for it.
#pragma once

#include "dgx/llm/workload/format.hpp"

namespace dgx::plugins::llm_pretrain {
using llm::workload::duration;
using llm::workload::fixed;
using llm::workload::gib;
using llm::workload::grouped;
using llm::workload::join;
using llm::workload::si_count;
using llm::workload::usd;
}  // namespace dgx::plugins::llm_pretrain
