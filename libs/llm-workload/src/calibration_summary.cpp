#include "dgx/llm/workload/calibration_summary.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <dgx/sdk/text.hpp>

#include "dgx/llm/calibration.hpp"
#include "dgx/llm/calibration_scope.hpp"
#include "dgx/llm/serve_calibration.hpp"

namespace dgx::llm::workload {

namespace {

namespace text = dgx::sdk::text;

struct Summary {
  std::string line;
  std::set<std::string> systems;  ///< the systems the published runs were on
};

Summary summarize(const Expected<std::vector<CalibrationRow>>& rows, const std::string& files,
                  const std::string& runs) {
  if (!rows) {
    return {"calibration sets unavailable: " + rows.error().message, {}};
  }
  Summary s;
  for (const CalibrationRow& row : *rows) {
    s.systems.insert(row.system);
  }
  const std::vector<CalibrationOutcome> outcomes = run_calibration(*rows);
  const auto stats = error_stats(outcomes);
  const ErrorStats& all = stats.back();  // error_stats ends with "all"
  std::string systems;
  for (const std::string& name : s.systems) {
    systems += (systems.empty() ? "" : ", ") + name;
  }
  // The run the maximum is, so that a reader can see it is an outlier of its own kind, not the typical row.
  const CalibrationOutcome* worst = nullptr;
  for (const CalibrationOutcome& o : outcomes) {
    if (o.failure.empty() && (worst == nullptr || std::abs(o.error) > std::abs(worst->error))) {
      worst = &o;
    }
  }
  const std::string which =
      worst != nullptr ? " (" + worst->row.label + ", " + worst->row.framework + ")" : std::string();
  s.line = files + ": mean " + text::fixed(100 * all.mean_abs, 1) + "%, max " + text::fixed(100 * all.max_abs, 1) +
           "%" + which + " over " + std::to_string(all.rows - all.failed) + " " + runs + " on " + systems;
  if (all.failed > 0) {
    s.line += " (" + std::to_string(all.failed) + " rows could not be projected)";
  }
  return s;
}

/// The serving set's line; its systems in the order of the published rows.
Summary summarize_serving() {
  const auto rows = load_serve_calibration();
  if (!rows) {
    return {"serving calibration set unavailable: " + rows.error().message, {}};
  }
  Summary s;
  std::string systems;
  for (const ServeCalibrationRow& row : *rows) {
    if (s.systems.insert(row.system).second) {
      systems += (systems.empty() ? "" : ", ") + row.system;
    }
  }
  const std::vector<ServeCalibrationOutcome> outcomes = run_serve_calibration(*rows);
  const ErrorStats all = serve_error_stats(outcomes).back();
  const ServeCalibrationOutcome* worst = nullptr;
  for (const ServeCalibrationOutcome& o : outcomes) {
    if (o.failure.empty() && (worst == nullptr || std::abs(o.error) > std::abs(worst->error))) {
      worst = &o;
    }
  }
  s.line = "configs/baselines/inference.md: mean " + text::fixed(100 * all.mean_abs, 1) + "%, max " +
           text::fixed(100 * all.max_abs, 1) + "%" + (worst != nullptr ? " (" + worst->row.label + ")" : "") +
           " over " + std::to_string(all.rows - all.failed) + " published TensorRT-LLM offline throughputs on " +
           systems;
  return s;
}

}  // namespace

std::string calibration_summary() {
  static const Summary summary = summarize(
      load_calibration(), "configs/baselines/calibration.md, calibration-2.md and calibration-3.md", "published runs");
  return summary.line;
}

AccuracyBand projection_band(const ModelConfig& model, const SystemProfile& system, Precision precision, int gpus,
                             bool finetune) {
  return AccuracyModel::embedded().band(band_query(model, system, precision, gpus, finetune));
}

std::string band_text(const AccuracyBand& band, const SystemProfile& system, Precision precision, int gpus) {
  std::string out = calibration_class(system.name, precision) + " at " + std::to_string(gpus) + " GPUs: ±" +
                    text::fixed(100 * band.width, 1) + "% (9 in 10 published runs like it fall within; " +
                    text::fixed(band.effective_rows, 1) + " runs' worth of evidence)";
  if (band.outside) {
    out += "; outside calibration: " + text::join(band.reasons, "; ");
  }
  return out;
}

std::string bands_sentence(const ModelConfig& model, const SystemProfile& system,
                           const std::vector<Precision>& precisions, int gpus, bool finetune) {
  std::vector<std::string> bands;
  for (const Precision precision : precisions) {
    bands.push_back(band_text(projection_band(model, system, precision, gpus, finetune), system, precision, gpus));
  }
  return "each row's band ± column is how far off it is expected to be: the 90% band of the model's errors on the "
         "published runs most like it (system, framework, precision, model size, scale), wider outside the "
         "calibrated domain; for " +
         text::join(bands, "; for ");
}

std::vector<std::string> calibration_scope(const ModelConfig& model, const SystemProfile& system,
                                           const std::vector<Precision>& precisions, int seq_len) {
  std::vector<std::string> reasons;
  for (const Precision precision : precisions) {
    for (std::string& reason : outside_calibration(model, system, precision, seq_len)) {
      if (std::find(reasons.begin(), reasons.end(), reason) == reasons.end()) {
        reasons.push_back(std::move(reason));
      }
    }
  }
  return reasons;
}

std::string finetune_calibration_summary(const SystemProfile& system) {
  static const Summary summary =
      summarize(load_finetune_calibration(), "configs/baselines/finetune.md and calibration-3.md's LoRA rows",
                "published SFT and LoRA runs");
  if (summary.systems.empty() || summary.systems.count(system.name) != 0) {
    return summary.line;
  }
  return summary.line + "; " + system.name + " is uncalibrated for fine-tuning";
}

std::string serving_calibration_summary(const SystemProfile& system) {
  static const Summary summary = summarize_serving();
  if (summary.systems.empty() || summary.systems.count(system.name) != 0) {
    return summary.line;
  }
  return summary.line + "; " + system.name + " is uncalibrated (it shares the calibrated systems' efficiencies)";
}

AccuracyBand serving_band(const SystemProfile& system, Precision precision) {
  static const std::vector<ServeCalibrationOutcome> outcomes = [] {
    const auto rows = load_serve_calibration();
    return rows ? run_serve_calibration(*rows) : std::vector<ServeCalibrationOutcome>{};
  }();
  constexpr double kZ90 = 1.645, kPriorRows = 2, kOutsideWidening = 1.5;
  double all = 0, local = 0;
  int n_all = 0, n_local = 0;
  for (const ServeCalibrationOutcome& o : outcomes) {
    if (!o.failure.empty()) {
      continue;
    }
    all += o.error * o.error;
    ++n_all;
    if (o.row.system == system.name && o.row.config.precision == precision) {
      local += o.error * o.error;
      ++n_local;
    }
  }
  AccuracyBand band;
  if (n_all == 0) {
    band.outside = true;
    band.reasons.push_back("no serving calibration row could be projected");
    band.width = kZ90 * 0.10;
    return band;
  }
  const double prior = all / n_all;
  band.rms = std::sqrt((local + kPriorRows * prior) / (n_local + kPriorRows));
  band.effective_rows = n_local;
  band.width = std::max(kMinimumBand, kZ90 * band.rms);
  if (n_local == 0) {
    band.width *= kOutsideWidening;
    band.outside = true;
    band.reasons.push_back("no published serving run on " + system.name + " in " + std::string(to_string(precision)) +
                           ": the band is the serving set's, widened");
  }
  return band;
}

std::string projection_disclaimer(const std::string& model_version, const std::string& system,
                                  const std::string& how_to_measure) {
  return "These numbers are projections of " + model_version + " for " + system +
         ", not measurements on this machine (every row says mode projected; JSON carries the provenance). " +
         how_to_measure;
}

}  // namespace dgx::llm::workload
