// The host's communicator for multi-rank runs: rank identity, barrier, broadcast and small reductions for the
// host's own needs (per-sample synchronisation, the slowest rank's time, agreeing on failures), and the
// dgx_comm_api that plugins use for collectives on host buffers. MPI with several ranks (MpiComm, when built
// with MPI), a world of one otherwise (LocalComm).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <dgx/plugin.h>
#include <dgx/sdk/rank_info.hpp>

#include "dgx/core/support/expected.hpp"

namespace dgx {

using sdk::RankInfo;

class HostComm {
public:
  HostComm() = default;
  HostComm(const HostComm&) = delete;
  HostComm& operator=(const HostComm&) = delete;
  virtual ~HostComm() = default;

  [[nodiscard]] virtual const RankInfo& ranks() const = 0;
  /// Name of the implementation: "local" or "mpi".
  [[nodiscard]] virtual const char* name() const = 0;
  /// Collectives on host buffers for plugins; valid for the life of this object.
  [[nodiscard]] virtual const dgx_comm_api* api() const = 0;

  // Host-side helpers; they throw std::runtime_error when the transport fails.
  virtual void barrier() = 0;
  virtual void broadcast(void* data, std::size_t bytes, int root) = 0;
  virtual void all_reduce(double* values, std::size_t count, dgx_reduce_op op) = 0;
  /// Ends every rank at once with `code` (a failure on one rank while others may wait in a collective).
  [[noreturn]] virtual void abort(int code) = 0;

  /// Makes a failure on any rank a failure on all of them: every rank gets the failure of the lowest failing
  /// rank, its message prefixed with "rank N: ". nullopt when no rank failed. Collective: all ranks must call.
  std::optional<Failure> agree(const std::optional<Failure>& local);
};

/// A world of one: collectives copy.
class LocalComm final : public HostComm {
public:
  LocalComm();
  explicit LocalComm(RankInfo info);
  [[nodiscard]] const RankInfo& ranks() const override { return info_; }
  [[nodiscard]] const char* name() const override { return "local"; }
  [[nodiscard]] const dgx_comm_api* api() const override { return &api_; }
  void barrier() override {}
  void broadcast(void*, std::size_t, int) override {}
  void all_reduce(double*, std::size_t, dgx_reduce_op) override {}
  [[noreturn]] void abort(int code) override;

private:
  RankInfo info_;
  dgx_comm_api api_{};
};

/// True when this dgxhost was built with MPI.
bool have_mpi();

/// The communicator for `ranks`: MPI when there are several ranks (or the launcher is MPI's), else LocalComm.
/// Fails with a usage error when several ranks are asked for and MPI is not built in or disagrees.
Expected<std::unique_ptr<HostComm>> make_host_comm(const RankInfo& ranks);

}  // namespace dgx
