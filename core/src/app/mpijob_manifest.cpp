#include "dgx/core/app/mpijob_manifest.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "dgx/core/config/search_paths.hpp"
#include "dgx/core/run/context.hpp"
#include "dgx/core/support/printable.hpp"
#include "dgx/core/support/text.hpp"
#include "dgx/core/support/yaml.hpp"
#include "launch_shared.hpp"

namespace dgx {

namespace {

bool lower_alnum(char c) {
  return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c));
}

// Kubernetes' names (k8s.io/apimachinery/pkg/util/validation): a DNS-1123 label is 1-63 of [a-z0-9-], starting
// and ending with a letter or digit; a DNS-1035 label must also start with a letter (Services are named so).
bool dns_label(std::string_view s, bool letter_first = false) {
  if (s.empty() || s.size() > 63 || !lower_alnum(s.front()) || !lower_alnum(s.back())) {
    return false;
  }
  if (letter_first && !std::islower(static_cast<unsigned char>(s.front()))) {
    return false;
  }
  return std::all_of(s.begin(), s.end(), [](char c) { return lower_alnum(c) || c == '-'; });
}

// A DNS-1123 subdomain: at most 253 characters, labels separated by '.'.
bool dns_subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) {
    return false;
  }
  const std::vector<std::string> labels = text::split(s, '.');
  return std::all_of(labels.begin(), labels.end(), [](const std::string& l) { return dns_label(l); });
}

// An extended resource name: a domain, '/', and 1-63 of [A-Za-z0-9-_.] starting and ending alphanumerically.
bool resource_name(std::string_view s) {
  const std::size_t slash = s.find('/');
  if (slash == std::string_view::npos || !dns_subdomain(s.substr(0, slash))) {
    return false;
  }
  const std::string_view name = s.substr(slash + 1);
  const auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  return !name.empty() && name.size() <= 63 && alnum(name.front()) && alnum(name.back()) &&
         std::all_of(name.begin(), name.end(), [&](char c) { return alnum(c) || c == '-' || c == '_' || c == '.'; });
}

std::optional<Failure> check_image(const LaunchOptions& o) {
  if (o.container.empty()) {
    return launch_usage(std::string("--scheduler kubernetes needs --container IMAGE: the image the launcher and the "
                                    "workers run, which must hold dgxhost (at ") +
                        kImageDgxhost + " unless --dgxhost says where), Open MPI and an SSH server");
  }
  if (!only(o.container, "._-/:@")) {
    return launch_usage("--container " + printable(o.container) +
                        ": expected an image reference such as nvcr.io/nvidia/pytorch:24.05-py3 (letters, digits, "
                        "'.', '_', '-', '/', ':', '@')" +
                        (o.container.find('#') != std::string::npos
                             ? "; '#' is enroot's registry separator, Kubernetes writes nvcr.io/nvidia/..."
                             : ""));
  }
  if (!std::filesystem::path(o.dgxhost).is_absolute()) {
    return launch_usage("--dgxhost " + printable(o.dgxhost) + ": expected an absolute path inside the image");
  }
  return std::nullopt;
}

std::optional<Failure> check_job_name(const LaunchOptions& o) {
  const std::string last_pod = o.job_name + "-worker-" + std::to_string(o.nodes - 1);
  if (dns_label(last_pod, true)) {
    return std::nullopt;
  }
  return launch_usage("--job-name " + printable(o.job_name) + ": the MPIJob's pods are named " + printable(last_pod) +
                      " and so on, which must be DNS-1035 labels: at most 63 lowercase letters, digits and '-', "
                      "starting with a letter and ending with a letter or digit");
}

std::optional<Failure> check_names(const KubernetesOptions& k) {
  if (!k.name_space.empty() && !dns_label(k.name_space)) {
    return launch_usage("--namespace " + printable(k.name_space) +
                        ": expected a DNS label: at most 63 lowercase letters, digits and '-', starting and ending "
                        "with a letter or digit");
  }
  std::vector<std::pair<std::string, const std::string*>> subdomains = {{"--scheduler-name", &k.scheduler_name},
                                                                        {"--priority-class", &k.priority_class},
                                                                        {"--queue", &k.queue},
                                                                        {"--service-account", &k.service_account},
                                                                        {"--results-pvc", &k.results_pvc}};
  for (const std::string& secret : k.image_pull_secrets) {
    subdomains.emplace_back("--image-pull-secret", &secret);
  }
  for (const auto& [option, value] : subdomains) {
    if (!value->empty() && !dns_subdomain(*value)) {
      return launch_usage(option + " " + printable(*value) +
                          ": expected a Kubernetes object name: lowercase letters, digits, '-' and '.', starting and "
                          "ending with a letter or digit");
    }
  }
  return std::nullopt;
}

std::optional<Failure> check_rdma(KubernetesOptions& k) {
  if (k.rdma_resource.empty()) {
    return k.rdma_count > 0 ? std::optional(launch_usage("--rdma-count needs --rdma-resource NAME")) : std::nullopt;
  }
  if (!resource_name(k.rdma_resource)) {
    return launch_usage("--rdma-resource " + printable(k.rdma_resource) +
                        ": expected a resource name as the cluster's device plugin advertises it, such as rdma/ib or "
                        "nvidia.com/hostdev: a domain, '/', then letters, digits, '-', '_', '.' (no spaces)");
  }
  if (k.rdma_resource == "nvidia.com/gpu") {
    return launch_usage("--rdma-resource nvidia.com/gpu: that is the GPUs' resource, which --gpus-per-node sets");
  }
  k.rdma_count = std::max(k.rdma_count, 1);
  return std::nullopt;
}

}  // namespace

std::string mpijob_name_for(const std::string& plugin) {
  std::string name = "dgx-";
  for (const char c : plugin) {
    name += c == '_' || c == '.' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return name;
}

std::optional<Failure> complete_mpijob(LaunchOptions& o) {
  for (const auto& check : {&check_image, &check_job_name}) {
    if (auto problem = check(o)) {
      return problem;
    }
  }
  if (auto problem = check_names(o.k8s)) {
    return problem;
  }
  if (auto problem = check_rdma(o.k8s)) {
    return problem;
  }
  const int gang = o.k8s.min_available;
  if (gang != 0 && (gang < o.nodes || gang > o.nodes + 1)) {
    return launch_usage("--min-available " + std::to_string(gang) + ": mpirun needs all " + std::to_string(o.nodes) +
                        " worker(s), so the gang is " + std::to_string(o.nodes) + " pods (the workers) or " +
                        std::to_string(o.nodes + 1) + " (with the launcher)");
  }
  o.submit = o.submit || o.k8s.wait;
  return std::nullopt;
}

std::string launcher_script(const LaunchOptions& o) {
  const std::string dir(kPodResultsDir);
  const std::string mpirun = "mpirun --allow-run-as-root";
  std::string s = "set -u\n";
  s += "name=" + o.job_name + "-$(date -u +%Y%m%dT%H%M%SZ).json\n";
  s += "results=" + dir + "/$name\n";
  // Ranks are started over ssh, so they see only the environment mpirun passes (-x), not the container's.
  s += mpirun + " -np " + std::to_string(o.nodes * o.tasks_per_node) +
       " --map-by ppr:" + std::to_string(o.tasks_per_node) + ":node --bind-to none \\\n";
  s += "  -x PATH ${LD_LIBRARY_PATH:+-x LD_LIBRARY_PATH} -x DGX_RUNS_DIR=" + dir + "/dgx-runs";
  for (const std::string& e : o.env) {
    s += " -x " + text::shell_quote(e);
  }
  s += " \\\n  " + rank_command(o) + "\n";
  s += "status=$?\n";
  s += "echo \"" + std::string(kResultsBegin) + "$name\"\n";
  // Without a shared volume the file is where rank 0 ran: on the first worker, where one more process goes.
  s += o.k8s.results_pvc.empty() ? mpirun + " -np 1 cat \"$results\"\n" : "cat \"$results\"\n";
  s += "echo\necho \"" + std::string(kResultsEnd) + "\"\n";
  s += "exit $status\n";
  return s;
}

namespace {

json::Object object(std::initializer_list<json::Member> members) {
  json::Object o;
  for (const json::Member& m : members) {
    o.set(m.first, m.second);
  }
  return o;
}

json::Value results_volume(const KubernetesOptions& k) {
  if (k.results_pvc.empty()) {
    return object({{"name", "results"}, {"emptyDir", json::Object{}}});
  }
  return object({{"name", "results"}, {"persistentVolumeClaim", object({{"claimName", k.results_pvc}})}});
}

json::Value results_mount() { return object({{"name", "results"}, {"mountPath", std::string(kPodResultsDir)}}); }

// What both pods share: the scheduler, priority, service account, pull secrets; then `volumes` if any.
json::Object pod_spec(const KubernetesOptions& k, json::Array containers, json::Array volumes) {
  json::Object spec;
  for (const auto& [key, value] :
       {std::pair{"schedulerName", &k.scheduler_name}, std::pair{"priorityClassName", &k.priority_class},
        std::pair{"serviceAccountName", &k.service_account}}) {
    if (!value->empty()) {
      spec.set(key, *value);
    }
  }
  if (!k.image_pull_secrets.empty()) {
    json::Array secrets;
    for (const std::string& name : k.image_pull_secrets) {
      secrets.emplace_back(object({{"name", name}}));
    }
    spec.set("imagePullSecrets", std::move(secrets));
  }
  spec.set("containers", std::move(containers));
  if (!volumes.empty()) {
    spec.set("volumes", std::move(volumes));
  }
  return spec;
}

json::Value launcher(const LaunchOptions& o) {
  json::Object container = object(
      {{"name", "launcher"}, {"image", o.container}, {"command", json::Array{"/bin/sh", "-c", launcher_script(o)}}});
  json::Array volumes;
  if (!o.k8s.results_pvc.empty()) {
    container.set("volumeMounts", json::Array{results_mount()});
    volumes.push_back(results_volume(o.k8s));
  }
  return object({{"replicas", 1},
                 {"restartPolicy", "Never"},
                 {"template", object({{"spec", pod_spec(o.k8s, json::Array{std::move(container)}, volumes)}})}});
}

json::Value worker(const LaunchOptions& o) {
  json::Object container = object({{"name", "worker"}, {"image", o.container}});
  container.set("command", json::Array{"/usr/sbin/sshd", "-De"});  // mpirun starts the ranks over ssh
  json::Object limits;
  if (o.gpus_per_node > 0) {
    limits.set("nvidia.com/gpu", o.gpus_per_node);
  }
  if (!o.k8s.rdma_resource.empty()) {
    limits.set(o.k8s.rdma_resource, o.k8s.rdma_count);
  }
  if (!limits.empty()) {
    container.set("resources", object({{"limits", std::move(limits)}}));
  }
  // GPUDirect RDMA and NCCL pin memory: IPC_LOCK lifts the locked-memory limit.
  if (o.gpus_per_node > 0 || !o.k8s.rdma_resource.empty()) {
    container.set("securityContext", object({{"capabilities", object({{"add", json::Array{"IPC_LOCK"}}})}}));
  }
  // A container's /dev/shm is 64 MiB; NCCL and Open MPI's shared-memory transport need far more.
  container.set("volumeMounts", json::Array{object({{"name", "dshm"}, {"mountPath", "/dev/shm"}}), results_mount()});
  json::Array volumes{object({{"name", "dshm"}, {"emptyDir", object({{"medium", "Memory"}})}}), results_volume(o.k8s)};
  return object({{"replicas", o.nodes},
                 {"restartPolicy", "Never"},
                 {"template", object({{"spec", pod_spec(o.k8s, json::Array{std::move(container)}, volumes)}})}});
}

json::Value run_policy(const LaunchOptions& o) {
  // Running: the workers go when the launcher ends, the launcher's pod (and log) stays. No retry: a benchmark
  // that failed is reported, not run again behind the user's back.
  json::Object policy = object({{"cleanPodPolicy", "Running"}, {"backoffLimit", 0}});
  if (o.time_s > 0) {
    policy.set("activeDeadlineSeconds", o.time_s);
  }
  json::Object gang;
  if (o.k8s.min_available > 0) {
    gang.set("minAvailable", o.k8s.min_available);
  }
  if (!o.k8s.queue.empty()) {
    gang.set("queue", o.k8s.queue);
  }
  if (!o.k8s.priority_class.empty()) {
    gang.set("priorityClass", o.k8s.priority_class);
  }
  if (!gang.empty()) {
    policy.set("schedulingPolicy", std::move(gang));
  }
  return policy;
}

json::Value metadata(const LaunchOptions& o) {
  json::Object meta = object({{"name", o.job_name}});
  if (!o.k8s.name_space.empty()) {
    meta.set("namespace", o.k8s.name_space);
  }
  json::Object labels = object({{"app.kubernetes.io/name", "dgxhost"}});
  const std::string plugin = plugin_name(o.dgxhost_args);
  const auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  if (plugin.size() <= 63 && only(plugin, "-_.") && alnum(plugin.front()) && alnum(plugin.back())) {
    labels.set("dgxhost/plugin", plugin);
  }
  meta.set("labels", std::move(labels));
  return meta;
}

}  // namespace

json::Value mpijob_manifest(const LaunchOptions& o) {
  json::Object spec = object({{"slotsPerWorker", o.tasks_per_node},
                              {"mpiImplementation", "OpenMPI"},
                              {"launcherCreationPolicy", "WaitForWorkersReady"},
                              {"runPolicy", run_policy(o)},
                              {"mpiReplicaSpecs", object({{"Launcher", launcher(o)}, {"Worker", worker(o)}})}});
  return object({{"apiVersion", "kubeflow.org/v2beta1"},
                 {"kind", "MPIJob"},
                 {"metadata", metadata(o)},
                 {"spec", std::move(spec)}});
}

std::string mpijob_yaml(const LaunchOptions& o) {
  const std::filesystem::path bin = std::filesystem::path(o.dgxhost).parent_path();
  const int ranks = o.nodes * o.tasks_per_node;
  std::string s =
      comment_lines("Written by `dgxhost launch` on " + utc_timestamp() + ": " + std::to_string(o.nodes) +
                    " node(s) x " + std::to_string(o.tasks_per_node) + " rank(s) = " + std::to_string(ranks) +
                    " rank(s)" + (o.gpus_per_node > 0 ? ", one per GPU." : ", CPU only."));
  s += comment_lines("A Kubeflow MPI Operator MPIJob; run it with: kubectl apply -f " + o.script);
  s += comment_lines("The image must hold dgxhost at " + o.dgxhost + ", with its plugins in " +
                     plugin_search_paths({}, nullptr, bin).back().path.string() + " and its configs in " +
                     config_search_paths({}, nullptr, bin).back().path.string() +
                     " (cmake --install BUILD --prefix PREFIX); Open MPI's mpirun and ssh for the launcher, "
                     "/usr/sbin/sshd for the workers, as the MPI Operator's own images have them.");
  s += comment_lines("Rank 0 writes " + std::string(kPodResultsDir) + "/" + o.job_name + "-<UTC time>.json" +
                     (o.k8s.results_pvc.empty() ? "" : " on the PersistentVolumeClaim " + o.k8s.results_pvc) +
                     "; the launcher's log holds it after the line \"" + std::string(kResultsBegin) +
                     "<file>\", where `dgxhost launch --wait` collects it.");
  return s + yaml::write(mpijob_manifest(o));
}

}  // namespace dgx
