#include "plugin.hpp"

#include <doctest/doctest.h>

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/workload/presets.hpp"
#include "llm_host.hpp"
#include "params.hpp"
#include "settings.hpp"

using namespace dgx::plugins::llm_inference;
using InferenceHost = dgx::testing::LlmHost<InferenceWorkload, inference_params>;

TEST_CASE("the four serving presets are embedded with their file's text and project as they are") {
  std::vector<std::string> names;
  for (const auto& p : dgx::llm::workload::embedded_presets(kWorkloadName)) {
    names.push_back(p.name);
    CHECK(p.workload == "llm-inference");
    CHECK(p.config_toml == *dgx::llm::embedded_config("workloads/" + p.name + ".toml"));
    InferenceHost h;
    h.use_preset(p.name);
    const auto projection = Serving(dgx::sdk::Host(h.api())).project_configuration();
    CHECK_MESSAGE(projection.output_tokens_per_s > 0, p.name);
  }
  CHECK(names == std::vector<std::string>{"llama405b-serve", "llama70b-serve", "llama8b-serve", "mixtral8x7b-serve"});
}
