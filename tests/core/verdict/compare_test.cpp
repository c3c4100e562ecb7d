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

namespace {

// Rows of a collective sweep: three message sizes, the size a metric (as the comm plugin reports it), and a
// metric in unit "1" the unit alone would not judge.
Report sweep_of(double scale, const std::string& min_bytes, bool declared) {
  Report run;
  for (const double size : {1024.0, 1048576.0, 1073741824.0}) {
    ResultRow row;
    row.workload = "all_reduce";
    row.plugin = "comm";
    row.config.set("comm.dtype", "fp32");
    row.config.set("comm.min_bytes", min_bytes);
    row.add_metric({"size", size, "B", false, {}});
    row.add_metric({"busbw", scale * size / 1e7, "GB/s", false, {}});
    row.add_metric({"efficiency", 0.5 * scale, "1", false, {}});
    run.rows.push_back(row);
  }
  if (declared) {
    WorkloadDeclarations d;
    d.plugin = "comm";
    d.workload = "all_reduce";
    d.metrics = {{"busbw", "GB/s", Better::higher, {}, {}},
                 {"efficiency", "1", Better::higher, {}, {}},
                 {"size", "B", Better::none, {}, {}}};
    d.identity_keys = std::vector<std::string>{"comm.dtype", "size"};
    run.workloads.push_back(d);
  }
  return run;
}

}  // namespace

TEST_CASE("compare judges a metric by its declared direction, which the unit alone could not give") {
  const Report out = compare_runs(sweep_of(1.0, "8", true), "a.json", sweep_of(0.8, "8", true), "b.json", {});
  const ResultRow* efficiency = row_of(out, "efficiency");
  REQUIRE(efficiency != nullptr);
  CHECK(efficiency->table == "compare efficiency (higher is better)");
  CHECK(efficiency->find_field("verdict")->value == "regression");
  const Report old = compare_runs(sweep_of(1.0, "8", false), "a.json", sweep_of(0.8, "8", false), "b.json", {});
  CHECK(row_of(old, "efficiency") == nullptr);  // undeclared, in unit "1": not judged
}

TEST_CASE("compare pairs each row with the row of A of the same identity, its context changes named") {
  // B swept from another smallest size: context, so every size still pairs with its own, the change named.
  const Report out = compare_runs(sweep_of(1.0, "8", true), "a.json", sweep_of(1.0, "1K", true), "b.json", {});
  int busbw = 0;
  for (const ResultRow& row : out.rows) {
    if (row.find_field("metric")->value != "busbw") {
      continue;
    }
    ++busbw;
    CHECK(row.find_field("verdict")->value == "no significant difference");
    CHECK(row.find_metric("relative")->value == doctest::Approx(1.0));  // each size against the same size
    CHECK(row.find_field("matched")->value == "nearest row of A: comm.min_bytes 1K (A 8)");
  }
  CHECK(busbw == 3);
}

namespace {

// An explore row of an LLM workload that declares no identity: lists in its configuration, its memory per GPU in
// bytes.
Report explore_of(double scale, json::Array gpus) {
  Report run;
  ResultRow row;
  row.workload = "llama70b";
  row.plugin = "llm-pretrain";
  row.config.set("train.precision", json::Array{json::Value("bf16"), json::Value("fp8")});
  row.config.set("explore.gpus", std::move(gpus));
  row.config.set("explore.layouts", json::Array{json::Value(json::Array{json::Value(1), json::Value(2.0)})});
  json::Object overrides;
  overrides.set("layers", 80);
  row.config.set("model.overrides", overrides);
  row.add_metric({"step_time", 2.0 * scale, "s", false, {}});
  row.add_metric({"memory_per_gpu", 85899345920, "B", false, {}});
  run.rows.push_back(row);
  return run;
}

json::Array gpu_list(std::initializer_list<int> counts) {
  json::Array out;
  for (const int n : counts) {
    out.emplace_back(n);
  }
  return out;
}

}  // namespace

TEST_CASE("a rerun with list-valued configuration keys pairs exactly: lists and tables compare by value") {
  const Report out =
      compare_runs(explore_of(1.0, gpu_list({8, 16})), "a.json", explore_of(1.0, gpu_list({8, 16})), "b.json", {});
  const ResultRow* step = row_of(out, "step_time");
  REQUIRE(step != nullptr);
  CHECK(step->find_field("matched") == nullptr);
  const Report other =
      compare_runs(explore_of(1.0, gpu_list({8, 16})), "a.json", explore_of(1.0, gpu_list({8, 32})), "b.json", {});
  CHECK(row_of(other, "step_time")->find_field("matched")->value ==
        "nearest row of A: explore.gpus [8, 32] (A [8, 16])");
}

TEST_CASE("a size in bytes that names an undeclared workload's case shows scaled, a declared message size exactly") {
  const Report out =
      compare_runs(explore_of(1.0, gpu_list({8})), "a.json", explore_of(1.0, gpu_list({8})), "b.json", {});
  const json::Value* memory = row_of(out, "step_time")->config.find("memory_per_gpu");
  REQUIRE(memory != nullptr);
  CHECK(memory->as_string() == "85.90 GB");
  const Report sweep = compare_runs(sweep_of(1.0, "8", true), "a.json", sweep_of(1.0, "8", true), "b.json", {});
  CHECK(row_of(sweep, "busbw")->config.find("size")->as_number() == 1024);
}

TEST_CASE("rows of one configuration told apart by their fields pair in order with a rerun's, not all with the first") {
  // An explore's rows of one configuration (one aggregated, one disaggregated pick): the same config keys.
  const auto run = [] {
    Report r = explore_of(1.0, gpu_list({8}));
    r.rows.push_back(r.rows.front());
    r.rows.back().metrics.front().value = 20.0;
    return r;
  };
  const Report out = compare_runs(run(), "a.json", run(), "b.json", {});
  CHECK(out.exit_code == 0);
  int steps = 0;
  for (const ResultRow& row : out.rows) {
    if (row.find_field("metric")->value == "step_time") {
      ++steps;
      CHECK(row.find_field("verdict")->value == "no significant difference");
      CHECK(row.find_metric("relative")->value == doctest::Approx(1.0));
    }
  }
  CHECK(steps == 2);
}
