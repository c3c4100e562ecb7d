#include <doctest/doctest.h>

#include <cmath>

#include "dgx/core/report/reporters.hpp"
#include "dgx/core/results/document_reader.hpp"

using namespace dgx;

TEST_CASE("a results document reads back into the rows, metrics, fields, samples and notes it was written from") {
  Report report;
  report.context.set("workload", "spin");
  ResultRow row;
  row.workload = "spin";
  row.plugin = "spin";
  row.label = "2000 us";
  row.config.set("spin.us", 2000);
  row.add_metric({"time.median", 0.002, "s", false, {}});
  row.add_metric({"nan", NAN, "1", false, {}});
  row.add_field({"timing", "host clock", true});
  row.sample_times = {0.002, 0.0021};
  report.rows.push_back(row);
  report.notes.push_back({true, "Assumptions", "none"});
  const auto back = parse_results(render_json(report), "mem");
  REQUIRE(back);
  REQUIRE(back->rows.size() == 1);
  const ResultRow& r = back->rows[0];
  CHECK(r.label == "2000 us");
  CHECK(r.config.at("spin.us").as_int() == 2000);
  CHECK(r.find_metric("time.median")->value == 0.002);
  CHECK(std::isnan(r.find_metric("nan")->value));
  CHECK(r.find_field("timing")->value == "host clock");
  CHECK(r.sample_times.size() == 2);
  CHECK(back->notes.at(0).before);
}

TEST_CASE("another schema or no JSON at all is a usage error naming the file") {
  auto wrong = parse_results(R"({"schema": "other/1", "results": []})", "x.json");
  REQUIRE_FALSE(wrong);
  CHECK(wrong.error().code == ExitCode::usage);
  CHECK(wrong.error().message.find("x.json") == 0);
  CHECK_FALSE(parse_results("not json", "y.json"));
  CHECK_FALSE(read_results_file("/nonexistent/z.json"));
}
