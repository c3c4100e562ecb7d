#include "dgx/llm/workload/training_measure.hpp"

#include <dgx/sdk/error.hpp>

#include "dgx/llm/device_peak.hpp"
#include "dgx/llm/kernels/measured_layer.hpp"
#include "dgx/llm/kernels/metrics.hpp"
#include "dgx/llm/op_time.hpp"

namespace dgx::llm::workload {

void require_layer_probe() {
  if (const std::string reason = kernels::layer_probe_unavailable(); !reason.empty()) {
    throw dgx::sdk::NoDevice(reason);
  }
}

void can_measure_layer(dgx::sdk::Host& /*host*/) { require_layer_probe(); }

ShapeKey layer_shape(const TrainConfig& t) {
  return {t.layout.tp, t.layout.cp, t.layout.ep, t.mbs, t.seq_len, t.precision, t.recompute};
}

MeasuredProjection project_measured(const dgx::sdk::Host& host, const Training& job, const kernels::LayerTiming& timing,
                                    const TrainConfig& train) {
  const Assumptions& a = job.assumptions();
  const RooflineProvider roofline(a.system);
  MeasuredOverrides measured(roofline);
  const kernels::MatchReport match =
      kernels::apply_measurements(timing.ops, job.layer_ops(layer_shape(train)), measured);
  host.add_metric("layer.ops_measured", match.matched, "count", DGX_METRIC_HIDDEN);
  host.add_metric("layer.ops_modelled", match.model_ops, "count", DGX_METRIC_HIDDEN);
  StepModel model(a.model, a.system, &measured);
  job.configure(model);
  const int gpus = job.training().gpus;
  auto projection = model.project(gpus, train, a.price);
  if (!projection) {
    const std::string m = job.method();
    throw dgx::sdk::InvalidArgument(a.model.name + (m.empty() ? "" : " " + m) + " on " + std::to_string(gpus) + " x " +
                                    a.system.name + ": " + projection.error().message);
  }
  return MeasuredProjection{.projection = std::move(projection).value(), .match = match};
}

TrainConfig TrainingMeasure::train_for(std::size_t index) const {
  TrainConfig train = job_->training().train;
  train.precision = job_->training().precisions.at(index);
  if (train.seq_len == 0) {
    train.seq_len = job_->assumptions().model.seq_len;
  }
  return train;
}

void TrainingMeasure::setup() {
  // The measured times are this GPU's: project a cluster of this GPU, whatever system the preset named.
  probe_ = kernels::make_layer_probe(job_->layer_spec(train_for(0)));
  device_ = probe_->device();
  const std::string configured = job_->assumptions().system.name;
  if (const auto system = kernels::measured_system(host_, device_, configured); system && *system != configured) {
    job_->use_system(*system);
  }
  host_.note(dgx::sdk::NotePlacement::before, "Measured", job_->measured_note(device_, job_->layer_spec(train_for(0))));
}

dgx::sdk::Case TrainingMeasure::begin_case(std::size_t index) {
  const TrainConfig train = train_for(index);
  if (index > 0) {
    probe_.reset();  // the previous layer's memory goes back first
    probe_ = kernels::make_layer_probe(job_->layer_spec(train));
  }
  const std::string precision(to_string(train.precision));
  dgx::sdk::Case c;
  c.label = job_->assumptions().model.name + " " + job_->layer_name() + " " + precision;
  c.set("precision", precision);
  job_->add_case_keys(c);
  c.set("device", device_);
  return c;
}

void TrainingMeasure::run(const dgx::sdk::SampleRequest& request, dgx::sdk::SampleResult& result) {
  kernels::time_sample(*probe_, request, result);
}

void TrainingMeasure::end_case(std::size_t index, const dgx::sdk::Stats& stats) {
  const TrainConfig train = train_for(index);
  const kernels::LayerTiming timing = probe_->profile(kProfileRepeats);
  const Assumptions& a = job_->assumptions();

  // The measured layer, against the peak of the system it calibrates, and the model's figures for the same layer.
  kernels::add_layer_metrics(host_, "layer.", timing, stats.median, system_peak(a.system, train.precision), "");
  host_.add_metric("memory.model_activations", job_->activation_bytes(layer_shape(train)), "B", DGX_METRIC_HIDDEN);
  job_->add_measured_metrics(host_, train, stats.median);

  // The measurement replaces the model's estimate of every op it timed; the cluster is projected from that.
  const MeasuredProjection measured = project_measured(host_, *job_, timing, train);
  const Projection& p = measured.projection;
  dgx::sdk::Row row = job_->projected_row("measured-calibrated projection", p.train, headline_of(p), p.breakdown);
  row.field("layout", layout_label(p.train, a.model.moe()))
      .field("device", device_, DGX_FIELD_HIDDEN)
      .field("source", kernels::measured_source(measured.match, device_, a.system.name), DGX_FIELD_HIDDEN);
  add_memory_metrics(row, p.memory);
  host_.emit(row);
  kernels::report_match(host_, measured.match);
}

}  // namespace dgx::llm::workload
