// Memory per GPU of a fine-tuning step: the pretraining accounting of memory_model.hpp for SFT (every weight
// trains), rewritten for LoRA:
// - weights: the frozen base in BF16 (2 bytes per parameter); FP8 runs keep the frozen linear weights in FP8
//   with the transposed copy the data gradient reads (1 + 1 bytes, Transformer Engine's FP8 parameters: a frozen
//   weight is cast once, not every step), shown as the FP8 weight cache; embedding, norms and LM head stay BF16;
// - gradients and optimizer state: the adapters' only (BF16 gradient, FP32 master + Adam, sharded by the
//   distributed optimizer);
// - activations: what the backward still reads. A frozen linear layer's input is only needed for its weight
//   gradient, so it is not kept unless an adapter wraps the layer (the adapter's down projection needs it, in
//   BF16); the rank-wide intermediates of the adapters are kept too. Norm inputs, q/k/v, the attention output
//   and statistics, and the MLP activation's input stay (their backward needs them).
#pragma once

#include "dgx/llm/finetune.hpp"
#include "dgx/llm/layout.hpp"
#include "dgx/llm/memory_model.hpp"

namespace dgx::llm {

/// Activation bytes one layer saves for its backward pass under `finetune` (one microbatch, one GPU); equal to
/// layer_activation_bytes for SFT and under full recompute.
[[nodiscard]] double finetune_activation_bytes(const ModelConfig& model, const ShapeKey& shape,
                                               const FineTune& finetune);

/// The memory of the stages of a fine-tuning run; `per_layer` is shape_memory of the layout's shape.
[[nodiscard]] StageMemory finetune_memory_per_gpu(const ModelConfig& model, const SystemProfile& system,
                                                  const TrainConfig& train, const ResolvedLayout& resolved,
                                                  const ShapeMemory& per_layer, const FineTune& finetune);

}  // namespace dgx::llm
