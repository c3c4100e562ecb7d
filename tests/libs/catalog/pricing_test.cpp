#include "dgx/catalog/embedded_configs.hpp"
#include "dgx/catalog/framework.hpp"
#include "dgx/catalog/model_catalog.hpp"
#include "dgx/catalog/precision.hpp"
#include "dgx/catalog/pricing.hpp"
#include "dgx/catalog/system_catalog.hpp"

#include <doctest/doctest.h>

using namespace dgx::catalog;

namespace {
PricingCatalog catalog() {
  auto c = PricingCatalog::load();
  REQUIRE_MESSAGE(c.has_value(), (c ? "" : c.error().message));
  return c.value();
}
}  // namespace

TEST_CASE("every price carries its date and source") {
  const PricingCatalog prices = catalog();
  for (const PriceEntry& e : prices.entries()) {
    CAPTURE(e.provider);
    CAPTURE(e.system);
    CHECK(e.usd_per_gpu_hour > 0);
    CHECK_FALSE(e.as_of.empty());
    CHECK_FALSE(e.source.empty());
  }
}

TEST_CASE("the default price is the cheapest on-demand list price and says why") {
  const auto choice = catalog().default_price("h100-sxm");
  REQUIRE(choice.has_value());
  CHECK(choice->entry.provider == "nebius");
  CHECK(choice->entry.usd_per_gpu_hour == doctest::Approx(2.95));
  CHECK(choice->reason.find("cheapest of 8 on-demand list prices for h100-sxm") != std::string::npos);
  CHECK(catalog().default_price("gb300-nvl72")->entry.usd_per_gpu_hour == doctest::Approx(18.0));
}

TEST_CASE("commitment discounts derive reserved prices from on-demand ones") {
  const auto one_year = catalog().find("aws-1yr", "h100-sxm");
  REQUIRE(one_year.has_value());
  CHECK(one_year->entry.usd_per_gpu_hour == doctest::Approx(6.88 * (1 - 0.41)));
  CHECK(one_year->entry.kind == "reserved");
  CHECK(catalog().find("aws-3yr", "b200")->entry.usd_per_gpu_hour == doctest::Approx(14.24 * 0.36));
}

TEST_CASE("the owned-cluster model reproduces Epoch AI's $1.63 per H100-hour at $33,750") {
  const auto owned = catalog().find("owned", "h100-sxm");
  REQUIRE(owned.has_value());
  CHECK(owned->entry.usd_per_gpu_hour == doctest::Approx(1.63).epsilon(0.01));
  OwnedClusterModel half_used = catalog().owned_model();
  half_used.utilization = 0.5;
  CHECK(half_used.usd_per_gpu_hour(33750, 700) == doctest::Approx(2 * owned->entry.usd_per_gpu_hour));
}

TEST_CASE("a system without any price is an error, and so is an unknown provider") {
  const auto none = catalog().default_price("a100-sxm-80gb");
  REQUIRE_FALSE(none.has_value());
  CHECK(none.error().message.find("no price for a100-sxm-80gb") == 0);
  const auto unknown = catalog().find("acme", "h100-sxm");
  REQUIRE_FALSE(unknown.has_value());
  CHECK(unknown.error().message.find("the catalog has: aws") != std::string::npos);
}

TEST_CASE("a malformed pricing file reports the file and the key") {
  const auto owned = embedded_config("pricing/owned-cluster.toml");
  REQUIRE(owned.has_value());
  const auto c = PricingCatalog::parse("[default]\nwhy = \"x\"\n[[price]]\nprovider = \"p\"\n", *owned);
  REQUIRE_FALSE(c.has_value());
  CHECK(c.error().message == "configs/pricing/cloud.toml:3:1: key 'price[0].system' is missing");
}
