// trtllm_bench.cpp: trtllm-bench throughput's report.
#include <doctest/doctest.h>

#include "import_fixture.hpp"

using namespace dgx;
using namespace dgx::testing;

TEST_CASE("a trtllm-bench report gives its engine, world and the P50 of its breakdowns") {
  auto rows = import_data_file("trtllm-bench/llama3.1-8b_fp8_throughput.txt", {"system=b200"});
  REQUIRE(rows);
  const ResultRow& r = rows->front();
  CHECK(r.label == "trtllm-bench");
  CHECK(r.config_text("model") == "llama3.1-8b");
  CHECK(r.config_text("precision") == "fp8");
  CHECK(r.config_text("parallel.tp") == "1");
  CHECK(r.config_text("serve.fleet_gpus") == "1");
  CHECK(r.config_text("serve.isl") == "1024");
  CHECK(metric_value(r, "ttft") == doctest::Approx(44.1209120));
  CHECK(metric_value(r, "tpot.p99") == doctest::Approx(0.0759013));
  CHECK(metric_value(r, "e2e_latency") == doctest::Approx(101.2207413));
  CHECK(metric_value(r, "output_tokens_per_s_per_gpu") == doctest::Approx(18669.1584));
  CHECK(metric_value(r, "output_tokens_per_s_per_user") == doctest::Approx(10.1187));
  CHECK(metric_value(r, "requests_per_s") == doctest::Approx(18.2316));
}

TEST_CASE("a trtllm-bench report without its performance overview is truncated") {
  const std::string message = failure_text(import_data_file("trtllm-bench/truncated.txt", {"system=b200"}));
  CHECK(message.find("truncated: a trtllm-bench report without its PERFORMANCE OVERVIEW") != std::string::npos);
}
