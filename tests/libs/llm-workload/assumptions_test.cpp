#include "dgx/llm/workload/assumptions.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "config_error.hpp"

using namespace dgx::llm::workload;

namespace {

TrainingSettings settings(const std::string& model, const std::string& system) {
  TrainingSettings s;
  s.model = model;
  s.system = system;
  return s;
}

std::string error_of(const TrainingSettings& s) {
  return dgx::testing::config_error_of([&] { (void)resolve_assumptions(s); });
}

}  // namespace

TEST_CASE("the catalogs give the model, the system and the cheapest on-demand price with its reason") {
  const Assumptions a = resolve_assumptions(settings("llama3.1-70b", "h100-sxm"));
  CHECK(a.model.layers == 80);
  CHECK(a.system.nvlink_domain == 8);
  REQUIRE(a.price.has_value());
  CHECK(a.price->usd_per_gpu_hour > 1);
  CHECK(a.price_reason.find("cheapest") != std::string::npos);
  CHECK(a.price_reason == a.price->label);
  CHECK(std::find(a.providers.begin(), a.providers.end(), "owned") != a.providers.end());
  CHECK(a.calibration.find("calibration.md, calibration-2.md and calibration-3.md: mean") != std::string::npos);
}

TEST_CASE("a named provider or an explicit price replaces the default") {
  TrainingSettings s = settings("llama3.1-8b", "h100-sxm");
  s.provider = "aws";
  const Assumptions aws = resolve_assumptions(s);
  REQUIRE(aws.price.has_value());
  CHECK(aws.price_reason.find("aws on-demand") == 0);
  CHECK(aws.price_reason.find("chosen by the user") != std::string::npos);
  s.usd_per_gpu_hour = 1.5;
  const Assumptions fixed_price = resolve_assumptions(s);
  CHECK(fixed_price.price->usd_per_gpu_hour == 1.5);
  CHECK(fixed_price.price_reason == "$1.50/GPU-h given by cost.usd_per_gpu_hour");
}

TEST_CASE("unknown names are config errors with the close matches and the catalog") {
  const std::string model = error_of(settings("llama70b", "h100-sxm"));
  CHECK(model.find("unknown model 'llama70b' (config key model); did you mean 'llama3.1-70b'") == 0);
  CHECK(model.find("'llama70b' is a preset: dgxhost --plugin llama70b") != std::string::npos);
  CHECK(error_of(settings("llama3.1-8b", "h100"))
            .find("unknown system 'h100' (config key system); did you mean 'h100-nvl', 'h100-pcie' or "
                  "'h100-sxm'?") == 0);
  TrainingSettings s = settings("llama3.1-8b", "h100-sxm");
  s.provider = "awz";
  CHECK(error_of(s).find("unknown price provider for h100-sxm 'awz' (config key cost.provider); did you mean 'aws'") ==
        0);
}
