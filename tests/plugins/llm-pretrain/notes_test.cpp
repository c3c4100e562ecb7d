#include "plugin.hpp"

#include <doctest/doctest.h>

#include "dgx/llm/workload/training_notes.hpp"

using namespace dgx::plugins::llm_pretrain;
using dgx::llm::workload::Assumptions;

TEST_CASE("the assumptions say which model, system and price, why, and how accurate the model is") {
  PretrainSettings s;
  s.model = "llama3.1-70b";
  s.system = "h100-sxm";
  s.train.tokens = 1e12;
  const Assumptions a = dgx::llm::workload::resolve_assumptions(s);
  const std::string text = Pretraining(s, a).assumptions_note();
  CHECK(text.find("Model: Llama 3.1 70B (llama3.1-70b): 80 layers") == 0);
  CHECK(text.find("sequences of 8192 tokens, 1.00T tokens to train") != std::string::npos);
  CHECK(text.find("System: h100-sxm") != std::string::npos);
  CHECK(text.find("the workload's default") != std::string::npos);  // system_configured is false
  CHECK(text.find("not for this machine's GPUs") != std::string::npos);
  CHECK(text.find("Price: " + a.price_reason) != std::string::npos);
  CHECK(text.find("--set cost.provider=NAME") != std::string::npos);
  CHECK(text.find("Performance model: dgx-llm-model 3") != std::string::npos);
  CHECK(text.find(a.calibration) != std::string::npos);
  s.system_configured = true;
  CHECK(Pretraining(s, a).assumptions_note().find("the configuration names it") != std::string::npos);
}

TEST_CASE("the projection note says these are projections and how to measure instead") {
  Assumptions a;
  a.system.name = "b200";
  const std::string text = Pretraining({}, a).projection_note();
  CHECK(text.find("projections of dgx-llm-model 3 for b200, not measurements") != std::string::npos);
  CHECK(text.find("--plugin gemm") != std::string::npos);
  CHECK(text.find("--plugin llm-layer") != std::string::npos);
  CHECK(text.find("--mode measure") != std::string::npos);
}

TEST_CASE("breakdown and memory texts list the parts") {
  dgx::llm::StepBreakdown b;
  b.compute = 10;
  b.tp_comm = 0.5;
  b.bubble = 0.25;
  CHECK(dgx::llm::workload::breakdown_text(b) == "10.8 s = compute 10.0 s + TP 500 ms + bubble 250 ms");
  dgx::llm::MemoryBreakdown m;
  const double g = 1024.0 * 1024 * 1024;
  m.weights = 8 * g;
  m.gradients = 8 * g;
  m.optimizer = 12 * g;
  m.activations = 30 * g;
  m.reserve = 4 * g;
  m.capacity = 80 * g;
  CHECK(dgx::llm::workload::memory_text(m) ==
        "62.0 GiB of 80.0 GiB: weights 8.0, gradients 8.0, optimizer states 12.0, activations "
        "30.0, logits 0.0, reserve 4.0 GiB");
  m.fp8_weight_cache = g;
  CHECK(dgx::llm::workload::memory_text(m).find("FP8 weight cache 1.0") != std::string::npos);
}
