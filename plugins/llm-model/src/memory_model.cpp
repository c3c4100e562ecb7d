#include "dgx/llm/memory_model.hpp"

#include "dgx/llm/flops.hpp"
#include "dgx/llm/model_constants.hpp"
#include "dgx/llm/pipeline.hpp"

#include <algorithm>

namespace dgx::llm {

namespace {

constexpr double kBf16 = 2;
constexpr double kFp32 = 4;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

/// Saved tensors of the MLP part (dense, or the routed copies of MoE) for `rows` rows, per TP rank: fc1 input
/// (SP shard, re-gathered for wgrad), activation input, squared ReLU's intermediate relu output, fc2 input.
double mlp_activation_bytes(const ModelConfig& model, double rows, int tp, double gemm_input) {
  const double h = static_cast<double>(model.hidden);
  const double ffn = static_cast<double>(model.ffn) / tp;
  const double fc1_out = ffn * (model.mlp_matrices() - 1);
  const double relu_out = model.activation == Activation::squared_relu ? ffn * kBf16 : 0.0;
  return rows * (h / tp * gemm_input + fc1_out * kBf16 + relu_out + ffn * gemm_input);
}

/// Parameters of the first or last stage's non-layer parts, per GPU.
double edge_params(const ModelConfig& model, const ParameterCount& count, int tp, int pp, bool first) {
  if (first) {
    return count.embedding / tp;
  }
  // A tied output layer is a second copy on the last stage when the stages differ.
  const double output = model.tied_embeddings ? (pp > 1 ? count.embedding : 0.0) : count.output_layer;
  return output / tp + count.final_norm;
}

/// Layers whose full parameters and gradients Megatron FSDP holds at once (fsdp_double_buffer).
constexpr double kFsdpBufferedLayers = 2;

/// Over how many ranks each state is sharded: the distributed optimizer shards the optimizer state over the
/// cp·dp ranks of a stage (experts over cp·dp/ep); FSDP shards parameters and gradients too.
struct Shards {
  double params = 1, expert_params = 1, optimizer = 1, expert_optimizer = 1;
};

Shards shards_of(const TrainConfig& train, const ResolvedLayout& r) {
  const double dense = 1.0 * r.dp * r.layout.cp;
  const double expert = dense / r.layout.ep;
  Shards s;
  if (train.fsdp) {
    s = Shards{.params = dense, .expert_params = expert, .optimizer = dense, .expert_optimizer = expert};
  } else if (train.distributed_optimizer) {
    s.optimizer = dense;
    s.expert_optimizer = expert;
  }
  return s;
}

}  // namespace

double layer_activation_bytes(const ModelConfig& model, const ShapeKey& shape) {
  const double t = static_cast<double>(shape.local_tokens());
  const int tp = shape.tp;
  const double h = static_cast<double>(model.hidden);
  const double kv = static_cast<double>(model.head_dim()) * model.kv_groups;
  const bool fp8 = casts_gemm_inputs(shape.precision);
  const double gemm_input = fp8 ? gemm_operand_bytes(shape.precision) : kBf16;

  // Full recompute keeps only the layer input (on the SP shard).
  if (shape.recompute == Recompute::full) {
    return t / tp * h * kBf16;
  }
  const double norms = 2 * t / tp * h * kBf16;                // inputs of both norms (residual stream)
  const double qkv_input = t / tp * h * gemm_input;           // norm output, SP shard
  const double qkv = t * (h + 2 * kv) / tp * kBf16;           // q, k, v kept by flash attention
  const double core_output = t * h / tp * kBf16;              // attention output (proj input in BF16)
  const double softmax_stats = t * model.heads / tp * kFp32;  // log-sum-exp per query and head
  const double proj_input_fp8 = fp8 ? t * h / tp * gemm_input : 0.0;
  const double fc1_input_shard = t / tp * h * gemm_input;  // norm_mlp output (routed copies counted below)
  double mlp = 0;
  if (model.moe()) {
    const double copies = t * model.top_k;
    mlp = fc1_input_shard + t / tp * model.experts * kFp32 + mlp_activation_bytes(model, copies, tp, gemm_input);
  } else {
    mlp = mlp_activation_bytes(model, t, tp, gemm_input);
  }
  // Selective recompute drops what only the attention core keeps: its statistics, and in FP8 its BF16
  // output (the projection keeps its own FP8 copy). With flash attention there is no s×s matrix to drop.
  const double core_only = softmax_stats + (fp8 ? core_output : 0.0);
  const double dropped = shape.recompute == Recompute::selective ? core_only : 0.0;
  return norms + qkv_input + qkv + core_output + softmax_stats + proj_input_fp8 + mlp - dropped;
}

LayerParams layer_params_per_gpu(const ModelConfig& model, int tp, int ep) {
  const ParameterCount count = count_parameters(model);
  const double router = model.moe() ? static_cast<double>(model.hidden) * model.experts : 0.0;
  LayerParams p;
  if (model.moe()) {
    const double per_expert = (count.mlp_per_layer - router) / model.experts;
    p.expert = per_expert * model.experts / ep / tp;
    p.dense = count.attention_per_layer / tp + router + count.norms_per_layer;
  } else {
    p.dense = (count.attention_per_layer + count.mlp_per_layer) / tp + count.norms_per_layer;
  }
  p.linear = p.dense - count.norms_per_layer - router + p.expert;
  return p;
}

StageMemory memory_per_gpu(const ModelConfig& model, const SystemProfile& system, const TrainConfig& train,
                           const ResolvedLayout& resolved) {
  const Layout& l = resolved.layout;
  const ShapeKey shape{.tp = l.tp,
                       .cp = l.cp,
                       .ep = l.ep,
                       .mbs = train.mbs,
                       .seq_len = resolved.seq_len,
                       .precision = train.precision,
                       .recompute = train.recompute};
  const ParameterCount count = count_parameters(model);
  const LayerParams layer = layer_params_per_gpu(model, l.tp, l.ep);
  const double activation = layer_activation_bytes(model, shape);
  const ParameterBytes bytes = parameter_bytes(train.precision, system.software.low_precision_params);
  const Shards shards = shards_of(train, resolved);
  const double tokens = static_cast<double>(shape.local_tokens());

  // `first` / `last`: the stage holds the embedding / the output layer.
  const auto stage = [&](int layers, int index, bool first, bool last) {
    MemoryBreakdown m;
    const double edge = (first ? edge_params(model, count, l.tp, l.pp, true) : 0.0) +
                        (last ? edge_params(model, count, l.tp, l.pp, false) : 0.0);
    const double dense = layers * layer.dense + edge;
    const double expert = layers * layer.expert;
    const double linear = layers * layer.linear;
    // FSDP keeps a shard of everything plus the gathered parameters and unreduced gradients of the layers in
    // flight (the one computing and the one prefetched: Megatron FSDP's double buffer).
    const double held = dense / shards.params + expert / shards.expert_params;
    const double held_linear = linear * held / std::max(1.0, dense + expert);
    const double buffers = shards.params > 1 ? kFsdpBufferedLayers * (layer.dense + layer.expert) : 0.0;
    const double buffer_linear = shards.params > 1 ? kFsdpBufferedLayers * layer.linear : 0.0;
    m.weights = (held - held_linear + buffers - buffer_linear) * kBf16 + (held_linear + buffer_linear) * bytes.linear;
    m.gradients = (held + buffers) * constants::kGradBytes;
    m.optimizer = constants::kOptimizerBytes * (dense / shards.optimizer + expert / shards.expert_optimizer);
    m.fp8_weight_cache = (held_linear + buffer_linear) * bytes.cache;
    const int kept_layers = layers - train.offload_layers + (train.offload_layers > 0 ? 1 : 0);
    m.activations = kept_layers * activation * inflight_microbatches(l.pp, l.vp, resolved.microbatches, index);
    // Full recompute rebuilds one layer's activations at a time during the backward.
    if (train.recompute == Recompute::full) {
      ShapeKey kept = shape;
      kept.recompute = Recompute::none;
      m.transient = layer_activation_bytes(model, kept);
    }
    if (last) {
      // BF16 logits of one microbatch, vocabulary-parallel, and the FP32 softmax beside them unless the loss
      // writes its gradient in place.
      const double per_logit = system.software.in_place_cross_entropy ? kBf16 : kBf16 + kFp32;
      m.transient += tokens * static_cast<double>(model.vocab) / l.tp * per_logit;
    }
    m.capacity = system.hbm_bytes();
    m.reserve = constants::kReserveGiB * kGiB + constants::kFragmentation * m.capacity;
    return m;
  };
  const StageLayers& s = resolved.stages;
  StageMemory out;
  out.first = stage(s.first, 0, true, l.pp == 1);
  out.last = l.pp == 1 ? out.first : stage(s.last, l.pp - 1, false, true);
  out.middle = l.pp > 2 ? stage(s.middle, 1, false, false) : out.last;
  return out;
}

ParameterBytes parameter_bytes(Precision precision, bool low_precision_params) {
  if (!casts_gemm_inputs(precision)) {
    return ParameterBytes{.linear = kBf16, .cache = 0};
  }
  // Each low-precision GEMM weight exists twice: row-wise for the forward and column-wise (the transpose, with
  // its own block scales) for dgrad.
  const double copy = gemm_operand_bytes(precision);
  return low_precision_params ? ParameterBytes{.linear = copy, .cache = copy}
                              : ParameterBytes{.linear = kBf16, .cache = 2 * copy};
}

}  // namespace dgx::llm
