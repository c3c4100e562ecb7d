// The llm-inference workload: reads and checks its configuration when created (unknown names and out-of-range values
// are config errors before anything runs), then projects one configuration, explores the space, or — on a machine
// with a GPU, which auto mode then chooses — measures a layer's serving iterations and projects the replica from
// them.
#pragma once

#include <dgx/sdk/workload.hpp>

#include "assumptions.hpp"
#include "measure_mode.hpp"
#include "settings.hpp"

namespace dgx::plugins::llm_inference {

class InferenceWorkload final : public dgx::sdk::Workload {
public:
  explicit InferenceWorkload(dgx::sdk::Host& host);
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
  InferenceSettings settings_;
  Assumptions assumptions_;
  MeasureMode measure_;
};

}  // namespace dgx::plugins::llm_inference
