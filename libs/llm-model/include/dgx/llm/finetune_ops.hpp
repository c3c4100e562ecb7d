// The ops of a fine-tuning step: the pretraining op lists of layer_ops.hpp, rewritten.
//
// - Packed samples: the attention core runs per sample (batch = samples in the micro-batch, queries and keys
//   the sample's tokens), as Transformer Engine's THD attention does with NeMo's packed sequences.
// - LoRA: the frozen linear layers lose their weight-gradient GEMMs, the re-gather of their input for it (kept
//   where an adapter needs the gathered input) and the transposed FP8 copies only the weight gradient reads; the
//   frozen embedding has no backward and the LM head no weight gradient. Each targeted layer gains its adapter
//   GEMMs in BF16 at the per-rank shapes, named "<target>_lora_a" (down, x·Aᵀ) and "<target>_lora_b" (up):
//     column-parallel (qkv, fc1): A [rank/tp, in], B [out/tp, rank]; the rank-wide intermediate is all-gathered
//       over TP forward and its gradient all-reduced backward ("tp_all_reduce_<target>_lora", a few hundred kB);
//     row-parallel (proj, fc2): A [rank, in/tp] on the TP-split input, its partial products all-reduced over TP,
//       B [out, rank] on the sequence-parallel shard of the output;
//   forward: down, then up accumulated into the base output with the scale alpha/rank in the GEMM (no extra
//   kernel); backward: up's data gradient (on the TP-gathered output gradient), up's and down's weight
//   gradients, down's data gradient accumulated into the base's input gradient.
#pragma once

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/finetune.hpp"
#include "dgx/llm/layer_ops.hpp"

namespace dgx::llm {

/// Which op list of a step (layer_ops.hpp) is being rewritten.
enum class StepChunk : unsigned char { layer, embedding, output };

/// Rewrites `ops` (built by transformer_layer_ops, embedding_ops or output_ops for `shape`) for `finetune`.
void apply_finetune(OpList& ops, StepChunk chunk, const ModelConfig& model, const SystemProfile& system,
                    const ShapeKey& shape, const FineTune& finetune);

}  // namespace dgx::llm
