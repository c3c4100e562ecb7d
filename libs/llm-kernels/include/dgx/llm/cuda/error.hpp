// The one exception type of the kernels library. CUDA-free so that plugin code can map it to SDK errors
// without including CUDA headers.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace dgx::llm::cuda {

class Error : public std::runtime_error {
public:
  enum class Kind : std::uint8_t {
    runtime,        ///< a CUDA / cuBLASLt / cuDNN call failed
    out_of_memory,  ///< an allocation failed
    no_device,      ///< no usable CUDA device or driver
    unsupported     ///< the library has no kernel / engine for this configuration
  };
  Error(Kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  [[nodiscard]] Kind kind() const noexcept { return kind_; }

private:
  Kind kind_;
};

}  // namespace dgx::llm::cuda
