#include "assumptions.hpp"

#include <set>
#include <utility>

#include "dgx/llm/serve_calibration.hpp"
#include "dgx/llm/workload/catalog_lookup.hpp"
#include "params.hpp"
#include <dgx/sdk/text.hpp>

namespace dgx::plugins::llm_inference {

namespace {

struct CalibrationLine {
  std::string text;
  std::set<std::string> systems;
};

CalibrationLine calibrate() {
  const auto rows = llm::load_serve_calibration();
  if (!rows) {
    return {"serving calibration set unavailable: " + rows.error().message, {}};
  }
  CalibrationLine line;
  std::string systems;
  for (const llm::ServeCalibrationRow& row : *rows) {
    if (line.systems.insert(row.system).second) {
      systems += (systems.empty() ? "" : ", ") + row.system;
    }
  }
  const llm::ErrorStats all = llm::serve_error_stats(llm::run_serve_calibration(*rows)).back();
  line.text = "configs/baselines/inference.md: mean " + dgx::sdk::text::fixed(100 * all.mean_abs, 1) + "%, max " +
              dgx::sdk::text::fixed(100 * all.max_abs, 1) + "% over " + std::to_string(all.rows - all.failed) +
              " published TensorRT-LLM offline throughputs on " + systems;
  return line;
}

}  // namespace

Assumptions resolve_assumptions(const InferenceSettings& settings) {
  Assumptions a;
  a.model = llm::workload::lookup_model(settings.model, key::model);
  a.system = llm::workload::lookup_system(settings.system, key::system);
  llm::workload::PriceResolution price = llm::workload::resolve_price(
      settings.system, settings.provider, settings.usd_per_gpu_hour, {key::provider, key::usd_per_gpu_hour});
  a.price = price.price;
  a.price_reason = std::move(price.reason);
  a.providers = std::move(price.providers);
  a.calibration = serving_calibration_summary(a.system);
  return a;
}

std::string serving_calibration_summary(const llm::SystemProfile& system) {
  static const CalibrationLine line = calibrate();
  if (line.systems.empty() || line.systems.contains(system.name)) {
    return line.text;
  }
  return line.text + "; " + system.name + " is uncalibrated (it shares the calibrated systems' efficiencies)";
}

}  // namespace dgx::plugins::llm_inference
