// The sbatch script of dgxhost launch: one rank per GPU through srun --mpi=pmix, Slurm's rules for every name,
// and with --container a dgxhost the image can run (this one's install prefix mounted, or --dgxhost inside it).
#include <doctest/doctest.h>

#include <vector>

#include "dgx/core/app/slurm_script.hpp"
#include "dgx/core/config/search_paths.hpp"
#include "launch_args.hpp"
#include "temp_dir.hpp"
#include "text_checks.hpp"

using namespace dgx;
using dgx::testing::has;
using dgx::testing::parse_launch_args;

TEST_CASE("the sbatch script runs one rank per GPU through srun --mpi=pmix") {
  auto o =
      parse_launch_args({"--nodes", "2", "--gpus-per-node", "8", "--container", "nvcr.io/x:1", "--output-dir", "/runs",
                         "--dgxhost", "/opt/dgx/bin/dgxhost", "--plugin", "llama70b", "--set", "model=a b"});
  REQUIRE(o);
  const std::string s = sbatch_script(o.value());
  CHECK(has(s, "#SBATCH --nodes=2\n"));
  CHECK(has(s, "#SBATCH --ntasks-per-node=8\n"));
  CHECK(has(s, "#SBATCH --gpus-per-node=8\n"));
  CHECK(has(s, "srun --mpi=pmix --kill-on-bad-exit=1 --gpus-per-task=1 --gpu-bind=closest"));
  CHECK(has(s, "/opt/dgx/bin/dgxhost --plugin llama70b --set 'model=a b' --output \"$results\""));
  CHECK(has(s, "results=\"/runs/dgx-llama70b-${SLURM_JOB_ID}.json\""));
  CHECK(results_path(o.value(), "42") == "/runs/dgx-llama70b-42.json");
}

TEST_CASE("with --container and --dgxhost, the ranks run that path inside the image and the script says so") {
  auto o = parse_launch_args({"--nodes", "1", "--container", "nvcr.io/x:1", "--output-dir", "/runs", "--dgxhost",
                              "/usr/local/bin/dgxhost", "--plugin", "all_reduce"});
  REQUIRE(o);
  CHECK(o->dgxhost_prefix.empty());
  const std::string s = sbatch_script(o.value());
  CHECK(has(s, "# The image must hold dgxhost at /usr/local/bin/dgxhost"));
  CHECK(has(s, "--container-image=nvcr.io/x:1 --container-mounts=/runs:/runs /usr/local/bin/dgxhost --plugin"));
  CHECK(parse_launch_args({"--nodes", "1", "--container", "img", "--dgxhost", "bin/dgxhost", "--plugin", "x"})
            .error()
            .message.find("--dgxhost bin/dgxhost: expected an absolute path inside the image") != std::string::npos);
}

TEST_CASE("this dgxhost's install prefix, mounted read-only at the same path, lets the image run the host's dgxhost") {
  auto o = parse_launch_args({"--nodes", "1", "--container", "nvcr.io/x:1", "--container-mounts", "/data:/data",
                              "--output-dir", "/runs", "--dgxhost", "/opt/dgx/bin/dgxhost", "--plugin", "all_reduce"});
  REQUIRE(o);
  o->dgxhost_prefix = "/opt/dgx";  // what complete_slurm finds for a dgxhost installed there
  const std::string s = sbatch_script(o.value());
  CHECK(has(s, "--container-mounts=/runs:/runs,/opt/dgx:/opt/dgx:ro,/data:/data /opt/dgx/bin/dgxhost"));
  CHECK(has(s, "# The ranks run /opt/dgx/bin/dgxhost from its install prefix /opt/dgx, mounted read-only"));
  CHECK(has(s, "ldd /opt/dgx/bin/dgxhost"));
}

TEST_CASE("the install prefix is the folder holding bin/dgxhost, its plugins and its configs") {
  const testing::TempDir dir;
  const auto bin = dir.path() / "prefix" / "bin";
  std::filesystem::create_directories(bin);
  CHECK(dgxhost_install_prefix(bin).error().message.find("its plugin folder") != std::string::npos);
  std::filesystem::create_directories(plugin_search_paths({}, nullptr, bin).back().path);
  CHECK(dgxhost_install_prefix(bin).value() == (dir.path() / "prefix").string());
}

TEST_CASE("a dgxhost installed under a system folder is not mounted over the image's own") {
  for (const char* bin : {"/usr/bin", "/usr/local/bin", "/opt/bin", "/bin"}) {
    const auto prefix = dgxhost_install_prefix(bin);
    REQUIRE_FALSE(prefix);
    CHECK(prefix.error().code == ExitCode::usage);
    CHECK_MESSAGE(has(prefix.error().message, "cannot be mounted over the image's own"), bin);
    CHECK(has(prefix.error().message, "pass --dgxhost PATH (its path inside the image)"));
  }
}

TEST_CASE("--env becomes an export before srun, whose environment every rank gets") {
  auto o =
      parse_launch_args({"--nodes", "1", "--env", "NCCL_DEBUG=INFO", "--env", "NOTE=a b", "--plugin", "all_reduce"});
  REQUIRE(o);
  const std::string s = sbatch_script(o.value());
  CHECK(has(s, "export NCCL_DEBUG=INFO\nexport NOTE='a b'\n"));
  CHECK(s.find("export NOTE") < s.find("srun "));
}

TEST_CASE("CPU-only ranks ask for no GPUs") {
  auto o =
      parse_launch_args({"--nodes", "1", "--gpus-per-node", "0", "--tasks-per-node", "2", "--plugin", "all_reduce"});
  REQUIRE(o);
  const std::string s = sbatch_script(o.value());
  CHECK_FALSE(has(s, "--gpus-per-node"));
  CHECK_FALSE(has(s, "--gpu-bind"));
  CHECK(has(s, "#SBATCH --ntasks-per-node=2\n"));
}

TEST_CASE("Slurm's names follow Slurm's rules, so nothing but the value reaches an #SBATCH line") {
  auto message = [](std::vector<const char*> args) {
    args.insert(args.end(), {"--plugin", "all_reduce"});
    auto o = parse_launch_args(args);
    REQUIRE_FALSE(o);
    CHECK(o.error().code == ExitCode::usage);
    return o.error().message;
  };
  CHECK(has(message({"--nodes", "1", "--partition", "gpu\ntouch X"}),
            "--partition gpu\\x0atouch X: control characters and line breaks"));
  CHECK(has(message({"--nodes", "1", "--account", "a b"}), "--account"));
  CHECK(has(message({"--nodes", "1", "--job-name", "../../x"}), "--job-name ../../x: expected"));
  CHECK(parse_launch_args({"--nodes", "1", "--partition", "gpu,debug", "--time", "2-00:00:00", "--job-name",
                           "my-run.v2", "--plugin", "all_reduce"}));
  CHECK(parse_launch_args({"--nodes", "1", "--time", "UNLIMITED", "--plugin", "all_reduce"}));
}
