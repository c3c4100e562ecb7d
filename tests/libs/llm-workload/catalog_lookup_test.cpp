#include "dgx/llm/workload/catalog_lookup.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "config_error.hpp"
#include "temp_dir.hpp"

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

TEST_CASE("a config.json path is a model, its notes name the file, and its errors are configuration errors") {
  const dgx::testing::TempDir dir;
  const std::string llama =
      std::string(DGX_SOURCE_DIR) + "/tests/libs/catalog/data/hf-configs/meta-llama--Meta-Llama-3.1-8B_config.json";
  const dgx::llm::ModelConfig model = lookup_model(llama, "model");
  CHECK(model.name == "meta-llama-3.1-8b");
  CHECK(model.display == "Meta-Llama-3.1-8B, read from " + llama);
  const std::string broken = dir.write("config.json", "{\"architectures\": [\"LlamaForCausalLM\"]}").string();
  const std::string message = config_error_of([&] { (void)lookup_model(broken, "model"); });
  CHECK(message == "model: " + broken + ": field 'num_hidden_layers' is missing (the architecture needs it)");
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

TEST_CASE("the seven clouds of the seed price their systems, each from a public source") {
  const PriceKeys keys{"cost.provider", "cost.usd_per_gpu_hour"};
  const auto rate = [&](const char* provider, const char* system) {
    const PriceResolution r = resolve_price(system, provider, std::nullopt, keys);
    REQUIRE(r.price.has_value());
    CHECK(r.reason.find("reference/") == std::string::npos);  // the original source, not a notes file
    return r.price->usd_per_gpu_hour;
  };
  CHECK(rate("gcp", "h100-sxm") == doctest::Approx((9.46006 + 78.37241) / 8));
  CHECK(rate("gcp", "h200-sxm") == doctest::Approx((12.266 + 74.49392) / 8).epsilon(1e-4));
  CHECK(rate("gcp", "b200") == doctest::Approx(64.44 / 8));
  CHECK(rate("azure", "h100-sxm") == doctest::Approx(98.32 / 8).epsilon(1e-3));
  CHECK(rate("coreweave", "h100-sxm") == doctest::Approx(49.24 / 8));
  CHECK(rate("coreweave", "h200-sxm") == doctest::Approx(50.44 / 8));
  CHECK(rate("coreweave", "b200") == doctest::Approx(68.80 / 8));
  CHECK(rate("coreweave", "gb200-nvl72") == doctest::Approx(42.00 / 4));
  CHECK(rate("crusoe", "h100-sxm") == doctest::Approx(3.90));
  CHECK(rate("crusoe", "h200-sxm") == doctest::Approx(4.29));
  for (const char* provider : {"aws", "gcp", "azure", "oracle", "coreweave", "crusoe", "nebius"}) {
    CAPTURE(provider);
    CHECK(rate(provider, "h100-sxm") > 0);
  }
  // GB200 has a second price now, and the default is the cheaper of the two.
  CHECK(resolve_price("gb200-nvl72", "", std::nullopt, keys).price->usd_per_gpu_hour == doctest::Approx(10.50));
}

TEST_CASE("an unknown price provider is a sentence of its own before the catalog's list") {
  const PriceKeys keys{"cost.provider", "cost.usd_per_gpu_hour"};
  const std::string unknown = config_error_of([&] { (void)resolve_price("h100-sxm", "gpc", std::nullopt, keys); });
  CHECK(unknown.find("unknown price provider for h100-sxm 'gpc' (config key cost.provider). The catalog has: ") == 0);
}

TEST_CASE("a provider without a price for the system says so, with a full stop before the providers that have one") {
  const PriceKeys keys{"cost.provider", "cost.usd_per_gpu_hour"};
  try {
    (void)resolve_price("gb200-nvl72", "gcp", std::nullopt, keys);
    FAIL("gcp has no GB200 price");
  } catch (const dgx::sdk::InvalidArgument& e) {
    CHECK(std::string(e.what()) ==
          "price provider 'gcp' (config key cost.provider) lists no price for gb200-nvl72 (configs/pricing names the "
          "gaps). The providers that price gb200-nvl72: oracle, coreweave.");
  }
  try {
    (void)resolve_price("h100-sxm", "zzz", std::nullopt, keys);
    FAIL("no provider zzz");
  } catch (const dgx::sdk::InvalidArgument& e) {
    CHECK(std::string(e.what()).find("unknown price provider for h100-sxm 'zzz' (config key cost.provider). The "
                                     "catalog has: ") == 0);
  }
}
