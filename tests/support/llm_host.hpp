// Test helper for the LLM plugins' tests: a WorkloadHost (workload_host.hpp) holding a workload's defaults, parsed
// from its parameter schema, with the embedded presets applied as the host's preset layer would, and a runner of the
// workload's modes that returns the configuration error's message. One harness for llm-pretrain, llm-finetune and
// llm-inference (and llm-decode): each test names its workload and schema,
//   using PretrainHost = dgx::testing::LlmHost<PretrainWorkload, pretrain_params>;
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include <dgx/sdk/host.hpp>
#include <dgx/sdk/workload.hpp>

#include "config_error.hpp"
#include "dgx/llm/catalog.hpp"
#include "workload_host.hpp"

namespace dgx::testing {

template <class Workload, std::vector<dgx::sdk::Param> (*schema)()> class LlmHost : public WorkloadHost {
public:
  LlmHost() : WorkloadHost(schema()) {}

  /// Sets every config key of an embedded preset (llama70b, llama70b-lora, llama70b-serve, ...).
  void use_preset(const std::string& name) {
    const auto text = dgx::llm::embedded_config("workloads/" + name + ".toml");
    if (!text) {
      throw std::runtime_error("no embedded preset " + name);
    }
    use_preset_text(*text);
  }

  /// Creates the workload and runs `mode` (explore or project); what it throws propagates.
  void project(dgx::sdk::Mode mode) {
    dgx::sdk::Host host(api());
    Workload workload(host);
    workload.project(mode);
  }

  /// The same for "explore" or "project": "" on success, else the config error's message.
  std::string run(const char* mode) {
    return config_error_of(
        [&] { project(std::string(mode) == "explore" ? dgx::sdk::Mode::explore : dgx::sdk::Mode::project); });
  }

  /// The numeric metric `name` of emitted row `index`.
  [[nodiscard]] double metric(std::size_t index, const std::string& name) const {
    return rows.at(index).metrics.at(name).first;
  }
};

}  // namespace dgx::testing
