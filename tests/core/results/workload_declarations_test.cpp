// What a workload declares of its rows, as the host keeps it: in a results document and read back, and the rules that
// stand in where nothing is declared (an ABI 1.0 plugin, a document of an older dgxhost).
#include <doctest/doctest.h>

#include "dgx/core/report/reporters.hpp"
#include "dgx/core/results/document_reader.hpp"
#include "dgx/core/results/workload_declarations.hpp"

using namespace dgx;

namespace {

WorkloadDeclarations comm_like() {
  WorkloadDeclarations d;
  d.plugin = "comm";
  d.workload = "all_reduce";
  d.metrics = {{"busbw", "GB/s", Better::higher, "busbw", "bus bandwidth"},
               {"size", "B", Better::none, {}, {}},
               {"time.*", "s", Better::lower, {}, {}},
               {"wrong", "count", Better::lower, {}, "wrong elements"}};
  d.identity_keys = std::vector<std::string>{"comm.dtype", "size", "parallel.*"};
  ChartDeclaration c;
  c.title = "Bus bandwidth against message size";
  c.x = "size";
  c.y = "busbw";
  c.series = "comm.collective|workload,comm.placement";
  c.mode = ResultMode::measured;
  c.log_x = true;
  c.peak_line = true;
  c.peak_metric = "busbw.peak";
  c.peak_label = "link peak";
  ChartDeclaration alternative = c;
  alternative.y = "algbw";
  alternative.kind = ChartKind::bars;
  alternative.peak_line = false;
  alternative.peak_metric.clear();
  alternative.peak_label.clear();
  alternative.alternative = true;
  alternative.mode.reset();
  alternative.unit = "MB/s";
  d.charts = {c, alternative};
  return d;
}

ResultRow row_of(const std::string& workload, const std::string& plugin) {
  ResultRow row;
  row.workload = workload;
  row.plugin = plugin;
  row.add_metric({"busbw", 100, "GB/s", false, {}});
  return row;
}

}  // namespace

TEST_CASE("a results document records the workloads' declarations and reads them back whole") {
  Report report;
  report.workloads.push_back(comm_like());
  report.rows.push_back(row_of("all_reduce", "comm"));
  const json::Value doc = json::parse(render_json(report));
  REQUIRE(doc.as_object().find("workloads") != nullptr);
  auto read = parse_results(render_json(report), "a.json");
  REQUIRE(read);
  REQUIRE(read->workloads.size() == 1);
  const WorkloadDeclarations& d = read->workloads[0];
  CHECK(d.plugin == "comm");
  CHECK(d.workload == "all_reduce");
  REQUIRE(d.metrics.size() == 4);
  CHECK(d.metrics[0].better == Better::higher);
  CHECK(d.metrics[0].label == "busbw");
  CHECK(d.metrics[0].help == "bus bandwidth");
  CHECK(d.metrics[1].better == Better::none);
  REQUIRE(d.identity_keys);
  CHECK(*d.identity_keys == std::vector<std::string>{"comm.dtype", "size", "parallel.*"});
  REQUIRE(d.charts.size() == 2);
  CHECK(d.charts[0].series == "comm.collective|workload,comm.placement");
  CHECK(d.charts[0].mode == ResultMode::measured);
  CHECK(d.charts[0].log_x);
  CHECK(d.charts[0].peak_line);
  CHECK(d.charts[0].peak_metric == "busbw.peak");
  CHECK(d.charts[0].peak_label == "link peak");
  CHECK(d.charts[1].kind == ChartKind::bars);
  CHECK(d.charts[1].alternative);
  CHECK(d.charts[1].unit == "MB/s");
  CHECK_FALSE(d.charts[1].mode);
  CHECK(render_json(*read) == render_json(report));  // nothing lost or added on the way
}

TEST_CASE("a document of an older dgxhost has no workloads, and one that declares no identity keeps it so") {
  Report report;
  report.rows.push_back(row_of("spin", "spin"));
  CHECK(json::parse(render_json(report)).as_object().find("workloads") == nullptr);
  auto read = parse_results(render_json(report), "old.json");
  REQUIRE(read);
  CHECK(read->workloads.empty());
  WorkloadDeclarations metrics_only = comm_like();
  metrics_only.identity_keys.reset();
  report.workloads = {metrics_only};
  auto again = parse_results(render_json(report), "a.json");
  REQUIRE(again);
  CHECK_FALSE(again->workloads[0].identity_keys);
}

TEST_CASE("a declaration of the wrong type is refused, naming its path") {
  Report report;
  report.workloads.push_back(comm_like());
  json::Value doc = json::parse(render_json(report));
  doc.as_object()
      .find("workloads")
      ->as_array()[0]
      .as_object()
      .find("metrics")
      ->as_array()[0]
      .as_object()
      .set("better", "faster");
  auto read = parse_results(json::write(doc, 0), "b.json");
  REQUIRE_FALSE(read);
  CHECK(read.error().message.find("$.workloads[0].metrics[0].better") != std::string::npos);
}

TEST_CASE("a declared direction wins over the unit's, and undeclared metrics and workloads fall back to the unit") {
  const std::vector<WorkloadDeclarations> all{comm_like()};
  const ResultRow comm = row_of("all_reduce", "comm");
  CHECK(better_of(all, comm, "busbw", "GB/s") == Better::higher);
  CHECK(better_of(all, comm, "wrong", "count") == Better::lower);  // the unit alone would not judge a count
  CHECK(better_of(all, comm, "size", "B") == Better::none);
  CHECK(better_of(all, comm, "time.median", "s") == Better::lower);  // through the family
  CHECK(better_of(all, comm, "algbw", "GB/s") == Better::higher);    // undeclared: its unit
  const ResultRow other = row_of("spin", "spin");
  CHECK(better_of(all, other, "wrong", "count") == Better::none);
  CHECK(declarations_for(all, row_of("all_reduce", "another-plugin")) == nullptr);
  CHECK(declarations_for(all, row_of("all_reduce", "")) != nullptr);  // a row that names no plugin
}

TEST_CASE("an exact metric wins over a family, and the longest family over a shorter one") {
  WorkloadDeclarations d;
  d.metrics = {{"time.*", "s", Better::lower, {}, {}},
               {"time.rank.*", "s", Better::none, {}, {}},
               {"time.cv", "%", Better::lower, {}, {}}};
  CHECK(d.find_metric("time.median")->name == "time.*");
  CHECK(d.find_metric("time.rank.max")->name == "time.rank.*");
  CHECK(d.find_metric("time.cv")->name == "time.cv");
  CHECK(d.find_metric("time") == nullptr);
}

TEST_CASE("identity is the declared keys and families, and without a declaration all but the host's context keys") {
  const WorkloadDeclarations d = comm_like();
  CHECK(identifies(&d, "comm.dtype"));
  CHECK(identifies(&d, "parallel.tp"));
  CHECK_FALSE(identifies(&d, "parallel"));
  CHECK_FALSE(identifies(&d, "comm.min_bytes"));  // context: a sweep's range
  CHECK_FALSE(identifies(&d, "verdict.threshold"));
  CHECK(identifies(nullptr, "comm.min_bytes"));
  CHECK_FALSE(identifies(nullptr, "framework"));
  CHECK_FALSE(identifies(nullptr, "system"));
  CHECK_FALSE(identifies(nullptr, "gpus"));
  CHECK_FALSE(identifies(nullptr, "verdict.threshold"));
}
