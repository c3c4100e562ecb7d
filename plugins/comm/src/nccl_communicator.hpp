// The comm plugin's NCCL communicator (needs NCCL and the CUDA runtime). Implements
// dgx::sdk::Communicator on device buffers and one CUDA stream; the NCCL unique id travels from rank 0 to every
// rank through the host's broadcast service, so the host itself never touches CUDA or NCCL.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <string>

#include <dgx/sdk/comm.hpp>
#include <dgx/sdk/error.hpp>
#include <dgx/sdk/host.hpp>

namespace dgx::plugins::comm {

inline void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw sdk::RuntimeError(std::string(what) + ": " + cudaGetErrorName(status) + ": " + cudaGetErrorString(status));
  }
}

inline void check_nccl(ncclResult_t status, const char* what, ncclComm_t comm = nullptr) {
  if (status == ncclSuccess) {
    return;
  }
  std::string message = std::string(what) + ": " + ncclGetErrorString(status);
  if (const char* last = ncclGetLastError(comm); last != nullptr && *last != '\0') {
    message += " (" + std::string(last) + ")";
  }
  if (status == ncclInvalidArgument || status == ncclInvalidUsage) {
    throw sdk::Error(DGX_ERR_INVALID_ARGUMENT, message);
  }
  throw sdk::RuntimeError(message);
}

inline ncclDataType_t nccl_type(sdk::DType t) {
  switch (t) {
  case sdk::DType::int8: return ncclInt8;
  case sdk::DType::uint8: return ncclUint8;
  case sdk::DType::int32: return ncclInt32;
  case sdk::DType::uint32: return ncclUint32;
  case sdk::DType::int64: return ncclInt64;
  case sdk::DType::uint64: return ncclUint64;
  case sdk::DType::fp16: return ncclFloat16;
  case sdk::DType::bf16: return ncclBfloat16;
  case sdk::DType::fp32: return ncclFloat32;
  case sdk::DType::fp64: return ncclFloat64;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 24, 0)
  case sdk::DType::fp8_e4m3: return ncclFloat8e4m3;
  case sdk::DType::fp8_e5m2: return ncclFloat8e5m2;
#endif
  default: break;
  }
  throw sdk::Unsupported("NCCL " + std::to_string(NCCL_MAJOR) + "." + std::to_string(NCCL_MINOR) + " has no type " +
                         std::string(sdk::dtype_name(t)));
}

inline ncclRedOp_t nccl_op(sdk::ReduceOp op) {
  switch (op) {
  case sdk::ReduceOp::sum: return ncclSum;
  case sdk::ReduceOp::prod: return ncclProd;
  case sdk::ReduceOp::max: return ncclMax;
  case sdk::ReduceOp::min: return ncclMin;
  case sdk::ReduceOp::avg: return ncclAvg;
  }
  return ncclSum;
}

/// One NCCL communicator over all ranks of the run, on `stream` (which it does not own).
class NcclCommunicator final : public sdk::Communicator {
public:
  NcclCommunicator(const sdk::Host& host, cudaStream_t stream) : host_(host), stream_(stream) {
    const sdk::RankInfo ranks = host.ranks();
    rank_ = ranks.rank;
    size_ = ranks.world_size;
    ncclUniqueId id{};
    if (rank_ == 0) {
      check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
    }
    host.broadcast(&id, sizeof id, 0);
    check_nccl(ncclCommInitRank(&comm_, size_, id, rank_), "ncclCommInitRank");
  }
  ~NcclCommunicator() override {
    if (comm_ != nullptr) {
      ncclCommDestroy(comm_);
    }
  }

  [[nodiscard]] int rank() const override { return rank_; }
  [[nodiscard]] int size() const override { return size_; }
  [[nodiscard]] std::string name() const override { return "nccl"; }
  [[nodiscard]] bool device_buffers() const override { return true; }
  [[nodiscard]] ncclComm_t handle() const { return comm_; }
  [[nodiscard]] cudaStream_t stream() const { return stream_; }

  void all_reduce(const void* send, void* recv, std::size_t count, sdk::DType t, sdk::ReduceOp op) override {
    check_nccl(ncclAllReduce(send, recv, count, nccl_type(t), nccl_op(op), comm_, stream_), "ncclAllReduce", comm_);
  }
  void all_gather(const void* send, void* recv, std::size_t send_count, sdk::DType t) override {
    check_nccl(ncclAllGather(send, recv, send_count, nccl_type(t), comm_, stream_), "ncclAllGather", comm_);
  }
  void reduce_scatter(const void* send, void* recv, std::size_t recv_count, sdk::DType t, sdk::ReduceOp op) override {
    check_nccl(ncclReduceScatter(send, recv, recv_count, nccl_type(t), nccl_op(op), comm_, stream_),
               "ncclReduceScatter", comm_);
  }
  void alltoall(const void* send, void* recv, std::size_t count, sdk::DType t) override {
    // As nccl-tests does it: one grouped send and receive per peer.
    const std::size_t bytes = count * sdk::dtype_size(t);
    check_nccl(ncclGroupStart(), "ncclGroupStart");
    for (int peer = 0; peer < size_; ++peer) {
      check_nccl(ncclSend(static_cast<const char*>(send) + peer * bytes, count, nccl_type(t), peer, comm_, stream_),
                 "ncclSend", comm_);
      check_nccl(ncclRecv(static_cast<char*>(recv) + peer * bytes, count, nccl_type(t), peer, comm_, stream_),
                 "ncclRecv", comm_);
    }
    check_nccl(ncclGroupEnd(), "ncclGroupEnd", comm_);
  }
  void broadcast(const void* send, void* recv, std::size_t count, sdk::DType t, int root) override {
    check_nccl(ncclBroadcast(send, recv, count, nccl_type(t), root, comm_, stream_), "ncclBroadcast", comm_);
  }
  void reduce(const void* send, void* recv, std::size_t count, sdk::DType t, sdk::ReduceOp op, int root) override {
    check_nccl(ncclReduce(send, recv, count, nccl_type(t), nccl_op(op), root, comm_, stream_), "ncclReduce", comm_);
  }
  void sendrecv(const void* send, int to, void* recv, int from, std::size_t count, sdk::DType t) override {
    check_nccl(ncclGroupStart(), "ncclGroupStart");
    check_nccl(ncclSend(send, count, nccl_type(t), to, comm_, stream_), "ncclSend", comm_);
    check_nccl(ncclRecv(recv, count, nccl_type(t), from, comm_, stream_), "ncclRecv", comm_);
    check_nccl(ncclGroupEnd(), "ncclGroupEnd", comm_);
  }
  void barrier() override {
    synchronize();
    host_.barrier();
  }
  void synchronize() override { check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }

private:
  const sdk::Host& host_;
  cudaStream_t stream_;
  ncclComm_t comm_ = nullptr;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace dgx::plugins::comm
