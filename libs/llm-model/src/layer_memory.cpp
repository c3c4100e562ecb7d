// What one decoder layer puts in memory: the tensors it saves for its backward pass and the parameters one GPU
// holds of it (memory_model.hpp).
#include "dgx/llm/memory_model.hpp"

#include "dgx/llm/flops.hpp"
#include "dgx/llm/mixer_work.hpp"
#include "dgx/llm/model_constants.hpp"

namespace dgx::llm {

namespace {

using constants::kBf16;
using constants::kFp32;

/// Saved tensors of an MLP of inner size `ffn` (dense, an expert's routed copies, shared experts) for `rows`
/// rows, per TP rank: the fc1 input (SP shard, re-gathered for wgrad) and what follows it: the fc1 output, squared
/// ReLU's intermediate relu output, the fc2 input (the activation's output).
struct MlpSaved {
  double input = 0, fc1_out = 0, relu_out = 0, fc2_input = 0;
  [[nodiscard]] double total() const { return input + fc1_out + relu_out + fc2_input; }
  [[nodiscard]] double after_input() const { return fc1_out + relu_out + fc2_input; }
};

MlpSaved mlp_saved(const ModelConfig& model, double rows, int tp, double gemm_input, double ffn_size) {
  const double h = static_cast<double>(model.hidden);
  const double ffn = ffn_size / tp;
  return MlpSaved{.input = rows * h / tp * gemm_input,
                  .fc1_out = rows * ffn * (model.mlp_matrices() - 1) * kBf16,
                  .relu_out = model.activation == Activation::squared_relu ? rows * ffn * kBf16 : 0.0,
                  .fc2_input = rows * ffn * gemm_input};
}

/// The projections' saved inputs before the attention core, per TP rank: GQA keeps the norm output; MLA keeps
/// it, the latents' norm inputs and normed latents (SP shards, re-gathered for wgrad) and the shared rotary key.
/// `norm_output`: whether the norm's output (the first term) is kept (not under layernorm recompute).
double projection_inputs(const ModelConfig& model, double t, int tp, double gemm_input, bool norm_output) {
  const double h = static_cast<double>(model.hidden);
  const double shard = t / tp;
  const double normed = norm_output ? shard * h * gemm_input : 0.0;
  if (!model.mla()) {
    return normed;
  }
  const double latents = model.q_lora_rank + model.kv_lora_rank;
  return normed + shard * (latents * (kBf16 + gemm_input) + model.qk_rope_head_dim * kBf16);
}

/// What an output gate and DSA's indexer add to attention's saved tensors, per TP rank: the gate (the query
/// projection's second half) beside the attention output; the indexer's FP8 queries and key, its FP32 head weights
/// (every rank holds the whole indexer) and the top-k indices.
double gate_and_indexer_bytes(const ModelConfig& model, double t, int tp) {
  const double gate = model.attention_output_gate ? t * static_cast<double>(model.q_width()) / tp * kBf16 : 0.0;
  if (model.sparse_topk <= 0) {
    return gate;
  }
  const double heads = model.indexer_heads;
  const double indexer = t * (heads * model.indexer_head_dim + model.indexer_head_dim) * 1.0 + t * heads * kFp32 +
                         t * model.sparse_topk * kFp32;
  return gate + indexer;
}

/// Saved tensors of the attention block and its norm, per TP rank, under Megatron's selective recompute of
/// `modules` (0: none).
double attention_activation_bytes(const ModelConfig& model, const ShapeKey& shape, double gemm_input,
                                  RecomputeModules modules) {
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
  // Recomputing the attention core drops what only it keeps: its statistics, and in FP8 its BF16 output (the
  // projection keeps its own FP8 copy). With flash attention there is no s×s matrix to drop. Recomputing MLA's up
  // projections and rotary drops their outputs, the core's q, k, v.
  const double core_only = softmax_stats + (low_precision ? core_output : 0.0);
  const double dropped = (has_module(modules, RecomputeModule::core_attn) ? core_only : 0.0) +
                         (model.mla() && has_module(modules, RecomputeModule::mla_up_proj) ? qkv : 0.0);
  const bool norm_output = !has_module(modules, RecomputeModule::layernorm);
  return projection_inputs(model, t, tp, gemm_input, norm_output) + qkv + core_output + softmax_stats + proj_input -
         dropped + gate_and_indexer_bytes(model, t, tp);
}

/// Mamba-2 (Megatron's MambaMixer), per TP rank: the in_proj input (the norm's output, unless layernorm recompute),
/// its output z·x·B·C·dt (the convolution's and the gate's input), the convolution's output (the scan's input), what
/// mamba_chunk_scan_combined keeps (its output y, dt and the cumulative decay in FP32), and out_proj's input.
double mamba_activation_bytes(const ModelConfig& model, double t, int tp, double gemm_input, bool norm_output) {
  const Mamba2Sizes& s = model.mamba;
  const double h = static_cast<double>(model.hidden);
  const double inner = static_cast<double>(s.heads) * s.head_dim / tp;
  const double bc = 2.0 * s.groups * s.state / tp;
  const double heads = static_cast<double>(s.heads) / tp;
  const double input = norm_output ? t / tp * h * gemm_input : 0.0;
  const double projected = t * (2 * inner + bc + heads) * kBf16;
  const double convolved = t * (inner + bc) * kBf16;
  const double scan = t * inner * kBf16 + 2 * t * heads * kFp32;
  return input + projected + convolved + scan + t * inner * gemm_input;
}

/// Gated DeltaNet, per TP rank: the in_proj input, its output q·k·v·z·β·a, the convolution's output, the gates β and
/// g in FP32, what chunk_gated_delta_rule keeps (the solved chunk matrices, one row of kDeltaRuleChunk per token
/// and value head, and its output) and out_proj's input.
double linear_attention_activation_bytes(const ModelConfig& model, double t, int tp, double gemm_input,
                                         bool norm_output) {
  const LinearAttentionSizes& la = model.linear_attention;
  const double h = static_cast<double>(model.hidden);
  const double key = static_cast<double>(la.key_heads) * la.key_head_dim / tp;
  const double value = static_cast<double>(la.value_heads) * la.value_head_dim / tp;
  const double heads = static_cast<double>(la.value_heads) / tp;
  const double input = norm_output ? t / tp * h * gemm_input : 0.0;
  const double projected = t * (2 * key + 2 * value + 2 * heads) * kBf16;
  const double convolved = t * (2 * key + value) * kBf16;
  const double scan = 2 * t * heads * kFp32 + t * heads * kDeltaRuleChunk * kBf16 + t * value * kBf16;
  return input + projected + convolved + scan + t * value * gemm_input;
}

/// The token mixer's saved tensors, per TP rank: attention's, Mamba-2's, Gated DeltaNet's, or none.
double mixer_activation_bytes(const ModelConfig& model, const ShapeKey& shape, double gemm_input,
                              RecomputeModules modules) {
  const double t = static_cast<double>(shape.local_tokens());
  const bool norm_output = !has_module(modules, RecomputeModule::layernorm);
  switch (model.mixer) {
  case Mixer::attention: return attention_activation_bytes(model, shape, gemm_input, modules);
  case Mixer::mamba2: return mamba_activation_bytes(model, t, shape.tp, gemm_input, norm_output);
  case Mixer::linear_attention: return linear_attention_activation_bytes(model, t, shape.tp, gemm_input, norm_output);
  case Mixer::none: break;
  }
  return 0;
}

/// torchtitan's per-op selective recompute (Software::selective_policy every_other_matmul), per TP rank: the
/// layer input, the attention kernel's output and statistics, the outputs of the TP reduce-scatters and of every
/// other aten.mm (wq, wv, w1 and the local w2), in BF16. torchao's float8 GEMMs are aten.mm on its Float8Tensor
/// subclass, which the policy sees: FP8 keeps the same.
double every_other_matmul_bytes(const ModelConfig& model, const ShapeKey& shape) {
  const double t = static_cast<double>(shape.local_tokens());
  const double tp = shape.tp;
  const double h = static_cast<double>(model.hidden);
  const double input = t / tp * h * kBf16;
  const double attention = t * static_cast<double>(model.attention_out_width()) / tp * kBf16 +
                           t * static_cast<double>(model.heads) / tp * kFp32;
  const double scattered = shape.tp > 1 ? 2 * t / tp * h * kBf16 : 0.0;  // after wo and w2
  const double wq = t * static_cast<double>(model.q_width()) / tp;
  const double wv = t * static_cast<double>(model.value_dim() * model.kv_groups) / tp;
  const double w1 = t * static_cast<double>(model.dense_mlp_ffn()) / tp;
  const double w2 = t * h;  // the local product before the reduce-scatter
  return input + attention + scattered + (wq + wv + w1 + w2) * kBf16;
}

}  // namespace

double layer_activation_bytes(const ModelConfig& model, const ShapeKey& shape, bool dense_layer,
                              SelectivePolicy policy) {
  const double t = static_cast<double>(shape.local_tokens());
  const int tp = shape.tp;
  const double h = static_cast<double>(model.hidden);
  const double gemm_input = casts_gemm_inputs(shape.precision) ? gemm_operand_bytes(shape.precision) : kBf16;

  // Full recompute keeps only the layer input (on the SP shard).
  if (shape.recompute == Recompute::full) {
    return t / tp * h * kBf16;
  }
  if (shape.recompute == Recompute::selective && policy == SelectivePolicy::every_other_matmul &&
      model.mixer == Mixer::attention && !model.mlp_free) {
    return every_other_matmul_bytes(model, shape);
  }
  const RecomputeModules modules = shape.modules();
  const bool norm_output = !has_module(modules, RecomputeModule::layernorm);
  const double halves = (model.mixer != Mixer::none ? 1.0 : 0.0) + (model.mlp_free ? 0.0 : 1.0);
  const double norms = halves * t / tp * h * kBf16;  // inputs of the norms (residual stream)
  const double attention = mixer_activation_bytes(model, shape, gemm_input, modules);
  if (model.mlp_free) {
    return norms + attention;
  }
  if (!model.moe() || dense_layer) {
    const MlpSaved mlp = mlp_saved(model, t, tp, gemm_input, static_cast<double>(model.dense_mlp_ffn()));
    const double kept =
        (norm_output ? mlp.input : 0.0) + (has_module(modules, RecomputeModule::mlp) ? 0.0 : mlp.after_input());
    return norms + attention + kept;
  }
  const double ffn = static_cast<double>(model.ffn);
  const double fc1_input_shard = norm_output ? t / tp * h * gemm_input : 0.0;  // norm_mlp output
  if (has_module(modules, RecomputeModule::moe)) {
    return norms + attention + fc1_input_shard;  // the MoE block keeps only its input
  }
  const double router = t / tp * model.experts * kFp32;
  const MlpSaved routed = mlp_saved(model, t * model.top_k, tp, gemm_input, ffn);
  const double routed_kept =
      routed.total() - (has_module(modules, RecomputeModule::moe_act) ? routed.fc2_input + routed.relu_out : 0.0);
  double shared = 0;
  if (model.shared_experts > 0) {
    const MlpSaved s = mlp_saved(model, t, tp, gemm_input, ffn * model.shared_experts);
    shared = has_module(modules, RecomputeModule::shared_experts) ? s.input : s.total();
  }
  return norms + attention + fc1_input_shard + router + routed_kept + shared;
}

LayerParams layer_params_per_gpu(const ModelConfig& model, int tp, int ep, bool dense_layer, int etp) {
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
  p.expert = per_expert * model.experts / ep / (etp > 0 ? etp : tp);
  // Shared experts are TP-sharded like a dense MLP and replicated over EP.
  p.dense = attention + per_expert * model.shared_experts / tp + router + count.norms_per_layer;
  p.linear = p.dense - count.norms_per_layer - router + p.expert;
  return p;
}

}  // namespace dgx::llm
