#include "dgx/llm/workload/training_settings.hpp"

#include <doctest/doctest.h>

#include "config_error.hpp"
#include "workload_host.hpp"

using namespace dgx::llm::workload;

namespace {

dgx::testing::WorkloadHost host_with_defaults() {
  TrainingDefaults d;
  d.model = "llama3.1-70b";
  d.layout.tp = 8;
  d.gbs = 32;
  return dgx::testing::WorkloadHost(training_params(d));
}

std::string settings_error_of(const dgx::testing::WorkloadHost& h) {
  return dgx::testing::config_error_of([&] { (void)read_training_settings(dgx::sdk::Host(h.api())); });
}

}  // namespace

TEST_CASE("the shared schema carries a workload's defaults and reads back into the training configuration") {
  const dgx::testing::WorkloadHost h = host_with_defaults();
  const TrainingSettings s = read_training_settings(dgx::sdk::Host(h.api()));
  CHECK(s.model == "llama3.1-70b");
  CHECK(s.system == "h100-sxm");
  CHECK(s.train.layout.tp == 8);
  CHECK(s.train.gbs == 32);
  CHECK(s.precisions == std::vector<dgx::llm::Precision>{dgx::llm::Precision::bf16, dgx::llm::Precision::fp8});
  CHECK(s.train.precision == dgx::llm::Precision::bf16);
  CHECK(s.gbs_per_gpu == 16);
  CHECK(s.budget_slack == 0.05);
}

TEST_CASE("the shared keys are checked value by value, naming the key") {
  dgx::testing::WorkloadHost h = host_with_defaults();
  h.set(key::tp, std::int64_t{0});
  CHECK(settings_error_of(h) == "parallel.tp must be at least 1, got 0");
  dgx::testing::WorkloadHost p = host_with_defaults();
  p.set(key::precision, std::vector<std::string>{"fp16"});
  CHECK(settings_error_of(p) == "precision: 'fp16' is not one of bf16, fp8, mxfp8, nvfp4");
  dgx::testing::WorkloadHost g = host_with_defaults();
  g.set(key::gpus_min, std::int64_t{64});
  g.set(key::gpus_max, std::int64_t{8});
  CHECK(settings_error_of(g) == "explore.gpus_min 64 exceeds explore.gpus_max 8");
}

TEST_CASE("a preset's lines set keys by the schema's types, comments and quotes handled") {
  dgx::testing::WorkloadHost h = host_with_defaults();
  h.use_preset_text("preset.workload = \"x\"\nmodel = \"llama3.1-8b\"   # a # in a comment\n"
                    "precision = [\"fp8\"]\nparallel.tp = 2\nexplore.budget_slack = 0.1\n");
  const TrainingSettings s = read_training_settings(dgx::sdk::Host(h.api()));
  CHECK(s.model == "llama3.1-8b");
  CHECK(s.precisions == std::vector<dgx::llm::Precision>{dgx::llm::Precision::fp8});
  CHECK(s.train.layout.tp == 2);
  CHECK(s.budget_slack == 0.1);
}
