#include "calibration_summary.hpp"

#include <algorithm>
#include <set>

#include "dgx/llm/calibration.hpp"
#include "dgx/llm/calibration_scope.hpp"
#include "format.hpp"

namespace dgx::plugins::llm_pretrain {

namespace {

std::string summarize() {
  const auto rows = llm::load_calibration();
  if (!rows) {
    return "calibration sets unavailable: " + rows.error().message;
  }
  std::set<std::string> systems;
  for (const llm::CalibrationRow& row : *rows) {
    systems.insert(row.system);
  }
  const auto stats = llm::error_stats(llm::run_calibration(*rows));
  const llm::ErrorStats& all = stats.back();  // error_stats ends with "all"
  std::string names;
  for (const std::string& name : systems) {
    names += (names.empty() ? "" : ", ") + name;
  }
  std::string line = "configs/baselines/calibration.md and calibration-2.md: mean " + fixed(100 * all.mean_abs, 1) +
                     "%, max " + fixed(100 * all.max_abs, 1) + "% over " + std::to_string(all.rows - all.failed) +
                     " published runs on " + names;
  if (all.failed > 0) {
    line += " (" + std::to_string(all.failed) + " rows could not be projected)";
  }
  return line;
}

}  // namespace

std::string calibration_summary() {
  static const std::string summary = summarize();
  return summary;
}

std::string class_accuracy_text(const llm::SystemProfile& system, llm::Precision precision) {
  const std::string name = llm::calibration_class(system.name, precision);
  const auto stats = llm::class_accuracy(system.name, precision);
  if (!stats) {
    return name + ": no published run (uncalibrated)";
  }
  const int runs = stats->rows - stats->failed;
  return name + ": mean " + fixed(100 * stats->mean_abs, 1) + "%, max " + fixed(100 * stats->max_abs, 1) + "% over " +
         std::to_string(runs) + " published run" + (runs == 1 ? "" : "s");
}

std::vector<std::string> calibration_scope(const llm::ModelConfig& model, const llm::SystemProfile& system,
                                           const std::vector<llm::Precision>& precisions, int seq_len) {
  std::vector<std::string> reasons;
  for (const llm::Precision precision : precisions) {
    for (std::string& reason : llm::outside_calibration(model, system, precision, seq_len)) {
      if (std::find(reasons.begin(), reasons.end(), reason) == reasons.end()) {
        reasons.push_back(std::move(reason));
      }
    }
  }
  return reasons;
}

}  // namespace dgx::plugins::llm_pretrain
