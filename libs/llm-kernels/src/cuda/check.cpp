#include "dgx/llm/cuda/check.hpp"

#include <cublasLt.h>

#include <string>
#include <string_view>

namespace dgx::llm::cuda::detail {

/// "src/cuda/blas.cpp:42": the path from the library's source folder, not the build machine's.
std::string where(const char* file, int line) {
  std::string_view path(file);
  for (const std::string_view marker : {"llm-kernels/", "plugins/"}) {
    if (const std::size_t at = path.rfind(marker); at != std::string_view::npos) {
      path.remove_prefix(at + marker.size());
      break;
    }
  }
  return std::string(path) + ":" + std::to_string(line);
}

namespace {

Error::Kind cuda_kind(cudaError_t status) {
  switch (status) {
  case cudaErrorMemoryAllocation: return Error::Kind::out_of_memory;
  case cudaErrorNoDevice:
  case cudaErrorInsufficientDriver:
  case cudaErrorInvalidDevice: return Error::Kind::no_device;
  default: return Error::Kind::runtime;
  }
}

}  // namespace

void throw_cuda(cudaError_t status, const char* expression, const char* file, int line) {
  throw Error(cuda_kind(status), where(file, line) + ": " + expression + " failed: " + cudaGetErrorName(status) + ": " +
                                     cudaGetErrorString(status));
}

void throw_cublas(int status, const char* expression, const char* file, int line) {
  const auto s = static_cast<cublasStatus_t>(status);
  const Error::Kind kind = s == CUBLAS_STATUS_ALLOC_FAILED    ? Error::Kind::out_of_memory
                           : s == CUBLAS_STATUS_NOT_SUPPORTED ? Error::Kind::unsupported
                                                              : Error::Kind::runtime;
  throw Error(kind, where(file, line) + ": " + expression + " failed: " + cublasLtGetStatusName(s) + ": " +
                        cublasLtGetStatusString(s));
}

}  // namespace dgx::llm::cuda::detail
