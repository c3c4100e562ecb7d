// vllm_bench.cpp: vllm bench serve --save-result's JSON.
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
  CHECK(metric_value(r, "ttft") == doctest::Approx(0.2875));
  CHECK(metric_value(r, "tpot.p99") == doctest::Approx(0.0517));
  CHECK(metric_value(r, "e2e_latency") == doctest::Approx(5.7021));
  CHECK(metric_value(r, "output_tokens_per_s") == doctest::Approx(1385.1));
}

TEST_CASE("a vllm bench result cut off mid-document is truncated JSON") {
  const std::string message = failure_text(import_data_file("vllm-bench/truncated.json", {"system=h200-sxm"}));
  CHECK(message.find("truncated JSON") != std::string::npos);
}
