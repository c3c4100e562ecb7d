// --mode explore (the default where nothing can be measured): sweep the methods (SFT, LoRA) x GPU counts x
// precisions x every valid layout with the performance model, keep the fastest feasible layout per (method, GPU
// count, precision), and emit them as rows of table "explore" marked with the (hours, cost) Pareto front over all
// methods and the recommendation. Notes before the table say what was assumed and swept; notes after give the
// front, the recommendation, the trade between the methods, the FLOP convention, what was dropped and that these
// are projections.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <dgx/sdk/host.hpp>

#include "dgx/llm/explorer.hpp"
#include "dgx/llm/workload/assumptions.hpp"
#include "job.hpp"
#include "settings.hpp"

namespace dgx::plugins::llm_finetune {

/// The explorer's answer for one method: its points, or why nothing fits.
struct MethodSweep {
  llm::FineTuneMethod method = llm::FineTuneMethod::sft;
  std::optional<llm::ExploreResult> result;
  std::string failure;  ///< when !result: the explorer's reason
};

/// Every method's points in one result: by GPU count, then method, then precision, with the Pareto front, the
/// budget recommendation and the deadline pick computed over all of them.
struct MethodsExplored {
  std::vector<MethodSweep> sweeps;
  llm::ExploreResult merged;
  std::vector<llm::FineTuneMethod> methods;  ///< the method of each merged point
  double seconds = 0;                        ///< time the sweeps took
};

/// The space the settings describe: explore.* keys, the precisions, the sequence and the tokens processed.
[[nodiscard]] llm::ExploreSpace explore_space(const FinetuneSettings& settings, const FinetuneJob& job);

/// Sweeps every requested method. Throws dgx::sdk::InvalidArgument when no method fits at any explored GPU count,
/// naming each method's reason.
[[nodiscard]] MethodsExplored explore_methods(const dgx::sdk::Host& host, const FinetuneSettings& settings,
                                              const llm::workload::Assumptions& assumptions, const FinetuneJob& job);

/// Emits the rows and notes.
void run_explore(const dgx::sdk::Host& host, const FinetuneSettings& settings,
                 const llm::workload::Assumptions& assumptions, const FinetuneJob& job);

}  // namespace dgx::plugins::llm_finetune
