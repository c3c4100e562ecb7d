// The llm-finetune plugin: fine-tuning a data set with SFT or LoRA, as a job of the LLM workload skeleton
// (libs/llm-workload, Training), and its spec, which the generated entry point exports. What is its own: the settings
// and the job they describe (settings.hpp, job.hpp), the method's step model and measured layer (plugin.cpp), its
// notes (notes.cpp), its rows (rows.cpp), and explore's comparison of the methods over one Pareto front (plugin.cpp);
// project and measure mode and the explore notes' structure are the skeleton's.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <dgx/sdk/plugin.hpp>

#include "dgx/llm/explorer.hpp"
#include "dgx/llm/finetune.hpp"
#include "dgx/llm/workload/assumptions.hpp"
#include "dgx/llm/workload/training.hpp"
#include "dgx/llm/workload/training_measure.hpp"
#include "dgx/llm/workload/training_notes.hpp"
#include "dgx/llm/workload/workload.hpp"
#include "job.hpp"
#include "settings.hpp"

namespace dgx::plugins::llm_finetune {

/// The name of the plugin, its workload and the presets' preset.workload.
inline constexpr const char* kWorkloadName = "llm-finetune";

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
  llm::workload::SweepTime took;             ///< time the sweeps took
};

class FineTuning final : public llm::workload::Training {
public:
  /// Reads and checks the configuration, resolves its assumptions and the job (what the model cannot take is a
  /// config error too), before anything runs. train.tokens is then what the job processes.
  explicit FineTuning(const dgx::sdk::Host& host);

  [[nodiscard]] const FinetuneSettings& settings() const { return settings_; }
  [[nodiscard]] const FinetuneJob& job() const { return job_; }
  [[nodiscard]] const llm::workload::TrainingSettings& training() const override { return settings_; }
  [[nodiscard]] const llm::workload::Assumptions& assumptions() const override { return assumptions_; }
  void use_system(const std::string& system) override;

  // The method (plugin.cpp).

  /// "LoRA r16 qkv" or "SFT": the first method, which project and measure mode run.
  [[nodiscard]] std::string method() const override;
  void configure(llm::StepModel& model) const override;
  /// The layer as the method trains it (LoRA: the frozen base and its adapters), packed samples run per sample.
  [[nodiscard]] llm::kernels::LayerSpec layer_spec(const llm::TrainConfig& train) const override;
  [[nodiscard]] llm::OpList layer_ops(const llm::ShapeKey& shape) const override;
  [[nodiscard]] double activation_bytes(const llm::ShapeKey& shape) const override;
  /// "lora layer" or "sft layer".
  [[nodiscard]] std::string layer_name() const override;
  /// The method.
  void add_case_keys(dgx::sdk::Case& c) const override;
  /// LoRA: the frozen layer without adapters, timed alone, so the adapters' cost is stated (layer.frozen_base_time,
  /// layer.adapter_overhead).
  void add_measured_metrics(const dgx::sdk::Host& host, const llm::TrainConfig& train,
                            double step_seconds) const override;
  /// After a memory error: the fewest GPUs the method fits on, or that it fits on none up to 16384.
  [[nodiscard]] std::string infeasible_hint(const std::string& reason) const override;

  // Rows (rows.cpp).

  /// A projected row of `table` for `method`: config (gpus, precision and finetune.method as table columns, the
  /// rest JSON-only), provenance (plus the fine-tuning FLOP convention), the headline with hours_to_finetune,
  /// trainable_parameters, mfu_published (DGX Cloud's LoRA convention) and the breakdown.
  [[nodiscard]] dgx::sdk::Row projected_row(const std::string& table, llm::FineTuneMethod method,
                                            const llm::TrainConfig& train, const llm::workload::Headline& headline,
                                            const llm::StepBreakdown& breakdown) const;
  /// The row of the first method.
  [[nodiscard]] dgx::sdk::Row projected_row(const std::string& table, const llm::TrainConfig& train,
                                            const llm::workload::Headline& headline,
                                            const llm::StepBreakdown& breakdown) const override;

  // Notes (notes.cpp).

  /// Model, job (data set, packing, tokens processed, steps), methods (trainable parameters), system, price and the
  /// performance model with its accuracy on the fine-tuning and pretraining calibration sets; one line each.
  [[nodiscard]] std::string assumptions_note() const override;
  [[nodiscard]] std::string configuration_note(const llm::Projection& projection) const override;
  [[nodiscard]] std::string throughput_note(const llm::Projection& projection) const override;
  /// How model FLOPs (MFU, model TFLOP/s) are counted for SFT and LoRA.
  [[nodiscard]] std::string flops_note() const override;
  [[nodiscard]] std::string projection_note() const override;
  [[nodiscard]] std::string measured_note(const std::string& device,
                                          const llm::kernels::LayerSpec& spec) const override;
  /// What LoRA and SFT trade: trainable parameters, memory, time (`comparison`: what the rows show, e.g. "on 8
  /// GPUs in bf16: LoRA 2.10 hours, $48.20; SFT 3.00 hours, $69.10"; may be empty); quality is not modelled.
  [[nodiscard]] std::string trade_note(const std::string& comparison) const;
  /// GPU counts, methods, precisions, the layout ranges and the global batch rule.
  [[nodiscard]] std::string sweep_note() const;
  /// One line per point on the (hours, cost) front over every method, fastest first.
  [[nodiscard]] std::string pareto_note(const MethodsExplored& explored) const;
  /// The fastest point within the budget slack of the cheapest, and with a deadline the cheapest meeting it.
  [[nodiscard]] std::string recommendation_note(const MethodsExplored& explored) const;
  /// The methods side by side at the recommended GPU count and precision, or where each fits first; empty with one.
  [[nodiscard]] std::string comparison_text(const MethodsExplored& explored) const;
  /// Per method: what the explorer dropped, and the methods that fit nowhere. Empty when nothing was dropped.
  /// With several providers (cost.provider): the recommended configuration's cost at each provider's price.
  [[nodiscard]] std::string provider_note(const llm::ExploreResult& result) const;
  [[nodiscard]] std::string dropped_note(const MethodsExplored& explored) const;

  // Explore (plugin.cpp).

  /// The space the settings describe: explore.* keys, the precisions, the sequence and the tokens processed.
  [[nodiscard]] llm::ExploreSpace explore_space() const;
  /// Sweeps every requested method. Throws dgx::sdk::InvalidArgument when no method fits at any explored GPU
  /// count, naming each method's reason.
  [[nodiscard]] MethodsExplored explore_methods(const dgx::sdk::Host& host) const;
  /// The methods x GPU counts x precisions x layouts, rows of table "explore" marked with one (hours, cost) Pareto
  /// front over all methods, between the notes.
  void explore(const dgx::sdk::Host& host) const override;

private:
  FinetuneSettings settings_;
  llm::workload::Assumptions assumptions_;
  FinetuneJob job_;
};

/// "LoRA r16 qkv" or "SFT": the method as the notes name it.
[[nodiscard]] std::string method_label(llm::FineTuneMethod method, const llm::LoraConfig& lora);

/// The FineTune of `method` with the settings' adapters and samples.
[[nodiscard]] llm::FineTune finetune_of(const FinetuneSettings& settings, llm::FineTuneMethod method);

using FinetuneWorkload = llm::workload::Workload<FineTuning>;

/// The plugin: one workload (llm-finetune: measure, project, explore) and the embedded presets.
[[nodiscard]] dgx::sdk::PluginSpec make_plugin_spec();

}  // namespace dgx::plugins::llm_finetune
