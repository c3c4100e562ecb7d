// vllm_bench.cpp: vllm bench serve's console report and its --save-result JSON.
#include <doctest/doctest.h>

#include "import_fixture.hpp"

using namespace dgx;
using namespace dgx::testing;

TEST_CASE("a vllm bench serve result gives latencies, throughput, concurrency and mean lengths") {
  auto rows = import_data_file("vllm-bench/vllm-1000-64.json", {"system=h200-sxm", "gpus=1"});
  REQUIRE(rows);
  const ResultRow& r = rows->front();
  CHECK(r.config_text("model") == "llama3.1-8b");
  CHECK(r.config_text("serve.concurrency") == "64");
  CHECK(r.config_text("serve.isl") == "1024");
  CHECK(r.config_text("serve.osl") == "128");
  CHECK(r.config_text("serve.requests") == "1000");
  CHECK(metric_value(r, "ttft") == doctest::Approx(0.2875));
  CHECK(metric_value(r, "tpot.p99") == doctest::Approx(0.0517));
  CHECK(metric_value(r, "e2e_latency") == doctest::Approx(5.7021));
  CHECK(metric_value(r, "output_tokens_per_s") == doctest::Approx(1385.1));
}

TEST_CASE("a vllm bench result cut off mid-document is truncated JSON") {
  const std::string message = failure_text(import_data_file("vllm-bench/truncated.json", {"system=h200-sxm"}));
  CHECK(message.find("truncated JSON") != std::string::npos);
}

TEST_CASE("a vllm bench serve console report with its command gives the model, random lengths and statistics") {
  auto rows = import_data_file("vllm-bench/console_with_command.txt", {"system=h100-sxm", "gpus=1", "model=qwen3-32b"});
  REQUIRE(rows);
  const ResultRow& r = rows->front();
  CHECK(field_value(r, "tool") == "vllm-bench");
  CHECK(field_value(r, "file") == "vllm-bench/console_with_command.txt:2-25");
  CHECK(r.config_text("serve.isl") == "1024");
  CHECK(r.config_text("serve.osl") == "350");
  CHECK(r.config_text("serve.requests") == "16");
  CHECK(metric_value(r, "output_tokens_per_s") == doctest::Approx(268.31));
  CHECK(metric_value(r, "requests_per_s") == doctest::Approx(0.77));
  CHECK(metric_value(r, "ttft") == doctest::Approx(2.64865));
  CHECK(metric_value(r, "ttft.mean") == doctest::Approx(2.63355));
  CHECK(metric_value(r, "ttft.p99") == doctest::Approx(4.61048));
  CHECK(metric_value(r, "tpot") == doctest::Approx(0.05175));
  CHECK(metric_value(r, "itl") == doctest::Approx(0.04655));
  CHECK(metric_value(r, "itl.p99") == doctest::Approx(0.25831));
}

TEST_CASE("the concurrency vLLM prints above its report is the run's load, the lengths the means of the totals") {
  auto rows =
      import_data_file("vllm-bench/console_concurrency_above.txt", {"system=h100-sxm", "gpus=1", "model=llama3.1-8b"});
  REQUIRE(rows);
  const ResultRow& r = rows->front();
  CHECK(r.config_text("serve.concurrency") == "10");
  CHECK(r.config_text("serve.arrival").empty());  // rate inf with a limit: the concurrency alone is the load
  CHECK(r.config_text("serve.isl") == "777");
  CHECK(r.config_text("serve.osl") == "7");
  CHECK(metric_value(r, "output_tokens_per_s") == doctest::Approx(46.93));
  CHECK(field_value(r, "note").find("the mean tokens per completed request") != std::string::npos);
}

TEST_CASE("two vLLM reports in one file, commented out, are two runs: refused, naming where each starts") {
  const std::string message =
      failure_text(import_data_file("vllm-bench/two_runs_commented.txt", {"system=h100-sxm", "gpus=1"}));
  CHECK(message.find("2 runs in one file (at lines 5, 31): --set import.run=N (1-2) picks one") != std::string::npos);
}
