// Private to the host: `dgxhost --plugin platform-check`, whose steps and verdict platform_check.hpp defines. Each
// step goes through the ordinary run path (run_command.hpp) with --mode measure and --baseline published, and the
// reports merge into one; without a GPU the command prints the plan instead. Every rank calls it; rank 0 reports.
#pragma once

#include "session.hpp"

namespace dgx {

/// --describe: the steps, each with what it tells and its command.
int describe_platform_check(const Session& s);

/// Runs the steps, or makes the plan without a GPU, and emits one report; returns its exit code. Collective.
int run_platform_check(Session& s);

}  // namespace dgx
