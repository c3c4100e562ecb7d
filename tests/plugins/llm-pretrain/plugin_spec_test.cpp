#include "plugin.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "llm_host.hpp"
#include "params.hpp"

using namespace dgx::plugins::llm_pretrain;
using PretrainHost = dgx::testing::LlmHost<PretrainWorkload, pretrain_params>;

TEST_CASE(
    "the plugin offers llm-pretrain: a pretrain workload with measure, project and explore modes and its presets") {
  const dgx::sdk::PluginSpec spec = make_plugin_spec();
  CHECK(spec.name == "llm-pretrain");
  REQUIRE(spec.workloads.size() == 1);
  const dgx::sdk::WorkloadSpec& w = spec.workloads.front();
  CHECK(w.name == "llm-pretrain");
  CHECK(w.kind == dgx::sdk::Kind::pretrain);
  CHECK(w.modes ==
        std::vector<dgx::sdk::Mode>{dgx::sdk::Mode::measure, dgx::sdk::Mode::project, dgx::sdk::Mode::explore});
  CHECK(static_cast<bool>(w.can_measure));
  for (const dgx_precision p : {DGX_PRECISION_BF16, DGX_PRECISION_FP8_E4M3, DGX_PRECISION_FP8_E5M2}) {
    CHECK(std::find(w.precisions.begin(), w.precisions.end(), p) != w.precisions.end());
  }
  CHECK(spec.presets.size() == 11);
  CHECK(std::any_of(spec.presets.begin(), spec.presets.end(), [](const auto& p) { return p.name == "llama70b"; }));
}

TEST_CASE("the spec's factory builds a workload that explores with the defaults") {
  const dgx::sdk::PluginSpec spec = make_plugin_spec();
  PretrainHost h;
  dgx::sdk::Host host(h.api());
  auto workload = spec.workloads.front().factory(host);
  workload->project(dgx::sdk::Mode::explore);
  CHECK(!h.rows.empty());
}
