// The cuDNN half of check.hpp, and cuDNN's version: with the attention graphs, the only code that needs libcudnn,
// kept out of check.cpp and device.cpp so that plugins using only cuBLASLt (gemm) load without cuDNN installed.
#include "dgx/llm/cuda/attention.hpp"
#include "dgx/llm/cuda/check.hpp"

#include <cudnn.h>

#include <string>

namespace dgx::llm::cuda {

namespace detail {

void throw_cudnn(int status, const char* expression, const char* file, int line) {
  const auto s = static_cast<cudnnStatus_t>(status);
  // The 3000s are the NOT_SUPPORTED family (no engine, shape or layout not supported, arch mismatch).
  const Error::Kind kind = (status >= 3000 && status < 4000)                         ? Error::Kind::unsupported
                           : s == CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED ? Error::Kind::out_of_memory
                                                                                     : Error::Kind::runtime;
  std::string message = where(file, line) + ": " + expression + " failed: " + cudnnGetErrorString(s);
  char detail[1024] = {};
  cudnnGetLastErrorString(detail, sizeof detail);
  if (detail[0] != '\0') {
    message += " (" + std::string(detail) + ")";
  }
  throw Error(kind, message);
}

}  // namespace detail

std::string cudnn_version() {
  const std::size_t v = cudnnGetVersion();  // e.g. 91900 -> 9.19.0
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

}  // namespace dgx::llm::cuda
