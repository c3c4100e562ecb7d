// --mode project: one configuration (the first method and precision, gpus, parallel.*, train.*) -> one row of
// table "project", with the step-time and memory breakdowns and the FLOP convention as notes. A configuration that
// does not fit says so, and at which GPU count the method would.
#pragma once

#include <dgx/sdk/host.hpp>

#include "dgx/llm/workload/assumptions.hpp"
#include "job.hpp"
#include "settings.hpp"

namespace dgx::plugins::llm_finetune {

/// Emits the row and notes. Throws dgx::sdk::InvalidArgument when the configuration is invalid or does not fit.
void run_project(const dgx::sdk::Host& host, const FinetuneSettings& settings,
                 const llm::workload::Assumptions& assumptions, const FinetuneJob& job);

}  // namespace dgx::plugins::llm_finetune
