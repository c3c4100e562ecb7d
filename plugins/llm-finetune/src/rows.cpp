// Result rows of projected fine-tuning configurations, shared by project, explore and measure mode so that all carry
// the same config keys, metric names and provenance fields (docs/results-schema.md). The table shows the method, GPU
// count and precision with the headline numbers; JSON and CSV carry everything.
#include <cstdint>

#include "dgx/llm/workload/training_rows.hpp"
#include "params.hpp"
#include "plugin.hpp"

namespace dgx::plugins::llm_finetune {

namespace {

namespace workload = llm::workload;
using dgx::sdk::Row;

constexpr std::uint32_t kHiddenConfig = DGX_CONFIG_HIDDEN;

std::vector<std::string> target_names(const llm::LoraConfig& lora) {
  std::vector<std::string> names;
  for (const llm::LoraTarget t : lora.targets) {
    names.emplace_back(llm::to_string(t));
  }
  return names;
}

void add_config(Row& row, const FineTuning& job, llm::FineTuneMethod method, int gpus, const llm::TrainConfig& t) {
  // The keys users set, so a row can be fed back with --set; gpus, precision and method vary as table columns
  // (the layout field stands for the parallel keys).
  const FinetuneSettings& s = job.settings();
  const llm::LoraConfig& lora = s.finetune.lora;
  workload::add_training_config(row, job.assumptions(), gpus, t);
  row.config(key::method, std::string(llm::to_string(method)))
      .config(key::lora_rank, lora.rank, kHiddenConfig)
      .config(key::lora_alpha, lora.alpha, kHiddenConfig)
      .config(key::lora_targets, target_names(lora), kHiddenConfig)
      .config(key::packed, s.finetune.packed, kHiddenConfig)
      .config(key::tokens, job.job().dataset_tokens, kHiddenConfig);
}

}  // namespace

std::string method_label(llm::FineTuneMethod method, const llm::LoraConfig& lora) {
  if (method == llm::FineTuneMethod::sft) {
    return "SFT";
  }
  return "LoRA r" + std::to_string(lora.rank) + " " + llm::targets_label(lora);
}

llm::FineTune finetune_of(const FinetuneSettings& settings, llm::FineTuneMethod method) {
  llm::FineTune f = settings.finetune;
  f.method = method;
  return f;
}

Row FineTuning::projected_row(const std::string& table, llm::FineTuneMethod method, const llm::TrainConfig& train,
                              const workload::Headline& headline, const llm::StepBreakdown& breakdown) const {
  const llm::FineTune f = finetune_of(settings_, method);
  const llm::ModelConfig& m = assumptions_.model;
  Row row(dgx::sdk::ResultMode::projected);
  row.table(table);
  add_config(row, *this, method, headline.gpus, train);
  row.field("finetune_flops",
            f.lora_method() ? "executed: frozen weights' forward and dgrad GEMMs (2/3 of SFT's), the attention core "
                              "whole, the adapters' GEMMs"
                            : "executed: every GEMM's forward, dgrad and wgrad, the attention core within samples",
            DGX_FIELD_HIDDEN);
  workload::add_headline_metrics(row, headline, workload::RunTime::hours_to_finetune);
  workload::add_provenance(row, assumptions_, train, headline.gpus, /*finetune=*/true);
  const double executed = llm::finetune_flops_per_sequence(m, train.seq_len, f, train.flops_convention);
  const double published = llm::published_finetune_flops_per_sequence(m, train.seq_len, f, train.flops_convention);
  row.metric("trainable_parameters", llm::trainable_parameters(m, f), "count", DGX_METRIC_HIDDEN)
      .metric("mfu_published", executed > 0 ? 100 * headline.mfu * published / executed : 0.0, "%", DGX_METRIC_HIDDEN);
  workload::add_breakdown_metrics(row, breakdown);
  return row;
}

Row FineTuning::projected_row(const std::string& table, const llm::TrainConfig& train,
                              const workload::Headline& headline, const llm::StepBreakdown& breakdown) const {
  // Project and measure mode: one job at one configuration, its fixed time included as explore includes it.
  workload::Headline job = headline;
  const FixedCost fixed = fixed_cost(settings_.fixed, assumptions_.model, settings_.finetune, train, headline.dp);
  const BilledRun run = billed_run(headline.days, headline.gpus, fixed, settings_.fixed, assumptions_.price);
  job.days = run.days;
  job.gpu_hours = run.gpu_hours;
  job.cost_usd = assumptions_.price ? std::optional<double>(run.cost) : std::nullopt;
  return projected_row(table, settings_.finetune.method, train, job, breakdown);
}

}  // namespace dgx::plugins::llm_finetune
