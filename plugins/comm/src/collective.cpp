#include "collective.hpp"

namespace dgx::plugins::comm {

std::string_view name(Collective c) {
  switch (c) {
  case Collective::all_reduce: return "all_reduce";
  case Collective::all_gather: return "all_gather";
  case Collective::reduce_scatter: return "reduce_scatter";
  case Collective::alltoall: return "alltoall";
  case Collective::broadcast: return "broadcast";
  case Collective::reduce: return "reduce";
  case Collective::sendrecv: return "sendrecv";
  }
  return "?";
}

std::optional<Collective> collective_from_name(std::string_view text) {
  for (const Collective c : kAllCollectives) {
    if (name(c) == text) {
      return c;
    }
  }
  return std::nullopt;
}

double busbw_factor(Collective c, int ranks) {
  const double n = ranks;
  switch (c) {
  case Collective::all_reduce: return 2.0 * (n - 1) / n;
  case Collective::all_gather:
  case Collective::reduce_scatter:
  case Collective::alltoall: return (n - 1) / n;
  default: return 1.0;
  }
}

bool uses_op(Collective c) {
  return c == Collective::all_reduce || c == Collective::reduce_scatter || c == Collective::reduce;
}

bool uses_root(Collective c) { return c == Collective::broadcast || c == Collective::reduce; }

bool has_in_place(Collective c) { return c != Collective::alltoall && c != Collective::sendrecv; }

Shape shape_for(Collective c, std::uint64_t size, sdk::DType type, int ranks) {
  const std::size_t element = sdk::dtype_size(type);
  const auto n = static_cast<std::size_t>(ranks);
  Shape s;
  switch (c) {
  case Collective::all_gather:  // size is the gathered buffer: count per rank = size / n
    s.count = size / element / n;
    s.send_elems = s.count;
    s.recv_elems = s.count * n;
    s.bytes = s.recv_elems * element;
    break;
  case Collective::reduce_scatter:  // size is the buffer being scattered: count per rank = size / n
    s.count = size / element / n;
    s.send_elems = s.count * n;
    s.recv_elems = s.count;
    s.bytes = s.send_elems * element;
    break;
  case Collective::alltoall:  // size is each rank's whole exchange: count per peer = size / n
    s.count = size / element / n;
    s.send_elems = s.count * n;
    s.recv_elems = s.count * n;
    s.bytes = s.send_elems * element;
    break;
  default:
    s.count = size / element;
    s.send_elems = s.count;
    s.recv_elems = s.count;
    s.bytes = s.count * element;
  }
  return s;
}

Buffers place(Collective c, const Shape& shape, sdk::DType type, int rank, bool in_place, void* send_alloc,
              void* recv_alloc) {
  if (!in_place) {
    return {send_alloc, recv_alloc};
  }
  const std::size_t chunk = shape.count * sdk::dtype_size(type) * static_cast<std::size_t>(rank);
  switch (c) {
  case Collective::all_gather: return {static_cast<char*>(recv_alloc) + chunk, recv_alloc};
  case Collective::reduce_scatter: return {send_alloc, static_cast<char*>(send_alloc) + chunk};
  default: return {recv_alloc, recv_alloc};
  }
}

void issue(sdk::Communicator& comm, Collective c, const Buffers& b, const Shape& s, sdk::DType type, sdk::ReduceOp op,
           int root) {
  const int n = comm.size();
  const int me = comm.rank();
  switch (c) {
  case Collective::all_reduce: comm.all_reduce(b.send, b.recv, s.count, type, op); break;
  case Collective::all_gather: comm.all_gather(b.send, b.recv, s.count, type); break;
  case Collective::reduce_scatter: comm.reduce_scatter(b.send, b.recv, s.count, type, op); break;
  case Collective::alltoall: comm.alltoall(b.send, b.recv, s.count, type); break;
  case Collective::broadcast: comm.broadcast(b.send, b.recv, s.count, type, root); break;
  case Collective::reduce: comm.reduce(b.send, b.recv, s.count, type, op, root); break;
  case Collective::sendrecv: comm.sendrecv(b.send, (me + 1) % n, b.recv, (me - 1 + n) % n, s.count, type); break;
  }
}

}  // namespace dgx::plugins::comm
