// Result rows of projected fine-tuning configurations, shared by project, explore and measure mode so that all
// carry the same config keys, metric names and provenance fields (docs/results-schema.md). The table shows the
// method, GPU count and precision with the headline numbers; JSON and CSV carry everything.
#pragma once

#include <string>

#include <dgx/sdk/host.hpp>

#include "dgx/llm/finetune.hpp"
#include "dgx/llm/step_model.hpp"
#include "dgx/llm/workload/assumptions.hpp"
#include "dgx/llm/workload/training_rows.hpp"
#include "job.hpp"
#include "settings.hpp"

namespace dgx::plugins::llm_finetune {

/// What a fine-tuning row describes beyond the training configuration.
struct RowContext {
  const FinetuneSettings& settings;
  const llm::workload::Assumptions& assumptions;
  const FinetuneJob& job;
};

/// A projected row of `table` for `method`: config (gpus, precision and finetune.method as table columns, the rest
/// JSON-only), provenance (llm::workload::add_provenance, plus the fine-tuning FLOP convention), the headline with
/// hours_to_finetune, trainable_parameters, mfu_published (DGX Cloud's LoRA convention) and the breakdown.
[[nodiscard]] dgx::sdk::Row finetune_row(const std::string& table, const RowContext& context,
                                         llm::FineTuneMethod method, const llm::TrainConfig& train,
                                         const llm::workload::Headline& headline, const llm::StepBreakdown& breakdown);

/// "LoRA r16 qkv" or "SFT": the method as the notes name it.
[[nodiscard]] std::string method_label(llm::FineTuneMethod method, const llm::LoraConfig& lora);

/// The FineTune of `method` with the settings' adapters and samples.
[[nodiscard]] llm::FineTune finetune_of(const FinetuneSettings& settings, llm::FineTuneMethod method);

}  // namespace dgx::plugins::llm_finetune
