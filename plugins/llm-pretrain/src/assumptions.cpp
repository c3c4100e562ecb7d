#include "assumptions.hpp"

#include <utility>

#include "calibration_summary.hpp"
#include "dgx/llm/workload/catalog_lookup.hpp"
#include "params.hpp"

namespace dgx::plugins::llm_pretrain {

Assumptions resolve_assumptions(const PretrainSettings& settings) {
  Assumptions a;
  a.model = llm::workload::lookup_model(settings.model, key::model);
  a.system = llm::workload::lookup_system(settings.system, key::system);
  llm::workload::PriceResolution price = llm::workload::resolve_price(
      settings.system, settings.provider, settings.usd_per_gpu_hour, {key::provider, key::usd_per_gpu_hour});
  a.price = price.price;
  a.price_reason = std::move(price.reason);
  a.providers = std::move(price.providers);
  a.calibration = calibration_summary(a.system);
  return a;
}

}  // namespace dgx::plugins::llm_pretrain
