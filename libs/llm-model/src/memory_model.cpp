#include "dgx/llm/memory_model.hpp"

#include "dgx/llm/flops.hpp"
#include "dgx/llm/model_constants.hpp"
#include "dgx/llm/pipeline.hpp"

#include <algorithm>

namespace dgx::llm {

namespace {

using constants::kBf16;
using constants::kFp32;
using constants::kGiB;

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
/// cp·dp ranks of a stage (experts over their edp ranks); FSDP shards parameters and gradients too.
struct Shards {
  double params = 1, expert_params = 1, optimizer = 1, expert_optimizer = 1;
};

/// FSDP2 (torchtitan) keeps per sharded parameter an FP32 parameter, an FP32 gradient and Adam's two FP32 moments.
constexpr double kFsdp2ParamBytes = 4;
constexpr double kFsdp2GradBytes = 4;
constexpr double kFsdp2OptimizerBytes = 8;

Shards shards_of(const TrainConfig& train, const ResolvedLayout& r) {
  const double dense = 1.0 * r.dp * r.layout.cp;
  const double expert = 1.0 * expert_replicas(r);
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

namespace {

/// A grouped model's mean layer: each group's parameters and saved activations weighted by its share of the layers
/// (a stage of n layers holds n × count/layers of each group); one layer rebuilt at a time under full recompute, the
/// largest.
ShapeMemory grouped_memory(const ModelConfig& model, const ShapeKey& shape, SelectivePolicy policy) {
  ShapeMemory m;
  m.count = count_parameters(model);
  for (const LayerGroup& group : model.layer_groups) {
    const ShapeMemory one = shape_memory(model.layer_view(group), shape, policy);
    const double share = static_cast<double>(group.count) / model.layers;
    m.layer.dense += share * one.layer.dense;
    m.layer.expert += share * one.layer.expert;
    m.layer.linear += share * one.layer.linear;
    m.activation += share * one.activation;
    m.recomputed_layer = std::max(m.recomputed_layer, one.recomputed_layer);
  }
  m.dense_layer = m.layer;
  m.dense_activation = m.activation;
  return m;
}

}  // namespace

ShapeMemory shape_memory(const ModelConfig& model, const ShapeKey& shape, SelectivePolicy policy) {
  if (model.grouped()) {
    return grouped_memory(model, shape, policy);
  }
  ShapeMemory m;
  m.count = count_parameters(model);
  m.layer = layer_params_per_gpu(model, shape.tp, shape.ep, false, shape.etp);
  m.dense_layer = model.moe() ? layer_params_per_gpu(model, shape.tp, shape.ep, true, shape.etp) : m.layer;
  m.activation = layer_activation_bytes(model, shape, false, policy);
  m.dense_activation = model.moe() ? layer_activation_bytes(model, shape, true, policy) : m.activation;
  const bool per_op = shape.recompute == Recompute::selective && policy == SelectivePolicy::every_other_matmul;
  if (shape.recompute == Recompute::full || per_op) {
    ShapeKey kept = shape;
    kept.recompute = Recompute::none;
    m.recomputed_layer = layer_activation_bytes(model, kept);
  }
  return m;
}

int expert_replicas(const ResolvedLayout& r) {
  if (r.edp > 0) {
    return r.edp;
  }
  const int etp = r.layout.etp > 0 ? r.layout.etp : r.layout.tp;
  return std::max(1, r.layout.tp * r.layout.cp * r.dp / std::max(1, etp * r.layout.ep));
}

StageMemory memory_per_gpu(const ModelConfig& model, const SystemProfile& system, const TrainConfig& train,
                           const ResolvedLayout& resolved) {
  return memory_per_gpu(model, system, train, resolved,
                        shape_memory(model, shape_key(train, resolved), system.software.selective));
}

StageMemory memory_per_gpu(const ModelConfig& model, const SystemProfile& system, const TrainConfig& train,
                           const ResolvedLayout& resolved, const ShapeMemory& per_layer) {
  const Layout& l = resolved.layout;
  const ParameterCount& count = per_layer.count;
  const LayerParams& layer = per_layer.layer;
  const LayerParams& dense_layer = per_layer.dense_layer;
  const double activation = per_layer.activation;
  const double dense_activation = per_layer.dense_activation;
  const ParameterBytes bytes =
      parameter_bytes(train.precision, system.software.low_precision_params, system.any_layout_fp8());
  const Shards shards = shards_of(train, resolved);
  const double tokens = static_cast<double>(train.mbs) * resolved.seq_len / l.cp;
  const double mtp_projection = 2.0 * static_cast<double>(model.hidden) * static_cast<double>(model.hidden) / l.tp;

  const auto stage = [&](int index) {
    const StageParts parts = stage_parts(model, train, resolved, index);
    const int main_layers = parts.layers - parts.leading_dense + parts.mtp_layers;
    MemoryBreakdown m;
    const double edge = (parts.embedding ? edge_params(model, count, l.tp, l.pp, true) : 0.0) +
                        (parts.output ? edge_params(model, count, l.tp, l.pp, false) : 0.0) +
                        parts.mtp_layers * mtp_projection;
    const double dense = main_layers * layer.dense + parts.leading_dense * dense_layer.dense + edge;
    const double expert = main_layers * layer.expert;
    const double linear = main_layers * layer.linear + parts.leading_dense * dense_layer.linear;
    // FSDP keeps a shard of everything plus the gathered parameters and unreduced gradients of the layers in
    // flight (the one computing and the one prefetched: Megatron FSDP's double buffer; FSDP2 under pipeline
    // parallelism keeps the whole stage gathered for the step).
    const double held = dense / shards.params + expert / shards.expert_params;
    const double held_linear = linear * held / std::max(1.0, dense + expert);
    const bool sharded = shards.params > 1;
    const bool fsdp2 = train.fsdp && system.software.fsdp == FsdpKind::fsdp2;
    const bool whole_stage = fsdp2 && l.pp > 1;
    const double buffers = !sharded      ? 0.0
                           : whole_stage ? dense + expert
                                         : kFsdpBufferedLayers * (layer.dense + layer.expert);
    const double buffer_linear = !sharded ? 0.0 : whole_stage ? linear : kFsdpBufferedLayers * layer.linear;
    // Weights cast to FP8 in every forward (torchao) are no cache: one layer's copies at a time, negligible.
    const double cache = system.software.fp8_weight_cast_bytes > 0 ? 0.0 : bytes.cache;
    if (fsdp2 && sharded) {
      m.weights = held * kFsdp2ParamBytes + (buffers - buffer_linear) * kBf16 + buffer_linear * bytes.linear;
      m.gradients = held * kFsdp2GradBytes + buffers * constants::kGradBytes;
      m.optimizer = kFsdp2OptimizerBytes * held;
    } else {
      m.weights = (held - held_linear + buffers - buffer_linear) * kBf16 + (held_linear + buffer_linear) * bytes.linear;
      m.gradients = (held + buffers) * constants::kGradBytes;
      m.optimizer = constants::kOptimizerBytes * (dense / shards.optimizer + expert / shards.expert_optimizer);
    }
    m.fp8_weight_cache = (held_linear + buffer_linear) * cache;
    // Offloaded layers leave one layer's activations in flight on the GPU.
    const double kept = parts.layers > 0 && train.offload_layers > 0
                            ? static_cast<double>(parts.layers - train.offload_layers + 1) / parts.layers
                            : 1.0;
    const double per_microbatch =
        kept * ((parts.layers - parts.leading_dense) * activation + parts.leading_dense * dense_activation) +
        parts.mtp_layers * activation;
    m.activations = per_microbatch * inflight_microbatches(l.pp, l.vp, resolved.microbatches, index);
    // Full recompute rebuilds one layer's activations at a time during the backward.
    m.transient = per_layer.recomputed_layer;
    if (parts.output) {
      // BF16 logits of one microbatch (and of each MTP head), vocabulary-parallel, and the FP32 softmax beside
      // them unless the loss writes its gradient in place.
      // torchtitan's loss upcasts them first: the FP32 copy and its FP32 log-softmax beside the BF16 logits.
      const double per_logit = system.software.fp32_logits              ? kBf16 + 2 * kFp32
                               : system.software.in_place_cross_entropy ? kBf16
                                                                        : kBf16 + kFp32;
      m.transient += (1 + parts.mtp_layers) * tokens * static_cast<double>(model.vocab) / l.tp * per_logit;
    }
    m.capacity = system.hbm_bytes();
    m.reserve = constants::kReserveGiB * kGiB + constants::kFragmentation * m.capacity;
    return m;
  };
  StageMemory out;
  out.first = stage(0);
  out.last = l.pp == 1 ? out.first : stage(l.pp - 1);
  out.middle = l.pp > 2 ? stage(1) : out.last;
  return out;
}

ParameterBytes parameter_bytes(Precision precision, bool low_precision_params, bool any_layout_fp8) {
  if (!casts_gemm_inputs(precision)) {
    return ParameterBytes{.linear = kBf16, .cache = 0};
  }
  // Each low-precision GEMM weight exists twice: row-wise for the forward and column-wise (the transpose, with
  // its own block scales) for dgrad. Per-tensor FP8 on a GPU whose FP8 GEMMs take any operand layout (Blackwell)
  // needs no transpose: one copy (Transformer Engine skips it where non-TN FP8 GEMMs are supported).
  const double copy = gemm_operand_bytes(precision);
  const double transpose = precision == Precision::fp8 && any_layout_fp8 ? 0.0 : copy;
  return low_precision_params ? ParameterBytes{.linear = copy, .cache = transpose}
                              : ParameterBytes{.linear = kBf16, .cache = copy + transpose};
}

std::optional<int> fitting_offload(const ModelConfig& model, const SystemProfile& system, const TrainConfig& train,
                                   const ResolvedLayout& resolved, const ShapeMemory& per_layer) {
  if (train.offload_layers != kAutoOffload || system.host_link_gb_s < kAutoOffloadHostLinkGbS) {
    return std::nullopt;
  }
  TrainConfig trial = train;
  const auto fits = [&](int layers) {
    trial.offload_layers = layers;
    return memory_per_gpu(model, system, trial, resolved, per_layer).peak().fits();
  };
  const int most = std::min(resolved.stages.first, resolved.stages.last) - 1;  // layout rule: one layer stays
  if (most < 1 || fits(0) || !fits(most)) {
    return std::nullopt;
  }
  int low = 0, high = most;  // fits(high), !fits(low): memory falls as more layers leave the GPU
  while (high - low > 1) {
    const int mid = (low + high) / 2;
    (fits(mid) ? high : low) = mid;
  }
  return high;
}

}  // namespace dgx::llm
