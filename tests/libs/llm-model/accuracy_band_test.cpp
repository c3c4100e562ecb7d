#include "dgx/llm/accuracy_band.hpp"

#include "catalog_fixtures.hpp"

#include <doctest/doctest.h>

#include <cmath>

using namespace dgx::llm;
using dgx::llm::testing::catalog_model;
using dgx::llm::testing::released_system;

namespace {
AccuracyBand band_of(std::string_view model, const SystemProfile& system, Precision precision, int gpus) {
  return AccuracyModel::embedded().band(band_query(catalog_model(model), system, precision, gpus));
}
CalibrationOutcome outcome(std::string system, double error, int gpus = 64) {
  CalibrationOutcome o;
  o.row.model = "llama3.1-70b";
  o.row.system = std::move(system);
  o.row.framework = "nemo-26.02.01";
  o.row.gpus = gpus;
  o.row.train.precision = Precision::fp8;
  o.error = error;
  return o;
}
}  // namespace

TEST_CASE("a calibrated configuration gets the band its resembling rows support, inside the calibration") {
  const AccuracyBand b = band_of("llama3.1-70b", released_system("h100-sxm"), Precision::fp8, 64);
  CHECK_FALSE(b.outside);
  CHECK(b.reasons.empty());
  CHECK(b.width >= kMinimumBand);
  CHECK(b.width < 0.10);
  CHECK(b.effective_rows > 3);
  CHECK(b.label().find("±") == 0);
}

TEST_CASE("outside the calibrated domain the band widens and says why") {
  const AccuracyBand inside = band_of("llama3.1-70b", released_system("h100-sxm"), Precision::fp8, 64);
  // No run on A100; 16384 GPUs is more than 10x the largest H100 run (8192 is not).
  const AccuracyBand a100 = band_of("llama3.1-70b", released_system("a100-sxm-80gb"), Precision::bf16, 64);
  CHECK(a100.outside);
  CHECK(a100.width > inside.width);
  CHECK(a100.reasons.front().find("a100-sxm-80gb has no published run") == 0);
  const AccuracyBand h100_big = band_of("llama3.1-405b", released_system("h100-sxm"), Precision::fp8, 8192);
  CHECK_FALSE(h100_big.outside);
  const AccuracyBand gb300_far = band_of("llama3.1-405b", released_system("gb300-nvl72"), Precision::fp8, 4096);
  CHECK(gb300_far.outside);
  CHECK(gb300_far.reasons.back().find("4096 GPUs is more than 10× the largest calibrated run on gb300-nvl72 (256)") ==
        0);
  // A framework family with few runs is named.
  AccuracyModel tiny({outcome("h100-sxm", 0.02), outcome("h100-sxm", -0.03)});
  const AccuracyBand few =
      tiny.band(band_query(catalog_model("llama3.1-70b"), released_system("h100-sxm"), Precision::fp8, 64));
  CHECK(few.outside);
}

TEST_CASE("the band follows the residuals that apply: wide where the calibration errs, narrow where it does not") {
  std::vector<CalibrationOutcome> rows;
  for (int i = 0; i < 8; ++i) {
    rows.push_back(outcome("h100-sxm", i % 2 == 0 ? 0.01 : -0.01));
    rows.push_back(outcome("gb200-nvl72", i % 2 == 0 ? 0.12 : -0.12));
  }
  const AccuracyModel model(rows);
  const ModelConfig llama = catalog_model("llama3.1-70b");
  const AccuracyBand h100 = model.band(band_query(llama, released_system("h100-sxm"), Precision::fp8, 64));
  const AccuracyBand gb200 = model.band(band_query(llama, released_system("gb200-nvl72"), Precision::fp8, 64));
  CHECK(h100.width < gb200.width);
  CHECK(gb200.width > 0.10);
  CHECK(h100.rms < 0.06);
}

TEST_CASE("leave-one-out coverage: most published values lie inside their own band, not all") {
  // The band of a row never rests on the row itself (band_without); the target is 80-95 %.
  const AccuracyModel& model = AccuracyModel::embedded();
  const AccuracyModel::Coverage c = model.coverage();
  CHECK(c.rows >= 130);
  CHECK(c.share() >= 0.80);
  CHECK(c.share() <= 0.95);
  // Without the row, its band is computed from the others only: a far row does not widen its own band.
  std::vector<CalibrationOutcome> rows;
  for (int i = 0; i < 6; ++i) {
    rows.push_back(outcome("h100-sxm", 0.01));
  }
  rows.push_back(outcome("h100-sxm", 0.30));
  const AccuracyModel seven(rows);
  CHECK(seven.band_without(seven.query(6), 6).width < seven.band(seven.query(6)).width);
  CHECK(std::abs(seven.outcomes()[6].error) > seven.band_without(seven.query(6), 6).width);
}

TEST_CASE("an advantage inside the band is a tie") {
  AccuracyBand band;
  band.width = 0.066;
  CHECK(is_tie(0.059, band));
  CHECK(is_tie(-0.059, band));
  CHECK_FALSE(is_tie(0.08, band));
}
