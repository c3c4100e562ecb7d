// `dgxhost launch`: runs a workload on many nodes through Slurm, the engine users already run. It writes an
// sbatch script that starts one dgxhost rank per GPU with `srun --mpi=pmix` (GPU-bound, killed together if one
// fails) and gathers the results into one JSON file; with --submit it also submits the script.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dgx/core/support/expected.hpp"

namespace dgx {

struct LaunchOptions {
  int nodes = 1;
  int gpus_per_node = 8;
  int tasks_per_node = -1;  // default: one per GPU, or 1 without GPUs
  std::string partition, time, account, container, container_mounts, job_name;
  std::string output_dir = "dgx-runs";
  std::string script;   // where to write the script; default <output_dir>/<job name>.sbatch
  std::string dgxhost;  // the executable the ranks run; default: this one
  bool submit = false;
  bool dry_run = false;                   // --dry-run: print the script, write nothing
  bool help = false;                      // --help: print launch_help() and do nothing else
  std::vector<std::string> dgxhost_args;  // --plugin NAME and the rest, passed to every rank
};

/// Parses `dgxhost launch ...` (argv[0] is "launch") with Program_options; arguments it does not know are passed
/// to the ranks. With --help only `help` is set.
Expected<LaunchOptions> parse_launch(int argc, const char* const* argv);

/// The JSON file rank 0 writes: <output dir>/<job name>-<job id>.json, with the job id left to the batch shell.
std::string results_path(const LaunchOptions& options, const std::string& job_id = "${SLURM_JOB_ID}");

/// The text of dgxhost launch --help.
std::string launch_help();

/// The sbatch script for `options`.
std::string sbatch_script(const LaunchOptions& options);

/// Quotes a word for a POSIX shell.
std::string shell_quote(const std::string& word);

/// The `launch` subcommand; returns the exit code.
int run_launch(int argc, const char* const* argv);

}  // namespace dgx
