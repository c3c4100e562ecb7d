// The llm-finetune workload: reads and checks its configuration when created (unknown names, out-of-range values
// and settings the model cannot take are config errors before anything runs), then projects (one
// configuration), explores (methods x GPU counts x precisions x layouts), or — on a machine with a GPU, which
// auto mode then chooses — measures one layer as the method trains it and projects the cluster from it.
#pragma once

#include <dgx/sdk/workload.hpp>

#include "dgx/llm/workload/assumptions.hpp"
#include "dgx/llm/workload/measured_workload.hpp"
#include "job.hpp"
#include "measure_mode.hpp"
#include "settings.hpp"

namespace dgx::plugins::llm_finetune {

class FinetuneWorkload final : public llm::workload::MeasuredWorkload<MeasureMode> {
public:
  explicit FinetuneWorkload(dgx::sdk::Host& host);
  void project(dgx::sdk::Mode mode) override;

private:
  MeasureMode& measure() override { return measure_; }

  dgx::sdk::Host& host_;
  FinetuneSettings settings_;
  llm::workload::Assumptions assumptions_;
  FinetuneJob job_;
  MeasureMode measure_;
};

}  // namespace dgx::plugins::llm_finetune
