#include "dgx/llm/plugin/calibration_summary.hpp"

#include <doctest/doctest.h>

#include "dgx/llm/system_catalog.hpp"

using namespace dgx::llm::plugin;

TEST_CASE("the calibration line quotes the model's measured errors on the published runs") {
  const std::string h100 = calibration_summary(dgx::llm::find_system("h100-sxm").value());
  // bench/llm-model calibration: mean 4.4%, max 7.9% over the 17 rows of sections A and B.
  CHECK(h100 == "configs/baselines/calibration.md: mean 4.4%, max 7.9% over 17 published runs on h100-sxm");
}

TEST_CASE("a system without published runs is called uncalibrated") {
  const std::string b200 = calibration_summary(dgx::llm::find_system("b200").value());
  CHECK(b200.find("; b200 is uncalibrated") != std::string::npos);
}
