// `dgxhost launch --scheduler kubernetes --submit` and `--wait`: hands the MPIJob's manifest to `kubectl apply`,
// follows the job through its status conditions (`kubectl get mpijob NAME -o json`), then collects what the
// launcher printed to its log (`kubectl logs job/NAME-launcher`): the results file between the markers of
// mpijob_manifest.hpp, written into --output-dir with the log beside it.
#pragma once

#include <string>
#include <string_view>

#include "dgx/core/app/launch_options.hpp"
#include "dgx/core/support/expected.hpp"

namespace dgx {

/// Where an MPIJob is, from its status conditions.
struct MpiJobState {
  std::string phase;      // the type of the last condition that is "True": Created, Running, Restarting, Succeeded, ...
  bool finished = false;  // a Succeeded or Failed condition is "True"
  bool succeeded = false;       // that one is Succeeded
  std::string reason, message;  // of the condition `phase` names
};

/// The state in the output of `kubectl get mpijob NAME -o json`; a failure (exit code 1) naming what is wrong for
/// text that is not an MPIJob's JSON.
Expected<MpiJobState> mpijob_state(std::string_view kubectl_json);

/// The results file a launcher's log holds.
struct LoggedResults {
  std::string file_name;  // as the launcher named it: <job name>-<UTC time>.json
  std::string json;
};

/// The results file between the markers in `log`; a failure naming what is missing when the log has no complete
/// one, or names it other than "<job_name>-....json" (a plain file name: it becomes a path here).
Expected<LoggedResults> results_from_log(std::string_view log, const std::string& job_name);

/// `kubectl apply -f <manifest>`: kubectl's line ("mpijob.kubeflow.org/NAME created"). A failure when kubectl
/// cannot run (naming the manifest to apply by hand), fails, or leaves an MPIJob of that name as it was.
Expected<std::string> apply_mpijob(const LaunchOptions& options);

/// Follows the submitted MPIJob until it ends or --wait-timeout passes, printing each change on stderr, then
/// collects the launcher's log and the results into --output-dir. The run's exit code: the results' own, 1 when
/// the job failed without results or could not be followed.
int wait_for_mpijob(const LaunchOptions& options);

}  // namespace dgx
