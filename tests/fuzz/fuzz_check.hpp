// What every fuzz target asserts about a rejection: it carries one of the exit codes README.md documents
// (exit_codes.hpp) and a message saying why. Anything else stops the fuzzer with the input as a crash.
#pragma once

#include "dgx/core/support/exit_codes.hpp"
#include "dgx/core/support/expected.hpp"

namespace dgx::fuzz {

inline bool documented(ExitCode code) {
  switch (code) {
  case ExitCode::success:
  case ExitCode::run_failed:
  case ExitCode::usage:
  case ExitCode::no_plugin:
  case ExitCode::no_device:
  case ExitCode::check_failed:
  case ExitCode::plugin_crashed:
  case ExitCode::interrupted: return true;
  }
  return false;
}

template <typename T> void check_rejection(const Expected<T>& result) {
  if (!result && (!documented(result.error().code) || result.error().message.empty())) {
    __builtin_trap();
  }
}

}  // namespace dgx::fuzz
