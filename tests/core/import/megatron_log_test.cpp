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

TEST_CASE("a Megatron-LM log does not name its model: its architecture narrows it, the user says which") {
  // 80 layers, hidden 8192, ffn 28672, 64 heads, 8 KV groups: Llama 2 70B, Llama 3 70B and Llama 3.1 70B alike.
  const std::string message = failure_text(import_data_file("megatron-lm/llama70b_tp4pp4.log", {"system=h100-sxm"}));
  CHECK(message.find("the log does not print the model (its architecture is that of llama2-70b, llama3-70b, "
                     "llama3.1-70b): "
                     "add --set model=NAME") != std::string::npos);
}

TEST_CASE("a Megatron-LM architecture only one catalog model has names the model") {
  std::string text = read_import_data("megatron-lm/llama70b_tp4pp4.log");
  const std::string layers = "  num_layers ...................................... 80";
  text.replace(text.find(layers), layers.size(), "  num_layers ...................................... 32");
  const std::string hidden = "  hidden_size ..................................... 8192";
  text.replace(text.find(hidden), hidden.size(), "  hidden_size ..................................... 4096");
  const std::string ffn = "  ffn_hidden_size ................................. 28672";
  text.replace(text.find(ffn), ffn.size(), "  ffn_hidden_size ................................. 14336");
  const std::string heads = "  num_attention_heads ............................. 64";
  text.replace(text.find(heads), heads.size(), "  num_attention_heads ............................. 32");
  auto rows = import_with_catalog(text, "llama8b.log", {"system=h100-sxm"});
  REQUIRE(rows);
  CHECK(rows->front().config_text("model") == "llama3.1-8b");
  CHECK(field_value(rows->front(), "note")
            .find("model llama3.1-8b: the catalog's only model of this architecture "
                  "(32 layers, hidden 4096, ffn 14336, heads 32, KV groups 8, "
                  "experts 1)") != std::string::npos);
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

TEST_CASE("an AMD Primus log: arguments from rank 0, current/average iteration times from the last rank") {
  const std::string relative = "megatron-lm/primus_ranks.log";
  auto run = read_data_run(relative);
  REQUIRE(run);
  CHECK(run->config.at("train.gbs").as_int() == 640);
  CHECK(run->config.at("train.mbs").as_int() == 10);
  CHECK(run->config.at("train.seq_len").as_int() == 4096);
  CHECK(run->config.at("gpus").as_int() == 16);
  CHECK(run->line_of["train.gbs"] == 3);  // lines of the file as it is
  // The first value of "444692.3/444692.3" is the interval's own; the second the average since the start.
  REQUIRE(run->series.size() == 4);
  CHECK(run->series[0] == doctest::Approx(444.6923));
  CHECK(run->series[1] == doctest::Approx(92.8099));
  CHECK(run->series[3] == doctest::Approx(92.6311));
  CHECK(run->steps == std::vector<long>{1, 2, 3, 4});
  CHECK(run->first_line == 2);
  CHECK(run->last_line == 14);
}

TEST_CASE("Megatron-LM iteration lines with only the rank's prefix to say the world size") {
  const std::string text =
      "[20251115 12:17:53][rank-63/64][INFO ] [--------trainer.py:2382] :  iteration        1/      50 | "
      "elapsed time per iteration (ms): 3061.2/3061.2 | global batch size:  2048 |\n"
      "[20251115 12:17:59][rank-63/64][INFO ] [--------trainer.py:2382] :  iteration        2/      50 | "
      "elapsed time per iteration (ms): 6391.4/4726.3 | global batch size:  2048 |\n";
  auto run = read_run(text, "excerpt.log");
  REQUIRE(run);
  CHECK(run->config.at("gpus").as_int() == 64);
  CHECK(run->config.at("train.gbs").as_int() == 2048);
  CHECK(run->series.size() == 2);
}

TEST_CASE("a Megatron-LM iteration printed twice is one iteration, iterations that go back are a second run") {
  const std::string one = " iteration        1/      10 | elapsed time per iteration (ms): 3061.2 |\n";
  const std::string two = " iteration        2/      10 | elapsed time per iteration (ms): 3050.0 |\n";
  auto twice = read_run(one + one + two + two, "twice.log");
  REQUIRE(twice);
  CHECK(twice->steps == std::vector<long>{1, 2});
  auto restarted = read_run(one + two + one, "restart.log");
  REQUIRE_FALSE(restarted);
  CHECK(restarted.error().message.find("restart.log:3: two runs in one file: the iterations restart at 1") == 0);
}
