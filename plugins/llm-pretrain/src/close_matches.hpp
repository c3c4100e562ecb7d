// "Did you mean ...?" for catalog names: shared with the other LLM workload plugins in libs/llm-model
// (dgx/llm/workload/close_matches.hpp); the names are the plugin's own through these declarations.
#pragma once

#include "dgx/llm/workload/close_matches.hpp"

namespace dgx::plugins::llm_pretrain {

using llm::workload::close_matches;
using llm::workload::unknown_name_message;

}  // namespace dgx::plugins::llm_pretrain
