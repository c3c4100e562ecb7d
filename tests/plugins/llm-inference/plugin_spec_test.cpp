#include "plugin.hpp"

#include <doctest/doctest.h>

using namespace dgx::plugins::llm_inference;

TEST_CASE("the plugin offers the serving workload (measure, project, explore), the decode loop and four presets") {
  const dgx::sdk::PluginSpec spec = make_plugin_spec();
  CHECK(spec.name == "llm-inference");
  REQUIRE(spec.workloads.size() == 2);
  CHECK(spec.workloads[0].name == "llm-inference");
  CHECK(spec.workloads[0].kind == dgx::sdk::Kind::inference);
  CHECK(spec.workloads[0].modes ==
        std::vector<dgx::sdk::Mode>{dgx::sdk::Mode::measure, dgx::sdk::Mode::project, dgx::sdk::Mode::explore});
  CHECK(spec.workloads[1].name == "llm-decode");
  CHECK(spec.workloads[1].modes == std::vector<dgx::sdk::Mode>{dgx::sdk::Mode::measure});
  CHECK(spec.presets.size() == 4);
  for (const auto& p : spec.presets) {
    CHECK(p.workload == "llm-inference");
  }
}
