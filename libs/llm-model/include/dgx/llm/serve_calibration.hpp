// The serving calibration set (configs/baselines/inference.toml, encoded from inference.md beside it): published
// offline throughputs the serving model is checked against, and the error per row and overall.
#pragma once

#include "dgx/llm/calibration.hpp"
#include "dgx/llm/expected.hpp"
#include "dgx/llm/serve_config.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace dgx::llm {

struct ServeCalibrationRow {
  std::string section;  ///< e.g. "trtllm"
  std::string label;    ///< e.g. "llama3.3-70b fp8 2 x h100-sxm TP2 128/128"
  std::string model;
  std::string system;
  ServeConfig config;
  double published = 0;  ///< output tokens/s of the whole replica
  std::string source;
};

[[nodiscard]] Expected<std::vector<ServeCalibrationRow>> parse_serve_calibration(std::string_view toml_text,
                                                                                 std::string_view file);
/// The embedded baselines/inference.toml.
[[nodiscard]] Expected<std::vector<ServeCalibrationRow>> load_serve_calibration();

struct ServeCalibrationOutcome {
  ServeCalibrationRow row;
  double projected = 0;  ///< output tokens/s of the replica
  double error = 0;      ///< (projected − published) / published
  std::string failure;   ///< non-empty when the row could not be projected
};

/// Projects every row with the embedded catalogs and the roofline.
[[nodiscard]] std::vector<ServeCalibrationOutcome> run_serve_calibration(const std::vector<ServeCalibrationRow>& rows);

/// Mean and max |error| per section, then "all" (calibration.hpp's ErrorStats).
[[nodiscard]] std::vector<ErrorStats> serve_error_stats(const std::vector<ServeCalibrationOutcome>& outcomes);

}  // namespace dgx::llm
