// The texts around the tables that every LLM training workload writes the same way: what was assumed (the
// system, the price), where the run lies outside the calibration, where the step time and the memory go; and the
// builders of the explore notes (sweep, Pareto front, recommendation) each workload words its own way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <dgx/sdk/host.hpp>

#include "dgx/llm/accuracy_band.hpp"
#include "dgx/llm/explorer.hpp"
#include "dgx/llm/memory_model.hpp"
#include "dgx/llm/step_model.hpp"
#include "dgx/llm/workload/assumptions.hpp"
#include "dgx/llm/workload/training_settings.hpp"

namespace dgx::llm::workload {

/// "Llama 3.1 70B (llama3.1-70b): 80 layers, hidden 8192, 64 heads / 8 KV groups, 70.6B parameters" (MoE models
/// add the active parameters and experts).
[[nodiscard]] std::string model_text(const ModelConfig& model);

/// "System: h100-sxm, ...; the configuration names it. A projection for that system, not for this machine's
/// GPUs: peaks, HBM, NVLink domain, scale-out per GPU. Other systems: ...".
[[nodiscard]] std::string system_line(const TrainingSettings& settings, const Assumptions& assumptions);

/// "Framework: nemo-26.02.01, NeMo 26.02.01 (released ...); the newest release profile: ... Other releases:
/// --set framework=NAME, or a list to compare them (...)."
[[nodiscard]] std::string framework_line(const TrainingSettings& settings, const Assumptions& assumptions);

/// "Price: <which and why>. Other prices: --set cost.provider=NAME (...) or --set cost.usd_per_gpu_hour=USD."
[[nodiscard]] std::string price_line(const Assumptions& assumptions);
/// The same, and with several providers (cost.provider) which ones explore compares.
[[nodiscard]] std::string price_line(const TrainingSettings& settings, const Assumptions& assumptions);

/// "12.3 s = compute 9.9 s + TP 0.12 s + ... + stragglers 0.30 s", the parts that are not zero.
[[nodiscard]] std::string breakdown_text(const StepBreakdown& breakdown);

/// "71.2 GiB of 80.0 GiB: weights 8.1, gradients 8.1, ... GiB".
[[nodiscard]] std::string memory_text(const MemoryBreakdown& memory);

/// The GPU counts an explore sweeps: the explicit list, or the powers of two between the bounds.
[[nodiscard]] std::string gpu_counts_text(const TrainingSettings& settings);

/// "TP 1-8 x PP 1-16 x CP 1-8 x VP (interleaved chunks) [x EP 1-8] x MBS 1-8 x recompute none/selective/full".
[[nodiscard]] std::string layouts_text(const ModelConfig& model, const SystemProfile& system);

/// How many layouts did not fit in memory, the GPU counts without a feasible layout and why, skipped
/// precisions. Empty when nothing was dropped.
[[nodiscard]] std::string dropped_note(const ExploreResult& result, const Assumptions& assumptions);

/// "bf16, fp8".
[[nodiscard]] std::string precision_list(const std::vector<Precision>& precisions);

/// The cost of an explored point: "$1.23M", or "12,345 GPU-hours" when there is no price.
[[nodiscard]] std::string cost_text(const ExplorePoint& point, const Assumptions& assumptions);

/// Index of the cheapest and of the fastest of `points` (not empty).
[[nodiscard]] std::size_t cheapest(const std::vector<ExplorePoint>& points);
[[nodiscard]] std::size_t fastest(const std::vector<ExplorePoint>& points);

/// The recommended column of explored point `index`: "yes" (fastest within the budget slack), "deadline"
/// (cheapest meeting the deadline), "budget" (fastest within explore.budget_usd), several joined by ", ", or "".
[[nodiscard]] std::string recommended_mark(const ExploreResult& result, std::size_t index);

/// Where the configuration lies outside the calibrated runs (system, precision, framework, model size or kind,
/// sequence length) over the run's precisions, one line each; empty when it lies inside.
[[nodiscard]] std::string scope_note(const TrainingSettings& settings, const Assumptions& assumptions);

// The explore notes, built the same way by every training workload from its own wording.

/// How a workload describes the explored point of an index ("512 GPUs fp8, TP4 PP4 CP2 VP5 MBS1: 12.3 days,
/// $1.23M").
using DescribePoint = std::function<std::string(std::size_t index)>;

/// What a sweep note says beyond the GPU counts, precisions, layouts and global batch every sweep has.
struct SweepParts {
  std::string methods;                               ///< a "Methods: ..." line; empty: none
  std::string kept_per = "GPU count and precision";  ///< what the fastest feasible layout is kept per
  std::string optimizer;                             ///< after the batch: "distributed optimizer on", ...
};

/// "GPU counts: ...\n[Methods: ...\n]Precisions: ...\nLayouts: every valid combination of ...; per <kept_per> the
/// fastest that fits in memory is kept ...\nGlobal batch: <rule> of <seq> tokens; <optimizer>."
[[nodiscard]] std::string sweep_text(const TrainingSettings& settings, const Assumptions& assumptions,
                                     const SweepParts& parts);

/// `heading`, then one line per point of `points` on the (time, cost) Pareto front, fastest first.
[[nodiscard]] std::string pareto_front_text(const std::vector<ExplorePoint>& points, const std::string& heading,
                                            const DescribePoint& describe);

/// How a workload words its recommendation.
struct RecommendationWords {
  std::string slack;               ///< the budget slack: "+5% (explore.budget_slack = 0.05)"
  std::string cheapest_is;         ///< between "... of the cheapest" and the cheapest point: "; the cheapest is "
  std::optional<double> deadline;  ///< in deadline_unit; nullopt: none given
  std::string deadline_key;        ///< "explore.deadline_days"
  std::string deadline_unit;       ///< "days"
  std::string verb;                ///< what a configuration does within a deadline: "trains"
  std::optional<double> budget;    ///< explore.budget_usd; nullopt: none given
  std::string budget_key = "explore.budget_usd";
};

/// The fastest point within the budget slack of the cheapest ("(recommended = yes)"), that cost is compared in
/// GPU-hours without a price, then on a line of its own the cheapest point meeting the deadline ("(recommended =
/// deadline)"), that none does and the fastest, or how to give a deadline; with a budget (explore.budget_usd) the
/// fastest point within it ("(recommended = budget)") or that none is, and with both whether a point meets both.
[[nodiscard]] std::string recommendation_text(const ExploreResult& result, bool priced,
                                              const RecommendationWords& words, const DescribePoint& describe);

/// The recommended point of `result`: the fastest within the budget, else the cheapest meeting the deadline.
[[nodiscard]] std::optional<std::size_t> recommended_point(const ExploreResult& result);

/// How sure the recommendation is: its band, and the other kept points whose days to train lie inside it
/// ("a tie within ±5.1%: <described points>"), or that none does.
[[nodiscard]] std::string ties_text(const ExploreResult& result, std::size_t pick, const AccuracyBand& band,
                                    const DescribePoint& describe);

/// The published recipe beside the pick (dgx/llm/recipe_lookup.hpp): the layout a published run of the same model
/// on the same system used at the nearest scale, projected at the pick's GPU count and batch, and whether the pick
/// beats it by more than the band; or why no recipe applies. `model` is the step model the sweep used.
[[nodiscard]] std::string recipe_text(StepModel& model, const ExploreResult& result, std::size_t pick,
                                      const Assumptions& assumptions, const AccuracyBand& band);

/// How long sweeps took: wall time, and the CPU time of the process, which a loaded machine does not stretch.
struct SweepTime {
  double wall = 0;
  double cpu = 0;
  SweepTime& operator+=(const SweepTime& other) {
    wall += other.wall;
    cpu += other.cpu;
    return *this;
  }
};

/// Measures a SweepTime from its construction: wall time by the host's clock, CPU time of the whole process.
class SweepClock {
public:
  explicit SweepClock(const sdk::Host& host);
  [[nodiscard]] SweepTime elapsed() const;

private:
  const sdk::Host& host_;
  double wall_start_;
  double cpu_start_;
};

/// "This sweep evaluated 1,234 layouts in 850 ms (820 ms of CPU time)."
[[nodiscard]] std::string sweep_summary(std::uint64_t layouts, const SweepTime& took);

/// Marks the (time, cost) Pareto front over `result`'s points (several sweeps merged into one) and picks its
/// recommendations again: the fastest within `budget_slack` of the cheapest, the cheapest within `deadline_days`,
/// the fastest costing at most `budget_usd`.
void recommend(ExploreResult& result, double budget_slack, std::optional<double> deadline_days,
               std::optional<double> budget_usd = std::nullopt);

}  // namespace dgx::llm::workload
