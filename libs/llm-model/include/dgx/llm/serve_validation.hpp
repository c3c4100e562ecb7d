// Fitting and cross-validating an engine's calibration (serve_engine.hpp) on measured serving rows
// (serve_measured.hpp): the physical model's TTFT, TPOT and prefill wave per row, an affine correction per engine and
// mode fitted by least squares on relative errors, and leave-one-stack-out cross-validation (every stack's rows
// predicted by a correction fitted without them).
#pragma once

#include "dgx/llm/serve_engine.hpp"
#include "dgx/llm/serve_measured.hpp"

#include <string>
#include <vector>

namespace dgx::llm {

/// One measured row with the model's features: what a calibration is fitted to.
struct CalibrationSample {
  std::string stack;
  ServeFeatures model;
  double ttft = 0, tpot = 0;  ///< measured, seconds
};

/// The correction that minimises Huber's loss of the relative errors of `samples` (squared up to 25 %, linear beyond)
/// (coefficients kept non-negative: a term that would enter negatively is dropped and the rest refitted); rows and
/// stacks counted, no CV statistics.
[[nodiscard]] EngineCalibration fit_calibration(const std::vector<CalibrationSample>& samples);

/// Each sample's cross-validated prediction: fitted on the samples of every other stack.
struct CrossValidated {
  CalibrationSample sample;
  double ttft = 0, tpot = 0;  ///< predicted, seconds
  [[nodiscard]] double ttft_error() const { return ttft / sample.ttft - 1; }
  [[nodiscard]] double tpot_error() const { return tpot / sample.tpot - 1; }
};
[[nodiscard]] std::vector<CrossValidated> leave_one_stack_out(const std::vector<CalibrationSample>& samples);

/// The fit on all samples with the cross-validation's mean |error| and 90th-percentile |error| (the band).
[[nodiscard]] EngineCalibration calibrate(const std::vector<CalibrationSample>& samples,
                                          const std::vector<CrossValidated>& validated);

/// One measured row projected by the physical model (no calibration): its sample, or why it cannot be projected
/// (a layout the model refuses, no stated concurrency, a model or system not in the catalog).
struct MeasuredProjection {
  MeasuredServing row;
  CalibrationSample sample;
  std::string failure;  ///< empty: projected
};
[[nodiscard]] std::vector<MeasuredProjection> project_measured(const std::vector<MeasuredServing>& rows);

/// An engine's calibration as its profile holds it: fitted to the engine's projected aggregated rows, with their
/// leave-one-stack-out cross-validation (`validated`, when given, receives it).
[[nodiscard]] EngineCalibration calibrate_engine(const std::vector<MeasuredProjection>& projected, ServeEngine engine,
                                                 std::vector<CrossValidated>* validated = nullptr);

}  // namespace dgx::llm
