#include "dgx/llm/workload/assumptions.hpp"

#include <algorithm>
#include <utility>

#include <dgx/sdk/error.hpp>

#include "dgx/catalog/catalog_files.hpp"
#include "dgx/llm/catalog.hpp"
#include "dgx/llm/workload/calibration_summary.hpp"
#include "dgx/llm/workload/catalog_lookup.hpp"

namespace dgx::llm::workload {

namespace {

using dgx::sdk::InvalidArgument;

FrameworkProfile lookup_framework(const std::string& name) {
  auto framework = find_framework(name);
  if (framework) {
    return std::move(framework).value();
  }
  const std::vector<std::string> known = framework_names();
  if (std::find(known.begin(), known.end(), name) != known.end()) {
    throw dgx::sdk::RuntimeError("framework profile " + name + ": " + framework.error().message);
  }
  throw InvalidArgument(catalog::unknown_entry("framework", name, known, key::framework));
}

void resolve_price(const std::string& provider, std::optional<double> usd_per_gpu_hour, Assumptions& a) {
  PriceResolution price =
      workload::resolve_price(a.system.name, provider, usd_per_gpu_hour,
                              PriceKeys{.provider = key::provider, .usd_per_gpu_hour = key::usd_per_gpu_hour});
  a.price = std::move(price.price);
  a.price_reason = std::move(price.reason);
  a.providers = std::move(price.providers);
  a.provider = std::move(price.provider);
}

}  // namespace

std::vector<std::string> framework_names_of(const TrainingSettings& settings) {
  return settings.frameworks.empty() ? std::vector<std::string>{default_framework()} : settings.frameworks;
}

Assumptions resolve_assumptions(const TrainingSettings& settings) {
  Assumptions a;
  a.model = lookup_model(settings.model, key::model);
  a.framework = lookup_framework(framework_names_of(settings).front());
  a.system_source = settings.system;
  a.system = apply_framework(lookup_system(settings.system, key::system), a.framework);
  for (const std::string& name : settings.frameworks) {  // unknown names fail before any work is done
    (void)lookup_framework(name);
  }
  resolve_price(settings.provider, settings.usd_per_gpu_hour, a);
  for (std::size_t i = 1; i < settings.providers.size(); ++i) {  // every provider compared is priced before any work
    Assumptions other = a;
    resolve_price(settings.providers[i], std::nullopt, other);
  }
  a.calibration = calibration_summary();
  return a;
}

std::vector<Assumptions> priced_by_providers(const Assumptions& assumptions, const TrainingSettings& settings) {
  if (settings.providers.size() < 2) {
    return {assumptions};
  }
  std::vector<Assumptions> out;
  for (const std::string& provider : settings.providers) {
    Assumptions a = assumptions;
    resolve_price(provider, std::nullopt, a);
    out.push_back(std::move(a));
  }
  return out;
}

Assumptions with_framework(const Assumptions& assumptions, const std::string& framework) {
  Assumptions a = assumptions;
  a.framework = lookup_framework(framework);
  a.system = apply_framework(lookup_system(assumptions.system_source, key::system), a.framework);
  return a;
}

}  // namespace dgx::llm::workload
