#include "project_mode.hpp"

#include <dgx/sdk/error.hpp>

#include "dgx/llm/explorer.hpp"
#include "dgx/llm/step_model.hpp"
#include "dgx/llm/workload/training_notes.hpp"
#include "dgx/llm/workload/training_rows.hpp"
#include "explore_mode.hpp"
#include "notes.hpp"
#include "rows.hpp"
#include <dgx/sdk/text.hpp>

namespace dgx::plugins::llm_finetune {

namespace {

using dgx::sdk::NotePlacement;
using dgx::sdk::text::fixed;

std::string configuration_label(const FinetuneSettings& s, const llm::workload::Assumptions& a) {
  return method_label(s.finetune.method, s.finetune.lora) + " on " + std::to_string(s.gpus) + " x " + a.system.name +
         ", " + std::string(llm::to_string(s.train.precision)) + ", " +
         llm::workload::layout_label(s.train, a.model.moe());
}

/// Where the method fits when the configured GPU count does not: the smallest explored count.
std::string where_it_fits(const FinetuneSettings& s, const llm::workload::Assumptions& a, const FinetuneJob& job) {
  llm::StepModel model(a.model, a.system);
  model.set_finetune(s.finetune);
  llm::ExploreSpace space = explore_space(s, job);
  space.gpu_counts.clear();
  space.gpus_min = 1;
  space.gpus_max = 16384;
  space.precisions = {s.train.precision};
  const auto r = llm::explore(model, space);
  if (!r) {
    return "; it fits at no GPU count from 1 to 16384 on " + a.system.name;
  }
  const llm::ExplorePoint& p = r->points.front();
  return "; the fewest GPUs it fits on are " + std::to_string(p.gpus) + " (" +
         llm::workload::layout_label(p.train, a.model.moe()) + ", GBS " + std::to_string(p.train.gbs) + ")";
}

std::string configuration_note(const llm::Projection& p, const FinetuneSettings& s,
                               const llm::workload::Assumptions& a) {
  const llm::TrainConfig& t = p.train;
  return method_label(s.finetune.method, s.finetune.lora) + " of " + a.model.name + " on " +
         std::to_string(p.layout.gpus) + " x " + a.system.name + ", " + std::string(llm::to_string(t.precision)) +
         " GEMMs: " + llm::workload::layout_label(t, a.model.moe()) + ", DP " + std::to_string(p.layout.dp) +
         "; global batch " + std::to_string(t.gbs) + " sequences of " + std::to_string(t.seq_len) + " tokens (" +
         std::to_string(p.layout.microbatches) + " microbatches per pipeline per step); recompute " +
         std::string(llm::to_string(t.recompute)) + "; distributed optimizer " +
         (t.distributed_optimizer ? "on" : "off") + ".";
}

std::string throughput_note(const llm::Projection& p, const FinetuneJob& job) {
  return dgx::sdk::text::si_count(p.tokens_per_s) + " tokens/s in all, " + fixed(p.tokens_per_s_per_gpu, 0) +
         " per GPU; " + fixed(p.model_tflops_per_gpu, 0) + " model TFLOP/s per GPU = MFU " + fixed(100 * p.mfu, 1) +
         "% of " + fixed(p.peak_tflops, 0) + "; " + fixed(24 * p.days_to_train, 2) + " hours for " +
         dgx::sdk::text::si_count(job.processed_tokens) + " tokens, " + dgx::sdk::text::si_count(p.gpu_hours) +
         " GPU-hours" + (p.cost_usd ? ", " + dgx::sdk::text::usd(*p.cost_usd) : std::string()) + ".";
}

}  // namespace

void run_project(const dgx::sdk::Host& host, const FinetuneSettings& settings,
                 const llm::workload::Assumptions& assumptions, const FinetuneJob& job) {
  llm::StepModel model(assumptions.model, assumptions.system);
  model.set_finetune(settings.finetune);
  const auto projection = model.project(settings.gpus, settings.train, assumptions.price);
  if (!projection) {
    const bool memory = projection.error().message.rfind("needs ", 0) == 0;
    throw dgx::sdk::InvalidArgument(assumptions.model.name + " " + configuration_label(settings, assumptions) +
                                    ", GBS " + std::to_string(settings.train.gbs) + ": " + projection.error().message +
                                    (memory ? where_it_fits(settings, assumptions, job) : std::string()));
  }
  const llm::Projection& p = *projection;

  host.note(NotePlacement::before, "Assumptions", assumptions_note(settings, assumptions, job));
  host.note(NotePlacement::before, "Configuration", configuration_note(p, settings, assumptions));

  const RowContext context{settings, assumptions, job};
  dgx::sdk::Row row =
      finetune_row("project", context, settings.finetune.method, p.train, llm::workload::headline_of(p), p.breakdown);
  row.field("configuration", configuration_label(settings, assumptions))
      .field("layout", llm::workload::layout_label(p.train, assumptions.model.moe()), DGX_FIELD_HIDDEN);
  row.metric("model_flops_per_sequence", p.model_flops_per_sequence, "FLOP", DGX_METRIC_HIDDEN);
  llm::workload::add_memory_metrics(row, p.memory);
  host.emit(row);

  host.note(NotePlacement::after, "Throughput", throughput_note(p, job));
  host.note(NotePlacement::after, "Step time", llm::workload::breakdown_text(p.breakdown));
  host.note(NotePlacement::after, "Memory per GPU (the fullest GPU)", llm::workload::memory_text(p.memory));
  host.note(NotePlacement::after, "FLOPs", flops_note());
  host.note(NotePlacement::after, "Projection", projection_note(assumptions));
}

}  // namespace dgx::plugins::llm_finetune
