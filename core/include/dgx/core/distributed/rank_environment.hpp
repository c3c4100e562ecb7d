// Who am I among the ranks of a run? Read from the launcher's environment: Open MPI (OMPI_COMM_WORLD_*), a
// Slurm step (SLURM_PROCID, SLURM_STEP_NUM_TASKS, SLURM_LOCALID), PMIx (PMIX_RANK), or the torchrun-style
// RANK / WORLD_SIZE / LOCAL_RANK. Nothing set means a world of one.
#pragma once

#include <functional>
#include <string>

#include "dgx/core/distributed/comm.hpp"
#include "dgx/core/support/expected.hpp"

namespace dgx {

using EnvLookup = std::function<const char*(const char*)>;

/// Detects the rank identity from `env` (std::getenv by default). Malformed values are usage failures naming
/// the variable. world_size may be 0 when the launcher (PMIx alone) does not say; MPI then tells.
Expected<RankInfo> detect_ranks(const EnvLookup& env);

}  // namespace dgx
