#include <doctest/doctest.h>

#include "dgx/llm/kernels/peak.hpp"

using namespace dgx::llm::kernels;

TEST_CASE("the peak table knows Hopper by its runtime device name, dense BF16 and FP8") {
  const auto h200 = builtin_peak("NVIDIA H200", Precision::bf16);
  REQUIRE(h200);
  CHECK(h200->tflops == doctest::Approx(989.4));
  CHECK(h200->source.find("H200") != std::string::npos);
  CHECK(builtin_peak("NVIDIA H200", Precision::fp8)->tflops == doctest::Approx(1978.9));
  CHECK(builtin_peak("NVIDIA H100 80GB HBM3", Precision::bf16)->source.find("H100 SXM") != std::string::npos);
  CHECK(builtin_peak("NVIDIA H100 PCIe", Precision::bf16)->tflops == doctest::Approx(756.0));
  CHECK(builtin_peak("NVIDIA GH200 480GB", Precision::bf16)->source.find("GH200") != std::string::npos);
}

TEST_CASE("no peak for unknown devices or formats the device lacks; a configured peak wins") {
  CHECK_FALSE(builtin_peak("NVIDIA A100-SXM4-80GB", Precision::fp8).has_value());
  CHECK_FALSE(builtin_peak("Some Future GPU", Precision::bf16).has_value());
  const auto configured = resolve_peak(1234.0, "NVIDIA H200", Precision::bf16);
  CHECK(configured->tflops == 1234.0);
  CHECK(configured->source == "configuration");
  CHECK(resolve_peak(0.0, "NVIDIA H200", Precision::bf16)->tflops == doctest::Approx(989.4));
}
