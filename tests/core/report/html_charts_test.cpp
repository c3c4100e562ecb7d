// The HTML report's charts (core/src/report/html_charts.cpp): the workloads' own, drawn from what they declare
// (ABI 1.1) by a host that knows none of them, and the host's fallback when nothing else draws.
#include <doctest/doctest.h>

#include <algorithm>

#include "dgx/core/support/text.hpp"
#include "html_charts.hpp"  // private to core/src/report: the test target adds that folder

using namespace dgx;

namespace {

ChartDeclaration lines(std::string title, std::string x, std::string y) {
  ChartDeclaration c;
  c.title = std::move(title);
  c.x = std::move(x);
  c.y = std::move(y);
  return c;
}

// An explore of a training workload: days and cost per GPU count for two precisions, a front and a pick.
Report explore() {
  Report r;
  WorkloadDeclarations d;
  d.plugin = "trainer";
  d.workload = "train";
  d.metrics = {{"days", "days", Better::lower, "days", {}}, {"cost_usd", "USD", Better::lower, "cost $", {}}};
  ChartDeclaration days = lines("Days against GPUs", "gpus", "days");
  days.series = "series|precision";
  days.mode = ResultMode::projected;
  days.log_x = days.log_y = true;
  ChartDeclaration pareto = lines("Pareto", "cost_usd", "days");
  pareto.series = "series|precision";
  pareto.pareto = true;
  d.charts = {days, pareto};
  r.workloads.push_back(d);
  for (const char* precision : {"fp8", "bf16"}) {
    for (const int gpus : {512, 64, 1024}) {
      ResultRow row;
      row.workload = "train";
      row.plugin = "trainer";
      row.mode = ResultMode::projected;
      row.config.set("gpus", gpus);
      row.config.set("precision", precision);
      row.add_metric({"days", (std::string(precision) == "fp8" ? 6400.0 : 9600.0) / gpus, "days", false, {}});
      row.add_metric({"cost_usd", 1000.0 + gpus, "USD", false, {}});
      row.add_field({"pareto", gpus != 1024 ? "*" : "", false});
      row.add_field({"recommended", gpus == 512 && std::string(precision) == "fp8" ? "yes" : "", false});
      r.rows.push_back(row);
    }
  }
  return r;
}

const json::Object* chart_titled(const std::vector<json::Object>& charts, const std::string& title) {
  for (const json::Object& c : charts) {
    if (c.at("title").as_string() == title) {
      return &c;
    }
  }
  return nullptr;
}

std::vector<std::string> labels(const json::Object& chart) {
  std::vector<std::string> out;
  for (const json::Value& s : chart.at(chart.contains("series") ? "series" : "bars").as_array()) {
    out.push_back(s.as_object().at("label").as_string());
  }
  return out;
}

}  // namespace

TEST_CASE("a declared line chart: a line per series, points in x order, the axes as declared") {
  const auto charts = html::charts_for(explore());
  const json::Object* days = chart_titled(charts, "Days against GPUs");
  REQUIRE(days != nullptr);
  CHECK(days->at("kind").as_string() == "xy");
  CHECK(labels(*days) == std::vector<std::string>{"bf16", "fp8"});
  const json::Array& points = days->at("series").as_array()[0].as_object().at("points").as_array();
  REQUIRE(points.size() == 3);
  CHECK(points[0][0].as_number() == 64);  // sorted by x, whatever the rows' order
  CHECK(points[2][0].as_number() == 1024);
  CHECK(days->at("x").as_object().at("log").as_bool());
  CHECK(days->at("y").as_object().at("title").as_string() == "days [days]");
}

TEST_CASE("a declared Pareto chart: the series as points, the front joined, the recommendation starred") {
  const auto charts = html::charts_for(explore());
  const json::Object* pareto = chart_titled(charts, "Pareto");
  REQUIRE(pareto != nullptr);
  CHECK(labels(*pareto) == std::vector<std::string>{"bf16", "fp8", "Pareto front", "recommended"});
  const json::Array& series = pareto->at("series").as_array();
  CHECK_FALSE(series[0].as_object().at("line").as_bool());
  CHECK(series[2].as_object().at("line").as_bool());
  CHECK(series[2].as_object().at("points").as_array().size() == 4);  // 64 and 512 GPUs of both precisions
  CHECK(series[3].as_object().at("points").as_array().size() == 1);
  CHECK(series[3].as_object().at("marker").as_string() == "star");
}

TEST_CASE("a chart whose rows are missing, of another mode, or of one point is left out") {
  Report r = explore();
  r.rows.resize(1);  // one point: no line
  CHECK(chart_titled(html::charts_for(r), "Days against GPUs") == nullptr);
  Report measured = explore();
  for (ResultRow& row : measured.rows) {
    row.mode = ResultMode::measured;
  }
  CHECK(chart_titled(html::charts_for(measured), "Days against GPUs") == nullptr);  // declared for projected rows
  CHECK(chart_titled(html::charts_for(measured), "Pareto") != nullptr);             // declared for any
}

namespace {

// A sweep of a collective: bus bandwidth against size with a link peak, algbw the alternative view.
Report sweep(int ranks) {
  Report r;
  WorkloadDeclarations d;
  d.plugin = "coll";
  d.workload = "all_reduce";
  d.metrics = {{"size", "B", Better::none, {}, {}},
               {"busbw", "GB/s", Better::higher, {}, {}},
               {"algbw", "GB/s", Better::higher, {}, {}},
               {"busbw.peak", "%", Better::higher, {}, {}}};
  ChartDeclaration bus = lines("Bus bandwidth", "size", "busbw");
  bus.series = "coll.collective|workload,coll.placement";
  bus.log_x = true;
  bus.peak_line = true;
  bus.peak_metric = "busbw.peak";
  bus.peak_label = "link peak";
  ChartDeclaration alg = lines("Algorithm bandwidth", "size", "algbw");
  alg.alternative = true;
  d.charts = {bus, alg};
  r.workloads.push_back(d);
  for (const double size : {1e3, 1e6, 1e9}) {
    ResultRow row;
    row.workload = "all_reduce";
    row.plugin = "coll";
    row.config.set("coll.placement", "in-place");
    row.add_metric({"size", size, "B", false, {}});
    const double algbw = size / 1e7;
    row.add_metric({"algbw", algbw, "GB/s", false, {}});
    row.add_metric({"busbw", ranks > 1 ? algbw * 1.5 : 0.0, "GB/s", false, {}});
    row.add_metric({"busbw.peak", 100 * algbw * 1.5 / 450, "%", false, {}});
    r.rows.push_back(row);
  }
  return r;
}

}  // namespace

TEST_CASE("a peak line from a percent of the peak, and an alternative drawn only where the chart before was left out") {
  const auto many = html::charts_for(sweep(8));
  const json::Object* bus = chart_titled(many, "Bus bandwidth");
  REQUIRE(bus != nullptr);
  CHECK(labels(*bus) == std::vector<std::string>{"all_reduce in-place"});  // no collective key: the workload
  const json::Array& hlines = bus->at("hlines").as_array();
  REQUIRE(hlines.size() == 1);
  CHECK(hlines[0].as_object().at("y").as_number() == doctest::Approx(450));
  CHECK(hlines[0].as_object().at("label").as_string() == "link peak 450.0 GB/s");
  CHECK(chart_titled(many, "Algorithm bandwidth") == nullptr);
  const auto one = html::charts_for(sweep(1));  // one rank: every busbw is 0
  CHECK(chart_titled(one, "Bus bandwidth") == nullptr);
  CHECK(chart_titled(one, "Algorithm bandwidth") != nullptr);
}

TEST_CASE("a declared bar chart: a bar per row labelled by x, a colour per series, y in the declared unit") {
  Report r;
  WorkloadDeclarations d;
  d.plugin = "layer";
  d.workload = "layer";
  d.metrics = {{"time", "s", Better::lower, {}, {}}, {"tflops", "TFLOP/s", Better::higher, {}, {}}};
  ChartDeclaration c;
  c.title = "Time per op";
  c.kind = ChartKind::bars;
  c.x = "op";
  c.y = "time";
  c.series = "precision";
  c.table = "layer ops";
  c.unit = "ms";
  d.charts = {c};
  r.workloads.push_back(d);
  const std::pair<const char*, const char*> ops[] = {{"qkv", "bf16"}, {"attn", "bf16"}, {"qkv", "fp8"}};
  for (const auto& [op, precision] : ops) {
    ResultRow row;
    row.workload = "layer";
    row.plugin = "layer";
    row.table = "layer ops";
    row.config.set("op", op);
    row.config.set("precision", precision);
    row.add_metric({"time", 0.002, "s", false, {}});
    r.rows.push_back(row);
  }
  ResultRow other = r.rows.front();
  other.table = "layer";  // the layer's own row: not of the chart's table
  r.rows.push_back(other);
  const auto charts = html::charts_for(r);
  const json::Object* bars = chart_titled(charts, "Time per op");
  REQUIRE(bars != nullptr);
  CHECK(bars->at("kind").as_string() == "bar");
  CHECK(bars->at("categories").as_array().size() == 2);  // qkv, attn
  CHECK(labels(*bars) == std::vector<std::string>{"bf16", "fp8"});
  const json::Array& fp8 = bars->at("bars").as_array()[1].as_object().at("values").as_array();
  CHECK(fp8[0].as_number() == doctest::Approx(2));  // ms
  CHECK(fp8[1].is_null());                          // fp8 has no attn row
  CHECK(bars->at("y").as_object().at("title").as_string() == "time [ms]");
}

TEST_CASE("rows no declaration describes get the host's own chart: a bar per row of its first judged metric") {
  Report r;
  ResultRow row;
  row.workload = "spin";
  row.plugin = "spin";
  row.add_metric({"time.median", 0.002, "s", false, {}});
  r.rows.push_back(row);
  const auto charts = html::charts_for(r);
  REQUIRE(charts.size() == 1);
  CHECK(charts[0].at("title").as_string() == "spin: time.median");
}

namespace {

// The explore of two price providers: the same days (a provider changes the price, not the step), other costs.
Report providers() {
  Report r = explore();
  ChartDeclaration cost = lines("Cost against GPUs", "gpus", "cost_usd");
  cost.series = "series|precision";
  r.workloads[0].charts.push_back(cost);
  std::vector<ResultRow> rows;
  for (const ResultRow& row : r.rows) {
    if (row.config.at("precision").as_string() != "fp8") {
      continue;
    }
    for (const auto& [provider, price] : {std::pair{"aws", 2.0}, std::pair{"gcp", 3.0}}) {
      ResultRow priced = row;
      priced.config.set("cost.provider", provider);
      priced.add_field({"series", std::string("fp8 ") + provider, true});
      priced.metrics[1].value *= price;
      rows.push_back(priced);
    }
  }
  r.rows = rows;
  return r;
}

const json::Array& points_of(const json::Object& chart, std::size_t series) {
  return chart.at("series").as_array()[series].as_object().at("points").as_array();
}

}  // namespace

TEST_CASE("a log x axis of a few GPU counts is labelled at the data's counts, a log axis carries its unit") {
  const auto charts = html::charts_for(explore());
  const json::Object* days = chart_titled(charts, "Days against GPUs");
  REQUIRE(days != nullptr);
  const json::Array& ticks = days->at("x").as_object().at("ticks_at").as_array();
  CHECK(ticks == json::Array{json::Value(64.0), json::Value(512.0), json::Value(1024.0)});
  CHECK(days->at("y").as_object().at("unit").as_string() == "days");
  const json::Object* pareto = chart_titled(charts, "Pareto");  // x is a cost: not whole counts, not log
  REQUIRE(pareto != nullptr);
  CHECK_FALSE(pareto->at("x").as_object().contains("ticks_at"));
}

TEST_CASE("a budget and a deadline of the run are drawn on the axes they bound, labelled with value and key") {
  Report r = explore();
  json::Object config;
  config.set("explore.budget_usd", 1500.0);
  config.set("explore.deadline_days", 20.0);
  config.set("explore.budget_slack", 0.05);  // a fraction, not a limit
  r.context.set("config", config);
  const auto charts = html::charts_for(r);
  const json::Object* days = chart_titled(charts, "Days against GPUs");
  REQUIRE(days != nullptr);
  const json::Array& on_days = days->at("limits").as_array();
  REQUIRE(on_days.size() == 1);  // the budget bounds no axis of days against GPUs
  CHECK(on_days[0].as_object().at("label").as_string() == "deadline 20 days (explore.deadline_days)");
  CHECK(on_days[0].as_object().at("axis").as_string() == "y");
  CHECK(on_days[0].as_object().at("value").as_number() == 20);
  const json::Object* pareto = chart_titled(charts, "Pareto");
  REQUIRE(pareto != nullptr);
  const json::Array& on_pareto = pareto->at("limits").as_array();
  REQUIRE(on_pareto.size() == 2);
  CHECK(on_pareto[0].as_object().at("label").as_string() == "budget $1500 (explore.budget_usd)");
  CHECK(on_pareto[0].as_object().at("axis").as_string() == "x");                         // cost across
  CHECK(on_pareto[1].as_object().at("axis").as_string() == "y");                         // days up
  CHECK_FALSE(chart_titled(html::charts_for(explore()), "Pareto")->contains("limits"));  // none set, none drawn
}

TEST_CASE("series that coincide are one line named for all, the caption saying what sets them apart") {
  const auto charts = html::charts_for(providers());
  const json::Object* days = chart_titled(charts, "Days against GPUs");
  REQUIRE(days != nullptr);
  CHECK(labels(*days) == std::vector<std::string>{"fp8 aws/gcp"});
  CHECK(points_of(*days, 0).size() == 3);
  CHECK(days->at("caption").as_string().find("fp8 aws and fp8 gcp have the same days, drawn as one line (they "
                                             "differ in cost.provider, which leaves it unchanged).") !=
        std::string::npos);
  const json::Object* cost = chart_titled(charts, "Cost against GPUs");  // the providers' own costs: a line each
  REQUIRE(cost != nullptr);
  CHECK(labels(*cost) == std::vector<std::string>{"fp8 aws", "fp8 gcp"});
  CHECK(points_of(*cost, 0)[0][1].as_number() * 1.5 == doctest::Approx(points_of(*cost, 1)[0][1].as_number()));
  CHECK(cost->at("caption").as_string().empty());
}

TEST_CASE("a collective sweep of a document without declarations (ABI 1.0) gets the host's chart of its rows") {
  Report r;
  for (const double size : {8.0, 1024.0}) {  // in nccl-tests' layout: its table is titled "all_reduce (measured)"
    ResultRow row;
    row.workload = "all_reduce";
    row.plugin = "comm";
    row.label = text::format_number(size, 4) + " B";
    row.add_metric({"size", size, "B", false, {}});
    row.add_metric({"busbw", size / 100, "GB/s", false, {}});
    row.add_field({"table_layout", "nccl-tests", true});
    r.rows.push_back(row);
  }
  const auto charts = html::charts_for(r);
  REQUIRE(charts.size() == 1);
  CHECK(charts[0].at("title").as_string() == "all_reduce: busbw");
  CHECK(charts[0].at("bars").as_array()[0].as_object().at("values").as_array().size() == 2);
}
