#include "dgx/llm/serve_validation.hpp"

#include <doctest/doctest.h>

#include "dgx/llm/serve_engine.hpp"

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace dgx::llm;

namespace {

/// Synthetic rows measured as a known correction of the model's features would have them.
std::vector<CalibrationSample> synthetic(const EngineCalibration& truth, int stacks, int per_stack) {
  std::vector<CalibrationSample> out;
  for (int s = 0; s < stacks; ++s) {
    for (int i = 0; i < per_stack; ++i) {
      const ServeFeatures f{.ttft = 0.02 + 0.01 * i,
                            .tpot = 0.005 + 0.002 * (i % 5) + 0.001 * s,
                            .wave = 0.1 * (i % 7),
                            .kernels = 500.0 + 100 * (i % 3) + 50 * s};
      out.push_back({.stack = "stack" + std::to_string(s),
                     .model = f,
                     .ttft = calibrated_ttft(truth, f),
                     .tpot = calibrated_tpot(truth, f)});
    }
  }
  return out;
}

}  // namespace

TEST_CASE("the fit recovers a correction the rows follow exactly, and counts rows and stacks") {
  EngineCalibration truth;
  truth.tpot_scale = 0.8;
  truth.tpot_offset = 0.003;
  truth.tpot_per_kernel = 2e-6;
  truth.ttft_scale = 1.5;
  truth.ttft_wave = 0.2;
  truth.ttft_iterations = 2;
  truth.ttft_offset = 0.05;
  const EngineCalibration fit = fit_calibration(synthetic(truth, 4, 20));
  CHECK(fit.tpot_scale == doctest::Approx(0.8).epsilon(1e-6));
  CHECK(fit.tpot_offset == doctest::Approx(0.003).epsilon(1e-6));
  CHECK(fit.tpot_per_kernel == doctest::Approx(2e-6).epsilon(1e-6));
  CHECK(fit.ttft_scale == doctest::Approx(1.5).epsilon(1e-6));
  CHECK(fit.ttft_wave == doctest::Approx(0.2).epsilon(1e-6));
  CHECK(fit.ttft_iterations == doctest::Approx(2).epsilon(1e-6));
  CHECK(fit.ttft_offset == doctest::Approx(0.05).epsilon(1e-6));
  CHECK(fit.rows == 80);
  CHECK(fit.stacks == 4);
}

TEST_CASE("a term that would enter negatively is dropped, not fitted below zero") {
  EngineCalibration truth;
  truth.ttft_scale = 1;
  truth.ttft_wave = 0;
  truth.ttft_offset = 0;
  std::vector<CalibrationSample> rows = synthetic(truth, 2, 30);
  // Measured TTFT falls as the wave grows: a negative wave coefficient would fit best.
  for (CalibrationSample& r : rows) {
    r.ttft = std::max(0.001, r.model.ttft - 0.05 * r.model.wave);
  }
  const EngineCalibration fit = fit_calibration(rows);
  CHECK(fit.ttft_wave == 0);
  CHECK(fit.ttft_scale >= 0);
  CHECK(fit.ttft_offset >= 0);
}

TEST_CASE("a few rows off by a factor do not pull the correction of the others (Huber weights)") {
  EngineCalibration truth;
  truth.tpot_scale = 1;
  truth.tpot_offset = 0.002;
  std::vector<CalibrationSample> rows = synthetic(truth, 3, 40);
  for (int i = 0; i < 6; ++i) {
    rows[static_cast<std::size_t>(i)].tpot *= 10;  // a layout the model does not describe
  }
  const EngineCalibration fit = fit_calibration(rows);
  CHECK(fit.tpot_scale == doctest::Approx(1).epsilon(0.05));
}

TEST_CASE("leave-one-stack-out predicts each stack with a fit that never saw it") {
  EngineCalibration truth;
  truth.tpot_scale = 2;
  truth.ttft_scale = 1;
  std::vector<CalibrationSample> rows = synthetic(truth, 5, 10);
  // One stack runs 50% slower than the others: its held-out prediction cannot know it.
  for (CalibrationSample& r : rows) {
    if (r.stack == "stack1") {
      r.tpot *= 1.5;
    }
  }
  const std::vector<CrossValidated> cv = leave_one_stack_out(rows);
  REQUIRE(cv.size() == rows.size());
  for (const CrossValidated& v : cv) {
    if (v.sample.stack == "stack1") {
      CHECK(v.tpot_error() == doctest::Approx(1 / 1.5 - 1).epsilon(0.02));
    } else {
      CHECK(std::abs(v.tpot_error()) < 0.3);  // the slow stack is in these folds, down-weighted
    }
  }
  const EngineCalibration c = calibrate(rows, cv);
  CHECK(c.cv_tpot > 0.05);
  CHECK(c.band_tpot >= c.cv_tpot);
}

TEST_CASE("each engine profile's calibration is what the measured set gives: refit here, it matches the file") {
  // configs/engines/*.toml are written by bench_inference_calibration --write-profiles; a change to the serving
  // model that moves the fit must rerun it (the profiles and libs/llm-model/README.md's table follow).
  std::ifstream in(std::string(DGX_SOURCE_DIR) + "/configs/baselines/serving-measured.csv");
  std::stringstream text;
  text << in.rdbuf();
  const auto rows = parse_serving_measured(text.str(), "serving-measured.csv");
  REQUIRE(rows);
  const std::vector<MeasuredProjection> projected = project_measured(*rows);
  std::size_t failed = 0;
  for (const MeasuredProjection& p : projected) {
    failed += p.failure.empty() ? 0 : 1;
  }
  CHECK(failed < projected.size() / 5);  // the layouts the model refuses, a few hundred rows
  for (const ServeEngine engine : {ServeEngine::trtllm, ServeEngine::vllm, ServeEngine::sglang}) {
    CAPTURE(to_string(engine));
    const EngineCalibration fit = calibrate_engine(projected, engine);
    const EngineProfile* profile = engine_profile(engine);
    REQUIRE(profile != nullptr);
    const EngineCalibration& file = profile->calibration;
    CHECK(file.rows == fit.rows);
    CHECK(file.stacks == fit.stacks);
    const auto same = [](double written, double fitted, double unit) {
      return std::abs(written - fitted) <= 1e-4 * unit + 1e-6 * std::abs(fitted);  // the file's four decimals
    };
    CHECK(same(file.tpot_scale, fit.tpot_scale, 1));
    CHECK(same(file.tpot_per_kernel, fit.tpot_per_kernel, 1e-6));
    CHECK(same(file.tpot_offset, fit.tpot_offset, 1e-3));
    CHECK(same(file.ttft_scale, fit.ttft_scale, 1));
    CHECK(same(file.ttft_wave, fit.ttft_wave, 1));
    CHECK(same(file.ttft_iterations, fit.ttft_iterations, 1));
    CHECK(same(file.ttft_offset, fit.ttft_offset, 1e-2));
    CHECK(same(file.cv_tpot, fit.cv_tpot, 1));
    CHECK(same(file.band_ttft, fit.band_ttft, 1));
  }
}
