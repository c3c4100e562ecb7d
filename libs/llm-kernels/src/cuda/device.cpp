#include "dgx/llm/cuda/device.hpp"

#include "dgx/llm/cuda/check.hpp"

#include <cublasLt.h>

namespace dgx::llm::cuda {

namespace {

std::string cuda_version(int version) {  // CUDA encodes 13.0 as 13000
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

std::string dotted(std::size_t version, std::size_t major_unit, std::size_t minor_unit) {
  return std::to_string(version / major_unit) + "." + std::to_string((version % major_unit) / minor_unit) + "." +
         std::to_string(version % minor_unit);
}

}  // namespace

std::optional<std::string> no_device_reason() {
  int count = 0;  // stays 0 when the call fails
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    return std::string("cudaGetDeviceCount: ") + cudaGetErrorName(status) + ": " + cudaGetErrorString(status);
  }
  if (count == 0) {
    return std::string("the CUDA runtime reports no devices");
  }
  return std::nullopt;
}

DeviceProperties current_device() {
  if (const auto reason = no_device_reason()) {
    throw Error(Error::Kind::no_device, "no CUDA device found: " + *reason);
  }
  DeviceProperties p;
  DGX_CUDA_CHECK(cudaGetDevice(&p.index));
  cudaDeviceProp props{};
  DGX_CUDA_CHECK(cudaGetDeviceProperties(&props, p.index));
  p.name = props.name;
  p.sm_count = props.multiProcessorCount;
  p.cc_major = props.major;
  p.cc_minor = props.minor;
  p.memory_bytes = props.totalGlobalMem;
  p.l2_bytes = static_cast<std::uint64_t>(props.l2CacheSize);
  return p;
}

std::string software_versions() {
  int runtime = 0, driver = 0;
  std::string text = "CUDA runtime ";
  text += cudaRuntimeGetVersion(&runtime) == cudaSuccess ? cuda_version(runtime) : "?";
  if (cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0) {
    text += ", driver " + cuda_version(driver);
  }
  text += ", cuBLASLt " + dotted(cublasLtGetVersion(), 10000, 100);  // e.g. 130100 -> 13.1.0
  return text;
}

}  // namespace dgx::llm::cuda
