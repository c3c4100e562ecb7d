#include "dgx/llm/workload/calibration_summary.hpp"

#include <algorithm>
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
  const auto stats = error_stats(run_calibration(*rows));
  const ErrorStats& all = stats.back();  // error_stats ends with "all"
  std::string systems;
  for (const std::string& name : s.systems) {
    systems += (systems.empty() ? "" : ", ") + name;
  }
  s.line = files + ": mean " + text::fixed(100 * all.mean_abs, 1) + "%, max " + text::fixed(100 * all.max_abs, 1) +
           "% over " + std::to_string(all.rows - all.failed) + " " + runs + " on " + systems;
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
  const ErrorStats all = serve_error_stats(run_serve_calibration(*rows)).back();
  s.line = "configs/baselines/inference.md: mean " + text::fixed(100 * all.mean_abs, 1) + "%, max " +
           text::fixed(100 * all.max_abs, 1) + "% over " + std::to_string(all.rows - all.failed) +
           " published TensorRT-LLM offline throughputs on " + systems;
  return s;
}

}  // namespace

std::string calibration_summary() {
  static const Summary summary =
      summarize(load_calibration(), "configs/baselines/calibration.md and calibration-2.md", "published runs");
  return summary.line;
}

std::string class_accuracy_text(const SystemProfile& system, Precision precision) {
  const std::string name = calibration_class(system.name, precision);
  const auto stats = class_accuracy(system.name, precision);
  if (!stats) {
    return name + ": no published run (uncalibrated)";
  }
  const int runs = stats->rows - stats->failed;
  return name + ": mean " + text::fixed(100 * stats->mean_abs, 1) + "%, max " + text::fixed(100 * stats->max_abs, 1) +
         "% over " + std::to_string(runs) + " published run" + (runs == 1 ? "" : "s");
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
      summarize(load_finetune_calibration(), "configs/baselines/finetune.md", "published SFT and LoRA runs");
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

std::string projection_disclaimer(const std::string& model_version, const std::string& system,
                                  const std::string& how_to_measure) {
  return "These numbers are projections of " + model_version + " for " + system +
         ", not measurements on this machine (every row says mode projected; JSON carries the provenance). " +
         how_to_measure;
}

}  // namespace dgx::llm::workload
