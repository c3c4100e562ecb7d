// Internal: the allocation-free validity check behind resolve_layout(), for the explorer's inner loop.
#pragma once

#include "dgx/llm/layout.hpp"

#include <cstdint>
#include <string>

namespace dgx::llm::detail {

enum class LayoutIssue : std::uint8_t {
  none,
  non_positive,
  precision_unsupported,
  tp_exceeds_domain,
  heads_not_divisible,
  kv_groups_not_divisible,
  mixer_heads_not_divisible,
  cp_with_scan,
  ep_on_dense,
  experts_not_divisible,
  seq_not_divisible_cp,
  seq_not_divisible_tp,
  gpus_not_divisible,
  ep_not_folding,
  etp_exceeds_domain,
  ffn_not_divisible_etp,
  ep_overlap_on_dense,
  ep_overlap_needs_interleaving,
  framework_precision,
  framework_moe,
  framework_recompute_modules,
  framework_offload,
  framework_ep_overlap,
  framework_distributed_optimizer,
  pp_exceeds_layers,
  layers_not_splittable,
  vp_without_pp,
  vp_not_dividing_stage,
  offload_exceeds_layers,
  gbs_not_divisible,
  microbatches_not_divisible_pp,
};

/// The expert tensor parallelism a layout folds to at `dp` data-parallel replicas: layout.etp when ep·etp divides
/// tp·cp·dp, the widest divisor of tp that does under kAutoEtp, 0 when none does.
[[nodiscard]] int folded_etp(const Layout& layout, int dp);

/// The rules that depend only on the per-layer shape (precision, tp, cp, ep, mbs, sequence), not on the GPU
/// count, pp or vp: the explorer checks them once per shape.
[[nodiscard]] LayoutIssue check_shape(const ModelConfig& model, const SystemProfile& system, const TrainConfig& train);

/// Fills `out` and returns none, or the first rule the configuration breaks.
[[nodiscard]] LayoutIssue check_layout(const ModelConfig& model, const SystemProfile& system, int gpus,
                                       const TrainConfig& train, ResolvedLayout& out);

/// The message of a layout the framework cannot express (the framework_* issues): the framework, the key and why.
[[nodiscard]] std::string framework_limit(LayoutIssue issue, const ModelConfig& model, const SystemProfile& system,
                                          const TrainConfig& train);

/// The message of an issue, naming the values involved.
[[nodiscard]] std::string describe(LayoutIssue issue, const ModelConfig& model, const SystemProfile& system, int gpus,
                                   const TrainConfig& train);

}  // namespace dgx::llm::detail
