// The ops of one transformer layer (and of the embedding / output stages) for one microbatch on one GPU, at
// their exact per-rank shapes for a layout. Megatron-core + Transformer Engine structure: pre-norm decoder layer,
// sequence parallelism with TP (norms, residuals and dropout-free elementwise ops on s/tp tokens; all-gather
// before the column-parallel GEMMs, reduce-scatter after the row-parallel ones), flash attention (causal,
// ring exchange of K/V over CP), MoE with an all-to-all token dispatcher over EP.
#pragma once

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/layout.hpp"
#include "dgx/llm/ops.hpp"

#include <cstdint>
#include <vector>

namespace dgx::llm {

/// Everything the per-layer op shapes depend on; the rest of a layout (pp, vp, dp) only composes them. (Fields
/// added after `recompute` keep positional initialisers of the first seven valid.)
struct ShapeKey {
  int tp = 1, cp = 1, ep = 1, mbs = 1, seq_len = 0;
  Precision precision = Precision::bf16;
  Recompute recompute = Recompute::none;
  int etp = 0;                                                    ///< expert tensor parallelism (Layout::etp); 0: tp
  RecomputeModules recompute_modules = kDefaultRecomputeModules;  ///< under Recompute::selective
  MoeDispatcher moe_dispatcher = MoeDispatcher::alltoall;
  GraphScopes cuda_graphs = 0;  ///< TrainConfig::cuda_graphs

  [[nodiscard]] std::int64_t local_tokens() const { return std::int64_t{mbs} * seq_len / cp; }
  [[nodiscard]] int expert_tp() const { return etp > 0 ? etp : tp; }
  /// The recompute modules in force: the set under Megatron's selective recompute, none otherwise.
  [[nodiscard]] RecomputeModules modules() const { return recompute == Recompute::selective ? recompute_modules : 0; }
};

/// The per-layer shape of a resolved configuration.
[[nodiscard]] ShapeKey shape_key(const TrainConfig& train, const ResolvedLayout& resolved);

/// Forward ops, then backward ops (recomputed forward ops first, flagged `recompute`).
struct OpList {
  std::vector<Op> forward;
  std::vector<Op> backward;
};

/// One decoder layer: norms, QKV (or MLA's latent projections), rotary, attention core, output projection,
/// residuals, MLP or MoE experts (with shared experts), FP8 casts, and the TP / CP / EP communication, forward and
/// backward. `dense_layer`: one of the leading dense layers of an MoE model.
[[nodiscard]] OpList transformer_layer_ops(const ModelConfig& model, const SystemProfile& system, const ShapeKey& shape,
                                           bool dense_layer = false);

/// One multi-token-prediction module (last stage): its input norms and 2h → h projection, a decoder layer and its
/// own LM head and loss.
[[nodiscard]] OpList mtp_ops(const ModelConfig& model, const SystemProfile& system, const ShapeKey& shape);

/// First-stage extras: token (and position) embedding lookup and its dense gradient accumulation.
[[nodiscard]] OpList embedding_ops(const ModelConfig& model, const SystemProfile& system, const ShapeKey& shape);

/// Last-stage extras: final norm, LM head GEMM (vocabulary-parallel over TP) and cross-entropy loss.
[[nodiscard]] OpList output_ops(const ModelConfig& model, const SystemProfile& system, const ShapeKey& shape);

}  // namespace dgx::llm
