// Test helper: the schema host (tests/support/schema_host.hpp) with the llm-pretrain workload's defaults, and its
// presets applied key by key.
#pragma once

#include <string>

#include "schema_host.hpp"

namespace dgx::plugins::llm_pretrain::testing {

class PretrainHost : public dgx::testing::SchemaHost {
public:
  PretrainHost();

  /// Sets every config key of an embedded preset (llama70b, ...), as the host's preset layer would.
  void use_preset(const std::string& name);
};

}  // namespace dgx::plugins::llm_pretrain::testing
