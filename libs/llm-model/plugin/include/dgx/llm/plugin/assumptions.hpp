// What a projection assumes beyond the user's layout: the model architecture, the system profile, the price
// and the model's measured accuracy. Resolved once per run from the catalogs; unknown names are config errors
// with close matches.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dgx/llm/model_config.hpp"
#include "dgx/llm/plugin/training_settings.hpp"
#include "dgx/llm/step_model.hpp"
#include "dgx/llm/system_profile.hpp"

namespace dgx::llm::plugin {

struct Assumptions {
  ModelConfig model;
  SystemProfile system;
  std::optional<Price> price;          ///< nullopt: no price known, costs are GPU-hours
  std::string price_reason;            ///< which price and why, or why there is none
  std::string calibration;             ///< calibration_summary() of the system
  std::vector<std::string> providers;  ///< the price providers the catalog has for the system
};

/// Looks up settings.model, settings.system and the price. Throws dgx::sdk::InvalidArgument for an unknown
/// model, system or price provider, naming the key, the close matches and the catalog's entries.
[[nodiscard]] Assumptions resolve_assumptions(const TrainingSettings& settings);

}  // namespace dgx::llm::plugin
