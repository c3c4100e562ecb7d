// Following an MPIJob: its state from `kubectl get mpijob -o json` (as the operator writes its conditions), and
// the results file from the launcher's log. kubectl itself is faked in tests/integration/launch_cli_test.cpp.
#include <doctest/doctest.h>

#include <string>

#include "dgx/core/app/mpijob_follow.hpp"

using namespace dgx;

namespace {

// An MPIJob as kubectl prints it, with the conditions the operator sets (kubeflow/common's JobCondition).
std::string mpijob_json(const std::string& conditions) {
  return R"({"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob",
  "metadata": {"name": "dgx-all-reduce", "namespace": "default", "uid": "6f1d2c3e-0b1a-4c5d-9e8f-112233445566"},
  "spec": {"slotsPerWorker": 8},
  "status": {"conditions": [)" +
         conditions + R"(], "replicaStatuses": {"Launcher": {}, "Worker": {}}, "startTime": "2025-05-01T10:00:00Z"}})";
}

constexpr const char* kCreated = R"({"type": "Created", "status": "True", "reason": "MPIJobCreated",
  "message": "MPIJob default/dgx-all-reduce is created.", "lastTransitionTime": "2025-05-01T10:00:00Z"})";
constexpr const char* kRunning = R"({"type": "Running", "status": "True", "reason": "MPIJobRunning",
  "message": "MPIJob default/dgx-all-reduce is running."})";

}  // namespace

TEST_CASE("an MPIJob's state is its last true condition, Succeeded and Failed end it") {
  auto created = mpijob_state(mpijob_json(kCreated));
  REQUIRE(created);
  CHECK(created->phase == "Created");
  CHECK_FALSE(created->finished);
  auto running = mpijob_state(mpijob_json(std::string(kCreated) + "," + kRunning));
  CHECK(running->phase == "Running");
  const std::string done = R"({"type": "Running", "status": "False", "reason": "MPIJobRunning"},
    {"type": "Succeeded", "status": "True", "reason": "MPIJobSucceeded",
     "message": "MPIJob default/dgx-all-reduce successfully completed."})";
  auto succeeded = mpijob_state(mpijob_json(kCreated + std::string(",") + done));
  CHECK(succeeded->finished);
  CHECK(succeeded->succeeded);
  const std::string failed = R"({"type": "Failed", "status": "True", "reason": "DeadlineExceeded",
    "message": "Job was active longer than specified deadline"})";
  auto ended = mpijob_state(mpijob_json(std::string(kCreated) + "," + kRunning + "," + failed));
  CHECK(ended->finished);
  CHECK_FALSE(ended->succeeded);
  CHECK(ended->reason == "DeadlineExceeded");
}

TEST_CASE("a job the operator has not seen yet has no phase, what is not an MPIJob is said so") {
  auto fresh = mpijob_state(R"({"kind": "MPIJob", "metadata": {"name": "x"}, "spec": {}})");
  REQUIRE(fresh);
  CHECK(fresh->phase.empty());
  CHECK_FALSE(fresh->finished);
  CHECK(mpijob_state("Error from server").error().message.find("not an MPIJob's JSON") != std::string::npos);
  CHECK(mpijob_state(R"({"kind": "Pod"})").error().message.find("$.kind: expected \"MPIJob\"") != std::string::npos);
  CHECK(mpijob_state(mpijob_json(R"({"type": "Running", "status": 1})")).error().message.find("status") !=
        std::string::npos);
}

TEST_CASE("the results file is read from between the launcher's markers, whatever mpirun printed around it") {
  const std::string log = "Warning: Permanently added 'dgx-all-reduce-worker-0.dgx-all-reduce.default.svc' (ED25519)\n"
                          "# dgxhost all_reduce: 16 ranks\n"
                          "dgxhost launch: results file dgx-all-reduce-20250501T100000Z.json\n"
                          "{\n  \"schema\": \"dgx.results/1\"\n}\n"
                          "\n"
                          "dgxhost launch: end of results\n";
  auto results = results_from_log(log, "dgx-all-reduce");
  REQUIRE(results);
  CHECK(results->file_name == "dgx-all-reduce-20250501T100000Z.json");
  CHECK(results->json == "{\n  \"schema\": \"dgx.results/1\"\n}\n");
}

TEST_CASE("a log without complete results, or naming a path, says what is missing") {
  CHECK(results_from_log("mpirun noticed that process rank 3 exited\n", "j").error().message.find("no results") !=
        std::string::npos);
  CHECK(
      results_from_log("dgxhost launch: results file j-1.json\n{\"schema\"", "j").error().message.find("breaks off") !=
      std::string::npos);
  CHECK(results_from_log("dgxhost launch: results file j-1.json\ncat: /dgx-results/j-1.json: No such file\n"
                         "dgxhost launch: end of results\n",
                         "j")
            .error()
            .message.find("rank 0 did not write j-1.json") != std::string::npos);
  CHECK(results_from_log("dgxhost launch: results file ../../etc/j-1.json\n{}\ndgxhost launch: end of results\n", "j")
            .error()
            .message.find("not j-<time>.json") != std::string::npos);
}
