// The llm-finetune workload: reads and checks its configuration when created (unknown names, out-of-range values
// and settings the model cannot take are config errors before anything runs), then projects (one
// configuration), explores (methods x GPU counts x precisions x layouts), or — on a machine with a GPU, which
// auto mode then chooses — measures one layer as the method trains it and projects the cluster from it.
#pragma once

#include <dgx/sdk/workload.hpp>

#include "dgx/llm/plugin/assumptions.hpp"
#include "job.hpp"
#include "measure_mode.hpp"
#include "settings.hpp"

namespace dgx::plugins::llm_finetune {

class FinetuneWorkload final : public dgx::sdk::Workload {
public:
  explicit FinetuneWorkload(dgx::sdk::Host& host);
  void project(dgx::sdk::Mode mode) override;

  // Measure mode.
  void setup() override { measure_.setup(); }
  std::size_t case_count() override { return measure_.case_count(); }
  dgx::sdk::Case begin_case(std::size_t index) override { return measure_.begin_case(index); }
  void run(const dgx::sdk::SampleRequest& request, dgx::sdk::SampleResult& result) override {
    measure_.run(request, result);
  }
  void end_case(std::size_t index, const dgx::sdk::Stats& stats) override { measure_.end_case(index, stats); }

private:
  dgx::sdk::Host& host_;
  FinetuneSettings settings_;
  llm::plugin::Assumptions assumptions_;
  FinetuneJob job_;
  MeasureMode measure_;
};

}  // namespace dgx::plugins::llm_finetune
