// Number formatting for the notes and labels: the SDK's text toolkit (<dgx/sdk/text.hpp>); these are
// llm-pretrain's names for it.
#pragma once

#include <dgx/sdk/text.hpp>

namespace dgx::plugins::llm_pretrain {
using dgx::sdk::text::duration;
using dgx::sdk::text::fixed;
using dgx::sdk::text::gib;
using dgx::sdk::text::grouped;
using dgx::sdk::text::join;
using dgx::sdk::text::si_count;
using dgx::sdk::text::usd;
}  // namespace dgx::plugins::llm_pretrain
