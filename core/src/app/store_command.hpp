// Private to the host: the results store from the command line. `dgxhost store add FILE...` (results files, or
// logs that dgxhost import reads), `dgxhost store info`, and recording a run (--store, DGX_STORE): the store is
// opened before the run, so an unreachable one fails at once; a failure to record after the run names where its
// results are, so nothing is lost.
#pragma once

#include <optional>
#include <string>

#include "dgx/core/config/cli.hpp"
#include "dgx/core/results/document.hpp"
#include "dgx/core/support/expected.hpp"

namespace dgx {

/// The store a run records in: --store's (its "default", DGX_STORE's or the run-folder root's), else
/// DGX_STORE's; nullopt for none (or --store=off). A usage failure when --store asks for the default and there
/// is none (DGX_RUNS_DIR=off without DGX_STORE).
Expected<std::optional<std::string>> run_store_location(const CliOptions& options);

/// Before the run: the store can be opened (created, migrated) and written. Nothing to do without one.
std::optional<Failure> check_run_store(const CliOptions& options);

/// After the run (rank 0): records `report`; `source` says where its results are. A message when it could not
/// be recorded (the report is untouched; the caller decides the exit code).
std::optional<std::string> record_in_store(const CliOptions& options, const Report& report, const std::string& source);

/// `dgxhost store ...` (argv[0] is "store"); returns the exit code.
int run_store(int argc, const char* const* argv);

}  // namespace dgx
