#include "presets.hpp"

#include <doctest/doctest.h>

#include "dgx/llm/embedded_configs.hpp"
#include "inference_host.hpp"
#include "project_mode.hpp"
#include "settings.hpp"

using namespace dgx::plugins::llm_inference;
using dgx::plugins::llm_inference::testing::InferenceHost;

TEST_CASE("the four serving presets are embedded with their file's text and project as they are") {
  std::vector<std::string> names;
  for (const auto& p : embedded_presets()) {
    names.push_back(p.name);
    CHECK(p.workload == "llm-inference");
    CHECK(p.config_toml == *dgx::llm::embedded_config("workloads/" + p.name + ".toml"));
    InferenceHost h;
    h.use_preset(p.name);
    const InferenceSettings s = read_settings(dgx::sdk::Host(h.api()));
    const auto projection = project_configuration(s, resolve_assumptions(s));
    CHECK_MESSAGE(projection.output_tokens_per_s > 0, p.name);
  }
  CHECK(names == std::vector<std::string>{"llama405b-serve", "llama70b-serve", "llama8b-serve", "mixtral8x7b-serve"});
}
