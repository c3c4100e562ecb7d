// The llm-inference workload: reads and checks its configuration when created (unknown names and out-of-range values
// are config errors before anything runs), then projects one configuration, explores the space, or — on a machine
// with a GPU, which auto mode then chooses — measures a layer's serving iterations and projects the replica from
// them.
#pragma once

#include <dgx/sdk/workload.hpp>

#include "assumptions.hpp"
#include "dgx/llm/workload/measured_workload.hpp"
#include "measure_mode.hpp"
#include "settings.hpp"

namespace dgx::plugins::llm_inference {

class InferenceWorkload final : public llm::workload::MeasuredWorkload<MeasureMode> {
public:
  explicit InferenceWorkload(dgx::sdk::Host& host);
  void project(dgx::sdk::Mode mode) override;

private:
  MeasureMode& measure() override { return measure_; }

  dgx::sdk::Host& host_;
  InferenceSettings settings_;
  Assumptions assumptions_;
  MeasureMode measure_;
};

}  // namespace dgx::plugins::llm_inference
