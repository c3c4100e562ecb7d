// Test helper: runs a program with arguments and captures its exit code, stdout and stderr separately.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace dgx::testing {

struct ProcessResult {
  int exit_code = -1;  // 128 + signal number when killed by a signal
  std::string out;
  std::string err;
};

/// Runs `program` with `args`; `env` entries are added to (or replace) the inherited environment.
ProcessResult run_process(const std::string& program, const std::vector<std::string>& args,
                          const std::map<std::string, std::string>& env = {});

}  // namespace dgx::testing
