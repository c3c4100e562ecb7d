// The host's own communicator for multi-rank runs: rank identity, barrier, broadcast and small reductions on
// host memory (per-sample synchronisation, the slowest rank's time, the NCCL unique id). A single process is a
// world of one (LocalComm).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <dgx/plugin.h>

namespace dgx {

struct RankInfo {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  int local_size = 1;
  std::string launcher = "none";
};

class HostComm {
 public:
  HostComm() = default;
  HostComm(const HostComm&) = delete;
  HostComm& operator=(const HostComm&) = delete;
  virtual ~HostComm() = default;

  [[nodiscard]] virtual const RankInfo& ranks() const = 0;
  virtual void barrier() = 0;
  virtual void broadcast(void* data, std::size_t bytes, int root) = 0;
  virtual void all_reduce(double* values, std::size_t count, dgx_reduce_op op) = 0;
  /// Name of the implementation ("local", "mpi").
  [[nodiscard]] virtual const char* name() const = 0;
};

/// One process, no communication.
class LocalComm final : public HostComm {
 public:
  LocalComm() = default;
  explicit LocalComm(RankInfo info) : info_(std::move(info)) {}
  [[nodiscard]] const RankInfo& ranks() const override { return info_; }
  void barrier() override {}
  void broadcast(void*, std::size_t, int) override {}
  void all_reduce(double*, std::size_t, dgx_reduce_op) override {}
  [[nodiscard]] const char* name() const override { return "local"; }

 private:
  RankInfo info_;
};

}  // namespace dgx
