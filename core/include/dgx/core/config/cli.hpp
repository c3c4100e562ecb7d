// The dgxhost command line (Boost.Program_options).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dgx/core/support/expected.hpp"

namespace dgx {

/// What --mode asked for. `automatic` measures when the workload can run here and projects otherwise.
enum class RequestedMode { automatic, measure, project, explore };

/// "auto", "measure", "project", "explore": the spelling --mode takes and results record.
std::string_view to_string(RequestedMode mode);

struct CliOptions {
  bool help = false;
  bool version = false;
  bool list = false;
  bool describe = false;
  bool allow_insecure_plugins = false;
  bool quiet = false;
  int verbose = 0;
  std::string plugin;  // a preset, workload or plugin name
  RequestedMode mode = RequestedMode::automatic;
  std::string format = "table";
  std::string output;
  std::string run_dir;   // --run-dir: where measure mode keeps its journal
  std::string resume;    // --resume: the run folder to complete
  std::string baseline;  // --baseline: "published" or a results file (baseline.hpp)
  std::string store;     // --store: record the run in this store ("default": DGX_STORE or the run-folder root's;
                         // "off": not even in DGX_STORE's); empty: DGX_STORE's, when set
  std::vector<std::string> config_files;
  std::vector<std::string> sets;
  std::string emit;         ///< --emit DIR: the folder of the files a workload writes (write_output_file)
  std::string emit_launch;  ///< --emit-launch DIR: the deprecated spelling of --emit (copied into `emit`)
  std::vector<std::string> plugin_dirs;
  std::vector<std::string> config_dirs;
  /// One-letter options dgxhost does not define (`-b 8`): the workload's aliases, resolved once it is known.
  std::vector<std::pair<std::string, std::string>> aliases;
  std::vector<std::string> argv;
};

/// Parses argv; a usage failure names the bad option (and a close match).
Expected<CliOptions> parse_cli(int argc, const char* const* argv);

/// A usage failure when an argument holds one of Boost.Program_options' message placeholders (%option%, ...):
/// its error messages substitute them in a loop that never ends when the substituted text contains the
/// placeholder itself (Boost 1.74 error_with_option_name::replace_token; found by tests/fuzz/fuzz_cli).
std::optional<Failure> refuse_parser_placeholders(int argc, const char* const* argv);

/// The --help text.
std::string cli_help();

}  // namespace dgx
