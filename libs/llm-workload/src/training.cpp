#include "dgx/llm/workload/training.hpp"

#include <dgx/sdk/error.hpp>

#include "dgx/llm/kernels/measured_ops.hpp"
#include "dgx/llm/memory_model.hpp"
#include "dgx/llm/workload/training_notes.hpp"

namespace dgx::llm::workload {

namespace {

using dgx::sdk::NotePlacement;

}  // namespace

std::vector<dgx_precision> training_precisions() {
  return {DGX_PRECISION_BF16, DGX_PRECISION_FP8_E4M3, DGX_PRECISION_FP8_E5M2, DGX_PRECISION_MXFP8, DGX_PRECISION_NVFP4};
}

kernels::LayerSpec Training::layer_spec(const TrainConfig& train) const {
  return kernels::layer_spec_for(assumptions().model, train);
}

OpList Training::layer_ops(const ShapeKey& shape) const {
  return transformer_layer_ops(assumptions().model, assumptions().system, shape);
}

double Training::activation_bytes(const ShapeKey& shape) const {
  return layer_activation_bytes(assumptions().model, shape);
}

std::string Training::configuration_label() const {
  const TrainingSettings& s = training();
  const Assumptions& a = assumptions();
  const std::string where = std::to_string(s.gpus) + " x " + a.system.name + ", " +
                            std::string(to_string(s.train.precision)) + ", " + layout_label(s.train, a.model.moe());
  const std::string m = method();
  return m.empty() ? where : m + " on " + where;
}

void Training::project(const dgx::sdk::Host& host) const {
  const TrainingSettings& s = training();
  const Assumptions& a = assumptions();
  StepModel model(a.model, a.system);
  configure(model);
  const auto projection = model.project(s.gpus, s.train, a.price);
  if (!projection) {
    const std::string& reason = projection.error().message;
    throw dgx::sdk::InvalidArgument(a.model.name + (method().empty() ? " on " : " ") + configuration_label() +
                                    ", GBS " + std::to_string(s.train.gbs) + ": " + reason + infeasible_hint(reason));
  }
  const Projection& p = *projection;

  host.note(NotePlacement::before, "Assumptions", assumptions_note());
  host.note(NotePlacement::before, "Configuration", configuration_note(p));
  if (const std::string scope = scope_note(); !scope.empty()) {
    host.note(NotePlacement::before, "Outside calibration", scope);
  }

  dgx::sdk::Row row = projected_row("project", p.train, headline_of(p), p.breakdown);
  row.field("configuration", configuration_label())
      .field("layout", layout_label(p.train, a.model.moe()), DGX_FIELD_HIDDEN);
  row.metric("model_flops_per_sequence", p.model_flops_per_sequence, "FLOP", DGX_METRIC_HIDDEN);
  add_memory_metrics(row, p.memory);
  host.emit(row);

  host.note(NotePlacement::after, "Throughput", throughput_note(p));
  host.note(NotePlacement::after, "Step time", breakdown_text(p.breakdown));
  host.note(NotePlacement::after, "Memory per GPU (the fullest GPU)", memory_text(p.memory));
  if (const std::string flops = flops_note(); !flops.empty()) {
    host.note(NotePlacement::after, "FLOPs", flops);
  }
  host.note(NotePlacement::after, "Projection", projection_note());
}

}  // namespace dgx::llm::workload
