// The token mixers of a training layer (attention_ops.cpp: GQA, MLA; scan_mixer_ops.cpp: Mamba-2, Gated DeltaNet): the
// ops of a block appended to the builder's forward or backward list at their per-rank shapes. Private to the model
// library.
#pragma once

#include "layer_builder.hpp"

namespace dgx::llm::detail {

/// GQA (or multi-head) attention: QKV, per-head q/k norms, rotary, the attention core, the output projection.
void attention_block(Builder& b, const ModelConfig& model, bool forward);

/// Multi-head latent attention (Megatron-core MLASelfAttention with sequence parallelism).
void mla_block(Builder& b, const ModelConfig& model, bool forward);

/// Mamba-2 (SSD): in_proj, causal convolution, chunked scan, gated norm, out_proj.
void mamba_block(Builder& b, const ModelConfig& model, bool forward);

/// Gated DeltaNet: in_proj, causal convolution, gates, chunked delta rule, gated norm, out_proj.
void linear_attention_block(Builder& b, const ModelConfig& model, bool forward);

}  // namespace dgx::llm::detail
