// What a projection assumes beyond the user's configuration: the model architecture, the system profile, the price
// and the serving model's measured accuracy. Resolved once per run from the catalogs; unknown names are config
// errors with close matches.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dgx/llm/model_config.hpp"
#include "dgx/llm/step_model.hpp"
#include "dgx/llm/system_profile.hpp"
#include "settings.hpp"

namespace dgx::plugins::llm_inference {

struct Assumptions {
  llm::ModelConfig model;
  llm::SystemProfile system;
  std::optional<llm::Price> price;     ///< nullopt: no price known, costs are GPU-hours
  std::string price_reason;            ///< which price and why, or why there is none
  std::vector<std::string> providers;  ///< the price providers the catalog has for the system
  std::string calibration;             ///< serving_calibration_summary() of the system
};

/// Looks up settings.model, settings.system and the price. Throws dgx::sdk::InvalidArgument for an unknown model,
/// system or price provider, naming the key, the close matches and the catalog's entries.
[[nodiscard]] Assumptions resolve_assumptions(const InferenceSettings& settings);

/// "configs/baselines/inference.md: mean 5.0%, max 6.3% over 7 published TensorRT-LLM throughputs on h100-sxm",
/// computed from the embedded rows once per process, with "; b200 is uncalibrated ..." for a system none ran on.
[[nodiscard]] std::string serving_calibration_summary(const llm::SystemProfile& system);

}  // namespace dgx::plugins::llm_inference
