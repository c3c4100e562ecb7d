#include "settings.hpp"

#include <doctest/doctest.h>

#include "config_error.hpp"
#include "llm_host.hpp"
#include "params.hpp"
#include "plugin.hpp"

using namespace dgx::plugins::llm_pretrain;
using PretrainHost = dgx::testing::LlmHost<PretrainWorkload, pretrain_params>;

namespace {

PretrainSettings read(const PretrainHost& h) {
  const dgx::sdk::Host host(h.api());
  return read_settings(host);
}

std::string error_of(const PretrainHost& h) {
  return dgx::testing::config_error_of([&] { (void)read(h); });
}

}  // namespace

TEST_CASE("settings carry every key into the training configuration and the sweep") {
  PretrainHost h;
  h.use_preset("llama70b");
  h.set(key::precision, std::vector<std::string>{"fp8", "bf16", "fp8"});
  h.set(key::recompute, std::string("selective"));
  h.set(key::deadline_days, 30.0);
  h.set(key::explore_gpus, std::vector<std::int64_t>{64, 512});
  const PretrainSettings s = read(h);
  CHECK(s.model == "llama3.1-70b");
  CHECK(s.system == "h100-sxm");
  CHECK(s.system_configured);
  CHECK(s.gpus == 512);
  CHECK(s.precisions == std::vector<dgx::llm::Precision>{dgx::llm::Precision::fp8, dgx::llm::Precision::bf16});
  CHECK(s.train.precision == dgx::llm::Precision::fp8);  // project uses the first
  CHECK(s.train.layout.tp == 4);
  CHECK(s.train.layout.pp == 4);
  CHECK(s.train.layout.cp == 2);
  CHECK(s.train.layout.vp == 5);
  CHECK(s.train.gbs == 1024);
  CHECK(s.train.seq_len == 8192);
  CHECK(s.train.tokens == 1e12);
  CHECK(s.train.recompute == dgx::llm::Recompute::selective);
  CHECK(s.train.distributed_optimizer);
  CHECK(s.train.flops_convention == dgx::llm::AttentionFlops::full);
  CHECK(s.explore_gpus == std::vector<int>{64, 512});
  CHECK(s.gpus_min == 64);
  CHECK(s.gbs_per_gpu == 0);
  CHECK(s.budget_slack == 0.05);
  CHECK(s.deadline_days == 30.0);
  CHECK_FALSE(s.usd_per_gpu_hour.has_value());
  CHECK(s.provider.empty());
  // Keys this release added keep today's behaviour by default.
  CHECK(s.frameworks.empty());  // the newest release
  CHECK_FALSE(s.train.fsdp);
  CHECK(s.train.offload_layers == dgx::llm::kAutoOffload);  // only where a layout needs it, on Grace systems
  CHECK(s.train.pipeline_split == dgx::llm::PipelineSplit::automatic);
}

TEST_CASE("framework, FSDP, offloading and the pipeline split are read and checked") {
  PretrainHost h;
  h.use_preset("llama405b");
  h.set(key::framework, std::vector<std::string>{"nemo-25.09", "nemo-26.02", "nemo-25.09"});
  h.set(key::fsdp, true);
  h.set(key::offload_layers, std::int64_t{10});
  h.set(key::pipeline_split, std::string("embedding-loss"));
  const PretrainSettings s = read(h);
  CHECK(s.frameworks == std::vector<std::string>{"nemo-25.09", "nemo-26.02"});
  CHECK(s.train.fsdp);
  CHECK(s.train.offload_layers == 10);
  CHECK(s.train.pipeline_split == dgx::llm::PipelineSplit::embedding_loss);
  h.set(key::pipeline_split, std::string("balanced"));
  CHECK_THROWS_WITH_AS((void)read(h), doctest::Contains("parallel.pipeline_split: 'balanced' is not one of"),
                       dgx::sdk::InvalidArgument);
}

TEST_CASE("out-of-range values are config errors that name the key and the value") {
  const std::pair<const char*, dgx::testing::FakeHost::Value> cases[] = {
      {key::gpus, std::int64_t{0}},
      {key::tp, std::int64_t{-2}},
      {key::mbs, std::int64_t{0}},
      {key::seq_len, std::int64_t{-1}},
      {key::tokens, 0.0},
      {key::budget_slack, -0.1},
      {key::deadline_days, 0.0},
      {key::usd_per_gpu_hour, -1.0},
      {key::gbs_per_gpu, std::int64_t{-1}},
      {key::explore_gpus, std::vector<std::int64_t>{64, 0}},
      {key::gpus, std::int64_t{1} << 40},
      {key::recompute, std::string("some")},
      {key::precision, std::vector<std::string>{}},
      {key::flops_convention, std::string("half")}};
  // Named members, not a structured binding: CHECK_MESSAGE's lambda captures them, which clang 14 (clang-tidy) rejects.
  for (const auto& c : cases) {
    const auto& k = c.first;
    const auto& value = c.second;
    PretrainHost h;
    h.set(k, value);
    const std::string message = error_of(h);
    CHECK_MESSAGE(message.find(k) != std::string::npos, k << ": " << message);
  }
  PretrainHost h;
  h.set(key::gpus_min, std::int64_t{64});
  h.set(key::gpus_max, std::int64_t{8});
  CHECK(error_of(h) == "explore.gpus_min 64 exceeds explore.gpus_max 8");
  PretrainHost tp;
  tp.set(key::tp, std::int64_t{0});
  CHECK(error_of(tp) == "parallel.tp must be at least 1, got 0");
}
