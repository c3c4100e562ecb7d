// The explorer: sweep GPU counts × precisions × every valid parallel layout, drop what does not fit in memory,
// keep the fastest feasible layout per (GPU count, precision), cost it, mark the Pareto front of (days, cost)
// and recommend. Returns plain structs; the plugin turns them into result rows.
#pragma once

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/expected.hpp"
#include "dgx/llm/layout.hpp"
#include "dgx/llm/step_model.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace dgx::llm {

/// Global batch per GPU count: `fixed` keeps `value` sequences at every size (a preset's GBS); `per_gpu` scales
/// it, gbs = value × gpus (weak scaling, as in calibration section A).
struct BatchRule {
  enum class Kind : unsigned char { fixed, per_gpu } kind = Kind::fixed;
  int value = 0;
  [[nodiscard]] long long gbs_for(int gpus) const { return kind == Kind::fixed ? value : 1LL * value * gpus; }
};

/// The explorer's default ranges when ExploreSpace leaves a dimension empty: TP 1 to the NVLink domain (at most
/// an NVL72 rack), PP 1 to min(16, layers), CP 1-8, MBS 1-8.
namespace explore_limits {
inline constexpr int max_tp = 72;
inline constexpr int max_pp = 16;
inline constexpr int max_cp = 8;
inline constexpr int max_mbs = 8;
}  // namespace explore_limits

/// The space to sweep. Empty candidate lists take the defaults: TP 1..8 (1..domain on larger NVLink domains,
/// up to 72), PP 1..16, CP 1..8, VP 1..8, EP 1..experts (1 for dense), ETP 1, 2, 4, 8 (MoE), MBS 1..8. Invalid
/// combinations are skipped (resolve_layout's rules, the framework's among them). A framework without Megatron's
/// distributed optimizer (torchtitan) is swept with FSDP, and a note says so.
struct ExploreSpace {
  std::vector<int> gpu_counts;  ///< explicit list; empty: powers of two from gpus_min to gpus_max
  int gpus_min = 1;
  int gpus_max = 16384;
  std::vector<Precision> precisions{Precision::bf16};
  std::vector<int> tp, pp, cp, vp, ep, mbs;
  /// Expert tensor parallelism of MoE models (Layout::etp); empty: 1, 2, 4, 8 within the NVLink domain. Ignored
  /// for dense models.
  std::vector<int> etp;
  std::vector<Recompute> recomputes{Recompute::none, Recompute::selective, Recompute::full};
  /// What selective recompute reruns under Megatron (TrainConfig::recompute_modules).
  RecomputeModules recompute_modules = kDefaultRecomputeModules;
  /// MoE: hide the expert all-to-all where the layout allows it (pp 1 or interleaved; TrainConfig::ep_overlap),
  /// and the token dispatcher.
  bool ep_overlap = false;
  MoeDispatcher moe_dispatcher = MoeDispatcher::alltoall;
  /// The submodules captured in CUDA graphs at every point (TrainConfig::cuda_graphs).
  GraphScopes cuda_graphs = 0;
  BatchRule batch;
  int seq_len = 0;  ///< 0: the model's default
  double tokens = 1e12;
  bool distributed_optimizer = true;
  bool fsdp = false;                  ///< sweep Megatron FSDP layouts instead of the distributed optimizer
  int offload_layers = kAutoOffload;  ///< TrainConfig::offload_layers of every swept layout
  PipelineSplit pipeline_split = PipelineSplit::automatic;
  AttentionFlops flops_convention = AttentionFlops::full;
};

struct ExploreOptions {
  std::optional<Price> price;           ///< nullopt: costs are GPU-hours (said in the recommendation)
  double budget_slack = 0.05;           ///< recommend the fastest within (1 + slack) × the cheapest cost
  std::optional<double> deadline_days;  ///< also name the cheapest configuration finishing within it
  std::optional<double> budget_usd;     ///< also name the fastest configuration costing at most this (cost unit)
  /// Asked between layout shapes; true ends the sweep at once with an error ("explore: cancelled"). A big space
  /// takes seconds, and Ctrl-C must not wait for it.
  std::function<bool()> cancelled;
};

/// The best feasible layout at one (GPU count, precision).
struct ExplorePoint {
  int gpus = 0;
  TrainConfig train;
  ResolvedLayout layout;
  double step_time_s = 0;
  double tokens_per_s = 0;
  double tokens_per_s_per_gpu = 0;
  double mfu = 0;
  double memory_bytes = 0;  ///< per GPU, the fullest GPU
  double days = 0;
  double gpu_hours = 0;
  double cost = 0;  ///< USD, or GPU-hours when no price was given
  StepBreakdown breakdown;
  bool pareto = false;  ///< on the (days, cost) Pareto front
};

/// A GPU count at which no layout was kept, and why: no valid layout at all, or none that fits in memory.
struct InfeasibleCount {
  int gpus = 0;
  std::uint64_t valid_layouts = 0;  ///< layouts of every swept precision that passed the validity rules
  double leanest_bytes = 0;         ///< the smallest memory per GPU among them; 0 when there was none
};

struct ExploreResult {
  std::vector<ExplorePoint> points;                      ///< by GPU count, then precision
  std::optional<std::size_t> fastest_within_budget;      ///< index into points
  std::optional<std::size_t> cheapest_meeting_deadline;  ///< index into points
  std::optional<std::size_t> fastest_within_budget_usd;  ///< index into points: the fastest costing <= budget_usd
  std::string recommendation;                            ///< which point and why, in words
  std::string cost_unit;                                 ///< "USD" or "GPU-hours"
  std::uint64_t evaluated = 0;                           ///< configurations whose step time and memory were computed
  std::uint64_t feasible = 0;                            ///< of those, the ones that fit in memory
  std::vector<std::string> notes;                        ///< remarks, e.g. a precision the system lacks
  std::vector<InfeasibleCount> infeasible;               ///< GPU counts without any kept layout, ascending
};

[[nodiscard]] Expected<ExploreResult> explore(StepModel& model, const ExploreSpace& space,
                                              const ExploreOptions& options = {});

/// (days, cost) of a candidate; both are minimized.
struct CostPoint {
  double days = 0;
  double cost = 0;
};

/// true where no other point is at least as good in both and better in one.
[[nodiscard]] std::vector<bool> pareto_front(std::span<const CostPoint> points);
/// The fastest point whose cost is within (1 + slack) × the cheapest; ties go to the cheaper.
[[nodiscard]] std::optional<std::size_t> fastest_within_budget(std::span<const CostPoint> points, double slack);
/// The fastest point whose cost is at most `max_cost` (an absolute budget); ties go to the cheaper.
[[nodiscard]] std::optional<std::size_t> fastest_within_cost(std::span<const CostPoint> points, double max_cost);
/// The cheapest point with days ≤ deadline; ties go to the faster.
[[nodiscard]] std::optional<std::size_t> cheapest_meeting_deadline(std::span<const CostPoint> points,
                                                                   double deadline_days);

}  // namespace dgx::llm
