#include "dgx/llm/calibration_scope.hpp"

#include "dgx/llm/catalog.hpp"

#include "catalog_fixtures.hpp"

#include <doctest/doctest.h>

using namespace dgx::llm;
using dgx::llm::testing::catalog_model;
using dgx::llm::testing::catalog_system;

namespace {
SystemProfile under(std::string_view system, std::string_view framework) {
  return apply_framework(catalog_system(system), find_framework(framework).value());
}
bool mentions(const std::vector<std::string>& reasons, std::string_view part) {
  for (const std::string& r : reasons) {
    if (r.find(part) != std::string::npos) {
      return true;
    }
  }
  return false;
}
}  // namespace

TEST_CASE("a calibrated configuration lies inside the calibration") {
  CHECK(
      outside_calibration(catalog_model("llama3.1-405b"), under("h100-sxm", default_framework()), Precision::fp8, 8192)
          .empty());
  CHECK(outside_calibration(catalog_model("llama3.1-70b"), under("gb300-nvl72", "nemo-26.02"), Precision::nvfp4, 8192)
            .empty());
}

TEST_CASE("a system, a precision or a release without published runs is named") {
  // Calibration set 3 added runs on H200 (MLPerf), GB200 in BF16 (GPT-OSS) and NeMo 24.12 on Blackwell (MLPerf
  // GB200): the examples are what no set covers.
  CHECK(mentions(outside_calibration(catalog_model("llama3.1-70b"), under("a100-sxm-80gb", "nemo-26.02.01"),
                                     Precision::bf16, 8192),
                 "a100-sxm-80gb has no published run"));
  CHECK(mentions(
      outside_calibration(catalog_model("llama3.1-70b"), under("gb300-nvl72", "nemo-26.02.01"), Precision::bf16, 8192),
      "no published run of gb300-nvl72 in bf16"));
  CHECK(mentions(
      outside_calibration(catalog_model("llama3.1-70b"), under("gb200-nvl72", "nemo-24.07"), Precision::fp8, 8192),
      "framework nemo-24.07 has no published run on blackwell GPUs"));
}

TEST_CASE("models far from the calibrated sizes, mixture-of-experts models and unusual sequences are named") {
  const SystemProfile h100 = under("h100-sxm", "nemo-26.02.01");
  CHECK(
      mentions(outside_calibration(catalog_model("mixtral-8x22b"), h100, Precision::fp8, 4096), "mixture-of-experts"));
  CHECK(mentions(outside_calibration(catalog_model("llama3.1-8b"), h100, Precision::fp8, 524288),
                 "sequences of 524288 tokens lie outside the calibrated 2048-262144"));
  // MoE models with published runs (set 3) are inside; other MoE families are named.
  CHECK_FALSE(mentions(outside_calibration(catalog_model("qwen3-235b-a22b"), h100, Precision::fp8, 4096),
                       "mixture-of-experts"));
  CHECK_FALSE(mentions(outside_calibration(catalog_model("gpt3-175b"), h100, Precision::fp8, 2048), "far from"));
}
