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

namespace dgx::plugins::llm_pretrain {

/// "TP4 PP4 CP2 VP5 MBS1"; MoE models add "EP8" after VP; FSDP adds "FSDP", offloading "OFF20" (layers),
/// recompute "RC-sel" or "RC-full".
[[nodiscard]] std::string layout_label(const llm::TrainConfig& train, bool moe);

/// The headline numbers of one projected configuration.
struct Headline {
  int gpus = 0;
  double step_time_s = 0;
  double tokens_per_s = 0;
  double tokens_per_s_per_gpu = 0;
  double model_tflops_per_gpu = 0;
  double mfu = 0;  ///< fraction of the dense peak of the row's precision
  double memory_bytes = 0;
  double days = 0;
  double gpu_hours = 0;
  std::optional<double> cost_usd;
  int dp = 0;
  int microbatches = 0;
};

/// The headline numbers of a projection.
[[nodiscard]] Headline headline_of(const llm::Projection& projection);

/// A projected row of `table`: the configuration it describes (gpus and precision as table columns, the
/// framework too when `framework_column`, the other keys JSON-only), the provenance fields (model, system,
/// framework, calibration, accuracy of the row's class, price, mfu_peak, flops_convention, source), the headline
/// metrics and the step-time breakdown. Shown in the table: step_time, tokens_per_s_per_gpu, mfu, days_to_train
/// and cost_usd (gpu_hours when there is no price).
[[nodiscard]] dgx::sdk::Row projected_row(const std::string& table, const Assumptions& assumptions,
                                          const llm::TrainConfig& train, const Headline& headline,
                                          const llm::StepBreakdown& breakdown, bool framework_column = false);

/// Adds memory.* metrics (bytes per GPU of the fullest GPU), JSON-only.
void add_memory_metrics(dgx::sdk::Row& row, const llm::MemoryBreakdown& memory);

/// The peak MFU is measured against and its system profile (llm::DevicePeak::label).
[[nodiscard]] std::string mfu_peak_label(const llm::SystemProfile& system, llm::Precision precision);

/// "projected: dgx-llm-model 2, system h100-sxm, framework nemo-26.02.01, op times: roofline (...)": where every
/// number comes from.
[[nodiscard]] std::string source_label(const llm::SystemProfile& system);

}  // namespace dgx::plugins::llm_pretrain
