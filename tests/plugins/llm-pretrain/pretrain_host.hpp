// Test helper: a WorkloadHost (tests/support) holding the llm-pretrain workload's defaults, with its presets.
#pragma once

#include <string>

#include "workload_host.hpp"

namespace dgx::plugins::llm_pretrain::testing {

class PretrainHost : public dgx::testing::WorkloadHost {
public:
  PretrainHost();

  /// Sets every config key of an embedded preset (llama70b, ...), as the host's preset layer would.
  void use_preset(const std::string& name);
};

}  // namespace dgx::plugins::llm_pretrain::testing
