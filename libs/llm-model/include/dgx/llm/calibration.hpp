// The calibration set (configs/baselines/calibration.toml, encoded from calibration.md beside it): published
// NeMo/Megatron measurements the model is checked against, and the projection error per row and per section.
#pragma once

#include "dgx/llm/expected.hpp"
#include "dgx/llm/layout.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace dgx::llm {

/// What a row compares: section A publishes step time, section B tokens/s per GPU.
enum class CalibrationMetric : unsigned char { step_time_s, tokens_per_s_per_gpu };

[[nodiscard]] std::string_view to_string(CalibrationMetric metric);

struct CalibrationRow {
  std::string section;  ///< "A", "B"
  std::string label;    ///< e.g. "llama3.1-8b bf16 8 GPUs"
  std::string model;
  std::string system;
  int gpus = 0;
  TrainConfig train;
  CalibrationMetric metric = CalibrationMetric::step_time_s;
  double published = 0;
  std::string source;
};

[[nodiscard]] Expected<std::vector<CalibrationRow>> parse_calibration(std::string_view toml_text,
                                                                      std::string_view file);
/// The embedded baselines/calibration.toml.
[[nodiscard]] Expected<std::vector<CalibrationRow>> load_calibration();

struct CalibrationOutcome {
  CalibrationRow row;
  double projected = 0;
  double error = 0;     ///< (projected − published) / published
  std::string failure;  ///< non-empty when the row could not be projected (then error is meaningless)
};

/// Projects every row with the embedded catalogs and the default op-time provider.
[[nodiscard]] std::vector<CalibrationOutcome> run_calibration(const std::vector<CalibrationRow>& rows);

struct ErrorStats {
  std::string section;  ///< a section name, or "all"
  int rows = 0;
  int failed = 0;
  double mean_abs = 0;  ///< mean |error| over the projected rows
  double max_abs = 0;
};

/// One entry per section in order of appearance, then "all".
[[nodiscard]] std::vector<ErrorStats> error_stats(const std::vector<CalibrationOutcome>& outcomes);

}  // namespace dgx::llm
