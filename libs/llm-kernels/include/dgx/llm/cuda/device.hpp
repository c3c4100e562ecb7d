// What the current CUDA device is, or why there is none. CUDA-free header: plugins call no_device_reason() in
// can_measure (never at load or init, so they load on a machine without a driver).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace dgx::llm::cuda {

struct DeviceProperties {
  int index = 0;
  std::string name;  ///< e.g. "NVIDIA H200"
  int sm_count = 0;
  int cc_major = 0, cc_minor = 0;
  std::uint64_t memory_bytes = 0;
  std::uint64_t l2_bytes = 0;
};

/// nullopt when a CUDA device is usable; otherwise why not, e.g. "cudaGetDeviceCount: cudaErrorInsufficientDriver:
/// CUDA driver version is insufficient for CUDA runtime version" or "the CUDA runtime reports no devices".
[[nodiscard]] std::optional<std::string> no_device_reason();

/// The current device; throws Error(no_device) when there is none.
[[nodiscard]] DeviceProperties current_device();

/// The libraries in use, for the results: "CUDA runtime 13.0, driver 13.0, cuBLASLt 13.1.0" (cuDNN's version,
/// where a plugin uses it, comes from cudnn_version() in attention.hpp).
[[nodiscard]] std::string software_versions();

}  // namespace dgx::llm::cuda
