// sglang_bench.cpp: python -m sglang.bench_serving's report.
#include <doctest/doctest.h>

#include "import_fixture.hpp"

using namespace dgx;
using namespace dgx::testing;

TEST_CASE("an SGLang report pasted as a quote gives its statistics, request rate and the backend it drove") {
  auto rows =
      import_data_file("sglang-bench/blockquote_vllm_backend.txt", {"system=h100-sxm", "gpus=1", "model=llama3.1-8b"});
  REQUIRE(rows);
  const ResultRow& r = rows->front();
  CHECK(field_value(r, "tool") == "sglang-bench");
  CHECK(r.config_text("serve.request_rate") == "8.0");
  CHECK(r.config_text("serve.requests") == "1200");
  CHECK(r.config_text("serve.isl") == "312");
  CHECK(r.config_text("serve.osl") == "195");
  CHECK(metric_value(r, "output_tokens_per_s") == doctest::Approx(1449.32));
  CHECK(metric_value(r, "requests_per_s") == doctest::Approx(7.43));
  CHECK(metric_value(r, "e2e_latency") == doctest::Approx(4.20313));
  CHECK(metric_value(r, "e2e_latency.mean") == doctest::Approx(6.56239));
  CHECK(metric_value(r, "ttft") == doctest::Approx(0.11678));
  CHECK(metric_value(r, "ttft.p99") == doctest::Approx(0.21938));
  CHECK(metric_value(r, "tpot") == doctest::Approx(0.03372));
  CHECK(field_value(r, "note").find("backend vllm") != std::string::npos);
}

TEST_CASE("SGLang 0.4's report with its typo and the server command: the model from launch_server, all at once") {
  auto rows = import_data_file("sglang-bench/typo_with_commands.txt", {"system=h100-sxm", "gpus=1"});
  REQUIRE(rows);
  const ResultRow& r = rows->front();
  CHECK(r.config_text("model") == "llama3.1-8b");     // --model-path /mnt/home/Llama-3.1-8B-Instruct
  CHECK(r.config_text("serve.concurrency").empty());  // "Max reqeuest concurrency: not set"
  CHECK(r.config_text("serve.arrival") == "burst");   // request rate inf, no limit: every request at once
  CHECK(r.config_text("serve.requests") == "1648");
  CHECK(metric_value(r, "output_tokens_per_s") == doctest::Approx(1915.40));
  CHECK(metric_value(r, "ttft.mean") == doctest::Approx(44.2948));
  CHECK(r.find_metric("ttft") == nullptr);  // the paste ends before the median
}

TEST_CASE("an SGLang sweep of request rates in one file is several runs: refused unless import.run picks one") {
  const std::string message =
      failure_text(import_data_file("sglang-bench/two_request_rates.md", {"system=h100-sxm", "gpus=1"}));
  CHECK(message.find("2 runs in one file (at lines 3, 35): --set import.run=N (1-2) picks one") != std::string::npos);
  auto second = import_data_file("sglang-bench/two_request_rates.md",
                                 {"system=h100-sxm", "gpus=1", "model=llama3.1-8b", "import.run=2"});
  REQUIRE_MESSAGE(second, failure_text(second));
  CHECK(
      field_value(second->front(), "note").find("run 2 of the 2 in the file (at lines 3, 35), chosen by import.run") !=
      std::string::npos);
  CHECK(field_value(second->front(), "file").find(":35-") != std::string::npos);
  CHECK(
      failure_text(import_data_file("sglang-bench/two_request_rates.md", {"system=h100-sxm", "gpus=1", "import.run=3"}))
          .find("--set import.run=3: the file holds 2 runs") != std::string::npos);
}
