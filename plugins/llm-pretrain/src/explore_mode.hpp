// --mode explore (the default where nothing can be measured): sweep GPU counts x precisions x every valid layout
// with the performance model, keep the fastest feasible layout per (GPU count, precision), and emit them as
// rows of table "explore" marked with the (days, cost) Pareto front and the recommendation. Notes before the
// table say what was assumed and swept; notes after give the front, the recommendation, what was dropped and
// that these are projections.
#pragma once

#include <dgx/sdk/host.hpp>

#include "assumptions.hpp"
#include "dgx/llm/explorer.hpp"
#include "settings.hpp"

namespace dgx::pretrain {

/// The space the settings describe: explore.* keys, the precisions, the sequence and token counts.
[[nodiscard]] llm::ExploreSpace explore_space(const PretrainSettings& settings);

/// Emits the rows and notes. Throws dgx::sdk::InvalidArgument when no configuration is feasible, naming why.
void run_explore(const dgx::sdk::Host& host, const PretrainSettings& settings, const Assumptions& assumptions);

}  // namespace dgx::pretrain
