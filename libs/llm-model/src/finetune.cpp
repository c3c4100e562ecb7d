#include "dgx/llm/finetune.hpp"

#include "dgx/catalog/enum_names.hpp"

#include <algorithm>
#include <cmath>

namespace dgx::llm {

namespace {

/// Forward FLOPs of one adapter per token: down (2·in·rank) and up (2·rank·out); backward twice that (data and
/// weight gradients of both).
constexpr double kAdapterFlopsPerParameter = 6;

std::string number(double value) {
  const bool whole = value == std::floor(value);
  return whole ? std::to_string(static_cast<long long>(value)) : std::to_string(value);
}

/// Per token and layer: 12·h·c·span for the attention core (QKᵀ and PV, forward + backward = 3 × 4·h·span·c).
double attention_core_per_token(const ModelConfig& model, double span, AttentionFlops convention) {
  const double c = convention == AttentionFlops::full ? 1.0 : 0.5;
  return 12.0 * model.layers * static_cast<double>(model.hidden) * c * span;
}

}  // namespace

std::string_view to_string(FineTuneMethod method) { return method == FineTuneMethod::sft ? "sft" : "lora"; }

std::optional<FineTuneMethod> parse_finetune_method(std::string_view text) {
  return catalog::parse_by_name(text, kAllFineTuneMethods);
}

std::string_view to_string(LoraTarget target) {
  switch (target) {
  case LoraTarget::qkv: return "qkv";
  case LoraTarget::proj: return "proj";
  case LoraTarget::fc1: return "fc1";
  case LoraTarget::fc2: return "fc2";
  }
  return "?";
}

std::optional<LoraTarget> parse_lora_target(std::string_view text) {
  return catalog::parse_by_name(text, kAllLoraTargets);
}

bool LoraConfig::wraps(LoraTarget target) const {
  return std::find(targets.begin(), targets.end(), target) != targets.end();
}

LinearWidth linear_width(const ModelConfig& model, LoraTarget target) {
  const std::int64_t h = model.hidden;
  switch (target) {
  case LoraTarget::qkv: return {h, model.qkv_width()};
  case LoraTarget::proj: return {model.head_dim() * model.heads, h};
  case LoraTarget::fc1: return {h, model.ffn * (model.mlp_matrices() - 1)};
  case LoraTarget::fc2: return {model.ffn, h};
  }
  return {};
}

Expected<FineTune> check_finetune(const ModelConfig& model, const FineTune& finetune, int seq_len) {
  if (model.grouped() || model.mixer != Mixer::attention || model.mlp_free) {
    return Error{"fine-tuning " + model.name +
                 " is not modelled: its layers are not all attention + MLP (hybrid and state-space layers have no "
                 "fine-tuning op lists, packed-sample scans or adapters here); pretraining projects it"};
  }
  if (finetune.avg_tokens_per_sample < 0 || !std::isfinite(finetune.avg_tokens_per_sample)) {
    return Error{"average tokens per sample must be a positive number, got " + number(finetune.avg_tokens_per_sample)};
  }
  if (finetune.avg_tokens_per_sample > seq_len) {
    return Error{"samples of " + number(finetune.avg_tokens_per_sample) +
                 " tokens on average do not fit sequences of " + std::to_string(seq_len) +
                 " tokens (they would be truncated): raise the sequence length"};
  }
  if (!finetune.lora_method()) {
    return finetune;
  }
  const LoraConfig& lora = finetune.lora;
  if (lora.rank < 1 || lora.rank > model.hidden) {
    return Error{"LoRA rank " + std::to_string(lora.rank) + " must lie between 1 and the hidden size of " + model.name +
                 " (" + std::to_string(model.hidden) + "): a low-rank adapter of higher rank is a full matrix"};
  }
  if (!(lora.alpha > 0) || !std::isfinite(lora.alpha)) {
    return Error{"LoRA alpha must be positive, got " + number(lora.alpha)};
  }
  if (lora.targets.empty()) {
    return Error{"LoRA needs at least one target module (qkv, proj, fc1, fc2)"};
  }
  for (const LoraTarget target : lora.targets) {
    const bool mlp = target == LoraTarget::fc1 || target == LoraTarget::fc2;
    if (mlp && model.moe()) {
      return Error{model.name + " has no " + std::string(to_string(target)) + " module: its MLP is " +
                   std::to_string(model.experts) + " experts (adapters on experts are not modelled); LoRA targets " +
                   "qkv and proj remain"};
    }
  }
  return finetune;
}

double adapter_parameters_per_gpu(const ModelConfig& model, const LoraConfig& lora, int tp) {
  double params = 0;
  for (const LoraTarget target : lora.targets) {
    const LinearWidth w = linear_width(model, target);
    const bool column = target == LoraTarget::qkv || target == LoraTarget::fc1;
    const double in = static_cast<double>(w.in), out = static_cast<double>(w.out);
    params += lora.rank * (column ? in / tp + out / tp : in / tp + out);
  }
  return params;
}

double trainable_parameters(const ModelConfig& model, const FineTune& finetune) {
  if (!finetune.lora_method()) {
    return count_parameters(model).total;
  }
  double per_layer = 0;
  for (const LoraTarget target : finetune.lora.targets) {
    const LinearWidth w = linear_width(model, target);
    per_layer += finetune.lora.rank * static_cast<double>(w.in + w.out);
  }
  return model.layers * per_layer;
}

double sample_efficiency(const FineTune& finetune, int seq_len) {
  const double avg = finetune.avg_tokens_per_sample;
  if (avg <= 0 || seq_len <= 0) {
    return 1.0;
  }
  const double fill = std::min(1.0, avg / seq_len);
  return finetune.packed ? 1.0 - 0.5 * fill : fill;
}

double processed_tokens(double dataset_tokens, const FineTune& finetune, int seq_len) {
  return dataset_tokens / sample_efficiency(finetune, seq_len);
}

double attention_span(const FineTune& finetune, int seq_len) {
  const double avg = finetune.avg_tokens_per_sample;
  return finetune.packed && avg > 0 ? std::min(avg, static_cast<double>(seq_len)) : static_cast<double>(seq_len);
}

double finetune_flops_per_sequence(const ModelConfig& model, int seq_len, const FineTune& finetune,
                                   AttentionFlops convention) {
  const double s = seq_len;
  const double whole = model_flops_per_sequence(model, seq_len, convention);
  const double core = s * attention_core_per_token(model, s, convention);
  const double executed_core = s * attention_core_per_token(model, attention_span(finetune, seq_len), convention);
  if (!finetune.lora_method()) {
    return whole - core + executed_core;
  }
  double adapters = 0;
  for (const LoraTarget target : finetune.lora.targets) {
    const LinearWidth w = linear_width(model, target);
    adapters += kAdapterFlopsPerParameter * finetune.lora.rank * static_cast<double>(w.in + w.out);
  }
  return 2.0 / 3.0 * (whole - core) + executed_core + s * model.layers * adapters;
}

double published_finetune_flops_per_sequence(const ModelConfig& model, int seq_len, const FineTune& finetune,
                                             AttentionFlops convention) {
  FineTune sft = finetune;
  sft.method = FineTuneMethod::sft;
  const double flops = finetune_flops_per_sequence(model, seq_len, sft, convention);
  return finetune.lora_method() ? 2.0 / 3.0 * flops : flops;
}

std::string targets_label(const LoraConfig& lora) {
  std::string out;
  for (const LoraTarget target : lora.targets) {
    out += (out.empty() ? "" : ", ") + std::string(to_string(target));
  }
  return out;
}

}  // namespace dgx::llm
