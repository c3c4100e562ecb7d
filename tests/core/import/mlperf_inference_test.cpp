// mlperf_inference.cpp: MLPerf Inference's loadgen summary and detail logs.
#include <doctest/doctest.h>

#include "import_fixture.hpp"

using namespace dgx;
using namespace dgx::testing;

namespace {
std::vector<std::string> h200_sets() { return {"model=llama2-70b", "system=h200-sxm", "gpus=8"}; }

ResultRow imported(const std::string& file, const std::vector<std::string>& sets = h200_sets()) {
  auto rows = import_data_file("mlperf-inference/" + file, sets);
  REQUIRE_MESSAGE(rows, (rows ? "" : rows.error().message));
  REQUIRE(rows->size() == 1);
  return rows->front();
}
}  // namespace

TEST_CASE("a loadgen Server summary gives completed tokens and samples per second, TTFT and TPOT") {
  const ResultRow r = imported("server_summary.txt");
  CHECK(r.workload == "llm-inference");
  CHECK(field_value(r, "tool") == "mlperf-inference");
  CHECK(r.config_text("mlperf.scenario") == "Server");
  CHECK(r.config_text("mlperf.mode") == "PerformanceOnly");
  CHECK(r.config_text("mlperf.result") == "VALID");
  CHECK(r.config_text("mlperf.sut") == "llama2-70b-Server-SUT");
  CHECK(metric_value(r, "output_tokens_per_s") == doctest::Approx(29228.22));
  CHECK(metric_value(r, "output_tokens_per_s_per_gpu") == doctest::Approx(29228.22 / 8));
  CHECK(metric_value(r, "samples_per_s") == doctest::Approx(100.35));
  CHECK(metric_value(r, "scheduled_samples_per_s") == doctest::Approx(101.25));
  CHECK(metric_value(r, "ttft") == doctest::Approx(0.180758928));  // the 50.00 percentile, ns to s
  CHECK(metric_value(r, "ttft.p99") == doctest::Approx(0.452744202));
  CHECK(metric_value(r, "tpot") == doctest::Approx(0.124285539));
  CHECK(metric_value(r, "latency.p90") == doctest::Approx(65.052046419));
  CHECK(field_value(r, "note").empty());
}

TEST_CASE("before loadgen 4.1 a Server result is the scheduled rate, the completed one an additional stat") {
  const ResultRow r = imported("server_v4.0_summary.txt", {"model=llama2-70b", "system=h100-sxm", "gpus=1"});
  CHECK(metric_value(r, "samples_per_s") == doctest::Approx(29.55));
  CHECK(metric_value(r, "completed_samples_per_s") == doctest::Approx(29.39));
  CHECK(r.find_metric("output_tokens_per_s") == nullptr);
}

TEST_CASE("an Offline summary gives samples and tokens per second") {
  const ResultRow r = imported("offline_summary.txt");
  CHECK(r.config_text("mlperf.scenario") == "Offline");
  CHECK(metric_value(r, "output_tokens_per_s") == doctest::Approx(23514.8));
  CHECK(metric_value(r, "samples_per_s") == doctest::Approx(80.15));
}

TEST_CASE("a SingleStream summary's result is its 90th percentile latency") {
  const ResultRow r = imported("singlestream_summary.txt", {"model=llama2-70b", "system=h100-sxm", "gpus=1"});
  CHECK(metric_value(r, "latency.p90") == doctest::Approx(4.149771822));
  CHECK(metric_value(r, "latency") == doctest::Approx(2.660090812));
  CHECK(r.find_metric("samples_per_s") == nullptr);
}

TEST_CASE("tokens per second that loadgen inferred from samples are not taken as measured") {
  const ResultRow r = imported("inferred_tokens_summary.txt", {"model=llama2-70b", "system=h100-sxm", "gpus=1"});
  CHECK(metric_value(r, "samples_per_s") == doctest::Approx(3.15));
  CHECK(r.find_metric("output_tokens_per_s") == nullptr);
  CHECK(field_value(r, "note").find("inferred") != std::string::npos);
}

TEST_CASE("an INVALID result is read and its note says why") {
  const ResultRow r = imported("invalid_server_summary.txt");
  CHECK(r.config_text("mlperf.result") == "INVALID");
  CHECK(metric_value(r, "output_tokens_per_s") == doctest::Approx(44.52));
  const std::string note = field_value(r, "note");
  CHECK(note.find("INVALID") != std::string::npos);
  CHECK(note.find("Performance constraints satisfied: NO") != std::string::npos);
  CHECK(note.find("Early stopping satisfied: NO") != std::string::npos);
}

TEST_CASE("a loadgen detail log is read from its result_ events, not as an MLPerf Training log") {
  const ResultRow r = imported("server_detail.txt");
  CHECK(field_value(r, "tool") == "mlperf-inference");
  CHECK(field_value(r, "tool_version") == "4.1 @ c60103b05a");
  CHECK(r.config_text("mlperf.scenario") == "Server");
  CHECK(r.config_text("mlperf.result") == "VALID");
  // result_completed_tokens_per_second; result_token_throughput (8.1e-09 in loadgen 4.1) is not a rate to take.
  CHECK(metric_value(r, "output_tokens_per_s") == doctest::Approx(29228.2));
  CHECK(metric_value(r, "samples_per_s") == doctest::Approx(100.354));
  CHECK(metric_value(r, "scheduled_samples_per_s") == doctest::Approx(101.246));
  CHECK(metric_value(r, "ttft") == doctest::Approx(0.180758928));
  CHECK(metric_value(r, "tpot.p99") == doctest::Approx(0.146040006));
  CHECK(metric_value(r, "latency.p99") == doctest::Approx(118.861461715));
}

TEST_CASE("a loadgen detail log cut in the middle of an event is truncated") {
  const std::string message = failure_text(import_data_file("mlperf-inference/truncated_detail.txt", h200_sets()));
  CHECK(message.find("truncated: the last MLLOG event is cut off") != std::string::npos);
}

TEST_CASE("a loadgen summary without a result (an accuracy run) is refused") {
  const std::string text = "================================================\nMLPerf Results Summary\n"
                           "================================================\nSUT name : PySUT\nScenario : Offline\n"
                           "Mode     : AccuracyOnly\n";
  const std::string message = failure_text(import_with_catalog(text, "summary.txt", h200_sets()));
  CHECK(message.find("no result") != std::string::npos);
}
