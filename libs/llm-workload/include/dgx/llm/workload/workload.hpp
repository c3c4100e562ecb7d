// The SDK workload every LLM plugin is built on. `Job`, the plugin's own part, is read from the configuration and
// resolved when the workload is created, so unknown names and out-of-range values are configuration errors before
// anything runs. --mode project and explore call the job; measure mode's calls go to a `Job::Measure` built from the
// job (measuring may project another system: the measured device's).
//
// A Job provides:
//   explicit Job(const dgx::sdk::Host&)        reads and checks its settings, resolves its assumptions
//   void project(const dgx::sdk::Host&) const  --mode project: one configuration
//   void explore(const dgx::sdk::Host&) const  --mode explore: the space
//   Job::Measure                               constructible from (const dgx::sdk::Host&, const Job&), with
//                                              setup, case_count, begin_case, run and end_case of the SDK's shape
// The training jobs derive from Training (training.hpp), whose Measure is TrainingMeasure.
#pragma once

#include <cstddef>

#include <dgx/sdk/host.hpp>
#include <dgx/sdk/workload.hpp>

namespace dgx::llm::workload {

template <class Job> class Workload final : public dgx::sdk::Workload {
public:
  explicit Workload(dgx::sdk::Host& host) : host_(host), job_(host), measure_(host, job_) {}

  void setup() override { measure_.setup(); }
  std::size_t case_count() override { return measure_.case_count(); }
  dgx::sdk::Case begin_case(std::size_t index) override { return measure_.begin_case(index); }
  void run(const dgx::sdk::SampleRequest& request, dgx::sdk::SampleResult& result) override {
    measure_.run(request, result);
  }
  void end_case(std::size_t index, const dgx::sdk::Stats& stats) override { measure_.end_case(index, stats); }

  void project(dgx::sdk::Mode mode) override {
    if (mode == dgx::sdk::Mode::explore) {
      job_.explore(host_);
    } else {
      job_.project(host_);
    }
  }

  /// The job as the configuration resolved it.
  [[nodiscard]] const Job& job() const { return job_; }

private:
  dgx::sdk::Host& host_;
  Job job_;
  typename Job::Measure measure_;
};

}  // namespace dgx::llm::workload
