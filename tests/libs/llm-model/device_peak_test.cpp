#include "dgx/llm/device_peak.hpp"

#include "catalog_fixtures.hpp"

#include <doctest/doctest.h>

using namespace dgx::llm;
using dgx::llm::testing::catalog_system;

TEST_CASE("a measured device's peak is its system profile's dense peak, named by the profile") {
  const auto pcie = resolve_peak(0, "NVIDIA H100 PCIe", Precision::bf16);
  REQUIRE_MESSAGE(pcie.has_value(), (pcie ? "" : pcie.error().message));
  CHECK(pcie->system == "h100-pcie");
  CHECK(pcie->tflops == catalog_system("h100-pcie").peak_bf16_tflops);
  CHECK(pcie->tflops < catalog_system("h100-sxm").peak_bf16_tflops);  // not the SXM part's any more
  const auto fp8 = resolve_peak(0, "NVIDIA H200", Precision::fp8);
  REQUIRE(fp8.has_value());
  CHECK(fp8->tflops == catalog_system("h200-sxm").peak_fp8_tflops);
  CHECK(fp8->precision == Precision::fp8);
}

TEST_CASE("a configured peak wins over the profile and says it was configured") {
  const auto configured = resolve_peak(1234, "NVIDIA H200", Precision::bf16);
  REQUIRE(configured.has_value());
  CHECK(configured->tflops == 1234);
  CHECK(configured->system.empty());
  CHECK(configured->label() == "1234 TFLOP/s dense bf16 (configured)");
  CHECK(resolve_peak(500, "Some Future GPU", Precision::fp8)->tflops == 500);
}

TEST_CASE("no peak for a device without a profile, or a format its profile lacks: the error says which") {
  const auto unknown = resolve_peak(0, "Some Future GPU", Precision::bf16);
  REQUIRE_FALSE(unknown.has_value());
  CHECK(unknown.error().message.find("'Some Future GPU'") != std::string::npos);
  const auto a100 = resolve_peak(0, "NVIDIA A100-SXM4-80GB", Precision::fp8);
  REQUIRE_FALSE(a100.has_value());
  CHECK(a100.error().message == "a100-sxm-80gb (configs/systems/a100-sxm-80gb.toml) has no dense fp8 peak");
}

TEST_CASE("a peak's label gives the rounded TFLOP/s, the precision and the profile") {
  SystemProfile system;
  system.name = "test-gpu";
  system.peak_bf16_tflops = 123.4;
  system.peak_fp8_tflops = 246.8;
  CHECK(system_peak(system, Precision::bf16)->label() == "123 TFLOP/s dense bf16 (test-gpu)");
  CHECK(system_peak(system, Precision::fp8)->label() == "247 TFLOP/s dense fp8 (test-gpu)");
  CHECK(system_peak(system, Precision::nvfp4).error().message ==
        "test-gpu (configs/systems/test-gpu.toml) has no dense nvfp4 peak");
}
