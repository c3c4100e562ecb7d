// The Prometheus reporter: families, labels, series that must stay distinct, and what promtool says of it all.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "dgx/core/report/reporters.hpp"
#include "format_checkers.hpp"
#include "sample_report.hpp"

using namespace dgx;
using dgx::testing::sample_report;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
  }
  return lines;
}

// The metric name of a sample line (up to '{' or ' ').
std::string name_of(const std::string& line) { return line.substr(0, line.find_first_of("{ ")); }

// What follows the series of a sample line: its value (and a timestamp, if there were one).
std::string after_series(const std::string& line) {
  const std::size_t close = line.find('{') == std::string::npos ? line.find(' ') : line.rfind('}') + 1;
  return line.substr(close + 1);
}

std::string render_ok(const Report& report) {
  auto text = render_prometheus(report);
  REQUIRE_MESSAGE(text, (text ? std::string() : text.error().message));
  return text.value();
}

ResultRow collective_row(double size, const std::string& placement, double busbw) {
  ResultRow r;
  r.workload = "all_reduce";
  r.plugin = "comm";
  r.config.set("comm.placement", placement);
  r.config.set("comm.dtype", "fp32");
  r.add_metric({"size", size, "B", false, {}});
  r.add_metric({"count", size / 4, "count", false, {}});
  r.add_metric({"busbw", busbw, "GB/s", false, {}});
  return r;
}

}  // namespace

TEST_CASE("each family has one HELP and one TYPE gauge line, then all its samples") {
  const std::vector<std::string> lines = lines_of(render_ok(sample_report()));
  std::map<std::string, int> helps, types;
  std::vector<std::string> order;  // the family of each sample line, in order
  for (const std::string& line : lines) {
    if (line.starts_with("# HELP ")) {
      ++helps[name_of(line.substr(7))];
    } else if (line.starts_with("# TYPE ")) {
      ++types[name_of(line.substr(7))];
      CHECK(line.ends_with(" gauge"));
    } else {
      order.push_back(name_of(line));
      CHECK(types.count(order.back()) == 1);  // after its TYPE line
    }
  }
  for (const auto& family : helps) {
    CHECK_MESSAGE(family.second == 1, family.first);
    CHECK_MESSAGE(types[family.first] == 1, family.first);
  }
  // Samples of one family are not interleaved with another's.
  for (std::size_t i = 1; i < order.size(); ++i) {
    if (order[i] != order[i - 1]) {
      CHECK(std::find(order.begin() + static_cast<std::ptrdiff_t>(i), order.end(), order[i - 1]) == order.end());
    }
  }
  CHECK(helps.count("dgx_time_median_seconds") == 1);
  CHECK(helps.count("dgx_flops_per_second") == 1);
}

TEST_CASE("a collective sweep is labelled as nccl-tests names its lines: size, and the keys that vary") {
  Report report;
  report.context.set("workload", "all_reduce");
  json::Object host;
  host.set("hostname", "node-7");
  report.context.set("host", host);
  report.rows = {collective_row(1073741824, "out-of-place", 360.5), collective_row(1073741824, "in-place", 361),
                 collective_row(8, "out-of-place", 0.001)};
  const std::string text = render_ok(report);
  CHECK(
      text.find("dgx_busbw_bytes_per_second{host=\"node-7\",plugin=\"comm\",workload=\"all_reduce\",mode=\"measured\","
                "placement=\"out-of-place\",size=\"1073741824\"} 360500000000\n") != std::string::npos);
  CHECK(text.find("dgx_count_value{") != std::string::npos);
  CHECK(text.find("dgx_size_bytes") == std::string::npos);  // the size is a label, not a sample of its own
  CHECK(text.find("dtype=") == std::string::npos);          // the same in every row: no label
}

TEST_CASE("a config label is the key's last part unless two keys or a row label share it, and never repeats") {
  Report report;
  for (const int i : {1, 2}) {
    ResultRow r;
    r.workload = "llm-pretrain";
    r.plugin = "llm-pretrain";
    r.mode = ResultMode::projected;
    r.table = "explore";
    r.config.set("gpus", 64 * i);
    r.config.set("parallel.tp", i);
    r.config.set("explore.tp", i + 1);
    r.config.set("job.mode", i == 1 ? "a" : "b");
    r.config.set("a.b.c", i);  // both "c", and both a_b_c in full
    r.config.set("a_b.c", i);
    r.config.set("layers", json::Array{json::Value(i)});  // not a scalar: never a label
    r.hidden_config.emplace_back("gpus");                 // hidden from the table, still what tells rows apart
    r.add_metric({"step_time", 10.0 / i, "s", false, {}});
    report.rows.push_back(r);
  }
  const std::string text = render_ok(report);
  CHECK(text.find("dgx_step_time_seconds{plugin=\"llm-pretrain\",workload=\"llm-pretrain\",mode=\"projected\","
                  "table=\"explore\",gpus=\"64\",parallel_tp=\"1\",explore_tp=\"2\",job_mode=\"a\",a_b_c=\"1\","
                  "config_a_b_c=\"1\"} 10\n") != std::string::npos);
  CHECK(text.find("layers") == std::string::npos);
}

TEST_CASE("verdicts are samples of value 1 labelled with the verdict") {
  Report report = sample_report();
  report.rows[0].add_field({"verdict", "pass", false});
  report.rows[1].add_field({"verdict", "fail", false});
  report.rows[1].add_field({"verdict.projection", "slower", false});
  const std::string text = render_ok(report);
  CHECK(text.find("# TYPE dgx_verdict gauge") != std::string::npos);
  CHECK(text.find(",n=\"1024\",verdict=\"pass\"} 1\n") != std::string::npos);
  CHECK(text.find(",n=\"8192\",verdict=\"fail\"} 1\n") != std::string::npos);
  CHECK(text.find("dgx_verdict_projection{") != std::string::npos);
  CHECK(text.find(",n=\"8192\",verdict=\"slower\"} 1\n") != std::string::npos);
}

TEST_CASE("two rows that would be one series are a usage error that names both and the series") {
  Report report = sample_report();
  report.rows.push_back(report.rows[0]);  // a measured gemm row again: same plugin, mode, config
  const auto text = render_prometheus(report);
  REQUIRE_FALSE(text);
  CHECK(text.error().code == ExitCode::usage);
  const std::string& message = text.error().message;
  CHECK(message.find("row 1 (gemm, measured) and row 4 (gemm, measured)") != std::string::npos);
  CHECK(message.find("would be the same Prometheus series dgx_time_median_seconds{plugin=\"gemm-plugin\"") !=
        std::string::npos);
  CHECK(message.find("json or csv") != std::string::npos);
  report.rows.back().label = "again";  // a case label tells them apart
  CHECK(render_prometheus(report));
}

TEST_CASE("two metrics of a row that would share a family are an error, not a merged family") {
  Report report = sample_report();
  report.rows[0].add_metric({"time_median", 1.0, "s", false, {}});  // as time.median: dgx_time_median_seconds
  const auto text = render_prometheus(report);
  REQUIRE_FALSE(text);
  CHECK(text.error().code == ExitCode::usage);
  CHECK(text.error().message.find("metric time_median (seconds) and metric time.median (seconds) would both be the "
                                  "Prometheus family dgx_time_median_seconds") != std::string::npos);
}

TEST_CASE("non-finite values are NaN and Inf, and no sample carries a timestamp") {
  Report report = sample_report();
  report.rows[0].add_metric({"tflops", std::numeric_limits<double>::quiet_NaN(), "TFLOP/s", false, {}});
  report.rows[1].add_metric({"tflops", std::numeric_limits<double>::infinity(), "TFLOP/s", false, {}});
  const std::string text = render_ok(report);
  CHECK(text.find(",n=\"1024\"} NaN\n") != std::string::npos);
  CHECK(text.find(",n=\"8192\"} +Inf\n") != std::string::npos);
  for (const std::string& line : lines_of(text)) {
    if (!line.starts_with("#")) {
      CHECK_MESSAGE(after_series(line).find(' ') == std::string::npos, line);  // the textfile collector refuses them
    }
  }
}

TEST_CASE("the report's exit code, start time and dgxhost build are samples of their own") {
  Report report = sample_report();
  report.context.set("time", "2026-01-02T03:04:05Z");
  report.context.set("preset", "llama70b");
  report.context.set("dgxhost", dgxhost_identity());
  report.exit_code = 5;
  const std::string text = render_ok(report);
  CHECK(text.find("dgx_report_exit_code{preset=\"llama70b\",workload=\"gemm\"} 5\n") != std::string::npos);
  CHECK(text.find("dgx_report_timestamp_seconds{preset=\"llama70b\",workload=\"gemm\"} 1767323045\n") !=
        std::string::npos);
  CHECK(text.find("dgx_build_info{preset=\"llama70b\",workload=\"gemm\",version=\"") != std::string::npos);
  // The preset is on every sample: two textfiles of the same workload stay apart.
  CHECK(text.find("dgx_time_median_seconds{preset=\"llama70b\",plugin=\"gemm-plugin\"") != std::string::npos);
}

TEST_CASE("promtool finds no problem in a report, however hostile its names and labels") {
  if (!dgx::testing::have_tool("promtool", "prometheus")) {
    return;
  }
  Report report = sample_report();
  report.context.set("time", "2026-01-02T03:04:05Z");
  report.context.set("dgxhost", dgxhost_identity());
  ResultRow hostile = report.rows[0];
  hostile.label = "quote \" backslash \\ newline \n tab \t bell \x07 invalid \xff end";
  hostile.config.set("n", 3);
  hostile.config.set("maxBatch", "x");
  hostile.add_metric({"b", 1, "s", false, {}});
  hostile.add_metric({"count", 1, "count", false, {}});
  hostile.add_metric({"errors_total", 1, "count", false, {}});
  hostile.add_metric({"latency_ms", std::numeric_limits<double>::quiet_NaN(), "ms", false, {}});
  hostile.add_metric({"gpu_hours", 2, "GPU-h", false, {}});
  hostile.add_metric({"daysToTrain", 2, "days", false, {}});
  hostile.add_metric({"queue.gauge", 2, "count", false, {}});
  hostile.add_field({"verdict", "no reference", false});
  report.rows.push_back(hostile);
  const std::string text = render_ok(report);
  const auto check = dgx::testing::promtool_check(text);
  CHECK_MESSAGE(check.exit_code == 0, check.out, check.err, "\n", text);
  CHECK(check.out.empty());
  CHECK(check.err.empty());
}

TEST_CASE("promtool's linter does flag what the names avoid, so its silence above means something") {
  if (!dgx::testing::have_tool("promtool", "prometheus")) {
    return;
  }
  const auto check = dgx::testing::promtool_check("# HELP dgx_b_ms x\n# TYPE dgx_b_ms gauge\ndgx_b_ms 1\n"
                                                  "# HELP dgx_count x\n# TYPE dgx_count gauge\ndgx_count 1\n");
  CHECK(check.exit_code != 0);
  CHECK((check.out + check.err).find("abbreviated units") != std::string::npos);
  CHECK((check.out + check.err).find("_count") != std::string::npos);
}

TEST_CASE("a family's HELP carries what the workload declares of its metric") {
  Report report;
  report.rows.push_back(collective_row(1024, "in-place", 10));
  report.rows.push_back(collective_row(2048, "in-place", 20));
  WorkloadDeclarations d;
  d.plugin = "comm";
  d.workload = "all_reduce";
  d.metrics = {{"busbw", "GB/s", Better::higher, {}, "bus bandwidth: algbw x the collective's factor"}};
  report.workloads.push_back(d);
  const std::string text = render_ok(report);
  const std::size_t help = text.find("# HELP dgx_busbw_bytes_per_second dgxhost metric busbw (");
  REQUIRE(help != std::string::npos);
  CHECK(text.substr(help, text.find('\n', help) - help).ends_with("): bus bandwidth: algbw x the collective's factor"));
  const std::size_t count = text.find("# HELP dgx_count_value dgxhost metric count");
  REQUIRE(count != std::string::npos);
  CHECK(text.substr(count, text.find('\n', count) - count).find(": ") == std::string::npos);  // undeclared: as before
}
