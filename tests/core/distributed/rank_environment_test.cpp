#include <doctest/doctest.h>

#include <map>
#include <string>

#include "dgx/core/distributed/rank_environment.hpp"

using namespace dgx;

namespace {

EnvLookup env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

}  // namespace

TEST_CASE("no launcher: a world of one") {
  const RankInfo r = detect_ranks(env({})).value();
  CHECK(r.rank == 0);
  CHECK(r.world_size == 1);
  CHECK(r.launcher == "none");
}

TEST_CASE("Open MPI's variables") {
  const RankInfo r = detect_ranks(env({{"OMPI_COMM_WORLD_RANK", "3"},
                                       {"OMPI_COMM_WORLD_SIZE", "8"},
                                       {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                                       {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}}))
                         .value();
  CHECK(r.launcher == "openmpi");
  CHECK(r.rank == 3);
  CHECK(r.world_size == 8);
  CHECK(r.local_rank == 1);
  CHECK(r.local_size == 2);
}

TEST_CASE("a Slurm step, but not a batch script") {
  const RankInfo step =
      detect_ranks(
          env({{"SLURM_PROCID", "5"}, {"SLURM_STEP_NUM_TASKS", "16"}, {"SLURM_LOCALID", "1"}, {"SLURM_NTASKS", "16"}}))
          .value();
  CHECK(step.launcher == "slurm");
  CHECK(step.rank == 5);
  CHECK(step.world_size == 16);
  CHECK(step.local_rank == 1);
  // The batch script has SLURM_PROCID=0 and SLURM_NTASKS of the whole job, yet is a single process.
  const RankInfo batch = detect_ranks(env({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "16"}})).value();
  CHECK(batch.world_size == 1);
  CHECK(batch.launcher == "none");
}

TEST_CASE("PMIx and torchrun-style variables") {
  const RankInfo pmix = detect_ranks(env({{"PMIX_RANK", "2"}})).value();
  CHECK(pmix.launcher == "pmix");
  CHECK(pmix.rank == 2);
  CHECK(pmix.world_size == 0);  // PMIx alone does not say; MPI tells
  const RankInfo torch = detect_ranks(env({{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "1"}})).value();
  CHECK(torch.launcher == "env");
  CHECK(torch.world_size == 2);
  CHECK(torch.local_rank == 1);
}

TEST_CASE("Open MPI wins over the others when several are set") {
  CHECK(detect_ranks(
            env({{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "2"}, {"RANK", "1"}, {"WORLD_SIZE", "4"}}))
            ->launcher == "openmpi");
}

TEST_CASE("malformed variables are usage errors naming the variable") {
  auto bad = detect_ranks(env({{"RANK", "one"}, {"WORLD_SIZE", "2"}}));
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == ExitCode::usage);
  CHECK(bad.error().message == "environment variable RANK='one' is not a non-negative integer");
  auto out_of_range = detect_ranks(env({{"RANK", "4"}, {"WORLD_SIZE", "4"}}));
  REQUIRE_FALSE(out_of_range);
  CHECK(out_of_range.error().message == "RANK=4 is not below WORLD_SIZE=4");
}
