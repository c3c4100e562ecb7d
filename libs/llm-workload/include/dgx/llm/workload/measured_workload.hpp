// A workload whose measure mode is one object (the plugin's MeasureMode, with setup, case_count, begin_case, run and
// end_case of the SDK's shape): the SDK's measure calls go to it; the plugin keeps project() and its own state.
// Shared by the LLM plugins (llm-pretrain, llm-finetune, llm-inference).
#pragma once

#include <cstddef>

#include <dgx/sdk/workload.hpp>

namespace dgx::llm::workload {

template <class Measure> class MeasuredWorkload : public dgx::sdk::Workload {
public:
  void setup() override { measure().setup(); }
  std::size_t case_count() override { return measure().case_count(); }
  dgx::sdk::Case begin_case(std::size_t index) override { return measure().begin_case(index); }
  void run(const dgx::sdk::SampleRequest& request, dgx::sdk::SampleResult& result) override {
    measure().run(request, result);
  }
  void end_case(std::size_t index, const dgx::sdk::Stats& stats) override { measure().end_case(index, stats); }

protected:
  /// The measure mode the calls above go to.
  [[nodiscard]] virtual Measure& measure() = 0;
};

}  // namespace dgx::llm::workload
