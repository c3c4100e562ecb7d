#include "dgx/llm/workload/calibration_summary.hpp"

#include <doctest/doctest.h>

#include "dgx/llm/catalog.hpp"

using namespace dgx::llm::workload;
using dgx::llm::Precision;

namespace {
dgx::llm::SystemProfile newest(const char* name) {
  return dgx::llm::apply_framework(dgx::llm::find_system(name).value(),
                                   dgx::llm::find_framework(dgx::llm::default_framework()).value());
}
}  // namespace

TEST_CASE("the calibration line quotes the model's measured errors on both sets of published runs") {
  // bench/llm-model calibration: the 17 rows of calibration.md, the 55 of calibration-2.md and the 38 pretraining
  // rows of calibration-3.md.
  const std::string line = calibration_summary();
  CHECK(line.find("configs/baselines/calibration.md, calibration-2.md and calibration-3.md: mean ") == 0);
  CHECK(
      line.find(
          " over 110 published runs on b200, gb200-nvl72, gb300-nvl72, h100-sxm, h100-sxm-96gb-hbm2e-500w, h200-sxm") !=
      std::string::npos);
  // The maximum names the run it is, so that a reader sees an outlier of its kind, not the typical error.
  const std::size_t max = line.find("%, max ");
  REQUIRE(max != std::string::npos);
  const std::size_t open = line.find(" (", max);
  CHECK(open < line.find(" over 110"));
  CHECK(line.find(" GPUs, nemo-", open) < line.find(" over 110"));
}

TEST_CASE("every projection's class states its own calibration error, or that it has none") {
  const auto llama = dgx::llm::find_model("llama3.1-70b").value();
  const auto h100 = newest("h100-sxm");
  const dgx::llm::AccuracyBand calibrated = projection_band(llama, h100, Precision::fp8, 512);
  CHECK_FALSE(calibrated.outside);
  CHECK(calibrated.width > 0.01);
  CHECK(calibrated.width < 0.12);
  CHECK(band_text(calibrated, h100, Precision::fp8, 512).find("h100-sxm fp8 at 512 GPUs: ±") == 0);

  // A system without a published run borrows the others' residuals, widened, and says so.
  const auto a100 = newest("a100-sxm-80gb");
  const dgx::llm::AccuracyBand uncalibrated = projection_band(llama, a100, Precision::bf16, 512);
  CHECK(uncalibrated.outside);
  CHECK(uncalibrated.width > calibrated.width);
  CHECK(band_text(uncalibrated, a100, Precision::bf16, 512)
            .find("; outside calibration: a100-sxm-80gb has no published run") != std::string::npos);
}

TEST_CASE("the scope names what lies outside the calibrated runs, each reason once") {
  const auto llama = dgx::llm::find_model("llama3.1-70b").value();
  CHECK(calibration_scope(llama, newest("h100-sxm"), {Precision::bf16, Precision::fp8}, 8192).empty());
  const auto a100 = calibration_scope(llama, newest("a100-sxm-80gb"), {Precision::bf16}, 8192);
  REQUIRE(a100.size() >= 1);
  CHECK(a100.front().find("a100-sxm-80gb has no published run") == 0);
  const auto moe = calibration_scope(dgx::llm::find_model("mixtral-8x7b").value(), newest("h100-sxm"),
                                     {Precision::bf16, Precision::fp8}, 4096);
  CHECK(moe.size() == 1);
  CHECK(moe.front().find("mixture-of-experts") != std::string::npos);
}

TEST_CASE("the fine-tuning line quotes its own set, and says so for a system it has no run on") {
  const std::string h100 = finetune_calibration_summary(newest("h100-sxm"));
  CHECK(h100.find("configs/baselines/finetune.md and calibration-3.md's LoRA rows: mean ") == 0);
  CHECK(h100.find(" over 23 published SFT and LoRA runs on gb200-nvl72, h100-sxm") != std::string::npos);
  CHECK(finetune_calibration_summary(newest("b200")).find("; b200 is uncalibrated for fine-tuning") !=
        std::string::npos);
}
