// Internal: the parts of a step outside the pipeline's per-microbatch chunks: data-parallel gradient and
// parameter traffic (distributed optimizer, or Megatron FSDP's per-layer traffic), the optimizer step, and
// activation offloading to the host. Each is timed with its overlap against the compute it runs under.
#pragma once

#include <optional>

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/finetune.hpp"
#include "dgx/llm/layout.hpp"
#include "dgx/llm/memory_model.hpp"
#include "dgx/llm/step_model.hpp"

namespace dgx::llm::detail {

/// Cost of `comm` seconds of communication that overlaps `window` seconds of compute: what does not fit in the
/// window (at least `unhidable`) is exposed, the rest slows the compute it overlaps by `slowdown` of its time.
[[nodiscard]] double overlapped(double comm, double window, double unhidable, double slowdown);

struct DataParallelCost {
  double comm = 0;       ///< exposed data-parallel communication of the step
  double optimizer = 0;  ///< the optimizer step of the stage that finishes last (the first)
};

/// `stage` is one microbatch's forward and backward on the first stage (the one whose gradients finish last).
/// Distributed optimizer / plain DDP: gradients reduce-scattered (all-reduced) in buckets under the last
/// microbatch's backward, parameters all-gathered under the first forward. FSDP: every microbatch all-gathers
/// each layer's parameters before its forward and again before its backward and reduce-scatters its gradients,
/// layer by layer under the neighbouring layers' compute (the first gather and the last reduce-scatter exposed).
/// LoRA (`finetune`): only the adapters have gradients and optimizer state, and frozen FP8 weights are never
/// re-cast.
[[nodiscard]] DataParallelCost data_parallel(const ModelConfig& model, const SystemProfile& system,
                                             const ResolvedLayout& r, const TrainConfig& train, const ChunkCost& stage,
                                             const ShapeMemory& per_layer,
                                             const std::optional<FineTune>& finetune = std::nullopt);

/// Exposed time of the step's activation offloading: per microbatch the offloaded layers' activations go to the
/// host during the forward and come back during the backward, over the host link, under that compute.
[[nodiscard]] double offload_seconds(const SystemProfile& system, const ResolvedLayout& r, const TrainConfig& train,
                                     const ChunkCost& stage, const ShapeMemory& per_layer);

}  // namespace dgx::llm::detail
