// Test helper for the plugins' end-to-end tests: runs the dgxhost executable under test (DGX_TEST_DGXHOST, defined
// by the test target) with a plugin, as a user on a machine without GPUs runs it, and reads what it prints.
#pragma once

#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <vector>

#include "dgx/core/support/json.hpp"
#include "process.hpp"
#include "sanitized.hpp"

namespace dgx::testing {

/// Runs dgxhost, or `program` (a copy of it elsewhere), with `args`.
inline ProcessResult dgxhost(const std::vector<std::string>& args, const std::string& program = DGX_TEST_DGXHOST) {
  return run_process(program, args);
}

/// A dgxhost run and how long it took, wall clock.
struct TimedRun {
  ProcessResult result;
  double seconds = 0;
};

inline TimedRun timed_dgxhost(const std::vector<std::string>& args) {
  const auto start = std::chrono::steady_clock::now();
  TimedRun run{dgxhost(args)};
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

/// The issues' "answers in under a second without a GPU": checked at 5 s, room for a loaded CI runner (well under a
/// second on an idle machine). Not under the sanitizers (sanitized.hpp): the default build's run checks it.
inline void check_answers_fast(const TimedRun& run) {
  if (!kSanitized) CHECK_MESSAGE(run.seconds < 5, "dgxhost took " << run.seconds << " s");
}

/// `--plugin plugin` followed by `args`: the command line of one case of a table of inputs.
inline std::vector<std::string> with_plugin(const std::string& plugin, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"--plugin", plugin};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

inline bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// The value of metric `name` in a row of dgxhost's --format json.
inline double metric(const dgx::json::Value& row, const char* name) {
  return row["metrics"][name]["value"].as_number();
}

/// The document a successful `--format json` run printed; a failed run fails the test with its stderr.
inline dgx::json::Value json_of(const ProcessResult& r) {
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  return dgx::json::parse(r.out);
}

}  // namespace dgx::testing
