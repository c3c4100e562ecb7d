// main() of the two-rank MPI tests: builds the host's communicator from the launcher's environment, runs the
// test cases on every rank, and exits with the worst outcome of any rank. Apart from the test cases so that
// clang-tidy's analyzer does not walk doctest's implementation with them (it reports leaks inside doctest).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "dgx/core/distributed/rank_environment.hpp"
#include "mpi_world.hpp"

namespace {

std::unique_ptr<dgx::HostComm> g_world;

}  // namespace

dgx::HostComm& dgx::testing::mpi_world() { return *g_world; }

int main(int argc, char** argv) {
  auto ranks = dgx::detect_ranks([](const char* name) -> const char* { return std::getenv(name); });
  if (!ranks) {
    return 2;
  }
  auto comm = dgx::make_host_comm(ranks.value());
  if (!comm) {
    std::fprintf(stderr, "%s\n", comm.error().message.c_str());
    return 2;
  }
  g_world = std::move(comm.value());
  doctest::Context context(argc, argv);
  double failed = context.run();
  g_world->all_reduce(&failed, 1, DGX_REDUCE_MAX);  // every rank reports the worst outcome
  g_world.reset();                                  // MPI_Finalize
  return static_cast<int>(failed);
}
