#include "dgx/llm/serve_calibration.hpp"

#include "dgx/llm/calibration_scope.hpp"
#include "dgx/llm/catalog.hpp"
#include "dgx/llm/serve_model.hpp"

#include "baseline_rows.hpp"
#include "dgx/catalog/toml_table.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

namespace dgx::llm {

namespace {

using catalog::TomlTable;

constexpr std::string_view kFile = "baselines/inference.toml";

ServeCalibrationRow read_serve_row(const TomlTable& t) {
  ServeCalibrationRow row;
  row.section = t.string("section");
  row.label = t.string("label");
  row.model = t.string("model");
  row.system = t.string("system");
  ServeConfig& c = row.config;
  c.layout = ServeLayout{.tp = t.positive_int("tp"),
                         .pp = t.contains("pp") ? t.positive_int("pp") : 1,
                         .ep = t.contains("ep") ? t.positive_int("ep") : 1};
  c.precision = catalog::parse_enum(t, "precision", parse_precision, "bf16, fp8, mxfp8, nvfp4");
  c.kv_precision = catalog::parse_enum(t, "kv_precision", parse_precision, "bf16, fp8, nvfp4");
  c.isl = t.positive_int("isl");
  c.osl = t.positive_int("osl");
  c.concurrency = t.contains("concurrency") ? static_cast<int>(t.integer("concurrency")) : 0;
  c.kv_cache_fraction = t.number("kv_cache_fraction");
  row.published = t.number("published");
  row.source = t.string("source");
  return row;
}

}  // namespace

Expected<std::vector<ServeCalibrationRow>> parse_serve_calibration(std::string_view toml_text, std::string_view file) {
  return detail::read_baseline_rows(toml_text, file, read_serve_row);
}

Expected<std::vector<ServeCalibrationRow>> load_serve_calibration() {
  return detail::parse_embedded(kFile, parse_serve_calibration);
}

std::vector<ServeCalibrationOutcome> run_serve_calibration(const std::vector<ServeCalibrationRow>& rows) {
  std::map<std::string, std::unique_ptr<ServeModel>> models;
  std::vector<ServeCalibrationOutcome> outcomes;
  for (const ServeCalibrationRow& row : rows) {
    ServeCalibrationOutcome outcome{.row = row, .projected = 0, .error = 0, .failure = {}};
    const std::string key = row.model + "@" + row.system;
    if (!models.contains(key)) {
      auto model = find_model(row.model);
      auto system = find_system(row.system);
      if (!model || !system) {
        outcome.failure = !model ? model.error().message : system.error().message;
        outcomes.push_back(outcome);
        continue;
      }
      models[key] = std::make_unique<ServeModel>(std::move(model).value(), std::move(system).value());
    }
    const auto projection = models[key]->project(row.config);
    if (!projection) {
      outcome.failure = projection.error().message;
    } else {
      outcome.projected = projection->output_tokens_per_s;
      outcome.error = (outcome.projected - row.published) / row.published;
    }
    outcomes.push_back(outcome);
  }
  return outcomes;
}

ServeExpectedError expected_error(const ServeProjection& p, const ModelConfig& model) {
  ServeExpectedError e{.throughput = 0.08, .tpot = 0.15, .ttft = 0.25, .e2e = 0.15, .reasons = {}};
  e.reasons.emplace_back("offline throughput of dense models within the calibration set's largest error (7.4% on "
                         "configs/baselines/inference.md); latencies derived, with no published latency to check");
  if (!p.offline) {
    e.throughput = 0.12;
    e.reasons.emplace_back("under a latency-bound load the per-iteration overheads weigh more");
  }
  if (model.moe() || model.mla() || p.config.layout.attention_dp) {
    e.throughput += 0.15;
    e.tpot += 0.15;
    e.ttft += 0.1;
    e.reasons.emplace_back("MoE, MLA and attention DP are modelled from their parts (balanced routing, no expert "
                           "skew), with no published serving run in the calibration set");
  }
  if (const std::string kinds = uncalibrated_layer_kinds(model); !kinds.empty()) {
    e.throughput += 0.15;
    e.tpot += 0.15;
    e.ttft += 0.1;
    e.reasons.push_back("layer kinds with no published serving run (" + kinds +
                        "): their scans and recurrent steps are modelled from their algorithms at the system's "
                        "attention and memory efficiencies");
  }
  if (!is_gemm_precision(p.config.precision)) {
    e.throughput += 0.1;
    e.tpot += 0.1;
    e.reasons.push_back(std::string(to_string(p.config.precision)) +
                        " weights: their mixed-input or block-scaled kernels have no published serving run here");
  }
  if (p.disaggregation) {
    e.throughput = std::max(e.throughput, 0.25);
    e.ttft += 0.15;
    e.reasons.emplace_back("disaggregated: a rate-matched steady state; the KV transfer's software path is an "
                           "estimate");
  }
  if (p.config.speculative.active()) {
    e.reasons.emplace_back("speculative decoding: TPOT and throughput scale with the acceptance you gave (quality "
                           "and acceptance are not modelled)");
  }
  if (p.open_loop) {
    const bool near = p.saturated || p.config.request_rate > 0.7 * p.saturation_rate;
    e.ttft = std::max(e.ttft, near ? 0.5 : 0.3);
    e.reasons.emplace_back(near ? "open-loop TTFT near saturation: queueing multiplies any error of the service time "
                                  "(10% at 90% load doubles the wait); the hardest metric to project"
                                : "open-loop TTFT: queueing in the simulation, the hardest metric to project (10% is "
                                  "good in published simulators)");
  }
  if (p.calibration) {
    // Calibrated on measured closed-loop rows: the band is what the cross-validation left (its 90th percentile).
    const EngineCalibration& c = *p.calibration;
    e.tpot = c.band_tpot;
    e.ttft = p.open_loop ? e.ttft : c.band_ttft;  // open loop: TTFT is the simulation's, not corrected
    e.throughput = std::max(e.throughput, c.band_tpot);
    e.reasons.push_back(p.engine + " calibrated on " + std::to_string(c.rows) + " measured rows of " +
                        std::to_string(c.stacks) + " stacks (configs/baselines/serving-measured.csv): TTFT ±" +
                        std::to_string(static_cast<int>(std::lround(100 * c.band_ttft))) + "%, TPOT ±" +
                        std::to_string(static_cast<int>(std::lround(100 * c.band_tpot))) +
                        "% hold 9 in 10 rows of stacks left out of the fit (mean error " +
                        std::to_string(static_cast<int>(std::lround(100 * c.cv_ttft))) + "% and " +
                        std::to_string(static_cast<int>(std::lround(100 * c.cv_tpot))) + "%)");
  }
  e.e2e = std::max(e.tpot, 0.5 * (e.tpot + e.ttft));
  return e;
}

std::vector<ErrorStats> serve_error_stats(const std::vector<ServeCalibrationOutcome>& outcomes) {
  std::vector<CalibrationOutcome> as_training;
  as_training.reserve(outcomes.size());
  for (const ServeCalibrationOutcome& o : outcomes) {
    CalibrationOutcome t{};
    t.row.section = o.row.section;
    t.row.label = o.row.label;
    t.projected = o.projected;
    t.error = o.error;
    t.failure = o.failure;
    as_training.push_back(std::move(t));
  }
  return error_stats(as_training);
}

}  // namespace dgx::llm
