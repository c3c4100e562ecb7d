#include "dgx/llm/plugin/assumptions.hpp"

#include <algorithm>
#include <utility>

#include <dgx/sdk/error.hpp>

#include "dgx/llm/framework.hpp"
#include "dgx/llm/model_catalog.hpp"
#include "dgx/llm/plugin/calibration_summary.hpp"
#include "dgx/llm/plugin/close_matches.hpp"
#include "dgx/llm/plugin/format.hpp"
#include "dgx/llm/pricing.hpp"
#include "dgx/llm/system_catalog.hpp"
#include "dgx/llm/workload_preset.hpp"

namespace dgx::llm::plugin {

namespace {

using dgx::sdk::InvalidArgument;

ModelConfig lookup_model(const std::string& name) {
  auto model = find_model(name);
  if (model) {
    return std::move(model).value();
  }
  // A preset name given as the model ("llama70b") most likely means that preset's model.
  const auto preset = find_workload_preset(name);
  std::string message =
      unknown_name_message("model", name, key::model, model_names(), preset ? preset->model : std::string());
  if (preset) {
    message += " ('" + name + "' is a preset: dgxhost --plugin " + name + ")";
  }
  throw InvalidArgument(message);
}

SystemProfile lookup_system(const std::string& name) {
  auto system = find_system(name);
  if (system) {
    return std::move(system).value();
  }
  throw InvalidArgument(unknown_name_message("system", name, key::system, system_names()));
}

FrameworkProfile lookup_framework(const std::string& name) {
  auto framework = find_framework(name);
  if (framework) {
    return std::move(framework).value();
  }
  const std::vector<std::string> known = framework_names();
  if (std::find(known.begin(), known.end(), name) != known.end()) {
    throw dgx::sdk::RuntimeError("framework profile " + name + ": " + framework.error().message);
  }
  throw InvalidArgument(unknown_name_message("framework", name, key::framework, known));
}

std::vector<std::string> providers_of(const PricingCatalog& catalog, const std::string& system) {
  std::vector<std::string> providers;
  for (const PriceEntry& e : catalog.entries()) {
    if (e.system == system && std::find(providers.begin(), providers.end(), e.provider) == providers.end()) {
      providers.push_back(e.provider);
    }
  }
  return providers;
}

void resolve_price(const TrainingSettings& s, Assumptions& a) {
  auto catalog = PricingCatalog::load_embedded();
  if (!catalog) {
    throw dgx::sdk::RuntimeError("pricing catalog: " + catalog.error().message);
  }
  a.providers = providers_of(*catalog, s.system);
  if (s.usd_per_gpu_hour) {
    a.price = Price{.usd_per_gpu_hour = *s.usd_per_gpu_hour,
                    .label = "$" + fixed(*s.usd_per_gpu_hour, 2) + "/GPU-h given by " + key::usd_per_gpu_hour};
    a.price_reason = a.price->label;
    return;
  }
  if (!s.provider.empty()) {
    auto choice = catalog->find(s.provider, s.system);
    if (!choice) {
      if (a.providers.empty()) {
        throw InvalidArgument(choice.error().message);
      }
      throw InvalidArgument(
          unknown_name_message("price provider for " + s.system, s.provider, key::provider, a.providers));
    }
    a.price = Price{.usd_per_gpu_hour = choice->entry.usd_per_gpu_hour, .label = choice->reason};
    a.price_reason = choice->reason;
    return;
  }
  auto choice = catalog->default_price(s.system);
  if (!choice) {
    a.price_reason = choice.error().message + "; costs are in GPU-hours";
    return;
  }
  a.price = Price{.usd_per_gpu_hour = choice->entry.usd_per_gpu_hour, .label = choice->reason};
  a.price_reason = choice->reason;
}

}  // namespace

std::vector<std::string> framework_names_of(const TrainingSettings& settings) {
  return settings.frameworks.empty() ? std::vector<std::string>{default_framework()} : settings.frameworks;
}

Assumptions resolve_assumptions(const TrainingSettings& settings) {
  Assumptions a;
  a.model = lookup_model(settings.model);
  a.framework = lookup_framework(framework_names_of(settings).front());
  a.system = apply_framework(lookup_system(settings.system), a.framework);
  for (const std::string& name : settings.frameworks) {  // unknown names fail before any work is done
    (void)lookup_framework(name);
  }
  resolve_price(settings, a);
  a.calibration = calibration_summary();
  return a;
}

Assumptions with_framework(const Assumptions& assumptions, const std::string& framework) {
  Assumptions a = assumptions;
  a.framework = lookup_framework(framework);
  a.system = apply_framework(lookup_system(assumptions.system.name), a.framework);
  return a;
}

}  // namespace dgx::llm::plugin
