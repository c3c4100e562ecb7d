// Result rows of projected configurations, shared by project and explore mode so that both carry the same
// config keys, metric names and provenance fields (docs/results-schema.md). What the terminal table shows is
// chosen with the hidden flags: JSON and CSV always carry everything.
#pragma once

#include <optional>
#include <string>

#include <dgx/sdk/host.hpp>

#include "assumptions.hpp"
#include "dgx/llm/layout.hpp"
#include "dgx/llm/memory_model.hpp"
#include "dgx/llm/step_model.hpp"
#include "dgx/llm/workload/training_rows.hpp"

namespace dgx::plugins::llm_pretrain {

// The row parts every LLM training workload shares (libs/llm-model/plugin, training_rows.hpp).
using llm::workload::add_memory_metrics;
using llm::workload::Headline;
using llm::workload::headline_of;
using llm::workload::layout_label;
using llm::workload::mfu_peak_label;
using llm::workload::source_label;

/// A projected row of `table`: the configuration it describes (gpus and precision as table columns, the
/// framework too when `framework_column`, the other keys JSON-only), the provenance fields (model, system,
/// framework, calibration, accuracy of the row's class, price, mfu_peak, flops_convention, source), the headline
/// metrics and the step-time breakdown. Shown in the table: step_time, tokens_per_s_per_gpu, mfu, days_to_train
/// and cost_usd (gpu_hours when there is no price).
[[nodiscard]] dgx::sdk::Row projected_row(const std::string& table, const Assumptions& assumptions,
                                          const llm::TrainConfig& train, const Headline& headline,
                                          const llm::StepBreakdown& breakdown, bool framework_column = false);

}  // namespace dgx::plugins::llm_pretrain
