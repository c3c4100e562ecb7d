// --mode project: one configuration (gpus, precision[0], parallel.*, train.*) -> one projected row of table
// "project", with the assumptions before it and the step-time and memory breakdowns after it.
#pragma once

#include <dgx/sdk/host.hpp>

#include "assumptions.hpp"
#include "settings.hpp"

namespace dgx::pretrain {

/// Emits the row and notes. Throws dgx::sdk::InvalidArgument when the layout is invalid for the model and
/// system or does not fit in memory, with the performance model's reason.
void run_project(const dgx::sdk::Host& host, const PretrainSettings& settings, const Assumptions& assumptions);

}  // namespace dgx::pretrain
