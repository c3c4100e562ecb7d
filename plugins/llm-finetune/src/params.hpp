// The configuration schema of the llm-finetune workload: the training keys every LLM training workload shares
// (libs/llm-workload, training_settings.hpp) and fine-tuning's own (finetune.*, explore.deadline_hours), with
// defaults equal to the llama8b-lora preset so that `dgxhost --plugin llm-finetune` alone answers for Llama 3.1
// 8B on H100.
#pragma once

#include <vector>

#include <dgx/sdk/workload.hpp>

#include "dgx/llm/workload/training_settings.hpp"

namespace dgx::plugins::llm_finetune {

/// Config keys. Renaming one breaks users' scripts and presets.
namespace key {
using namespace llm::workload::key;
inline constexpr const char* method = "finetune.method";
inline constexpr const char* lora_rank = "finetune.lora.rank";
inline constexpr const char* lora_alpha = "finetune.lora.alpha";
inline constexpr const char* lora_targets = "finetune.lora.targets";
inline constexpr const char* packed = "finetune.packed";
inline constexpr const char* tokens = "finetune.tokens";
inline constexpr const char* samples = "finetune.samples";
inline constexpr const char* avg_tokens_per_sample = "finetune.avg_tokens_per_sample";
inline constexpr const char* epochs = "finetune.epochs";
inline constexpr const char* deadline_hours = "explore.deadline_hours";
inline constexpr const char* startup_minutes = "finetune.startup_minutes";
inline constexpr const char* eval_minutes = "finetune.eval_minutes";
inline constexpr const char* storage_gb_s = "finetune.storage_gb_s";
inline constexpr const char* min_billing_minutes = "cost.min_billing_minutes";
}  // namespace key

/// Every parameter of the workload, with its default, unit and help.
[[nodiscard]] std::vector<dgx::sdk::Param> finetune_params();

}  // namespace dgx::plugins::llm_finetune
