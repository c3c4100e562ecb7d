// The llm-pretrain plugin: pretraining a model on a number of tokens, as a job of the LLM workload skeleton
// (libs/llm-workload, Training), and its spec, which the generated entry point exports. What is its own: the
// settings (settings.hpp), its notes (notes.cpp), its rows (rows.cpp), and explore's comparison of framework
// releases (plugin.cpp); project and measure mode and the explore notes' structure are the skeleton's.
#pragma once

#include <string>
#include <vector>

#include <dgx/sdk/plugin.hpp>

#include "dgx/llm/explorer.hpp"
#include "dgx/llm/workload/assumptions.hpp"
#include "dgx/llm/workload/training.hpp"
#include "dgx/llm/workload/training_measure.hpp"
#include "dgx/llm/workload/workload.hpp"
#include "settings.hpp"

namespace dgx::plugins::llm_pretrain {

/// The name of the plugin, its workload and the presets' preset.workload.
inline constexpr const char* kWorkloadName = "llm-pretrain";

/// The sweep of one framework release, for comparing releases.
struct ReleaseOutcome {
  const llm::workload::Assumptions* assumptions = nullptr;
  const llm::ExploreResult* result = nullptr;
};

class Pretraining final : public llm::workload::Training {
public:
  /// Reads and checks the configuration and resolves its assumptions: a config error before anything runs.
  explicit Pretraining(const dgx::sdk::Host& host);
  Pretraining(PretrainSettings settings, llm::workload::Assumptions assumptions);

  [[nodiscard]] const PretrainSettings& settings() const { return settings_; }
  [[nodiscard]] const llm::workload::TrainingSettings& training() const override { return settings_; }
  [[nodiscard]] const llm::workload::Assumptions& assumptions() const override { return assumptions_; }
  void use_system(const std::string& system) override;

  // Rows (rows.cpp).

  /// A projected row of `table`: the configuration it describes (gpus and precision as table columns, the
  /// framework too when `framework_column`, the other keys JSON-only), the provenance fields, the headline metrics
  /// with days_to_train and the step-time breakdown. Shown in the table: step_time, tokens_per_s_per_gpu, mfu,
  /// days_to_train and cost_usd (gpu_hours when there is no price).
  [[nodiscard]] dgx::sdk::Row projected_row(const std::string& table, const llm::TrainConfig& train,
                                            const llm::workload::Headline& headline,
                                            const llm::StepBreakdown& breakdown, bool framework_column) const;
  /// The same without the framework column.
  [[nodiscard]] dgx::sdk::Row projected_row(const std::string& table, const llm::TrainConfig& train,
                                            const llm::workload::Headline& headline,
                                            const llm::StepBreakdown& breakdown) const override;

  // Notes (notes.cpp).

  /// Model, system (and why this one), framework release, price (and why), performance model and its calibration,
  /// with the accuracy of the run's classes (system x precision); one line each.
  [[nodiscard]] std::string assumptions_note() const override;
  /// Where the configuration lies outside the calibrated runs, one line each; empty when it lies inside.
  [[nodiscard]] std::string scope_note() const override;
  /// The model, layout, batch, recompute, optimizer, offloading and pipeline split of a projection.
  [[nodiscard]] std::string configuration_note(const llm::Projection& projection) const override;
  /// Tokens/s, model TFLOP/s and MFU, days, GPU-hours and cost.
  [[nodiscard]] std::string throughput_note(const llm::Projection& projection) const override;
  /// That these are projections of a calibrated model, and how to measure instead.
  [[nodiscard]] std::string projection_note() const override;
  [[nodiscard]] std::string measured_note(const std::string& device,
                                          const llm::kernels::LayerSpec& spec) const override;

  /// GPU counts, precisions, the layout ranges and the global batch rule.
  [[nodiscard]] std::string sweep_note() const;
  /// One line per point on the (days, cost) front, fastest first.
  [[nodiscard]] std::string pareto_note(const llm::ExploreResult& result) const;
  /// The fastest point within the budget slack of the cheapest, and with a deadline the cheapest meeting it.
  [[nodiscard]] std::string recommendation_note(const llm::ExploreResult& result) const;
  /// How sure the recommendation is: its band and the points tied with it (notes.cpp).
  [[nodiscard]] std::string confidence_note(const llm::ExploreResult& result, std::size_t pick) const;
  /// The published recipe of the model on the system beside the recommendation (notes.cpp).
  [[nodiscard]] std::string recipe_note(const llm::ExploreResult& result, std::size_t pick) const;

  // Explore (plugin.cpp).

  /// The space the settings describe: explore.* keys, the precisions, the sequence and token counts.
  [[nodiscard]] llm::ExploreSpace explore_space() const;
  /// Sweeps the space under each framework release asked for; rows of table "explore" between the notes. Throws
  /// dgx::sdk::InvalidArgument when no configuration is feasible, naming why.
  void explore(const dgx::sdk::Host& host) const override;

private:
  PretrainSettings settings_;
  llm::workload::Assumptions assumptions_;
};

/// "512 GPUs fp8, TP4 PP4 CP2 VP5 MBS1: 12.3 days, $1.23M", under `assumptions` (a release's).
[[nodiscard]] std::string describe_point(const llm::ExplorePoint& point, const llm::workload::Assumptions& assumptions);

/// What upgrading (or, across families, switching) the framework buys for the same job: at the newest release's
/// recommended GPU count and precision, each release's best layout, its days and cost, and the days and dollars
/// saved from the oldest to the newest.
[[nodiscard]] std::string upgrade_note(const std::vector<ReleaseOutcome>& releases);

using PretrainWorkload = llm::workload::Workload<Pretraining>;

/// The plugin: one workload (llm-pretrain: measure, project, explore) and the embedded presets.
[[nodiscard]] dgx::sdk::PluginSpec make_plugin_spec();

}  // namespace dgx::plugins::llm_pretrain
