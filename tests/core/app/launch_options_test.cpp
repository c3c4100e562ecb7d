// dgxhost launch's options: what both schedulers share (the rank layout, the arguments passed through, the
// checks of every value) and the choice of scheduler. Each scheduler's own options: slurm_script_test.cpp and
// mpijob_manifest_test.cpp.
#include <doctest/doctest.h>

#include <vector>

#include "dgx/core/app/launch_options.hpp"
#include "launch_args.hpp"

using namespace dgx;
using dgx::testing::launch_usage_message;
using dgx::testing::parse_launch_args;

TEST_CASE("launch options and the arguments passed through to the ranks") {
  auto o = parse_launch_args({"--nodes", "2", "--gpus-per-node", "8", "--partition", "gpu", "--time", "01:00:00",
                              "--account", "proj", "--plugin", "all_reduce", "-b", "8", "-e", "1G", "--output-dir",
                              "/tmp/runs"});
  REQUIRE(o);
  CHECK(o->scheduler == Scheduler::slurm);
  CHECK(o->nodes == 2);
  CHECK(o->tasks_per_node == 8);
  CHECK(o->partition == "gpu");
  CHECK(o->time_s == 3600);
  CHECK(o->dgxhost_args == std::vector<std::string>{"--plugin", "all_reduce", "-b", "8", "-e", "1G"});
  CHECK(o->job_name == "dgx-all_reduce");
  CHECK(o->script == "/tmp/runs/dgx-all_reduce.sbatch");
  CHECK(o->check_ranks);
}

TEST_CASE("the ranks' command line quotes every argument and names the results file itself") {
  auto o = parse_launch_args(
      {"--nodes", "1", "--dgxhost", "/opt/dgx/bin/dgxhost", "--plugin", "llama70b", "--set", "model=a b"});
  REQUIRE(o);
  CHECK(rank_command(o.value()) == "/opt/dgx/bin/dgxhost --plugin llama70b --set 'model=a b' --output \"$results\"");
  CHECK_FALSE(o->check_ranks);  // another dgxhost: its plugins are not ours to check
}

TEST_CASE("launch usage errors say what is missing or wrong") {
  CHECK(launch_usage_message({"--plugin", "x"}).find("--nodes N is required") != std::string::npos);
  CHECK(launch_usage_message({"--nodes", "1"}).find("--plugin NAME is required") != std::string::npos);
  CHECK(launch_usage_message({"--nodes", "zero", "--plugin", "x"}).find("expected an integer >= 1") !=
        std::string::npos);
  CHECK(launch_usage_message({"--nodes", "1", "--gpus-per-node", "8", "--tasks-per-node", "4", "--plugin", "x"})
            .find("one rank per GPU") != std::string::npos);
  CHECK(launch_usage_message({"--nodes", "1", "--plugin", "x", "--output", "r.json"}).find("do not pass --output") !=
        std::string::npos);
  CHECK(launch_usage_message({"--nodes"}).find("--nodes needs a value") != std::string::npos);
}

TEST_CASE("an unknown scheduler is refused with the two there are, and a near miss is named") {
  const std::string pbs = launch_usage_message({"--scheduler", "pbs", "--nodes", "1", "--plugin", "x"});
  CHECK(pbs == "dgxhost launch: --scheduler pbs: expected slurm (the default) or kubernetes");
  CHECK(launch_usage_message({"--scheduler", "kubernets", "--nodes", "1", "--plugin", "x"})
            .find("did you mean 'kubernetes'?") != std::string::npos);
}

TEST_CASE("an option of the other scheduler is refused, not ignored") {
  CHECK(launch_usage_message({"--nodes", "1", "--namespace", "ml", "--plugin", "x"}) ==
        "dgxhost launch: --namespace is an option of --scheduler kubernetes, not of --scheduler slurm");
  CHECK(launch_usage_message({"--scheduler", "kubernetes", "--container", "img", "--nodes", "1", "--partition", "gpu",
                              "--plugin", "x"}) ==
        "dgxhost launch: --partition is an option of --scheduler slurm, not of --scheduler kubernetes");
  CHECK(launch_usage_message({"--nodes", "1", "--wait", "--plugin", "x"})
            .find("--wait is an option of --scheduler kubernetes") != std::string::npos);
}

TEST_CASE("Slurm time limits in all of Slurm's forms, in seconds") {
  CHECK(slurm_time_seconds("30") == 1800);
  CHECK(slurm_time_seconds("5:30") == 330);
  CHECK(slurm_time_seconds("01:00:00") == 3600);
  CHECK(slurm_time_seconds("2-00") == 172800);
  CHECK(slurm_time_seconds("1-02:03") == 93780);
  CHECK(slurm_time_seconds("1-00:00:01") == 86401);
  for (const char* bad : {"", "1h", "1:2:3:4", "-1", "1-", ":30", "1 0", "99999999"}) {
    CHECK_FALSE_MESSAGE(slurm_time_seconds(bad), bad);
  }
}

TEST_CASE("launch --help is a request, not a failure, and shows both schedulers' options") {
  auto o = parse_launch_args({"--help"});
  REQUIRE(o);
  CHECK(o->help);
  const std::string help = launch_help();
  CHECK(help.find("--gpus-per-node G") != std::string::npos);
  CHECK(help.find("Arguments that are not launch options are passed to every rank") != std::string::npos);
  CHECK(help.find("Slurm (--scheduler slurm)") != std::string::npos);
  CHECK(help.find("Kubernetes (--scheduler kubernetes)") != std::string::npos);
  CHECK(help.find("--rdma-resource NAME") != std::string::npos);
}

TEST_CASE("launch options take --key=value, and prefixes of launch options still pass through") {
  auto o = parse_launch_args({"--nodes=2", "--plugin=all_reduce", "--sub", "x", "-b8"});
  REQUIRE(o);
  CHECK(o->nodes == 2);
  CHECK(o->dgxhost_args == std::vector<std::string>{"--plugin=all_reduce", "--sub", "x", "-b8"});
}

TEST_CASE("every value that reaches the script is checked, nothing can add a line or leave the folder") {
  auto message = [](std::vector<const char*> args) {
    args.insert(args.end(), {"--plugin", "all_reduce"});
    return launch_usage_message(std::move(args));
  };
  CHECK(message({"--nodes", "1", "--time", "1h; rm"}).find("--time") != std::string::npos);
  CHECK(message({"--nodes", "1", "--time", "1h"}).find("--time 1h: expected a Slurm time limit") != std::string::npos);
  CHECK(message({"--nodes", "1", "--container", "img\n#SBATCH --x"}).find("control characters") != std::string::npos);
  CHECK(message({"--nodes", "1", "--output-dir", "/a b"}).find("spaces") != std::string::npos);
  CHECK(message({"--nodes", "1", "--set", "a=\xff"}).find("invalid UTF-8") != std::string::npos);
  CHECK(message({"--nodes", "2147483647"}).find("more than 16777216 ranks") != std::string::npos);
  CHECK(message({"--nodes", "65536", "--gpus-per-node", "0", "--tasks-per-node", "65536"}).find("more than") !=
        std::string::npos);
  for (const char* output : {"-ofoo.json", "-o", "--out", "--outp=x", "--output=x"}) {
    CHECK_MESSAGE(message({"--nodes", "1", output}).find("do not pass") != std::string::npos, output);
  }
}

TEST_CASE("--env sets NAME=VALUE for every rank, anything else is refused naming it") {
  auto o = parse_launch_args({"--nodes", "1", "--env", "NCCL_DEBUG=INFO", "--env", "X=a b", "--plugin", "all_reduce"});
  REQUIRE(o);
  CHECK(o->env == std::vector<std::string>{"NCCL_DEBUG=INFO", "X=a b"});
  for (const char* bad : {"NCCL_DEBUG", "1X=2", "=v", "A-B=1"}) {
    CHECK_MESSAGE(
        launch_usage_message({"--nodes", "1", "--env", bad, "--plugin", "x"}).find(std::string("--env ") + bad) !=
            std::string::npos,
        bad);
  }
}

TEST_CASE("launch refuses an option-parser placeholder instead of hanging in Boost's error message") {
  auto o = parse_launch_args({"--nodes%option%", "2"});
  REQUIRE_FALSE(o);
  CHECK(o.error().code == ExitCode::usage);
  CHECK(o.error().message.find("contains '%option%'") != std::string::npos);
}
