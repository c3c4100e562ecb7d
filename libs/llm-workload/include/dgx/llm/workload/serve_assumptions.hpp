// What a serving projection assumes beyond the user's configuration: the model architecture, the system profile, the
// price and the serving model's measured accuracy. The serving counterpart of assumptions.hpp (no framework release:
// the serving model has one engine profile). Resolved once per run from the catalogs; unknown names are config
// errors with close matches.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/step_model.hpp"

namespace dgx::llm::workload {

struct ServeAssumptions {
  ModelConfig model;
  SystemProfile system;
  std::optional<Price> price;          ///< nullopt: no price known, costs are GPU-hours
  std::string price_reason;            ///< which price and why, or why there is none
  std::vector<std::string> providers;  ///< the price providers the catalog has for the system
  std::string calibration;             ///< serving_calibration_summary() of the system
};

/// Looks up the model, the system and the price (an explicit price, else the provider's, else the catalog's default)
/// of a serving configuration. Throws dgx::sdk::InvalidArgument for an unknown model, system or price provider,
/// naming the key (model, system, cost.provider), the close matches and the catalog's entries.
[[nodiscard]] ServeAssumptions resolve_serve_assumptions(const std::string& model, const std::string& system,
                                                         const std::string& provider,
                                                         std::optional<double> usd_per_gpu_hour);

}  // namespace dgx::llm::workload
