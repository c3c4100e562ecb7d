// dgxhost launch end to end, as a user runs it: the Kubernetes dry run and its bad input, --submit and --wait
// against a fake kubectl (fake_kubectl.sh: no cluster can run here, so kubectl is the one stand-in), and the Slurm
// script of a containerised run. A real single-node Slurm runs the sbatch path in tests/slurm.
#include <doctest/doctest.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "dgxhost.hpp"
#include "temp_dir.hpp"
#include "text_checks.hpp"

using namespace dgx::testing;
namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// A 2-node MPIJob in namespace ml; the tests add the rest.
std::vector<std::string> job() {
  return {"launch",      "--scheduler", "kubernetes", "--nodes", "2", "--container", "nvcr.io/nvidia/pytorch:24.05-py3",
          "--namespace", "ml"};
}

// An MPIJob as `kubectl get -o json` prints it, with one condition per entry of `conditions` (type, status,
// reason), as the operator sets them.
std::string mpijob_json(const std::vector<std::array<std::string, 3>>& conditions) {
  std::string list;
  for (const auto& c : conditions) {
    list += std::string(list.empty() ? "" : ",") + R"({"type": ")" + c[0] + R"(", "status": ")" + c[1] +
            R"(", "reason": ")" + c[2] + R"(", "message": "MPIJob ml/dgx-all-reduce: )" + c[2] +
            R"(", "lastTransitionTime": "2025-05-01T10:00:00Z"})";
  }
  return R"({"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob", "metadata": {"name": "dgx-all-reduce",
    "namespace": "ml", "uid": "0d5c7f8e-3a41-4e0b-9b7e-6f2a1c9d4e55", "creationTimestamp": "2025-05-01T10:00:00Z"},
    "spec": {"slotsPerWorker": 8, "mpiImplementation": "OpenMPI"},
    "status": {"conditions": [)" +
         list + R"(], "replicaStatuses": {"Launcher": {}, "Worker": {"active": 2}}}})";
}

// The launcher's log as its script writes it: ssh's and rank 0's lines, then the results file between markers.
std::string launcher_log(const std::string& results) {
  return "Warning: Permanently added 'dgx-all-reduce-worker-0.dgx-all-reduce.ml.svc' (ED25519) to the list of known "
         "hosts.\n"
         "# dgxhost all_reduce: 16 rank(s), transport mpi\n"
         "#       size         count      type   redop    root     time   algbw   busbw #wrong\n"
         "dgxhost launch: results file dgx-all-reduce-20250501T100000Z.json\n" +
         results +
         "\n"
         "dgxhost launch: end of results\n";
}

// kubectl's stand-in first on PATH, answering from the files its test writes.
class FakeKubectl {
public:
  FakeKubectl() {
    fs::create_directories(dir_.path() / "bin");
    fs::copy_file(DGX_TEST_FAKE_KUBECTL, dir_.path() / "bin" / "kubectl");
  }
  void answer(const std::string& file, const std::string& text) const { dir_.write(file, text); }
  [[nodiscard]] std::string calls() const { return read(dir_.path() / "calls"); }
  [[nodiscard]] std::string applied() const { return read(dir_.path() / "applied.yaml"); }
  [[nodiscard]] fs::path out() const { return dir_.path() / "out"; }
  [[nodiscard]] ProcessResult launch(std::vector<std::string> more) const {
    std::vector<std::string> args = job();
    args.insert(args.end(), {"--output-dir", out().string(), "--poll-interval", "0.02"});
    args.insert(args.end(), more.begin(), more.end());
    const char* path = std::getenv("PATH");
    return dgxhost(args, {{"PATH", (dir_.path() / "bin").string() + ":" + (path != nullptr ? path : "/usr/bin:/bin")},
                          {"FAKE_KUBECTL_DIR", dir_.path().string()}});
  }

private:
  TempDir dir_;
};

// A real run's results document (data/README.md).
const std::string& recorded_results() {
  static const std::string text = read(DGX_TEST_MPIJOB_RESULTS);
  return text;
}

}  // namespace

TEST_CASE("kubernetes --dry-run prints the MPIJob after the checks and writes nothing") {
  const TempDir dir;
  const auto out = dir.path() / "out";
  auto r = dgxhost(job() + std::vector<std::string>{"--output-dir", out.string(), "--dry-run", "--plugin", "all_reduce",
                                                    "-e", "8G"});
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.rfind("# Written by `dgxhost launch`", 0) == 0);
  CHECK(has(r.out, "\nkind: MPIJob\n"));
  CHECK(has(r.out, "  namespace: ml\n"));
  CHECK(has(r.out, "/usr/local/bin/dgxhost --plugin all_reduce -e 8G --output \"$results\""));
  CHECK_FALSE(fs::exists(out));
  auto misspelt = dgxhost(job() + std::vector<std::string>{"--dry-run", "--plugin", "all_reduc"});
  CHECK(misspelt.exit_code == 3);  // what the ranks would run is checked as for Slurm
  CHECK(has(misspelt.err, "all_reduc"));
}

TEST_CASE("bad kubernetes input exits 2 with a message naming the option and the value") {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"launch", "--scheduler", "pbs", "--nodes", "1"}, "--scheduler pbs: expected slurm (the default) or kubernetes"},
      {job() + std::vector<std::string>{"--rdma-resource", "rdma ib"}, "--rdma-resource rdma ib: expected a resource"},
      {{"launch", "--scheduler", "kubernetes", "--nodes", "1"}, "needs --container IMAGE"},
      {{"launch", "--scheduler", "kubernetes", "--nodes", "1", "--container", "img", "--namespace", "ML"},
       "--namespace ML: expected a DNS label"},
      {job() + std::vector<std::string>{"--job-name", "All_Reduce"}, "--job-name All_Reduce: the MPIJob's pods"},
  };
  for (const auto& c : cases) {  // not a structured binding: doctest's messages capture it in a lambda
    auto r = dgxhost(c.first + std::vector<std::string>{"--plugin", "all_reduce"});
    CHECK_MESSAGE(r.exit_code == 2, c.second);
    CHECK_MESSAGE(has(r.err, c.second), r.err);
  }
}

TEST_CASE("--submit applies the written manifest with kubectl and says how to follow the job") {
  const FakeKubectl kubectl;
  kubectl.answer("apply.out", "mpijob.kubeflow.org/dgx-all-reduce created\n");
  auto r = kubectl.launch({"--submit", "--plugin", "all_reduce"});
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  const fs::path manifest = kubectl.out() / "dgx-all-reduce.yaml";
  CHECK(kubectl.calls() == "apply -f " + manifest.string() + "\n");
  CHECK(kubectl.applied() == read(manifest));
  CHECK(has(r.out, "mpijob.kubeflow.org/dgx-all-reduce created"));
  CHECK(has(r.out, "kubectl get mpijob dgx-all-reduce -n ml -w"));
}

TEST_CASE("--wait follows the MPIJob to Succeeded and collects its results and the launcher's log") {
  const FakeKubectl kubectl;
  kubectl.answer("apply.out", "mpijob.kubeflow.org/dgx-all-reduce created\n");
  kubectl.answer("get.1.json", mpijob_json({{"Created", "True", "MPIJobCreated"}}));
  kubectl.answer("get.2.json",
                 mpijob_json({{"Created", "True", "MPIJobCreated"}, {"Running", "True", "MPIJobRunning"}}));
  kubectl.answer("get.3.json", mpijob_json({{"Created", "True", "MPIJobCreated"},
                                            {"Running", "False", "MPIJobRunning"},
                                            {"Succeeded", "True", "MPIJobSucceeded"}}));
  kubectl.answer("logs.txt", launcher_log(recorded_results()));
  auto r = kubectl.launch({"--wait", "--plugin", "all_reduce"});
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  const std::string get = "get mpijob dgx-all-reduce -o json --namespace ml\n";
  CHECK(kubectl.calls() == "apply -f " + (kubectl.out() / "dgx-all-reduce.yaml").string() + "\n" + get + get + get +
                               "logs job/dgx-all-reduce-launcher --namespace ml\n");
  CHECK(has(r.err, "mpijob dgx-all-reduce: Created\n"));
  CHECK(has(r.err, "mpijob dgx-all-reduce: Running\n"));
  CHECK(has(r.err, "mpijob dgx-all-reduce: Succeeded\n"));
  const fs::path results = kubectl.out() / "dgx-all-reduce-20250501T100000Z.json";
  CHECK(read(results) == recorded_results());
  CHECK(read(kubectl.out() / "dgx-all-reduce-20250501T100000Z.log") == launcher_log(recorded_results()));
  CHECK(has(r.out, "results: " + results.string()));
}

TEST_CASE("a failed MPIJob says why and exits with its results' code, or 1 when it has none") {
  const FakeKubectl kubectl;
  kubectl.answer("apply.out", "mpijob.kubeflow.org/dgx-all-reduce created\n");
  kubectl.answer("get.1.json",
                 mpijob_json({{"Created", "True", "MPIJobCreated"}, {"Failed", "True", "BackoffLimitExceeded"}}));
  std::string failed_run = recorded_results();
  failed_run.replace(failed_run.find("\"exit_code\": 0"), 14, "\"exit_code\": 5");  // a failed check
  failed_run.replace(failed_run.find("\"ok\": true"), 10, "\"ok\": false");
  kubectl.answer("logs.txt", launcher_log(failed_run));
  auto r = kubectl.launch({"--wait", "--plugin", "all_reduce"});
  CHECK(r.exit_code == 5);
  CHECK(has(r.err, "mpijob dgx-all-reduce failed: BackoffLimitExceeded"));
  CHECK(fs::exists(kubectl.out() / "dgx-all-reduce-20250501T100000Z.json"));

  const FakeKubectl early;
  early.answer("apply.out", "mpijob.kubeflow.org/dgx-all-reduce created\n");
  early.answer("get.1.json", mpijob_json({{"Failed", "True", "DeadlineExceeded"}}));
  early.answer("logs.txt", "ssh: connect to host dgx-all-reduce-worker-1 port 22: Connection refused\n");
  auto none = early.launch({"--wait", "--plugin", "all_reduce"});
  CHECK(none.exit_code == 1);
  CHECK(has(none.err, "the launcher's log has no results"));
  CHECK(has(none.out, "launcher's log: " + early.out().string() + "/dgx-all-reduce-"));
}

TEST_CASE("--wait-timeout stops the waiting, not the job, and says where the job is and how to stop it") {
  const FakeKubectl kubectl;
  kubectl.answer("apply.out", "mpijob.kubeflow.org/dgx-all-reduce created\n");
  kubectl.answer("get.1.json",
                 mpijob_json({{"Created", "True", "MPIJobCreated"}, {"Running", "True", "MPIJobRunning"}}));
  auto r = kubectl.launch({"--wait", "--wait-timeout", "0:01", "--plugin", "all_reduce"});
  CHECK(r.exit_code == 1);
  CHECK(has(r.err, "mpijob dgx-all-reduce is still Running after --wait-timeout"));
  CHECK(has(r.err, "kubectl delete mpijob dgx-all-reduce -n ml"));
  CHECK_FALSE(has(kubectl.calls(), "logs"));

  const FakeKubectl idle;  // no operator to give the job a status
  idle.answer("apply.out", "mpijob.kubeflow.org/dgx-all-reduce created\n");
  idle.answer("get.1.json", R"({"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob", "metadata": {"name": "x"}})");
  auto waiting = idle.launch({"--wait", "--wait-timeout", "0:01", "--plugin", "all_reduce"});
  CHECK(waiting.exit_code == 1);
  CHECK(has(waiting.err, "mpijob dgx-all-reduce has no status yet (is the MPI Operator running?)"));
}

TEST_CASE("an MPIJob of the same name that kubectl leaves as it was is not taken for a new run") {
  const FakeKubectl kubectl;
  kubectl.answer("apply.out", "mpijob.kubeflow.org/dgx-all-reduce unchanged\n");
  auto r = kubectl.launch({"--wait", "--plugin", "all_reduce"});
  CHECK(r.exit_code == 1);
  CHECK(has(r.err, "an MPIJob named dgx-all-reduce exists already"));
  CHECK(has(r.err, "kubectl delete mpijob dgx-all-reduce -n ml"));
  CHECK_FALSE(has(kubectl.calls(), "get"));
}

TEST_CASE("without kubectl the error names the manifest to apply by hand") {
  const TempDir dir;
  fs::create_directories(dir.path() / "empty");
  const auto out = dir.path() / "out";
  auto r = dgxhost(job() + std::vector<std::string>{"--output-dir", out.string(), "--submit", "--plugin", "all_reduce"},
                   {{"PATH", (dir.path() / "empty").string()}});
  CHECK(r.exit_code == 1);
  CHECK(has(r.err, "cannot run kubectl (is it installed and on PATH?)"));
  CHECK(has(r.err, "kubectl apply -f " + (out / "dgx-all-reduce.yaml").string()));
  CHECK(fs::exists(out / "dgx-all-reduce.yaml"));
}

TEST_CASE("a containerised Slurm run mounts this dgxhost's install prefix into the image, read-only") {
  const fs::path prefix = fs::path(DGX_TEST_DGXHOST).parent_path().parent_path();
  const TempDir dir;
  const auto out = dir.path().string();
  auto r = dgxhost({"launch", "--nodes", "1", "--container", "nvcr.io#nvidia/pytorch:24.05-py3", "--output-dir", out,
                    "--dry-run", "--plugin", "all_reduce"});
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  CHECK(has(r.out, "--container-mounts=" + out + ":" + out + "," + prefix.string() + ":" + prefix.string() + ":ro " +
                       DGX_TEST_DGXHOST + " --plugin all_reduce"));
  CHECK(has(r.out, "from its install prefix " + prefix.string()));
}

TEST_CASE("a line break of any kind in a launch option is refused, and a manifest stays one YAML document") {
  // U+0085 (NEL), U+2028 and U+2029 are line breaks to YAML 1.1 parsers; in a comment they would start a second
  // document ("---\nkind: Pod").
  for (const std::string breaker : {"\xc2\x85", "\xe2\x80\xa8", "\xe2\x80\xa9", "\n"}) {
    const std::string hostile = "/opt/y" + breaker + "---" + breaker + "kind: Pod" + breaker + "---" + breaker + "#";
    const auto r = dgxhost(job() + std::vector<std::string>{"--dry-run", "--dgxhost", hostile, "--plugin", "spin"});
    CHECK(r.exit_code == 2);
    CHECK(has(r.err, "line breaks (a newline, U+0085, U+2028, U+2029)"));
    const auto slurm = dgxhost(
        {"launch", "--nodes", "1", "--gpus-per-node", "0", "--dry-run", "--dgxhost", hostile, "--plugin", "spin"});
    CHECK(slurm.exit_code == 2);
  }
  // What reaches a comment from elsewhere (the manifest's own path) is printed escaped, one line.
  const TempDir dir;
  const auto script = dir.path() / ("job\xe2\x80\xa8kind.yaml");
  const auto r = dgxhost(job() + std::vector<std::string>{"--script", script.string(), "--output-dir",
                                                          (dir.path() / "out").string(), "--plugin", "spin"});
  CHECK(r.exit_code == 2);  // a script name with a line separator is refused as well
  CHECK(has(r.err, "--script"));
}

TEST_CASE("a Slurm value with a line break (partition, account, job name) is refused: it would add a line to the "
          "sbatch script") {
  for (const char* option : {"--partition", "--account", "--job-name"}) {
    CAPTURE(option);
    const ProcessResult r =
        dgxhost({"launch", "--nodes", "1", option, "gpu\nrm -rf x", "--dry-run", "--plugin", "all_reduce"});
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(has(r.err, std::string(option) + " gpu\\x0arm -rf x: control characters and line breaks"), r.err);
  }
}
