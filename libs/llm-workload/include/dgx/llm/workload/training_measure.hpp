// Measure mode of a training workload (Training::Measure), on a machine with a GPU: the job's layer (Training::
// layer_spec) at the configuration's per-rank shapes (TP, CP, EP, MBS, sequence length), once per precision, timed by
// the host's loop; then the measured op times replace the model's estimates, op by op, and the cluster is projected
// from them (project_measured). The rows say so: "measured-calibrated", with the device named, for the measured
// device's system.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include <dgx/sdk/host.hpp>
#include <dgx/sdk/workload.hpp>

#include "dgx/llm/kernels/layer_probe.hpp"
#include "dgx/llm/kernels/measured_ops.hpp"
#include "dgx/llm/step_model.hpp"
#include "dgx/llm/workload/training.hpp"

namespace dgx::llm::workload {

/// Each measured op is the median of this many profiled steps.
inline constexpr int kProfileRepeats = 5;

/// Throws dgx::sdk::NoDevice when no layer can be measured here.
void require_layer_probe();
/// A training workload's can_measure (PluginInfo): require_layer_probe.
void can_measure_layer(dgx::sdk::Host& host);

/// The per-rank shapes of `train` (its sequence length set), as the layer's op list and memory take them.
[[nodiscard]] ShapeKey layer_shape(const TrainConfig& train);

/// A cluster projected from a measured layer, and how the measurement met the model's ops.
struct MeasuredProjection {
  Projection projection;
  kernels::MatchReport match;
};

/// The measured op times of `timing` replace the model's estimates of the same ops of the job's layer (Training::
/// layer_ops), the host's current case counts them (layer.ops_measured, layer.ops_modelled), and the job's step model
/// projects the configuration's cluster from them. Throws dgx::sdk::InvalidArgument when the configuration cannot
/// run, with the model's reason.
[[nodiscard]] MeasuredProjection project_measured(const dgx::sdk::Host& host, const Training& job,
                                                  const kernels::LayerTiming& timing, const TrainConfig& train);

class TrainingMeasure {
public:
  /// Measures a copy of `job`, which setup() may move to the measured device's system.
  template <class Job>
  TrainingMeasure(const dgx::sdk::Host& host, const Job& job) : host_(host), job_(std::make_unique<Job>(job)) {}

  /// Builds the first case's layer and projects the device's system profile when the catalog has one.
  void setup();
  [[nodiscard]] std::size_t case_count() const { return job_->training().precisions.size(); }
  dgx::sdk::Case begin_case(std::size_t index);
  void run(const dgx::sdk::SampleRequest& request, dgx::sdk::SampleResult& result);
  /// Profiles the layer, adds its metrics and emits the measured-calibrated projection.
  void end_case(std::size_t index, const dgx::sdk::Stats& stats);

private:
  /// The configuration's training at the precision of case `index`, with its sequence length.
  [[nodiscard]] TrainConfig train_for(std::size_t index) const;

  const dgx::sdk::Host& host_;
  std::unique_ptr<Training> job_;
  std::string device_;
  std::unique_ptr<kernels::LayerProbe> probe_;
};

}  // namespace dgx::llm::workload
