// `dgxhost launch --scheduler kubernetes`: a Kubeflow MPI Operator MPIJob (kubeflow.org/v2beta1) that runs one
// dgxhost rank per GPU. Worker pods (one per node) request the GPUs and the RDMA devices, get IPC_LOCK and a
// memory-backed /dev/shm, and run sshd; the launcher, created once every worker is ready, runs mpirun with
// slotsPerWorker = GPUs per node. Rank 0 writes the results into /dgx-results (a PersistentVolumeClaim with
// --results-pvc, else the pod's own folder) and the launcher prints them to its log between two marker lines,
// where `--wait` (mpijob_follow.hpp) collects them. The image must hold dgxhost (by default at
// /usr/local/bin/dgxhost, with its plugins and configs beside it), Open MPI and an SSH server.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "dgx/core/app/launch_options.hpp"
#include "dgx/core/support/expected.hpp"
#include "dgx/json/json.hpp"

namespace dgx {

/// Where the results are in every pod.
inline constexpr std::string_view kPodResultsDir = "/dgx-results";

/// The launcher's log holds the results file between a line "<kResultsBegin><file name>" and a line kResultsEnd.
inline constexpr std::string_view kResultsBegin = "dgxhost launch: results file ";
inline constexpr std::string_view kResultsEnd = "dgxhost launch: end of results";

/// The default MPIJob name for a plugin: "dgx-" and the plugin's name in lower case, '_' and '.' as '-'.
std::string mpijob_name_for(const std::string& plugin);

/// Kubernetes' checks of `options`: --container given and an image reference; the job name such that its pods'
/// names (<name>-worker-<n>) are DNS-1035 labels, as the operator requires; the namespace a DNS label; the other
/// names (scheduler, priority class, queue, PVC, secrets, service account) DNS subdomains; the RDMA resource a
/// resource name with its domain; --min-available a gang that can run. --wait implies --submit.
std::optional<Failure> complete_mpijob(LaunchOptions& options);

/// The launcher's shell script: mpirun over every slot, then the results file between the markers; it exits with
/// mpirun's code.
std::string launcher_script(const LaunchOptions& options);

/// The MPIJob.
json::Value mpijob_manifest(const LaunchOptions& options);

/// The MPIJob as YAML, after comments saying what it runs and what the image must hold.
std::string mpijob_yaml(const LaunchOptions& options);

}  // namespace dgx
