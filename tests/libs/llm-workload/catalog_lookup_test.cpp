#include "dgx/llm/workload/catalog_lookup.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "config_error.hpp"

using namespace dgx::llm::workload;

using dgx::testing::config_error_of;

TEST_CASE("catalog names resolve, and unknown ones are configuration errors with close matches and the key") {
  CHECK(lookup_model("llama3.1-70b", "model").layers == 80);
  CHECK(lookup_system("h200-sxm", "system").hbm_tb_s == doctest::Approx(4.8));
  const std::string model = config_error_of([] { (void)lookup_model("llama70b", "model"); });
  CHECK(model.find("unknown model 'llama70b' (config key model); did you mean 'llama3.1-70b'") == 0);
  CHECK(model.find("is a preset: dgxhost --plugin llama70b") != std::string::npos);
  CHECK(config_error_of([] { (void)lookup_system("h100", "system"); }).find("'h100-sxm'") != std::string::npos);
}

TEST_CASE("a price comes from the explicit rate, the named provider or the cheapest on-demand list price") {
  const PriceKeys keys{"cost.provider", "cost.usd_per_gpu_hour"};
  const PriceResolution given = resolve_price("h100-sxm", "", 2.0, keys);
  REQUIRE(given.price.has_value());
  CHECK(given.price->usd_per_gpu_hour == 2.0);
  CHECK(given.reason == "$2.00/GPU-h given by cost.usd_per_gpu_hour");
  const PriceResolution aws = resolve_price("h100-sxm", "aws", std::nullopt, keys);
  CHECK(aws.price->usd_per_gpu_hour == doctest::Approx(6.88));
  const PriceResolution cheapest = resolve_price("h100-sxm", "", std::nullopt, keys);
  CHECK(cheapest.price->usd_per_gpu_hour == doctest::Approx(2.95));
  CHECK(!cheapest.providers.empty());
  const std::string unknown = config_error_of([&] { (void)resolve_price("h100-sxm", "awz", std::nullopt, keys); });
  CHECK(unknown.find("unknown price provider for h100-sxm 'awz' (config key cost.provider); did you mean 'aws'") == 0);
}

TEST_CASE("the notes' catalog lines: the price and how to change it, a system's peaks, the other systems") {
  CHECK(price_line("$2.00/GPU-h given by cost.usd_per_gpu_hour", {}) ==
        "Price: $2.00/GPU-h given by cost.usd_per_gpu_hour.");
  CHECK(price_line("nebius", {"aws", "nebius"}) ==
        "Price: nebius. Other prices: --set cost.provider=NAME (aws, nebius) or --set cost.usd_per_gpu_hour=USD.");
  CHECK(peaks_text(lookup_system("h100-sxm", "system")) == "989 TFLOP/s dense BF16, 1979 FP8");
  CHECK(peaks_text(lookup_system("b200", "system")).find(" FP4") != std::string::npos);
  const std::vector<std::string> others = other_systems("h100-sxm");
  CHECK(std::find(others.begin(), others.end(), "h100-sxm") == others.end());
  CHECK(std::find(others.begin(), others.end(), "h200-sxm") != others.end());
}
