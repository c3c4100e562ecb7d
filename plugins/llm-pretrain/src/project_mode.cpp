#include "project_mode.hpp"

#include <dgx/sdk/error.hpp>

#include "dgx/llm/step_model.hpp"
#include "format.hpp"
#include "notes.hpp"
#include "rows.hpp"

namespace dgx::plugins::llm_pretrain {

namespace {

using dgx::sdk::NotePlacement;

std::string configuration_label(const PretrainSettings& s, const Assumptions& a) {
  return std::to_string(s.gpus) + " x " + a.system.name + ", " + std::string(llm::to_string(s.train.precision)) + ", " +
         layout_label(s.train, a.model.moe());
}

/// "layers split 15/16/.../16/15 over 8 stages (embedding-loss)".
std::string stages_text(const llm::ResolvedLayout& r) {
  const llm::StageLayers& s = r.stages;
  if (r.layout.pp == 1) {
    return "all " + std::to_string(s.first) + " layers on one pipeline stage";
  }
  std::string split = std::to_string(s.first);
  if (r.layout.pp > 2) {
    split += "/" + std::to_string(s.middle) + (r.layout.pp > 3 ? "/.../" + std::to_string(s.middle) : "");
  }
  split += "/" + std::to_string(s.last);
  const char* why = s.split == llm::PipelineSplit::embedding_loss ? " (the embedding and the loss count as a layer)"
                    : s.split == llm::PipelineSplit::uneven       ? " (the first and last stage share the shortfall)"
                    : s.split == llm::PipelineSplit::custom ? " (layers per virtual chunk as Megatron's layout allows)"
                                                            : "";
  return "layers split " + split + " over " + std::to_string(r.layout.pp) + " stages, " +
         std::string(llm::to_string(s.split)) + why;
}

/// "; activations of 20 layers per stage offloaded to the host (automatic: the fewest that fit)", or nothing.
std::string offload_text(const llm::TrainConfig& run, const llm::TrainConfig& requested) {
  if (run.offload_layers <= 0) {
    return "";
  }
  return "; activations of " + std::to_string(run.offload_layers) + " layers per stage offloaded to the host" +
         (requested.offload_layers == llm::kAutoOffload ? " (automatic: the fewest that fit)" : "");
}

std::string configuration_note(const llm::Projection& p, const PretrainSettings& s, const Assumptions& a) {
  const llm::TrainConfig& t = p.train;
  return a.model.name + " on " + std::to_string(p.layout.gpus) + " x " + a.system.name + ", " +
         std::string(llm::to_string(t.precision)) + " GEMMs: " + layout_label(t, a.model.moe()) + ", DP " +
         std::to_string(p.layout.dp) + "; global batch " + std::to_string(t.gbs) + " sequences of " +
         std::to_string(t.seq_len) + " tokens (" + std::to_string(p.layout.microbatches) +
         " microbatches per pipeline per step); recompute " + std::string(llm::to_string(t.recompute)) + "; " +
         (t.fsdp ? std::string("Megatron FSDP (parameters, gradients and optimizer state sharded)")
                 : std::string("distributed optimizer ") + (t.distributed_optimizer ? "on" : "off")) +
         offload_text(t, s.train) + "; " + stages_text(p.layout) + ".";
}

std::string throughput_note(const llm::Projection& p) {
  return si_count(p.tokens_per_s) + " tokens/s in all, " + fixed(p.tokens_per_s_per_gpu, 0) + " per GPU; " +
         fixed(p.model_tflops_per_gpu, 0) + " model TFLOP/s per GPU = MFU " + fixed(100 * p.mfu, 1) + "% of " +
         fixed(p.peak_tflops, 0) + "; " + fixed(p.days_to_train, 1) + " days, " + si_count(p.gpu_hours) + " GPU-hours" +
         (p.cost_usd ? ", " + usd(*p.cost_usd) : std::string()) + ".";
}

}  // namespace

void run_project(const dgx::sdk::Host& host, const PretrainSettings& settings, const Assumptions& assumptions) {
  llm::StepModel model(assumptions.model, assumptions.system);
  const auto projection = model.project(settings.gpus, settings.train, assumptions.price);
  if (!projection) {
    throw dgx::sdk::InvalidArgument(assumptions.model.name + " on " + configuration_label(settings, assumptions) +
                                    ", GBS " + std::to_string(settings.train.gbs) + ": " + projection.error().message);
  }
  const llm::Projection& p = *projection;

  host.note(NotePlacement::before, "Assumptions", assumptions_note(settings, assumptions));
  host.note(NotePlacement::before, "Configuration", configuration_note(p, settings, assumptions));
  if (const std::string scope = scope_note(settings, assumptions); !scope.empty()) {
    host.note(NotePlacement::before, "Outside calibration", scope);
  }

  dgx::sdk::Row row = projected_row("project", assumptions, p.train, headline_of(p), p.breakdown);
  row.field("configuration", configuration_label(settings, assumptions))
      .field("layout", layout_label(p.train, assumptions.model.moe()), DGX_FIELD_HIDDEN);
  row.metric("model_flops_per_sequence", p.model_flops_per_sequence, "FLOP", DGX_METRIC_HIDDEN);
  add_memory_metrics(row, p.memory);
  host.emit(row);

  host.note(NotePlacement::after, "Throughput", throughput_note(p));
  host.note(NotePlacement::after, "Step time", breakdown_text(p.breakdown));
  host.note(NotePlacement::after, "Memory per GPU (the fullest GPU)", memory_text(p.memory));
  host.note(NotePlacement::after, "Projection", projection_note(assumptions));
}

}  // namespace dgx::plugins::llm_pretrain
