#include "measure_mode.hpp"

#include <dgx/sdk/error.hpp>

#include "assumptions.hpp"
#include "dgx/llm/device_peak.hpp"
#include "dgx/llm/finetune_memory.hpp"
#include "dgx/llm/finetune_ops.hpp"
#include "dgx/llm/kernels/measured_layer.hpp"
#include "dgx/llm/kernels/measured_ops.hpp"
#include "dgx/llm/kernels/metrics.hpp"
#include "dgx/llm/layer_ops.hpp"
#include "dgx/llm/op_time.hpp"
#include "dgx/llm/step_model.hpp"
#include "dgx/llm/workload/training_rows.hpp"
#include "rows.hpp"

namespace dgx::plugins::llm_finetune {

namespace {

using dgx::sdk::NotePlacement;
namespace kernels = llm::kernels;

constexpr int kProfileRepeats = 5;    // each op is the median of this many profiled steps
constexpr int kFrozenBaseSteps = 10;  // the frozen layer without adapters: steps timed back to back

llm::ShapeKey shape_of(const llm::TrainConfig& t) {
  return {t.layout.tp, t.layout.cp, t.layout.ep, t.mbs, t.seq_len, t.precision, t.recompute};
}

}  // namespace

void require_layer_probe() {
  if (const std::string reason = kernels::layer_probe_unavailable(); !reason.empty()) throw dgx::sdk::NoDevice(reason);
}

MeasureMode::MeasureMode(const dgx::sdk::Host& host, const FinetuneSettings& settings,
                         const llm::workload::Assumptions& assumptions, const FinetuneJob& job)
    : host_(host), settings_(settings), assumptions_(assumptions), job_(job) {}

void MeasureMode::setup() {
  // The measured times are this GPU's: project a cluster of this GPU, whatever system the preset named.
  probe_ = kernels::make_layer_probe(kernels::layer_spec_for(assumptions_.model, train_for(0), settings_.finetune));
  device_ = probe_->device();
  const auto system = llm::kernels::measured_system(host_, device_, assumptions_.system.name);
  if (system && *system != assumptions_.system.name) {
    settings_.system = *system;
    assumptions_ = resolve_finetune_assumptions(settings_);
  }
  const kernels::LayerSpec spec = kernels::layer_spec_for(assumptions_.model, train_for(0), settings_.finetune);
  host_.note(NotePlacement::before, "Measured",
             "One " + assumptions_.model.display + " layer as " +
                 method_label(settings_.finetune.method, settings_.finetune.lora) +
                 " trains it, forward and backward, "
                 "measured on " +
                 device_ + " at the per-rank shapes of " +
                 llm::workload::layout_label(settings_.train, assumptions_.model.moe()) +
                 (spec.sample_len > 0 ? ", samples packed " + std::to_string(spec.sample_len) + " tokens long" : "") +
                 " (" + kernels::describe(spec) +
                 "; communication is not run: the model adds it). Its op times (CUDA events, median of " +
                 std::to_string(kProfileRepeats) +
                 " profiled steps) replace the model's estimates for the same ops in the projected rows "
                 "(\"measured-calibrated\"); everything else is the model's." +
                 (settings_.finetune.lora_method() ? " The frozen layer without adapters is timed too: "
                                                     "layer.adapter_overhead is the LoRA layer's step over its."
                                                   : ""));
}

llm::TrainConfig MeasureMode::train_for(std::size_t index) const {
  llm::TrainConfig train = settings_.train;
  train.precision = settings_.precisions.at(index);
  train.seq_len = job_.seq_len;
  return train;
}

dgx::sdk::Case MeasureMode::begin_case(std::size_t index) {
  const llm::TrainConfig train = train_for(index);
  if (index > 0) {
    probe_.reset();  // the previous layer's memory goes back first
    probe_ = kernels::make_layer_probe(kernels::layer_spec_for(assumptions_.model, train, settings_.finetune));
  }
  dgx::sdk::Case c;
  c.label = assumptions_.model.name + " " + std::string(llm::to_string(settings_.finetune.method)) + " layer " +
            std::string(llm::to_string(train.precision));
  c.set("precision", std::string(llm::to_string(train.precision)));
  c.set("method", std::string(llm::to_string(settings_.finetune.method)));
  c.set("device", device_);
  return c;
}

void MeasureMode::run(const dgx::sdk::SampleRequest& request, dgx::sdk::SampleResult& result) {
  llm::kernels::time_sample(*probe_, request, result);
}

double MeasureMode::frozen_base_seconds(const llm::TrainConfig& train) const {
  kernels::LayerSpec spec = kernels::layer_spec_for(assumptions_.model, train, settings_.finetune);
  spec.lora.qkv = spec.lora.proj = spec.lora.fc1 = spec.lora.fc2 = false;
  const auto frozen = kernels::make_layer_probe(spec);
  (void)frozen->time_steps(2, false);  // warm-up
  return frozen->time_steps(kFrozenBaseSteps, false) / kFrozenBaseSteps;
}

void MeasureMode::end_case(std::size_t index, const dgx::sdk::Stats& stats) {
  const llm::TrainConfig train = train_for(index);
  const kernels::LayerTiming timing = probe_->profile(kProfileRepeats);
  const llm::SystemProfile& system = assumptions_.system;
  const llm::FineTune& f = settings_.finetune;

  // The measured layer, against the peak of the system it calibrates, and the model's figures for the same layer.
  kernels::add_layer_metrics(host_, "layer.", timing, stats.median, llm::system_peak(system, train.precision), "");
  host_.add_metric("memory.model_activations", llm::finetune_activation_bytes(assumptions_.model, shape_of(train), f),
                   "B", DGX_METRIC_HIDDEN);
  if (f.lora_method()) {
    const double frozen = frozen_base_seconds(train);
    host_.add_metric("layer.frozen_base_time", frozen, "s");
    host_.add_metric("layer.adapter_overhead", frozen > 0 ? stats.median / frozen : 0.0, "1");
  }

  // The measurement replaces the model's estimate of every op it timed; the cluster is projected from that.
  const llm::RooflineProvider roofline(system);
  llm::MeasuredOverrides measured(roofline);
  llm::OpList ops = llm::transformer_layer_ops(assumptions_.model, system, shape_of(train));
  llm::apply_finetune(ops, llm::StepChunk::layer, assumptions_.model, system, shape_of(train), f);
  const kernels::MatchReport match = kernels::apply_measurements(timing.ops, ops, measured);
  host_.add_metric("layer.ops_measured", match.matched, "count", DGX_METRIC_HIDDEN);
  host_.add_metric("layer.ops_modelled", match.model_ops, "count", DGX_METRIC_HIDDEN);

  llm::StepModel model(assumptions_.model, system, &measured);
  model.set_finetune(f);
  const auto projection = model.project(settings_.gpus, train, assumptions_.price);
  if (!projection)
    throw dgx::sdk::InvalidArgument(assumptions_.model.name + " " + method_label(f.method, f.lora) + " on " +
                                    std::to_string(settings_.gpus) + " x " + system.name + ": " +
                                    projection.error().message);
  const llm::Projection& p = *projection;
  const RowContext context{settings_, assumptions_, job_};
  dgx::sdk::Row row = finetune_row("measured-calibrated projection", context, f.method, p.train,
                                   llm::workload::headline_of(p), p.breakdown);
  row.field("layout", llm::workload::layout_label(p.train, assumptions_.model.moe()))
      .field("device", device_, DGX_FIELD_HIDDEN)
      .field("source", llm::kernels::measured_source(match, device_, system.name), DGX_FIELD_HIDDEN);
  llm::workload::add_memory_metrics(row, p.memory);
  host_.emit(row);
  llm::kernels::report_match(host_, match);
}

}  // namespace dgx::plugins::llm_finetune
