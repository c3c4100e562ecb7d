// Number formatting for notes and labels: shared with the other LLM workload plugins in libs/llm-model
// (dgx/llm/workload/format.hpp); the names are the plugin's own through these declarations.
#pragma once

#include "dgx/llm/workload/format.hpp"

namespace dgx::plugins::llm_pretrain {

using llm::workload::duration;
using llm::workload::fixed;
using llm::workload::gib;
using llm::workload::grouped;
using llm::workload::si_count;
using llm::workload::usd;

}  // namespace dgx::plugins::llm_pretrain
