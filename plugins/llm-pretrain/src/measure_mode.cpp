#include "measure_mode.hpp"

#include <dgx/sdk/error.hpp>

#include "dgx/llm/device_peak.hpp"
#include "dgx/llm/kernels/measured_layer.hpp"
#include "dgx/llm/kernels/measured_ops.hpp"
#include "dgx/llm/kernels/metrics.hpp"
#include "dgx/llm/layer_ops.hpp"
#include "dgx/llm/memory_model.hpp"
#include "dgx/llm/op_time.hpp"
#include "dgx/llm/step_model.hpp"
#include "rows.hpp"

namespace dgx::plugins::llm_pretrain {

namespace {

using dgx::sdk::NotePlacement;

constexpr int kProfileRepeats = 5;  // each op is the median of this many profiled steps

llm::ShapeKey shape_of(const llm::TrainConfig& t, int seq_len) {
  return {t.layout.tp, t.layout.cp, t.layout.ep, t.mbs, seq_len, t.precision, t.recompute};
}

}  // namespace

void require_layer_probe() {
  if (const std::string reason = llm::kernels::layer_probe_unavailable(); !reason.empty())
    throw dgx::sdk::NoDevice(reason);
}

MeasureMode::MeasureMode(const dgx::sdk::Host& host, const PretrainSettings& settings, const Assumptions& assumptions)
    : host_(host), settings_(settings), assumptions_(assumptions) {}

void MeasureMode::setup() {
  // The measured times are this GPU's: project a cluster of this GPU, whatever system the preset named.
  probe_ = llm::kernels::make_layer_probe(llm::kernels::layer_spec_for(assumptions_.model, train_for(0)));
  device_ = probe_->device();
  const auto system = llm::kernels::measured_system(host_, device_, assumptions_.system.name);
  if (system && *system != assumptions_.system.name) {
    settings_.system = *system;
    assumptions_ = resolve_assumptions(settings_);
  }
  host_.note(NotePlacement::before, "Measured",
             "One " + assumptions_.model.display + " layer, forward and backward, measured on " + device_ +
                 " at the per-rank shapes of " + layout_label(settings_.train, assumptions_.model.moe()) +
                 " (the layout's TP, CP, EP and micro-batch; communication is not run: the model adds it). Its op "
                 "times (CUDA events, median of " +
                 std::to_string(kProfileRepeats) +
                 " profiled steps) replace the model's estimates for the same ops in the projected rows "
                 "(\"measured-calibrated\"); everything else is the model's.");
}

llm::TrainConfig MeasureMode::train_for(std::size_t index) const {
  llm::TrainConfig train = settings_.train;
  train.precision = settings_.precisions.at(index);
  if (train.seq_len == 0) train.seq_len = assumptions_.model.seq_len;
  return train;
}

dgx::sdk::Case MeasureMode::begin_case(std::size_t index) {
  const llm::TrainConfig train = train_for(index);
  if (index > 0) {
    probe_.reset();  // the previous layer's memory goes back first
    probe_ = llm::kernels::make_layer_probe(llm::kernels::layer_spec_for(assumptions_.model, train));
  }
  dgx::sdk::Case c;
  c.label = assumptions_.model.name + " layer " + std::string(llm::to_string(train.precision));
  c.set("precision", std::string(llm::to_string(train.precision)));
  c.set("device", device_);
  return c;
}

void MeasureMode::run(const dgx::sdk::SampleRequest& request, dgx::sdk::SampleResult& result) {
  llm::kernels::time_sample(*probe_, request, result);
}

void MeasureMode::end_case(std::size_t index, const dgx::sdk::Stats& stats) {
  const llm::TrainConfig train = train_for(index);
  const llm::kernels::LayerTiming timing = probe_->profile(kProfileRepeats);
  const llm::SystemProfile& system = assumptions_.system;

  // The measured layer, against the peak of the system it calibrates, and the model's figures for the same layer.
  llm::kernels::add_layer_metrics(host_, "layer.", timing, stats.median, llm::system_peak(system, train.precision), "");
  host_.add_metric("memory.model_activations",
                   llm::layer_activation_bytes(assumptions_.model, shape_of(train, train.seq_len)), "B",
                   DGX_METRIC_HIDDEN);

  // The measurement replaces the model's estimate of every op it timed; the cluster is projected from that.
  const llm::RooflineProvider roofline(system);
  llm::MeasuredOverrides measured(roofline);
  const llm::OpList ops = llm::transformer_layer_ops(assumptions_.model, system, shape_of(train, train.seq_len));
  const llm::kernels::MatchReport match = llm::kernels::apply_measurements(timing.ops, ops, measured);
  host_.add_metric("layer.ops_measured", match.matched, "count", DGX_METRIC_HIDDEN);
  host_.add_metric("layer.ops_modelled", match.model_ops, "count", DGX_METRIC_HIDDEN);

  llm::StepModel model(assumptions_.model, system, &measured);
  const auto projection = model.project(settings_.gpus, train, assumptions_.price);
  if (!projection)
    throw dgx::sdk::InvalidArgument(assumptions_.model.name + " on " + std::to_string(settings_.gpus) + " x " +
                                    system.name + ": " + projection.error().message);
  const llm::Projection& p = *projection;
  dgx::sdk::Row row =
      projected_row("measured-calibrated projection", assumptions_, p.train, headline_of(p), p.breakdown);
  row.field("layout", layout_label(p.train, assumptions_.model.moe()))
      .field("device", device_, DGX_FIELD_HIDDEN)
      .field("source", llm::kernels::measured_source(match, device_, system.name), DGX_FIELD_HIDDEN);
  add_memory_metrics(row, p.memory);
  host_.emit(row);
  llm::kernels::report_match(host_, match);
}

}  // namespace dgx::plugins::llm_pretrain
