// The MPIJob of dgxhost launch --scheduler kubernetes: what each option puts where, and the bad input refused with
// a message naming the option and the value. The whole manifest is also validated against the operator's CRD
// schema (tests/integration/mpijob_schema_test.py).
#include <doctest/doctest.h>

#include <array>
#include <vector>

#include "dgx/core/app/mpijob_manifest.hpp"
#include "launch_args.hpp"
#include "text_checks.hpp"

using namespace dgx;
using dgx::testing::has;

namespace {

const std::vector<const char*> kKubernetes = {"--scheduler", "kubernetes"};

Expected<LaunchOptions> parse_kubernetes(std::vector<const char*> args) {
  return testing::parse_launch_args(std::move(args), kKubernetes);
}

std::string kubernetes_refusal(std::vector<const char*> args) {
  return testing::launch_usage_message(std::move(args), kKubernetes);
}

// The MPIJob of `args` (after --scheduler kubernetes), which must parse.
json::Value manifest(std::vector<const char*> args) {
  auto o = parse_kubernetes(std::move(args));
  REQUIRE_MESSAGE(o, (o ? "" : o.error().message));
  return mpijob_manifest(o.value());
}

const json::Value& pod(const json::Value& job, const char* role) {
  return job["spec"]["mpiReplicaSpecs"][role]["template"]["spec"];
}

const json::Value& container(const json::Value& job, const char* role) { return pod(job, role)["containers"][0]; }

constexpr std::array<const char*, 6> kTwoNodes = {
    "--nodes", "2", "--container", "nvcr.io/nvidia/pytorch:24.05-py3", "--plugin", "all_reduce"};

std::vector<const char*> two_nodes(std::vector<const char*> more) {
  more.insert(more.begin(), kTwoNodes.begin(), kTwoNodes.end());
  return more;
}

}  // namespace

TEST_CASE("one worker pod per node, one slot per GPU, the launcher once every worker is ready") {
  const json::Value job = manifest(two_nodes({}));
  CHECK(job["apiVersion"].as_string() == "kubeflow.org/v2beta1");
  CHECK(job["kind"].as_string() == "MPIJob");
  CHECK(job["metadata"]["name"].as_string() == "dgx-all-reduce");
  CHECK(job["metadata"]["labels"]["dgxhost/plugin"].as_string() == "all_reduce");
  const json::Value& spec = job["spec"];
  CHECK(spec["slotsPerWorker"].as_int() == 8);
  CHECK(spec["launcherCreationPolicy"].as_string() == "WaitForWorkersReady");
  CHECK(spec["mpiImplementation"].as_string() == "OpenMPI");
  CHECK(spec["mpiReplicaSpecs"]["Launcher"]["replicas"].as_int() == 1);
  CHECK(spec["mpiReplicaSpecs"]["Worker"]["replicas"].as_int() == 2);
  CHECK(spec["runPolicy"]["cleanPodPolicy"].as_string() == "Running");
  CHECK(spec["runPolicy"]["backoffLimit"].as_int() == 0);
  CHECK_FALSE(spec["runPolicy"].as_object().contains("schedulingPolicy"));
  CHECK(container(job, "Launcher")["image"].as_string() == "nvcr.io/nvidia/pytorch:24.05-py3");
  CHECK(container(job, "Worker")["image"].as_string() == "nvcr.io/nvidia/pytorch:24.05-py3");
}

TEST_CASE("workers request the GPUs, get IPC_LOCK and a memory-backed /dev/shm, and run sshd for mpirun") {
  const json::Value job = manifest(two_nodes({}));
  const json::Value& worker = container(job, "Worker");
  CHECK(worker["resources"]["limits"]["nvidia.com/gpu"].as_int() == 8);
  CHECK(worker["resources"]["limits"].as_object().size() == 1);
  CHECK(worker["securityContext"]["capabilities"]["add"] == json::Value(json::Array{"IPC_LOCK"}));
  CHECK(worker["command"] == json::Value(json::Array{"/usr/sbin/sshd", "-De"}));
  CHECK(worker["volumeMounts"][0]["name"].as_string() == "dshm");
  CHECK(worker["volumeMounts"][0]["mountPath"].as_string() == "/dev/shm");
  const json::Value& volumes = pod(job, "Worker")["volumes"];
  CHECK(volumes[0]["name"].as_string() == "dshm");
  CHECK(volumes[0]["emptyDir"]["medium"].as_string() == "Memory");
  CHECK(volumes[1]["name"].as_string() == "results");
  CHECK(volumes[1]["emptyDir"].as_object().empty());
  CHECK(worker["volumeMounts"][1]["mountPath"].as_string() == "/dgx-results");
}

TEST_CASE("the launcher runs mpirun over every slot, the image's dgxhost, and prints the results between markers") {
  const json::Value job = manifest(two_nodes({"-e", "8G", "--set", "note=a b", "--env", "NCCL_IB_HCA=mlx5"}));
  const json::Value& command = container(job, "Launcher")["command"];
  CHECK(command[0].as_string() == "/bin/sh");
  CHECK(command[1].as_string() == "-c");
  const std::string& script = command[2].as_string();
  CHECK(has(script, "name=dgx-all-reduce-$(date -u +%Y%m%dT%H%M%SZ).json\nresults=/dgx-results/$name\n"));
  CHECK(has(script, "mpirun --allow-run-as-root -np 16 --map-by ppr:8:node --bind-to none"));
  CHECK(has(script, "-x PATH ${LD_LIBRARY_PATH:+-x LD_LIBRARY_PATH} -x DGX_RUNS_DIR=/dgx-results/dgx-runs"));
  CHECK(has(script, "-x NCCL_IB_HCA=mlx5"));
  CHECK(has(script,
            "/usr/local/bin/dgxhost --plugin all_reduce -e 8G --set 'note=a b' --output \"$results\"\nstatus=$?\n"));
  CHECK(has(script, "echo \"dgxhost launch: results file $name\"\n"
                    "mpirun --allow-run-as-root -np 1 cat \"$results\"\n"));
  CHECK(has(script, "echo \"dgxhost launch: end of results\"\nexit $status\n"));
  CHECK_FALSE(container(job, "Launcher").as_object().contains("resources"));  // no GPU for mpirun
}

TEST_CASE("an RDMA resource is requested per worker, the count defaulting to one") {
  const json::Value ib = manifest(two_nodes({"--rdma-resource", "rdma/ib"}));
  CHECK(container(ib, "Worker")["resources"]["limits"]["rdma/ib"].as_int() == 1);
  const json::Value hostdev = manifest(two_nodes({"--rdma-resource", "nvidia.com/hostdev", "--rdma-count", "8"}));
  CHECK(container(hostdev, "Worker")["resources"]["limits"]["nvidia.com/hostdev"].as_int() == 8);
  CHECK(container(hostdev, "Worker")["resources"]["limits"]["nvidia.com/gpu"].as_int() == 8);
}

TEST_CASE("gang scheduling fields go to runPolicy.schedulingPolicy, the scheduler and priority to both pods") {
  const json::Value job = manifest(two_nodes({"--scheduler-name", "volcano", "--queue", "training", "--priority-class",
                                              "high", "--min-available", "3", "--time", "2:00:00"}));
  const json::Value& policy = job["spec"]["runPolicy"];
  CHECK(policy["schedulingPolicy"]["minAvailable"].as_int() == 3);
  CHECK(policy["schedulingPolicy"]["queue"].as_string() == "training");
  CHECK(policy["schedulingPolicy"]["priorityClass"].as_string() == "high");
  CHECK(policy["activeDeadlineSeconds"].as_int() == 7200);
  for (const char* role : {"Launcher", "Worker"}) {
    CHECK(pod(job, role)["schedulerName"].as_string() == "volcano");
    CHECK(pod(job, role)["priorityClassName"].as_string() == "high");
  }
}

TEST_CASE("a results PVC is mounted at /dgx-results in both pods, and the launcher reads the file from it") {
  const json::Value job =
      manifest(two_nodes({"--results-pvc", "dgx-results", "--namespace", "ml", "--image-pull-secret", "ngc",
                          "--image-pull-secret", "ghcr", "--service-account", "mpi-runner"}));
  CHECK(job["metadata"]["namespace"].as_string() == "ml");
  for (const char* role : {"Launcher", "Worker"}) {
    const json::Value& volumes = pod(job, role)["volumes"];
    CHECK(volumes[volumes.as_array().size() - 1]["persistentVolumeClaim"]["claimName"].as_string() == "dgx-results");
    CHECK(pod(job, role)["imagePullSecrets"][1]["name"].as_string() == "ghcr");
    CHECK(pod(job, role)["serviceAccountName"].as_string() == "mpi-runner");
  }
  CHECK(container(job, "Launcher")["volumeMounts"][0]["mountPath"].as_string() == "/dgx-results");
  const std::string& script = container(job, "Launcher")["command"][2].as_string();
  CHECK(has(script, "\ncat \"$results\"\n"));
  CHECK_FALSE(has(script, "-np 1 cat"));
}

TEST_CASE("CPU-only ranks request no GPU and no IPC_LOCK, slots are the tasks per node") {
  const json::Value job = manifest({"--nodes", "3", "--gpus-per-node", "0", "--tasks-per-node", "4", "--container",
                                    "mpioperator/openmpi", "--plugin", "all_reduce"});
  CHECK(job["spec"]["slotsPerWorker"].as_int() == 4);
  CHECK_FALSE(container(job, "Worker").as_object().contains("resources"));
  CHECK_FALSE(container(job, "Worker").as_object().contains("securityContext"));
  CHECK(has(container(job, "Launcher")["command"][2].as_string(), "-np 12 --map-by ppr:4:node"));
}

TEST_CASE("the YAML says what the image must hold, how to apply it, and where the results go") {
  auto o = parse_kubernetes(two_nodes({"--output-dir", "/runs"}));
  REQUIRE(o);
  CHECK(o->script == "/runs/dgx-all-reduce.yaml");
  CHECK(o->check_ranks);  // the image's dgxhost is taken to be this one's build
  const std::string yaml = mpijob_yaml(o.value());
  CHECK(has(yaml, "# A Kubeflow MPI Operator MPIJob; run it with: kubectl apply -f /runs/dgx-all-reduce.yaml\n"));
  CHECK(has(yaml, "# The image must hold dgxhost at /usr/local/bin/dgxhost, with its plugins in /usr/local/lib"));
  CHECK(has(yaml, "\napiVersion: kubeflow.org/v2beta1\nkind: MPIJob\n"));
  CHECK(has(yaml, "  slotsPerWorker: 8\n"));
  CHECK(has(yaml, "            - |\n              set -u\n"));  // the launcher's script stays readable
}

TEST_CASE("kubernetes without --container, or with an image reference it cannot pull, is refused") {
  CHECK(has(kubernetes_refusal({"--nodes", "1", "--plugin", "x"}), "--scheduler kubernetes needs --container IMAGE"));
  CHECK(has(kubernetes_refusal({"--nodes", "1", "--container", "nvcr.io#nvidia/pytorch:24.05", "--plugin", "x"}),
            "'#' is enroot's registry separator"));
  CHECK(has(kubernetes_refusal({"--nodes", "1", "--container", "img", "--dgxhost", "dgxhost", "--plugin", "x"}),
            "--dgxhost dgxhost: expected an absolute path inside the image"));
}

TEST_CASE("names Kubernetes would refuse are refused here, naming the option and the value") {
  CHECK(has(kubernetes_refusal(two_nodes({"--rdma-resource", "rdma ib"})),
            "--rdma-resource rdma ib: expected a resource name"));
  CHECK(has(kubernetes_refusal(two_nodes({"--rdma-resource", "ib"})), "--rdma-resource ib: expected"));
  CHECK(has(kubernetes_refusal(two_nodes({"--rdma-resource", "nvidia.com/gpu"})), "which --gpus-per-node sets"));
  CHECK(has(kubernetes_refusal(two_nodes({"--rdma-count", "2"})), "--rdma-count needs --rdma-resource NAME"));
  CHECK(has(kubernetes_refusal(two_nodes({"--namespace", "ML_team"})), "--namespace ML_team: expected a DNS label"));
  CHECK(has(kubernetes_refusal(two_nodes({"--job-name", "My_Job"})),
            "--job-name My_Job: the MPIJob's pods are named My_Job-worker-1"));
  CHECK(has(kubernetes_refusal(two_nodes({"--job-name", "1st"})), "starting with a letter"));
  const std::string long_name(55, 'a');
  CHECK(has(kubernetes_refusal(two_nodes({"--job-name", long_name.c_str()})), "DNS-1035 labels: at most 63"));
  for (const char* option : {"--scheduler-name", "--priority-class", "--queue", "--service-account", "--results-pvc",
                             "--image-pull-secret"}) {
    CHECK_MESSAGE(
        has(kubernetes_refusal(two_nodes({option, "Not Valid"})), std::string(option) + " Not Valid: expected"),
        option);
  }
  CHECK(
      has(kubernetes_refusal(two_nodes({"--min-available", "1"})), "--min-available 1: mpirun needs all 2 worker(s)"));
  CHECK(has(kubernetes_refusal(two_nodes({"--min-available", "4"})), "--min-available 4"));
  CHECK(has(kubernetes_refusal(two_nodes({"--wait-timeout", "soon"})), "--wait-timeout soon: expected a time"));
  CHECK(has(kubernetes_refusal(two_nodes({"--poll-interval", "0"})), "--poll-interval 0: expected seconds"));
}

TEST_CASE("--wait submits, and the default job name is a DNS label made from the plugin's name") {
  auto o = parse_kubernetes(two_nodes({"--wait", "--wait-timeout", "0:30", "--poll-interval", "0.5"}));
  REQUIRE(o);
  CHECK(o->submit);
  CHECK(o->k8s.wait_timeout_s == 30);
  CHECK(o->k8s.poll_interval_s == 0.5);
  CHECK(mpijob_name_for("LLM.Pretrain_v2") == "dgx-llm-pretrain-v2");
}
