// End to end: the dgxhost executable with the llm-finetune plugin, as a user on a machine without GPUs runs it.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "plugin_cli.hpp"

using namespace dgx::testing;

TEST_CASE("dgxhost --plugin llama70b-lora answers on a machine without GPUs, fast, and says what it assumed") {
  const std::string out = fast_answer({"--plugin", "llama70b-lora"});
  CHECK(has(out, "preset llama70b-lora  mode explore"));
  CHECK(has(out, "Assumptions:\n  Model: Llama 3.1 70B (llama3.1-70b)"));
  CHECK(has(out, "Job: 154M sample tokens"));
  CHECK(has(out, "Methods: LoRA r16 qkv"));
  CHECK(has(out, "finetune.md and calibration-3.md's LoRA rows: mean "));
  for (const char* column : {"finetune.method", "gpus", "precision", "layout", "pareto", "recommended", "step",
                             "tok/s/GPU", "MFU %", "hours", "cost $"}) {
    CHECK_MESSAGE(has(out, column), column);
  }
  CHECK(has(out, "Pareto front (hours vs cost):"));
  CHECK(has(out, "(recommended = yes)"));
  CHECK(has(out, "Trade:"));
  CHECK(has(out, "FLOPs:"));
  CHECK(has(out, "not measurements on this machine"));
}

TEST_CASE("--format json: every row is projected and carries the fine-tuning metrics") {
  const dgx::json::Value doc = json_of(dgxhost({"--plugin", "llama8b-sft", "--mode", "project", "--format", "json"}));
  const auto& rows = doc["results"].as_array();
  REQUIRE(rows.size() == 1);
  const dgx::json::Value& row = rows[0];
  CHECK(row["mode"].as_string() == "projected");
  for (const char* name : {"step_time", "tokens_per_s", "tokens_per_s_per_gpu", "model_tflops_per_gpu", "mfu",
                           "memory_per_gpu", "hours_to_finetune", "gpu_hours", "cost_usd", "trainable_parameters"}) {
    CHECK_MESSAGE(metric(row, name) > 0, name);
  }
}

TEST_CASE("bad input is a configuration error that names the reason (exit 2)") {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--set", "finetune.lora.rank=20000"}, "LoRA rank 20000 must lie between 1 and the hidden size"},
      {{"--set", "finetune.lora.targets=[\"qkv\",\"lm_head\"]"}, "'lm_head' is not one of qkv, proj, fc1, fc2"},
      {{"--set", "model=mixtral-8x7b", "--set", "finetune.lora.targets=[\"fc1\"]"}, "has no fc1 module"},
      {{"--set", "finetune.samples=0"}, "the data set has no tokens"},
      {{"--set", "finetune.method=sft", "--set", "model=llama3.1-405b", "--set", "explore.gpus_max=64"},
       "cannot be fine-tuned at any explored GPU count"},
  };
  for (const auto& c : cases) {
    const auto& args = c.first;  // not a structured binding: clang 14 (sanitizer build) cannot capture one
    const auto& message = c.second;
    const ProcessResult r = dgxhost(with_plugin("llama70b-lora", args));
    CAPTURE(message);
    CHECK(r.exit_code == 2);
    CHECK(has(r.err + r.out, message));
  }
}

TEST_CASE("--describe states the FLOP convention of LoRA") {
  const ProcessResult r = dgxhost({"--plugin", "llm-finetune", "--describe"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  std::string words;  // the help as one line: into a pipe, --describe wraps it at 100 columns
  for (const char c : r.out) {
    if (c != '\n' && !(c == ' ' && !words.empty() && words.back() == ' ')) {
      words += c;
    } else if (!words.empty() && words.back() != ' ') {
      words += ' ';
    }
  }
  CHECK(has(words, "LoRA 2/3 of the GEMM terms"));
  CHECK(has(r.out, "finetune.lora.targets"));
}
