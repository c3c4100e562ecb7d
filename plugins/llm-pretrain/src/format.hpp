// Number formatting for the notes and labels: shared by the LLM plugins (libs/llm-model/plugin, format.hpp);
// these are llm-pretrain's names for it.
#pragma once

#include "dgx/llm/plugin/format.hpp"

namespace dgx::plugins::llm_pretrain {
using llm::plugin::duration;
using llm::plugin::fixed;
using llm::plugin::gib;
using llm::plugin::grouped;
using llm::plugin::join;
using llm::plugin::si_count;
using llm::plugin::usd;
}  // namespace dgx::plugins::llm_pretrain
