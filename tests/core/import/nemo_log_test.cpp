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

TEST_CASE("NeMo 1's tqdm progress bar: its seconds per step, each step once however often the bar redraws") {
  const std::string bar = "Epoch 0:   1%|          | 795/77225 [9:07:58<878:01:48, 41.36s/it, loss=3.1, v_num=, "
                          "reduced_train_loss=3.090, global_step=794.0, consumed_samples=1.63e+6]";
  auto run = read_run(bar, "tqdm.log");
  REQUIRE(run);
  CHECK(run->tool == "nemo");
  CHECK(run->series == std::vector<double>{41.36});
  CHECK(run->steps == std::vector<long>{794});
  CHECK(run->timing.find("tqdm") != std::string::npos);
  const std::string redrawn = "Epoch 0: | 3/9 [00:06<00:12, 2.00it/s, global_step=2.0]\rEpoch 0: | 3/9 [00:06<00:12, "
                              "2.00it/s, global_step=2.0]\rEpoch 0: | 4/9 [00:08<00:10, 2.50it/s, global_step=3.0]\n";
  auto fast = read_run(redrawn, "fast.log");
  REQUIRE(fast);
  CHECK(fast->series == std::vector<double>{0.5, 0.4});
  CHECK(fast->steps == std::vector<long>{2, 3});
}

TEST_CASE("NeMo 2's progress lines give each step's number") {
  const std::string text = "Training epoch 0, iteration 120/149 | global_batch_size: 1 | global_step: 120 | "
                           "train_step_timing in s: 0.03146 | val_loss: 4.106\n"
                           "Training epoch 0, iteration 121/149 | global_batch_size: 1 | global_step: 121 | "
                           "train_step_timing in s: 0.03163 | val_loss: 4.106\n";
  auto run = read_run(text, "nemo2.log");
  REQUIRE(run);
  CHECK(run->steps == std::vector<long>{120, 121});
  CHECK(run->series == std::vector<double>{0.03146, 0.03163});
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
