#include <doctest/doctest.h>

#include "dgx/core/verdict/compare.hpp"

using namespace dgx;

namespace {

Report run_of(double scale, int us = 1000) {
  Report run;
  run.context.set("workload", "spin");
  ResultRow row;
  row.workload = "spin";
  row.plugin = "spin";
  row.config.set("spin.us", us);
  const std::vector<double> base{1.000, 1.004, 0.998, 1.002, 1.001, 0.999, 1.003, 1.000, 0.997, 1.001};
  for (const double t : base) {
    row.sample_times.push_back(t * scale * 1e-3);
  }
  row.add_metric({"time.median", 1.0005e-3 * scale, "s", false, {}});
  row.add_metric({"time.mean", 1.0005e-3 * scale, "s", false, {}});
  row.add_metric({"samples", 10, "count", false, {}});
  run.rows.push_back(row);
  return run;
}

const ResultRow* row_of(const Report& r, const std::string& metric) {
  for (const ResultRow& row : r.rows) {
    if (row.find_field("metric")->value == metric) {
      return &row;
    }
  }
  return nullptr;
}

}  // namespace

TEST_CASE("two runs of the same workload: no significant difference, exit 0") {
  const Report out = compare_runs(run_of(1.0), "a.json", run_of(1.001), "b.json", {});
  CHECK(out.exit_code == 0);
  const ResultRow* median = row_of(out, "time.median");
  REQUIRE(median);
  CHECK(median->find_field("verdict")->value == "no significant difference");
  CHECK(median->table == "compare time.median (lower is better)");
  CHECK(out.notes.back().text.find("no significant difference") == 0);
  CHECK(row_of(out, "time.mean") == nullptr);  // the outlier-prone mean is not judged
}

TEST_CASE("a run 10% slower is a significant regression and exits 5") {
  const Report out = compare_runs(run_of(1.0), "a.json", run_of(1.1), "b.json", {});
  CHECK(out.exit_code == 5);
  const ResultRow* median = row_of(out, "time.median");
  CHECK(median->find_field("verdict")->value == "regression");
  CHECK(median->find_metric("ratio")->value == doctest::Approx(1.1));  // raw B/A, JSON only
  CHECK(median->find_metric("ratio")->hidden);
  // The shown ratio is the chart's: above 1 when B is better, so a 10% slower B reads 1/1.1, better by -9.09%.
  CHECK(median->find_metric("relative")->value == doctest::Approx(1 / 1.1));
  CHECK_FALSE(median->find_metric("relative")->hidden);
  CHECK(median->find_metric("change")->value == doctest::Approx(100 * (1 / 1.1 - 1)));
  CHECK(out.notes.back().text.find("B vs A is B relative to A, turned so that above 1 means B is better") !=
        std::string::npos);
  CHECK(median->find_metric("p_value")->value < 0.05);
  CHECK(out.notes.back().text.find("regression: spin time.median") != std::string::npos);
}

TEST_CASE("a change beyond the threshold that the samples do not support is not significant") {
  Report a = run_of(1.0), b = run_of(1.1);
  a.rows[0].sample_times = {0.0008, 0.0012, 0.0009, 0.0013};  // wide overlap
  b.rows[0].sample_times = {0.0013, 0.0009, 0.0011, 0.0008};
  const Report out = compare_runs(a, "a.json", b, "b.json", {});
  CHECK(row_of(out, "time.median")->find_field("verdict")->value == "no significant difference");
  CHECK(out.exit_code == 0);
}

TEST_CASE("without samples the threshold alone decides, and different configurations pair as nearest") {
  Report a = run_of(1.0), b = run_of(0.8, 900);
  a.rows[0].sample_times.clear();
  const Report out = compare_runs(a, "a.json", b, "b.json", {.threshold = 0.05, .alpha = 0.05});
  const ResultRow* median = row_of(out, "time.median");
  CHECK(median->find_field("verdict")->value == "improvement");
  CHECK(median->find_field("matched")->value == "nearest row of A: spin.us 900 (A 1000)");
  CHECK(median->find_metric("p_value") == nullptr);
}
