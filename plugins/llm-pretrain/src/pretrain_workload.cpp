#include "pretrain_workload.hpp"

#include "explore_mode.hpp"
#include "project_mode.hpp"

namespace dgx::plugins::llm_pretrain {

PretrainWorkload::PretrainWorkload(dgx::sdk::Host& host)
    : host_(host), settings_(read_settings(host)), assumptions_(resolve_assumptions(settings_)),
      measure_(host_, settings_, assumptions_) {}

void PretrainWorkload::project(dgx::sdk::Mode mode) {
  if (mode == dgx::sdk::Mode::explore) {
    run_explore(host_, settings_, assumptions_);
  } else {
    run_project(host_, settings_, assumptions_);
  }
}

}  // namespace dgx::plugins::llm_pretrain
