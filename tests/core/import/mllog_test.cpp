// mllog.cpp: MLPerf Training's MLLOG events.
#include <doctest/doctest.h>

#include "import_fixture.hpp"

using namespace dgx;
using namespace dgx::testing;

namespace {
std::vector<std::string> mlperf_sets() { return {"system=h100-sxm", "gpus=512", "precision=fp8"}; }
}  // namespace

TEST_CASE("an MLPerf log gives the benchmark's model, batch and sequence and the step time from throughput") {
  auto rows = import_data_file("mlperf/llama31_405b_result_0.txt", mlperf_sets());
  REQUIRE(rows);
  const ResultRow& r = rows->front();
  CHECK(r.workload == "llm-pretrain");
  CHECK(r.config_text("model") == "llama3.1-405b");
  CHECK(r.config_text("train.gbs") == "1152");
  CHECK(r.config_text("train.seq_len") == "8192");
  CHECK(metric_value(r, "steps") == 8);
  // tracked_stats throughput ~20.9 samples/s: a step of 1152 samples takes ~55.1 s (MLPerf v5.0's 512 H100).
  CHECK(metric_value(r, "step_time") == doctest::Approx(1152 / 20.9).epsilon(0.01));
  CHECK(field_value(r, "derived").find("train.gbs / throughput") != std::string::npos);
}

TEST_CASE("MLPerf's Llama 2 70B LoRA is a fine-tuning row") {
  auto rows = import_data_file("mlperf/llama2_70b_lora.txt", mlperf_sets());
  REQUIRE(rows);
  CHECK(rows->front().workload == "llm-finetune");
  CHECK(rows->front().config_text("finetune.method") == "lora");
  CHECK(rows->front().config_text("model") == "llama2-70b");
}

TEST_CASE("an MLPerf log cut in the middle of an event is truncated") {
  const std::string message = failure_text(import_data_file("mlperf/truncated.txt", mlperf_sets()));
  CHECK(message.find("truncated: the last MLLOG event is cut off") != std::string::npos);
}

TEST_CASE("two run_start events are two runs") {
  const std::string message = failure_text(import_data_file("mlperf/two_runs.txt", mlperf_sets()));
  CHECK(message.find("a second run_start") != std::string::npos);
}
