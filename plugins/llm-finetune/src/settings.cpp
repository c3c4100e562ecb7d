#include "settings.hpp"

#include <algorithm>
#include <cmath>

#include <dgx/sdk/text.hpp>

#include "params.hpp"

namespace dgx::plugins::llm_finetune {

namespace {

using dgx::sdk::InvalidArgument;
namespace text = dgx::sdk::text;

std::vector<llm::FineTuneMethod> read_methods(const dgx::sdk::Host& host) {
  std::vector<llm::FineTuneMethod> out;
  for (const std::string& text : host.get_string_list(key::method)) {
    const auto method = llm::parse_finetune_method(text);
    if (!method) {
      throw InvalidArgument(std::string(key::method) + ": '" + text + "' is not one of sft, lora");
    }
    if (std::find(out.begin(), out.end(), *method) == out.end()) {
      out.push_back(*method);
    }
  }
  if (out.empty()) {
    throw InvalidArgument(std::string(key::method) + " must name at least one method (sft, lora)");
  }
  return out;
}

llm::LoraConfig read_lora(const dgx::sdk::Host& host) {
  llm::LoraConfig lora;
  lora.rank = llm::workload::read_int(host, key::lora_rank, 1);
  lora.alpha = host.get_float(key::lora_alpha);
  if (!(lora.alpha > 0) || !std::isfinite(lora.alpha)) {
    throw InvalidArgument(std::string(key::lora_alpha) + " must be positive, got " + text::fixed(lora.alpha, 2));
  }
  lora.targets.clear();
  for (const std::string& text : host.get_string_list(key::lora_targets)) {
    const auto target = llm::parse_lora_target(text);
    if (!target) {
      throw InvalidArgument(std::string(key::lora_targets) + ": '" + text +
                            "' is not a module LoRA can wrap: qkv (attention QKV projection), proj (attention "
                            "output projection), fc1 (MLP up/gate), fc2 (MLP down)");
    }
    if (!lora.wraps(*target)) {
      lora.targets.push_back(*target);
    }
  }
  if (lora.targets.empty()) {
    throw InvalidArgument(std::string(key::lora_targets) + " must name at least one module (qkv, proj, fc1, fc2)");
  }
  return lora;
}

double non_negative(const dgx::sdk::Host& host, const char* name) {
  const double value = host.get_float(name);
  if (!(value >= 0) || !std::isfinite(value)) {
    throw InvalidArgument(std::string(name) + " must be a number >= 0, got " + text::fixed(value, 2));
  }
  return value;
}

Dataset read_dataset(const dgx::sdk::Host& host) {
  Dataset d;
  d.samples = static_cast<double>(llm::workload::read_int(host, key::samples, 0));
  d.avg_tokens_per_sample = non_negative(host, key::avg_tokens_per_sample);
  d.epochs = non_negative(host, key::epochs);
  if (!(d.avg_tokens_per_sample > 0)) {
    throw InvalidArgument(std::string(key::avg_tokens_per_sample) +
                          " must be positive: packing, padding and attention depend on it");
  }
  const double tokens = non_negative(host, key::tokens);
  d.from_tokens = tokens > 0;
  d.tokens = d.from_tokens ? tokens : d.samples * d.avg_tokens_per_sample * d.epochs;
  if (!(d.tokens > 0)) {
    throw InvalidArgument(
        "the data set has no tokens: " + std::string(key::tokens) + " is 0 and " + key::samples + " x " +
        key::avg_tokens_per_sample + " x " + key::epochs + " = " + text::grouped(static_cast<long long>(d.samples)) +
        " x " + text::fixed(d.avg_tokens_per_sample, 0) + " x " +
        text::fixed(d.epochs, d.epochs == std::floor(d.epochs) ? 0 : 2) + " = 0; give the job's size in either");
  }
  return d;
}

}  // namespace

FinetuneSettings read_settings(const dgx::sdk::Host& host) {
  FinetuneSettings s;
  static_cast<llm::workload::TrainingSettings&>(s) = llm::workload::read_training_settings(host);
  s.methods = read_methods(host);
  s.finetune.method = s.methods.front();
  s.finetune.lora = read_lora(host);
  if (s.train.fsdp && std::find(s.methods.begin(), s.methods.end(), llm::FineTuneMethod::lora) != s.methods.end()) {
    throw InvalidArgument(std::string(key::fsdp) +
                          " = true is not modelled for LoRA (the frozen base stays replicated "
                          "per data-parallel rank); set " +
                          key::method + " = \"sft\" or leave FSDP off");
  }
  s.finetune.packed = host.get_bool(key::packed);
  s.dataset = read_dataset(host);
  s.finetune.avg_tokens_per_sample = s.dataset.avg_tokens_per_sample;
  s.deadline_hours = host.find_float(key::deadline_hours);
  if (s.deadline_hours && !(*s.deadline_hours > 0)) {
    throw InvalidArgument(std::string(key::deadline_hours) + " must be a positive number of hours, got " +
                          text::fixed(*s.deadline_hours, 1));
  }
  s.fixed = read_fixed_cost(host);
  return s;
}

}  // namespace dgx::plugins::llm_finetune
