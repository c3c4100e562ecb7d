// The configuration schema of the llm-pretrain workload: the keys users' scripts and presets rely on
// (configs/workloads/*.toml uses them), with defaults equal to the llama8b preset so that
// `dgxhost --plugin llm-pretrain` alone projects Llama 3.1 8B on H100.
#pragma once

#include <vector>

#include <dgx/sdk/workload.hpp>

#include "dgx/llm/workload/training_settings.hpp"

namespace dgx::plugins::llm_pretrain {

/// Config keys: the shared training keys (training_settings.hpp) and pretraining's own. Renaming one breaks
/// users' scripts and presets.
namespace key {
using namespace llm::workload::key;
inline constexpr const char* tokens = "train.tokens";
inline constexpr const char* deadline_days = "explore.deadline_days";
}  // namespace key

/// Every parameter of the workload, with its default, unit and help.
[[nodiscard]] std::vector<dgx::sdk::Param> pretrain_params();

}  // namespace dgx::plugins::llm_pretrain
