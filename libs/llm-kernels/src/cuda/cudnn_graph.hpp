// A thin layer over cuDNN's backend (graph) API: RAII descriptors, a builder for operation graphs made of tensors
// and matmul / pointwise / reduction / reshape nodes, engine selection by heuristics, and execution. The
// attention graphs (attention.cpp) are written with it.
#pragma once

#include <cudnn.h>

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace dgx::llm::cuda::detail {

class BackendDescriptor {
public:
  BackendDescriptor() = default;
  explicit BackendDescriptor(cudnnBackendDescriptorType_t type);
  ~BackendDescriptor();
  BackendDescriptor(BackendDescriptor&& other) noexcept : desc_(std::exchange(other.desc_, nullptr)) {}
  BackendDescriptor& operator=(BackendDescriptor&& other) noexcept;
  BackendDescriptor(const BackendDescriptor&) = delete;
  BackendDescriptor& operator=(const BackendDescriptor&) = delete;

  [[nodiscard]] cudnnBackendDescriptor_t get() const { return desc_; }
  void set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, std::int64_t count, const void* values);
  void set(cudnnBackendAttributeName_t name, const BackendDescriptor& value);
  void set(cudnnBackendAttributeName_t name, std::int64_t value);
  void finalize();

private:
  cudnnBackendDescriptor_t desc_ = nullptr;
};

using Dims = std::array<std::int64_t, 4>;

/// Packed strides of `dims` (last dimension contiguous).
[[nodiscard]] Dims packed_strides(const Dims& dims);

class GraphBuilder {
public:
  /// A null handle builds a graph that cannot be planned, only checked (attention.hpp, check_attention_graphs).
  explicit GraphBuilder(cudnnHandle_t handle) : handle_(handle) {}

  /// Adds a tensor and returns its unique id (the key of its data pointer at execution).
  std::int64_t tensor(cudnnDataType_t type, const Dims& dims, const Dims& strides, bool is_virtual,
                      bool by_value = false);
  /// A virtual (never materialized) intermediate, packed.
  std::int64_t intermediate(cudnnDataType_t type, const Dims& dims) {
    return tensor(type, dims, packed_strides(dims), true);
  }
  /// A by-value FP32 scalar: its value is passed from host memory at execution.
  std::int64_t scalar() { return tensor(CUDNN_DATA_FLOAT, {1, 1, 1, 1}, {1, 1, 1, 1}, false, true); }

  void matmul(std::int64_t a, std::int64_t b, std::int64_t c);
  /// y = mode(x[, b][, t]); `axis` for GEN_INDEX.
  void pointwise(cudnnPointwiseMode_t mode, std::int64_t x, std::int64_t y, std::int64_t b = -1, std::int64_t t = -1,
                 cudnnDataType_t math = CUDNN_DATA_FLOAT, std::int64_t axis = -1);
  void reduction(cudnnReduceTensorOp_t op, std::int64_t x, std::int64_t y);
  void reshape(std::int64_t x, std::int64_t y);

  /// The finalized operation graph of every node added.
  [[nodiscard]] BackendDescriptor build();

private:
  [[nodiscard]] const BackendDescriptor& at(std::int64_t uid) const;

  cudnnHandle_t handle_;
  std::map<std::int64_t, BackendDescriptor> tensors_;
  std::vector<BackendDescriptor> nodes_;
  std::int64_t next_uid_ = 1;
};

/// An execution plan: the first engine configuration the heuristics propose that finalizes for this graph.
struct Plan {
  BackendDescriptor plan;
  std::int64_t workspace_bytes = 0;
};

/// Throws Error(unsupported) naming `what` (the configuration) and cuDNN's reason when no engine supports the graph.
[[nodiscard]] Plan make_plan(cudnnHandle_t handle, const BackendDescriptor& graph, const std::string& what);

/// Runs a plan with the data pointers of its non-virtual tensors (by-value scalars: host pointers).
void execute(cudnnHandle_t handle, const Plan& plan, const std::vector<std::pair<std::int64_t, void*>>& pointers,
             void* workspace);

}  // namespace dgx::llm::cuda::detail
