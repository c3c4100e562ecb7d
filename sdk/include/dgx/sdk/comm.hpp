// Collective communication for plugin code: element types, reductions, and the Communicator interface that both
// the host's communicator (MPI or a world of one, on host buffers) and a plugin's own (the comm plugin's NCCL
// communicator, on device buffers) implement, so a workload is written once for both.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <dgx/plugin.h>
#include <dgx/sdk/error.hpp>

namespace dgx::sdk {

enum class DType : dgx_dtype {
  int8 = DGX_DTYPE_INT8,
  uint8 = DGX_DTYPE_UINT8,
  int32 = DGX_DTYPE_INT32,
  uint32 = DGX_DTYPE_UINT32,
  int64 = DGX_DTYPE_INT64,
  uint64 = DGX_DTYPE_UINT64,
  fp16 = DGX_DTYPE_FP16,
  bf16 = DGX_DTYPE_BF16,
  fp32 = DGX_DTYPE_FP32,
  fp64 = DGX_DTYPE_FP64,
  fp8_e4m3 = DGX_DTYPE_FP8_E4M3,
  fp8_e5m2 = DGX_DTYPE_FP8_E5M2
};

enum class ReduceOp : dgx_op {
  sum = DGX_OP_SUM,
  prod = DGX_OP_PROD,
  max = DGX_OP_MAX,
  min = DGX_OP_MIN,
  avg = DGX_OP_AVG
};

/// Every element type and every reduction. Functions and internal-linkage constants, not inline variables, which a
/// plugin built with default visibility would export and share with every other such plugin (see error.hpp).
constexpr std::array<DType, 12> all_dtypes() {
  return {DType::int8, DType::uint8, DType::int32, DType::uint32, DType::int64,    DType::uint64,
          DType::fp16, DType::bf16,  DType::fp32,  DType::fp64,   DType::fp8_e4m3, DType::fp8_e5m2};
}
constexpr std::array<ReduceOp, 5> all_ops() {
  return {ReduceOp::sum, ReduceOp::prod, ReduceOp::max, ReduceOp::min, ReduceOp::avg};
}
constexpr std::array<DType, 12> kAllDTypes = all_dtypes();  // one copy per translation unit
constexpr std::array<ReduceOp, 5> kAllOps = all_ops();

constexpr std::size_t dtype_size(DType t) {
  switch (t) {
  case DType::int8:
  case DType::uint8:
  case DType::fp8_e4m3:
  case DType::fp8_e5m2: return 1;
  case DType::fp16:
  case DType::bf16: return 2;
  case DType::int32:
  case DType::uint32:
  case DType::fp32: return 4;
  case DType::int64:
  case DType::uint64:
  case DType::fp64: return 8;
  }
  return 0;
}

/// The names nccl-tests uses (int8, uint8, int32, ..., half, bfloat16, float, double, f8e4m3, f8e5m2) are
/// accepted too; these are the canonical ones.
constexpr std::string_view dtype_name(DType t) {
  switch (t) {
  case DType::int8: return "int8";
  case DType::uint8: return "uint8";
  case DType::int32: return "int32";
  case DType::uint32: return "uint32";
  case DType::int64: return "int64";
  case DType::uint64: return "uint64";
  case DType::fp16: return "fp16";
  case DType::bf16: return "bf16";
  case DType::fp32: return "fp32";
  case DType::fp64: return "fp64";
  case DType::fp8_e4m3: return "fp8_e4m3";
  case DType::fp8_e5m2: return "fp8_e5m2";
  }
  return "?";
}

inline std::optional<DType> dtype_from_name(std::string_view name) {
  for (const DType t : all_dtypes()) {
    if (dtype_name(t) == name) {
      return t;
    }
  }
  struct Alias {
    std::string_view name;
    DType type;
  };
  // Not static: a static of an inline function is one object, shared by every plugin built with default visibility.
  constexpr Alias aliases[] = {{"half", DType::fp16},    {"float16", DType::fp16},    {"bfloat16", DType::bf16},
                               {"float", DType::fp32},   {"float32", DType::fp32},    {"double", DType::fp64},
                               {"float64", DType::fp64}, {"f8e4m3", DType::fp8_e4m3}, {"f8e5m2", DType::fp8_e5m2},
                               {"char", DType::int8},    {"int", DType::int32}};
  for (const Alias& a : aliases) {
    if (a.name == name) {
      return a.type;
    }
  }
  return std::nullopt;
}

constexpr bool is_float(DType t) {
  return t == DType::fp16 || t == DType::bf16 || t == DType::fp32 || t == DType::fp64 || t == DType::fp8_e4m3 ||
         t == DType::fp8_e5m2;
}

constexpr std::string_view op_name(ReduceOp op) {
  switch (op) {
  case ReduceOp::sum: return "sum";
  case ReduceOp::prod: return "prod";
  case ReduceOp::max: return "max";
  case ReduceOp::min: return "min";
  case ReduceOp::avg: return "avg";
  }
  return "?";
}

inline std::optional<ReduceOp> op_from_name(std::string_view name) {
  for (const ReduceOp op : all_ops()) {
    if (op_name(op) == name) {
      return op;
    }
  }
  return std::nullopt;
}

/// Collectives with NCCL semantics (counts in elements; see dgx_comm_api for in-place). Failures throw.
class Communicator {
public:
  Communicator() = default;
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;
  virtual ~Communicator() = default;

  [[nodiscard]] virtual int rank() const = 0;
  [[nodiscard]] virtual int size() const = 0;
  [[nodiscard]] virtual std::string name() const = 0;
  /// True when buffers must be device memory (NCCL), false for host memory (MPI, local).
  [[nodiscard]] virtual bool device_buffers() const = 0;

  virtual void all_reduce(const void* send, void* recv, std::size_t count, DType type, ReduceOp op) = 0;
  virtual void all_gather(const void* send, void* recv, std::size_t send_count, DType type) = 0;
  virtual void reduce_scatter(const void* send, void* recv, std::size_t recv_count, DType type, ReduceOp op) = 0;
  virtual void alltoall(const void* send, void* recv, std::size_t count, DType type) = 0;
  virtual void broadcast(const void* send, void* recv, std::size_t count, DType type, int root) = 0;
  virtual void reduce(const void* send, void* recv, std::size_t count, DType type, ReduceOp op, int root) = 0;
  virtual void sendrecv(const void* send, int to, void* recv, int from, std::size_t count, DType type) = 0;
  virtual void barrier() = 0;
  /// Waits until every operation issued so far has completed (asynchronous transports).
  virtual void synchronize() {}
};

/// The host's communicator (dgx_comm_api), on host buffers.
class HostCommunicator final : public Communicator {
public:
  explicit HostCommunicator(const dgx_comm_api* api) : api_(api) {}

  [[nodiscard]] int rank() const override { return api_->rank; }
  [[nodiscard]] int size() const override { return api_->size; }
  [[nodiscard]] std::string name() const override { return api_->name; }
  [[nodiscard]] bool device_buffers() const override { return false; }

  void all_reduce(const void* send, void* recv, std::size_t count, DType type, ReduceOp op) override {
    call("all_reduce", [&](dgx_error* e) { return api_->all_reduce(api_->ctx, send, recv, count, c(type), c(op), e); });
  }
  void all_gather(const void* send, void* recv, std::size_t send_count, DType type) override {
    call("all_gather", [&](dgx_error* e) { return api_->all_gather(api_->ctx, send, recv, send_count, c(type), e); });
  }
  void reduce_scatter(const void* send, void* recv, std::size_t recv_count, DType type, ReduceOp op) override {
    call("reduce_scatter",
         [&](dgx_error* e) { return api_->reduce_scatter(api_->ctx, send, recv, recv_count, c(type), c(op), e); });
  }
  void alltoall(const void* send, void* recv, std::size_t count, DType type) override {
    call("alltoall", [&](dgx_error* e) { return api_->alltoall(api_->ctx, send, recv, count, c(type), e); });
  }
  void broadcast(const void* send, void* recv, std::size_t count, DType type, int root) override {
    call("broadcast", [&](dgx_error* e) { return api_->broadcast(api_->ctx, send, recv, count, c(type), root, e); });
  }
  void reduce(const void* send, void* recv, std::size_t count, DType type, ReduceOp op, int root) override {
    call("reduce", [&](dgx_error* e) { return api_->reduce(api_->ctx, send, recv, count, c(type), c(op), root, e); });
  }
  void sendrecv(const void* send, int to, void* recv, int from, std::size_t count, DType type) override {
    call("sendrecv", [&](dgx_error* e) { return api_->sendrecv(api_->ctx, send, to, recv, from, count, c(type), e); });
  }
  void barrier() override {
    call("barrier", [&](dgx_error* e) { return api_->barrier(api_->ctx, e); });
  }

private:
  static dgx_dtype c(DType t) { return static_cast<dgx_dtype>(t); }
  static dgx_op c(ReduceOp op) { return static_cast<dgx_op>(op); }
  template <typename Call> void call(const char* what, Call&& body) const {
    std::array<char, 512> message{};
    dgx_error error{sizeof(dgx_error), static_cast<std::uint32_t>(message.size()), message.data()};
    const dgx_status status = body(&error);
    if (status != DGX_OK) {
      throw Error(status, std::string(api_->name) + " " + what +
                              " failed: " + (message[0] != '\0' ? message.data() : status_name(status)));
    }
  }

  const dgx_comm_api* api_;
};

}  // namespace dgx::sdk
