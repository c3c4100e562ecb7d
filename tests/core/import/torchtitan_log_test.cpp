// torchtitan_log.cpp: the coloured metric lines and the start-up lines of a torchtitan run.
#include <doctest/doctest.h>

#include "import_fixture.hpp"

using namespace dgx;
using namespace dgx::testing;

TEST_CASE("a torchtitan log gives tokens per GPU, the batch, the mesh, the model and the GPU") {
  auto rows = import_data_file("torchtitan/llama3_8b.log", {"precision=bf16"});
  REQUIRE(rows);
  REQUIRE(rows->size() == 1);
  const ResultRow& r = rows->front();
  CHECK(r.mode == ResultMode::measured);
  CHECK(r.workload == "llm-pretrain");
  CHECK(r.label == "torchtitan");
  CHECK(field_value(r, "source") == "imported: torchtitan");
  CHECK(field_value(r, "system") == "h100-sxm");
  CHECK(r.config_text("model") == "llama3.1-8b");
  CHECK(r.config_text("system") == "h100-sxm");
  CHECK(r.config_text("gpus") == "8");
  CHECK(r.config_text("train.gbs") == "16");
  CHECK(r.config_text("train.mbs") == "2");
  CHECK(r.config_text("train.seq_len") == "8192");
  CHECK(metric_value(r, "steps") == 11);
  // 11 logged steps: 2 dropped, the median of the other 9 tps values is the per-GPU rate.
  CHECK(field_value(r, "steady_state") == "median of 9 steps, 2 warm-up steps dropped");
  CHECK(r.sample_times.size() == 9);
  const double per_gpu = metric_value(r, "tokens_per_s_per_gpu");
  CHECK(per_gpu > 6600);
  CHECK(per_gpu < 6700);
  CHECK(metric_value(r, "step_time") == doctest::Approx(16.0 * 8192 / (8 * per_gpu)));
  CHECK(metric_value(r, "mfu") > 38);
  CHECK(field_value(r, "file") == "torchtitan/llama3_8b.log:1-30");
}

TEST_CASE("a torchtitan log says its profile and precision: compiled FSDP2 in bf16 without a float8 line") {
  auto rows = import_data_file("torchtitan/llama3_8b.log");
  REQUIRE(rows);
  const ResultRow& r = rows->front();
  CHECK(r.config_text("precision") == "bf16");
  CHECK(r.config_text("framework") == "torchtitan");  // torch.compile, no TP: the compiled profile
  CHECK(r.config_text("parallel.fsdp") == "true");    // dp_shard 8
  CHECK(field_value(r, "note").find("precision bf16: FSDP's mixed precision (line 15)") != std::string::npos);
  CHECK(field_value(r, "note").find("framework torchtitan: torch.compile (line 11)") != std::string::npos);
}

TEST_CASE("a torchtitan log without torch.compile is the eager profile, and a float8 line sets fp8") {
  std::string text = read_import_data("torchtitan/llama3_8b.log");
  const std::string compile = "Compiling each TransformerBlock with torch.compile";
  text.replace(text.find(compile), compile.size(), "Applied FSDP to the model");
  const std::string mixed = "Mixed precision training is handled by fully_shard";
  text.replace(text.find(mixed), mixed.size(), "Float8 training active with recipe tensorwise");
  auto rows = import_with_catalog(text, "eager.log");
  REQUIRE(rows);
  CHECK(rows->front().config_text("framework") == "torchtitan-eager");
  CHECK(rows->front().config_text("precision") == "fp8");
  // Eager is only inferred from a line the log lacks (an excerpt may not show it): the user's word overrules it.
  auto compiled = import_with_catalog(text, "eager.log", {"framework=torchtitan"});
  REQUIRE_MESSAGE(compiled, failure_text(compiled));
  CHECK(compiled->front().config_text("framework") == "torchtitan");
}

TEST_CASE("a torchtitan run that crashed after three logged steps has no steady state") {
  const std::string message = failure_text(import_data_file("torchtitan/crashed.log", {"precision=bf16"}));
  CHECK(message.find("no steady state: the run logged only 3 steps") != std::string::npos);
}

TEST_CASE("two torchtitan runs in one file are refused, naming both lines") {
  const std::string message = failure_text(import_data_file("torchtitan/two_runs.log", {"precision=bf16"}));
  CHECK(message.find("two runs in one file") != std::string::npos);
  CHECK(message.find("torchtitan/two_runs.log:") == 0);
}

TEST_CASE("a --set gpus that contradicts torchtitan's device mesh names both values") {
  const std::string message = failure_text(import_data_file("torchtitan/llama3_8b.log", {"precision=bf16", "gpus=16"}));
  CHECK(message.find("the log says gpus=8 but --set gpus=16 contradicts it") != std::string::npos);
}

TEST_CASE("torchtitan ranks printed interleaved and out of order: rank 0's steps, each once") {
  auto run = read_data_run("torchtitan/interleaved_ranks.log");
  REQUIRE(run);
  CHECK(run->steps == std::vector<long>{1, 20, 40, 2000});  // "final step: 2000" repeats the last step
  CHECK(run->series == std::vector<double>{448, 737, 737, 737});
  CHECK(run->config.at("gpus").as_int() == 4);
  CHECK(run->config.at("parallel.pp").as_int() == 4);
  CHECK(run->printed_model == "llama3 8B");
  CHECK(run->printed_device == "NVIDIA H200");
}

TEST_CASE("every rank printing the same torchtitan step without a prefix counts the step once") {
  auto run = read_data_run("torchtitan/all_ranks_unprefixed.txt");
  REQUIRE(run);
  CHECK(run->steps == std::vector<long>{4, 5});
  CHECK(run->series == std::vector<double>{10050, 10007});  // thousands separators
}

TEST_CASE("newer torchtitan's mesh, model and batch lines") {
  const std::string text =
      "[rank0]:[titan] 2026-05-20 02:07:26,451 - root - INFO - Building device mesh with parallelism: pp=1, "
      "dp_replicate=1, dp_shard=8, cp=1, tp=1, ep=1\n"
      "[rank0]:[titan] 2026-05-20 02:07:29,526 - root - INFO - Building qwen3 14B\n"
      "[rank0]:[titan] 2026-05-20 02:07:30,259 - root - INFO - Trainer is initialized with local batch size 160, "
      "global batch size 1280, gradient accumulation steps 1, sequence length 128, total steps 10 (warmup 600)\n"
      "[rank0]:[titan] 2026-05-20 02:07:30,260 - root - INFO - Training starts at step 1\n"
      "[rank0]:[titan] 2026-05-20 02:07:46,184 - root - INFO - \x1b[31mstep:  1  \x1b[38;2;54;234;195mmemory: "
      "160.86GiB(90.19%)  \x1b[34mtps: 1,245  \x1b[35mmfu: N/A\x1b[39m\n"
      "[rank0]:[titan] 2026-05-20 02:07:49,728 - root - INFO - \x1b[31mstep:  2  \x1b[34mtps: 5,780\x1b[39m\n";
  auto run = read_run(text, "qwen3.log");
  REQUIRE(run);
  CHECK(run->config.at("gpus").as_int() == 8);
  CHECK(run->config.at("parallel.fsdp").as_bool());
  CHECK(run->config.at("train.gbs").as_int() == 1280);
  CHECK(run->config.at("train.seq_len").as_int() == 128);
  CHECK(run->printed_model == "qwen3 14B");
  CHECK(run->series == std::vector<double>{1245, 5780});
  CHECK(run->mfu.empty());  // "mfu: N/A"
}

TEST_CASE("a torchtitan run that logged no step is refused, saying how it ended") {
  const std::string crashed = "[rank0]:[titan] 2025-01-01 00:00:01,000 - root - INFO - Training starts at step 1\n"
                              "[rank0]:[rank0]: Traceback (most recent call last):\n"
                              "[rank0]:[rank0]: torch.OutOfMemoryError: CUDA out of memory.\n";
  auto none = read_run(crashed, "oom.log");
  REQUIRE_FALSE(none);
  CHECK(none.error().message ==
        "oom.log:3: no metrics line (step: ... tps: ...): the run logged no training step; it ended with "
        "'torch.OutOfMemoryError: CUDA out of memory.'");
}

TEST_CASE("a torchtitan log without a mesh line takes its GPU count from torchrun's command, else from NGPU=N") {
  const std::string steps =
      "[rank0]:[titan] 2025-07-21 15:57:42,774 - root - INFO - step:  1  loss:  4.99  memory:  1.00GiB(1.00%)  "
      "tps: 30,768  tflops: 3.15  mfu: 0.32%\n"
      "[rank0]:[titan] 2025-07-21 15:57:43,774 - root - INFO - step:  2  loss:  4.99  memory:  1.00GiB(1.00%)  "
      "tps: 30,768  tflops: 3.15  mfu: 0.32%\n";
  auto launched = read_run("+ NGPU=8\n+ torchrun --nproc_per_node=4 --nnodes=2 -m torchtitan.train\n" + steps, "t.log");
  REQUIRE(launched);
  CHECK(launched->config.at("gpus").as_number() == 8);
  CHECK(launched->line_of.at("gpus") == 2);
  auto ngpu = read_run("+ NGPU=4\n" + steps, "t.log");
  REQUIRE(ngpu);
  CHECK(ngpu->config.at("gpus").as_number() == 4);
  CHECK(ngpu->line_of.at("gpus") == 1);
}
