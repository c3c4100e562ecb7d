// Errors as values inside the host: a value or a Failure (exit code + one-line message), on the SDK's one
// Expected template.
#pragma once

#include <string>
#include <utility>

#include <dgx/sdk/expected.hpp>

#include "dgx/core/support/exit_codes.hpp"

namespace dgx {

struct Failure {
  ExitCode code = ExitCode::run_failed;
  std::string message;
};

template <typename T> using Expected = sdk::Expected<T, Failure>;

// The failures most code returns: input the user can fix (exit 2), a plugin that cannot be used (exit 3).
inline Failure usage_failure(std::string message) { return {ExitCode::usage, std::move(message)}; }
inline Failure plugin_failure(std::string message) { return {ExitCode::no_plugin, std::move(message)}; }

}  // namespace dgx
