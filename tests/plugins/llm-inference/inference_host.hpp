// Test helper: the workload host (tests/support/workload_host.hpp) with the llm-inference workload's defaults, and its
// embedded presets applied as the host's preset layer would.
#pragma once

#include <string>

#include "workload_host.hpp"

namespace dgx::plugins::llm_inference::testing {

class InferenceHost : public dgx::testing::WorkloadHost {
public:
  InferenceHost();

  /// Sets every config key of an embedded preset (llama70b-serve, ...).
  void use_preset(const std::string& name);
};

/// A host for the llm-decode workload's schema.
class DecodeHost : public dgx::testing::WorkloadHost {
public:
  DecodeHost();
};

}  // namespace dgx::plugins::llm_inference::testing
