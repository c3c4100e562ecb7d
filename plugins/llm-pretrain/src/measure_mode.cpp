#include "measure_mode.hpp"

#include <dgx/sdk/error.hpp>

#include "device_system.hpp"
#include "dgx/llm/layer_ops.hpp"
#include "dgx/llm/memory_model.hpp"
#include "dgx/llm/op_time.hpp"
#include "dgx/llm/step_model.hpp"
#include "format.hpp"
#include "measured_ops.hpp"
#include "rows.hpp"

namespace dgx::pretrain {

namespace {

using dgx::sdk::NotePlacement;

constexpr int kProfileRepeats = 5;  // each op is the median of this many profiled steps

llm::ShapeKey shape_of(const llm::TrainConfig& t, int seq_len) {
  return {t.layout.tp, t.layout.cp, t.layout.ep, t.mbs, seq_len, t.precision, t.recompute};
}

}  // namespace

void require_layer_probe() {
  if (const std::string reason = layer_probe_unavailable(); !reason.empty()) throw dgx::sdk::NoDevice(reason);
}

MeasureMode::MeasureMode(const dgx::sdk::Host& host, const PretrainSettings& settings, const Assumptions& assumptions)
    : host_(host), settings_(settings), assumptions_(assumptions) {}

void MeasureMode::setup() {
  // The measured times are this GPU's: project a cluster of this GPU, whatever system the preset named.
  probe_ = make_layer_probe(layer_spec_for(assumptions_.model, train_for(0)));
  device_ = probe_->device();
  const auto system = system_for_device(device_);
  if (system && *system != assumptions_.system.name) {
    host_.info("measuring on " + device_ + ": projecting " + *system + " (the configuration named " +
               assumptions_.system.name + ")");
    settings_.system = *system;
    assumptions_ = resolve_assumptions(settings_);
  } else if (!system) {
    host_.warn(device_ + " has no system profile: ops not measured and all communication come from the " +
               assumptions_.system.name + " profile");
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
    probe_ = make_layer_probe(layer_spec_for(assumptions_.model, train));
  }
  dgx::sdk::Case c;
  c.label = assumptions_.model.name + " layer " + std::string(llm::to_string(train.precision));
  c.set("precision", std::string(llm::to_string(train.precision)));
  c.set("device", device_);
  return c;
}

void MeasureMode::run(const dgx::sdk::SampleRequest& request, dgx::sdk::SampleResult& result) {
  result.seconds = probe_->time_steps(static_cast<int>(request.iterations), request.flush_cache);
  result.timing = dgx::sdk::Timing::device_events;
  result.cache = request.flush_cache ? dgx::sdk::CacheState::cold : dgx::sdk::CacheState::hot;
}

void MeasureMode::end_case(std::size_t index, const dgx::sdk::Stats& stats) {
  const llm::TrainConfig train = train_for(index);
  const llm::cuda::LayerTiming timing = probe_->profile(kProfileRepeats);
  const llm::SystemProfile& system = assumptions_.system;
  const double peak = system.dense_peak_flops(train.precision) / 1e12;

  // The measured layer, against the model's figures for the same layer.
  const double layer_tflops = timing.model_flops / stats.median / 1e12;
  host_.add_metric("layer.model_tflops", layer_tflops, "TFLOP/s", 0, "layer TFLOP/s");
  if (peak > 0) host_.add_metric("layer.mfu", 100 * layer_tflops / peak, "%", 0, "layer MFU %");
  host_.add_metric("layer.forward", timing.forward_seconds, "s", DGX_METRIC_HIDDEN);
  host_.add_metric("layer.backward", timing.backward_seconds, "s", DGX_METRIC_HIDDEN);
  host_.add_metric("memory.measured_peak", static_cast<double>(timing.peak_bytes), "B", 0, "peak mem");
  host_.add_metric("memory.measured_activations", static_cast<double>(timing.activation_bytes), "B", DGX_METRIC_HIDDEN);
  host_.add_metric("memory.model_activations",
                   llm::layer_activation_bytes(assumptions_.model, shape_of(train, train.seq_len)), "B",
                   DGX_METRIC_HIDDEN);

  // The measurement replaces the model's estimate of every op it timed; the cluster is projected from that.
  const llm::RooflineProvider roofline(system);
  llm::MeasuredOverrides measured(roofline);
  const llm::OpList ops = llm::transformer_layer_ops(assumptions_.model, system, shape_of(train, train.seq_len));
  const MatchReport match = apply_measurements(timing.ops, ops, measured);
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
      .field("source",
             "measured-calibrated projection: " + std::to_string(match.matched) + " of " +
                 std::to_string(match.model_ops) + " layer ops measured on " + device_ +
                 " (CUDA events); the rest, the first/last stage and all communication from dgx-llm-model on " +
                 system.name,
             DGX_FIELD_HIDDEN);
  add_memory_metrics(row, p.memory);
  host_.emit(row);
  if (!match.unmatched_model_ops.empty() || !match.extra_measured_ops.empty())
    host_.debug(std::to_string(match.unmatched_model_ops.size()) + " model ops kept their estimate; " +
                std::to_string(match.extra_measured_ops.size()) + " measured ops folded into the memory-bound ops (" +
                fixed(match.folded_seconds * 1e3, 3) + " ms)");
}

}  // namespace dgx::pretrain
