#include "dgx/llm/workload/serve_assumptions.hpp"

#include <utility>

#include "dgx/llm/workload/calibration_summary.hpp"
#include "dgx/llm/workload/catalog_lookup.hpp"
#include "dgx/llm/workload/keys.hpp"

namespace dgx::llm::workload {

ServeAssumptions resolve_serve_assumptions(const std::string& model, const std::string& system,
                                           const std::string& provider, std::optional<double> usd_per_gpu_hour) {
  ServeAssumptions a;
  a.model = lookup_model(model, key::model);
  a.system = lookup_system(system, key::system);
  PriceResolution price = resolve_price(a.system.name, provider, usd_per_gpu_hour,
                                        {.provider = key::provider, .usd_per_gpu_hour = key::usd_per_gpu_hour});
  a.price = price.price;
  a.price_reason = std::move(price.reason);
  a.providers = std::move(price.providers);
  a.calibration = serving_calibration_summary(a.system);
  return a;
}

}  // namespace dgx::llm::workload
