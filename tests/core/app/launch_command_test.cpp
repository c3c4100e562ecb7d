#include <doctest/doctest.h>

#include <vector>

#include "dgx/core/app/launch_command.hpp"

using namespace dgx;

namespace {

Expected<LaunchOptions> parse(std::vector<const char*> args) {
  args.insert(args.begin(), "launch");
  return parse_launch(static_cast<int>(args.size()), args.data());
}

}  // namespace

TEST_CASE("launch options and the arguments passed through to the ranks") {
  auto o = parse({"--nodes", "2", "--gpus-per-node", "8", "--partition", "gpu", "--time", "01:00:00", "--account",
                  "proj", "--plugin", "all_reduce", "-b", "8", "-e", "1G", "--output-dir", "/tmp/runs"});
  REQUIRE(o);
  CHECK(o->nodes == 2);
  CHECK(o->tasks_per_node == 8);
  CHECK(o->partition == "gpu");
  CHECK(o->dgxhost_args == std::vector<std::string>{"--plugin", "all_reduce", "-b", "8", "-e", "1G"});
  CHECK(o->job_name == "dgx-all_reduce");
  CHECK(o->script == "/tmp/runs/dgx-all_reduce.sbatch");
}

TEST_CASE("the sbatch script runs one rank per GPU through srun --mpi=pmix") {
  auto o = parse({"--nodes", "2", "--gpus-per-node", "8", "--container", "nvcr.io/x:1", "--output-dir", "/runs",
                  "--dgxhost", "/opt/dgx/bin/dgxhost", "--plugin", "llama70b", "--set", "model=a b"});
  REQUIRE(o);
  const std::string s = sbatch_script(o.value());
  CHECK(s.find("#SBATCH --nodes=2\n") != std::string::npos);
  CHECK(s.find("#SBATCH --ntasks-per-node=8\n") != std::string::npos);
  CHECK(s.find("#SBATCH --gpus-per-node=8\n") != std::string::npos);
  CHECK(s.find("srun --mpi=pmix --kill-on-bad-exit=1 --gpus-per-task=1 --gpu-bind=closest") != std::string::npos);
  CHECK(s.find("--container-image=nvcr.io/x:1 --container-mounts=/runs:/runs") != std::string::npos);
  CHECK(s.find("/opt/dgx/bin/dgxhost --plugin llama70b --set 'model=a b' --output \"$results\"") != std::string::npos);
  CHECK(s.find("results=\"/runs/dgx-llama70b-${SLURM_JOB_ID}.json\"") != std::string::npos);
  CHECK(results_path(o.value(), "42") == "/runs/dgx-llama70b-42.json");
}

TEST_CASE("CPU-only ranks ask for no GPUs") {
  auto o = parse({"--nodes", "1", "--gpus-per-node", "0", "--tasks-per-node", "2", "--plugin", "all_reduce"});
  REQUIRE(o);
  const std::string s = sbatch_script(o.value());
  CHECK(s.find("--gpus-per-node") == std::string::npos);
  CHECK(s.find("--gpu-bind") == std::string::npos);
  CHECK(s.find("#SBATCH --ntasks-per-node=2\n") != std::string::npos);
}

TEST_CASE("launch usage errors say what is missing or wrong") {
  CHECK(parse({"--plugin", "x"}).error().message.find("--nodes N is required") != std::string::npos);
  CHECK(parse({"--nodes", "1"}).error().message.find("--plugin NAME is required") != std::string::npos);
  CHECK(parse({"--nodes", "zero", "--plugin", "x"}).error().message.find("expected an integer >= 1") !=
        std::string::npos);
  CHECK(parse({"--nodes", "1", "--gpus-per-node", "8", "--tasks-per-node", "4", "--plugin", "x"})
            .error()
            .message.find("one rank per GPU") != std::string::npos);
  CHECK(parse({"--nodes", "1", "--plugin", "x", "--output", "r.json"}).error().message.find("do not pass --output") !=
        std::string::npos);
  CHECK(parse({"--nodes"}).error().message.find("--nodes needs a value") != std::string::npos);
}

TEST_CASE("shell quoting") {
  CHECK(shell_quote("plain-word_1.0") == "plain-word_1.0");
  CHECK(shell_quote("a b") == "'a b'");
  CHECK(shell_quote("it's") == "'it'\\''s'");
  CHECK(shell_quote("") == "''");
}

TEST_CASE("launch --help is a request, not a failure") {
  auto o = parse({"--help"});
  REQUIRE(o);
  CHECK(o->help);
  CHECK(launch_help().find("--gpus-per-node G") != std::string::npos);
  CHECK(launch_help().find("Arguments that are not launch options are passed to every rank") != std::string::npos);
}

TEST_CASE("launch options take --key=value, and prefixes of launch options still pass through") {
  auto o = parse({"--nodes=2", "--plugin=all_reduce", "--sub", "x", "-b8"});
  REQUIRE(o);
  CHECK(o->nodes == 2);
  CHECK(o->dgxhost_args == std::vector<std::string>{"--plugin=all_reduce", "--sub", "x", "-b8"});
}

TEST_CASE("every value that reaches the script follows Slurm's rules, nothing can add a line or leave the folder") {
  auto message = [](std::vector<const char*> args) {
    args.insert(args.end(), {"--plugin", "all_reduce"});
    auto o = parse(args);
    REQUIRE_FALSE(o);
    CHECK(o.error().code == ExitCode::usage);
    return o.error().message;
  };
  CHECK(message({"--nodes", "1", "--partition", "gpu\ntouch X"}).find("--partition gpu\\x0atouch X: expected Slurm") !=
        std::string::npos);
  CHECK(message({"--nodes", "1", "--account", "a b"}).find("--account") != std::string::npos);
  CHECK(message({"--nodes", "1", "--time", "1h; rm"}).find("--time") != std::string::npos);
  CHECK(message({"--nodes", "1", "--job-name", "../../x"}).find("--job-name ../../x: expected") != std::string::npos);
  CHECK(message({"--nodes", "1", "--container", "img\n#SBATCH --x"}).find("control characters") != std::string::npos);
  CHECK(message({"--nodes", "1", "--output-dir", "/a b"}).find("spaces") != std::string::npos);
  CHECK(message({"--nodes", "2147483647"}).find("more than 16777216 ranks") != std::string::npos);
  CHECK(message({"--nodes", "65536", "--gpus-per-node", "0", "--tasks-per-node", "65536"}).find("more than") !=
        std::string::npos);
  for (const char* output : {"-ofoo.json", "-o", "--out", "--outp=x", "--output=x"}) {
    CHECK_MESSAGE(message({"--nodes", "1", output}).find("do not pass") != std::string::npos, output);
  }
  CHECK(parse({"--nodes", "1", "--partition", "gpu,debug", "--time", "2-00:00:00", "--job-name", "my-run.v2",
               "--plugin", "all_reduce"}));
}

TEST_CASE("launch refuses an option-parser placeholder instead of hanging in Boost's error message") {
  auto o = parse({"--nodes%option%", "2"});
  REQUIRE_FALSE(o);
  CHECK(o.error().code == ExitCode::usage);
  CHECK(o.error().message.find("contains '%option%'") != std::string::npos);
}
