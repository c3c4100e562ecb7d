#include "dgx/core/app/launch_command.hpp"

#include <filesystem>
#include <iostream>

#include "dgx/core/app/mpijob_follow.hpp"
#include "dgx/core/app/mpijob_manifest.hpp"
#include "dgx/core/app/slurm_script.hpp"
#include "dgx/core/results/output_path.hpp"
#include "dgx/core/support/text.hpp"
#include "run_command.hpp"
#include "subcommand.hpp"

namespace dgx {

namespace {

// Writes the script or manifest into --output-dir (created if need be).
std::optional<Failure> write_job_file(const LaunchOptions& o, const std::string& content) {
  std::error_code ec;
  std::filesystem::create_directories(o.output_dir, ec);
  if (ec) {
    return Failure{ExitCode::usage, "dgxhost launch: cannot create --output-dir " + o.output_dir + ": " + ec.message()};
  }
  if (auto problem = write_file_atomically(o.script, content)) {
    return Failure{ExitCode::run_failed, "dgxhost launch: cannot write " + o.script + ": " + *problem};
  }
  if (o.scheduler == Scheduler::slurm) {
    std::filesystem::permissions(o.script, std::filesystem::perms::owner_exec, std::filesystem::perm_options::add, ec);
  }
  return std::nullopt;
}

int submit_slurm(const LaunchOptions& o) {
  auto submitted = submit_sbatch(o.script);
  if (!submitted) {
    return print_failure("error", submitted.error());
  }
  std::cout << submitted.value() << "\n";
  std::cout << "results: " << results_path(o, "<job id>") << "\n";
  return 0;
}

int submit_kubernetes(const LaunchOptions& o) {
  auto applied = apply_mpijob(o);
  if (!applied) {
    return print_failure("error", applied.error());
  }
  std::cout << applied.value() << "\n";
  if (o.k8s.wait) {
    return wait_for_mpijob(o);
  }
  const std::string ns = o.k8s.name_space.empty() ? "" : " -n " + o.k8s.name_space;
  std::cout << "follow with: kubectl get mpijob " << o.job_name << ns << " -w; its log: kubectl logs -f job/"
            << o.job_name << "-launcher" << ns << "\n";
  return 0;
}

}  // namespace

int run_launch(int argc, const char* const* argv) {
  auto options = parse_launch(argc, argv);
  if (!options) {
    return print_failure("error", options.error());
  }
  const LaunchOptions& o = options.value();
  if (o.help) {
    std::cout << launch_help();
    return 0;
  }
  // What the ranks will run, checked here first: a misspelt plugin or key fails now, not in the queue.
  if (o.check_ranks) {
    if (auto problem = validate_run(o.dgxhost_args)) {
      return print_failure("error", Failure{problem->code, "dgxhost launch: " + problem->message});
    }
  }
  const bool slurm = o.scheduler == Scheduler::slurm;
  const std::string content = slurm ? sbatch_script(o) : mpijob_yaml(o);
  if (o.dry_run) {
    std::cout << content;
    return 0;
  }
  if (auto problem = write_job_file(o, content)) {
    return print_failure("error", *problem);
  }
  std::cout << (slurm ? "sbatch script: " : "MPIJob manifest: ") << o.script << "\n";
  if (!o.submit) {
    std::cout << (slurm ? "submit with: sbatch " : "submit with: kubectl apply -f ") << text::shell_quote(o.script)
              << "\n";
    return 0;
  }
  return slurm ? submit_slurm(o) : submit_kubernetes(o);
}

}  // namespace dgx
