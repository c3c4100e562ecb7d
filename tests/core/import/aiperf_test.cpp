// aiperf.cpp: AIPerf's console table, profile_export_aiperf.json and .csv; GenAI-Perf's console table.
#include <doctest/doctest.h>

#include "import_fixture.hpp"

using namespace dgx;
using namespace dgx::testing;

TEST_CASE("an AIPerf JSON export gives medians and percentiles in seconds and its input config") {
  auto rows = import_data_file("aiperf/profile_export_aiperf.json", {"system=h100-sxm", "gpus=4"});
  REQUIRE(rows);
  const ResultRow& r = rows->front();
  CHECK(r.workload == "llm-inference");
  CHECK(r.label == "aiperf");  // what stays the same from night to night; the file is a field
  CHECK(r.config_text("model") == "llama3.1-70b");
  CHECK(r.config_text("serve.concurrency") == "32");
  CHECK(r.config_text("serve.isl") == "2048");
  CHECK(r.config_text("serve.osl") == "512");
  CHECK(metric_value(r, "ttft") == doctest::Approx(0.1703));
  CHECK(metric_value(r, "ttft.p99") == doctest::Approx(0.3552));
  CHECK(metric_value(r, "tpot") == doctest::Approx(0.01584));
  CHECK(metric_value(r, "e2e_latency.p90") == doctest::Approx(8.7408));
  CHECK(metric_value(r, "output_tokens_per_s") == doctest::Approx(1951.7));
  CHECK(metric_value(r, "output_tokens_per_s_per_gpu") == doctest::Approx(1951.7 / 4));
  CHECK(metric_value(r, "requests_per_s") == doctest::Approx(3.812));
}

TEST_CASE("an AIPerf CSV export gives the same statistics, the configuration from --set") {
  auto rows = import_data_file("aiperf/profile_export_aiperf.csv",
                               {"system=h100-sxm", "gpus=4", "model=llama3.1-70b", "serve.isl=2048"});
  REQUIRE(rows);
  CHECK(metric_value(rows->front(), "ttft.p90") == doctest::Approx(0.2419));
  CHECK(metric_value(rows->front(), "output_tokens_per_s") == doctest::Approx(1951.7));
}

TEST_CASE("an AIPerf export of a cancelled run is refused") {
  const std::string message = failure_text(import_data_file("aiperf/cancelled.json", {"system=h100-sxm", "gpus=4"}));
  CHECK(message.find("an unfinished AIPerf run: was_cancelled is true") != std::string::npos);
}

TEST_CASE("an AIPerf console table gives the means and percentiles it prints, and the command's model and load") {
  auto rows = import_data_file("aiperf/console_concurrency10.txt", {"system=h100-sxm", "gpus=1", "model=qwen3-32b"});
  REQUIRE(rows);
  const ResultRow& r = rows->front();
  CHECK(field_value(r, "tool") == "aiperf");
  CHECK(r.config_text("serve.concurrency") == "10");
  CHECK(r.config_text("serve.requests") == "711");  // what the table counts, not the command's 100
  CHECK(r.config_text("serve.isl") == "10");
  CHECK(r.config_text("serve.osl") == "43");
  CHECK(r.find_metric("ttft") == nullptr);  // the table has p75, no median: a mean is never taken for one
  CHECK(metric_value(r, "ttft.mean") == doctest::Approx(0.01826));
  CHECK(metric_value(r, "ttft.p90") == doctest::Approx(0.02776));
  CHECK(metric_value(r, "ttft.p99") == doctest::Approx(0.06882));
  CHECK(metric_value(r, "tpot.mean") == doctest::Approx(0.01123));
  CHECK(metric_value(r, "e2e_latency.mean") == doctest::Approx(0.4873));
  CHECK(metric_value(r, "output_tokens_per_s") == doctest::Approx(10944.03));
  CHECK(metric_value(r, "output_tokens_per_s_per_user") == doctest::Approx(89.23));  // its name wraps onto two rows
  CHECK(metric_value(r, "requests_per_s") == doctest::Approx(255.54));
  CHECK(field_value(r, "note").find("the table counts 711 requests, the command asked for 100") != std::string::npos);
}

TEST_CASE("the last rows of an AIPerf table pasted without its header give their averages") {
  auto rows = import_data_file("aiperf/console_tail_only.txt", {"system=h100-sxm", "gpus=1", "model=qwen3-32b"});
  REQUIRE(rows);
  const ResultRow& r = rows->front();
  CHECK(metric_value(r, "output_tokens_per_s") == doctest::Approx(5388.43));
  CHECK(metric_value(r, "requests_per_s") == doctest::Approx(1.80));
  CHECK(r.config_text("serve.isl") == "512");
  CHECK(r.config_text("serve.requests") == "100");
  CHECK(field_value(r, "note").find("without its header row") != std::string::npos);
}

TEST_CASE("an AIPerf export cut off mid-document gives the metrics it holds completely and says where it ends") {
  auto rows = import_data_file("aiperf/cut_export.json", {"system=h100-sxm", "gpus=1", "model=llama3.1-8b"});
  REQUIRE(rows);
  const ResultRow& r = rows->front();
  CHECK(metric_value(r, "ttft") == doctest::Approx(0.044452151));
  CHECK(metric_value(r, "ttft.mean") == doctest::Approx(0.044166079325));
  CHECK(metric_value(r, "e2e_latency") == doctest::Approx(6.6538574435));
  CHECK(metric_value(r, "requests_per_s") == doctest::Approx(0.14968841618235815));
  CHECK(r.find_metric("output_tokens_per_s") == nullptr);
  CHECK(field_value(r, "note").find("the export is cut off after line 41") != std::string::npos);
}

TEST_CASE("a GenAI-Perf table is GenAI-Perf's: its averages as means, and the lengths its command asked for") {
  auto rows =
      import_data_file("genai-perf/profile_streaming_chat.txt", {"system=h100-sxm", "gpus=1", "model=llama3.1-8b"});
  REQUIRE(rows);
  const ResultRow& r = rows->front();
  CHECK(field_value(r, "tool") == "genai-perf");
  CHECK(r.config_text("serve.isl") == "128");
  CHECK(r.config_text("serve.osl") == "100");
  CHECK(r.config_text("serve.requests") == "10");
  CHECK(metric_value(r, "ttft.mean") == doctest::Approx(0.03913));
  CHECK(metric_value(r, "ttft.p99") == doctest::Approx(0.04148));
  CHECK(metric_value(r, "tpot.mean") == doctest::Approx(0.01796));
  CHECK(metric_value(r, "e2e_latency.mean") == doctest::Approx(1.79953));
  CHECK(metric_value(r, "output_tokens_per_s") == doctest::Approx(54.52));
  CHECK(metric_value(r, "output_tokens_per_s_per_user") == doctest::Approx(55.67));
}

TEST_CASE("a non-streaming GenAI-Perf table has request latency and throughput, no TTFT") {
  auto rows = import_data_file("genai-perf/non_streaming.txt", {"system=h100-sxm", "gpus=1", "model=llama2-7b"});
  REQUIRE(rows);
  const ResultRow& r = rows->front();
  CHECK(r.find_metric("ttft.mean") == nullptr);
  CHECK(metric_value(r, "e2e_latency.mean") == doctest::Approx(0.44259));
  CHECK(metric_value(r, "output_tokens_per_s") == doctest::Approx(38.04));
  CHECK(metric_value(r, "requests_per_s") == doctest::Approx(2.26));
}
