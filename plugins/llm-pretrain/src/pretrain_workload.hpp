// The llm-pretrain workload: reads and checks its configuration when created (unknown names and out-of-range
// values are config errors before anything runs), then projects (one configuration) or explores (the space).
// It has no measure mode yet, so the host's auto mode explores on every machine.
#pragma once

#include <dgx/sdk/workload.hpp>

#include "assumptions.hpp"
#include "settings.hpp"

namespace dgx::pretrain {

class PretrainWorkload final : public dgx::sdk::Workload {
public:
  explicit PretrainWorkload(dgx::sdk::Host& host);
  void project(dgx::sdk::Mode mode) override;

private:
  dgx::sdk::Host& host_;
  PretrainSettings settings_;
  Assumptions assumptions_;
};

} // namespace dgx::pretrain
