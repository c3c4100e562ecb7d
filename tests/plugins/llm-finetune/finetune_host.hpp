// Test helper: a WorkloadHost (tests/support) holding the llm-finetune workload's defaults, with its presets, and
// a runner of the workload's modes that returns the config error's message.
#pragma once

#include <string>

#include "workload_host.hpp"

namespace dgx::plugins::llm_finetune::testing {

class FinetuneHost : public dgx::testing::WorkloadHost {
public:
  FinetuneHost();

  /// Sets every config key of an embedded preset (llama70b-lora, ...), as the host's preset layer would.
  void use_preset(const std::string& name);

  /// Creates the workload and runs `mode` (explore or project): "" on success, else the config error's message.
  std::string run(const char* mode);

  /// The numeric metric `name` of emitted row `index`.
  [[nodiscard]] double metric(std::size_t index, const std::string& name) const;
};

}  // namespace dgx::plugins::llm_finetune::testing
