// The host's communicator on MPI: host-side helpers and the dgx_comm_api that plugins use for collectives on host
// buffers. MPI has no 16- or 8-bit floating-point types, so FP16, BF16 and FP8 travel as 16/8-bit integers and
// are reduced by user-defined operations that compute in float; AVG is a SUM divided by the world size, as NCCL
// defines it (integer division for integers).
#include <mpi.h>

#include <array>
#include <climits>
#include <cstring>
#include <stdexcept>
#include <string>

#include <dgx/sdk/numeric.hpp>

#include "comm_checks.hpp"
#include "dgx/core/distributed/comm.hpp"

namespace dgx {

namespace {

using detail::check_args;
using detail::check_rank;
using detail::element_size;
namespace num = sdk::numeric;

bool is_small_float(dgx_dtype t) {
  return t == DGX_DTYPE_FP16 || t == DGX_DTYPE_BF16 || t == DGX_DTYPE_FP8_E4M3 || t == DGX_DTYPE_FP8_E5M2;
}

// Row of the user-defined operations table: FP16, BF16, E4M3, E5M2.
std::size_t small_float_index(dgx_dtype t) {
  switch (t) {
  case DGX_DTYPE_FP16: return 0;
  case DGX_DTYPE_BF16: return 1;
  case DGX_DTYPE_FP8_E4M3: return 2;
  default: return 3;
  }
}

MPI_Datatype mpi_type(dgx_dtype t) {
  switch (t) {
  case DGX_DTYPE_INT8: return MPI_INT8_T;
  case DGX_DTYPE_UINT8: return MPI_UINT8_T;
  case DGX_DTYPE_INT32: return MPI_INT32_T;
  case DGX_DTYPE_UINT32: return MPI_UINT32_T;
  case DGX_DTYPE_INT64: return MPI_INT64_T;
  case DGX_DTYPE_UINT64: return MPI_UINT64_T;
  case DGX_DTYPE_FP32: return MPI_FLOAT;
  case DGX_DTYPE_FP64: return MPI_DOUBLE;
  case DGX_DTYPE_FP16:
  case DGX_DTYPE_BF16: return MPI_UINT16_T;
  default: return MPI_UINT8_T;  // FP8
  }
}

// Reading and writing one small-float element as float.
template <dgx_dtype T> float load(const void* base, std::size_t i) {
  if constexpr (T == DGX_DTYPE_FP16) {
    return num::fp16_to_float(static_cast<const std::uint16_t*>(base)[i]);
  } else if constexpr (T == DGX_DTYPE_BF16) {
    return num::bf16_to_float(static_cast<const std::uint16_t*>(base)[i]);
  } else if constexpr (T == DGX_DTYPE_FP8_E4M3) {
    return num::e4m3_to_float(static_cast<const std::uint8_t*>(base)[i]);
  } else {
    return num::e5m2_to_float(static_cast<const std::uint8_t*>(base)[i]);
  }
}

template <dgx_dtype T> void store(void* base, std::size_t i, float v) {
  if constexpr (T == DGX_DTYPE_FP16) {
    static_cast<std::uint16_t*>(base)[i] = num::float_to_fp16(v);
  } else if constexpr (T == DGX_DTYPE_BF16) {
    static_cast<std::uint16_t*>(base)[i] = num::float_to_bf16(v);
  } else if constexpr (T == DGX_DTYPE_FP8_E4M3) {
    static_cast<std::uint8_t*>(base)[i] = num::float_to_e4m3(v);
  } else {
    static_cast<std::uint8_t*>(base)[i] = num::float_to_e5m2(v);
  }
}

template <dgx_op Op> float combine(float a, float b) {
  if constexpr (Op == DGX_OP_PROD) {
    return a * b;
  } else if constexpr (Op == DGX_OP_MAX) {
    return a > b ? a : b;
  } else if constexpr (Op == DGX_OP_MIN) {
    return a < b ? a : b;
  } else {
    return a + b;  // SUM, and AVG before its division
  }
}

template <dgx_dtype T, dgx_op Op> void small_float_op(void* in, void* inout, int* length, MPI_Datatype*) {
  for (int i = 0; i < *length; ++i) {
    store<T>(inout, i, combine<Op>(load<T>(in, i), load<T>(inout, i)));
  }
}

template <dgx_dtype T> constexpr std::array<MPI_User_function*, 4> ops_for() {
  return {&small_float_op<T, DGX_OP_SUM>, &small_float_op<T, DGX_OP_PROD>, &small_float_op<T, DGX_OP_MAX>,
          &small_float_op<T, DGX_OP_MIN>};
}

template <typename T> void divide_as(void* data, std::size_t count, int n) {
  T* p = static_cast<T*>(data);
  for (std::size_t i = 0; i < count; ++i) {
    p[i] = static_cast<T>(p[i] / static_cast<T>(n));
  }
}

template <dgx_dtype T> void divide_small(void* data, std::size_t count, int n) {
  for (std::size_t i = 0; i < count; ++i) {
    store<T>(data, i, load<T>(data, i) / static_cast<float>(n));
  }
}

// The SUM of an AVG becomes the average: elementwise division by the world size.
void divide(void* data, std::size_t count, dgx_dtype t, int n) {
  switch (t) {
  case DGX_DTYPE_INT8: divide_as<std::int8_t>(data, count, n); break;
  case DGX_DTYPE_UINT8: divide_as<std::uint8_t>(data, count, n); break;
  case DGX_DTYPE_INT32: divide_as<std::int32_t>(data, count, n); break;
  case DGX_DTYPE_UINT32: divide_as<std::uint32_t>(data, count, n); break;
  case DGX_DTYPE_INT64: divide_as<std::int64_t>(data, count, n); break;
  case DGX_DTYPE_UINT64: divide_as<std::uint64_t>(data, count, n); break;
  case DGX_DTYPE_FP32: divide_as<float>(data, count, n); break;
  case DGX_DTYPE_FP64: divide_as<double>(data, count, n); break;
  case DGX_DTYPE_FP16: divide_small<DGX_DTYPE_FP16>(data, count, n); break;
  case DGX_DTYPE_BF16: divide_small<DGX_DTYPE_BF16>(data, count, n); break;
  case DGX_DTYPE_FP8_E4M3: divide_small<DGX_DTYPE_FP8_E4M3>(data, count, n); break;
  default: divide_small<DGX_DTYPE_FP8_E5M2>(data, count, n); break;
  }
}

std::string mpi_error(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, static_cast<std::size_t>(length));
}

class MpiComm final : public HostComm {
public:
  explicit MpiComm(RankInfo info) : info_(std::move(info)) {
    api_ = {sizeof(dgx_comm_api), this,        "mpi",        info_.rank, info_.world_size, &c_all_reduce, &c_all_gather,
            &c_reduce_scatter,    &c_alltoall, &c_broadcast, &c_reduce,  &c_sendrecv,      &c_barrier};
    std::array<std::array<MPI_User_function*, 4>, 4> functions = {ops_for<DGX_DTYPE_FP16>(), ops_for<DGX_DTYPE_BF16>(),
                                                                  ops_for<DGX_DTYPE_FP8_E4M3>(),
                                                                  ops_for<DGX_DTYPE_FP8_E5M2>()};
    for (std::size_t t = 0; t < 4; ++t) {
      for (std::size_t o = 0; o < 4; ++o) {
        MPI_Op_create(functions[t][o], 1, &small_ops_[t][o]);
      }
    }
  }
  ~MpiComm() override {
    for (auto& row : small_ops_) {
      for (MPI_Op& op : row) {
        MPI_Op_free(&op);
      }
    }
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized == 0) {
      MPI_Finalize();
    }
  }

  [[nodiscard]] const RankInfo& ranks() const override { return info_; }
  [[nodiscard]] const char* name() const override { return "mpi"; }
  [[nodiscard]] const dgx_comm_api* api() const override { return &api_; }

  void barrier() override { check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }
  void broadcast(void* data, std::size_t bytes, int root) override {
    for (std::size_t offset = 0; offset < bytes; offset += kChunk) {
      const int n = static_cast<int>(std::min(kChunk, bytes - offset));
      check(MPI_Bcast(static_cast<char*>(data) + offset, n, MPI_BYTE, root, MPI_COMM_WORLD), "MPI_Bcast");
    }
  }
  void all_reduce(double* values, std::size_t count, dgx_reduce_op op) override {
    const MPI_Op mpi_op = op == DGX_REDUCE_MAX ? MPI_MAX : op == DGX_REDUCE_MIN ? MPI_MIN : MPI_SUM;
    check(MPI_Allreduce(MPI_IN_PLACE, values, static_cast<int>(count), MPI_DOUBLE, mpi_op, MPI_COMM_WORLD),
          "MPI_Allreduce");
  }
  [[noreturn]] void abort(int code) override {
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);  // MPI_Abort does not return; this is for the compiler
  }

private:
  static constexpr std::size_t kChunk = 1u << 30;
  static MpiComm& self(void* ctx) { return *static_cast<MpiComm*>(ctx); }
  static void check(int code, const char* what) {
    if (code != MPI_SUCCESS) {
      throw std::runtime_error(std::string(what) + ": " + mpi_error(code));
    }
  }

  [[nodiscard]] MPI_Op op_for(dgx_dtype t, dgx_op op) const {
    const int index = op == DGX_OP_AVG ? 0 : op - DGX_OP_SUM;
    if (is_small_float(t)) {
      return small_ops_[small_float_index(t)][static_cast<std::size_t>(index)];
    }
    static const MPI_Op native[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN};
    return native[index];
  }

  // Runs an MPI call; a failure becomes DGX_ERR_RUNTIME with MPI's message.
  static dgx_status result(int code, const char* what, dgx_error* e) {
    if (code == MPI_SUCCESS) {
      return DGX_OK;
    }
    detail::set_error(e, (std::string(what) + ": " + mpi_error(code)).c_str());
    return DGX_ERR_RUNTIME;
  }
  static dgx_status too_large(dgx_error* e, std::uint64_t count) {
    detail::set_error(e, "%lld elements exceed MPI's int count limit", static_cast<long long>(count));
    return DGX_ERR_INVALID_ARGUMENT;
  }

  static dgx_status c_all_reduce(void* ctx, const void* send, void* recv, std::uint64_t count, dgx_dtype t, dgx_op op,
                                 dgx_error* e) {
    if (const dgx_status s = check_args(e, send, recv, count, t, op); s != DGX_OK) {
      return s;
    }
    MpiComm& c = self(ctx);
    const std::size_t size = element_size(t);
    for (std::uint64_t done = 0; done < count;) {  // elementwise, so counts beyond INT_MAX go in chunks
      const auto n = static_cast<int>(std::min<std::uint64_t>(count - done, INT_MAX));
      const void* in = send == recv ? MPI_IN_PLACE : static_cast<const char*>(send) + done * size;
      const int code =
          MPI_Allreduce(in, static_cast<char*>(recv) + done * size, n, mpi_type(t), c.op_for(t, op), MPI_COMM_WORLD);
      if (code != MPI_SUCCESS) {
        return result(code, "MPI_Allreduce", e);
      }
      done += static_cast<std::uint64_t>(n);
    }
    if (op == DGX_OP_AVG) {
      divide(recv, count, t, c.info_.world_size);
    }
    return DGX_OK;
  }

  static dgx_status c_all_gather(void* ctx, const void* send, void* recv, std::uint64_t count, dgx_dtype t,
                                 dgx_error* e) {
    if (const dgx_status s = check_args(e, send, recv, count, t); s != DGX_OK) {
      return s;
    }
    if (count > INT_MAX) {
      return too_large(e, count);
    }
    MpiComm& c = self(ctx);
    const bool in_place = send == static_cast<char*>(recv) + c.info_.rank * count * element_size(t);
    const int n = static_cast<int>(count);
    return result(MPI_Allgather(in_place ? MPI_IN_PLACE : send, n, mpi_type(t), recv, n, mpi_type(t), MPI_COMM_WORLD),
                  "MPI_Allgather", e);
  }

  static dgx_status c_reduce_scatter(void* ctx, const void* send, void* recv, std::uint64_t count, dgx_dtype t,
                                     dgx_op op, dgx_error* e) {
    if (const dgx_status s = check_args(e, send, recv, count, t, op); s != DGX_OK) {
      return s;
    }
    if (count > INT_MAX) {
      return too_large(e, count);
    }
    MpiComm& c = self(ctx);
    const std::size_t chunk_bytes = count * element_size(t);
    const bool in_place = recv == static_cast<const char*>(send) + c.info_.rank * chunk_bytes;
    const int n = static_cast<int>(count);
    int code;
    if (in_place) {
      // MPI leaves the result at the start of the buffer; NCCL's in-place contract puts it at this rank's chunk.
      void* whole = const_cast<void*>(send);
      code = MPI_Reduce_scatter_block(MPI_IN_PLACE, whole, n, mpi_type(t), c.op_for(t, op), MPI_COMM_WORLD);
      if (code == MPI_SUCCESS && whole != recv) {
        std::memmove(recv, whole, chunk_bytes);
      }
    } else {
      code = MPI_Reduce_scatter_block(send, recv, n, mpi_type(t), c.op_for(t, op), MPI_COMM_WORLD);
    }
    if (code != MPI_SUCCESS) {
      return result(code, "MPI_Reduce_scatter_block", e);
    }
    if (op == DGX_OP_AVG) {
      divide(recv, count, t, c.info_.world_size);
    }
    return DGX_OK;
  }

  static dgx_status c_alltoall(void*, const void* send, void* recv, std::uint64_t count, dgx_dtype t, dgx_error* e) {
    if (const dgx_status s = check_args(e, send, recv, count, t); s != DGX_OK) {
      return s;
    }
    if (count > INT_MAX) {
      return too_large(e, count);
    }
    const int n = static_cast<int>(count);
    return result(
        MPI_Alltoall(send == recv ? MPI_IN_PLACE : send, n, mpi_type(t), recv, n, mpi_type(t), MPI_COMM_WORLD),
        "MPI_Alltoall", e);
  }

  static dgx_status c_broadcast(void* ctx, const void* send, void* recv, std::uint64_t count, dgx_dtype t,
                                std::int32_t root, dgx_error* e) {
    if (const dgx_status s = check_args(e, send, recv, count, t); s != DGX_OK) {
      return s;
    }
    MpiComm& c = self(ctx);
    if (const dgx_status s = check_rank(e, root, c.info_.world_size, "root"); s != DGX_OK) {
      return s;
    }
    if (c.info_.rank == root && send != recv) {
      std::memcpy(recv, send, count * element_size(t));
    }
    try {
      c.broadcast(recv, count * element_size(t), root);
    } catch (const std::exception& x) {
      detail::set_error(e, x.what());
      return DGX_ERR_RUNTIME;
    }
    return DGX_OK;
  }

  static dgx_status c_reduce(void* ctx, const void* send, void* recv, std::uint64_t count, dgx_dtype t, dgx_op op,
                             std::int32_t root, dgx_error* e) {
    if (const dgx_status s = check_args(e, send, recv, count, t, op); s != DGX_OK) {
      return s;
    }
    MpiComm& c = self(ctx);
    if (const dgx_status s = check_rank(e, root, c.info_.world_size, "root"); s != DGX_OK) {
      return s;
    }
    if (count > INT_MAX) {
      return too_large(e, count);
    }
    const bool is_root = c.info_.rank == root;
    const void* in = is_root && send == recv ? MPI_IN_PLACE : send;
    const int code = MPI_Reduce(in, recv, static_cast<int>(count), mpi_type(t), c.op_for(t, op), root, MPI_COMM_WORLD);
    if (code != MPI_SUCCESS) {
      return result(code, "MPI_Reduce", e);
    }
    if (op == DGX_OP_AVG && is_root) {
      divide(recv, count, t, c.info_.world_size);
    }
    return DGX_OK;
  }

  static dgx_status c_sendrecv(void* ctx, const void* send, std::int32_t to, void* recv, std::int32_t from,
                               std::uint64_t count, dgx_dtype t, dgx_error* e) {
    if (const dgx_status s = check_args(e, send, recv, count, t); s != DGX_OK) {
      return s;
    }
    MpiComm& c = self(ctx);
    if (const dgx_status s = check_rank(e, to, c.info_.world_size, "peer"); s != DGX_OK) {
      return s;
    }
    if (const dgx_status s = check_rank(e, from, c.info_.world_size, "peer"); s != DGX_OK) {
      return s;
    }
    if (count > INT_MAX) {
      return too_large(e, count);
    }
    const int n = static_cast<int>(count);
    if (send == recv) {
      return result(MPI_Sendrecv_replace(recv, n, mpi_type(t), to, 0, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                    "MPI_Sendrecv_replace", e);
    }
    return result(
        MPI_Sendrecv(send, n, mpi_type(t), to, 0, recv, n, mpi_type(t), from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
        "MPI_Sendrecv", e);
  }

  static dgx_status c_barrier(void*, dgx_error* e) { return result(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier", e); }

  RankInfo info_;
  dgx_comm_api api_{};
  std::array<std::array<MPI_Op, 4>, 4> small_ops_{};
};

}  // namespace

Expected<std::unique_ptr<HostComm>> make_mpi_comm(const RankInfo& ranks) {
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    return Failure{ExitCode::run_failed, "MPI_Init_thread failed"};
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  RankInfo info = ranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &info.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &info.world_size);
  // The ranks sharing this node: MPI knows them exactly, whatever the launcher exported.
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, info.rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &info.local_rank);
  MPI_Comm_size(node, &info.local_size);
  MPI_Comm_free(&node);
  auto comm = std::make_unique<MpiComm>(info);
  if ((ranks.world_size != 0 && ranks.world_size != info.world_size) || ranks.rank != info.rank) {
    return Failure{ExitCode::usage, "the launcher (" + ranks.launcher + ") says rank " + std::to_string(ranks.rank) +
                                        " of " + std::to_string(ranks.world_size) + ", but MPI sees rank " +
                                        std::to_string(info.rank) + " of " + std::to_string(info.world_size) +
                                        ": launch with mpirun or srun --mpi=pmix"};
  }
  return std::unique_ptr<HostComm>(std::move(comm));
}

}  // namespace dgx
