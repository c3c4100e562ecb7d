#include "dgx/llm/finetune_memory.hpp"

#include "dgx/llm/model_constants.hpp"

namespace dgx::llm {

namespace {

using constants::kBf16;
/// A frozen FP8 linear weight: the FP8 copy and its transpose, one byte each; the copy alone where the GPU's FP8
/// GEMMs take any operand layout (Blackwell: no transpose for dgrad). The frozen base has no BF16 master: nothing
/// updates it, so its FP8 copies are all it holds.
double frozen_fp8_bytes(const SystemProfile& system, Precision precision) {
  const double copy = gemm_operand_bytes(precision);
  return precision == Precision::fp8 && system.any_layout_fp8() ? copy : 2 * copy;
}

/// The LoRA form of stage `index` (memory_model.hpp's breakdown of the same stage as input, without FSDP: every
/// GPU of the stage holds its whole frozen base).
MemoryBreakdown lora_stage(MemoryBreakdown m, int index, const ModelConfig& model, const SystemProfile& system,
                           const TrainConfig& train, const ResolvedLayout& resolved, const ShapeMemory& per_layer,
                           const FineTune& finetune, double activation_ratio) {
  const Layout& l = resolved.layout;
  const StageParts parts = stage_parts(model, train, resolved, index);
  const double linear = (parts.layers - parts.leading_dense + parts.mtp_layers) * per_layer.layer.linear +
                        parts.leading_dense * per_layer.dense_layer.linear;
  // What memory_model.hpp keeps beside the GEMM weights (embedding, norms, router, LM head) stays as it is.
  const double other_weights =
      m.weights -
      linear * parameter_bytes(train.precision, system.software.low_precision_params, system.any_layout_fp8()).linear;
  const double adapters = parts.layers * adapter_parameters_per_gpu(model, finetune.lora, l.tp);
  const bool fp8 = casts_gemm_inputs(train.precision);
  m.weights = other_weights + (fp8 ? 0.0 : linear * kBf16) + adapters * kBf16;
  m.fp8_weight_cache = fp8 ? linear * frozen_fp8_bytes(system, train.precision) : 0.0;
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
                                    const ResolvedLayout& resolved, const ShapeMemory& per_layer,
                                    const FineTune& finetune) {
  StageMemory m = memory_per_gpu(model, system, train, resolved, per_layer);
  if (!finetune.lora_method()) {
    return m;
  }
  const Layout& l = resolved.layout;
  const ShapeKey shape = shape_key(train, resolved);
  const double base = layer_activation_bytes(model, shape);
  const double ratio = base > 0 ? finetune_activation_bytes(model, shape, finetune) / base : 1.0;
  const auto stage = [&](const MemoryBreakdown& pretraining, int index) {
    return lora_stage(pretraining, index, model, system, train, resolved, per_layer, finetune, ratio);
  };
  StageMemory out;
  out.first = stage(m.first, 0);
  out.last = l.pp == 1 ? out.first : stage(m.last, l.pp - 1);
  out.middle = l.pp > 2 ? stage(m.middle, 1) : out.last;
  return out;
}

}  // namespace dgx::llm
