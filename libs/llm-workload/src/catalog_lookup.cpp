#include "dgx/llm/workload/catalog_lookup.hpp"

#include <dgx/sdk/error.hpp>
#include <dgx/sdk/text.hpp>

#include "dgx/catalog/catalog_files.hpp"
#include "dgx/catalog/hf_config.hpp"
#include "dgx/llm/catalog.hpp"
#include "dgx/llm/workload_preset.hpp"

#include <algorithm>
#include <utility>

namespace dgx::llm::workload {

namespace {

namespace text = dgx::sdk::text;

using dgx::sdk::InvalidArgument;

std::vector<std::string> providers_of(const PricingCatalog& catalog, const std::string& system) {
  std::vector<std::string> providers;
  for (const PriceEntry& e : catalog.entries()) {
    if (e.system == system && std::find(providers.begin(), providers.end(), e.provider) == providers.end()) {
      providers.push_back(e.provider);
    }
  }
  return providers;
}

PriceResolution chosen(const PriceChoice& choice, std::vector<std::string> providers) {
  return PriceResolution{.price = Price{.usd_per_gpu_hour = choice.entry.usd_per_gpu_hour, .label = choice.reason},
                         .reason = choice.reason,
                         .providers = std::move(providers),
                         .provider = choice.entry.provider};
}

}  // namespace

ModelConfig lookup_model(const std::string& name, std::string_view key) {
  auto model = find_model(name);
  if (model) {
    if (catalog::names_hf_config(name)) {  // a config.json: the notes say which file
      model->display += ", read from " + name;
    } else if (model->name != name) {  // an alias: the notes say which model stands for it
      model->display += ", the architecture of " + name;
    }
    return std::move(model).value();
  }
  if (catalog::names_hf_config(name)) {  // a config.json: its own error names the file, the field and the reason
    throw InvalidArgument(std::string(key) + ": " + model.error().message);
  }
  // A preset name given as the model ("llama70b") most likely means that preset's model.
  const auto preset = find_workload_preset(name);
  std::vector<std::string> names = model_names();  // the aliases are names users type too
  const std::vector<std::string> aliases = model_aliases();
  names.insert(names.end(), aliases.begin(), aliases.end());
  std::sort(names.begin(), names.end());
  std::string message = catalog::unknown_entry("model", name, names, key, preset ? preset->model : std::string());
  if (preset) {
    message += " ('" + name + "' is a preset: dgxhost --plugin " + name + ")";
  }
  throw InvalidArgument(message);
}

SystemProfile lookup_system(const std::string& name, std::string_view key) {
  if (name.size() > 5 && name.ends_with(".toml")) {  // a user's own system file
    auto system = find_system(name, {});
    if (!system) {
      throw InvalidArgument(std::string(key) + ": " + system.error().message);
    }
    return std::move(system).value();
  }
  auto system = find_system(name);
  if (system) {
    return std::move(system).value();
  }
  throw InvalidArgument(catalog::unknown_entry("system", name, system_names(), key) +
                        "; a system of your own: a TOML file (see configs/systems/README.md), named by its path "
                        "or as systems/NAME.toml in a config directory (--config-dir, DGX_CONFIG_PATH)");
}

std::string system_spec(const dgx::sdk::Host& host, const std::string& name) {
  if (name.ends_with(".toml") || find_system(name)) {
    return name;
  }
  const auto file = host.find_data_file("systems/" + name + ".toml");
  return file ? *file : name;
}

std::optional<double> read_usd_per_gpu_hour(const dgx::sdk::Host& host, const char* key) {
  const std::optional<double> usd = host.find_float(key);
  if (usd && !(*usd > 0)) {
    throw InvalidArgument(std::string(key) + " must be a positive price, got " + text::fixed(*usd, 2));
  }
  return usd;
}

PriceResolution resolve_price(const std::string& system, const std::string& provider,
                              std::optional<double> usd_per_gpu_hour, PriceKeys keys) {
  auto catalog = PricingCatalog::load();
  if (!catalog) {
    throw dgx::sdk::RuntimeError("pricing catalog: " + catalog.error().message);
  }
  std::vector<std::string> providers = providers_of(*catalog, system);
  if (usd_per_gpu_hour) {
    const std::string label =
        "$" + text::fixed(*usd_per_gpu_hour, 2) + "/GPU-h given by " + std::string(keys.usd_per_gpu_hour);
    return PriceResolution{.price = Price{.usd_per_gpu_hour = *usd_per_gpu_hour, .label = label},
                           .reason = label,
                           .providers = std::move(providers),
                           .provider = {}};
  }
  if (!provider.empty()) {
    auto choice = catalog->find(provider, system);
    if (!choice) {
      if (providers.empty()) {
        throw InvalidArgument(choice.error().message);
      }
      const bool known = std::any_of(catalog->entries().begin(), catalog->entries().end(),
                                     [&](const PriceEntry& e) { return e.provider == provider; });
      if (known) {  // a provider the catalog has, without this system: say so, not "unknown"
        throw InvalidArgument("price provider '" + provider + "' (config key " + std::string(keys.provider) +
                              ") lists no price for " + system +
                              " (configs/pricing names the gaps). The providers "
                              "that price " +
                              system + ": " + text::join(providers) + ".");
      }
      throw InvalidArgument(catalog::unknown_entry("price provider for " + system, provider, providers, keys.provider));
    }
    return chosen(*choice, std::move(providers));
  }
  auto choice = catalog->default_price(system);
  if (!choice) {
    return PriceResolution{.price = std::nullopt,
                           .reason = choice.error().message + "; costs are in GPU-hours",
                           .providers = std::move(providers),
                           .provider = {}};
  }
  return chosen(*choice, std::move(providers));
}

std::string price_line(const std::string& reason, const std::vector<std::string>& providers) {
  std::string line = "Price: " + reason + ".";
  if (!providers.empty()) {
    line +=
        " Other prices: --set cost.provider=NAME (" + text::join(providers) + ") or --set cost.usd_per_gpu_hour=USD.";
  }
  return line;
}

std::string peaks_text(const SystemProfile& system) {
  std::string peaks = text::fixed(system.peak_bf16_tflops, 0) + " TFLOP/s dense BF16";
  if (system.peak_fp8_tflops > 0) {
    peaks += ", " + text::fixed(system.peak_fp8_tflops, 0) + " FP8";
  }
  if (system.peak_fp4_tflops > 0) {
    peaks += ", " + text::fixed(system.peak_fp4_tflops, 0) + " FP4";
  }
  return peaks;
}

std::vector<std::string> other_systems(const std::string& name) {
  std::vector<std::string> others;
  for (const std::string& n : system_names()) {
    if (n != name) {
      others.push_back(n);
    }
  }
  return others;
}

}  // namespace dgx::llm::workload
