// The serving calibration set (configs/baselines/inference.toml, encoded from inference.md beside it): published
// offline throughputs the serving model is checked against, and the error per row and overall.
#pragma once

#include "dgx/llm/calibration.hpp"
#include "dgx/llm/expected.hpp"
#include "dgx/llm/serve_config.hpp"
#include "dgx/llm/serve_model.hpp"

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

/// How far off a projection is expected to be, per metric (relative, about 9 in 10 cases), and why. The offline
/// throughput of dense models rests on the calibration set (its largest error); every latency and every other mode
/// is derived, not checked against published numbers in the reference (it holds none), so its band is an estimate
/// from the model's parts, widened for what the model leaves out: MoE routing skew, the KV transfer's software path,
/// and queueing, which turns a small error in service time into a large one in waiting (open-loop TTFT, the hardest
/// metric of every serving simulator).
struct ServeExpectedError {
  double throughput = 0;  ///< output tokens/s (per GPU, per replica)
  double tpot = 0;        ///< TPOT and ITL, tokens/s per user
  double ttft = 0;
  double e2e = 0;
  std::vector<std::string> reasons;
};
[[nodiscard]] ServeExpectedError expected_error(const ServeProjection& projection, const ModelConfig& model);

/// Mean and max |error| per section, then "all" (calibration.hpp's ErrorStats).
[[nodiscard]] std::vector<ErrorStats> serve_error_stats(const std::vector<ServeCalibrationOutcome>& outcomes);

}  // namespace dgx::llm
