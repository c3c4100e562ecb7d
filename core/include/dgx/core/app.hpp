// The dgxhost program: command line -> plugin discovery -> configuration -> mode -> results -> report.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dgx/core/expected.hpp"

namespace dgx {

/// What `dgxhost ARGS` would do up to the run, without running: the command line, the plugin and the whole
/// configuration resolve. `dgxhost launch` checks the ranks' arguments with it before writing a script.
std::optional<Failure> validate_run(const std::vector<std::string>& args);

/// Runs dgxhost and returns its exit code (see exit_codes.hpp).
int run_app(int argc, const char* const* argv);

}  // namespace dgx
