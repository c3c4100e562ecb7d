#include "dgx/catalog/pricing.hpp"

#include "dgx/catalog/catalog_files.hpp"
#include "dgx/catalog/system_catalog.hpp"

#include "dgx/catalog/toml_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace dgx::catalog {

namespace {

constexpr double kHoursPerYear = 8766;
constexpr std::string_view kCloudFile = "pricing/cloud.toml";
constexpr std::string_view kOwnedFile = "pricing/owned-cluster.toml";

std::string dollars(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}

double fraction(const TomlTable& t, std::string_view key) {
  const double value = t.number(key);
  if (!(value >= 0 && value <= 1)) {
    throw ConfigError(t.where(key) + " must be a fraction in [0, 1]");
  }
  return value;
}

PriceEntry read_price(const TomlTable& t) {
  PriceEntry p;
  p.provider = t.string("provider");
  p.system = t.string("system");
  p.kind = t.string("kind");
  p.usd_per_gpu_hour = t.number("usd_per_gpu_hour");
  p.as_of = t.string("as_of");
  p.source = t.string("source");
  if (p.usd_per_gpu_hour <= 0) {
    throw ConfigError(t.where("usd_per_gpu_hour") + " must be positive");
  }
  return p;
}

/// A commitment discount applied to a provider's on-demand prices gives a new "provider-term" entry per GPU.
void add_commitments(const TomlTable& cloud, std::vector<PriceEntry>& entries) {
  const std::size_t listed = entries.size();
  for (const TomlTable& c : cloud.tables("commitment")) {
    const std::string provider = c.string("provider");
    const std::string term = c.string("term");
    const double discount = fraction(c, "discount");
    for (std::size_t i = 0; i < listed; ++i) {
      const PriceEntry base = entries[i];
      if (base.provider != provider || base.kind != "on-demand") {
        continue;
      }
      entries.push_back(PriceEntry{.provider = provider + "-" + term,
                                   .system = base.system,
                                   .kind = "reserved",
                                   .usd_per_gpu_hour = base.usd_per_gpu_hour * (1 - discount),
                                   .as_of = c.string("as_of"),
                                   .source = base.source + ", less the " + term + " commitment discount of " +
                                             std::to_string(std::lround(discount * 100)) + "% (" + c.string("source") +
                                             ")"});
    }
  }
}

OwnedClusterModel read_owned_model(const TomlTable& t) {
  OwnedClusterModel m;
  m.amortization_per_year = fraction(t, "amortization_per_year");
  m.interconnect_fraction = fraction(t, "interconnect_fraction");
  m.server_overhead = t.number("server_overhead");
  m.average_power_fraction = fraction(t, "average_power_fraction");
  m.pue = t.number("pue");
  m.usd_per_kwh = t.number("usd_per_kwh");
  m.utilization = fraction(t, "utilization");
  m.source = t.string("source");
  if (m.utilization <= 0 || m.pue < 1) {
    throw ConfigError(t.where("utilization") + " must be > 0 and " + t.where("pue") + " at least 1");
  }
  return m;
}

void add_owned(const TomlTable& owned, const OwnedClusterModel& model, std::vector<PriceEntry>& entries) {
  for (const TomlTable& a : owned.tables("acquisition")) {
    const std::string system_name = a.string("system");
    auto system = find_system(system_name);
    if (!system) {
      throw ConfigError(a.where("system") + ": " + system.error().message);
    }
    const double price = a.number("usd");
    entries.push_back(PriceEntry{.provider = "owned",
                                 .system = system_name,
                                 .kind = "owned",
                                 .usd_per_gpu_hour = model.usd_per_gpu_hour(price, system->tdp_w),
                                 .as_of = a.string("as_of"),
                                 .source = "acquisition $" + dollars(price) + " (" + a.string("source") +
                                           ") amortized by " + model.source});
  }
}

}  // namespace

double OwnedClusterModel::usd_per_gpu_hour(double acquisition_usd, double tdp_w) const {
  const double hardware = acquisition_usd * (1 + interconnect_fraction) * amortization_per_year / kHoursPerYear;
  const double energy = tdp_w / 1000.0 * server_overhead * average_power_fraction * pue * usd_per_kwh;
  return (hardware + energy) / utilization;
}

Expected<PricingCatalog> PricingCatalog::parse(std::string_view cloud_toml, std::string_view owned_toml,
                                               std::string_view cloud_label, std::string_view owned_label) {
  auto owned = read_toml(owned_toml, owned_label, [](const TomlTable& root) {
    PricingCatalog catalog;
    catalog.owned_ = read_owned_model(root.table("model"));
    add_owned(root, catalog.owned_, catalog.entries_);
    return catalog;
  });
  if (!owned) {
    return owned;
  }
  return read_toml(cloud_toml, cloud_label, [&](const TomlTable& cloud) {
    PricingCatalog catalog;
    for (const TomlTable& t : cloud.tables("price")) {
      catalog.entries_.push_back(read_price(t));
    }
    add_commitments(cloud, catalog.entries_);
    const TomlTable default_rule = cloud.table("default");
    if (const std::string rule = default_rule.string("rule"); rule != "cheapest-on-demand") {
      throw ConfigError(default_rule.where("rule") + " is \"" + rule +
                        "\"; the one rule this release knows is \"cheapest-on-demand\"");
    }
    catalog.default_rule_ = default_rule.string("why");
    catalog.owned_ = owned->owned_;
    catalog.entries_.insert(catalog.entries_.end(), owned->entries_.begin(), owned->entries_.end());
    return catalog;
  });
}

Expected<PricingCatalog> PricingCatalog::load() {
  auto cloud = find_catalog_file(kCloudFile);
  if (!cloud) {
    return cloud.error();
  }
  auto owned = find_catalog_file(kOwnedFile);
  if (!owned) {
    return owned.error();
  }
  if (!*cloud || !*owned) {
    return Error{"the pricing catalog (configs/pricing/cloud.toml, owned-cluster.toml) is in no config folder"};
  }
  return parse((*cloud)->text, (*owned)->text, (*cloud)->label, (*owned)->label);
}

Expected<PriceChoice> PricingCatalog::find(std::string_view provider, std::string_view system) const {
  std::string providers;
  for (const PriceEntry& e : entries_) {
    if (e.system != system) {
      continue;
    }
    if (e.provider == provider) {
      return PriceChoice{.entry = e,
                         .reason = e.provider + " " + e.kind + " $" + dollars(e.usd_per_gpu_hour) + "/GPU-h (as of " +
                                   e.as_of + "; " + e.source + "): chosen by the user"};
    }
    providers += (providers.empty() ? "" : ", ") + e.provider;
  }
  return Error{"no price for " + std::string(system) + " from provider '" + std::string(provider) +
               "'; the catalog has: " + (providers.empty() ? std::string("none for this system") : providers)};
}

Expected<PriceChoice> PricingCatalog::default_price(std::string_view system) const {
  const PriceEntry* cheapest = nullptr;
  const PriceEntry* owned = nullptr;
  int listing = 0;
  for (const PriceEntry& e : entries_) {
    if (e.system != system) {
      continue;
    }
    if (e.kind == "owned") {
      owned = &e;
    }
    if (e.kind != "on-demand") {
      continue;
    }
    ++listing;
    if (cheapest == nullptr || e.usd_per_gpu_hour < cheapest->usd_per_gpu_hour) {
      cheapest = &e;
    }
  }
  if (cheapest != nullptr) {
    return PriceChoice{.entry = *cheapest,
                       .reason = cheapest->provider + " on-demand $" + dollars(cheapest->usd_per_gpu_hour) +
                                 "/GPU-h (as of " + cheapest->as_of + "; " + cheapest->source + "): the cheapest of " +
                                 std::to_string(listing) + " on-demand list prices for " + std::string(system) + " — " +
                                 default_rule_};
  }
  if (owned != nullptr) {
    return PriceChoice{.entry = *owned,
                       .reason = "owned cluster $" + dollars(owned->usd_per_gpu_hour) + "/GPU-h (" + owned->source +
                                 "): no provider lists " + std::string(system) + " on demand"};
  }
  return Error{"no price for " + std::string(system) +
               " in the pricing catalog (no on-demand listing, no acquisition price); pass a price explicitly"};
}

}  // namespace dgx::catalog
