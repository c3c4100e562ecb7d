// Test helper of the dgxhost launch tests: a command line parsed as `dgxhost launch LEADING... ARGS...`, and the
// message of one that must be refused as a usage error.
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "dgx/core/app/launch_options.hpp"

namespace dgx::testing {

inline Expected<LaunchOptions> parse_launch_args(std::vector<const char*> args,
                                                 const std::vector<const char*>& leading = {}) {
  args.insert(args.begin(), leading.begin(), leading.end());
  args.insert(args.begin(), "launch");
  return parse_launch(static_cast<int>(args.size()), args.data());
}

inline std::string launch_usage_message(std::vector<const char*> args, const std::vector<const char*>& leading = {}) {
  auto o = parse_launch_args(std::move(args), leading);
  REQUIRE_FALSE(o);
  CHECK(o.error().code == ExitCode::usage);
  return o.error().message;
}

}  // namespace dgx::testing
