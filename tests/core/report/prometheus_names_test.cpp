// Prometheus names, labels and values: the rules of the text format and of promtool's linter.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <regex>
#include <string>
#include <vector>

#include "dgx/core/report/prometheus_names.hpp"

using namespace dgx;

namespace {

void check_name(const std::string& metric, const std::string& unit, const std::string& name, double factor) {
  const PrometheusName n = prometheus_name(metric, unit);
  CHECK_MESSAGE(n.name == name, metric, " [", unit, "]");
  CHECK_MESSAGE(n.factor == doctest::Approx(factor).epsilon(1e-12), metric, " [", unit, "]");
}

}  // namespace

TEST_CASE("metric names are dgx_, snake case and the base unit, the value converted to that unit") {
  check_name("busbw", "GB/s", "dgx_busbw_bytes_per_second", 1e9);
  check_name("time.median", "ms", "dgx_time_median_seconds", 1e-3);
  check_name("time.median", "s", "dgx_time_median_seconds", 1);
  check_name("tflops", "TFLOP/s", "dgx_flops_per_second", 1e12);
  check_name("model_tflops_per_gpu", "TFLOP/s", "dgx_model_flops_per_second_per_gpu", 1e12);
  check_name("model_flops_per_sequence", "FLOP", "dgx_model_flops_per_sequence", 1);
  check_name("mfu", "%", "dgx_mfu_ratio", 0.01);
  check_name("memory.weights", "GiB", "dgx_memory_weights_bytes", 1073741824.0);
  check_name("cost_usd", "USD", "dgx_cost_usd", 1);
  check_name("samples", "count", "dgx_samples", 1);
  check_name("ratio_to_reference", "1", "dgx_ratio_to_reference", 1);
  CHECK(prometheus_name("busbw", "GB/s").unit == "bytes per second");
  CHECK(prometheus_name("mfu", "%").unit == "ratio, 1 = 100%");
  CHECK(prometheus_name("samples", "count").unit.empty());
}

TEST_CASE("unit words in a metric name follow the value's conversion") {
  check_name("days_to_train", "days", "dgx_seconds_to_train", 86400);
  check_name("hours_to_finetune", "h", "dgx_seconds_to_finetune", 3600);
  check_name("gpu_hours", "GPU-h", "dgx_gpu_seconds", 3600);
  check_name("tokens_per_s", "tokens/s", "dgx_tokens_per_second", 1);
  check_name("tokens_per_s_per_gpu", "tokens/s", "dgx_tokens_per_second_per_gpu", 1);
  check_name("requests_per_s", "1", "dgx_requests_per_second", 1);
  check_name("busbw.peak_pct", "%", "dgx_busbw_peak_ratio", 0.01);
  check_name("latency_ms", "ms", "dgx_latency_seconds", 1e-3);
  check_name("memory_gb", "GB", "dgx_memory_bytes", 1e9);
  check_name("memory.kv_bytes_per_token", "B", "dgx_memory_kv_bytes_per_token", 1);
  check_name("usd_per_million_output_tokens", "USD", "dgx_usd_per_million_output_tokens", 1);
}

TEST_CASE("a word the linter refuses where it is no unit is joined to value, a reserved suffix gets _value") {
  check_name("a", "s", "dgx_avalue_seconds", 1);  // dgxhost compare's two runs
  check_name("b", "s", "dgx_bvalue_seconds", 1);  // "b" alone would read as bytes
  check_name("b", "B", "dgx_bvalue_bytes", 1);
  check_name("gemm_m", "count", "dgx_gemm_mvalue", 1);
  check_name("queue.histogram", "count", "dgx_queue_histogramvalue", 1);
  check_name("count", "count", "dgx_count_value", 1);
  check_name("errors_total", "count", "dgx_errors_total_value", 1);
  check_name("latency.sum", "s", "dgx_latency_sum_seconds", 1);
  check_name("maxBatchSize", "count", "dgx_max_batch_size", 1);
  check_name("hours", "count", "dgx_hoursvalue", 1);  // not a time here: no conversion, and no "hours" either
}

TEST_CASE("every metric name is valid whatever the plugin called its metric") {
  const std::regex valid("[a-zA-Z_:][a-zA-Z0-9_:]*");
  for (const std::string metric : {"", ".", "__x__", "ünïcode", "9lives", "a-b c", "x..y", "TFLOPS", "p99.ms"}) {
    const std::string name = prometheus_name(metric, "ms").name;
    CHECK_MESSAGE(std::regex_match(name, valid), name);
    CHECK(name.starts_with("dgx_"));
    CHECK(name.find("__") == std::string::npos);
  }
  CHECK(prometheus_name("", "count").name == "dgx_value");
  CHECK(prometheus_name("p99.ms", "ms").name == "dgx_p99_seconds");
}

TEST_CASE("a unit outside the schema keeps its values and names itself in the family's unit") {
  const PrometheusName n = prometheus_name("widgets", "furlongs/fortnight");
  CHECK(n.name == "dgx_widgets");
  CHECK(n.factor == 1);
  CHECK(n.unit == "furlongs/fortnight");
}

TEST_CASE("label names are snake case, never start with a digit or two underscores") {
  CHECK(prometheus_label_name("comm.placement") == "comm_placement");
  CHECK(prometheus_label_name("maxBatch") == "max_batch");
  CHECK(prometheus_label_name("3d") == "_3d");
  CHECK(prometheus_label_name("__reserved") == "reserved");
  CHECK(prometheus_label_name("") == "_");
  CHECK(prometheus_label_name("é") == "_");
  const std::regex valid("[a-zA-Z_][a-zA-Z0-9_]*");
  for (const std::string key : {"parallel.tp", "a-b", "__", "9", "x y"}) {
    const std::string name = prometheus_label_name(key);
    CHECK_MESSAGE(std::regex_match(name, valid), name);
    CHECK_FALSE(name.starts_with("__"));
  }
}

TEST_CASE("label values escape backslash, quote and newline, and stay valid UTF-8") {
  CHECK(prometheus_label_value("a\\b\"c\nd") == "a\\\\b\\\"c\\nd");
  CHECK(prometheus_label_value("1000 µs") == "1000 µs");
  CHECK(prometheus_label_value("x\xffy") == "x\xef\xbf\xbdy");  // U+FFFD
  CHECK(prometheus_label_value("bell\x07") == "bell\\\\x07");   // printable()'s \x07, its backslash escaped
  CHECK(prometheus_help("line one\nline \\two") == "line one\\nline \\\\two");
  CHECK(prometheus_help("quote \" stays") == "quote \" stays");  // HELP does not escape quotes
}

TEST_CASE("sample values read back as the same double, non-finite ones as the format spells them") {
  CHECK(prometheus_value(std::numeric_limits<double>::quiet_NaN()) == "NaN");
  CHECK(prometheus_value(std::numeric_limits<double>::infinity()) == "+Inf");
  CHECK(prometheus_value(-std::numeric_limits<double>::infinity()) == "-Inf");
  CHECK(prometheus_value(16.0) == "16");
  CHECK(prometheus_value(-3.0) == "-3");
  CHECK(prometheus_value(0.5) == "0.5");
  for (const double v : {0.1, 2.5e-05, 1e20, 1.0 / 3.0, 123456789.123, -7.25e-300}) {
    CHECK(std::stod(prometheus_value(v)) == v);
  }
}
