#include "dgx/core/distributed/comm.hpp"

#include <algorithm>
#include <vector>

namespace dgx {

#ifdef DGX_HAVE_MPI
Expected<std::unique_ptr<HostComm>> make_mpi_comm(const RankInfo& ranks);  // mpi_comm.cpp
bool have_mpi() { return true; }
#else
bool have_mpi() { return false; }
#endif

std::optional<Failure> HostComm::agree(const std::optional<Failure>& local) {
  if (ranks().world_size == 1) {
    return local;
  }
  // [code, lowest failing rank]: max of the code, min of the rank (world_size when this rank is fine).
  double code = local ? static_cast<double>(to_int(local->code)) : 0.0;
  double first = local ? ranks().rank : ranks().world_size;
  all_reduce(&code, 1, DGX_REDUCE_MAX);
  all_reduce(&first, 1, DGX_REDUCE_MIN);
  if (code == 0) {
    return std::nullopt;
  }
  const int root = static_cast<int>(first);
  std::string message = local && ranks().rank == root ? local->message : std::string();
  std::uint64_t length = message.size();
  broadcast(&length, sizeof length, root);
  message.resize(length);
  broadcast(message.data(), length, root);
  // Every rank exits with the same code; the message names the rank where it happened.
  return Failure{static_cast<ExitCode>(static_cast<int>(code)), "rank " + std::to_string(root) + ": " + message};
}

Expected<std::unique_ptr<HostComm>> make_host_comm(const RankInfo& ranks) {
  const bool mpi_launcher = ranks.launcher == "openmpi" || ranks.launcher == "slurm" || ranks.launcher == "pmix";
  if (ranks.world_size == 1 && !mpi_launcher) {
    return std::unique_ptr<HostComm>(std::make_unique<LocalComm>(ranks));
  }
#ifdef DGX_HAVE_MPI
  return make_mpi_comm(ranks);
#else
  if (ranks.world_size == 1) {
    return std::unique_ptr<HostComm>(std::make_unique<LocalComm>(ranks));
  }
  return Failure{ExitCode::usage, "this dgxhost was built without MPI (Open MPI was not found at build time), so its " +
                                      std::to_string(ranks.world_size) + " ranks (" + ranks.launcher +
                                      ") cannot communicate; rebuild with libopenmpi-dev installed"};
#endif
}

}  // namespace dgx
