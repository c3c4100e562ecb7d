// Every CUDA, cuBLASLt and cuDNN call is checked: a failure throws dgx::llm::cuda::Error with the call, the
// file:line and the library's own error name and string (cuDNN: plus its last detailed message).
#pragma once

#include "dgx/llm/cuda/error.hpp"

#include <cuda_runtime_api.h>

#include <string>

namespace dgx::llm::cuda::detail {

/// "src/cuda/blas.cpp:42" for a failure at `file`:`line`: the path from the library's folder.
[[nodiscard]] std::string where(const char* file, int line);

[[noreturn]] void throw_cuda(cudaError_t status, const char* expression, const char* file, int line);
[[noreturn]] void throw_cublas(int status, const char* expression, const char* file, int line);
/// Defined in the cuDNN part of the kernels (dgx_llm_kernels): code using DGX_CUDNN_CHECK links it.
[[noreturn]] void throw_cudnn(int status, const char* expression, const char* file, int line);

}  // namespace dgx::llm::cuda::detail

#define DGX_CUDA_CHECK(expression)                                                                                     \
  do {                                                                                                                 \
    const cudaError_t dgx_cuda_status_ = (expression);                                                                 \
    if (dgx_cuda_status_ != cudaSuccess)                                                                               \
      ::dgx::llm::cuda::detail::throw_cuda(dgx_cuda_status_, #expression, __FILE__, __LINE__);                         \
  } while (0)

/// Needs <cublasLt.h> where it is used.
#define DGX_CUBLAS_CHECK(expression)                                                                                   \
  do {                                                                                                                 \
    const cublasStatus_t dgx_cublas_status_ = (expression);                                                            \
    if (dgx_cublas_status_ != CUBLAS_STATUS_SUCCESS)                                                                   \
      ::dgx::llm::cuda::detail::throw_cublas(static_cast<int>(dgx_cublas_status_), #expression, __FILE__, __LINE__);   \
  } while (0)

/// Needs <cudnn.h> where it is used.
#define DGX_CUDNN_CHECK(expression)                                                                                    \
  do {                                                                                                                 \
    const cudnnStatus_t dgx_cudnn_status_ = (expression);                                                              \
    if (dgx_cudnn_status_ != CUDNN_STATUS_SUCCESS)                                                                     \
      ::dgx::llm::cuda::detail::throw_cudnn(static_cast<int>(dgx_cudnn_status_), #expression, __FILE__, __LINE__);     \
  } while (0)

/// After a kernel launch: reports launch-configuration errors at the launch site.
#define DGX_CUDA_CHECK_LAUNCH() DGX_CUDA_CHECK(cudaGetLastError())
