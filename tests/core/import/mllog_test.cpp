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

TEST_CASE("an MLPerf run's time to train is run_start to run_stop, in minutes") {
  auto rows = import_data_file("mlperf/llama31_405b_result_0.txt", mlperf_sets());
  REQUIRE(rows);
  CHECK(metric_value(rows->front(), "time_to_train") == doctest::Approx((1729001953014 - 1729000300015) / 60000.0));
}

TEST_CASE("a step time logged per step is read before the throughput per block") {
  auto rows = import_data_file("mlperf/llama31_405b_step_times.txt", mlperf_sets());
  REQUIRE(rows);
  const ResultRow& r = rows->front();
  CHECK(metric_value(r, "steps") == 40);  // the 40 per-step train_step_time, not the block's nor validation's
  CHECK(metric_value(r, "step_time") == doctest::Approx(54.94).epsilon(0.001));
  CHECK(metric_value(r, "time_to_train") == doctest::Approx(230.617).epsilon(0.0001));
  CHECK(field_value(r, "timing").find("per step") != std::string::npos);
}

TEST_CASE("NeMo's train_step_timing in MLLOG is the step time, GPT-3's end-of-run token throughput is not samples/s") {
  auto rows = import_data_file("mlperf/gpt3_step_timing.txt", {"system=h100-sxm", "gpus=256", "precision=fp8"});
  REQUIRE(rows);
  const ResultRow& r = rows->front();
  CHECK(r.config_text("model") == "gpt3-175b");
  CHECK(metric_value(r, "steps") == 12);
  CHECK(metric_value(r, "step_time") == doctest::Approx(18.4).epsilon(0.02));
  CHECK(metric_value(r, "time_to_train") == doctest::Approx(100.439).epsilon(0.0001));
}

TEST_CASE("an MLPerf log without tracked_stats is still a result: its time to train") {
  auto rows = import_data_file("mlperf/time_to_train_only.txt",
                               {"system=h100-sxm", "gpus=8", "precision=bf16", "train.seq_len=8192"});
  REQUIRE(rows);
  const ResultRow& r = rows->front();
  CHECK(r.workload == "llm-finetune");
  CHECK(metric_value(r, "time_to_train") == doctest::Approx(85.258).epsilon(0.0001));
  CHECK(r.find_metric("step_time") == nullptr);
}

TEST_CASE("launcher lines around rank-prefixed MLLOG events give the GPUs, the GPU and the parallel layout") {
  auto rows =
      import_data_file("mlperf/launcher_lines.txt", {"system=h100-sxm", "precision=bf16", "train.seq_len=8192"});
  REQUIRE(rows);
  const ResultRow& r = rows->front();
  CHECK(r.config_text("gpus") == "64");        // :::SYSJSON's 8 nodes x 8 accelerators per node
  CHECK(r.config_text("parallel.tp") == "4");  // :::DLPAL's config DGXH100_8x8x1xtp4pp1cp2
  CHECK(r.config_text("parallel.pp") == "1");
  CHECK(r.config_text("parallel.cp") == "2");
  CHECK(metric_value(r, "steps") == 5);
  CHECK(metric_value(r, "time_to_train") == doctest::Approx(4.535).epsilon(0.0001));
}

TEST_CASE("the GPU count in the system description must agree with --set") {
  const std::string message = failure_text(import_data_file(
      "mlperf/launcher_lines.txt", {"system=h100-sxm", "gpus=8", "precision=bf16", "train.seq_len=8192"}));
  CHECK(message.find("gpus=64") != std::string::npos);
}
