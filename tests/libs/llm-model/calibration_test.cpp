#include "dgx/llm/calibration.hpp"

#include <doctest/doctest.h>

#include <map>

using namespace dgx::llm;

namespace {
const std::vector<CalibrationOutcome>& outcomes() {
  static const std::vector<CalibrationOutcome> all = [] {
    auto rows = load_calibration();
    REQUIRE_MESSAGE(rows.has_value(), (rows ? "" : rows.error().message));
    return run_calibration(*rows);
  }();
  return all;
}
}  // namespace

TEST_CASE("the calibration set holds every row of sections A and B") {
  std::map<std::string, int> per_section;
  for (const CalibrationOutcome& o : outcomes()) {
    ++per_section[o.row.section];
    CHECK_FALSE(o.row.source.empty());
  }
  CHECK(per_section["A"] == 10);
  CHECK(per_section["B"] == 7);
}

TEST_CASE("every published layout is projected (valid and fitting in memory)") {
  for (const CalibrationOutcome& o : outcomes()) {
    CAPTURE(o.row.label);
    CHECK(o.failure == "");
  }
}

TEST_CASE("calibration error: mean absolute error at most 5%, every row within 10%") {
  const std::vector<ErrorStats> stats = error_stats(outcomes());
  REQUIRE(stats.back().section == "all");
  for (const ErrorStats& s : stats) {
    CAPTURE(s.section);
    CHECK(s.failed == 0);
    CHECK(s.max_abs <= 0.10);
  }
  CHECK(stats.back().mean_abs <= 0.05);
}

TEST_CASE("weak scaling of section C: Llama 3.1 8B loses 1-6% of per-GPU throughput from 8 to 128 GPUs") {
  for (const Precision precision : {Precision::bf16, Precision::fp8}) {
    std::map<int, double> step;
    for (const CalibrationOutcome& o : outcomes()) {
      if (o.row.section == "A" && o.row.train.precision == precision) {
        step[o.row.gpus] = o.projected;
      }
    }
    REQUIRE(step.count(8) == 1);
    REQUIRE(step.count(128) == 1);
    const double loss = step[128] / step[8] - 1;  // same per-GPU work: longer step = lower throughput per GPU
    CAPTURE(loss);
    CHECK(loss > 0.01);
    CHECK(loss < 0.06);
    CHECK(step[16] >= step[8]);
  }
}

TEST_CASE("the error statistics average absolute errors per section") {
  const auto outcome = [](std::string section, double error, std::string failure) {
    CalibrationOutcome o;
    o.row.section = std::move(section);
    o.error = error;
    o.failure = std::move(failure);
    return o;
  };
  const std::vector<CalibrationOutcome> made = {outcome("X", 0.02, ""), outcome("X", -0.06, ""),
                                                outcome("Y", 0, "boom")};
  const auto stats = error_stats(made);
  REQUIRE(stats.size() == 3);
  CHECK(stats[0].mean_abs == doctest::Approx(0.04));
  CHECK(stats[0].max_abs == doctest::Approx(0.06));
  CHECK(stats[1].failed == 1);
  CHECK(stats[2].rows == 3);
}
