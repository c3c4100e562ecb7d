// llm-inference's measure mode (Serving::Measure), on a machine with a GPU: one decoder layer of the model at the
// replica's per-rank shapes, with a paged KV cache, running the configuration's decode iteration (its steady-state
// decoding batch at the mean context) and its chunk iteration (the same plus a prompt chunk), timed by the host's
// runner (the decode iteration) and profiled op by op; the measured op times replace the serving model's estimates
// (MeasuredRatios, libs/llm-workload) and the replica is projected from them: a "measured-calibrated projection" row
// beside the measured layer's.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include <dgx/sdk/host.hpp>
#include <dgx/sdk/workload.hpp>

#include "dgx/llm/kernels/serve_spec.hpp"
#include "dgx/llm/serve_model.hpp"
#include "serve_probe.hpp"

namespace dgx::plugins::llm_inference {

class Serving;

/// can_measure: throws dgx::sdk::NoDevice when no layer can be measured here, and dgx::sdk::Unsupported for a
/// configuration the measured path does not run (a MoE model, nvfp4 / mxfp8): auto mode then projects.
void require_serve_probe(const dgx::sdk::Host& host);

class ServeMeasure {
public:
  /// Measures a copy of `serving`, which setup() may move to the measured device's system.
  ServeMeasure(const dgx::sdk::Host& host, const Serving& serving);
  ServeMeasure(const ServeMeasure&) = delete;
  ServeMeasure& operator=(const ServeMeasure&) = delete;
  ServeMeasure(ServeMeasure&&) = delete;
  ServeMeasure& operator=(ServeMeasure&&) = delete;
  ~ServeMeasure();

  /// Builds the layer for the configuration's steady state (untimed).
  void setup();
  [[nodiscard]] std::size_t case_count() const { return 1; }
  [[nodiscard]] dgx::sdk::Case begin_case(std::size_t index);
  void run(const dgx::sdk::SampleRequest& request, dgx::sdk::SampleResult& result);
  /// Profiles the layer, adds the measured row's metrics and emits the measured-calibrated projection.
  void end_case(std::size_t index, const dgx::sdk::Stats& stats);

private:
  const dgx::sdk::Host& host_;
  std::unique_ptr<Serving> serving_;
  llm::ServeProjection modelled_;  ///< the roofline projection whose operating point is measured
  llm::kernels::ServeLayerSpec spec_;
  std::unique_ptr<ServeProbe> probe_;
  std::string device_;
};

}  // namespace dgx::plugins::llm_inference
