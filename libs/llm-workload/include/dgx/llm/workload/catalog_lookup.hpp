// Catalog lookups for the LLM plugins (training and serving): the model, the system and the price a configuration
// names, with the errors the host reports as configuration errors (dgx::sdk::InvalidArgument) naming the key, the close
// matches and the catalog's entries.
#pragma once

#include <dgx/sdk/host.hpp>

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/step_model.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dgx::llm::workload {

/// A model of the catalog, or a Hugging Face config.json by its path (find_model). A training preset's name given as
/// the model ("llama70b") suggests that preset's model.
[[nodiscard]] ModelConfig lookup_model(const std::string& name, std::string_view key);
/// A system of the catalog, or of a user's own system file when `name` is its path (ends in ".toml"): unknown
/// names and invalid files are configuration errors naming the key, the file and why.
[[nodiscard]] SystemProfile lookup_system(const std::string& name, std::string_view key);

/// What a configured system name resolves to: a catalog name as it is, else the path of `systems/<name>.toml` in
/// the host's config directories (--config-dir, DGX_CONFIG_PATH) when one holds it, else the name (lookup_system
/// then refuses it with the close matches).
[[nodiscard]] std::string system_spec(const dgx::sdk::Host& host, const std::string& name);

/// The price a projection assumes and why, or why there is none (costs are then GPU-hours).
struct PriceResolution {
  std::optional<Price> price;
  std::string reason;
  std::vector<std::string> providers;  ///< the providers the catalog prices the system at
  std::string provider;                ///< whose price it is ("nebius"); empty for an explicit price or none
};

/// The config keys a price comes from, for messages.
struct PriceKeys {
  std::string_view provider;
  std::string_view usd_per_gpu_hour;
};

/// An explicit price wins; else the named provider's price for the system; else the catalog's default (the
/// cheapest on-demand list price). Throws InvalidArgument for an unknown provider (with close matches).
/// The explicit price of `key` (cost.usd_per_gpu_hour): nullopt when unset. Throws InvalidArgument naming the key when
/// it is not a positive number.
[[nodiscard]] std::optional<double> read_usd_per_gpu_hour(const dgx::sdk::Host& host, const char* key);

[[nodiscard]] PriceResolution resolve_price(const std::string& system, const std::string& provider,
                                            std::optional<double> usd_per_gpu_hour, PriceKeys keys);

/// "Price: <reason>." and, when the catalog has several, how to choose another (cost.provider or
/// cost.usd_per_gpu_hour).
[[nodiscard]] std::string price_line(const std::string& reason, const std::vector<std::string>& providers);

/// A system's dense peaks per GPU: "989 TFLOP/s dense BF16, 1979 FP8[, ... FP4]".
[[nodiscard]] std::string peaks_text(const SystemProfile& system);
/// The catalog's systems other than `name`, for "Other systems: ..." lines.
[[nodiscard]] std::vector<std::string> other_systems(const std::string& name);

}  // namespace dgx::llm::workload
