// What does dgxhost add to an MPI all_reduce? Per message size, two loops timed in the same run, interleaved
// repetition by repetition: a plain MPI_Allreduce loop, and the comm plugin's loop (Backend::time around
// issue(): the SDK Communicator -> the host's dgx_comm_api -> MPI). Each loop starts at a barrier and counts the
// slowest rank; the two alternate which goes first, so neither always finds the caches warm. The table gives the
// median time per operation of each, the median over repetitions of the paired ratio plain/ours (1.0 = no
// overhead; pairing cancels the machine's drift) and the time added per operation.
// Run with two ranks: mpirun -np 2 bench_comm_overhead [repetitions]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "backend.hpp"
#include "collective.hpp"
#include "dgx/core/distributed/comm.hpp"
#include "dgx/core/distributed/rank_environment.hpp"
#include "dgx/core/plugin/host_services.hpp"

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 == 1 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

double slowest(double seconds) {
  MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return seconds;
}

}  // namespace

int main(int argc, char** argv) {
  const int repetitions = argc > 1 ? std::max(3, std::atoi(argv[1])) : 31;
  auto ranks = dgx::detect_ranks([](const char* n) -> const char* { return std::getenv(n); });
  if (!ranks) {
    return 2;
  }
  auto comm = dgx::make_host_comm(ranks.value());
  if (!comm) {
    std::fprintf(stderr, "%s\n", comm.error().message.c_str());
    return 2;
  }
  dgx::HostComm& host_comm = *comm.value();
  dgx::Logger logger;
  dgx::HostServices services(logger, host_comm, {}, "bench");
  const dgx::sdk::Host host(services.api());
  auto backend = dgx::plugins::comm::make_host_backend(host);
  const int rank = host_comm.ranks().rank;

  if (rank == 0) {
    std::printf("# all_reduce fp32 sum, %d ranks (%s), %d interleaved repetitions per size, medians\n",
                host_comm.ranks().world_size, host_comm.name(), repetitions);
    std::printf("%12s %8s %14s %14s %10s %14s\n", "size (B)", "iters", "MPI (us/op)", "dgxhost (us/op)", "ratio",
                "added (us/op)");
  }
  // 8 B to 64 MiB: every factor of 8 below 1 MiB, every factor of 2 above, where the target is strictest.
  for (std::uint64_t size = 8; size <= (64ull << 20); size *= size < (1u << 20) ? 8 : 2) {
    const auto shape = dgx::plugins::comm::shape_for(dgx::plugins::comm::Collective::all_reduce, size,
                                                     dgx::sdk::DType::fp32, host_comm.ranks().world_size);
    std::vector<float> send(shape.count, 1.0f), recv(shape.count);
    const dgx::plugins::comm::Buffers buffers{send.data(), recv.data()};
    // Enough operations per repetition that each takes milliseconds, not microseconds.
    const auto iterations = static_cast<std::uint32_t>(std::clamp<std::uint64_t>((128ull << 20) / size, 10, 4000));
    const auto plain_loop = [&] {
      MPI_Barrier(MPI_COMM_WORLD);
      const double start = MPI_Wtime();
      for (std::uint32_t i = 0; i < iterations; ++i) {
        MPI_Allreduce(send.data(), recv.data(), static_cast<int>(shape.count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      }
      return slowest(MPI_Wtime() - start) / iterations;
    };
    const auto our_loop = [&] {
      MPI_Barrier(MPI_COMM_WORLD);
      const double seconds = backend->time(
          iterations,
          [&] {
            dgx::plugins::comm::issue(backend->comm(), dgx::plugins::comm::Collective::all_reduce, buffers, shape,
                                      dgx::sdk::DType::fp32, dgx::sdk::ReduceOp::sum, 0);
          },
          [] { return false; });  // the benchmark's own loop: never stopped
      return slowest(seconds) / iterations;
    };
    std::vector<double> plain, ours, ratios;
    for (int r = 0; r < repetitions; ++r) {
      double p = 0, o = 0;
      if (r % 2 == 0) {
        p = plain_loop();
        o = our_loop();
      } else {
        o = our_loop();
        p = plain_loop();
      }
      plain.push_back(p);
      ours.push_back(o);
      ratios.push_back(p / o);
    }
    if (rank == 0) {
      const double p = median(plain), o = median(ours);
      std::printf("%12llu %8u %14.3f %14.3f %10.3f %14.3f\n", static_cast<unsigned long long>(size), iterations,
                  p * 1e6, o * 1e6, median(ratios), (o - p) * 1e6);
    }
  }
  return 0;
}
