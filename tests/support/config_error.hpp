// Test helper: the message of the configuration error a call raises, so that a test can check what a user is told.
// The workloads report bad input as dgx::sdk::InvalidArgument (the host's exit 2); any other exception is a bug and
// is left to fail the test.
#pragma once

#include <string>
#include <utility>

#include <dgx/sdk/error.hpp>

namespace dgx::testing {

/// The message of the dgx::sdk::InvalidArgument that `call` throws, or "" when it returns normally.
template <class Call> std::string config_error_of(Call&& call) {
  try {
    std::forward<Call>(call)();
  } catch (const dgx::sdk::InvalidArgument& e) {
    return e.what();
  }
  return "";
}

}  // namespace dgx::testing
