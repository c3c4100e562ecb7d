// The workload's configuration, read from the host and checked value by value: the shared training keys
// (libs/llm-workload, training_settings.hpp), the fine-tuning method and its LoRA adapters, and the job's
// data set. What depends on the model (a LoRA rank above its hidden size, a target it lacks, samples longer than
// the sequence) is checked with the model, in job.hpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <dgx/sdk/host.hpp>

#include "dgx/llm/finetune.hpp"
#include "dgx/llm/workload/training_settings.hpp"
#include "fixed_cost.hpp"

namespace dgx::plugins::llm_finetune {

/// The data set of the job: tokens of all samples over all epochs (prompt and answer).
struct Dataset {
  double tokens = 0;
  double samples = 0;
  double avg_tokens_per_sample = 0;
  double epochs = 0;
  bool from_tokens = false;  ///< finetune.tokens gave the size (else samples x average x epochs)
};

struct FinetuneSettings : llm::workload::TrainingSettings {
  std::vector<llm::FineTuneMethod> methods;  ///< explore compares them; project uses the first
  llm::FineTune finetune;                    ///< method = methods.front()
  Dataset dataset;
  std::optional<double> deadline_hours;
  FixedCostSettings fixed;  ///< the job's fixed time and minimum billing
};

/// Reads every key of params.hpp. Throws dgx::sdk::InvalidArgument naming the key and the value when one is
/// out of range or unknown, and when the data set has no tokens.
[[nodiscard]] FinetuneSettings read_settings(const dgx::sdk::Host& host);

}  // namespace dgx::plugins::llm_finetune
