// Errors as values inside the host: a value or a Failure (exit code + one-line message), on the SDK's one
// Expected template.
#pragma once

#include <string>

#include <dgx/sdk/expected.hpp>

#include "dgx/core/support/exit_codes.hpp"

namespace dgx {

struct Failure {
  ExitCode code = ExitCode::run_failed;
  std::string message;
};

template <typename T> using Expected = sdk::Expected<T, Failure>;

}  // namespace dgx
