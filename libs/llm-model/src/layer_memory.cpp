// What one decoder layer puts in memory: the tensors it saves for its backward pass and the parameters one GPU
// holds of it (memory_model.hpp).
#include "dgx/llm/memory_model.hpp"

#include "dgx/llm/flops.hpp"

namespace dgx::llm {

namespace {

constexpr double kBf16 = 2;
constexpr double kFp32 = 4;

/// Saved tensors of an MLP of inner size `ffn` (dense, an expert's routed copies, shared experts) for `rows`
/// rows, per TP rank: fc1 input (SP shard, re-gathered for wgrad), activation input, squared ReLU's intermediate
/// relu output, fc2 input.
double mlp_activation_bytes(const ModelConfig& model, double rows, int tp, double gemm_input, double ffn_size) {
  const double h = static_cast<double>(model.hidden);
  const double ffn = ffn_size / tp;
  const double fc1_out = ffn * (model.mlp_matrices() - 1);
  const double relu_out = model.activation == Activation::squared_relu ? ffn * kBf16 : 0.0;
  return rows * (h / tp * gemm_input + fc1_out * kBf16 + relu_out + ffn * gemm_input);
}

/// The projections' saved inputs before the attention core, per TP rank: GQA keeps the norm output; MLA keeps
/// it, the latents' norm inputs and normed latents (SP shards, re-gathered for wgrad) and the shared rotary key.
double projection_inputs(const ModelConfig& model, double t, int tp, double gemm_input) {
  const double h = static_cast<double>(model.hidden);
  const double shard = t / tp;
  if (!model.mla()) {
    return shard * h * gemm_input;
  }
  const double latents = model.q_lora_rank + model.kv_lora_rank;
  return shard * (h * gemm_input + latents * (kBf16 + gemm_input) + model.qk_rope_head_dim * kBf16);
}

/// Saved tensors of the attention block and its norm, per TP rank.
double attention_activation_bytes(const ModelConfig& model, const ShapeKey& shape, double gemm_input) {
  const double t = static_cast<double>(shape.local_tokens());
  const int tp = shape.tp;
  const bool low_precision = casts_gemm_inputs(shape.precision);
  const double heads = static_cast<double>(model.heads) / tp;
  const double kv_width = static_cast<double>(model.kv_heads()) / tp * (model.head_dim() + model.value_dim());
  const double qkv = t * (heads * model.head_dim() + kv_width) * kBf16;  // q, k, v kept by flash attention
  const double out = static_cast<double>(model.attention_out_width()) / tp;
  const double core_output = t * out * kBf16;      // attention output (proj input in BF16)
  const double softmax_stats = t * heads * kFp32;  // log-sum-exp per query and head
  const double proj_input = low_precision ? t * out * gemm_input : 0.0;
  // Selective recompute drops what only the attention core keeps: its statistics, and in FP8 its BF16 output
  // (the projection keeps its own FP8 copy). With flash attention there is no s×s matrix to drop.
  const double core_only = softmax_stats + (low_precision ? core_output : 0.0);
  const double dropped = shape.recompute == Recompute::selective ? core_only : 0.0;
  return projection_inputs(model, t, tp, gemm_input) + qkv + core_output + softmax_stats + proj_input - dropped;
}

}  // namespace

double layer_activation_bytes(const ModelConfig& model, const ShapeKey& shape, bool dense_layer) {
  const double t = static_cast<double>(shape.local_tokens());
  const int tp = shape.tp;
  const double h = static_cast<double>(model.hidden);
  const double gemm_input = casts_gemm_inputs(shape.precision) ? gemm_operand_bytes(shape.precision) : kBf16;

  // Full recompute keeps only the layer input (on the SP shard).
  if (shape.recompute == Recompute::full) {
    return t / tp * h * kBf16;
  }
  const double norms = 2 * t / tp * h * kBf16;  // inputs of both norms (residual stream)
  const double attention = attention_activation_bytes(model, shape, gemm_input);
  if (!model.moe() || dense_layer) {
    return norms + attention +
           mlp_activation_bytes(model, t, tp, gemm_input, static_cast<double>(model.dense_mlp_ffn()));
  }
  const double ffn = static_cast<double>(model.ffn);
  const double fc1_input_shard = t / tp * h * gemm_input;  // norm_mlp output (routed copies counted below)
  const double router = t / tp * model.experts * kFp32;
  const double routed = mlp_activation_bytes(model, t * model.top_k, tp, gemm_input, ffn);
  const double shared =
      model.shared_experts > 0 ? mlp_activation_bytes(model, t, tp, gemm_input, ffn * model.shared_experts) : 0.0;
  return norms + attention + fc1_input_shard + router + routed + shared;
}

LayerParams layer_params_per_gpu(const ModelConfig& model, int tp, int ep, bool dense_layer) {
  const ParameterCount count = count_parameters(model);
  const double h = static_cast<double>(model.hidden);
  // MLA's down-projections (to the latents and the shared rotary key) are replicated over TP, the rest sharded.
  const double replicated = model.mla() ? h * (model.q_lora_rank + model.kv_lora_rank + model.qk_rope_head_dim) : 0.0;
  const double attention = (count.attention_per_layer - replicated) / tp + replicated;
  LayerParams p;
  if (!model.moe() || dense_layer) {
    const double mlp = model.moe() ? count.dense_mlp_per_layer : count.mlp_per_layer;
    p.dense = attention + mlp / tp + count.norms_per_layer;
    p.linear = p.dense - count.norms_per_layer;
    return p;
  }
  const double router = h * model.experts;
  const double per_expert = (count.mlp_per_layer - router) / (model.experts + model.shared_experts);
  p.expert = per_expert * model.experts / ep / tp;
  // Shared experts are TP-sharded like a dense MLP and replicated over EP.
  p.dense = attention + per_expert * model.shared_experts / tp + router + count.norms_per_layer;
  p.linear = p.dense - count.norms_per_layer - router + p.expert;
  return p;
}

}  // namespace dgx::llm
