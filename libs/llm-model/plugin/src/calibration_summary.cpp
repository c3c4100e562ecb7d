#include "dgx/llm/plugin/calibration_summary.hpp"

#include <set>

#include "dgx/llm/calibration.hpp"
#include "dgx/llm/plugin/format.hpp"

namespace dgx::llm::plugin {

namespace {

struct Summary {
  std::string line;
  std::set<std::string> systems;  ///< the systems the published runs were on
};

Summary summarize(const Expected<std::vector<CalibrationRow>>& rows, const std::string& file, const std::string& runs) {
  if (!rows) {
    return {"calibration set unavailable: " + rows.error().message, {}};
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
  s.line = file + ": mean " + fixed(100 * all.mean_abs, 1) + "%, max " + fixed(100 * all.max_abs, 1) + "% over " +
           std::to_string(all.rows - all.failed) + " " + runs + " on " + systems;
  if (all.failed > 0) {
    s.line += " (" + std::to_string(all.failed) + " rows could not be projected)";
  }
  return s;
}

std::string for_system(const Summary& summary, const SystemProfile& system) {
  if (summary.systems.empty() || summary.systems.count(system.name) != 0) {
    return summary.line;
  }
  return summary.line + "; " + system.name + " is uncalibrated (it reuses the calibrated systems' efficiencies)";
}

}  // namespace

std::string calibration_summary(const SystemProfile& system) {
  static const Summary summary = summarize(load_calibration(), "configs/baselines/calibration.md", "published runs");
  return for_system(summary, system);
}

std::string finetune_calibration_summary(const SystemProfile& system) {
  static const Summary summary =
      summarize(load_finetune_calibration(), "configs/baselines/finetune.md", "published SFT and LoRA runs");
  return for_system(summary, system);
}

}  // namespace dgx::llm::plugin
