// Who this process is among the ranks of a run: the C++ form of dgx_rank_info, shared by the SDK (Host::ranks)
// and the host (its communicator).
#pragma once

#include <string>

namespace dgx::sdk {

struct RankInfo {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;  // rank among the processes of this node: picks the GPU
  int local_size = 1;
  std::string launcher = "none";  // "none", "slurm", "openmpi", "pmix", "env"
};

}  // namespace dgx::sdk
