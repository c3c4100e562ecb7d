// What a projection assumes beyond the user's layout: the model architecture, the system profile, the price
// and the model's measured accuracy. Resolved once per run from the catalogs; unknown names are config errors
// with close matches.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/step_model.hpp"
#include "dgx/llm/workload/training_settings.hpp"

namespace dgx::llm::workload {

struct Assumptions {
  ModelConfig model;
  FrameworkProfile framework;          ///< the software release the projection assumes
  SystemProfile system;                ///< the hardware profile as that release runs it (apply_framework)
  std::string system_source;           ///< what it was looked up by: a catalog name or a system file's path
  std::optional<Price> price;          ///< nullopt: no price known, costs are GPU-hours
  std::string price_reason;            ///< which price and why, or why there is none
  std::string calibration;             ///< calibration_summary(): the model's errors on every published run
  std::vector<std::string> providers;  ///< the price providers the catalog has for the system
  std::string provider;                ///< whose price it is ("nebius"); empty for an explicit price or none
  /// Every framework release the run's rows come from, for their one source line; empty: framework alone.
  std::vector<std::string> frameworks_used;
};

/// Looks up settings.model, settings.system, the first of settings.frameworks (the newest release when there is
/// none) and the price. Throws dgx::sdk::InvalidArgument for an unknown model, system, framework or price
/// provider, naming the key, the close matches and the catalog's entries.
[[nodiscard]] Assumptions resolve_assumptions(const TrainingSettings& settings);

/// The same assumptions under another framework release (explore's comparison of releases).
[[nodiscard]] Assumptions with_framework(const Assumptions& assumptions, const std::string& framework);

/// The same assumptions priced by each provider settings.providers lists (explore's comparison of providers), in
/// their order; the assumptions alone when it lists fewer than two. Throws dgx::sdk::InvalidArgument for a provider
/// without a price for the system, naming it.
[[nodiscard]] std::vector<Assumptions> priced_by_providers(const Assumptions& assumptions,
                                                           const TrainingSettings& settings);

/// The framework names the settings ask for, the newest release when they name none.
[[nodiscard]] std::vector<std::string> framework_names_of(const TrainingSettings& settings);

}  // namespace dgx::llm::workload
