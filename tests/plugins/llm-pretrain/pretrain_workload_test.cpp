#include "plugin.hpp"

#include <doctest/doctest.h>

#include "llm_host.hpp"
#include "params.hpp"

using namespace dgx::plugins::llm_pretrain;
using PretrainHost = dgx::testing::LlmHost<PretrainWorkload, pretrain_params>;

TEST_CASE("creating the workload checks the configuration: bad names fail before anything runs") {
  PretrainHost h;
  h.set(key::model, std::string("llama-9000"));
  dgx::sdk::Host host(h.api());
  CHECK_THROWS_AS(PretrainWorkload{host}, dgx::sdk::InvalidArgument);
  CHECK(h.rows.empty());
}

TEST_CASE("the mode picks projection of one configuration or exploration of the space") {
  PretrainHost project_host, explore_host;
  dgx::sdk::Host a(project_host.api()), b(explore_host.api());
  PretrainWorkload(a).project(dgx::sdk::Mode::project);
  PretrainWorkload(b).project(dgx::sdk::Mode::explore);
  REQUIRE(project_host.rows.size() == 1);
  CHECK(project_host.visibility.front().table == "project");
  CHECK(explore_host.rows.size() > 1);
  CHECK(explore_host.visibility.front().table == "explore");
}

TEST_CASE("without a device, measure mode is refused with the reason") {
  PretrainHost h;
  dgx::sdk::Host host(h.api());
  PretrainWorkload w(host);
  CHECK_THROWS_AS(w.setup(), dgx::sdk::NoDevice);  // the test double has no fake timing set
  CHECK_THROWS_WITH_AS(dgx::llm::workload::require_layer_probe(), "no CUDA device found: test double",
                       dgx::sdk::NoDevice);
}
