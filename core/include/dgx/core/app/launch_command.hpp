// `dgxhost launch`: runs a workload on many nodes through the engines users already run, Slurm (the default) or
// Kubernetes with the Kubeflow MPI Operator. It checks what the ranks will run, writes an sbatch script
// (slurm_script.hpp) or an MPIJob manifest (mpijob_manifest.hpp) that starts one dgxhost rank per GPU and gathers
// the results into one JSON file; --submit hands it to sbatch or `kubectl apply`, and with Kubernetes --wait
// follows the job and collects its results (mpijob_follow.hpp). The options: launch_options.hpp.
#pragma once

#include "dgx/core/app/launch_options.hpp"

namespace dgx {

/// The `launch` subcommand; returns the exit code.
int run_launch(int argc, const char* const* argv);

}  // namespace dgx
