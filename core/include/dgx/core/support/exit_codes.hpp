// dgxhost's exit codes: documented in README.md ("Exit codes"); scripts rely on them.
#pragma once

namespace dgx {

enum class ExitCode : int {
  success = 0,
  run_failed = 1,      // a workload failed while running; results gathered so far are still written
  usage = 2,           // bad command line or configuration (unknown key, wrong type, invalid value)
  no_plugin = 3,       // the named plugin/workload/preset is not available, or no plugin could be loaded
  no_device = 4,       // measure mode needs a device (GPU, driver) that is not present
  check_failed = 5,    // a correctness check of the results failed
  plugin_crashed = 6,  // a plugin crashed inside one of its calls; finished cases are in the run's journal
  interrupted = 130,   // stopped by SIGINT/SIGTERM; partial results are written
};

constexpr int to_int(ExitCode code) { return static_cast<int>(code); }

}  // namespace dgx
