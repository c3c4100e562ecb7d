// Memory per GPU: weights, gradients, optimizer state, FP8 weight caches, activations in flight, the transient
// logits of the loss, and a reserve for the framework. The GPU that holds the most decides feasibility: the
// first stage (most microbatches in flight, plus the embedding) or the last (LM head and logits).
#pragma once

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/layer_ops.hpp"
#include "dgx/llm/layout.hpp"

#include <optional>

namespace dgx::llm {

struct MemoryBreakdown {
  double weights = 0;           ///< parameters (BF16; GEMM weights in FP8 / FP4 where the framework keeps them so)
  double gradients = 0;         ///< main-grad buffer (BF16; sharded under FSDP)
  double optimizer = 0;         ///< FP32 master + Adam m, v (sharded with the distributed optimizer or FSDP)
  double fp8_weight_cache = 0;  ///< low-precision weight copies beside the parameters (transposes, column-wise)
  double activations = 0;       ///< saved for backward, all in-flight microbatches
  double transient = 0;         ///< logits + loss buffers of one microbatch (last stage)
  double reserve = 0;           ///< context, workspaces, NCCL buffers, fragmentation
  double capacity = 0;          ///< HBM bytes

  [[nodiscard]] double total() const {
    return weights + gradients + optimizer + fp8_weight_cache + activations + transient + reserve;
  }
  [[nodiscard]] bool fits() const { return total() <= capacity; }
};

/// Activation bytes one layer saves for its backward pass, one microbatch, one GPU: the model's layer, or with
/// `dense_layer` one of the leading dense layers of an MoE model. Selective recompute keeps what `policy` keeps
/// (system_profile.hpp SelectivePolicy: Megatron's recompute modules of the shape, or torchtitan's per-op policy).
[[nodiscard]] double layer_activation_bytes(const ModelConfig& model, const ShapeKey& shape, bool dense_layer = false,
                                            SelectivePolicy policy = SelectivePolicy::modules);

/// Parameters one GPU holds of one layer: dense part (replicated over cp·dp) and expert part (over edp; each
/// expert split over `etp` ranks, 0: tp).
struct LayerParams {
  double dense = 0;
  double expert = 0;
  double linear = 0;  ///< GEMM weights among them (FP8-cached in FP8 runs)
};
[[nodiscard]] LayerParams layer_params_per_gpu(const ModelConfig& model, int tp, int ep, bool dense_layer = false,
                                               int etp = 0);

/// Bytes per GEMM weight parameter: the parameter itself (BF16, or the low-precision row-wise copy when the
/// framework keeps parameters in FP8 / FP4, Megatron's fp8_param_gather) and the low-precision copies cached
/// beside it (the column-wise / transposed copy, plus the row-wise one when the parameter stays BF16).
struct ParameterBytes {
  double linear = 0;
  double cache = 0;
};
/// `any_layout_fp8`: the GPU's FP8 GEMMs take any operand layout (SystemProfile::any_layout_fp8), so per-tensor FP8
/// weights need no transposed copy.
[[nodiscard]] ParameterBytes parameter_bytes(Precision precision, bool low_precision_params,
                                             bool any_layout_fp8 = false);

/// Everything the memory of a stage needs that depends only on the per-layer shape (ShapeKey): parameters one
/// GPU holds of a layer and the activations it saves, for the model's layers and the leading dense layers of an
/// MoE model, and the model's parameter count. Computed once per shape (the explorer's inner loop reuses it).
struct ShapeMemory {
  ParameterCount count;
  LayerParams layer, dense_layer;
  double activation = 0, dense_activation = 0;
  double recomputed_layer = 0;  ///< one layer's activations rebuilt at a time (full, or torchtitan's per-op policy)
};
[[nodiscard]] ShapeMemory shape_memory(const ModelConfig& model, const ShapeKey& shape,
                                       SelectivePolicy policy = SelectivePolicy::modules);

/// The memory of the first stage, of the second (the fullest of the middle stages; equal to the last when
/// pp ≤ 2) and of the last stage; the largest decides feasibility.
struct StageMemory {
  MemoryBreakdown first;
  MemoryBreakdown middle;
  MemoryBreakdown last;
  [[nodiscard]] const MemoryBreakdown& peak() const {
    const MemoryBreakdown& edge = first.total() >= last.total() ? first : last;
    return middle.total() > edge.total() ? middle : edge;
  }
};

[[nodiscard]] StageMemory memory_per_gpu(const ModelConfig& model, const SystemProfile& system,
                                         const TrainConfig& train, const ResolvedLayout& resolved);

/// The expert data-parallel replicas of a layout (ResolvedLayout::edp, or derived from its etp and ep where a
/// hand-made layout leaves it 0).
[[nodiscard]] int expert_replicas(const ResolvedLayout& resolved);
/// The same with the shape's per-layer numbers already computed (shape_memory of the layout's shape).
[[nodiscard]] StageMemory memory_per_gpu(const ModelConfig& model, const SystemProfile& system,
                                         const TrainConfig& train, const ResolvedLayout& resolved,
                                         const ShapeMemory& per_layer);

/// Host links at least this fast (1e9 bytes/s per GPU per direction) hide activation offloading behind the compute:
/// NVLink-C2C of Grace systems (225), where NVIDIA's recipes offload; not PCIe (64-128), where auto never offloads.
inline constexpr double kAutoOffloadHostLinkGbS = 200;

/// For train.offload_layers == kAutoOffload on a system with a host link of at least kAutoOffloadHostLinkGbS: the
/// fewest layers per stage whose offloading brings the fullest stage within HBM, or nullopt when the layout fits
/// without, offloading is not automatic here, or no allowed count is enough.
[[nodiscard]] std::optional<int> fitting_offload(const ModelConfig& model, const SystemProfile& system,
                                                 const TrainConfig& train, const ResolvedLayout& resolved,
                                                 const ShapeMemory& per_layer);

}  // namespace dgx::llm
