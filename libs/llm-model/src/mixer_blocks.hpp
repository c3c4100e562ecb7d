// The token mixers of a training layer, one file each (attention_ops.cpp): the ops of a block appended to the
// builder's forward or backward list at their per-rank shapes. Private to the model library.
#pragma once

#include "layer_builder.hpp"

namespace dgx::llm::detail {

/// GQA (or multi-head) attention: QKV, per-head q/k norms, rotary, the attention core, the output projection.
void attention_block(Builder& b, const ModelConfig& model, bool forward);

/// Multi-head latent attention (Megatron-core MLASelfAttention with sequence parallelism).
void mla_block(Builder& b, const ModelConfig& model, bool forward);

}  // namespace dgx::llm::detail
