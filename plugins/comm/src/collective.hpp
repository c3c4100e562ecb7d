// The collectives the comm workloads measure, with nccl-tests' conventions for what "size" means, how counts
// follow from it, and the bus-bandwidth factor that makes numbers comparable across world sizes:
//   algbw = size / time;  busbw = algbw x factor
//   all_reduce 2(n-1)/n; all_gather, reduce_scatter, alltoall (n-1)/n; broadcast, reduce, sendrecv 1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <dgx/sdk/comm.hpp>

namespace dgx::plugins::comm {

enum class Collective { all_reduce, all_gather, reduce_scatter, alltoall, broadcast, reduce, sendrecv };

inline constexpr Collective kAllCollectives[] = {
    Collective::all_reduce, Collective::all_gather, Collective::reduce_scatter, Collective::alltoall,
    Collective::broadcast,  Collective::reduce,     Collective::sendrecv};

std::string_view name(Collective c);
std::optional<Collective> collective_from_name(std::string_view name);

/// Bus bandwidth factor for `ranks` ranks (nccl-tests).
double busbw_factor(Collective c, int ranks);

bool uses_op(Collective c);    // reductions
bool uses_root(Collective c);  // broadcast, reduce
/// In-place is defined for all but alltoall and sendrecv (whose grouped sends and receives would race).
bool has_in_place(Collective c);

/// Elements and bytes of one operation of `size` bytes (nccl-tests' size: the whole per-rank buffer for
/// all_reduce, broadcast, reduce, sendrecv; the gathered buffer for all_gather; the scattered one for
/// reduce_scatter; the whole exchange for alltoall). Sizes round down to whole elements per rank.
struct Shape {
  std::size_t count = 0;       // the count argument of the call
  std::size_t send_elems = 0;  // elements in the send buffer
  std::size_t recv_elems = 0;  // elements in the receive buffer
  std::uint64_t bytes = 0;     // the effective size, as reported
};

Shape shape_for(Collective c, std::uint64_t size, sdk::DType type, int ranks);

/// The buffers of one operation: for in-place, send aliases the receive buffer as NCCL defines it.
struct Buffers {
  const void* send = nullptr;
  void* recv = nullptr;
};

/// Where send and receive point for `shape`, given a send and a receive allocation of sufficient size.
Buffers place(Collective c, const Shape& shape, sdk::DType type, int rank, bool in_place, void* send_alloc,
              void* recv_alloc);

/// Issues one operation on `comm` (asynchronous for device transports).
void issue(sdk::Communicator& comm, Collective c, const Buffers& b, const Shape& shape, sdk::DType type,
           sdk::ReduceOp op, int root);

}  // namespace dgx::plugins::comm
