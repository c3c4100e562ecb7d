#include "calibration_summary.hpp"

#include <set>

#include "dgx/llm/calibration.hpp"
#include "format.hpp"

namespace dgx::plugins::llm_pretrain {

namespace {

struct Summary {
  std::string line;
  std::set<std::string> systems;  ///< the systems the published runs were on
};

Summary summarize() {
  const auto rows = llm::load_calibration();
  if (!rows) {
    return {"calibration set unavailable: " + rows.error().message, {}};
  }
  Summary s;
  for (const llm::CalibrationRow& row : *rows) {
    s.systems.insert(row.system);
  }
  const auto stats = llm::error_stats(llm::run_calibration(*rows));
  const llm::ErrorStats& all = stats.back();  // error_stats ends with "all"
  std::string systems;
  for (const std::string& name : s.systems) {
    systems += (systems.empty() ? "" : ", ") + name;
  }
  s.line = "configs/baselines/calibration.md: mean " + fixed(100 * all.mean_abs, 1) + "%, max " +
           fixed(100 * all.max_abs, 1) + "% over " + std::to_string(all.rows - all.failed) + " published runs on " +
           systems;
  if (all.failed > 0) {
    s.line += " (" + std::to_string(all.failed) + " rows could not be projected)";
  }
  return s;
}

}  // namespace

std::string calibration_summary(const llm::SystemProfile& system) {
  static const Summary summary = summarize();
  if (summary.systems.empty() || summary.systems.count(system.name) != 0) {
    return summary.line;
  }
  return summary.line + "; " + system.name + " is uncalibrated (it reuses the calibrated systems' efficiencies)";
}

}  // namespace dgx::plugins::llm_pretrain
