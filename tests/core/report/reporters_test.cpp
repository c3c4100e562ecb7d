#include <doctest/doctest.h>

#include "dgx/core/report/reporters.hpp"

using namespace dgx;

namespace {

Report sample_report() {
  Report report;
  report.context.set("workload", "gemm");
  for (const int n : {1024, 8192}) {
    ResultRow row;
    row.workload = "gemm";
    row.plugin = "gemm-plugin";
    row.mode = ResultMode::measured;
    row.config.set("precision", "bf16");
    row.config.set("n", n);
    row.add_metric({"time.median", n == 1024 ? 2.5e-5 : 1.4e-3, "s", false, {}});
    row.add_metric({"tflops", n == 1024 ? 86.0 : 785.4, "TFLOP/s", false, {}});
    row.add_metric({"bytes", 3.0 * n * n * 2, "B", false, {}});
    row.add_metric({"internal", 1.0, "1", true, {}});
    row.add_field({"timing", "device events", true});
    row.sample_times = {1.0, 2.0};
    report.rows.push_back(row);
  }
  ResultRow projected;
  projected.workload = "llm-pretrain";
  projected.plugin = "llm";
  projected.mode = ResultMode::projected;
  projected.table = "explore";
  projected.config.set("gpus", 64);
  projected.config.set("parallel.tp", 4);
  projected.hidden_config.emplace_back("parallel.tp");
  projected.add_metric({"days", 12.5, "days", false, {}});
  projected.add_metric({"tokens_per_s_per_gpu", 1065.0, "tokens/s", false, "tok/s/GPU"});
  projected.add_metric({"step_time", 15.4, "s", false, "step"});
  projected.add_field({"layout", "TP4 PP4", false});
  report.rows.push_back(projected);
  report.notes.push_back({true, "Assumptions", "system h100-sxm"});
  report.notes.push_back({false, "Recommendation", "64 GPUs"});
  return report;
}

}  // namespace

TEST_CASE("rows group into tables with only the varying config keys and visible columns") {
  const auto tables = tabulate(sample_report().rows, false);
  REQUIRE(tables.size() == 2);
  const Table& gemm = tables[0];
  CHECK(gemm.title == "gemm");
  CHECK(gemm.headers == std::vector<std::string>{"mode", "n", "time.median [ms]", "tflops [TFLOP/s]", "bytes [MB]"});
  CHECK(gemm.cells[0] == std::vector<std::string>{"measured", "1024", "0.02500", "86.00", "6.291"});
  CHECK(gemm.cells[1][2] == "1.400");
  CHECK(tables[1].title == "explore");
  CHECK(tables[1].headers == std::vector<std::string>{"mode", "layout", "days", "tok/s/GPU", "step [s]"});
}

TEST_CASE("every printed row says measured, projected or reference") {
  const std::string text = render_table(sample_report());
  CHECK(text.find("measured") != std::string::npos);
  CHECK(text.find("projected") != std::string::npos);
  CHECK(text.find("Assumptions:\n  system h100-sxm") < text.find("\ngemm\n"));  // before-notes precede tables
  CHECK(text.find("Recommendation:") > text.find("explore\n"));
  CHECK(text.find("timing: device events") != std::string::npos);  // hidden provenance summarised
}

TEST_CASE("JSON follows dgx.results/1") {
  const json::Value doc = json::parse(render_json(sample_report()));
  CHECK(doc["schema"].as_string() == "dgx.results/1");
  CHECK(doc["status"]["ok"].as_bool());
  const json::Value& row = doc["results"][0];
  CHECK(row["mode"].as_string() == "measured");
  CHECK(row["metrics"]["time.median"]["value"].as_number() == 2.5e-5);
  CHECK(row["metrics"]["time.median"]["unit"].as_string() == "s");
  CHECK(row["metrics"]["internal"]["value"].as_number() == 1.0);  // hidden metrics are in JSON
  CHECK(row["info"]["timing"].as_string() == "device events");
  CHECK(row["sample_times"].as_array().size() == 2);
  CHECK(doc["results"][2]["table"].as_string() == "explore");
  CHECK(doc["notes"][0]["placement"].as_string() == "before");
}

TEST_CASE("a failed run's report says so") {
  Report report = sample_report();
  report.exit_code = 5;
  report.error = "check failed";
  const json::Value doc = json::parse(render_json(report));
  CHECK_FALSE(doc["status"]["ok"].as_bool());
  CHECK(doc["status"]["exit_code"].as_int() == 5);
  CHECK(doc["status"]["error"].as_string() == "check failed");
  CHECK(render_table(report).find("run failed: check failed") != std::string::npos);
}

TEST_CASE("CSV has every column, unscaled, and quotes what needs quoting") {
  Report report = sample_report();
  report.rows[2].add_field({"note", "a, \"b\"", false});
  const std::string csv = render_csv(report);
  const auto first_line = csv.substr(0, csv.find('\n'));
  CHECK(first_line.find(
            "workload,plugin,mode,precision,n,gpus,parallel.tp,info.timing,info.layout,info.note,time.median [s]") ==
        0);
  CHECK(csv.find("internal [1]") != std::string::npos);
  CHECK(csv.find("\"a, \"\"b\"\"\"") != std::string::npos);
  CHECK(csv.find(",2.5e-05,") != std::string::npos);
}

TEST_CASE("markdown renders pipe tables") {
  const std::string md = render_markdown(sample_report());
  CHECK(md.find("| mode | n | time.median [ms] |") != std::string::npos);
  CHECK(md.find("|---|---:|---:|") != std::string::npos);
}

TEST_CASE("formats from names and file extensions") {
  CHECK(format_from_name("md") == Format::markdown);
  CHECK_FALSE(format_from_name("xml"));
  CHECK(format_from_path("out/results.json") == Format::json);
  CHECK(format_from_path("r.csv") == Format::csv);
  CHECK_FALSE(format_from_path("results"));
}
