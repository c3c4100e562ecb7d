#include "dgx/core/distributed/rank_environment.hpp"

#include <charconv>
#include <cstring>

namespace dgx {

namespace {

// Reads an integer variable; nullopt when unset, a failure when set but not an integer >= 0.
Expected<std::optional<int>> read_int(const EnvLookup& env, const char* name) {
  const char* value = env(name);
  if (value == nullptr || *value == '\0') {
    return std::optional<int>{};
  }
  int parsed = 0;
  const char* end = value + std::strlen(value);
  const auto r = std::from_chars(value, end, parsed);
  if (r.ec != std::errc() || r.ptr != end || parsed < 0) {
    return Failure{ExitCode::usage,
                   std::string("environment variable ") + name + "='" + value + "' is not a non-negative integer"};
  }
  return std::optional<int>{parsed};
}

struct Names {
  const char* launcher;
  const char* rank;
  const char* size;
  const char* local_rank;
  const char* local_size;  // may be nullptr
};

Expected<std::optional<RankInfo>> try_launcher(const EnvLookup& env, const Names& n) {
  auto rank = read_int(env, n.rank);
  if (!rank) {
    return rank.error();
  }
  if (!rank.value()) {
    return std::optional<RankInfo>{};
  }
  auto size = read_int(env, n.size);
  if (!size) {
    return size.error();
  }
  auto local_rank = read_int(env, n.local_rank);
  if (!local_rank) {
    return local_rank.error();
  }
  Expected<std::optional<int>> local_size = std::optional<int>{};
  if (n.local_size != nullptr) {
    local_size = read_int(env, n.local_size);
  }
  if (!local_size) {
    return local_size.error();
  }

  RankInfo info;
  info.launcher = n.launcher;
  info.rank = *rank.value();
  info.world_size = size.value().value_or(0);
  info.local_rank = local_rank.value().value_or(0);
  info.local_size = local_size.value().value_or(0);
  if (info.world_size != 0 && info.rank >= info.world_size) {
    return Failure{ExitCode::usage, std::string(n.rank) + "=" + std::to_string(info.rank) + " is not below " + n.size +
                                        "=" + std::to_string(info.world_size)};
  }
  return std::optional<RankInfo>{info};
}

}  // namespace

Expected<RankInfo> detect_ranks(const EnvLookup& env) {
  // In order of specificity. A Slurm batch script also has SLURM_PROCID but is one process: only a job step
  // (srun) sets SLURM_STEP_NUM_TASKS, so that is what counts.
  static constexpr Names launchers[] = {
      {"openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
       "OMPI_COMM_WORLD_LOCAL_SIZE"},
      {"slurm", "SLURM_PROCID", "SLURM_STEP_NUM_TASKS", "SLURM_LOCALID", nullptr},
      {"pmix", "PMIX_RANK", "PMIX_SIZE", "PMIX_LOCAL_RANK", "PMIX_LOCAL_SIZE"},
      {"env", "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"},
  };
  for (const Names& n : launchers) {
    if (std::string(n.launcher) == "slurm" && env("SLURM_STEP_NUM_TASKS") == nullptr) {
      continue;
    }
    auto found = try_launcher(env, n);
    if (!found) {
      return found.error();
    }
    if (found.value()) {
      return *found.value();
    }
  }
  return RankInfo{};
}

}  // namespace dgx
