// What `dgxhost launch` shares between its schedulers: the options, their checks, the ranks' command line and
// where the results go. One file per scheduler turns them into what it runs: slurm_script.hpp (an sbatch script)
// and mpijob_manifest.hpp (a Kubeflow MPI Operator MPIJob); launch_command.hpp is the command.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dgx/core/support/expected.hpp"

namespace dgx {

enum class Scheduler { slurm, kubernetes };

/// The options of --scheduler kubernetes (mpijob_manifest.hpp says where each one goes in the MPIJob).
struct KubernetesOptions {
  std::string name_space;     // --namespace; empty: kubectl's current one
  std::string rdma_resource;  // --rdma-resource, e.g. rdma/ib or nvidia.com/hostdev
  int rdma_count = 0;         // --rdma-count: of rdma_resource per worker pod (1 when only the name is given)
  std::string scheduler_name, priority_class, queue, service_account, results_pvc;
  int min_available = 0;  // --min-available; 0: the operator's default (every worker)
  std::vector<std::string> image_pull_secrets;
  bool wait = false;            // --wait: follow the job to its end and collect the results
  long wait_timeout_s = 86400;  // --wait-timeout
  double poll_interval_s = 10;  // --poll-interval
};

struct LaunchOptions {
  Scheduler scheduler = Scheduler::slurm;
  int nodes = 1;
  int gpus_per_node = 8;
  int tasks_per_node = -1;  // default: one per GPU, or 1 without GPUs
  std::string partition, time, account, container, container_mounts, job_name;
  long time_s = 0;  // --time in seconds (0: none)
  std::string output_dir = "dgx-runs";
  std::string script;  // where to write the sbatch script or the manifest; default <output_dir>/<job name>.sbatch|.yaml
  std::string dgxhost;         // the executable the ranks run; default: this one, or in an image /usr/local/bin/dgxhost
  bool check_ranks = true;     // the ranks run this dgxhost (or its copy in the image): check their args
  std::string dgxhost_prefix;  // Slurm --container: this dgxhost's install prefix, mounted into the image
  std::vector<std::string> env;  // --env NAME=VALUE, set for every rank
  KubernetesOptions k8s;
  bool submit = false;
  bool dry_run = false;                   // --dry-run: print the script, write nothing
  bool help = false;                      // --help: print launch_help() and do nothing else
  std::vector<std::string> dgxhost_args;  // --plugin NAME and the rest, passed to every rank
};

/// Where dgxhost is in an image by default: installed with `cmake --install BUILD --prefix /usr/local`.
inline constexpr const char* kImageDgxhost = "/usr/local/bin/dgxhost";

/// Parses `dgxhost launch ...` (argv[0] is "launch") with Program_options; arguments it does not know are passed
/// to the ranks. With --help only `help` is set.
Expected<LaunchOptions> parse_launch(int argc, const char* const* argv);

/// The JSON file rank 0 writes: <output dir>/<job name>-<job id>.json, with the job id left to the batch shell.
std::string results_path(const LaunchOptions& options, const std::string& job_id = "${SLURM_JOB_ID}");

/// The text of dgxhost launch --help.
std::string launch_help();

/// The command line every rank runs, for a POSIX shell: dgxhost, its arguments, `--output "$results"` (the
/// shell variable holding the results file).
std::string rank_command(const LaunchOptions& options);

/// Seconds of a Slurm time limit ("30" minutes, "MM:SS", "HH:MM:SS", "D-HH", "D-HH:MM", "D-HH:MM:SS"); nullopt
/// when `text` is none of these.
std::optional<long> slurm_time_seconds(const std::string& text);

/// The plugin the ranks run (--plugin NAME in their arguments); empty if none.
std::string plugin_name(const std::vector<std::string>& args);

}  // namespace dgx
