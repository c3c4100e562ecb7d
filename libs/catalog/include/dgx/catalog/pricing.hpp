// $/GPU-hour: cloud list prices (configs/pricing/cloud.toml), commitment discounts, and the cost of an owned
// cluster (configs/pricing/owned-cluster.toml, Epoch AI's method, arXiv 2405.21015).
#pragma once

#include "dgx/catalog/expected.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dgx::catalog {

/// One price: a provider's rate for one system's GPU.
struct PriceEntry {
  std::string provider;  ///< e.g. "aws", "aws-1yr", "nebius", "owned"
  std::string system;    ///< system catalog name, e.g. "h100-sxm"
  std::string kind;      ///< "on-demand", "reserved" (capacity block / commitment) or "owned"
  double usd_per_gpu_hour = 0;
  std::string as_of;   ///< date of the price
  std::string source;  ///< where it comes from
};

/// The price a projection assumed and why (printed with every cost).
struct PriceChoice {
  PriceEntry entry;
  std::string reason;
};

/// Epoch AI's amortized cost of owning a GPU, per GPU-hour of use:
///   hardware = acquisition × (1 + interconnect) × amortization_per_year / 8766 h
///   energy   = TDP × server_overhead × average_power_fraction × PUE × $/kWh
///   cost     = (hardware + energy) / utilization
struct OwnedClusterModel {
  double amortization_per_year = 0;   ///< 0.322
  double interconnect_fraction = 0;   ///< 0.235
  double server_overhead = 0;         ///< 1.82
  double average_power_fraction = 0;  ///< 0.75 of TDP
  double pue = 0;
  double usd_per_kwh = 0;
  double utilization = 1;
  std::string source;

  [[nodiscard]] double usd_per_gpu_hour(double acquisition_usd, double tdp_w) const;
};

class PricingCatalog {
public:
  /// The catalog's prices (pricing/cloud.toml and pricing/owned-cluster.toml, by the catalog's search order).
  [[nodiscard]] static Expected<PricingCatalog> load();
  /// Builds a catalog from the text of cloud.toml and owned-cluster.toml (errors name the file by its label, the
  /// line and the key).
  [[nodiscard]] static Expected<PricingCatalog>
  parse(std::string_view cloud_toml, std::string_view owned_toml,
        std::string_view cloud_label = "configs/pricing/cloud.toml",
        std::string_view owned_label = "configs/pricing/owned-cluster.toml");

  /// Every price, cloud list prices, derived commitment prices and owned-cluster costs.
  [[nodiscard]] const std::vector<PriceEntry>& entries() const { return entries_; }
  [[nodiscard]] const OwnedClusterModel& owned_model() const { return owned_; }

  /// A provider's price for a system, e.g. ("nebius", "h100-sxm").
  [[nodiscard]] Expected<PriceChoice> find(std::string_view provider, std::string_view system) const;

  /// The default for a system: the cheapest on-demand list price among the catalogued providers, i.e. what a
  /// buyer pays today without a commitment; where no provider lists the GPU, the owned-cluster cost if its
  /// acquisition price is known. The reason says which and why.
  [[nodiscard]] Expected<PriceChoice> default_price(std::string_view system) const;

private:
  std::vector<PriceEntry> entries_;
  OwnedClusterModel owned_;
  std::string default_rule_;
};

}  // namespace dgx::catalog
