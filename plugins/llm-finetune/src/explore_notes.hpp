// The notes of explore mode: the sweep (before the table), the Pareto front of hours against dollars over every
// method, the recommendation, the comparison of the methods and what was dropped (after it).
#pragma once

#include <string>

#include "dgx/llm/workload/assumptions.hpp"
#include "explore_mode.hpp"
#include "settings.hpp"

namespace dgx::plugins::llm_finetune {

/// GPU counts, methods, precisions, the layout ranges and the global batch rule.
[[nodiscard]] std::string sweep_note(const FinetuneSettings& settings, const llm::workload::Assumptions& assumptions);

/// "8 GPUs LoRA r16 qkv fp8, TP1 PP1 CP1 VP1 MBS1: 2.35 hours, $54.20".
[[nodiscard]] std::string describe_point(const MethodsExplored& explored, std::size_t index,
                                         const FinetuneSettings& settings,
                                         const llm::workload::Assumptions& assumptions);

/// One line per point on the (hours, cost) front, fastest first.
[[nodiscard]] std::string pareto_note(const MethodsExplored& explored, const FinetuneSettings& settings,
                                      const llm::workload::Assumptions& assumptions);

/// The fastest point within the budget slack of the cheapest, and with a deadline the cheapest meeting it.
[[nodiscard]] std::string recommendation_note(const MethodsExplored& explored, const FinetuneSettings& settings,
                                              const llm::workload::Assumptions& assumptions);

/// The methods side by side at the recommended GPU count and precision ("on 8 GPUs in fp8: LoRA 2.35 hours,
/// $54.20; SFT 3.40 hours, $78.30"), or where each fits first; empty with one method.
[[nodiscard]] std::string comparison_text(const MethodsExplored& explored,
                                          const llm::workload::Assumptions& assumptions);

/// Per method: what the explorer dropped (llm::workload::dropped_note), and the methods that fit nowhere. Empty when
/// nothing was dropped.
[[nodiscard]] std::string dropped_methods_note(const MethodsExplored& explored,
                                               const llm::workload::Assumptions& assumptions);

}  // namespace dgx::plugins::llm_finetune
