// Running the tools `dgxhost launch` hands a job to (sbatch, kubectl) as a user would: found on PATH, their stderr
// straight to ours (their own messages are the clearest), their stdout captured for us to read.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "dgx/core/support/expected.hpp"

namespace dgx {

struct ProgramOutput {
  int exit_code = -1;  // 128 + the signal's number when a signal ended it
  std::string out;     // its stdout
};

/// Runs argv[0], looked up on PATH, with `argv`, and waits for it. A failure (exit code 1) only when it could not
/// be started, or wrote more than `max_bytes` to stdout; its own exit code is the caller's to judge.
Expected<ProgramOutput> run_program(const std::vector<std::string>& argv, std::size_t max_bytes = std::size_t{1} << 30);

}  // namespace dgx
