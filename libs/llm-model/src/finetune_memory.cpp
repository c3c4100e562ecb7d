#include "dgx/llm/finetune_memory.hpp"

#include "dgx/llm/model_constants.hpp"

namespace dgx::llm {

namespace {

constexpr double kBf16 = 2;
/// A frozen FP8 linear weight: the FP8 copy and its transpose, one byte each.
constexpr double kFrozenFp8Bytes = 2;

/// The LoRA form of one stage of `layers` layers (memory_model.hpp's breakdown of the same stage as input).
MemoryBreakdown lora_stage(MemoryBreakdown m, int layers, const ModelConfig& model, const TrainConfig& train,
                           const ResolvedLayout& resolved, const FineTune& finetune, double activation_ratio) {
  const Layout& l = resolved.layout;
  const double params = m.weights / constants::kWeightBytes;
  const double linear = layers * layer_params_per_gpu(model, l.tp, l.ep).linear;
  const double adapters = layers * adapter_parameters_per_gpu(model, finetune.lora, l.tp);
  const bool fp8 = casts_gemm_inputs(train.precision);
  m.weights = (fp8 ? params - linear : params) * constants::kWeightBytes + adapters * constants::kWeightBytes;
  m.fp8_weight_cache = fp8 ? linear * kFrozenFp8Bytes : 0.0;
  m.gradients = adapters * constants::kGradBytes;
  const double shards = train.distributed_optimizer ? 1.0 * resolved.dp * l.cp : 1.0;
  m.optimizer = constants::kOptimizerBytes * adapters / shards;
  m.activations *= activation_ratio;
  return m;
}

}  // namespace

double finetune_activation_bytes(const ModelConfig& model, const ShapeKey& shape, const FineTune& finetune) {
  const double base = layer_activation_bytes(model, shape);
  if (!finetune.lora_method() || shape.recompute == Recompute::full) {
    return base;
  }
  const LoraConfig& lora = finetune.lora;
  const double t = static_cast<double>(shape.local_tokens());
  const double tp = shape.tp;
  const double h = static_cast<double>(model.hidden);
  const double ffn = static_cast<double>(model.ffn) / tp;
  const bool fp8 = casts_gemm_inputs(shape.precision);
  const double input = fp8 ? gemm_operand_bytes(shape.precision) : kBf16;  // as layer_activation_bytes keeps them
  const auto kept = [&](LoraTarget target, double elements) { return lora.wraps(target) ? elements * kBf16 : 0.0; };

  // Inputs of frozen linear layers that only their weight gradient would read.
  double dropped = t / tp * h * input - kept(LoraTarget::qkv, t / tp * h);  // norm_attn output
  dropped += fp8 ? t * h / tp * input : 0.0;                                // proj's FP8 input copy
  dropped += t / tp * h * input - kept(LoraTarget::fc1, t / tp * h);        // norm_mlp output
  if (model.moe()) {
    dropped += t * model.top_k * (h / tp * input + ffn * input);  // routed copies into the experts
  } else {
    dropped += t * ffn * input - kept(LoraTarget::fc2, t * ffn);  // activation output into fc2
  }
  const double intermediates = lora.targets.size() * t * lora.rank * kBf16;
  return base - dropped + intermediates;
}

StageMemory finetune_memory_per_gpu(const ModelConfig& model, const SystemProfile& system, const TrainConfig& train,
                                    const ResolvedLayout& resolved, const FineTune& finetune) {
  StageMemory m = memory_per_gpu(model, system, train, resolved);
  if (!finetune.lora_method()) {
    return m;
  }
  const Layout& l = resolved.layout;
  const ShapeKey shape = shape_key(train, resolved);
  const double base = layer_activation_bytes(model, shape);
  const double ratio = base > 0 ? finetune_activation_bytes(model, shape, finetune) / base : 1.0;
  const StageLayers& s = resolved.stages;
  StageMemory out;
  out.first = lora_stage(m.first, s.first, model, train, resolved, finetune, ratio);
  out.last = l.pp == 1 ? out.first : lora_stage(m.last, s.last, model, train, resolved, finetune, ratio);
  out.middle = l.pp > 2 ? lora_stage(m.middle, s.middle, model, train, resolved, finetune, ratio) : out.last;
  return out;
}

}  // namespace dgx::llm
