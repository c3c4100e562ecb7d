// The workload's configuration, read from the host and checked value by value: the keys every LLM training
// workload shares (libs/llm-workload: training_settings.hpp) and pretraining's own. Whether a layout is valid
// for the model and system (and fits in memory) is the performance model's question, asked in project mode.
#pragma once

#include <optional>

#include <dgx/sdk/host.hpp>

#include "dgx/llm/workload/training_settings.hpp"

namespace dgx::plugins::llm_pretrain {

/// The shared training keys, train.tokens (in train.tokens) and the explorer's deadline.
struct PretrainSettings : llm::workload::TrainingSettings {
  std::optional<double> deadline_days;
};

/// Reads every key of params.hpp. Throws dgx::sdk::InvalidArgument naming the key and the value when one is
/// out of range (a count below 1, gpus_min above gpus_max, a negative slack, ...).
[[nodiscard]] PretrainSettings read_settings(const dgx::sdk::Host& host);

}  // namespace dgx::plugins::llm_pretrain
