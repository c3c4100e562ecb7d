#include "finetune_workload.hpp"

#include "assumptions.hpp"
#include "explore_mode.hpp"
#include "project_mode.hpp"

namespace dgx::plugins::llm_finetune {

namespace {

/// The settings with train.tokens set to what the job processes, so that the model's days, GPU-hours and cost
/// are the job's.
FinetuneSettings with_job(FinetuneSettings settings, const FinetuneJob& job) {
  settings.train.tokens = job.processed_tokens;
  return settings;
}

}  // namespace

FinetuneWorkload::FinetuneWorkload(dgx::sdk::Host& host)
    : host_(host), settings_(read_settings(host)), assumptions_(resolve_finetune_assumptions(settings_)),
      job_(resolve_job(settings_, assumptions_.model)), measure_(host_, with_job(settings_, job_), assumptions_, job_) {
  settings_ = with_job(settings_, job_);
}

void FinetuneWorkload::project(dgx::sdk::Mode mode) {
  if (mode == dgx::sdk::Mode::explore) {
    run_explore(host_, settings_, assumptions_, job_);
  } else {
    run_project(host_, settings_, assumptions_, job_);
  }
}

}  // namespace dgx::plugins::llm_finetune
