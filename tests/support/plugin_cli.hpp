// Test helper for the plugins' end-to-end tests: runs the dgxhost executable under test (DGX_TEST_DGXHOST, defined
// by the test target) with a plugin, as a user on a machine without GPUs runs it, and reads what it prints.
#pragma once

#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "dgx/json/json.hpp"
#include "process.hpp"
#include "sanitized.hpp"
#include "text_checks.hpp"

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

/// The issues' "answers in under a second without a GPU": the CPU time the answer cost, which a loaded machine does
/// not stretch as it does the wall time, checked at 5 s (well under a second on any machine). Not under the
/// sanitizers (sanitized.hpp): the default build's run checks it.
inline void check_answers_fast(const TimedRun& run) {
  if (!kSanitized) {
    CHECK_MESSAGE(run.result.cpu_seconds < 5, "dgxhost spent " << run.result.cpu_seconds << " s of CPU time ("
                                                               << run.seconds << " s of wall time)");
  }
}

/// Runs dgxhost with `args` as a user without a GPU would, requires it to succeed fast (check_answers_fast), and
/// returns what it printed.
inline std::string fast_answer(const std::vector<std::string>& args) {
  const TimedRun run = timed_dgxhost(args);
  REQUIRE_MESSAGE(run.result.exit_code == 0, run.result.err);
  check_answers_fast(run);
  return run.result.out;
}

/// `--plugin plugin` followed by `args`: the command line of one case of a table of inputs.
inline std::vector<std::string> with_plugin(const std::string& plugin, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"--plugin", plugin};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

/// A table of inputs: each case's arguments, and the reason a configuration error names.
using ConfigErrorCases = std::vector<std::pair<std::vector<std::string>, std::string>>;

/// Every case, after `--plugin plugin`, exits 2 (a configuration error) with its reason on stderr.
inline void check_config_errors(const std::string& plugin, const ConfigErrorCases& cases) {
  // Named members, not a structured binding: CHECK_MESSAGE's lambda captures them, which clang 14 rejects.
  for (const auto& c : cases) {
    const auto& args = c.first;
    const auto& reason = c.second;
    const ProcessResult r = dgxhost(with_plugin(plugin, args));
    CHECK_MESSAGE(r.exit_code == 2, args.back());
    CHECK_MESSAGE(has(r.err, reason), r.err);
  }
}

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
