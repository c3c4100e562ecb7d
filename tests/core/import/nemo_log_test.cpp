// nemo_log.cpp: NeMo 2's per-step train_step_timing lines.
#include <doctest/doctest.h>

#include "import_fixture.hpp"

using namespace dgx;
using namespace dgx::testing;

namespace {
std::vector<std::string> nemo_sets() {
  return {"precision=fp8", "system=h100-sxm", "gpus=64", "model=llama3.1-70b", "train.seq_len=8192"};
}
}  // namespace

TEST_CASE("a NeMo log gives the steady-state step time, the batch it printed and TFLOP/s per GPU") {
  auto rows = import_data_file("nemo/llama3_70b.log", nemo_sets());
  REQUIRE(rows);
  const ResultRow& r = rows->front();
  CHECK(r.config_text("train.gbs") == "128");
  CHECK(metric_value(r, "steps") == 50);
  CHECK(field_value(r, "steady_state") == "median of 45 steps, 5 warm-up steps dropped");
  CHECK(metric_value(r, "step_time") == doctest::Approx(12.63).epsilon(0.01));
  CHECK(metric_value(r, "tokens_per_s") == doctest::Approx(8192.0 * 128 / metric_value(r, "step_time")));
  CHECK(metric_value(r, "tokens_per_s_per_gpu") == doctest::Approx(metric_value(r, "tokens_per_s") / 64));
  CHECK(metric_value(r, "model_tflops_per_gpu") > 540);
  CHECK(field_value(r, "derived").find("train.seq_len x train.gbs / step_time") != std::string::npos);
}

TEST_CASE("a NeMo log does not print the system: the message names the --set that supplies it") {
  const std::string message = failure_text(import_data_file(
      "nemo/llama3_70b.log", {"precision=fp8", "gpus=64", "model=llama3.1-70b", "train.seq_len=8192"}));
  CHECK(message.find("the log does not print the system: add --set system=NAME (one of") != std::string::npos);
  CHECK(message.find("h100-sxm") != std::string::npos);
}

TEST_CASE("a global batch size that changes in the middle of a NeMo log is two runs") {
  const std::string message = failure_text(import_data_file("nemo/gbs_change.log", nemo_sets()));
  CHECK(message.find("two runs in one file: train.gbs is 128") != std::string::npos);
  CHECK(message.find("nemo/gbs_change.log:43:") == 0);
}

TEST_CASE("every key a NeMo log lacks is asked for in one message, with what the log does print") {
  const std::string message = failure_text(import_data_file("nemo/llama3_70b.log", {"model=llama3.1-70b"}));
  CHECK(message.find("the log does not print the system, the GPU count nor the precision: add --set "
                     "system=NAME") != std::string::npos);
  CHECK(message.find("--set gpus=N --set precision=bf16|fp8|mxfp8|nvfp4; the log prints train.gbs=128 (line 13)") !=
        std::string::npos);
}

TEST_CASE("a NeMo log without the sequence length takes the model's default from the catalog, and says so") {
  auto rows =
      import_data_file("nemo/llama3_70b.log", {"precision=fp8", "system=h100-sxm", "gpus=64", "model=llama3.1-70b"});
  REQUIRE(rows);
  CHECK(rows->front().config_text("train.seq_len") == "8192");
  CHECK(field_value(rows->front(), "note").find("train.seq_len 8192 is llama3.1-70b's default from the catalog") !=
        std::string::npos);
}

TEST_CASE("import.warmup=N replaces the automatic warm-up, and the row says so") {
  std::vector<std::string> sets = nemo_sets();
  sets.emplace_back("import.warmup=0");
  auto rows = import_data_file("nemo/llama3_70b.log", sets);
  REQUIRE(rows);
  CHECK(field_value(rows->front(), "steady_state") == "median of 50 steps, 0 warm-up steps dropped (import.warmup)");
  sets.back() = "import.warmup=-1";
  CHECK(failure_text(import_data_file("nemo/llama3_70b.log", sets)).find("must be a whole number, 0 or more") !=
        std::string::npos);
  sets.back() = "import.warmpu=2";
  CHECK(failure_text(import_data_file("nemo/llama3_70b.log", sets)).find("not an option of import") !=
        std::string::npos);
  sets.back() = "import.warmup=50";
  CHECK(failure_text(import_data_file("nemo/llama3_70b.log", sets)).find("import.warmup=50 drops them all") !=
        std::string::npos);
}
