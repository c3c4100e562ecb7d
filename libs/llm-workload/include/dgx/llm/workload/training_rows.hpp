// The parts of a projected result row every LLM training workload writes the same way: the layout label, the
// provenance fields (model version, system, calibration, price, the MFU peak, the FLOP convention, the source),
// the step-time breakdown and the memory breakdown (docs/results-schema.md). JSON and CSV carry them all; the
// terminal table shows none of them (hidden flags).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <dgx/sdk/host.hpp>

#include "dgx/llm/explorer.hpp"
#include "dgx/llm/layout.hpp"
#include "dgx/llm/memory_model.hpp"
#include "dgx/llm/step_model.hpp"
#include "dgx/llm/workload/assumptions.hpp"
#include "dgx/llm/workload/training_settings.hpp"

namespace dgx::llm::workload {

/// "TP4 PP4 CP2 VP5 MBS1"; MoE models add "EP8" after VP; FSDP adds "FSDP", offloading "OFF20" (layers),
/// recompute "RC-sel" or "RC-full".
[[nodiscard]] std::string layout_label(const TrainConfig& train, bool moe);

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
[[nodiscard]] Headline headline_of(const Projection& projection);
/// The headline numbers of an explored point (no cost when the assumptions have no price).
[[nodiscard]] Headline headline_of(const ExplorePoint& point, const Assumptions& assumptions);

/// How a row states the time of the whole run: pretraining in days, fine-tuning in hours.
enum class RunTime : unsigned char { days_to_train, hours_to_finetune };

/// Metrics step_time, tokens_per_s, tokens_per_s_per_gpu, model_tflops_per_gpu, mfu (%), memory_per_gpu,
/// days_to_train or hours_to_finetune, gpu_hours, cost_usd (with a price), dp, microbatches. Shown in the table:
/// step_time, tokens_per_s_per_gpu, model_tflops_per_gpu (beside MFU: it compares precisions, MFU's peak differs
/// between them), mfu, the run time and cost_usd (gpu_hours when there is no price).
void add_headline_metrics(dgx::sdk::Row& row, const Headline& headline, RunTime run_time);

/// What an explore compares beside GPU count and precision: each is then a table column and a part of the series.
struct Compared {
  bool framework = false;  ///< framework releases (config key framework)
  bool provider = false;   ///< price providers (config key cost.provider)
};

/// Config of the shared training keys (training_settings.hpp) as evaluated: gpus and precision as table columns,
/// the framework and the price provider too when they are compared, the rest JSON-only (the layout field stands for
/// them). A row can be fed back with --set.
void add_training_config(dgx::sdk::Row& row, const Assumptions& assumptions, int gpus, const TrainConfig& train,
                         Compared compared = {});

/// The series an explored row belongs to in the report's charts: its precision, and the framework and the provider
/// when the explore compares them ("fp8", "fp8 nemo-26.02.01", "fp8 nemo-26.02.01 aws"). Rows of one series share
/// a line; a chart groups by this (field "series").
[[nodiscard]] std::string series_label(Precision precision, const Assumptions& assumptions, Compared compared);

/// Fields model, system, framework, calibration, price, mfu_peak, flops_convention and source (hidden), and how
/// far off the row is expected to be: field `band` ("±5.1%", shown), metric `accuracy_band` (the same in %) and
/// field `accuracy` (the band in words, what it rests on, why it is outside calibration), from projection_band of
/// the row's configuration.
void add_provenance(dgx::sdk::Row& row, const Assumptions& assumptions, const TrainConfig& train, int gpus,
                    bool finetune = false);

/// Metrics breakdown.{compute, tp, cp, ep, pp, bubble, dp, optimizer, stragglers, offload} (s, hidden).
void add_breakdown_metrics(dgx::sdk::Row& row, const StepBreakdown& breakdown);

/// Adds memory.* metrics (bytes per GPU of the fullest GPU), JSON-only.
void add_memory_metrics(dgx::sdk::Row& row, const MemoryBreakdown& memory);

/// The peak MFU is measured against and its system profile (DevicePeak::label).
[[nodiscard]] std::string mfu_peak_label(const SystemProfile& system, Precision precision);

/// "projected: dgx-llm-model 3, system h100-sxm, framework nemo-26.02.01, op times: roofline (...)": where every
/// number comes from. With `frameworks` (releases compared), every one is named: "frameworks nemo-24.07,
/// nemo-26.02.01", so the rows of a comparison share one source line.
[[nodiscard]] std::string source_label(const SystemProfile& system, const std::vector<std::string>& frameworks = {});

/// The fields of explored point `index`'s row: layout (shown), pareto ("*" on the front), recommended and series
/// (hidden: the precision; series_label).
void add_explore_fields(dgx::sdk::Row& row, const ExploreResult& result, std::size_t index, bool moe);

/// The same fields with the marks given: a compared row carries the lead's front and recommendation, or none.
void add_explore_fields(dgx::sdk::Row& row, const ExplorePoint& point, bool moe, bool on_front,
                        const std::string& recommended, const std::string& series);

}  // namespace dgx::llm::workload
