// The job being fine-tuned, resolved against the model: the sequence length, the data set in tokens, and what
// packing or padding makes of it (tokens processed, sequences, optimizer steps). The checks that need the model
// run here: each requested method must be able to fine-tune it (finetune.hpp's check_finetune).
#pragma once

#include "dgx/llm/catalog.hpp"
#include "settings.hpp"

namespace dgx::plugins::llm_finetune {

struct FinetuneJob {
  int seq_len = 0;
  double dataset_tokens = 0;    ///< sample tokens, all epochs
  double efficiency = 1;        ///< sample tokens per processed token (packing tail or padding)
  double processed_tokens = 0;  ///< dataset_tokens / efficiency: what the GPUs compute
  double sequences = 0;         ///< processed_tokens / seq_len
  double steps = 0;             ///< optimizer steps at train.gbs
};

/// Throws dgx::sdk::InvalidArgument naming the reason when a requested method cannot fine-tune the model (a LoRA
/// rank above its hidden size, a target module it lacks, samples longer than the sequence).
[[nodiscard]] FinetuneJob resolve_job(const FinetuneSettings& settings, const llm::ModelConfig& model);

}  // namespace dgx::plugins::llm_finetune
