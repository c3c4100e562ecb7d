#include "job.hpp"

#include <algorithm>

#include <dgx/sdk/error.hpp>

#include "params.hpp"

namespace dgx::plugins::llm_finetune {

FinetuneJob resolve_job(const FinetuneSettings& settings, const llm::ModelConfig& model) {
  FinetuneJob job;
  job.seq_len = settings.train.seq_len > 0 ? settings.train.seq_len : model.seq_len;
  llm::FineTune samples = settings.finetune;  // the samples against the sequence, whatever the method
  samples.method = llm::FineTuneMethod::sft;
  if (const auto checked = llm::check_finetune(model, samples, job.seq_len); !checked) {
    throw dgx::sdk::InvalidArgument(std::string(key::avg_tokens_per_sample) + ": " + checked.error().message + " (" +
                                    key::seq_len + ")");
  }
  const bool lora =
      std::find(settings.methods.begin(), settings.methods.end(), llm::FineTuneMethod::lora) != settings.methods.end();
  llm::FineTune adapters = settings.finetune;
  adapters.method = llm::FineTuneMethod::lora;
  if (const auto checked = llm::check_finetune(model, adapters, job.seq_len); lora && !checked) {
    throw dgx::sdk::InvalidArgument("LoRA of " + model.name + " (" + key::lora_rank + ", " + key::lora_targets +
                                    "): " + checked.error().message);
  }
  job.dataset_tokens = settings.dataset.tokens;
  job.efficiency = llm::sample_efficiency(settings.finetune, job.seq_len);
  job.processed_tokens = llm::processed_tokens(job.dataset_tokens, settings.finetune, job.seq_len);
  job.sequences = job.processed_tokens / job.seq_len;
  job.steps = job.sequences / settings.train.gbs;
  return job;
}

}  // namespace dgx::plugins::llm_finetune
