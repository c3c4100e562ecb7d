#include "cudnn_graph.hpp"

#include "dgx/llm/cuda/check.hpp"

#include <stdexcept>

namespace dgx::llm::cuda::detail {

BackendDescriptor::BackendDescriptor(cudnnBackendDescriptorType_t type) {
  DGX_CUDNN_CHECK(cudnnBackendCreateDescriptor(type, &desc_));
}

BackendDescriptor::~BackendDescriptor() {
  if (desc_ != nullptr) {
    cudnnBackendDestroyDescriptor(desc_);
  }
}

BackendDescriptor& BackendDescriptor::operator=(BackendDescriptor&& other) noexcept {
  if (this != &other) {
    if (desc_ != nullptr) {
      cudnnBackendDestroyDescriptor(desc_);
    }
    desc_ = std::exchange(other.desc_, nullptr);
  }
  return *this;
}

void BackendDescriptor::set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, std::int64_t count,
                            const void* values) {
  DGX_CUDNN_CHECK(cudnnBackendSetAttribute(desc_, name, type, count, values));
}

void BackendDescriptor::set(cudnnBackendAttributeName_t name, const BackendDescriptor& value) {
  cudnnBackendDescriptor_t raw = value.get();
  set(name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &raw);
}

void BackendDescriptor::set(cudnnBackendAttributeName_t name, std::int64_t value) {
  set(name, CUDNN_TYPE_INT64, 1, &value);
}

void BackendDescriptor::finalize() { DGX_CUDNN_CHECK(cudnnBackendFinalize(desc_)); }

Dims packed_strides(const Dims& dims) {
  Dims strides{};
  std::int64_t stride = 1;
  for (int i = 3; i >= 0; --i) {
    strides[std::size_t(i)] = stride;
    stride *= dims[std::size_t(i)];
  }
  return strides;
}

std::int64_t GraphBuilder::tensor(cudnnDataType_t type, const Dims& dims, const Dims& strides, bool is_virtual,
                                  bool by_value) {
  const std::int64_t uid = next_uid_++;
  BackendDescriptor t(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  t.set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type);
  t.set(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims.data());
  t.set(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides.data());
  t.set(CUDNN_ATTR_TENSOR_UNIQUE_ID, uid);
  t.set(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, std::int64_t{16});
  const bool virtual_flag = is_virtual, by_value_flag = by_value;
  t.set(CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &virtual_flag);
  if (by_value) {
    t.set(CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &by_value_flag);
  }
  t.finalize();
  tensors_.emplace(uid, std::move(t));
  return uid;
}

const BackendDescriptor& GraphBuilder::at(std::int64_t uid) const {
  const auto it = tensors_.find(uid);
  if (it == tensors_.end()) {
    throw std::logic_error("cuDNN graph: unknown tensor id " + std::to_string(uid));
  }
  return it->second;
}

void GraphBuilder::matmul(std::int64_t a, std::int64_t b, std::int64_t c) {
  BackendDescriptor desc(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
  const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  desc.set(CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &compute);
  desc.finalize();
  BackendDescriptor op(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
  op.set(CUDNN_ATTR_OPERATION_MATMUL_ADESC, at(a));
  op.set(CUDNN_ATTR_OPERATION_MATMUL_BDESC, at(b));
  op.set(CUDNN_ATTR_OPERATION_MATMUL_CDESC, at(c));
  op.set(CUDNN_ATTR_OPERATION_MATMUL_DESC, desc);
  op.finalize();
  nodes_.push_back(std::move(op));
}

void GraphBuilder::pointwise(cudnnPointwiseMode_t mode, std::int64_t x, std::int64_t y, std::int64_t b, std::int64_t t,
                             cudnnDataType_t math, std::int64_t axis) {
  BackendDescriptor desc(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
  desc.set(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode);
  desc.set(CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &math);
  if (axis >= 0) {
    desc.set(CUDNN_ATTR_POINTWISE_AXIS, axis);
  }
  desc.finalize();
  BackendDescriptor op(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
  op.set(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, desc);
  op.set(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, at(x));
  if (b >= 0) {
    op.set(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, at(b));
  }
  if (t >= 0) {
    op.set(CUDNN_ATTR_OPERATION_POINTWISE_TDESC, at(t));
  }
  op.set(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, at(y));
  op.finalize();
  nodes_.push_back(std::move(op));
}

void GraphBuilder::reduction(cudnnReduceTensorOp_t reduce, std::int64_t x, std::int64_t y) {
  BackendDescriptor desc(CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
  desc.set(CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &reduce);
  const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  desc.set(CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &compute);
  desc.finalize();
  BackendDescriptor op(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR);
  op.set(CUDNN_ATTR_OPERATION_REDUCTION_XDESC, at(x));
  op.set(CUDNN_ATTR_OPERATION_REDUCTION_YDESC, at(y));
  op.set(CUDNN_ATTR_OPERATION_REDUCTION_DESC, desc);
  op.finalize();
  nodes_.push_back(std::move(op));
}

void GraphBuilder::reshape(std::int64_t x, std::int64_t y) {
  BackendDescriptor op(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR);
  op.set(CUDNN_ATTR_OPERATION_RESHAPE_XDESC, at(x));
  op.set(CUDNN_ATTR_OPERATION_RESHAPE_YDESC, at(y));
  op.finalize();
  nodes_.push_back(std::move(op));
}

BackendDescriptor GraphBuilder::build() {
  std::vector<cudnnBackendDescriptor_t> ops;
  ops.reserve(nodes_.size());
  for (const BackendDescriptor& node : nodes_) {
    ops.push_back(node.get());
  }
  BackendDescriptor graph(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  if (handle_ != nullptr) {
    graph.set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle_);
  }
  graph.set(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, static_cast<std::int64_t>(ops.size()),
            ops.data());
  graph.finalize();
  return graph;
}

namespace {

std::string last_cudnn_message() {
  char detail[1024] = {};
  cudnnGetLastErrorString(detail, sizeof detail);
  return detail;
}

/// What cuDNN says about a failed call: its status name and its last error message.
std::string cudnn_reason(cudnnStatus_t status) {
  return std::string(cudnnGetErrorString(status)) + " " + last_cudnn_message();
}

/// Engine configurations the heuristic `mode` proposes for `graph`, best first. When there are none, `reason`
/// says why (cuDNN's own message when the heuristics query itself fails).
std::vector<BackendDescriptor> engine_configs(const BackendDescriptor& graph, cudnnBackendHeurMode_t mode,
                                              std::string& reason) {
  BackendDescriptor heuristics(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  heuristics.set(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph);
  heuristics.set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode);
  if (const cudnnStatus_t status = cudnnBackendFinalize(heuristics.get()); status != CUDNN_STATUS_SUCCESS) {
    reason = "the heuristics failed: " + cudnn_reason(status);
    return {};
  }
  std::int64_t count = 0;
  if (const cudnnStatus_t status = cudnnBackendGetAttribute(heuristics.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                                            CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr);
      status != CUDNN_STATUS_SUCCESS) {
    reason = "the heuristics' results could not be read: " + cudnn_reason(status);
    return {};
  }
  if (count <= 0) {
    return {};
  }
  std::vector<BackendDescriptor> configs;
  std::vector<cudnnBackendDescriptor_t> raw;
  for (std::int64_t i = 0; i < count; ++i) {
    configs.emplace_back(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    raw.push_back(configs.back().get());
  }
  std::int64_t returned = 0;
  DGX_CUDNN_CHECK(cudnnBackendGetAttribute(heuristics.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                           CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &returned, raw.data()));
  configs.resize(static_cast<std::size_t>(std::max<std::int64_t>(0, std::min(returned, count))));
  return configs;
}

}  // namespace

Plan make_plan(cudnnHandle_t handle, const BackendDescriptor& graph, const std::string& what) {
  std::string reason = "the heuristics proposed no engine";
  for (const cudnnBackendHeurMode_t mode : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
    for (BackendDescriptor& config : engine_configs(graph, mode, reason)) {
      BackendDescriptor plan(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
      plan.set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
      plan.set(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, config);
      const cudnnStatus_t status = cudnnBackendFinalize(plan.get());
      if (status != CUDNN_STATUS_SUCCESS) {
        reason = cudnn_reason(status);
        continue;
      }
      Plan result{std::move(plan), 0};
      std::int64_t count = 0;
      DGX_CUDNN_CHECK(cudnnBackendGetAttribute(result.plan.get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                               CUDNN_TYPE_INT64, 1, &count, &result.workspace_bytes));
      return result;
    }
  }
  throw Error(Error::Kind::unsupported,
              "cuDNN " + std::to_string(cudnnGetVersion()) + " has no engine for " + what + ": " + reason);
}

void execute(cudnnHandle_t handle, const Plan& plan, const std::vector<std::pair<std::int64_t, void*>>& pointers,
             void* workspace) {
  std::vector<std::int64_t> uids;
  std::vector<void*> data;
  for (const auto& [uid, pointer] : pointers) {
    uids.push_back(uid);
    data.push_back(pointer);
  }
  BackendDescriptor pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, static_cast<std::int64_t>(uids.size()), uids.data());
  pack.set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, static_cast<std::int64_t>(data.size()),
           data.data());
  pack.set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace);
  pack.finalize();
  DGX_CUDNN_CHECK(cudnnBackendExecute(handle, plan.plan.get(), pack.get()));
}

}  // namespace dgx::llm::cuda::detail
