#include "plugin.hpp"

#include <doctest/doctest.h>

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/device_peak.hpp"
#include "dgx/llm/step_model.hpp"
#include "llm_fixtures.hpp"
#include "llm_host.hpp"
#include "params.hpp"

using namespace dgx::plugins::llm_pretrain;
using PretrainHost = dgx::testing::LlmHost<PretrainWorkload, pretrain_params>;

namespace {

/// The dense peak of h100-sxm (the defaults' system) in `precision`, as the rows name it.
std::string h100_peak(dgx::llm::Precision precision) {
  return dgx::llm::system_peak(*dgx::llm::find_system("h100-sxm"), precision)->label();
}

/// Runs project mode on `h`; returns the config error's message, or "" when it succeeded.
std::string project(PretrainHost& h) { return h.run("project"); }

double metric(const PretrainHost& h, const std::string& name) { return h.rows.front().metrics.at(name).first; }

}  // namespace

TEST_CASE("project emits one projected row with the headline metrics, the breakdown and the provenance") {
  PretrainHost h;
  h.use_preset("llama70b");
  h.set(key::gpus, std::int64_t{64});
  h.set(key::gbs, std::int64_t{128});
  REQUIRE(project(h).empty());
  REQUIRE(h.rows.size() == 1);
  const auto& row = h.rows.front();
  CHECK(row.mode == DGX_RESULT_PROJECTED);
  CHECK(h.visibility.front().table == "project");
  CHECK(row.config.at("gpus") == "64");
  CHECK(row.config.at("precision") == "\"bf16\"");
  CHECK(row.fields.at("configuration") == "64 x h100-sxm, bf16, TP4 PP4 CP2 VP5 MBS1");
  CHECK(h.visibility.front().hidden_fields.count("configuration") == 0);

  // The same numbers as the library's own projection of that configuration.
  const auto expected = dgx::llm::project(dgx::testing::llama70b_on_64_h100(dgx::llm::Precision::bf16));
  REQUIRE(expected.has_value());
  CHECK(metric(h, "step_time") == doctest::Approx(expected->step_time_s));
  CHECK(metric(h, "tokens_per_s") == doctest::Approx(8192.0 * 128 / expected->step_time_s));
  CHECK(metric(h, "tokens_per_s_per_gpu") == doctest::Approx(metric(h, "tokens_per_s") / 64));
  CHECK(metric(h, "model_tflops_per_gpu") == doctest::Approx(expected->model_tflops_per_gpu));
  CHECK(metric(h, "mfu") == doctest::Approx(100 * expected->mfu));
  CHECK(metric(h, "memory_per_gpu") == doctest::Approx(expected->memory.total()));
  CHECK(metric(h, "days_to_train") == doctest::Approx(1e12 / metric(h, "tokens_per_s") / 86400));
  CHECK(metric(h, "gpu_hours") == doctest::Approx(metric(h, "days_to_train") * 24 * 64));
  CHECK(metric(h, "cost_usd") == doctest::Approx(*expected->cost_usd));
  CHECK(metric(h, "model_flops_per_sequence") == doctest::Approx(3.94e15).epsilon(0.01));
  CHECK(metric(h, "dp") == 2);
  CHECK(metric(h, "microbatches") == 64);
  double parts = 0;
  for (const char* part : {"breakdown.compute", "breakdown.tp", "breakdown.cp", "breakdown.ep", "breakdown.pp",
                           "breakdown.bubble", "breakdown.dp", "breakdown.optimizer", "breakdown.stragglers"}) {
    parts += metric(h, part);
  }
  CHECK(parts == doctest::Approx(metric(h, "step_time")));
  double memory = 0;
  for (const char* part : {"memory.weights", "memory.gradients", "memory.optimizer", "memory.fp8_weight_cache",
                           "memory.activations", "memory.transient", "memory.reserve"}) {
    memory += metric(h, part);
  }
  CHECK(memory == doctest::Approx(metric(h, "memory_per_gpu")));
  CHECK(metric(h, "memory.capacity") == doctest::Approx(80.0 * 1024 * 1024 * 1024));
  CHECK(row.fields.at("mfu_peak") == h100_peak(dgx::llm::Precision::bf16));
}

TEST_CASE("project notes: assumptions and configuration before, breakdowns and the projection label after") {
  PretrainHost h;
  REQUIRE(project(h).empty());  // the defaults: llama3.1-8b on 8 H100
  std::vector<std::string> before, after;
  for (const auto& n : h.placed_notes) {
    (n.after ? after : before).push_back(n.title);
  }
  CHECK(before == std::vector<std::string>{"Assumptions", "Configuration"});
  CHECK(after == std::vector<std::string>{"Throughput", "Step time", "Memory per GPU (the fullest GPU)", "Projection"});
  CHECK(h.note("Configuration").find("llama3.1-8b on 8 x h100-sxm, bf16 GEMMs: TP1 PP1 CP2 VP1 MBS1, DP 4") == 0);
  CHECK(h.note("Step time").find(" = compute ") != std::string::npos);
}

TEST_CASE("project uses the first precision and explains why an fp8 run is faster") {
  PretrainHost bf16, fp8;
  fp8.set(key::precision, std::vector<std::string>{"fp8", "bf16"});
  REQUIRE(project(bf16).empty());
  REQUIRE(project(fp8).empty());
  CHECK(fp8.rows.front().config.at("precision") == "\"fp8\"");
  CHECK(metric(fp8, "step_time") < metric(bf16, "step_time"));
  CHECK(fp8.rows.front().fields.at("mfu_peak") == h100_peak(dgx::llm::Precision::fp8));
}

TEST_CASE("invalid or infeasible configurations are config errors naming the reason") {
  const auto error = [](const std::vector<std::pair<const char*, dgx::testing::FakeHost::Value>>& sets) {
    PretrainHost h;
    h.use_preset("llama70b");
    for (auto& [k, v] : sets) {
      h.set(k, v);
    }
    return project(h);
  };
  CHECK(error({{key::tp, std::int64_t{16}}}).find("TP 16 exceeds the NVLink domain of 8") != std::string::npos);
  CHECK(error({{key::gpus, std::int64_t{2048}}, {key::gbs, std::int64_t{100}}, {key::vp, std::int64_t{1}}})
            .find("gbs 100 is not divisible by dp×mbs = 64") != std::string::npos);
  const std::string memory = error({{key::gpus, std::int64_t{64}},
                                    {key::tp, std::int64_t{1}},
                                    {key::pp, std::int64_t{1}},
                                    {key::cp, std::int64_t{1}},
                                    {key::vp, std::int64_t{1}}});
  CHECK(memory.find("llama3.1-70b on 64 x h100-sxm, bf16, TP1 PP1 CP1 VP1 MBS1, GBS 1024: needs ") == 0);
  CHECK(memory.find("GiB per GPU, h100-sxm has 80.0 GiB") != std::string::npos);
  CHECK(error({{key::gpus, std::int64_t{100}}}).find("gpus 100 not divisible by tp×pp×cp = 32") != std::string::npos);
  CHECK(error({{key::precision, std::vector<std::string>{"nvfp4"}}}).find("h100-sxm does not support nvfp4") !=
        std::string::npos);
  CHECK(error({{key::ep, std::int64_t{2}}}).find("requires a mixture-of-experts model") != std::string::npos);
}

TEST_CASE("a published FSDP recipe with activation offloading projects on GB200") {
  PretrainHost h;
  h.use_preset("llama70b");
  h.set(key::system, std::string("gb200-nvl72"));
  h.set(key::gpus, std::int64_t{64});
  h.set(key::gbs, std::int64_t{128});
  h.set(key::precision, std::vector<std::string>{"fp8"});
  h.set(key::tp, std::int64_t{1});
  h.set(key::pp, std::int64_t{1});
  h.set(key::cp, std::int64_t{1});
  h.set(key::vp, std::int64_t{1});
  h.set(key::mbs, std::int64_t{2});
  h.set(key::fsdp, true);
  h.set(key::offload_layers, std::int64_t{40});
  REQUIRE(project(h).empty());
  CHECK(h.note("Configuration").find("Megatron FSDP") != std::string::npos);
  CHECK(h.note("Configuration").find("activations of 40 layers per stage offloaded") != std::string::npos);
  CHECK(metric(h, "breakdown.offload") > 0);
  CHECK(h.rows.front().fields.at("layout").find("FSDP OFF40") != std::string::npos);
}

TEST_CASE("the 405B layout of NVIDIA's recipe resolves with the embedding and loss counted as layers") {
  PretrainHost h;
  h.use_preset("llama405b");
  h.set(key::gpus, std::int64_t{1024});
  h.set(key::gbs, std::int64_t{512});
  h.set(key::vp, std::int64_t{8});
  h.set(key::precision, std::vector<std::string>{"fp8"});
  REQUIRE(project(h).empty());
  CHECK(h.note("Configuration").find("layers split 15/16/.../16/15 over 8 stages, embedding-loss") !=
        std::string::npos);
  h.set(key::pipeline_split, std::string("even"));
  CHECK(project(h).find("pipeline_split even needs") != std::string::npos);
}
