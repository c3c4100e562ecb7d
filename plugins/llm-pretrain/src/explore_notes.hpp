// The notes of explore mode: the sweep (before the table), the Pareto front, the recommendation and what was
// dropped (after it).
#pragma once

#include <string>
#include <vector>

#include "assumptions.hpp"
#include "dgx/llm/explorer.hpp"
#include "dgx/llm/workload/training_notes.hpp"
#include "settings.hpp"

namespace dgx::plugins::llm_pretrain {

/// GPU counts, precisions, the layout ranges and the global batch rule.
[[nodiscard]] std::string sweep_note(const PretrainSettings& settings, const Assumptions& assumptions);

/// One line per point on the (days, cost) front, fastest first.
[[nodiscard]] std::string pareto_note(const llm::ExploreResult& result, const Assumptions& assumptions);

/// The fastest point within the budget slack of the cheapest, and with a deadline the cheapest meeting it.
[[nodiscard]] std::string recommendation_note(const llm::ExploreResult& result, const PretrainSettings& settings,
                                              const Assumptions& assumptions);

// The explore texts every LLM training workload shares (libs/llm-model/plugin, training_notes.hpp).
using llm::workload::cheapest;
using llm::workload::cost_text;
using llm::workload::dropped_note;
using llm::workload::fastest;
using llm::workload::gpu_counts_text;
using llm::workload::precision_list;
using llm::workload::recommended_mark;

/// The sweep of one framework release, for comparing releases.
struct ReleaseOutcome {
  const Assumptions* assumptions = nullptr;
  const llm::ExploreResult* result = nullptr;
};

/// What upgrading the framework buys for the same job: at the newest release's recommended GPU count and
/// precision, each release's best layout, its days and cost, and the days and dollars saved from the oldest to the
/// newest release.
[[nodiscard]] std::string upgrade_note(const std::vector<ReleaseOutcome>& releases);

/// "512 GPUs fp8, TP4 PP4 CP2 VP5 MBS1: 12.3 days, $1.23M".
[[nodiscard]] std::string describe_point(const llm::ExplorePoint& point, const Assumptions& assumptions);

}  // namespace dgx::plugins::llm_pretrain
