// The llm-pretrain plugin: pretraining a model on a number of tokens, as a job of the LLM workload skeleton
// (libs/llm-workload, Training), and its spec, which the generated entry point exports. What is its own: the
// settings (settings.hpp), its notes (notes.cpp), its rows (rows.cpp), and explore's comparison of framework
// releases and price providers (plugin.cpp); project and measure mode and the explore notes' structure are the
// skeleton's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <dgx/sdk/plugin.hpp>

#include "dgx/llm/explorer.hpp"
#include "dgx/llm/workload/assumptions.hpp"
#include "dgx/llm/workload/training.hpp"
#include "dgx/llm/workload/training_measure.hpp"
#include "dgx/llm/workload/training_notes.hpp"
#include "dgx/llm/workload/training_rows.hpp"
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

/// One series of an explore: a framework release's sweep priced by one provider (the assumptions name both), with
/// its own front and picks (result), and the index of its release among those compared.
struct SeriesRun {
  llm::workload::Assumptions assumptions;
  llm::ExploreResult result;
  std::size_t release = 0;
};

/// The lead release's points under every provider compared, in series order, marked with one front and one
/// recommendation over all of them; `series` is each point's series (index into the SeriesRun list).
struct LeadResult {
  llm::ExploreResult result;
  std::vector<std::size_t> series;
};

/// The lead release's points of `series` merged and recommended (lead.series says whose each point is).
[[nodiscard]] LeadResult lead_of(const std::vector<SeriesRun>& series, std::size_t release,
                                 const PretrainSettings& settings);

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
  /// framework and the provider too when they are `compared`, the other keys JSON-only), the provenance fields, the
  /// headline metrics with days_to_train and the step-time breakdown. Shown in the table: step_time,
  /// tokens_per_s_per_gpu, mfu, days_to_train and cost_usd (gpu_hours when there is no price).
  [[nodiscard]] dgx::sdk::Row projected_row(const std::string& table, const llm::TrainConfig& train,
                                            const llm::workload::Headline& headline,
                                            const llm::StepBreakdown& breakdown,
                                            llm::workload::Compared compared) const;
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
  [[nodiscard]] std::string pareto_note(const llm::ExploreResult& result,
                                        const llm::workload::DescribePoint& describe) const;
  /// The fastest point within the budget slack of the cheapest, with a deadline the cheapest meeting it, with a
  /// budget (explore.budget_usd) the fastest within it.
  [[nodiscard]] std::string recommendation_note(const llm::ExploreResult& result) const;
  [[nodiscard]] std::string recommendation_note(const llm::ExploreResult& result,
                                                const llm::workload::DescribePoint& describe) const;
  /// The headline trade-offs of a sweep (its points under one price), one line each: scaling from the smallest GPU
  /// count to the recommended and the largest one (days, cost, scaling efficiency), each precision against BF16 at
  /// the recommended count (tokens/s/GPU, cost), the batch rule this run used and what the other gives (a second,
  /// small sweep), and which peak MFU divides by. Empty with a single point.
  [[nodiscard]] std::string summary_note(const dgx::sdk::Host& host, const llm::ExploreResult& result) const;
  /// What the layout labels of `result` mean: VP chunks, how layers (and the embedding and the loss) are counted
  /// into them, EP folded into the data-parallel GPUs.
  [[nodiscard]] std::string layout_note(const llm::ExploreResult& result) const;
  /// How sure the recommendation is: its band and the points tied with it (notes.cpp).
  [[nodiscard]] std::string confidence_note(const llm::ExploreResult& result, std::size_t pick) const;
  /// The published recipe of the model on the system beside the recommendation (notes.cpp).
  [[nodiscard]] std::string recipe_note(const llm::ExploreResult& result, std::size_t pick) const;

  // Explore (plugin.cpp).

  /// The space the settings describe: explore.* keys, the precisions, the sequence and token counts.
  [[nodiscard]] llm::ExploreSpace explore_space() const;
  /// One series per framework release x price provider asked for: one sweep per release, repriced per provider.
  /// Adds the sweeps' time and layout count to `took` and `evaluated`.
  [[nodiscard]] std::vector<SeriesRun> explore_series(const dgx::sdk::Host& host, llm::workload::SweepTime& took,
                                                      std::uint64_t& evaluated) const;
  /// Sweeps the space under each framework release and provider asked for; rows of table "explore" between the
  /// notes, one front and one recommendation (the newest release's, over every provider). Throws
  /// dgx::sdk::InvalidArgument when no configuration is feasible, naming why.
  void explore(const dgx::sdk::Host& host) const override;

private:
  PretrainSettings settings_;
  llm::workload::Assumptions assumptions_;
};

/// "512 GPUs fp8, TP4 PP4 CP2 VP5 MBS1: 12.3 days, $1.23M", under `assumptions` (a release's); with
/// `name_provider`, "512 GPUs fp8, TP4 PP4 CP2 VP5 MBS1 on nebius: ...".
[[nodiscard]] std::string describe_point(const llm::ExplorePoint& point, const llm::workload::Assumptions& assumptions,
                                         bool name_provider = false);

/// Each provider's price and cost at the recommended GPU count and precision of the lead release (the same layout
/// and days: the price does not change them), cheapest first, with the difference to the recommended provider.
[[nodiscard]] std::string provider_note(const std::vector<SeriesRun>& series, const LeadResult& lead,
                                        std::size_t release);

/// What upgrading (or, across families, switching) the framework buys for the same job: at the newest release's
/// recommended GPU count and precision, each release's best layout, its days and cost, and the days and dollars
/// saved from the oldest to the newest.
[[nodiscard]] std::string upgrade_note(const std::vector<ReleaseOutcome>& releases);

using PretrainWorkload = llm::workload::Workload<Pretraining>;

/// The plugin: one workload (llm-pretrain: measure, project, explore) and the embedded presets.
[[nodiscard]] dgx::sdk::PluginSpec make_plugin_spec();

}  // namespace dgx::plugins::llm_pretrain
