// Private to the host: what the subcommands that read results rather than run a workload (`dgxhost compare`,
// `import`, `verdict`) share: their --format and --output options, the check of both before any work, writing the
// file and then stdout, their command line (positional files, a usage failure naming the command) and the argv their
// report's context records.
#pragma once

#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "dgx/core/results/document.hpp"
#include "dgx/core/results/format.hpp"
#include "dgx/core/support/expected.hpp"
#include "dgx/json/json.hpp"

namespace dgx {

struct SubcommandOutput {
  std::string format = "table";
  std::string output;
  Format shown = Format::table;    // stdout's, once checked
  Format written = Format::table;  // the --output file's, once checked
};

/// Adds --format and --output (-o) to `options`; `what` says what the file receives ("the comparison").
void add_output_options(boost::program_options::options_description& options, SubcommandOutput& out,
                        const std::string& what);

/// Adds --config-dir (repeatable): folders searched for catalog files (a user's models/ and systems/) before
/// DGX_CONFIG_PATH and the install's configs, as for a run. use_config_dirs (session.hpp) applies them.
void add_config_dir_option(boost::program_options::options_description& options, std::vector<std::string>& dirs);

/// After parsing: --output given without a file, an unknown --format, or an --output that cannot be written (its
/// folder, its extension) are usage failures naming `command`, before any work is done. Sets `shown` and `written`.
std::optional<Failure> check_output(const boost::program_options::variables_map& vm, SubcommandOutput& out,
                                    const std::string& command);

/// Parses a subcommand's command line into the variables `options` point at and its positional arguments into
/// `files` (at most `max_files`; -1: any number; nullptr: none taken), then check_output. A usage failure naming
/// `command` and its --help.
std::optional<Failure> parse_subcommand(int argc, const char* const* argv,
                                        const boost::program_options::options_description& options,
                                        SubcommandOutput& out, const std::string& command, int max_files,
                                        std::vector<std::string>* files);

/// The file first (so that what stdout says includes whether it could be written), then stdout; the report's exit
/// code, 1 when the file could not be written; a failed report's error also on stderr when stdout is not a table.
int emit_subcommand_report(Report& report, const SubcommandOutput& out);

/// A subcommand's failure before it has a report: "dgxhost: <prefix>: <message>" on stderr; returns its exit code.
int print_failure(const std::string& prefix, const Failure& failure);

/// A subcommand report's context: {"dgxhost": dgxhost_identity(), "workload", "argv"}.
json::Object subcommand_context(const std::string& workload, int argc, const char* const* argv);

/// The command line as the context records it: "dgxhost", the subcommand and its arguments (argv[0] is the
/// subcommand).
json::Array command_argv(int argc, const char* const* argv);

}  // namespace dgx
