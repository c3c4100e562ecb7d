// The llm-pretrain workload: reads and checks its configuration when created (unknown names and out-of-range
// values are config errors before anything runs), then projects (one configuration), explores (the space), or —
// on a machine with a GPU, which auto mode then chooses — measures one layer and projects the cluster from it.
#pragma once

#include <memory>

#include <dgx/sdk/workload.hpp>

#include "assumptions.hpp"
#include "dgx/llm/workload/measured_workload.hpp"
#include "measure_mode.hpp"
#include "settings.hpp"

namespace dgx::plugins::llm_pretrain {

class PretrainWorkload final : public llm::workload::MeasuredWorkload<MeasureMode> {
public:
  explicit PretrainWorkload(dgx::sdk::Host& host);
  void project(dgx::sdk::Mode mode) override;

private:
  MeasureMode& measure() override { return measure_; }

  dgx::sdk::Host& host_;
  PretrainSettings settings_;
  Assumptions assumptions_;
  MeasureMode measure_;
};

}  // namespace dgx::plugins::llm_pretrain
