// megatron_log.cpp: Megatron-LM's argument block and iteration lines.
#include <doctest/doctest.h>

#include "import_fixture.hpp"

using namespace dgx;
using namespace dgx::testing;

TEST_CASE("a Megatron-LM log gives the layout and precision from its arguments and the step time") {
  auto rows = import_data_file("megatron-lm/llama70b_tp4pp4.log", {"system=h100-sxm", "model=llama3.1-70b"});
  REQUIRE(rows);
  const ResultRow& r = rows->front();
  CHECK(r.config_text("parallel.tp") == "4");
  CHECK(r.config_text("parallel.pp") == "4");
  CHECK(r.config_text("parallel.cp") == "1");
  CHECK(r.config_text("parallel.vp") == "4");  // 80 layers / PP 4 / 5 layers per virtual stage
  CHECK(r.config_text("gpus") == "64");
  CHECK(r.config_text("train.gbs") == "128");
  CHECK(r.config_text("train.mbs") == "1");
  CHECK(r.config_text("train.seq_len") == "8192");
  CHECK(r.config_text("precision") == "fp8");  // fp8 hybrid
  CHECK(metric_value(r, "step_time") == doctest::Approx(16.5).epsilon(0.01));
  CHECK(r.config_text("train.recompute") == "selective");
  CHECK(r.config_text("train.distributed_optimizer") == "true");
  CHECK(field_value(r, "steady_state") == "median of 27 steps, 3 warm-up steps dropped");
  CHECK(metric_value(r, "model_tflops_per_gpu") == doctest::Approx(420).epsilon(0.01));
}

TEST_CASE("a Megatron-LM log does not name its model: it is asked for") {
  const std::string message = failure_text(import_data_file("megatron-lm/llama70b_tp4pp4.log", {"system=h100-sxm"}));
  CHECK(message.find("the log does not print the model: add --set model=NAME") != std::string::npos);
}

TEST_CASE("a second Megatron-LM argument block is a second run") {
  const std::string message =
      failure_text(import_data_file("megatron-lm/two_blocks.log", {"system=h100-sxm", "model=llama3.1-70b"}));
  CHECK(message.find("two runs in one file: a second argument block") != std::string::npos);
}

TEST_CASE("--set gpus against Megatron-LM's world size names both") {
  const std::string message = failure_text(
      import_data_file("megatron-lm/llama70b_tp4pp4.log", {"system=h100-sxm", "model=llama3.1-70b", "gpus=128"}));
  CHECK(message.find("the log says gpus=64 but --set gpus=128 contradicts it") != std::string::npos);
}
