// Private to the host: the run command, `dgxhost --plugin NAME [options]`. Every rank resolves the workload and
// its configuration (session.hpp), checks that it got the same run as rank 0, then with --describe prints the
// keys, else chooses the mode, creates the instance, runs it and reports; rank 0 reports.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dgx/core/config/layered_config.hpp"
#include "dgx/core/plugin/plugin_registry.hpp"
#include "dgx/core/results/document.hpp"
#include "dgx/core/support/expected.hpp"
#include "session.hpp"

namespace dgx {

class RunFolder;

/// The run command; returns the exit code. Collective.
int run_command(Session& s);

/// What `dgxhost ARGS` would do up to the run, without running: the command line, the plugin and the whole
/// configuration resolve. `dgxhost launch` checks the ranks' arguments with it before writing a script.
std::optional<Failure> validate_run(const std::vector<std::string>& args);

/// Runs the resolved workload into `report` (with --baseline, every row gets its verdict); an exit code instead
/// when the run ended before there was a report to emit. A measured run opens its run folder into `*folder`;
/// nullptr keeps none (the platform check's steps). Collective.
std::optional<int> run_to_report(Session& s, const Target& target, const ResolvedConfig& config, Report& report,
                                 std::unique_ptr<RunFolder>* folder);

/// Rank 0 writes the run folder's results, the --output file, then stdout; returns the report's exit code, which
/// becomes non-zero when the results file could not be written.
int emit_report(const Session& s, Report& report, const RunFolder* folder = nullptr);

}  // namespace dgx
